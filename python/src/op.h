/*
 * An operator as the binding holds it, of either family: the row of the operator table that
 * describes it (operators.c) and the library's operator, a split's cleave_op or a concat's
 * cleave_concat_op, together with the integers its values point at (the axis, the split lengths,
 * ONNX Split's output count), so that one struct owns everything a call or a cached plan needs.
 *
 * `c` points into the struct itself: copy a pcl_op only with pcl_op_copy, and release it with
 * pcl_op_clear. Functions returning int return 0, or -1 with an exception set.
 */
#ifndef PCL_OP_H
#define PCL_OP_H

#include "state.h"

/* Which way the data flows: the library's two families of operators. */
typedef enum pcl_family {
  PCL_SPLIT, /* one input, several outputs: cleave_op, cleave_plan; outputs may be views */
  PCL_CONCAT /* several inputs, one output: cleave_concat_op, cleave_concat_plan */
} pcl_family;

/* How a function returns its outputs. */
typedef enum pcl_returns {
  PCL_RETURNS_TUPLE, /* the splits, as np.split */
  PCL_RETURNS_LIST,  /* split_to_sequence: a sequence */
  PCL_RETURNS_ONE    /* the concats: the one output itself */
} pcl_returns;

/* The most parameters an operator has (after the data). */
#define PCL_MAX_OP_PARAMS 4

struct pcl_op;

/* One row of the table of operators (operators.c): a function of the module, the operator Plan,
 * ConcatPlan and infer name, and what the binding derives from it. */
typedef struct pcl_operator {
  const char *name; /* the Python name ("split", ..., "concat_from_sequence") */
  pcl_family family;
  int kind;      /* the library's kind it builds (a cleave_op_kind or a cleave_concat_kind) */
  int64_t opset; /* the opset when none is given (the OpenVINO operators': 1) */
  pcl_returns returns;
  /* Its parameters after the data, in order: the first `positional` may be given by position
   * and the first `required` must be given (the function's signature). */
  const char *params[PCL_MAX_OP_PARAMS];
  int count;
  int positional;
  int required;
  /* How many leading parameters the operator cannot be built without, so that Plan and infer
   * ask for them by name (num_splits, split_lengths). ConcatFromSequence's axis, required by the
   * function, is not one: it is built absent, and the library says that the axis is needed. */
  int needed;
  /* Initialises `op` as this row from the parameters p[0..count) (borrowed; NULL: not given).
   * With `unknown` not NULL, cleave.UNKNOWN is accepted for the axis (and for every split
   * length), and the flags are stored there (CLEAVE_UNKNOWN_AXIS, CLEAVE_UNKNOWN_LENGTHS).
   * TypeError or OverflowError for values of the wrong Python type or range; the operator's rules
   * are left to the library. The caller clears `op` (pcl_op_clear) whatever the outcome. */
  int (*build)(const struct pcl_operator *row, PyObject *const *p, struct pcl_op *op,
               unsigned *unknown);
} pcl_operator;

/* Lengths held inline; longer lists are allocated. */
#define PCL_INLINE_LENGTHS 16

typedef struct pcl_op {
  const pcl_operator *row;
  union {
    cleave_op split;         /* row->family PCL_SPLIT */
    cleave_concat_op concat; /* row->family PCL_CONCAT */
  } c;                       /* the library's operator; its values point at the fields below */
  int64_t axis;
  int64_t num_outputs; /* ONNX Split's */
  int has_opset;       /* concat: an opset was given (ONNX Concat); otherwise OpenVINO Concat-1 */
  int64_t *lengths;    /* inline_lengths or an allocation of c.split.lengths.count entries */
  int64_t inline_lengths[PCL_INLINE_LENGTHS];
} pcl_op;

/* Sets op to `row`'s operator with the binding's defaults: the row's kind and default opset, axis
 * 0 given (NumPy's default, and the ONNX operators' default spelled out), no lengths, no output
 * count, keepdims 1, new_axis 0. */
void pcl_op_init(pcl_op *op, const pcl_operator *row);

/* A split's lengths: `count` values of rank `rank` (0: a scalar, 1: a list); returns where to
 * write them (NULL with MemoryError). */
int64_t *pcl_op_set_lengths(pcl_op *op, size_t count, size_t rank);

/* Gives ONNX Split its output count (the num_outputs attribute, or the node's output count). */
void pcl_op_set_num_outputs(pcl_op *op, int64_t num_outputs);

/* Makes dst (uninitialised) an independent copy of src (MemoryError). */
int pcl_op_copy(pcl_op *dst, const pcl_op *src);

/* Whether two operators are the same in every field the library reads. */
int pcl_op_equal(const pcl_op *a, const pcl_op *b);

/* Frees what op allocated; op stays valid, with no lengths. */
void pcl_op_clear(pcl_op *op);

/* The operator's parameters as the functions take them, for the plans' reprs: "num_splits=3,
 * axis=0", "axis=1, opset=None", ... A new str, or NULL with an exception set. */
PyObject *pcl_op_params_repr(const pcl_op *op);

#endif
