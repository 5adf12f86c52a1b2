/* cleave._infer: static and partial shape inference (cleave.infer wraps it in __init__.py). */
#include "args.h"
#include "module.h"
#include "ops.h"
#include "tensor.h"

#include <string.h>

/* A dimension: int, None (any size), or (lo, hi) with hi None for no upper bound. */
static int dim_from_object(PyObject *obj, Py_ssize_t i, pcl_dim *d) {
  if (obj == Py_None) {
    d->lo = 0;
    d->hi = PCL_UNBOUNDED;
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
      d->hi = PCL_UNBOUNDED;
      return 0;
    }
    if (pcl_int64(hi, "an interval's hi", &d->hi) < 0) {
      return -1;
    }
    if (d->hi == PCL_UNBOUNDED) {
      d->hi = -2; /* -1 given as a bound is malformed, not "unbounded" */
    }
    return 0;
  }
  if (pcl_int64(obj, "a dimension", &d->lo) < 0) {
    return -1;
  }
  if (d->lo == -1) {
    d->lo = 0;
    d->hi = PCL_UNBOUNDED; /* -1: any size, as in the text form */
    return 0;
  }
  d->hi = d->lo;
  return 0;
}

static PyObject *dim_to_object(pcl_dim d) {
  if (d.lo == d.hi) {
    return PyLong_FromLongLong(d.lo);
  }
  if (d.lo == 0 && d.hi == PCL_UNBOUNDED) {
    Py_RETURN_NONE;
  }
  if (d.hi == PCL_UNBOUNDED) {
    return Py_BuildValue("(LO)", (long long)d.lo, Py_None);
  }
  return Py_BuildValue("(LL)", (long long)d.lo, (long long)d.hi);
}

/* _infer(operator, shape, dtype, params: dict) -> (count, count_varies, shapes, axis,
 * axis_removed, text) with shapes a tuple of shapes (None for a dynamic rank) and text the
 * shapes' text forms. */
PyObject *pcl_infer_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"operator", "shape", "dtype", "params"};
  static PyObject *interned[4];
  static pcl_params params = {"_infer", names, 4, 4, 4, interned};
  PyObject *slots[4];
  if (pcl_parse_args(&params, args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  pcl_kind kind;
  if (pcl_kind_from_name(slots[0], &kind) < 0) {
    return NULL;
  }
  if (!PyDict_Check(slots[3])) {
    PyErr_SetString(PyExc_TypeError, "params must be a dict");
    return NULL;
  }
  PyObject *p[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < pcl_op_param_count[kind]; i++) {
    p[i] = PyDict_GetItemString(slots[3], pcl_op_params[kind][i]);
  }
  if (kind <= PCL_VARIADIC_SPLIT && p[0] == NULL) {
    PyErr_Format(PyExc_TypeError, "infer of %U needs %s=", slots[0], pcl_op_params[kind][0]);
    return NULL;
  }
  pcl_type type;
  PyArray_Descr *descr;
  int packed;
  if (pcl_type_from_object(slots[2], &type, &descr, &packed) < 0) {
    return NULL;
  }
  Py_DECREF(descr);
  /* The shape: text, None (dynamic rank) or a sequence of dims. */
  pcl_dim dims_in[PCL_MAX_RANK];
  int64_t rank = 0;
  PyObject *shape = slots[1];
  if (shape == Py_None) {
    rank = PCL_RANK_DYNAMIC;
  } else if (PyUnicode_Check(shape)) {
    const char *text = PyUnicode_AsUTF8(shape);
    if (text == NULL || pcl_partial_shape_parse(text, dims_in, PCL_MAX_RANK, &rank) < 0) {
      return NULL;
    }
  } else {
    PyObject *seq = PySequence_Fast(shape, "shape must be a str, None or a sequence of dims");
    if (seq == NULL) {
      return NULL;
    }
    rank = PySequence_Fast_GET_SIZE(seq);
    if (rank > PCL_MAX_RANK) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_ValueError, "rank %lld is above the %d supported", (long long)rank,
                   PCL_MAX_RANK);
      return NULL;
    }
    for (Py_ssize_t i = 0; i < rank; i++) {
      if (dim_from_object(PySequence_Fast_GET_ITEM(seq, i), i, &dims_in[i]) < 0) {
        Py_DECREF(seq);
        return NULL;
      }
    }
    Py_DECREF(seq);
  }
  pcl_op op;
  int unknown;
  if (pcl_build_op(kind, p, &op, &unknown) < 0) {
    pcl_op_clear(&op);
    return NULL;
  }
  pcl_partial_info info;
  if (pcl_infer_partial(&op, unknown & 1, unknown & 2, type, rank, dims_in, &info, NULL, 0) < 0) {
    pcl_op_clear(&op);
    return NULL;
  }
  pcl_dim *dims = PyMem_Malloc(((size_t)info.dims_needed + 1) * sizeof(pcl_dim));
  if (dims == NULL) {
    pcl_op_clear(&op);
    return PyErr_NoMemory();
  }
  int st = pcl_infer_partial(&op, unknown & 1, unknown & 2, type, rank, dims_in, &info, dims,
                             (size_t)info.dims_needed);
  pcl_op_clear(&op);
  PyObject *shapes = NULL, *texts = NULL, *result = NULL;
  if (st < 0) {
    goto done;
  }
  shapes = PyTuple_New((Py_ssize_t)info.num_shapes);
  texts = PyTuple_New((Py_ssize_t)info.num_shapes);
  if (shapes == NULL || texts == NULL) {
    goto done;
  }
  for (int64_t i = 0; i < info.num_shapes; i++) {
    PyObject *s;
    const pcl_dim *row = info.output_rank < 0 ? NULL : dims + i * info.output_rank;
    if (info.output_rank < 0) {
      Py_INCREF(Py_None);
      s = Py_None;
    } else {
      s = PyTuple_New((Py_ssize_t)info.output_rank);
      for (int64_t d = 0; s != NULL && d < info.output_rank; d++) {
        PyObject *o = dim_to_object(row[d]);
        if (o == NULL) {
          Py_CLEAR(s);
          break;
        }
        PyTuple_SET_ITEM(s, (Py_ssize_t)d, o);
      }
    }
    if (s == NULL) {
      goto done;
    }
    PyTuple_SET_ITEM(shapes, (Py_ssize_t)i, s);
    PyObject *t = pcl_partial_shape_format(info.output_rank, row);
    if (t == NULL) {
      goto done;
    }
    PyTuple_SET_ITEM(texts, (Py_ssize_t)i, t);
  }
  {
    PyObject *count = dim_to_object(info.count);
    if (count == NULL) {
      goto done;
    }
    result = Py_BuildValue("(NOOLO)", count, info.count_varies ? Py_True : Py_False, shapes,
                           (long long)info.axis, info.axis_removed ? Py_True : Py_False);
    if (result != NULL) {
      PyObject *full = Py_BuildValue("(OO)", result, texts);
      Py_SETREF(result, full);
    }
  }
done:
  PyMem_Free(dims);
  Py_XDECREF(shapes);
  Py_XDECREF(texts);
  return result;
}
