/* Outputs as views of the input (what np.split returns), and the copies NumPy makes of them for
 * object arrays. Functions return a new reference or NULL (int: 0 or -1) with an exception. */
#ifndef PCL_VIEWS_H
#define PCL_VIEWS_H

#include "plan_cache.h"
#include "results.h"

/* The outputs of `op` (or of the plan `entry`, when not NULL) on `in` as views of in->array (any
 * strides), each keeping it alive; handed back as the caller's kind. */
PyObject *pcl_make_views(const pcl_op *op, const pcl_entry *entry, pcl_input *in,
                         const pcl_request *req);

/* Copies of those views made by NumPy: object arrays, whose elements are references to count. */
PyObject *pcl_copy_views(const pcl_op *op, const pcl_entry *entry, pcl_input *in,
                         const pcl_request *req);

/* Every element of an object array must be a str (the library's variable-length strings):
 * TypeError naming the first that is not. */
int pcl_check_strings(PyArrayObject *a);

#endif
