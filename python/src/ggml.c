/* cleave.ggml_dequantize and cleave.ggml_quantize: ggml's block formats (see ggml.h). */
#include "ggml.h"

#include "errors.h"

/* A ggml type from an int (gguf-py's GGMLQuantizationType is one) or a name ("Q8_0", "q8_0"). */
static int to_ggml_type(PyObject *obj, cleave_ggml_type *type) {
  cleave_error err;
  if (PyUnicode_Check(obj)) {
    const char *name = PyUnicode_AsUTF8(obj);
    if (name == NULL) {
      return -1;
    }
    return pcl_check(cleave_ggml_type_from_name(name, type, &err), &err);
  }
  if (!PyLong_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "type must be a ggml type number or name, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  int overflow = 0;
  long v = PyLong_AsLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    return -1;
  }
  if (overflow != 0 || v < 0 || v > 1000 || cleave_ggml_type_name((cleave_ggml_type)v) == NULL) {
    PyObject *text = PyObject_Repr(obj);
    if (text != NULL) {
      PyErr_Format(pcl_module_state.error_type, "%U is no ggml type", text);
      Py_DECREF(text);
    }
    return -1;
  }
  *type = (cleave_ggml_type)v;
  return 0;
}

static int check_nargs(const char *name, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "%s() takes exactly 2 arguments (%zd given)", name, nargs);
    return -1;
  }
  return 0;
}

const char pcl_ggml_dequantize_doc[] =
    "ggml_dequantize(data, type, /)\n--\n\n"
    "ggml blocks to float32, bit for bit as gguf-py's quants.dequantize computes them.\n\n"
    "data is a NumPy array whose last axis holds each row's bytes (any dtype: its bytes are\n"
    "read, as gguf-py views it as uint8), or any bytes-like object (one row). type is ggml's\n"
    "type number (gguf.GGMLQuantizationType) or its name ('Q4_K', 'q8_0'). Returns a new\n"
    "float32 array of the same leading shape whose last axis has the row's values. Raises\n"
    "cleave.Error for a type it does not dequantize or a row that is not whole blocks.";

PyObject *pcl_ggml_dequantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  cleave_ggml_type type;
  if (check_nargs("ggml_dequantize", nargs) < 0 || to_ggml_type(args[1], &type) < 0) {
    return NULL;
  }
  int64_t block_elements, block_bytes;
  cleave_error err;
  if (pcl_check(cleave_ggml_type_size(type, &block_elements, &block_bytes, &err), &err) < 0) {
    return NULL;
  }
  /* The rows' bytes: an array's last axis widened by its item size (ndarray.view(uint8), as
   * gguf-py reads it), or a bytes-like object as one row, held by `owner`. */
  PyObject *owner;
  const void *data;
  int nd = 1;
  npy_intp dims[NPY_MAXDIMS];
  Py_buffer view = {0};
  if (PyArray_Check(args[0])) {
    if (PyArray_NDIM((PyArrayObject *)args[0]) == 0) {
      return pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, "data must have at least one axis");
    }
    PyArrayObject *c = (PyArrayObject *)PyArray_FromAny(
        args[0], NULL, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
    if (c == NULL) {
      return NULL;
    }
    nd = PyArray_NDIM(c);
    for (int i = 0; i < nd; i++) {
      dims[i] = PyArray_DIM(c, i);
    }
    dims[nd - 1] *= (npy_intp)PyArray_ITEMSIZE(c);
    data = PyArray_DATA(c);
    owner = (PyObject *)c;
  } else {
    if (PyObject_GetBuffer(args[0], &view, PyBUF_C_CONTIGUOUS) < 0) {
      return NULL;
    }
    dims[0] = (npy_intp)view.len;
    data = view.buf;
    owner = NULL;
  }
  npy_intp row_bytes = dims[nd - 1], nbytes = 1;
  for (int i = 0; i < nd; i++) {
    nbytes *= dims[i];
  }
  if (row_bytes % block_bytes != 0) {
    char message[CLEAVE_MESSAGE_SIZE];
    snprintf(message, sizeof message,
             "a row of %lld bytes is not a whole number of %s blocks of %lld bytes",
             (long long)row_bytes, cleave_ggml_type_name(type), (long long)block_bytes);
    Py_XDECREF(owner);
    if (owner == NULL) {
      PyBuffer_Release(&view);
    }
    return pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, message);
  }
  dims[nd - 1] = row_bytes / (npy_intp)block_bytes * (npy_intp)block_elements;
  PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_FLOAT32);
  cleave_status status = CLEAVE_OK;
  if (out != NULL) {
    Py_BEGIN_ALLOW_THREADS;
    status = cleave_ggml_dequantize(type, data, (int64_t)nbytes, PyArray_DATA(out),
                                    (int64_t)PyArray_NBYTES(out), &err);
    Py_END_ALLOW_THREADS;
  }
  Py_XDECREF(owner);
  if (owner == NULL) {
    PyBuffer_Release(&view);
  }
  if (out == NULL) {
    return NULL;
  }
  if (pcl_check(status, &err) < 0) {
    Py_DECREF(out);
    return NULL;
  }
  return (PyObject *)out;
}

const char pcl_ggml_quantize_doc[] =
    "ggml_quantize(x, type, /)\n--\n\n"
    "float32 values to ggml blocks, bit for bit as gguf-py's quants.quantize makes them.\n\n"
    "x is array-like (converted to float32); its last axis is the row, which must be a whole\n"
    "number of the type's blocks (gguf-py's can_quantize). type: 'Q8_0' (or 8), 'F16', 'BF16',\n"
    "'F32'. Returns a new uint8 array of the same leading shape whose last axis has the row's\n"
    "bytes. Raises cleave.Error for another type or a row that is not whole blocks.";

PyObject *pcl_ggml_quantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  cleave_ggml_type type;
  if (check_nargs("ggml_quantize", nargs) < 0 || to_ggml_type(args[1], &type) < 0) {
    return NULL;
  }
  int64_t block_elements, block_bytes;
  cleave_error err;
  if (pcl_check(cleave_ggml_type_size(type, &block_elements, &block_bytes, &err), &err) < 0) {
    return NULL;
  }
  PyArrayObject *x = (PyArrayObject *)PyArray_FromAny(
      args[0], PyArray_DescrFromType(NPY_FLOAT32), 0, 0,
      NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
  if (x == NULL) {
    return NULL;
  }
  int nd = PyArray_NDIM(x);
  if (nd == 0) {
    Py_DECREF(x);
    return pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, "x must have at least one axis");
  }
  npy_intp row = PyArray_DIM(x, nd - 1);
  if (!cleave_ggml_can_quantize(type, (int64_t)row)) {
    Py_DECREF(x);
    if (!cleave_ggml_can_quantize(type, 0)) {
      char message[CLEAVE_MESSAGE_SIZE];
      snprintf(message, sizeof message, "quantizing to %s is not supported",
               cleave_ggml_type_name(type));
      return pcl_raise(CLEAVE_ERROR_UNSUPPORTED_TYPE, message);
    }
    char message[CLEAVE_MESSAGE_SIZE];
    snprintf(message, sizeof message,
             "a row of %lld elements is not a whole number of %s blocks of %lld", (long long)row,
             cleave_ggml_type_name(type), (long long)block_elements);
    return pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, message);
  }
  npy_intp dims[NPY_MAXDIMS];
  for (int i = 0; i < nd; i++) {
    dims[i] = PyArray_DIM(x, i);
  }
  dims[nd - 1] = row / (npy_intp)block_elements * (npy_intp)block_bytes;
  PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_UINT8);
  if (out == NULL) {
    Py_DECREF(x);
    return NULL;
  }
  cleave_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cleave_ggml_quantize(type, PyArray_DATA(x), (int64_t)PyArray_NBYTES(x), (int64_t)row,
                                PyArray_DATA(out), (int64_t)PyArray_NBYTES(out), &err);
  Py_END_ALLOW_THREADS;
  Py_DECREF(x);
  if (pcl_check(status, &err) < 0) {
    Py_DECREF(out);
    return NULL;
  }
  return (PyObject *)out;
}
