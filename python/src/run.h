/* Running a plan (a split's or a concat's) from Python: on the module's pools, with the GIL
 * released for large copies, and for allocated outputs from the module's output arena. Both
 * return 0, or -1 with the exception of the library's status set (after retaking the GIL). */
#ifndef PCL_RUN_H
#define PCL_RUN_H

#include "plan_cache.h"

/* Inputs of at least this many bytes are copied with the GIL released (and a thread pool when
 * threads= asks for one); smaller copies take less time than releasing and retaking the GIL. */
#define PCL_RELEASE_GIL_BYTES ((int64_t)1 << 20)

/* Runs e's plan from `inputs` (one pointer per input) into the caller's `outputs` (one per
 * output) on `threads` threads (0 or 1: the calling thread). `bytes`, the inputs' size, decides
 * whether the GIL is released (always with threads > 1; 0 keeps it on one thread). */
int pcl_run(const pcl_entry *e, const void *const *inputs, void *const *outputs, int threads,
            int64_t bytes);

/* Runs e's plan into one block from the module's output arena; outputs[i] (one per output)
 * receive the pointers, which the caller frees with cleave_outputs_free. */
int pcl_run_alloc(const pcl_entry *e, const void *const *inputs, void **outputs, int threads,
                  int64_t bytes);

#endif
