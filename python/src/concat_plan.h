/* cleave.ConcatPlan: a concatenating operator bound to its inputs' dtype and shapes, run many
 * times (the concat family's cleave.Plan, a class of its own as in the C library: several inputs
 * and one output, where a split has one input and several outputs). */
#ifndef PCL_CONCAT_PLAN_H
#define PCL_CONCAT_PLAN_H

#include "state.h"

/* The type, readied and added by the module. */
extern PyTypeObject pcl_ConcatPlanType;

#endif
