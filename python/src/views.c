/* A split's outputs as views of its input (see views.h). */
#include "views.h"

#include "errors.h"

/* The lengths on the axis: from the plan, or from inference into `buf` (or an allocation, which
 * *owned receives). */
static int lengths_of(const pcl_op *op, const pcl_entry *entry, const pcl_input *in,
                      cleave_split_info *info, int64_t *buf, size_t cap, int64_t **lengths,
                      int64_t **owned) {
  *owned = NULL;
  if (entry != NULL) {
    *info = entry->info.split;
    if (info->num_outputs > cap) {
      *owned = PyMem_Calloc(info->num_outputs + 1, sizeof(int64_t));
      if (*owned == NULL) {
        PyErr_NoMemory();
        return -1;
      }
      buf = *owned;
    }
    for (size_t i = 0; i < info->num_outputs; i++) {
      buf[i] = cleave_plan_output_length(entry->plan.split, i);
    }
    *lengths = buf;
    return 0;
  }
  cleave_error err;
  cleave_status st =
      cleave_infer(&op->c.split, in->type, in->shape, in->rank, info, buf, cap, &err);
  if (st == CLEAVE_ERROR_CAPACITY && info->num_outputs > cap) {
    /* PyMem_Calloc refuses a count whose byte size overflows: a zero-size input may have more
     * outputs than memory could list. */
    *owned = PyMem_Calloc(info->num_outputs + 1, sizeof(int64_t));
    if (*owned == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    buf = *owned;
    st = cleave_infer(&op->c.split, in->type, in->shape, in->rank, info, buf, info->num_outputs,
                      &err);
  }
  if (pcl_check(st, &err) < 0) {
    PyMem_Free(*owned);
    *owned = NULL;
    return -1;
  }
  *lengths = buf;
  return 0;
}

/* Outputs as views of the input (any strides): what np.split returns. */
PyObject *pcl_make_views(const pcl_op *op, const pcl_entry *entry, const pcl_input *in,
                         const pcl_request *req) {
  int64_t buf[64], *lengths, *owned;
  cleave_split_info info;
  if (lengths_of(op, entry, in, &info, buf, 64, &lengths, &owned) < 0) {
    return NULL;
  }
  PyArrayObject *a = in->array;
  PyArray_Descr *descr = PyArray_DESCR(a);
  npy_intp dims[PCL_MAX_RANK], strides[PCL_MAX_RANK];
  npy_intp axis_stride = PyArray_STRIDE(a, (int)info.axis);
  int nd = 0;
  for (int d = 0; d < PyArray_NDIM(a); d++) {
    if ((size_t)d != info.axis || !info.axis_removed) {
      strides[nd++] = PyArray_STRIDE(a, d);
    }
  }
  int flags = PyArray_FLAGS(a) & NPY_ARRAY_WRITEABLE;
  PyObject *seq = pcl_new_sequence(req, (Py_ssize_t)info.num_outputs);
  char *data = PyArray_BYTES(a);
  for (size_t i = 0; seq != NULL && i < info.num_outputs; i++) {
    nd = pcl_split_output_dims(in->shape, in->rank, &info, lengths[i], dims);
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
    pcl_sequence_set(req, seq, (Py_ssize_t)i, v);
    data += lengths[i] * axis_stride;
  }
  PyMem_Free(owned);
  return pcl_finish(in, req, seq);
}
