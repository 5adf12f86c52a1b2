/* Acquiring an input: NumPy arrays as they are, buffers through NumPy, DLPack tensors through
 * dlpack.c; then dtype= and shape= for packed types. */
#include "input.h"

#include "args.h"
#include "dtypes.h"
#include "foreign.h"

#include <string.h>

static int packed_input(pcl_input *in, PyObject *shape) {
  if (shape == NULL || shape == Py_None) {
    PyErr_SetString(PyExc_TypeError,
                    "a packed dtype= needs shape=: the logical shape of the packed elements");
    return -1;
  }
  PyArrayObject *a = in->array;
  if (PyArray_ITEMSIZE(a) != 1 || !PyArray_IS_C_CONTIGUOUS(a)) {
    PyErr_SetString(PyExc_TypeError,
                    "a packed dtype= needs a C-contiguous buffer of bytes (uint8) as input");
    return -1;
  }
  if (pcl_shape(shape, -1, NPY_MAXDIMS, in->shape, &in->rank) < 0) {
    return -1;
  }
  in->packed = 1;
  /* The byte count is checked against the plan (which sizes the packed stream) by the caller. */
  if (PyArray_NDIM(a) != 1) {
    npy_intp n = PyArray_SIZE(a);
    PyArray_Dims dims = {&n, 1};
    PyObject *flat = PyArray_Newshape(a, &dims, NPY_CORDER);
    if (flat == NULL) {
      return -1;
    }
    Py_SETREF(in->array, (PyArrayObject *)flat);
  }
  return 0;
}

static int typed_input(pcl_input *in, PyObject *dtype, PyObject *shape) {
  PyArray_Descr *descr;
  int packed;
  cleave_type type;
  if (pcl_type_from_object(dtype, &type, &descr, &packed) < 0) {
    return -1;
  }
  in->type = type;
  in->is_object = descr->type_num == NPY_OBJECT;
  if (packed) {
    Py_DECREF(descr);
    return packed_input(in, shape);
  }
  if (shape != NULL && shape != Py_None) {
    Py_DECREF(descr);
    PyErr_SetString(PyExc_TypeError, "shape= is only for packed dtypes (the input has a shape)");
    return -1;
  }
  int fits = PyDataType_ELSIZE(descr) == PyArray_ITEMSIZE(in->array) &&
             (descr->type_num == NPY_OBJECT) == (PyArray_TYPE(in->array) == NPY_OBJECT);
  Py_DECREF(descr);
  if (!fits) {
    PyErr_Format(PyExc_TypeError, "dtype=%R needs elements of its size; the input's dtype is %R",
                 dtype, (PyObject *)PyArray_DESCR(in->array));
    return -1;
  }
  return 0;
}

int pcl_input_acquire(PyObject *obj, PyObject *dtype, PyObject *shape, pcl_input *in) {
  in->array = NULL;
  in->from_dlpack = NULL;
  in->from_numpy = NULL;
  in->packed = 0;
  in->is_object = 0;
  in->dl_code = -1;
  in->dl_bits = 0;
  if (PyArray_Check(obj)) {
    Py_INCREF(obj);
    in->array = (PyArrayObject *)obj;
  } else if (PyObject_CheckBuffer(obj)) {
    /* A buffer (bytes, bytearray, memoryview, array.array, ...): NumPy wraps it without a copy
     * and keeps it alive. */
    PyObject *view = PyMemoryView_FromObject(obj); /* bytes must not become a 0-d 'S' array */
    if (view == NULL) {
      return -1;
    }
    in->array = (PyArrayObject *)PyArray_FromAny(view, NULL, 0, 0, 0, NULL);
    Py_DECREF(view);
    if (in->array == NULL) {
      return -1;
    }
  } else if (PyObject_HasAttr(obj, pcl_module_state.str_dlpack)) {
    if (pcl_foreign_wrap(obj, in) < 0) {
      pcl_input_release(in);
      return -1;
    }
    pcl_foreign_hand_back(obj, in);
  } else {
    PyErr_Format(PyExc_TypeError,
                 "x must be a NumPy array, an object with the buffer protocol or one with "
                 "__dlpack__, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  in->rank = (size_t)PyArray_NDIM(in->array);
  if (in->rank > 0) { /* a 0-d array's dims may be NULL */
    memcpy(in->shape, PyArray_DIMS(in->array), in->rank * sizeof(int64_t));
  }
  if (dtype != NULL && dtype != Py_None) {
    if (typed_input(in, dtype, shape) < 0) {
      pcl_input_release(in);
      return -1;
    }
    return 0;
  }
  if (shape != NULL && shape != Py_None) {
    pcl_input_release(in);
    PyErr_SetString(PyExc_TypeError, "shape= is only for packed dtypes (the input has a shape)");
    return -1;
  }
  if (in->dl_code < 0 &&
      pcl_type_from_descr(PyArray_DESCR(in->array), &in->type, &in->is_object) < 0) {
    pcl_input_release(in);
    return -1;
  }
  return 0;
}

void pcl_input_release(pcl_input *in) {
  Py_CLEAR(in->array);
  Py_CLEAR(in->from_dlpack);
  Py_CLEAR(in->from_numpy);
}
