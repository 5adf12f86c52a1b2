/*
 * The module's output arena: copy=True outputs (and Plan.run's without out=) are allocated from
 * one process-wide cleave_arena, which keeps up to a limit of freed output blocks for reuse (0:
 * none; outputs then come straight from the system allocator). Guarded by the GIL. Changing the
 * limit replaces the arena; outputs of the old one stay valid.
 */
#ifndef PCL_ARENA_H
#define PCL_ARENA_H

#include "state.h"

/* Takes a use of the current arena (creating it with the current limit on first use) for one run,
 * and fills *allocator with its allocator, or the system's when the limit is 0 (*slot NULL).
 * Returns 0, or -1 with an exception set. End the use with pcl_arena_done, GIL held. */
int pcl_arena_acquire(struct pcl_arena_slot **slot, cleave_allocator *allocator);

/* Ends a use taken by pcl_arena_acquire (slot may be NULL). */
void pcl_arena_done(struct pcl_arena_slot *slot);

/* Module teardown: the arena is destroyed once no run uses it; live outputs stay valid. */
void pcl_arena_release(void);

/* cleave.set_arena_limit, arena_limit, trim_arena and arena_stats, with their docstrings. */
PyObject *pcl_set_arena_limit_fn(PyObject *self, PyObject *arg);
PyObject *pcl_arena_limit_fn(PyObject *self, PyObject *unused);
PyObject *pcl_trim_arena_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *pcl_arena_stats_fn(PyObject *self, PyObject *unused);
extern const char pcl_set_arena_limit_doc[];
extern const char pcl_arena_limit_doc[];
extern const char pcl_trim_arena_doc[];
extern const char pcl_arena_stats_doc[];

#endif
