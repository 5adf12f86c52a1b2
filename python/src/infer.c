/* cleave._infer: static and partial shape inference (see infer.h). */
#include "infer.h"

#include "args.h"
#include "dtypes.h"
#include "errors.h"
#include "operators.h"

#include <string.h>

/* A dimension: int, None (any size), or (lo, hi) with hi None for no upper bound. */
static int dim_from_object(PyObject *obj, Py_ssize_t i, cleave_dim *d) {
  if (obj == Py_None) {
    d->lo = 0;
    d->hi = CLEAVE_DIM_UNBOUNDED;
    return 0;
  }
  if (PyTuple_Check(obj)) {
    if (PyTuple_GET_SIZE(obj) != 2) {
      PyErr_Format(PyExc_TypeError, "shape[%zd]: an interval is a (lo, hi) pair", i);
      return -1;
    }
    if (pcl_int64(PyTuple_GET_ITEM(obj, 0), "an interval's lo", &d->lo) < 0) {
      return -1;
    }
    PyObject *hi = PyTuple_GET_ITEM(obj, 1);
    if (hi == Py_None) {
      d->hi = CLEAVE_DIM_UNBOUNDED;
      return 0;
    }
    if (pcl_int64(hi, "an interval's hi", &d->hi) < 0) {
      return -1;
    }
    if (d->hi == CLEAVE_DIM_UNBOUNDED) {
      d->hi = -2; /* -1 given as a bound is malformed, not "unbounded" */
    }
    return 0;
  }
  if (pcl_int64(obj, "a dimension", &d->lo) < 0) {
    return -1;
  }
  if (d->lo == -1) {
    d->lo = 0;
    d->hi = CLEAVE_DIM_UNBOUNDED; /* -1: any size, as in the text form */
    return 0;
  }
  d->hi = d->lo;
  return 0;
}

static PyObject *dim_to_object(cleave_dim d) {
  if (d.lo == d.hi) {
    return PyLong_FromLongLong(d.lo);
  }
  if (d.lo == 0 && d.hi == CLEAVE_DIM_UNBOUNDED) {
    Py_RETURN_NONE;
  }
  if (d.hi == CLEAVE_DIM_UNBOUNDED) {
    return Py_BuildValue("(LO)", (long long)d.lo, Py_None);
  }
  return Py_BuildValue("(LL)", (long long)d.lo, (long long)d.hi);
}

const char pcl_infer_doc[] = "_infer(operator, shape, dtype, params)\n--\n\n"
                             "Shape inference (use cleave.infer).";

/* Formats a partial shape into a new str. */
static PyObject *shape_text(const cleave_partial_shape *shape) {
  size_t length = 0;
  cleave_error err;
  cleave_status st = cleave_partial_shape_format(shape, NULL, 0, &length, &err);
  if (st != CLEAVE_OK && st != CLEAVE_ERROR_CAPACITY) {
    pcl_check(st, &err);
    return NULL;
  }
  char *buf = PyMem_Malloc(length + 1);
  if (buf == NULL) {
    return PyErr_NoMemory();
  }
  st = cleave_partial_shape_format(shape, buf, length + 1, &length, &err);
  PyObject *text =
      pcl_check(st, &err) < 0 ? NULL : PyUnicode_FromStringAndSize(buf, (Py_ssize_t)length);
  PyMem_Free(buf);
  return text;
}

/* The input shape: the text form, None (a dynamic rank) or a sequence of dims. */
static int shape_from_object(PyObject *shape, cleave_dim *dims, size_t *rank) {
  if (shape == Py_None) {
    *rank = CLEAVE_RANK_DYNAMIC;
    return 0;
  }
  if (PyUnicode_Check(shape)) {
    const char *text = PyUnicode_AsUTF8(shape);
    cleave_error err;
    return text == NULL
               ? -1
               : pcl_check(cleave_partial_shape_parse(text, dims, PCL_MAX_RANK, rank, &err), &err);
  }
  PyObject *seq = PySequence_Fast(shape, "shape must be a str, None or a sequence of dims");
  if (seq == NULL) {
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > PCL_MAX_RANK) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "rank %zd is above the %d supported", n, PCL_MAX_RANK);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (dim_from_object(PySequence_Fast_GET_ITEM(seq, i), i, &dims[i]) < 0) {
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  *rank = (size_t)n;
  return 0;
}

/* One output shape as a tuple of dims (None for a dynamic rank). */
static PyObject *shape_to_object(const cleave_partial_shape *shape) {
  if (shape->rank == CLEAVE_RANK_DYNAMIC) {
    Py_RETURN_NONE;
  }
  PyObject *s = PyTuple_New((Py_ssize_t)shape->rank);
  for (size_t d = 0; s != NULL && d < shape->rank; d++) {
    PyObject *o = dim_to_object(shape->dims[d]);
    if (o == NULL) {
      Py_CLEAR(s);
      break;
    }
    PyTuple_SET_ITEM(s, (Py_ssize_t)d, o);
  }
  return s;
}

/* The result of _infer from the library's answer (dims: info->dims_needed entries). */
static PyObject *result_of(const cleave_partial_info *info, const cleave_dim *dims) {
  Py_ssize_t n = (Py_ssize_t)info->num_shapes;
  PyObject *shapes = PyTuple_New(n), *texts = PyTuple_New(n), *result = NULL;
  for (Py_ssize_t i = 0; shapes != NULL && texts != NULL && i < n; i++) {
    cleave_partial_shape shape = {info->output_rank, NULL};
    if (info->output_rank != CLEAVE_RANK_DYNAMIC) {
      shape.dims = dims + (size_t)i * info->output_rank;
    }
    PyObject *s = shape_to_object(&shape);
    PyObject *t = s == NULL ? NULL : shape_text(&shape);
    if (t == NULL) {
      Py_XDECREF(s);
      goto done;
    }
    PyTuple_SET_ITEM(shapes, i, s);
    PyTuple_SET_ITEM(texts, i, t);
  }
  PyObject *count = shapes == NULL || texts == NULL ? NULL : dim_to_object(info->count);
  if (count != NULL) {
    long long axis = info->axis == CLEAVE_AXIS_UNKNOWN ? -1 : (long long)info->axis;
    result = Py_BuildValue("((NOOLO)O)", count, info->count_varies ? Py_True : Py_False, shapes,
                           axis, info->axis_removed ? Py_True : Py_False, texts);
  }
done:
  Py_XDECREF(shapes);
  Py_XDECREF(texts);
  return result;
}

/* Partial inference of op on (type, shape): the count of dims first, then the dims. */
static PyObject *infer(const pcl_op *op, unsigned unknown, cleave_type type,
                       const cleave_partial_shape *shape) {
  cleave_partial_info info;
  cleave_error err;
  if (pcl_check(cleave_infer_partial(&op->c.split, unknown, type, shape, &info, NULL, 0, &err),
                &err) < 0) {
    return NULL;
  }
  /* A zero-size input may have more output shapes than memory could list (dims_needed then
   * saturates at SIZE_MAX). */
  cleave_dim *dims = info.dims_needed >= (size_t)PY_SSIZE_T_MAX / sizeof(cleave_dim)
                         ? NULL
                         : PyMem_Malloc((info.dims_needed + 1) * sizeof(cleave_dim));
  if (dims == NULL) {
    return PyErr_NoMemory();
  }
  PyObject *result = NULL;
  if (pcl_check(cleave_infer_partial(&op->c.split, unknown, type, shape, &info, dims,
                                     info.dims_needed, &err),
                &err) == 0) {
    result = result_of(&info, dims);
  }
  PyMem_Free(dims);
  return result;
}

/* Partial inference of a concat of the input shapes in `shapes` (a sequence of shapes, each as
 * `shape_from_object` takes one). Each input has PCL_MAX_RANK dims of room; the output one more
 * (a stacking adds an axis). */
static PyObject *infer_concat(const pcl_op *op, unsigned unknown, cleave_type type,
                              PyObject *shapes) {
  if (PyUnicode_Check(shapes)) {
    PyErr_SetString(PyExc_TypeError, "a concat's shape is a sequence of input shapes, one per "
                                     "input (e.g. [(2, 3), '[?,3]'])");
    return NULL;
  }
  PyObject *seq = PySequence_Fast(shapes, "a concat's shape is a sequence of input shapes");
  if (seq == NULL) {
    return NULL;
  }
  size_t n = (size_t)PySequence_Fast_GET_SIZE(seq);
  cleave_partial_shape *inputs = PyMem_Calloc(n + 1, sizeof *inputs);
  cleave_dim *dims = PyMem_Calloc((n + 1) * PCL_MAX_RANK, sizeof *dims);
  PyObject *result = NULL;
  if (inputs == NULL || dims == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    inputs[i].dims = dims + i * PCL_MAX_RANK;
    if (shape_from_object(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), dims + i * PCL_MAX_RANK,
                          &inputs[i].rank) < 0) {
      goto done;
    }
  }
  cleave_partial_info info;
  cleave_dim out[PCL_MAX_RANK + 1];
  cleave_error err;
  if (pcl_check(cleave_concat_infer_partial(&op->c.concat, unknown, type, inputs, n, &info, out,
                                            PCL_MAX_RANK + 1, &err),
                &err) == 0) {
    result = result_of(&info, out);
  }
done:
  PyMem_Free(inputs);
  PyMem_Free(dims);
  Py_DECREF(seq);
  return result;
}

PyObject *pcl_infer_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"operator", "shape", "dtype", "params"};
  static PyObject *interned[4];
  static pcl_params params = {"_infer", names, 4, 4, 4, interned};
  PyObject *slots[4];
  if (pcl_parse_args(&params, args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  if (!PyDict_Check(slots[3])) {
    PyErr_SetString(PyExc_TypeError, "params must be a dict");
    return NULL;
  }
  const pcl_operator *row = pcl_operator_find(slots[0], PCL_ANY_FAMILY);
  PyObject *p[PCL_MAX_OP_PARAMS];
  if (row == NULL || pcl_operator_params(row, slots[3], 0, "infer", p) < 0) {
    return NULL;
  }
  cleave_type type;
  PyArray_Descr *descr;
  int packed;
  if (pcl_type_from_object(slots[2], &type, &descr, &packed) < 0) {
    return NULL;
  }
  Py_DECREF(descr);
  pcl_op op;
  unsigned unknown;
  PyObject *result = NULL;
  if (row->family == PCL_CONCAT) {
    /* The operator first, then the input shapes (a sequence of them). */
    if (row->build(row, p, &op, &unknown) == 0) {
      result = infer_concat(&op, unknown, type, slots[1]);
    }
    pcl_op_clear(&op);
    return result;
  }
  cleave_dim dims[PCL_MAX_RANK];
  cleave_partial_shape shape = {0, dims};
  if (shape_from_object(slots[1], dims, &shape.rank) < 0) {
    return NULL;
  }
  if (row->build(row, p, &op, &unknown) == 0) {
    result = infer(&op, unknown, type, &shape);
  }
  pcl_op_clear(&op);
  return result;
}
