/*
 * Object arrays (of str, the library's variable-length strings): NumPy copies their elements,
 * counting the references, where the library would copy the pointers without them. The data
 * flows as it does in each family: a split's outputs are copies of its views, a concat places
 * every input into its output. Functions return a new reference or NULL (int: 0 or -1) with an
 * exception set.
 */
#ifndef PCL_OBJECTS_H
#define PCL_OBJECTS_H

#include "inputs.h"
#include "plan_cache.h"
#include "results.h"

/* Every element of an object array must be a str: TypeError naming the first that is not. */
int pcl_check_strings(PyArrayObject *a);

/* A split's fresh outputs: NumPy's copies of the views of x (see pcl_make_views). */
PyObject *pcl_copy_views(const pcl_op *op, const pcl_entry *entry, const pcl_input *x,
                         const pcl_request *req);

/* Fills `outs` (checked out= arrays, one per output of e's plan, of the outputs' dtype and
 * shapes) from `in`: a split's from the views of x, a concat's with every input in its place
 * (after checking that the inputs hold str). */
int pcl_objects_into(const pcl_entry *e, const pcl_inputs *in, PyArrayObject *const *outs);

/* A concat's fresh output: an object array of the output's shape, filled as pcl_objects_into
 * fills out=. */
PyObject *pcl_objects_joined(const pcl_entry *e, const pcl_inputs *in);

#endif
