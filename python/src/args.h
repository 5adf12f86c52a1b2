/* Hand parsing of METH_FASTCALL arguments (CPython's _bisect style) and of the values the
 * operators take. Every function here returns 0 on success and -1 with an exception set. */
#ifndef PCL_ARGS_H
#define PCL_ARGS_H

#include "state.h"

/* The parameters of one function: names in order, of which the first `max_positional` may be
 * given by position and the first `required` must be given. `interned` caches the names as
 * interned strings, so that keywords match by pointer in the usual case. */
typedef struct pcl_params {
  const char *function;
  const char *const *names;
  int count;
  int max_positional;
  int required;
  PyObject **interned;
} pcl_params;

/* Fills slots[0..count) with borrowed references (NULL where not given). TypeError for too many
 * positional arguments, an unknown or repeated keyword, or a missing required argument. */
int pcl_parse_args(pcl_params *params, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                   PyObject **slots);

/* An int (or an object with __index__, but not a bool) for the parameter `name`: TypeError for
 * other types, OverflowError outside int64. */
int pcl_int64(PyObject *obj, const char *name, int64_t *value);

/* A flag given as a bool (Python's or NumPy's: 1 or 0) or, as the ONNX attribute is, an int
 * (stored as given; the operator checks its range). TypeError for other types. */
int pcl_flag(PyObject *obj, const char *name, int64_t *value);

/* A shape given as a sequence of at most `max_rank` ints, into dims[0..*rank): a `shape`
 * argument (index < 0), or item `index` of a `shapes` argument, as the messages name it.
 * TypeError for a non-sequence or a non-int, ValueError for too many dims. */
int pcl_shape(PyObject *obj, Py_ssize_t index, int max_rank, int64_t *dims, size_t *rank);

/* copy=: None -> PCL_COPY_IF_NEEDED, True -> PCL_COPY_ALWAYS, False -> PCL_COPY_NEVER. */
enum { PCL_COPY_IF_NEEDED = 0, PCL_COPY_ALWAYS = 1, PCL_COPY_NEVER = 2 };
int pcl_copy_mode(PyObject *obj, int *mode);

/* threads=: None -> 1; an int from 1 to 1024. */
int pcl_threads(PyObject *obj, int *threads);

#endif
