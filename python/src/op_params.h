/*
 * The operators' Python parameters, shared by the one-shot functions, cleave.Plan and
 * cleave.infer: their names, and an operator (op.h) built from their values.
 * Functions returning int return 0, or -1 with an exception set.
 */
#ifndef PCL_OP_PARAMS_H
#define PCL_OP_PARAMS_H

#include "op.h"

/* The most parameters an operator has (after x). */
#define PCL_MAX_OP_PARAMS 4

/* The operator parameters of each kind (cleave_op_kind indexes), in order, and their count. */
extern const char *const pcl_op_params[5][PCL_MAX_OP_PARAMS];
extern const int pcl_op_param_count[5];

/* The Python name of a kind ("split", "variadic_split", "split_to_sequence", "onnx_split"). */
const char *pcl_kind_name(cleave_op_kind kind);

/* The kind named by the str `name`: TypeError for a non-str, ValueError for an unknown name. */
int pcl_kind_from_name(PyObject *name, cleave_op_kind *kind);

/*
 * Initialises `op` as `kind` from its parameters p[0..pcl_op_param_count[kind]) (borrowed; NULL:
 * not given). With `unknown` not NULL, cleave.UNKNOWN is accepted for the axis and for every
 * split length, and the flags are stored there (CLEAVE_UNKNOWN_AXIS, CLEAVE_UNKNOWN_LENGTHS).
 * TypeError or OverflowError for values of the wrong Python type or range; the operator's rules
 * are left to the library. The caller clears `op` (pcl_op_clear) whatever the outcome.
 */
int pcl_build_op(cleave_op_kind kind, PyObject *const *p, pcl_op *op, unsigned *unknown);

#endif
