/* One run of an operator from Python: the choice between views, fresh copies and out= copies. */
#ifndef PCL_EXECUTE_H
#define PCL_EXECUTE_H

#include "plan_cache.h"
#include "results.h"

/* Runs `op` (or the plan `entry`, when not NULL: cleave.Plan) on `in` as `req` asks. Returns a
 * new tuple (or list) of outputs, or NULL with an exception set and nothing written. */
PyObject *pcl_execute(const pcl_op *op, pcl_entry *entry, pcl_input *in, const pcl_request *req);

#endif
