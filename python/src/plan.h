/* cleave.Plan: an operator bound to one input dtype and shape, run many times. */
#ifndef PCL_PLAN_H
#define PCL_PLAN_H

#include "state.h"

/* The type, readied and added by the module. */
extern PyTypeObject pcl_PlanType;

#endif
