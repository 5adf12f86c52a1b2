/* A concat's out= checked (see concat_out.h). */
#include "concat_out.h"

#include "errors.h"
#include "foreign.h"
#include "results.h"

#include <stdarg.h>

static int out_error(const char *fmt, ...) {
  char msg[CLEAVE_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  PyOS_vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pcl_raise(CLEAVE_ERROR_INVALID_ARGUMENT, msg);
  return -1;
}

/* "out has <what> <got> but the output has <what> <want>", both as str() gives them. */
static int mismatch(const char *what, PyObject *got, PyObject *want) {
  PyObject *g = got == NULL ? NULL : PyObject_Str(got);
  PyObject *w = want == NULL ? NULL : PyObject_Str(want);
  if (g != NULL && w != NULL) {
    out_error("out has %s %s but the output has %s %s", what, PyUnicode_AsUTF8(g), what,
              PyUnicode_AsUTF8(w));
  }
  Py_XDECREF(g);
  Py_XDECREF(w);
  return -1;
}

static int check_dtype(const pcl_concat_inputs *in, PyArrayObject *o) {
  PyArray_Descr *got = PyArray_DESCR(o);
  if (in->packed) {
    if (PyArray_ITEMSIZE(o) == 1) {
      return 0;
    }
    PyObject *want = PyUnicode_FromString("uint8 (packed bytes)");
    int st = mismatch("dtype", (PyObject *)got, want);
    Py_XDECREF(want);
    return st;
  }
  PyArray_Descr *want = PyArray_DESCR(in->arrays[0]);
  if (got == want || PyArray_EquivTypes(got, want)) {
    return 0;
  }
  return mismatch("dtype", (PyObject *)got, (PyObject *)want);
}

static int check_shape(const pcl_concat_entry *e, const pcl_concat_inputs *in, PyArrayObject *o) {
  npy_intp bytes = (npy_intp)e->info.output_bytes;
  const npy_intp *dims = in->packed ? &bytes : (const npy_intp *)(const void *)e->output_shape;
  int nd = in->packed ? 1 : (int)e->info.output_rank;
  int same = PyArray_NDIM(o) == nd;
  for (int d = 0; same && d < nd; d++) {
    same = PyArray_DIM(o, d) == dims[d];
  }
  if (!same && in->packed && PyArray_NBYTES(o) == bytes && PyArray_IS_C_CONTIGUOUS(o)) {
    same = 1; /* packed bytes: any shape of the right byte count */
  }
  if (same) {
    return 0;
  }
  PyObject *w = PyArray_IntTupleFromIntp(nd, (npy_intp *)dims);
  PyObject *g = PyArray_IntTupleFromIntp(PyArray_NDIM(o), PyArray_DIMS(o));
  mismatch("shape", g, w);
  Py_XDECREF(w);
  Py_XDECREF(g);
  return -1;
}

/* The output must not share a byte with any input: the engine reads the inputs while it writes,
 * on several threads, so an overlap has no one answer (np.concatenate, which copies the inputs
 * one after another, reads inputs that an earlier copy has already overwritten). */
static int check_overlaps(const pcl_concat_inputs *in, PyArrayObject *o) {
  char *start = PyArray_BYTES(o), *end = start + PyArray_NBYTES(o);
  if (end == start) {
    return 0;
  }
  for (Py_ssize_t i = 0; i < in->n; i++) {
    char *lo, *hi;
    pcl_byte_extent(in->arrays[i], &lo, &hi);
    if (lo < hi && lo < end && start < hi) {
      return out_error("out overlaps inputs[%zd]: the output must not share memory with an input",
                       i);
    }
  }
  return 0;
}

int pcl_concat_check_out(const pcl_concat_entry *e, const pcl_concat_inputs *in, PyObject *out,
                         PyArrayObject **array, PyObject **wrapper) {
  *wrapper = NULL;
  PyArrayObject *o;
  if (PyArray_Check(out)) {
    o = (PyArrayObject *)out;
  } else if (PyObject_HasAttr(out, pcl_module_state.str_dlpack)) {
    pcl_input tmp;
    if (pcl_foreign_wrap(out, &tmp) < 0) {
      return -1;
    }
    *wrapper = (PyObject *)tmp.array;
    o = tmp.array;
  } else {
    PyErr_Format(PyExc_TypeError, "out must be a NumPy array or a DLPack tensor, not %.100s",
                 Py_TYPE(out)->tp_name);
    return -1;
  }
  int st = check_dtype(in, o);
  if (st == 0) {
    st = check_shape(e, in, o);
  }
  if (st == 0 && !PyArray_IS_C_CONTIGUOUS(o)) {
    st = out_error("out is not C-contiguous (the output is written dense, row-major)");
  }
  if (st == 0 && !PyArray_ISWRITEABLE(o)) {
    st = out_error("out is read-only");
  }
  if (st == 0) {
    st = check_overlaps(in, o);
  }
  if (st < 0) {
    Py_CLEAR(*wrapper);
    return -1;
  }
  *array = o;
  return 0;
}
