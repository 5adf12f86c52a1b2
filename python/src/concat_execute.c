/* One run of a concat (see concat_execute.h). */
#include "concat_execute.h"

#include "concat_out.h"
#include "errors.h"
#include "results.h"
#include "run.h"
#include "views.h"

/* A block of the output arena holding one output, freed when its array goes. */
static void block_destructor(PyObject *capsule) {
  void *output = PyCapsule_GetPointer(capsule, "cleave.output");
  cleave_outputs_free(&output, 1);
}

/* The output's dims as NumPy takes them: the logical shape, or the packed bytes (1-D). */
static int output_dims(const pcl_concat_entry *e, const pcl_concat_inputs *in, npy_intp *dims) {
  if (in->packed) {
    dims[0] = (npy_intp)e->info.output_bytes;
    return 1;
  }
  for (size_t d = 0; d < e->info.output_rank; d++) {
    dims[d] = (npy_intp)e->output_shape[d];
  }
  return (int)e->info.output_rank;
}

static PyArray_Descr *output_descr(const pcl_concat_inputs *in) {
  if (in->packed) {
    return PyArray_DescrFromType(NPY_UINT8);
  }
  PyArray_Descr *descr = PyArray_DESCR(in->arrays[0]);
  Py_INCREF(descr);
  return descr;
}

/* Runs the plan into a fresh block of the output arena, as an array that owns the block. */
static PyObject *fresh_output(const pcl_concat_entry *e, pcl_concat_inputs *in, int threads,
                              int release_gil) {
  void *block = NULL;
  if (pcl_concat_run_alloc(e->plan, in->data, &block, threads, release_gil) < 0) {
    return NULL;
  }
  PyObject *owner = PyCapsule_New(block, "cleave.output", block_destructor);
  if (owner == NULL) {
    cleave_outputs_free(&block, 1);
    return NULL;
  }
  npy_intp dims[PCL_MAX_RANK + 1];
  int nd = output_dims(e, in, dims);
  PyObject *array = PyArray_NewFromDescr(&PyArray_Type, output_descr(in), nd, dims, NULL, block,
                                         NPY_ARRAY_WRITEABLE, NULL);
  if (array == NULL || PyArray_SetBaseObject((PyArrayObject *)array, owner) < 0) {
    Py_XDECREF(array);
    if (array == NULL) {
      Py_DECREF(owner);
    }
    return NULL;
  }
  return pcl_hand_back(&in->first, array);
}

/* Object arrays: NumPy copies each input into its place in `o`, counting the references (the
 * library would copy the pointers without them). `o` has the output's dtype and shape. */
static int copy_objects(const pcl_concat_entry *e, const pcl_concat_inputs *in, PyArrayObject *o) {
  const cleave_concat_info *info = &e->info;
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

static PyObject *object_output(const pcl_concat_entry *e, pcl_concat_inputs *in,
                               PyArrayObject *into) {
  for (Py_ssize_t i = 0; i < in->n; i++) {
    if (pcl_check_strings(in->arrays[i]) < 0) {
      return NULL;
    }
  }
  PyArrayObject *o = into;
  if (o == NULL) {
    npy_intp dims[PCL_MAX_RANK + 1];
    int nd = output_dims(e, in, dims);
    o = (PyArrayObject *)PyArray_Empty(nd, dims, output_descr(in), 0); /* filled with None */
    if (o == NULL) {
      return NULL;
    }
  } else {
    Py_INCREF(o);
  }
  if (copy_objects(e, in, o) < 0) {
    Py_DECREF(o);
    return NULL;
  }
  return (PyObject *)o;
}

/* Every check after the plan's: the binding's own rules, before anything is written. */
static int check_inputs(const pcl_concat_entry *e, const pcl_concat_inputs *in) {
  if (pcl_concat_check_dtypes(in) < 0 ||
      pcl_concat_check_packed_sizes(in, e->info.element_bits) < 0) {
    return -1;
  }
  if (!in->packed && e->info.output_rank > NPY_MAXDIMS) {
    PyErr_Format(PyExc_ValueError, "the output has rank %zu, above the %d NumPy supports",
                 e->info.output_rank, NPY_MAXDIMS);
    return -1;
  }
  return 0;
}

static PyObject *run_entry(const pcl_concat_entry *e, pcl_concat_inputs *in, PyObject *out,
                           int threads) {
  if (check_inputs(e, in) < 0) {
    return NULL;
  }
  PyArrayObject *into = NULL;
  PyObject *wrapper = NULL;
  if (out != NULL && pcl_concat_check_out(e, in, out, &into, &wrapper) < 0) {
    return NULL;
  }
  if (in->is_object) {
    PyObject *result = object_output(e, in, into);
    Py_XDECREF(wrapper);
    if (result != NULL && out != NULL) {
      Py_DECREF(result);
      Py_INCREF(out);
      result = out;
    }
    return result;
  }
  if (pcl_concat_inputs_contiguous(in) < 0) {
    Py_XDECREF(wrapper);
    return NULL;
  }
  int release_gil = threads > 1 || pcl_concat_inputs_bytes(in) >= PCL_RELEASE_GIL_BYTES;
  if (into == NULL) {
    return fresh_output(e, in, threads, release_gil);
  }
  int st = pcl_concat_run(e->plan, in->data, PyArray_DATA(into), threads, release_gil);
  Py_XDECREF(wrapper);
  if (st < 0) {
    return NULL;
  }
  Py_INCREF(out);
  return out;
}

PyObject *pcl_concat_execute(const pcl_concat_op *op, pcl_concat_entry *entry,
                             pcl_concat_inputs *in, PyObject *out, int threads) {
  pcl_concat_entry *e = entry;
  if (e == NULL) {
    e = pcl_concat_entry_get(op, in->tensors, (size_t)in->n);
    if (e == NULL) {
      return NULL;
    }
  } else {
    e->refs++;
  }
  PyObject *result = run_entry(e, in, out == Py_None ? NULL : out, threads);
  pcl_concat_entry_decref(e);
  return result;
}
