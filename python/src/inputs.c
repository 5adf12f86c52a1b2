/* The inputs of a run: a split's x, or a concat's sequence of array-likes (see inputs.h). */
#include "inputs.h"

#include "dtypes.h"
#include "errors.h"

#include <string.h>

/* Puts "inputs[i]: " before the message of a TypeError or ValueError raised about input i (the
 * input functions speak of one input); other exceptions, such as a producer's refusal to export,
 * stay as they are. */
static void name_the_input(Py_ssize_t i) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  if (type != PyExc_TypeError && type != PyExc_ValueError) {
    PyErr_Restore(type, value, traceback);
    return;
  }
  PyErr_NormalizeException(&type, &value, &traceback);
  PyObject *text = value == NULL ? NULL : PyObject_Str(value);
  if (text == NULL) {
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
    return;
  }
  PyErr_Format(type, "inputs[%zd]: %U", i, text);
  Py_DECREF(text);
  Py_DECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
}

static int accepted_kind(PyObject *obj) {
  return PyArray_Check(obj) || PyObject_CheckBuffer(obj) ||
         PyObject_HasAttr(obj, pcl_module_state.str_dlpack);
}

/* The sequence of inputs: anything PySequence_Fast takes, except a str, bytes or a single array
 * (np.concatenate would iterate an array's rows; here it is more likely a forgotten list). */
static PyObject *input_sequence(PyObject *arrays) {
  if (PyUnicode_Check(arrays) || PyBytes_Check(arrays) || PyByteArray_Check(arrays) ||
      PyArray_Check(arrays) || PyObject_HasAttr(arrays, pcl_module_state.str_dlpack)) {
    PyErr_Format(PyExc_TypeError,
                 "arrays must be a sequence of arrays (a list or tuple), not %.100s: to join one "
                 "array's rows, pass list(x)",
                 Py_TYPE(arrays)->tp_name);
    return NULL;
  }
  PyObject *seq = PySequence_Fast(arrays, "");
  if (seq == NULL) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "arrays must be a sequence of arrays (a list or tuple), not %.100s",
                 Py_TYPE(arrays)->tp_name);
  }
  return seq;
}

/* Sets `in` to no inputs, holding nothing, for pcl_inputs_release. */
static void init(pcl_inputs *in) {
  in->n = 0;
  in->arrays = in->inline_arrays;
  in->tensors = in->inline_tensors;
  in->data = in->inline_data;
  in->packed_shapes = NULL;
  in->sequence = 0;
  in->is_object = 0;
  in->packed = 0;
  in->first.array = NULL;
  in->first.from_dlpack = NULL;
  in->first.from_numpy = NULL;
  in->first.dl_code = -1;
}

/* Room for n inputs, zeroed, so that a failure part way leaves only what was acquired. */
static int allocate(pcl_inputs *in, Py_ssize_t n) {
  if (n > PCL_INLINE_INPUTS) {
    size_t count = (size_t)n;
    in->arrays = PyMem_Calloc(count, sizeof *in->arrays);
    in->tensors = PyMem_Calloc(count, sizeof *in->tensors);
    in->data = PyMem_Calloc(count, sizeof *in->data);
    if (in->arrays == NULL || in->tensors == NULL || in->data == NULL) {
      PyErr_NoMemory();
      return -1;
    }
  } else {
    memset(in->arrays, 0, (size_t)n * sizeof *in->arrays);
    memset(in->tensors, 0, (size_t)n * sizeof *in->tensors);
  }
  in->n = n;
  return 0;
}

int pcl_inputs_acquire_one(PyObject *x, PyObject *dtype, PyObject *shape, pcl_inputs *in) {
  init(in);
  if (pcl_input_acquire(x, dtype, shape, &in->first) < 0) {
    return -1;
  }
  const pcl_input *one = &in->first;
  Py_INCREF(one->array);
  in->arrays[0] = one->array;
  in->tensors[0] = (cleave_tensor){NULL, one->type, one->rank, one->shape};
  in->n = 1;
  in->is_object = one->is_object;
  in->packed = one->packed;
  return 0;
}

/* Whether dtype= names a packed type (0 when not given). */
static int dtype_is_packed(PyObject *dtype, int *packed) {
  *packed = 0;
  if (dtype == NULL || dtype == Py_None) {
    return 0;
  }
  cleave_type type;
  PyArray_Descr *descr;
  if (pcl_type_from_object(dtype, &type, &descr, packed) < 0) {
    return -1;
  }
  Py_DECREF(descr);
  return 0;
}

/* A NumPy array after the first, without dtype=: its type from its dtype (the first's when they
 * are the same object, the usual case). */
static int plain_array(pcl_inputs *in, Py_ssize_t i, PyObject *obj) {
  PyArrayObject *a = (PyArrayObject *)obj;
  Py_INCREF(obj);
  in->arrays[i] = a;
  if (PyArray_DESCR(a) == PyArray_DESCR(in->arrays[0])) {
    in->tensors[i].type = in->tensors[0].type;
  } else {
    int is_object;
    if (pcl_type_from_descr(PyArray_DESCR(a), &in->tensors[i].type, &is_object) < 0) {
      name_the_input(i);
      return -1;
    }
    in->is_object |= is_object;
  }
  in->tensors[i].rank = (size_t)PyArray_NDIM(a);
  in->tensors[i].shape = (const int64_t *)PyArray_DIMS(a);
  return 0;
}

/* Keeps a packed input's logical shape; the tensors point into packed_shapes once all are in. */
static int keep_packed_shape(pcl_inputs *in, const pcl_input *one, size_t *used, size_t *capacity) {
  if (*used + one->rank > *capacity) {
    size_t grown = (*capacity + one->rank) * 2;
    int64_t *more = PyMem_Realloc(in->packed_shapes, grown * sizeof(int64_t));
    if (more == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    in->packed_shapes = more;
    *capacity = grown;
  }
  memcpy(in->packed_shapes + *used, one->shape, one->rank * sizeof(int64_t));
  *used += one->rank;
  return 0;
}

/* Any other input, or the first: through the splits' input acquisition. */
static int general_input(pcl_inputs *in, Py_ssize_t i, PyObject *obj, PyObject *dtype,
                         PyObject *shape, size_t *used, size_t *capacity) {
  if (!accepted_kind(obj)) {
    PyErr_Format(PyExc_TypeError,
                 "inputs[%zd] must be a NumPy array, an object with the buffer protocol or one "
                 "with __dlpack__, not %.100s",
                 i, Py_TYPE(obj)->tp_name);
    return -1;
  }
  pcl_input one;
  if (pcl_input_acquire(obj, dtype, shape, &one) < 0) {
    name_the_input(i);
    return -1;
  }
  Py_INCREF(one.array);
  in->arrays[i] = one.array;
  in->tensors[i].type = one.type;
  in->tensors[i].rank = one.rank;
  in->tensors[i].shape = (const int64_t *)PyArray_DIMS(one.array);
  in->is_object |= one.is_object;
  int st = 0;
  if (one.packed) {
    in->tensors[i].shape = NULL; /* set when every shape is kept */
    st = keep_packed_shape(in, &one, used, capacity);
  }
  if (i == 0) {
    in->first = one;
  } else {
    pcl_input_release(&one);
  }
  return st;
}

int pcl_inputs_acquire(PyObject *arrays, PyObject *dtype, PyObject *shapes, pcl_inputs *in) {
  init(in);
  in->sequence = 1;
  int packed;
  if (dtype_is_packed(dtype, &packed) < 0) {
    return -1;
  }
  int has_shapes = shapes != NULL && shapes != Py_None;
  if (packed && !has_shapes) {
    PyErr_SetString(PyExc_TypeError, "a packed dtype= needs shapes=: the logical shape of each "
                                     "input's packed elements");
    return -1;
  }
  if (!packed && has_shapes) {
    PyErr_SetString(PyExc_TypeError,
                    "shapes= is only for packed dtypes (other inputs have their shapes)");
    return -1;
  }
  PyObject *seq = input_sequence(arrays);
  if (seq == NULL) {
    return -1;
  }
  PyObject *shape_seq = NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int st = allocate(in, n);
  if (st == 0 && packed) {
    shape_seq = PySequence_Fast(shapes, "shapes must be a sequence of shapes, one per input");
    st = shape_seq == NULL ? -1 : 0;
    if (st == 0 && PySequence_Fast_GET_SIZE(shape_seq) != n) {
      char msg[CLEAVE_MESSAGE_SIZE];
      PyOS_snprintf(msg, sizeof msg, "shapes= has %zd shapes but arrays has %zd",
                    PySequence_Fast_GET_SIZE(shape_seq), n);
      pcl_raise(CLEAVE_ERROR_INVALID_ARGUMENT, msg);
      st = -1;
    }
  }
  in->packed = packed;
  size_t used = 0, capacity = 0;
  PyObject **items = PySequence_Fast_ITEMS(seq);
  int plain = dtype == NULL || dtype == Py_None;
  for (Py_ssize_t i = 0; st == 0 && i < n; i++) {
    if (i > 0 && plain && PyArray_Check(items[i])) {
      st = plain_array(in, i, items[i]);
    } else {
      PyObject *shape = packed ? PySequence_Fast_GET_ITEM(shape_seq, i) : NULL;
      st = general_input(in, i, items[i], dtype, shape, &used, &capacity);
    }
  }
  Py_XDECREF(shape_seq);
  Py_DECREF(seq);
  if (st == 0 && packed) {
    size_t offset = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
      in->tensors[i].shape = in->packed_shapes + offset;
      offset += in->tensors[i].rank;
    }
  }
  return st;
}

int pcl_inputs_check_dtypes(const pcl_inputs *in) {
  if (in->packed) {
    return 0; /* bytes of a packed stream: the library's type is dtype= */
  }
  for (Py_ssize_t i = 1; i < in->n; i++) {
    PyArray_Descr *first = PyArray_DESCR(in->arrays[0]), *other = PyArray_DESCR(in->arrays[i]);
    if (first == other || PyArray_EquivTypes(first, other)) {
      continue;
    }
    PyObject *a = PyObject_Str((PyObject *)other), *b = PyObject_Str((PyObject *)first);
    if (a != NULL && b != NULL) {
      char msg[CLEAVE_MESSAGE_SIZE];
      PyOS_snprintf(msg, sizeof msg,
                    "inputs[%zd] has dtype %s but inputs[0] has dtype %s: nothing is converted, "
                    "so the inputs must have one dtype (byte order and units included)",
                    i, PyUnicode_AsUTF8(a), PyUnicode_AsUTF8(b));
      pcl_raise(CLEAVE_ERROR_UNSUPPORTED_TYPE, msg);
    }
    Py_XDECREF(a);
    Py_XDECREF(b);
    return -1;
  }
  return 0;
}

int pcl_inputs_check_packed_sizes(const pcl_inputs *in, int64_t bits) {
  for (Py_ssize_t i = 0; in->packed && i < in->n; i++) {
    const cleave_tensor *t = &in->tensors[i];
    int64_t count = 1;
    for (size_t d = 0; d < t->rank; d++) {
      count *= t->shape[d]; /* the library accepted the shapes: the count fits in int64 */
    }
    int64_t need = count / 8 * bits + (count % 8 * bits + 7) / 8;
    if (PyArray_NBYTES(in->arrays[i]) != need) {
      char msg[CLEAVE_MESSAGE_SIZE];
      long long got = (long long)PyArray_NBYTES(in->arrays[i]);
      if (in->sequence) {
        PyOS_snprintf(msg, sizeof msg,
                      "inputs[%zd] holds %lld bytes but its shape and dtype need %lld", i, got,
                      (long long)need);
      } else {
        PyOS_snprintf(msg, sizeof msg,
                      "the packed input holds %lld bytes but shape and dtype need %lld", got,
                      (long long)need);
      }
      pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, msg);
      return -1;
    }
  }
  return 0;
}

int pcl_inputs_contiguous(pcl_inputs *in) {
  for (Py_ssize_t i = 0; i < in->n; i++) {
    PyArrayObject *a = in->arrays[i];
    if (!PyArray_IS_C_CONTIGUOUS(a)) {
      a = (PyArrayObject *)PyArray_FromAny((PyObject *)a, NULL, 0, 0, NPY_ARRAY_C_CONTIGUOUS, NULL);
      if (a == NULL) {
        return -1;
      }
      Py_SETREF(in->arrays[i], a);
      if (!in->packed) {
        in->tensors[i].shape = (const int64_t *)PyArray_DIMS(a);
      }
    }
    in->tensors[i].data = PyArray_DATA(a);
    in->data[i] = in->tensors[i].data;
  }
  return 0;
}

int64_t pcl_inputs_bytes(const pcl_inputs *in) {
  int64_t total = 0;
  for (Py_ssize_t i = 0; i < in->n; i++) {
    total += PyArray_NBYTES(in->arrays[i]); /* arrays in memory: the sum fits */
  }
  return total;
}

void pcl_inputs_release(pcl_inputs *in) {
  for (Py_ssize_t i = 0; in->arrays != NULL && i < in->n; i++) {
    Py_XDECREF(in->arrays[i]);
  }
  if (in->arrays != in->inline_arrays) {
    PyMem_Free(in->arrays);
    PyMem_Free(in->tensors);
    PyMem_Free((void *)in->data);
  }
  if (in->packed_shapes != NULL) {
    PyMem_Free(in->packed_shapes);
    in->packed_shapes = NULL;
  }
  pcl_input_release(&in->first);
  in->arrays = NULL;
  in->n = 0;
}
