/*
 * out=: the caller's arrays checked against the plan's outputs before anything is written, then
 * filled. A split's out= is a list or tuple of arrays, one per output; a concat's is the one
 * array of its output. Either way each array is checked for its dtype, shape, layout and
 * writability, and none may share a byte with an input or with another. On any error nothing is
 * written: cleave.Error (status "invalid argument", naming the array) for a broken rule,
 * TypeError for objects that are not arrays.
 */
#ifndef PCL_OUT_CHECK_H
#define PCL_OUT_CHECK_H

#include "inputs.h"
#include "plan_cache.h"
#include "results.h"

/* Writes the outputs of e's plan on `in` (whose arrays must still be the caller's, so that
 * overlaps are judged on the memory the caller passed) into req->out, by the plan, or by NumPy
 * for object arrays. Returns what was given as req asks (a tuple or list of a split's arrays, a
 * concat's out itself; a new reference), or NULL with an exception set. */
PyObject *pcl_copy_into(const pcl_entry *e, pcl_inputs *in, const pcl_request *req);

#endif
