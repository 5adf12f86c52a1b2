/* What the ways of producing outputs share (see results.h). */
#include "results.h"

#include "dlpack.h"

PyObject *pcl_new_sequence(const pcl_request *req, Py_ssize_t n) {
  return req->returns == PCL_RETURNS_LIST ? PyList_New(n) : PyTuple_New(n);
}

void pcl_sequence_set(const pcl_request *req, PyObject *seq, Py_ssize_t i, PyObject *item) {
  if (req->returns == PCL_RETURNS_LIST) {
    PyList_SET_ITEM(seq, i, item);
  } else {
    PyTuple_SET_ITEM(seq, i, item);
  }
}

PyObject *pcl_hand_back(const pcl_input *in, PyObject *array) {
  if (in->from_numpy != NULL) {
    PyObject *converted = PyObject_CallOneArg(in->from_numpy, array);
    Py_DECREF(array);
    return converted;
  }
  return pcl_dlpack_export(in, array);
}

PyObject *pcl_finish(const pcl_input *in, const pcl_request *req, PyObject *seq) {
  if (seq == NULL || (in->from_dlpack == NULL && in->from_numpy == NULL)) {
    return seq;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject **items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *converted = pcl_hand_back(in, items[i]); /* steals items[i] */
    items[i] = NULL;
    if (converted == NULL) {
      Py_DECREF(seq);
      return NULL;
    }
    pcl_sequence_set(req, seq, i, converted);
  }
  return seq;
}

void pcl_byte_extent(PyArrayObject *a, char **start, char **end) {
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
  *start = PyArray_BYTES(a) + lo;
  *end = PyArray_BYTES(a) + hi;
}
