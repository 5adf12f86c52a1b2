/* A split's outputs as views of its input (what np.split returns). */
#ifndef PCL_VIEWS_H
#define PCL_VIEWS_H

#include "plan_cache.h"
#include "results.h"

/* The outputs of the split `op` (or of the plan `entry`, when not NULL) on `in` as views of
 * in->array (any strides), each keeping it alive; handed back as the caller's kind (a tuple or
 * list, as req asks). A new reference, or NULL with an exception set. */
PyObject *pcl_make_views(const pcl_op *op, const pcl_entry *entry, const pcl_input *in,
                         const pcl_request *req);

#endif
