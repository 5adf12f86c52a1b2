/* out=: the caller's arrays checked against the plan's outputs (count, dtype, shape, layout,
 * writability, no byte shared with the input or each other) before anything is written, then
 * filled. On any error nothing is written. Both return the out= arrays as a new tuple (or list,
 * when req asks), or NULL with an exception (cleave.Error, status "invalid argument", naming the
 * array, for a broken rule; TypeError for objects that are not arrays). */
#ifndef PCL_OUT_CHECK_H
#define PCL_OUT_CHECK_H

#include "plan_cache.h"
#include "results.h"

/* Copies the outputs of e's plan on `in` into req->out. */
PyObject *pcl_copy_into(pcl_entry *e, pcl_input *in, const pcl_request *req);

/* The same for object arrays, whose elements NumPy copies (counting the references) from views. */
PyObject *pcl_copy_objects_into(const pcl_op *op, pcl_entry *e, pcl_input *in,
                                const pcl_request *req);

#endif
