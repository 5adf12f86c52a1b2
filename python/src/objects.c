/* Object arrays copied by NumPy (see objects.h). */
#include "objects.h"

#include "views.h"

int pcl_check_strings(PyArrayObject *a) {
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

PyObject *pcl_copy_views(const pcl_op *op, const pcl_entry *entry, const pcl_input *x,
                         const pcl_request *req) {
  PyObject *seq = pcl_make_views(op, entry, x, req);
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

/* A split: each view of x copied into its out= array. */
static int views_into(const pcl_entry *e, const pcl_inputs *in, PyArrayObject *const *outs) {
  pcl_request as_views = {.threads = 1, .returns = PCL_RETURNS_TUPLE};
  PyObject *views = pcl_make_views(&e->op, e, &in->first, &as_views);
  if (views == NULL) {
    return -1;
  }
  int st = 0;
  for (Py_ssize_t i = 0; st == 0 && i < PyTuple_GET_SIZE(views); i++) {
    st = PyArray_CopyInto(outs[i], (PyArrayObject *)PyTuple_GET_ITEM(views, i));
  }
  Py_DECREF(views);
  return st < 0 ? -1 : 0;
}

/* A concat: each input copied into its place in `o`, which has the output's dtype and shape. */
static int place_inputs(const pcl_entry *e, const pcl_inputs *in, PyArrayObject *o) {
  const cleave_concat_info *info = &e->info.concat;
  for (Py_ssize_t i = 0; i < in->n; i++) {
    if (pcl_check_strings(in->arrays[i]) < 0) {
      return -1;
    }
  }
  npy_intp strides[PCL_MAX_RANK + 1];
  int nd = 0;
  for (int d = 0; d < PyArray_NDIM(o); d++) {
    if (!info->new_axis || (size_t)d != info->axis) {
      strides[nd++] = PyArray_STRIDE(o, d);
    }
  }
  npy_intp step = PyArray_STRIDE(o, (int)info->axis);
  char *data = PyArray_BYTES(o);
  for (Py_ssize_t i = 0; i < in->n; i++) {
    PyArrayObject *a = in->arrays[i];
    PyArray_Descr *descr = PyArray_DESCR(o);
    Py_INCREF(descr);
    PyObject *place = PyArray_NewFromDescr(&PyArray_Type, descr, nd, PyArray_DIMS(a), strides, data,
                                           NPY_ARRAY_WRITEABLE, NULL);
    if (place == NULL) {
      return -1;
    }
    Py_INCREF(o);
    if (PyArray_SetBaseObject((PyArrayObject *)place, (PyObject *)o) < 0 ||
        PyArray_CopyInto((PyArrayObject *)place, a) < 0) {
      Py_DECREF(place);
      return -1;
    }
    Py_DECREF(place);
    data += (info->new_axis ? 1 : PyArray_DIM(a, (int)info->axis)) * step;
  }
  return 0;
}

int pcl_objects_into(const pcl_entry *e, const pcl_inputs *in, PyArrayObject *const *outs) {
  return e->op.row->family == PCL_CONCAT ? place_inputs(e, in, outs[0]) : views_into(e, in, outs);
}

PyObject *pcl_objects_joined(const pcl_entry *e, const pcl_inputs *in) {
  npy_intp dims[PCL_MAX_RANK + 1];
  int nd = pcl_entry_output_dims(e, 0, 0, dims);
  PyArray_Descr *descr = PyArray_DESCR(in->first.array);
  Py_INCREF(descr);
  PyArrayObject *o = (PyArrayObject *)PyArray_Empty(nd, dims, descr, 0); /* filled with None */
  if (o == NULL) {
    return NULL;
  }
  if (place_inputs(e, in, o) < 0) {
    Py_DECREF(o);
    return NULL;
  }
  return (PyObject *)o;
}
