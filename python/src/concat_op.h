/*
 * A concatenating operator as the binding holds it (cleave.concat, cleave.concat_from_sequence,
 * cleave.ConcatPlan): the library's cleave_concat_op with the axis it points at, built from the
 * Python parameters. `c.axis` points into the struct itself: copy a pcl_concat_op only with
 * pcl_concat_op_copy. Functions returning int return 0, or -1 with an exception set.
 */
#ifndef PCL_CONCAT_OP_H
#define PCL_CONCAT_OP_H

#include "state.h"

typedef struct pcl_concat_op {
  cleave_concat_op c; /* the library's operator; c.axis points at `axis` unless absent */
  int64_t axis;
  int has_opset; /* concat: an opset was given (ONNX Concat); otherwise OpenVINO Concat-1 */
} pcl_concat_op;

/* The parameters of each operator after the arrays, in order, and their count. */
#define PCL_CONCAT_MAX_PARAMS 3
extern const char *const pcl_concat_params[2][PCL_CONCAT_MAX_PARAMS];
extern const int pcl_concat_param_count[2];

/* The Python name of a kind ("concat", "concat_from_sequence"). */
const char *pcl_concat_kind_name(cleave_concat_kind kind);

/* The kind named by the str `name`: 0 with *kind set; -1 with TypeError for a non-str, or 1 (no
 * exception) when the name is not one of the family's, for the caller to try others. */
int pcl_concat_kind_from_name(PyObject *name, cleave_concat_kind *kind);

/*
 * Initialises `op` as `kind` from its parameters p[0..pcl_concat_param_count[kind]) (borrowed;
 * NULL: not given): concat's (axis, opset), concat_from_sequence's (axis, new_axis, opset).
 * concat without an opset is OpenVINO Concat-1, with one the ONNX Concat in force there. An axis
 * not given is 0 (np.concatenate's default), except for ONNX Concat-1 (opsets 1 to 3), whose own
 * default (1) applies. With `unknown` not NULL, cleave.UNKNOWN is accepted for the axis and
 * CLEAVE_UNKNOWN_AXIS stored there. TypeError or OverflowError for values of the wrong Python
 * type or range (an axis of None says that cleave does not flatten); the rules are the library's.
 */
int pcl_concat_build_op(cleave_concat_kind kind, PyObject *const *p, pcl_concat_op *op,
                        unsigned *unknown);

/* Makes dst an independent copy of src. */
void pcl_concat_op_copy(pcl_concat_op *dst, const pcl_concat_op *src);

/* Whether two operators are the same in every field the library reads. */
int pcl_concat_op_equal(const pcl_concat_op *a, const pcl_concat_op *b);

/* The operator's parameters as the functions take them ("axis=1, opset=None", ...), a new str. */
PyObject *pcl_concat_params_repr(const pcl_concat_op *op);

#endif
