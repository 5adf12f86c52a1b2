/* Fresh outputs (copy=True, Plan.run without out=, a concat without out=): the plan's outputs in
 * one block the library allocates from the module's output arena. */
#ifndef PCL_COPIES_H
#define PCL_COPIES_H

#include "inputs.h"
#include "plan_cache.h"
#include "results.h"

/* Runs e's plan on `in` (made C-contiguous first) into fresh C-contiguous arrays that share one
 * block, freed when the last of them goes, of the first input's dtype (packed types: uint8
 * arrays of the outputs' bytes); handed back as the first input's kind and returned as req asks.
 * NULL with an exception on failure. */
PyObject *pcl_copy_alloc(const pcl_entry *e, pcl_inputs *in, const pcl_request *req);

#endif
