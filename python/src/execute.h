/* One run of an operator from Python, of either family: the choice between a split's views,
 * fresh outputs from the output arena, out=, and NumPy's copies for object arrays. */
#ifndef PCL_EXECUTE_H
#define PCL_EXECUTE_H

#include "inputs.h"
#include "plan_cache.h"
#include "results.h"

/*
 * Runs `op` (or the plan `entry`, when not NULL: cleave.Plan, cleave.ConcatPlan) on `in` as `req`
 * asks. A split gives views unless a copy is asked for; otherwise, in order: the library's rules
 * (through the plan), one NumPy dtype, packed byte counts, str elements of object arrays, out=.
 * Returns the outputs as req asks (a new reference; out= returns what was given), or NULL with an
 * exception set and nothing written.
 */
PyObject *pcl_execute(const pcl_op *op, pcl_entry *entry, pcl_inputs *in, const pcl_request *req);

#endif
