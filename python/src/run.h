/* Running a plan (a split's or a concat's) from Python: on the module's pools, with the GIL
 * released when asked, and for allocated outputs from the module's output arena. All return 0, or
 * -1 with the exception of the library's status set (after retaking the GIL). */
#ifndef PCL_RUN_H
#define PCL_RUN_H

#include "state.h"

/* Inputs of at least this many bytes are copied with the GIL released (and a thread pool when
 * threads= asks for one); smaller copies take less time than releasing and retaking the GIL. */
#define PCL_RELEASE_GIL_BYTES ((int64_t)1 << 20)

/* Runs `plan` from `input` into the caller's `outputs` on `threads` threads (0 or 1: the calling
 * thread), with the GIL released for the run when `release_gil` is set. */
int pcl_run(const cleave_plan *plan, const void *input, void *const *outputs, int threads,
            int release_gil);

/* Runs `plan` into one block from the module's output arena; outputs[i] receive the pointers,
 * which the caller frees with cleave_outputs_free. */
int pcl_run_alloc(const cleave_plan *plan, const void *input, void **outputs, int threads,
                  int release_gil);

/* Runs a concat `plan` from `inputs` (one pointer per input) into the caller's `output`, as
 * pcl_run does. */
int pcl_concat_run(const cleave_concat_plan *plan, const void *const *inputs, void *output,
                   int threads, int release_gil);

/* Runs a concat `plan` into a block from the module's output arena; *output receives it, which
 * the caller frees with cleave_outputs_free(output, 1). */
int pcl_concat_run_alloc(const cleave_concat_plan *plan, const void *const *inputs, void **output,
                         int threads, int release_gil);

#endif
