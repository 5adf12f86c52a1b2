/* out= checked, then filled (see out_check.h). */
#include "out_check.h"

#include "errors.h"
#include "foreign.h"
#include "objects.h"
#include "run.h"

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

/* What is wrong with an out= array. */
typedef enum { FITS, NOT_AN_ARRAY, WRONG_DTYPE, WRONG_SHAPE, NOT_DENSE, READ_ONLY } problem;

/* Whether `o` can receive output i of e's plan on `in` (its dims: dims[0..*nd)). */
static problem fit(const pcl_entry *e, const pcl_inputs *in, size_t i, PyArrayObject *o,
                   npy_intp *dims, int *nd) {
  PyArray_Descr *got = PyArray_DESCR(o), *want = PyArray_DESCR(in->first.array);
  if (in->packed ? PyArray_ITEMSIZE(o) != 1 : got != want && !PyArray_EquivTypes(got, want)) {
    return WRONG_DTYPE;
  }
  *nd = pcl_entry_output_dims(e, i, in->packed, dims);
  int same = PyArray_NDIM(o) == *nd;
  for (int d = 0; same && d < *nd; d++) {
    same = PyArray_DIM(o, d) == dims[d];
  }
  if (!same && in->packed && PyArray_NBYTES(o) == dims[0] && PyArray_IS_C_CONTIGUOUS(o)) {
    same = 1; /* any shape of the right byte count */
  }
  if (!same) {
    return WRONG_SHAPE;
  }
  if (!PyArray_IS_C_CONTIGUOUS(o)) {
    return NOT_DENSE;
  }
  return PyArray_ISWRITEABLE(o) ? FITS : READ_ONLY;
}

/* A text for the messages: a dtype (a split's as repr() shows it, a concat's as str() does), or
 * dims. A new reference, or NULL with an exception set. */
static PyObject *dtype_text(int several, PyArray_Descr *descr) {
  return several ? PyObject_Repr((PyObject *)descr) : PyObject_Str((PyObject *)descr);
}

static PyObject *dims_text(int nd, npy_intp *dims) {
  PyObject *shape = PyArray_IntTupleFromIntp(nd, dims);
  PyObject *text = shape == NULL ? NULL : PyObject_Str(shape);
  Py_XDECREF(shape);
  return text;
}

/*
 * Raises the error of out= array i (`obj`, whose NumPy array is `o`) for `p`. The words differ
 * as out= does: a split's out[i] receives output i of several, a concat's out the one output.
 */
static int refuse(const pcl_inputs *in, int several, Py_ssize_t i, PyObject *obj, PyArrayObject *o,
                  problem p, int nd, npy_intp *dims) {
  char out[32] = "out", output[40] = "the output has";
  if (several) {
    PyOS_snprintf(out, sizeof out, "out[%zd]", i);
    PyOS_snprintf(output, sizeof output, "output %zd has", i);
  }
  PyObject *got = NULL, *want = NULL;
  const char *what = "dtype", *whose = output;
  switch (p) {
  case NOT_AN_ARRAY:
    PyErr_Format(PyExc_TypeError, "%s must be a NumPy array or a DLPack tensor, not %.100s", out,
                 Py_TYPE(obj)->tp_name);
    return -1;
  case WRONG_DTYPE:
    whose = several ? "the outputs have" : "the output has";
    got = dtype_text(several, PyArray_DESCR(o));
    want = in->packed ? PyUnicode_FromString("uint8 (packed bytes)")
                      : dtype_text(several, PyArray_DESCR(in->first.array));
    break;
  case WRONG_SHAPE:
    what = "shape";
    got = dims_text(PyArray_NDIM(o), PyArray_DIMS(o));
    want = dims_text(nd, dims);
    break;
  case NOT_DENSE:
    out_error("%s is not C-contiguous (%s written dense, row-major)", out,
              several ? "outputs are" : "the output is");
    return -1;
  default:
    out_error("%s is read-only", out);
    return -1;
  }
  if (got != NULL && want != NULL) {
    out_error("%s has %s %s but %s %s %s", out, what, PyUnicode_AsUTF8(got), whose, what,
              PyUnicode_AsUTF8(want));
  }
  Py_XDECREF(got);
  Py_XDECREF(want);
  return -1;
}

/* Checks out= array i (`obj`) against output i of e's plan on `in`; keeps its NumPy array
 * (*wrapper owns the one over a DLPack tensor's memory), data pointer and bytes. */
static int check_out(const pcl_entry *e, const pcl_inputs *in, int several, Py_ssize_t i,
                     PyObject *obj, PyArrayObject **array, PyObject **wrapper, void **ptr,
                     byte_range *range) {
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
    return refuse(in, several, i, obj, NULL, NOT_AN_ARRAY, 0, NULL);
  }
  npy_intp dims[PCL_MAX_RANK + 1];
  int nd = 0;
  problem p = fit(e, in, (size_t)i, o, dims, &nd);
  if (p != FITS) {
    return refuse(in, several, i, obj, o, p, nd, dims);
  }
  *array = o;
  *ptr = PyArray_DATA(o);
  range->start = PyArray_BYTES(o);
  range->end = range->start + PyArray_NBYTES(o);
  range->index = i;
  return 0;
}

static int overlaps(const byte_range *a, const byte_range *b) {
  return a->start < b->end && b->start < a->end;
}

/* The out= arrays of one call, checked: what was given, held (so that another thread changing
 * the caller's list while the GIL is released cannot free an array being written; it is also
 * the result), the arrays in it, their NumPy arrays (the NumPy wrappers of DLPack ones, owned by
 * `wrappers`) and data pointers. */
typedef struct {
  PyObject *given; /* a split's arrays as a tuple, a concat's array itself */
  PyObject **items;
  Py_ssize_t n;
  PyArrayObject **arrays;
  PyObject **wrappers;
  void **ptrs;
  byte_range *ranges;
  PyArrayObject *array_buf[16];
  PyObject *wrap_buf[16];
  void *ptr_buf[16];
  byte_range range_buf[17];
} checked_outs;

static void release_outs(checked_outs *c) {
  for (Py_ssize_t i = 0; i < c->n && c->wrappers != NULL; i++) {
    Py_XDECREF(c->wrappers[i]);
  }
  if (c->ptrs != c->ptr_buf) {
    PyMem_Free(c->arrays);
    PyMem_Free(c->wrappers);
    PyMem_Free(c->ptrs);
    PyMem_Free(c->ranges);
  }
  Py_CLEAR(c->given);
}

/* No output may share bytes with an input or another output. Compacts c->ranges. */
static int check_overlaps(const pcl_inputs *in, int several, checked_outs *c) {
  byte_range *ranges = c->ranges;
  for (Py_ssize_t k = 0; k < in->n; k++) {
    byte_range input;
    pcl_byte_extent(in->arrays[k], &input.start, &input.end);
    for (Py_ssize_t i = 0; input.end > input.start && i < c->n; i++) {
      if (ranges[i].end > ranges[i].start && overlaps(&ranges[i], &input)) {
        if (several) {
          out_error("out[%zd] overlaps the input", i);
        } else {
          out_error("out overlaps inputs[%zd]: the output must not share memory with an input", k);
        }
        return -1;
      }
    }
  }
  Py_ssize_t m = 0; /* non-empty outputs, compacted */
  for (Py_ssize_t i = 0; i < c->n; i++) {
    if (ranges[i].end > ranges[i].start) {
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

/* Holds out= in c: a split's list or tuple of arrays (one per output) as a tuple, a concat's one
 * array as it is. */
static int hold_given(const pcl_entry *e, PyObject *out, checked_outs *c) {
  if (e->op.row->family == PCL_CONCAT) {
    Py_INCREF(out);
    c->given = out;
    c->items = &c->given;
    c->n = 1;
    return 0;
  }
  if (!PyList_Check(out) && !PyTuple_Check(out)) {
    PyErr_Format(PyExc_TypeError, "out must be a list or tuple of arrays, not %.100s",
                 Py_TYPE(out)->tp_name);
    return -1;
  }
  c->given = PySequence_Tuple(out);
  if (c->given == NULL) {
    return -1;
  }
  c->items = &PyTuple_GET_ITEM(c->given, 0);
  c->n = PyTuple_GET_SIZE(c->given);
  size_t n = pcl_entry_num_outputs(e);
  if ((size_t)c->n != n) {
    out_error("out has %zd arrays but the operator produces %zu outputs", c->n, n);
    Py_CLEAR(c->given);
    return -1;
  }
  return 0;
}

/* Checks out= against the plan's outputs (count, then each array, then overlaps). On failure
 * nothing has been written and c is released. */
static int check_outs(const pcl_entry *e, const pcl_inputs *in, PyObject *out, checked_outs *c) {
  memset(c, 0, offsetof(checked_outs, array_buf));
  if (hold_given(e, out, c) < 0) {
    return -1;
  }
  Py_ssize_t n = c->n;
  c->n = 0; /* no wrappers yet, for release_outs */
  if (n > 16) {
    c->arrays = PyMem_Calloc((size_t)n, sizeof *c->arrays);
    c->wrappers = PyMem_Calloc((size_t)n, sizeof *c->wrappers);
    c->ptrs = PyMem_Malloc((size_t)n * sizeof *c->ptrs);
    c->ranges = PyMem_Malloc((size_t)(n + 1) * sizeof *c->ranges);
    if (c->arrays == NULL || c->wrappers == NULL || c->ptrs == NULL || c->ranges == NULL) {
      release_outs(c);
      PyErr_NoMemory();
      return -1;
    }
  } else {
    c->arrays = c->array_buf;
    c->wrappers = c->wrap_buf;
    c->ptrs = c->ptr_buf;
    c->ranges = c->range_buf;
    memset(c->wrap_buf, 0, (size_t)n * sizeof *c->wrap_buf);
  }
  c->n = n;
  int several = e->op.row->family == PCL_SPLIT;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (check_out(e, in, several, i, c->items[i], &c->arrays[i], &c->wrappers[i], &c->ptrs[i],
                  &c->ranges[i]) < 0) {
      release_outs(c);
      return -1;
    }
  }
  if (check_overlaps(in, several, c) < 0) {
    release_outs(c);
    return -1;
  }
  return 0;
}

/* What out= gives back: what was given (a split's arrays as a list when req asks for one). */
static PyObject *result_of(const pcl_request *req, checked_outs *c) {
  PyObject *result;
  if (req->returns == PCL_RETURNS_LIST) {
    result = PySequence_List(c->given);
  } else {
    result = c->given;
    Py_INCREF(result);
  }
  release_outs(c);
  return result;
}

PyObject *pcl_copy_into(const pcl_entry *e, pcl_inputs *in, const pcl_request *req) {
  checked_outs c;
  if (check_outs(e, in, req->out, &c) < 0) {
    return NULL;
  }
  int st;
  if (in->is_object) {
    st = pcl_objects_into(e, in, c.arrays);
  } else {
    st = pcl_inputs_contiguous(in);
    if (st == 0) {
      st = pcl_run(e, in->data, c.ptrs, req->threads, pcl_inputs_bytes(in));
    }
  }
  if (st < 0) {
    release_outs(&c);
    return NULL;
  }
  return result_of(req, &c);
}
