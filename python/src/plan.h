/* cleave.Plan and cleave.ConcatPlan: an operator bound to its inputs' dtype and shapes,
 * validated once and run many times; two public types with one implementation. */
#ifndef PCL_PLAN_H
#define PCL_PLAN_H

#include "state.h"

/* The types (a split's and a concat's), added by the module. */
extern PyTypeObject pcl_PlanType;
extern PyTypeObject pcl_ConcatPlanType;

/* Gives both types the slots they share (one object, one implementation) and readies them.
 * Returns 0, or -1 with an exception set. Called once by the module's initialisation. */
int pcl_plan_types_ready(void);

#endif
