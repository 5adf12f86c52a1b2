/* Fresh outputs (copy=True, Plan.run without out=): copies of the input in one block the library
 * allocates from the module's output arena. */
#ifndef PCL_COPIES_H
#define PCL_COPIES_H

#include "plan_cache.h"
#include "results.h"

/* Packed inputs: the buffer must hold exactly the packed stream of the logical shape
 * (cleave.Error naming both byte counts otherwise). Returns 0 or -1. */
int pcl_check_packed_size(const pcl_input *in, const pcl_entry *e);

/* Runs the plan of `e` on `in` into fresh C-contiguous arrays that share one block, freed when the
 * last of them goes; handed back as the caller's kind. NULL with an exception on failure. */
PyObject *pcl_copy_alloc(pcl_entry *e, pcl_input *in, const pcl_request *req);

#endif
