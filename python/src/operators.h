/*
 * The table of operators: one row (op.h's pcl_operator) per operator the module offers, splits
 * and concats alike, read by the functions (their signatures), cleave.Plan and cleave.ConcatPlan
 * (the names they accept, their keyword parameters) and cleave.infer. Each row says how its
 * Python parameters become an operator (its `build`); how its plan is created follows from its
 * family (plan_cache.c). Functions returning int return 0, or -1 with an exception set.
 */
#ifndef PCL_OPERATORS_H
#define PCL_OPERATORS_H

#include "op.h"

/* The rows, in the order the module lists them: split, variadic_split, split_to_sequence,
 * onnx_split, concat, concat_from_sequence. */
enum {
  PCL_OPERATOR_SPLIT,
  PCL_OPERATOR_VARIADIC_SPLIT,
  PCL_OPERATOR_SPLIT_TO_SEQUENCE,
  PCL_OPERATOR_ONNX_SPLIT,
  PCL_OPERATOR_CONCAT,
  PCL_OPERATOR_CONCAT_FROM_SEQUENCE,
  PCL_OPERATOR_COUNT
};
extern const pcl_operator pcl_operators[PCL_OPERATOR_COUNT];

/* Every family, for pcl_operator_find. */
#define PCL_ANY_FAMILY (-1)

/* The row named by the str `name` among those of `family` (or of every family): TypeError for a
 * non-str, ValueError naming the operators there are for an unknown name. */
const pcl_operator *pcl_operator_find(PyObject *name, int family);

/*
 * The parameters of `row` from the dict `params` (NULL: none given) into p[0..PCL_MAX_OP_PARAMS)
 * (borrowed; NULL where not given). With `strict`, a key that is not one of the row's parameters
 * is a TypeError naming them (cleave.Plan's keywords); otherwise other keys are ignored
 * (cleave.infer's params). A missing parameter the operator cannot be built without is a
 * TypeError saying that `caller` ("Plan", "infer") needs it.
 */
int pcl_operator_params(const pcl_operator *row, PyObject *params, int strict, const char *caller,
                        PyObject **p);

#endif
