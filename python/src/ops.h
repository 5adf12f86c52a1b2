/* The operators' parameters, shared by the one-shot functions, cleave.Plan and cleave.infer. */
#ifndef PCL_OPS_H
#define PCL_OPS_H

#include "lib.h"

/* The operator parameters of each kind, in order (after x), and how many there are. */
extern const char *const pcl_op_params[5][4];
extern const int pcl_op_param_count[5];

/* Builds `op` of `kind` from its parameters p[0..pcl_op_param_count[kind]) (NULL: not given).
 * With `unknown` not NULL, cleave.UNKNOWN is accepted for the axis and for every split length
 * and the flags are stored there (bit 1: axis, bit 2: lengths). */
int pcl_build_op(pcl_kind kind, PyObject *const *p, pcl_op *op, int *unknown);

/* The kind named by `name` ("split", "variadic_split", "split_to_sequence", "onnx_split"). */
int pcl_kind_from_name(PyObject *name, pcl_kind *kind);

#endif
