/* cleave.set_arena_limit / arena_limit / arena_stats / trim_arena: the module's output arena
 * (lib.c), from which copy=True outputs are allocated. */
#include "lib.h"
#include "module.h"

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
  pcl_arena_set_limit(limit);
  Py_RETURN_NONE;
}

const char pcl_arena_limit_doc[] = "arena_limit()\n--\n\n"
                                   "The current arena limit in bytes (see set_arena_limit).";

PyObject *pcl_arena_limit_fn(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromSize_t(pcl_arena_limit());
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
  return PyLong_FromSize_t(pcl_arena_trim(keep));
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
  pcl_arena_stats s;
  pcl_arena_get_stats(&s);
  return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "limit_bytes", (Py_ssize_t)s.limit_bytes,
                       "kept_bytes", (Py_ssize_t)s.kept_bytes, "kept_blocks",
                       (Py_ssize_t)s.kept_blocks, "used_bytes", (Py_ssize_t)s.used_bytes,
                       "used_blocks", (Py_ssize_t)s.used_blocks, "reused", (Py_ssize_t)s.reused,
                       "allocated", (Py_ssize_t)s.allocated);
}
