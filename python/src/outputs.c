/* Views, allocated copies and out= copies (see outputs.h). */
#include "outputs.h"

#include "args.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Inputs of at least this many bytes are copied with the GIL released (and a thread pool when
 * threads= asks for one); smaller copies take less time than releasing and retaking the GIL. */
#define PCL_RELEASE_GIL_BYTES ((int64_t)1 << 20)

/* Output i's shape into dims (input dims, the axis' length replaced or removed). */
static int output_dims(const pcl_input *in, const pcl_info *info, int64_t length, npy_intp *dims) {
  int nd = 0;
  for (size_t d = 0; d < in->rank; d++) {
    if ((int64_t)d == info->axis) {
      if (!info->axis_removed) {
        dims[nd++] = (npy_intp)length;
      }
    } else {
      dims[nd++] = (npy_intp)in->shape[d];
    }
  }
  return nd;
}

/* Makes a sequence of n items (tuple, or list when asked). */
static PyObject *new_sequence(const pcl_request *req, Py_ssize_t n) {
  return req->as_list ? PyList_New(n) : PyTuple_New(n);
}

static void sequence_set(const pcl_request *req, PyObject *seq, Py_ssize_t i, PyObject *item) {
  if (req->as_list) {
    PyList_SET_ITEM(seq, i, item);
  } else {
    PyTuple_SET_ITEM(seq, i, item);
  }
}

/* Hands each output back as the caller's kind (DLPack producers get their own tensors). */
static PyObject *finish(const pcl_input *in, const pcl_request *req, PyObject *seq) {
  if (seq == NULL || in->dl_code < 0 || in->from_dlpack == NULL) {
    return seq;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject **items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *converted = pcl_dlpack_export(in, items[i]); /* steals items[i] */
    items[i] = NULL;
    if (converted == NULL) {
      Py_DECREF(seq);
      return NULL;
    }
    sequence_set(req, seq, i, converted);
  }
  return seq;
}

/* The lengths on the axis: from the plan, or from inference into `buf` (or an allocation, which
 * *owned receives). */
static int lengths_of(const pcl_op *op, const pcl_entry *entry, const pcl_input *in, pcl_info *info,
                      int64_t *buf, size_t cap, int64_t **lengths, int64_t **owned) {
  *owned = NULL;
  if (entry != NULL) {
    *info = entry->info;
    if ((uint64_t)info->num_outputs > cap) {
      *owned = PyMem_Malloc((size_t)info->num_outputs * sizeof(int64_t) + 1);
      if (*owned == NULL) {
        PyErr_NoMemory();
        return -1;
      }
      buf = *owned;
    }
    for (int64_t i = 0; i < info->num_outputs; i++) {
      buf[i] = pcl_plan_output_length(entry->plan, (size_t)i);
    }
    *lengths = buf;
    return 0;
  }
  int r = pcl_infer(op, in->type, in->shape, in->rank, info, buf, cap);
  if (r < 0) {
    return -1;
  }
  if (r == 1) {
    *owned = PyMem_Malloc((size_t)info->num_outputs * sizeof(int64_t) + 1);
    if (*owned == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    buf = *owned;
    if (pcl_infer(op, in->type, in->shape, in->rank, info, buf, (size_t)info->num_outputs) != 0) {
      PyMem_Free(*owned);
      *owned = NULL;
      return -1;
    }
  }
  *lengths = buf;
  return 0;
}

/* Outputs as views of the input (any strides): what np.split returns. */
static PyObject *make_views(const pcl_op *op, const pcl_entry *entry, pcl_input *in,
                            const pcl_request *req) {
  int64_t buf[64], *lengths, *owned;
  pcl_info info;
  if (lengths_of(op, entry, in, &info, buf, 64, &lengths, &owned) < 0) {
    return NULL;
  }
  PyArrayObject *a = in->array;
  PyArray_Descr *descr = PyArray_DESCR(a);
  npy_intp dims[PCL_MAX_RANK], strides[PCL_MAX_RANK];
  npy_intp axis_stride = PyArray_STRIDE(a, (int)info.axis);
  int nd = 0;
  for (int d = 0; d < PyArray_NDIM(a); d++) {
    if (d != info.axis || !info.axis_removed) {
      strides[nd++] = PyArray_STRIDE(a, d);
    }
  }
  int flags = PyArray_FLAGS(a) & NPY_ARRAY_WRITEABLE;
  PyObject *seq = new_sequence(req, (Py_ssize_t)info.num_outputs);
  char *data = PyArray_BYTES(a);
  for (int64_t i = 0; seq != NULL && i < info.num_outputs; i++) {
    nd = output_dims(in, &info, lengths[i], dims);
    Py_INCREF(descr);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides, data, flags, NULL);
    if (v == NULL) {
      Py_CLEAR(seq);
      break;
    }
    Py_INCREF(a);
    if (PyArray_SetBaseObject((PyArrayObject *)v, (PyObject *)a) < 0) {
      Py_DECREF(v);
      Py_CLEAR(seq);
      break;
    }
    sequence_set(req, seq, (Py_ssize_t)i, v);
    data += lengths[i] * axis_stride;
  }
  PyMem_Free(owned);
  return finish(in, req, seq);
}

/* Copies made by NumPy from views: object arrays, whose elements are references to count. */
static PyObject *copy_views(const pcl_op *op, const pcl_entry *entry, pcl_input *in,
                            const pcl_request *req) {
  pcl_request as_views = *req;
  PyObject *seq = make_views(op, entry, in, &as_views);
  if (seq == NULL) {
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject **items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *c = PyArray_NewCopy((PyArrayObject *)items[i], NPY_CORDER);
    if (c == NULL) {
      Py_DECREF(seq);
      return NULL;
    }
    Py_SETREF(items[i], c);
  }
  return seq;
}

/* Every element of an object array must be a str (the library's variable-length strings). */
static int check_strings(PyArrayObject *a) {
  NpyIter *iter = NpyIter_New(a, NPY_ITER_READONLY | NPY_ITER_REFS_OK | NPY_ITER_ZEROSIZE_OK,
                              NPY_KEEPORDER, NPY_NO_CASTING, NULL);
  if (iter == NULL) {
    return -1;
  }
  int ok = 0;
  if (NpyIter_GetIterSize(iter) > 0) {
    NpyIter_IterNextFunc *next = NpyIter_GetIterNext(iter, NULL);
    char **ptr = NpyIter_GetDataPtrArray(iter);
    npy_intp k = 0;
    do {
      PyObject *item = *(PyObject **)ptr[0];
      if (item == NULL || !PyUnicode_Check(item)) {
        PyErr_Format(PyExc_TypeError,
                     "object arrays must hold str (variable-length strings); element %zd is "
                     "%.100s",
                     k, item == NULL ? "NULL" : Py_TYPE(item)->tp_name);
        ok = -1;
        break;
      }
      k++;
    } while (next(iter));
  }
  NpyIter_Deallocate(iter);
  return ok;
}

/* The block of library-allocated outputs, freed when the last output array goes. */
typedef struct {
  size_t count;
  void *outputs[];
} alloc_block;

static void alloc_block_destructor(PyObject *capsule) {
  alloc_block *b = PyCapsule_GetPointer(capsule, "cleave.outputs");
  pcl_outputs_free(b->outputs, b->count);
  PyMem_RawFree(b);
}

/* A C-contiguous version of the input (the input itself when it is one). */
static PyArrayObject *contiguous(pcl_input *in) {
  if (PyArray_IS_C_CONTIGUOUS(in->array)) {
    Py_INCREF(in->array);
    return in->array;
  }
  return (PyArrayObject *)PyArray_FromAny((PyObject *)in->array, NULL, 0, 0, NPY_ARRAY_C_CONTIGUOUS,
                                          NULL);
}

static int release_gil(const pcl_input *in, int threads) {
  return threads > 1 || PyArray_NBYTES(in->array) >= PCL_RELEASE_GIL_BYTES;
}

static PyObject *output_array(const pcl_input *in, const pcl_entry *e, size_t i, void *data,
                              int writeable) {
  npy_intp dims[PCL_MAX_RANK];
  int nd;
  PyArray_Descr *descr;
  if (in->packed) {
    dims[0] = (npy_intp)pcl_plan_output_bytes(e->plan, i);
    nd = 1;
    descr = PyArray_DescrFromType(NPY_UINT8);
  } else {
    nd = output_dims(in, &e->info, pcl_plan_output_length(e->plan, i), dims);
    descr = PyArray_DESCR(in->array);
    Py_INCREF(descr);
  }
  return PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, data,
                              writeable ? NPY_ARRAY_WRITEABLE : 0, NULL);
}

/* Packed inputs: the buffer must hold exactly the packed stream of the logical shape. */
static int check_packed_size(const pcl_input *in, const pcl_entry *e) {
  int64_t n = 1;
  for (size_t d = 0; d < in->rank; d++) {
    n *= in->shape[d]; /* the plan was created, so the element count fits in int64 */
  }
  int64_t bits = e->info.element_bits;
  int64_t need = n / 8 * bits + (n % 8 * bits + 7) / 8;
  if (PyArray_NBYTES(in->array) != need) {
    char msg[200];
    PyOS_snprintf(msg, sizeof msg,
                  "the packed input holds %lld bytes but shape and dtype need %lld",
                  (long long)PyArray_NBYTES(in->array), (long long)need);
    pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, msg);
    return -1;
  }
  return 0;
}

static PyObject *copy_alloc(pcl_entry *e, pcl_input *in, const pcl_request *req) {
  size_t n = (size_t)e->info.num_outputs;
  alloc_block *b = PyMem_RawCalloc(1, sizeof *b + (n + 1) * sizeof(void *));
  if (b == NULL) {
    return PyErr_NoMemory();
  }
  b->count = n;
  PyArrayObject *src = contiguous(in);
  if (src == NULL) {
    PyMem_RawFree(b);
    return NULL;
  }
  int st = pcl_plan_run_alloc(e->plan, PyArray_DATA(src), b->outputs, req->threads,
                              release_gil(in, req->threads));
  Py_DECREF(src);
  if (st < 0) {
    PyMem_RawFree(b);
    return NULL;
  }
  PyObject *owner = PyCapsule_New(b, "cleave.outputs", alloc_block_destructor);
  if (owner == NULL) {
    pcl_outputs_free(b->outputs, n);
    PyMem_RawFree(b);
    return NULL;
  }
  PyObject *seq = new_sequence(req, (Py_ssize_t)n);
  for (size_t i = 0; seq != NULL && i < n; i++) {
    PyObject *v = output_array(in, e, i, b->outputs[i], 1);
    if (v == NULL) {
      Py_CLEAR(seq);
      break;
    }
    Py_INCREF(owner);
    if (PyArray_SetBaseObject((PyArrayObject *)v, owner) < 0) {
      Py_DECREF(v);
      Py_CLEAR(seq);
      break;
    }
    sequence_set(req, seq, (Py_ssize_t)i, v);
  }
  Py_DECREF(owner);
  return finish(in, req, seq);
}

/* --- out= --- */

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
    if (pcl_dlpack_import(obj, &tmp) < 0) {
      return -1;
    }
    Py_CLEAR(tmp.from_dlpack);
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
    dims[0] = (npy_intp)pcl_plan_output_bytes(e->plan, (size_t)i);
    nd = 1;
  } else {
    nd = output_dims(in, &e->info, pcl_plan_output_length(e->plan, (size_t)i), dims);
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

/* Input bytes as a range (the extent of a strided input is covered by its bounds). */
static void input_range(PyArrayObject *a, byte_range *r) {
  npy_intp lo = 0, hi = PyArray_NBYTES(a) > 0 ? PyArray_ITEMSIZE(a) : 0;
  if (hi > 0) {
    for (int d = 0; d < PyArray_NDIM(a); d++) {
      npy_intp step = PyArray_STRIDE(a, d) * (PyArray_DIM(a, d) - 1);
      if (step < 0) {
        lo += step;
      } else {
        hi += step;
      }
    }
  }
  r->start = PyArray_BYTES(a) + lo;
  r->end = PyArray_BYTES(a) + hi;
}

static int overlaps(const byte_range *a, const byte_range *b) {
  return a->start < b->end && b->start < a->end;
}

static PyObject *copy_into(pcl_entry *e, pcl_input *in, const pcl_request *req) {
  if (!PyList_Check(req->out) && !PyTuple_Check(req->out)) {
    PyErr_Format(PyExc_TypeError, "out must be a list or tuple of arrays, not %.100s",
                 Py_TYPE(req->out)->tp_name);
    return NULL;
  }
  /* A tuple of the arrays (the caller's own when it passed a tuple): it holds a reference to
   * each while the GIL is released, so that another thread changing the caller's list cannot
   * free an array being written. It is also the result. */
  PyObject *out = PySequence_Tuple(req->out);
  if (out == NULL) {
    return NULL;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(out);
  if (n != e->info.num_outputs) {
    Py_DECREF(out);
    return out_error("out has %zd arrays but the operator produces %lld outputs", n,
                     (long long)e->info.num_outputs);
  }
  void *ptr_buf[16];
  byte_range range_buf[17];
  PyObject *wrap_buf[16];
  void **ptrs = ptr_buf;
  byte_range *ranges = range_buf;
  PyObject **wrappers = wrap_buf;
  PyObject *result = NULL;
  PyArrayObject *src = NULL;
  if (n > 16) {
    ptrs = PyMem_Malloc((size_t)n * sizeof *ptrs);
    ranges = PyMem_Malloc((size_t)(n + 1) * sizeof *ranges);
    wrappers = PyMem_Calloc((size_t)n, sizeof *wrappers);
    if (ptrs == NULL || ranges == NULL || wrappers == NULL) {
      PyErr_NoMemory();
      goto done;
    }
  } else {
    memset(wrap_buf, 0, sizeof wrap_buf);
  }
  PyObject **items = &PyTuple_GET_ITEM(out, 0);
  for (Py_ssize_t i = 0; i < n; i++) {
    if (check_out(in, e, i, items[i], &ptrs[i], &ranges[i], &wrappers[i]) < 0) {
      goto done;
    }
  }
  /* No output may share bytes with the input or another output: nothing is written then. */
  byte_range input;
  input_range(in->array, &input);
  Py_ssize_t m = 0; /* non-empty outputs, compacted */
  for (Py_ssize_t i = 0; i < n; i++) {
    if (ranges[i].end > ranges[i].start) {
      if (input.end > input.start && overlaps(&ranges[i], &input)) {
        out_error("out[%zd] overlaps the input", i);
        goto done;
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
          goto done;
        }
      }
    }
  } else if (m > 1) {
    int ok = disjoint(ranges, m);
    if (ok < 0) {
      goto done;
    }
    /* Only when some overlap: sort the ranges themselves, to name the first overlapping pair. */
    if (!ok) {
      qsort(ranges, (size_t)m, sizeof *ranges, compare_ranges);
    }
    for (Py_ssize_t k = 1; k < m; k++) {
      if (overlaps(&ranges[k - 1], &ranges[k])) {
        Py_ssize_t a = ranges[k - 1].index, b = ranges[k].index;
        out_error("out[%zd] and out[%zd] overlap", a < b ? a : b, a < b ? b : a);
        goto done;
      }
    }
  }
  src = contiguous(in);
  if (src == NULL) {
    goto done;
  }
  if (pcl_plan_run(e->plan, PyArray_DATA(src), ptrs, req->threads, release_gil(in, req->threads)) <
      0) {
    goto done;
  }
  if (req->as_list) {
    result = PySequence_List(out);
  } else {
    Py_INCREF(out);
    result = out;
  }
done:
  Py_DECREF(out);
  Py_XDECREF(src);
  for (Py_ssize_t i = 0; i < n && wrappers != NULL; i++) {
    Py_XDECREF(wrappers[i]);
  }
  if (n > 16) {
    PyMem_Free(ptrs);
    PyMem_Free(ranges);
    PyMem_Free(wrappers);
  }
  return result;
}

PyObject *pcl_execute(const pcl_op *op, pcl_entry *entry, pcl_input *in, const pcl_request *req) {
  int has_out = req->out != NULL && req->out != Py_None;
  if (has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError, "copy=False asks for views but out= asks for copies");
    return NULL;
  }
  if (in->is_object && check_strings(in->array) < 0) {
    return NULL;
  }
  if (!has_out && !in->packed && req->copy != PCL_COPY_ALWAYS) {
    return make_views(op, entry, in, req);
  }
  if (in->packed && !has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError,
                    "outputs of packed types are always copies in Python (a packed view is not a "
                    "NumPy array): use copy=None or copy=True (Plan.run, not Plan.views)");
    return NULL;
  }
  if (in->is_object && !has_out) {
    return copy_views(op, entry, in, req);
  }
  pcl_entry *e = entry;
  if (e == NULL) {
    e = pcl_entry_get(op, in->type, in->shape, in->rank);
    if (e == NULL) {
      return NULL;
    }
  } else {
    e->refs++;
  }
  PyObject *result = NULL;
  if (in->packed && check_packed_size(in, e) < 0) {
    goto done;
  }
  if (has_out) {
    if (in->is_object) {
      /* References must be counted: NumPy copies object elements. */
      pcl_request v = *req;
      v.out = NULL;
      v.as_list = 0;
      PyObject *views = make_views(op, entry, in, &v);
      if (views == NULL) {
        goto done;
      }
      /* Validate every out first (nothing written on failure), then copy. */
      PyObject *outs = req->out;
      if (!PyList_Check(outs) && !PyTuple_Check(outs)) {
        PyErr_Format(PyExc_TypeError, "out must be a list or tuple of arrays, not %.100s",
                     Py_TYPE(outs)->tp_name);
        Py_DECREF(views);
        goto done;
      }
      Py_ssize_t n = PySequence_Fast_GET_SIZE(outs);
      if (n != e->info.num_outputs) {
        out_error("out has %zd arrays but the operator produces %lld outputs", n,
                  (long long)e->info.num_outputs);
        Py_DECREF(views);
        goto done;
      }
      for (Py_ssize_t i = 0; i < n; i++) {
        void *p;
        byte_range r;
        PyObject *w = NULL;
        int bad = check_out(in, e, i, PySequence_Fast_GET_ITEM(outs, i), &p, &r, &w);
        Py_XDECREF(w);
        if (bad < 0) {
          Py_DECREF(views);
          goto done;
        }
      }
      for (Py_ssize_t i = 0; i < n; i++) {
        if (PyArray_CopyInto((PyArrayObject *)PySequence_Fast_GET_ITEM(outs, i),
                             (PyArrayObject *)PyTuple_GET_ITEM(views, i)) < 0) {
          Py_DECREF(views);
          goto done;
        }
      }
      Py_DECREF(views);
      result = req->as_list ? PySequence_List(outs) : PySequence_Tuple(outs);
      goto done;
    }
    result = copy_into(e, in, req);
  } else {
    result = copy_alloc(e, in, req);
  }
done:
  pcl_entry_decref(e);
  return result;
}

PyObject *pcl_output_shapes(const pcl_entry *e, int packed_bytes) {
  Py_ssize_t n = (Py_ssize_t)e->info.num_outputs;
  PyObject *shapes = PyTuple_New(n);
  for (Py_ssize_t i = 0; shapes != NULL && i < n; i++) {
    PyObject *shape;
    if (packed_bytes) {
      shape = Py_BuildValue("(L)", (long long)pcl_plan_output_bytes(e->plan, (size_t)i));
    } else {
      int64_t len = pcl_plan_output_length(e->plan, (size_t)i);
      shape = PyTuple_New((Py_ssize_t)e->info.output_rank);
      Py_ssize_t k = 0;
      for (size_t d = 0; shape != NULL && d < e->rank; d++) {
        int64_t v = e->shape[d];
        if ((int64_t)d == e->info.axis) {
          if (e->info.axis_removed) {
            continue;
          }
          v = len;
        }
        PyObject *dim = PyLong_FromLongLong(v);
        if (dim == NULL) {
          Py_CLEAR(shape);
          break;
        }
        PyTuple_SET_ITEM(shape, k++, dim);
      }
    }
    if (shape == NULL) {
      Py_CLEAR(shapes);
      break;
    }
    PyTuple_SET_ITEM(shapes, i, shape);
  }
  return shapes;
}
