/*
 * The module's output arena (see arena.h). A run holds a use of the arena it allocates from, so
 * that a limit change made by another thread while the run has the GIL released never destroys
 * an arena that is still being allocated from: the retired arena is destroyed when its last run
 * ends. Blocks outlive the arena's destruction (the library releases an arena when its last block
 * is freed), so arrays survive a limit change and module teardown.
 */
#include "arena.h"

#include "errors.h"

struct pcl_arena_slot {
  cleave_arena *arena;
  size_t runs; /* runs in flight allocating from it */
  int retired; /* destroy when runs reaches 0 */
};

static void slot_release(struct pcl_arena_slot *slot) {
  if (slot->retired && slot->runs == 0) {
    cleave_arena_destroy(slot->arena);
    PyMem_RawFree(slot);
  }
}

static void retire_current(void) {
  struct pcl_arena_slot *slot = pcl_module_state.arena;
  pcl_module_state.arena = NULL;
  if (slot != NULL) {
    slot->retired = 1;
    slot_release(slot);
  }
}

int pcl_arena_acquire(struct pcl_arena_slot **slot, cleave_allocator *allocator) {
  pcl_state *s = &pcl_module_state;
  *slot = NULL;
  if (s->arena_limit == 0) {
    *allocator = cleave_allocator_system();
    return 0;
  }
  if (s->arena == NULL) {
    struct pcl_arena_slot *fresh = PyMem_RawCalloc(1, sizeof *fresh);
    if (fresh == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    cleave_error err;
    if (pcl_check(cleave_arena_create(s->arena_limit, NULL, &fresh->arena, &err), &err) < 0) {
      PyMem_RawFree(fresh);
      return -1;
    }
    s->arena = fresh;
  }
  s->arena->runs++;
  *slot = s->arena;
  *allocator = cleave_arena_allocator(s->arena->arena);
  return 0;
}

void pcl_arena_done(struct pcl_arena_slot *slot) {
  if (slot != NULL) {
    slot->runs--;
    slot_release(slot);
  }
}

void pcl_arena_release(void) {
  retire_current();
}

/* A non-negative int as a size_t, naming the argument on error. */
static int to_size(PyObject *value, const char *name, size_t *out) {
  if (!PyLong_Check(value)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(value)->tp_name);
    return -1;
  }
  size_t v = PyLong_AsSize_t(value);
  if (v == (size_t)-1 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "%s must be between 0 and %zu bytes, got %R", name,
                   (size_t)SIZE_MAX, value);
    }
    return -1;
  }
  *out = v;
  return 0;
}

const char pcl_set_arena_limit_doc[] =
    "set_arena_limit(limit_bytes, /)\n--\n\n"
    "Sets how many bytes of freed copy=True outputs the module keeps for reuse.\n\n"
    "Outputs of copy=True (and Plan.run without out=) come from one process-wide arena: when\n"
    "the last array of a call's outputs goes, their memory is kept, up to this limit, and\n"
    "handed to the next call of a similar size with its pages already mapped, which makes\n"
    "repeated copies several times faster. The default is 512 MiB (enough to keep the outputs\n"
    "of a 256 MiB input, whose block rounds up to 288 MiB); 0 keeps nothing (every\n"
    "output block goes back to the system at once). Changing the limit releases the kept\n"
    "memory; arrays alive at that moment stay valid.";

PyObject *pcl_set_arena_limit_fn(PyObject *self, PyObject *arg) {
  (void)self;
  size_t limit;
  if (to_size(arg, "limit_bytes", &limit) < 0) {
    return NULL;
  }
  if (limit != pcl_module_state.arena_limit) {
    retire_current(); /* the next copy creates one with the new limit */
    pcl_module_state.arena_limit = limit;
  }
  Py_RETURN_NONE;
}

const char pcl_arena_limit_doc[] = "arena_limit()\n--\n\n"
                                   "The current arena limit in bytes (see set_arena_limit).";

PyObject *pcl_arena_limit_fn(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromSize_t(pcl_module_state.arena_limit);
}

const char pcl_trim_arena_doc[] =
    "trim_arena(keep_bytes=0, /)\n--\n\n"
    "Releases kept output memory, oldest first, until at most keep_bytes stay kept.\n"
    "Returns the number of bytes released. Arrays alive are not affected.";

PyObject *pcl_trim_arena_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs > 1) {
    PyErr_Format(PyExc_TypeError, "trim_arena() takes at most 1 argument (%zd given)", nargs);
    return NULL;
  }
  size_t keep = 0;
  if (nargs == 1 && to_size(args[0], "keep_bytes", &keep) < 0) {
    return NULL;
  }
  struct pcl_arena_slot *slot = pcl_module_state.arena;
  return PyLong_FromSize_t(slot != NULL ? cleave_arena_trim(slot->arena, keep) : 0);
}

const char pcl_arena_stats_doc[] =
    "arena_stats()\n--\n\n"
    "The output arena's figures, as a dict of ints: limit_bytes (see set_arena_limit),\n"
    "kept_bytes and kept_blocks (freed output memory kept for reuse), used_bytes and\n"
    "used_blocks (outputs alive), reused (calls served from kept memory) and allocated\n"
    "(calls that asked the system for new memory). Sizes are rounded up to the arena's size\n"
    "classes. The counts cover the arena since the limit was last changed.";

PyObject *pcl_arena_stats_fn(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  struct pcl_arena_slot *slot = pcl_module_state.arena;
  cleave_arena_stats s = cleave_arena_get_stats(slot != NULL ? slot->arena : NULL);
  return Py_BuildValue(
      "{s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "limit_bytes", (Py_ssize_t)pcl_module_state.arena_limit,
      "kept_bytes", (Py_ssize_t)s.kept_bytes, "kept_blocks", (Py_ssize_t)s.kept_blocks,
      "used_bytes", (Py_ssize_t)s.used_bytes, "used_blocks", (Py_ssize_t)s.used_blocks, "reused",
      (Py_ssize_t)s.reused, "allocated", (Py_ssize_t)s.allocated);
}
