/* Producing outputs: the choice between views, allocated copies and out= copies, and what the
 * three share (see outputs.h). */
#include "outputs.h"

#include "args.h"

/* Output i's shape into dims (input dims, the axis' length replaced or removed). */
int pcl_output_dims(const pcl_input *in, const pcl_info *info, int64_t length, npy_intp *dims) {
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
PyObject *pcl_new_sequence(const pcl_request *req, Py_ssize_t n) {
  return req->as_list ? PyList_New(n) : PyTuple_New(n);
}

void pcl_sequence_set(const pcl_request *req, PyObject *seq, Py_ssize_t i, PyObject *item) {
  if (req->as_list) {
    PyList_SET_ITEM(seq, i, item);
  } else {
    PyTuple_SET_ITEM(seq, i, item);
  }
}

/* Hands each output back as the caller's kind (DLPack producers get their own tensors). */
PyObject *pcl_finish(const pcl_input *in, const pcl_request *req, PyObject *seq) {
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
    pcl_sequence_set(req, seq, i, converted);
  }
  return seq;
}

/* A C-contiguous version of the input (the input itself when it is one). */
PyArrayObject *pcl_contiguous(pcl_input *in) {
  if (PyArray_IS_C_CONTIGUOUS(in->array)) {
    Py_INCREF(in->array);
    return in->array;
  }
  return (PyArrayObject *)PyArray_FromAny((PyObject *)in->array, NULL, 0, 0, NPY_ARRAY_C_CONTIGUOUS,
                                          NULL);
}

int pcl_release_gil(const pcl_input *in, int threads) {
  return threads > 1 || PyArray_NBYTES(in->array) >= PCL_RELEASE_GIL_BYTES;
}

PyObject *pcl_execute(const pcl_op *op, pcl_entry *entry, pcl_input *in, const pcl_request *req) {
  int has_out = req->out != NULL && req->out != Py_None;
  if (has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError, "copy=False asks for views but out= asks for copies");
    return NULL;
  }
  if (in->is_object && pcl_check_strings(in->array) < 0) {
    return NULL;
  }
  if (!has_out && !in->packed && req->copy != PCL_COPY_ALWAYS) {
    return pcl_make_views(op, entry, in, req);
  }
  if (in->packed && !has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError,
                    "outputs of packed types are always copies in Python (a packed view is not a "
                    "NumPy array): use copy=None or copy=True (Plan.run, not Plan.views)");
    return NULL;
  }
  if (in->is_object && !has_out) {
    return pcl_copy_views(op, entry, in, req);
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
  if (in->packed && pcl_check_packed_size(in, e) < 0) {
    goto done;
  }
  if (has_out) {
    result = in->is_object ? pcl_copy_objects_into(op, e, in, req) : pcl_copy_into(e, in, req);
  } else {
    result = pcl_copy_alloc(e, in, req);
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
