/* Plan runs from Python (see run.h). */
#include "run.h"

#include "arena.h"
#include "errors.h"
#include "pools.h"

/* The library's run of either family: a split reads one input and writes several outputs, a
 * concat the other way round. Into the caller's `outputs`, or, with an allocator, into one block
 * of it whose pointers `allocated` receives. Called with or without the GIL. */
static cleave_status run_plan(const pcl_entry *e, const void *const *inputs, void *const *outputs,
                              void **allocated, const cleave_allocator *allocator,
                              const cleave_exec *exec, cleave_error *err) {
  if (e->op.row->family == PCL_CONCAT) {
    return allocator == NULL ? cleave_concat_plan_run(e->plan.concat, inputs, outputs[0], exec, err)
                             : cleave_concat_plan_run_alloc(e->plan.concat, inputs, exec, allocator,
                                                            allocated, err);
  }
  return allocator == NULL ? cleave_plan_run_exec(e->plan.split, inputs[0], outputs, exec, err)
                           : cleave_plan_run_alloc_with(e->plan.split, inputs[0], exec, allocator,
                                                        allocated, err);
}

/* The run, on the pool of `threads` threads, with the GIL released for large copies. */
static int run_on(const pcl_entry *e, const void *const *inputs, void *const *outputs,
                  void **allocated, const cleave_allocator *allocator, int threads, int64_t bytes) {
  cleave_exec pool;
  if (pcl_exec_for(threads, &pool) < 0) {
    return -1;
  }
  const cleave_exec *exec = threads > 1 ? &pool : NULL;
  /* What Py_BEGIN_ALLOW_THREADS does, when the copy is worth it. */
  PyThreadState *released =
      threads > 1 || bytes >= PCL_RELEASE_GIL_BYTES ? PyEval_SaveThread() : NULL;
  cleave_error err;
  cleave_status st = run_plan(e, inputs, outputs, allocated, allocator, exec, &err);
  if (released != NULL) {
    PyEval_RestoreThread(released);
  }
  return pcl_check(st, &err);
}

int pcl_run(const pcl_entry *e, const void *const *inputs, void *const *outputs, int threads,
            int64_t bytes) {
  return run_on(e, inputs, outputs, NULL, NULL, threads, bytes);
}

int pcl_run_alloc(const pcl_entry *e, const void *const *inputs, void **outputs, int threads,
                  int64_t bytes) {
  struct pcl_arena_slot *slot;
  cleave_allocator allocator;
  if (pcl_arena_acquire(&slot, &allocator) < 0) {
    return -1;
  }
  int st = run_on(e, inputs, NULL, outputs, &allocator, threads, bytes);
  pcl_arena_done(slot);
  return st;
}
