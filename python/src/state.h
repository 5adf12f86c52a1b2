/*
 * The bottom of the _cleave extension: the headers every file needs (CPython, NumPy's C API,
 * cleave.h) and the module state, everything the extension keeps between calls, in one struct.
 *
 * Every file of the extension may use this; it uses none of them. The fields that belong to one
 * concern are named after the file that manages them, which is the only file that changes them.
 * The module is single-phase with one instance per process (as NumPy's own extensions), so the
 * state is one process-wide struct, guarded by the GIL.
 */
#ifndef PCL_STATE_H
#define PCL_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* NumPy's C API table: state.c imports it; the other files see it through this unique symbol. */
#define PY_ARRAY_UNIQUE_SYMBOL pcl_numpy_api
#ifndef PCL_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <cleave.h>

#include <stddef.h>
#include <stdint.h>

/* NumPy 2 reads a dtype's item size through this accessor; NumPy 1 has only the field. */
#ifndef PyDataType_ELSIZE
#define PyDataType_ELSIZE(descr) ((descr)->elsize)
#endif

/* The largest rank the binding handles (at least NumPy's NPY_MAXDIMS: 32, 64 from NumPy 2). */
#define PCL_MAX_RANK 64

/* How many plans the one-shot functions keep (plan_cache.c), splits and concats together: enough
 * for a loop that splits or joins a few different tensors, few enough that a linear search costs
 * a few nanoseconds. */
#define PCL_PLAN_CACHE_SIZE 8

/* How many thread pools (one per thread count asked for) the module keeps (pools.c). */
#define PCL_MAX_POOLS 8

/* The default limit of the output arena (arena.c): enough to keep the outputs of a 256 MiB input,
 * whose block rounds up to 288 MiB. */
#define PCL_ARENA_DEFAULT_LIMIT ((size_t)512 << 20)

struct pcl_entry;      /* a cached plan (plan_cache.h) */
struct pcl_arena_slot; /* an output arena in use (arena.c) */

typedef struct pcl_state {
  /* Created once by pcl_state_init and never released (the module lives as long as the
   * interpreter). */
  PyObject *error_type; /* cleave.Error, a ValueError */
  PyObject *unknown;    /* cleave.UNKNOWN: a value known only to exist (partial inference) */
  PyObject *str_dlpack; /* "__dlpack__", interned */

  /* plan_cache.c: the plans of recent one-shot calls, replaced round-robin. */
  struct pcl_entry *plan_cache[PCL_PLAN_CACHE_SIZE];
  unsigned plan_cache_next;

  /* pools.c: the built-in pools, created on first use of a thread count and kept (creating
   * threads per call would cost more than most copies). */
  struct {
    size_t threads;
    cleave_threadpool *pool;
  } pools[PCL_MAX_POOLS];

  /* arena.c: the arena copy=True outputs come from (NULL until first use) and its limit. */
  struct pcl_arena_slot *arena;
  size_t arena_limit;
} pcl_state;

/* The one instance (state.c). Zero until pcl_state_init. */
extern pcl_state pcl_module_state;

/*
 * Imports NumPy's C API and creates the state's objects (cleave.Error, cleave.UNKNOWN, the
 * interned names). Called once by the module's initialisation; returns 0, or -1 with an exception
 * set. The objects are owned by the state; the module takes references of its own.
 */
int pcl_state_init(void);

#endif
