/* Fresh outputs from one block allocated by the library (see copies.h). */
#include "copies.h"

#include "run.h"

/* The block of library-allocated outputs, freed when the last output array goes: its outputs'
 * pointers, or, for one output (a concat's), the block itself, which needs no list. */
typedef struct {
  size_t count;
  void *outputs[];
} alloc_block;

static void alloc_block_destructor(PyObject *capsule) {
  alloc_block *b = PyCapsule_GetPointer(capsule, "cleave.outputs");
  cleave_outputs_free(b->outputs, b->count);
  PyMem_RawFree(b);
}

static void one_output_destructor(PyObject *capsule) {
  void *output = PyCapsule_GetPointer(capsule, "cleave.output");
  cleave_outputs_free(&output, 1);
}

/* Output i at `data` as an array whose base is `owner` (a new reference, or NULL). */
static PyObject *output_array(const pcl_entry *e, const pcl_inputs *in, size_t i, void *data,
                              PyObject *owner) {
  npy_intp dims[PCL_MAX_RANK + 1];
  int nd = pcl_entry_output_dims(e, i, in->packed, dims);
  PyArray_Descr *descr;
  if (in->packed) {
    descr = PyArray_DescrFromType(NPY_UINT8);
  } else {
    descr = PyArray_DESCR(in->first.array);
    Py_INCREF(descr);
  }
  PyObject *v =
      PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, data, NPY_ARRAY_WRITEABLE, NULL);
  if (v == NULL) {
    return NULL;
  }
  Py_INCREF(owner);
  if (PyArray_SetBaseObject((PyArrayObject *)v, owner) < 0) {
    Py_DECREF(v);
    return NULL;
  }
  return v;
}

/* Runs the plan into one block of the arena: the capsule that owns it (a new reference), with
 * the outputs' pointers in *outputs (pointing into the capsule's block or at `one`). */
static PyObject *run_into_block(const pcl_entry *e, pcl_inputs *in, int threads, size_t n,
                                void **one, void ***outputs) {
  int64_t bytes = pcl_inputs_bytes(in);
  if (n == 1) {
    *outputs = one;
    if (pcl_run_alloc(e, in->data, one, threads, bytes) < 0) {
      return NULL;
    }
    PyObject *owner = PyCapsule_New(*one, "cleave.output", one_output_destructor);
    if (owner == NULL) {
      cleave_outputs_free(one, 1);
    }
    return owner;
  }
  alloc_block *b = n >= ((size_t)PY_SSIZE_T_MAX - sizeof *b) / sizeof(void *)
                       ? NULL
                       : PyMem_RawCalloc(1, sizeof *b + (n + 1) * sizeof(void *));
  if (b == NULL) {
    return PyErr_NoMemory();
  }
  b->count = n;
  if (pcl_run_alloc(e, in->data, b->outputs, threads, bytes) < 0) {
    PyMem_RawFree(b);
    return NULL;
  }
  PyObject *owner = PyCapsule_New(b, "cleave.outputs", alloc_block_destructor);
  if (owner == NULL) {
    cleave_outputs_free(b->outputs, n);
    PyMem_RawFree(b);
  }
  *outputs = b->outputs;
  return owner;
}

PyObject *pcl_copy_alloc(const pcl_entry *e, pcl_inputs *in, const pcl_request *req) {
  if (pcl_inputs_contiguous(in) < 0) {
    return NULL;
  }
  size_t n = pcl_entry_num_outputs(e);
  void *one = NULL, **outputs = NULL;
  PyObject *owner = run_into_block(e, in, req->threads, n, &one, &outputs);
  if (owner == NULL) {
    return NULL;
  }
  PyObject *result;
  if (req->returns == PCL_RETURNS_ONE) {
    result = output_array(e, in, 0, outputs[0], owner);
    result = result == NULL ? NULL : pcl_hand_back(&in->first, result);
  } else {
    result = pcl_new_sequence(req, (Py_ssize_t)n);
    for (size_t i = 0; result != NULL && i < n; i++) {
      PyObject *v = output_array(e, in, i, outputs[i], owner);
      if (v == NULL) {
        Py_CLEAR(result);
        break;
      }
      pcl_sequence_set(req, result, (Py_ssize_t)i, v);
    }
    result = pcl_finish(&in->first, req, result);
  }
  Py_DECREF(owner);
  return result;
}
