/* Plan runs from Python (see run.h). */
#include "run.h"

#include "arena.h"
#include "errors.h"
#include "pools.h"

int pcl_run(const cleave_plan *plan, const void *input, void *const *outputs, int threads,
            int release_gil) {
  cleave_exec exec;
  if (pcl_exec_for(threads, &exec) < 0) {
    return -1;
  }
  cleave_error err;
  cleave_status st;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS st = cleave_plan_run_exec(plan, input, outputs, &exec, &err);
    Py_END_ALLOW_THREADS
  } else if (threads > 1) {
    st = cleave_plan_run_exec(plan, input, outputs, &exec, &err);
  } else {
    st = cleave_plan_run(plan, input, outputs, &err);
  }
  return pcl_check(st, &err);
}

int pcl_run_alloc(const cleave_plan *plan, const void *input, void **outputs, int threads,
                  int release_gil) {
  cleave_exec exec;
  if (pcl_exec_for(threads, &exec) < 0) {
    return -1;
  }
  struct pcl_arena_slot *slot;
  cleave_allocator allocator;
  if (pcl_arena_acquire(&slot, &allocator) < 0) {
    return -1;
  }
  cleave_error err;
  cleave_status st;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS st =
        cleave_plan_run_alloc_with(plan, input, &exec, &allocator, outputs, &err);
    Py_END_ALLOW_THREADS
  } else {
    st = cleave_plan_run_alloc_with(plan, input, &exec, &allocator, outputs, &err);
  }
  pcl_arena_done(slot);
  return pcl_check(st, &err);
}

int pcl_concat_run(const cleave_concat_plan *plan, const void *const *inputs, void *output,
                   int threads, int release_gil) {
  cleave_exec exec;
  if (pcl_exec_for(threads, &exec) < 0) {
    return -1;
  }
  const cleave_exec *on = threads > 1 ? &exec : NULL;
  cleave_error err;
  cleave_status st;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS st = cleave_concat_plan_run(plan, inputs, output, on, &err);
    Py_END_ALLOW_THREADS
  } else {
    st = cleave_concat_plan_run(plan, inputs, output, on, &err);
  }
  return pcl_check(st, &err);
}

int pcl_concat_run_alloc(const cleave_concat_plan *plan, const void *const *inputs, void **output,
                         int threads, int release_gil) {
  cleave_exec exec;
  if (pcl_exec_for(threads, &exec) < 0) {
    return -1;
  }
  const cleave_exec *on = threads > 1 ? &exec : NULL;
  struct pcl_arena_slot *slot;
  cleave_allocator allocator;
  if (pcl_arena_acquire(&slot, &allocator) < 0) {
    return -1;
  }
  cleave_error err;
  cleave_status st;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS st =
        cleave_concat_plan_run_alloc(plan, inputs, on, &allocator, output, &err);
    Py_END_ALLOW_THREADS
  } else {
    st = cleave_concat_plan_run_alloc(plan, inputs, on, &allocator, output, &err);
  }
  pcl_arena_done(slot);
  return pcl_check(st, &err);
}
