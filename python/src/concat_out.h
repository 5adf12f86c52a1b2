/* A concat's out=: the caller's array checked against the plan's output (kind, dtype, shape,
 * layout, writability, no byte shared with an input) before anything is written. */
#ifndef PCL_CONCAT_OUT_H
#define PCL_CONCAT_OUT_H

#include "concat_cache.h"
#include "concat_inputs.h"

/*
 * Checks `out` for the output of e's plan on `in` (whose arrays must still be the caller's, so
 * that overlaps are judged on the memory the caller passed). On success *array is the NumPy array
 * to write (borrowed: `out` itself, or a new reference in *wrapper over a DLPack tensor's memory;
 * the caller drops *wrapper). Returns 0, or -1 with cleave.Error (status "invalid argument",
 * naming what is wrong) or TypeError for an object that is not an array.
 */
int pcl_concat_check_out(const pcl_concat_entry *e, const pcl_concat_inputs *in, PyObject *out,
                         PyArrayObject **array, PyObject **wrapper);

#endif
