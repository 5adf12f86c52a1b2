/* out=: the caller's arrays checked, then filled (see out_check.h). */
#include "out_check.h"

#include "errors.h"
#include "foreign.h"
#include "run.h"
#include "views.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *start;
  char *end;
  Py_ssize_t index;
} byte_range;

static int compare_ranges(const void *a, const void *b) {
  const byte_range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts n addresses (LSD radix sort on the bytes in which they differ: a few passes for
 * addresses of one process); tmp holds n entries. */
static void sort_addresses(uintptr_t *a, uintptr_t *tmp, size_t n) {
  uintptr_t diff = 0;
  for (size_t i = 1; i < n; i++) {
    diff |= a[i] ^ a[0];
  }
  uintptr_t *src = a, *dst = tmp;
  for (unsigned shift = 0; shift < 8 * sizeof(uintptr_t); shift += 8) {
    if (((diff >> shift) & 0xFF) == 0) {
      continue;
    }
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++) {
      count[((src[i] >> shift) & 0xFF) + 1]++;
    }
    for (size_t b = 1; b < 257; b++) {
      count[b] += count[b - 1];
    }
    for (size_t i = 0; i < n; i++) {
      dst[count[(src[i] >> shift) & 0xFF]++] = src[i];
    }
    uintptr_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) {
    memcpy(a, src, n * sizeof *a);
  }
}

/* Whether the non-empty ranges are pairwise disjoint: with the starts and the ends each sorted,
 * they are exactly when every range ends before the next one starts (at most one is open at any
 * address). O(n) passes of a radix sort instead of a comparison sort. Returns -1 on MemoryError. */
static int disjoint(const byte_range *r, Py_ssize_t m) {
  uintptr_t *buf = PyMem_Malloc((size_t)m * 3 * sizeof(uintptr_t));
  if (buf == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  uintptr_t *starts = buf, *ends = buf + m, *tmp = buf + 2 * m;
  for (Py_ssize_t i = 0; i < m; i++) {
    starts[i] = (uintptr_t)r[i].start;
    ends[i] = (uintptr_t)r[i].end;
  }
  sort_addresses(starts, tmp, (size_t)m);
  sort_addresses(ends, tmp, (size_t)m);
  int ok = 1;
  for (Py_ssize_t i = 0; ok && i + 1 < m; i++) {
    ok = ends[i] <= starts[i + 1];
  }
  PyMem_Free(buf);
  return ok;
}

static PyObject *out_error(const char *fmt, ...) {
  char msg[CLEAVE_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  PyOS_vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pcl_raise(CLEAVE_ERROR_INVALID_ARGUMENT, msg);
}

/* Checks out[i] against output i and stores its data pointer; the arrays of DLPack producers are
 * wrapped through DLPack (views[i] owns the wrapper). */
static int check_out(const pcl_input *in, const pcl_entry *e, Py_ssize_t i, PyObject *obj,
                     void **ptr, byte_range *range, PyObject **wrapper) {
  PyArrayObject *o;
  if (PyArray_Check(obj)) {
    o = (PyArrayObject *)obj;
  } else if (PyObject_HasAttr(obj, pcl_module_state.str_dlpack)) {
    pcl_input tmp;
    if (pcl_foreign_wrap(obj, &tmp) < 0) {
      return -1;
    }
    *wrapper = (PyObject *)tmp.array;
    o = tmp.array;
  } else {
    PyErr_Format(PyExc_TypeError, "out[%zd] must be a NumPy array or a DLPack tensor, not %.100s",
                 i, Py_TYPE(obj)->tp_name);
    return -1;
  }
  PyArray_Descr *want = in->packed ? NULL : PyArray_DESCR(in->array);
  PyArray_Descr *got = PyArray_DESCR(o);
  if (in->packed ? PyArray_ITEMSIZE(o) != 1 : (got != want && !PyArray_EquivTypes(got, want))) {
    PyObject *w = want == NULL ? PyUnicode_FromString("uint8 (packed bytes)")
                               : PyObject_Repr((PyObject *)want);
    PyObject *g = PyObject_Repr((PyObject *)got);
    if (w != NULL && g != NULL) {
      out_error("out[%zd] has dtype %s but the outputs have dtype %s", i, PyUnicode_AsUTF8(g),
                PyUnicode_AsUTF8(w));
    }
    Py_XDECREF(w);
    Py_XDECREF(g);
    return -1;
  }
  npy_intp dims[PCL_MAX_RANK];
  int nd;
  if (in->packed) {
    dims[0] = (npy_intp)cleave_plan_output_bytes(e->plan, (size_t)i);
    nd = 1;
  } else {
    nd = pcl_output_dims(in, &e->info, cleave_plan_output_length(e->plan, (size_t)i), dims);
  }
  int same = PyArray_NDIM(o) == nd;
  for (int d = 0; same && d < nd; d++) {
    same = PyArray_DIM(o, d) == dims[d];
  }
  if (!same && in->packed && PyArray_NBYTES(o) == dims[0] && PyArray_IS_C_CONTIGUOUS(o)) {
    same = 1; /* any shape of the right byte count */
  }
  if (!same) {
    PyObject *want_shape = PyArray_IntTupleFromIntp(nd, dims);
    PyObject *got_shape = PyArray_IntTupleFromIntp(PyArray_NDIM(o), PyArray_DIMS(o));
    if (want_shape != NULL && got_shape != NULL) {
      PyObject *w = PyObject_Repr(want_shape), *g = PyObject_Repr(got_shape);
      if (w != NULL && g != NULL) {
        out_error("out[%zd] has shape %s but output %zd has shape %s", i, PyUnicode_AsUTF8(g), i,
                  PyUnicode_AsUTF8(w));
      }
      Py_XDECREF(w);
      Py_XDECREF(g);
    }
    Py_XDECREF(want_shape);
    Py_XDECREF(got_shape);
    return -1;
  }
  if (!PyArray_IS_C_CONTIGUOUS(o)) {
    out_error("out[%zd] is not C-contiguous (outputs are written dense, row-major)", i);
    return -1;
  }
  if (!PyArray_ISWRITEABLE(o)) {
    out_error("out[%zd] is read-only", i);
    return -1;
  }
  *ptr = PyArray_DATA(o);
  range->start = PyArray_BYTES(o);
  range->end = range->start + PyArray_NBYTES(o);
  range->index = i;
  return 0;
}

static int overlaps(const byte_range *a, const byte_range *b) {
  return a->start < b->end && b->start < a->end;
}

/* The out= arrays of one call, checked: a tuple holding a reference to each (so that another
 * thread changing the caller's list while the GIL is released cannot free an array being
 * written; it is also the result), their data pointers, and the NumPy wrappers of DLPack ones. */
typedef struct {
  PyObject *tuple;
  Py_ssize_t n;
  void **ptrs;
  byte_range *ranges;
  PyObject **wrappers;
  void *ptr_buf[16];
  byte_range range_buf[17];
  PyObject *wrap_buf[16];
} checked_outs;

static void release_outs(checked_outs *c) {
  for (Py_ssize_t i = 0; i < c->n && c->wrappers != NULL; i++) {
    Py_XDECREF(c->wrappers[i]);
  }
  if (c->ptrs != c->ptr_buf) {
    PyMem_Free(c->ptrs);
    PyMem_Free(c->ranges);
    PyMem_Free(c->wrappers);
  }
  Py_CLEAR(c->tuple);
}

/* No output may share bytes with the input or another output. Compacts c->ranges. */
static int check_overlaps(const pcl_input *in, checked_outs *c) {
  byte_range input;
  pcl_byte_extent(in->array, &input.start, &input.end);
  byte_range *ranges = c->ranges;
  Py_ssize_t m = 0; /* non-empty outputs, compacted */
  for (Py_ssize_t i = 0; i < c->n; i++) {
    if (ranges[i].end > ranges[i].start) {
      if (input.end > input.start && overlaps(&ranges[i], &input)) {
        out_error("out[%zd] overlaps the input", i);
        return -1;
      }
      ranges[m++] = ranges[i];
    }
  }
  if (m > 1 && m <= 8) {
    /* A few outputs: comparing every pair is cheaper than sorting. */
    for (Py_ssize_t a = 0; a < m; a++) {
      for (Py_ssize_t b = a + 1; b < m; b++) {
        if (overlaps(&ranges[a], &ranges[b])) {
          out_error("out[%zd] and out[%zd] overlap", ranges[a].index, ranges[b].index);
          return -1;
        }
      }
    }
    return 0;
  }
  if (m > 1) {
    int ok = disjoint(ranges, m);
    if (ok <= 0) {
      if (ok == 0) {
        /* Only when some overlap: sort the ranges themselves, to name the first pair. */
        qsort(ranges, (size_t)m, sizeof *ranges, compare_ranges);
        for (Py_ssize_t k = 1; k < m; k++) {
          if (overlaps(&ranges[k - 1], &ranges[k])) {
            Py_ssize_t a = ranges[k - 1].index, b = ranges[k].index;
            out_error("out[%zd] and out[%zd] overlap", a < b ? a : b, a < b ? b : a);
            break;
          }
        }
      }
      return -1;
    }
  }
  return 0;
}

/* Checks out= against the plan's outputs (count, then each array, then overlaps). On failure
 * nothing has been written and c is released. */
static int check_outs(pcl_entry *e, const pcl_input *in, PyObject *out, checked_outs *c) {
  memset(c, 0, offsetof(checked_outs, ptr_buf));
  if (!PyList_Check(out) && !PyTuple_Check(out)) {
    PyErr_Format(PyExc_TypeError, "out must be a list or tuple of arrays, not %.100s",
                 Py_TYPE(out)->tp_name);
    return -1;
  }
  c->tuple = PySequence_Tuple(out);
  if (c->tuple == NULL) {
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(c->tuple);
  if ((size_t)n != e->info.num_outputs) {
    out_error("out has %zd arrays but the operator produces %zu outputs", n, e->info.num_outputs);
    release_outs(c);
    return -1;
  }
  if (n > 16) {
    c->ptrs = PyMem_Malloc((size_t)n * sizeof *c->ptrs);
    c->ranges = PyMem_Malloc((size_t)(n + 1) * sizeof *c->ranges);
    c->wrappers = PyMem_Calloc((size_t)n, sizeof *c->wrappers);
    if (c->ptrs == NULL || c->ranges == NULL || c->wrappers == NULL) {
      PyMem_Free(c->ptrs);
      PyMem_Free(c->ranges);
      PyMem_Free(c->wrappers);
      c->ptrs = NULL;
      c->wrappers = NULL;
      Py_CLEAR(c->tuple);
      PyErr_NoMemory();
      return -1;
    }
  } else {
    c->ptrs = c->ptr_buf;
    c->ranges = c->range_buf;
    c->wrappers = c->wrap_buf;
    memset(c->wrap_buf, 0, sizeof c->wrap_buf);
  }
  c->n = n;
  PyObject **items = &PyTuple_GET_ITEM(c->tuple, 0);
  for (Py_ssize_t i = 0; i < n; i++) {
    if (check_out(in, e, i, items[i], &c->ptrs[i], &c->ranges[i], &c->wrappers[i]) < 0) {
      release_outs(c);
      return -1;
    }
  }
  if (check_overlaps(in, c) < 0) {
    release_outs(c);
    return -1;
  }
  return 0;
}

static PyObject *result_of(const pcl_request *req, checked_outs *c) {
  PyObject *result;
  if (req->as_list) {
    result = PySequence_List(c->tuple);
  } else {
    Py_INCREF(c->tuple);
    result = c->tuple;
  }
  release_outs(c);
  return result;
}

PyObject *pcl_copy_into(pcl_entry *e, pcl_input *in, const pcl_request *req) {
  checked_outs c;
  if (check_outs(e, in, req->out, &c) < 0) {
    return NULL;
  }
  PyArrayObject *src = pcl_contiguous(in);
  if (src == NULL) {
    release_outs(&c);
    return NULL;
  }
  int st =
      pcl_run(e->plan, PyArray_DATA(src), c.ptrs, req->threads, pcl_release_gil(in, req->threads));
  Py_DECREF(src);
  if (st < 0) {
    release_outs(&c);
    return NULL;
  }
  return result_of(req, &c);
}

PyObject *pcl_copy_objects_into(const pcl_op *op, pcl_entry *e, pcl_input *in,
                                const pcl_request *req) {
  checked_outs c;
  if (check_outs(e, in, req->out, &c) < 0) {
    return NULL;
  }
  pcl_request as_views = *req;
  as_views.as_list = 0;
  PyObject *views = pcl_make_views(op, e, in, &as_views);
  if (views == NULL) {
    release_outs(&c);
    return NULL;
  }
  /* NumPy copies the references, counting them. */
  for (Py_ssize_t i = 0; i < c.n; i++) {
    PyObject *dst = c.wrappers[i] != NULL ? c.wrappers[i] : PyTuple_GET_ITEM(c.tuple, i);
    if (PyArray_CopyInto((PyArrayObject *)dst, (PyArrayObject *)PyTuple_GET_ITEM(views, i)) < 0) {
      Py_DECREF(views);
      release_outs(&c);
      return NULL;
    }
  }
  Py_DECREF(views);
  return result_of(req, &c);
}
