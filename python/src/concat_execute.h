/* One run of a concat from Python: into out=, into a fresh array from the module's output arena,
 * or, for object arrays, by NumPy's copies of the references. */
#ifndef PCL_CONCAT_EXECUTE_H
#define PCL_CONCAT_EXECUTE_H

#include "concat_cache.h"
#include "concat_inputs.h"

/*
 * Runs `op` (or the plan `entry`, when not NULL: cleave.ConcatPlan) on `in`, into `out` (NULL or
 * None: a fresh C-contiguous array from the module's output arena, handed back as the first
 * input's kind) on `threads` threads. Checks, in order: the library's rules (through the plan),
 * one NumPy dtype, packed byte counts, str elements of object arrays, out=. Returns the output (a
 * new reference; out itself when given), or NULL with an exception set and nothing written.
 */
PyObject *pcl_concat_execute(const pcl_concat_op *op, pcl_concat_entry *entry,
                             pcl_concat_inputs *in, PyObject *out, int threads);

#endif
