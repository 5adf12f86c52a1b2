/* Fresh outputs from one block allocated by the library (see copies.h). */
#include "copies.h"

#include "errors.h"
#include "run.h"

/* The block of library-allocated outputs, freed when the last output array goes. */
typedef struct {
  size_t count;
  void *outputs[];
} alloc_block;

static void alloc_block_destructor(PyObject *capsule) {
  alloc_block *b = PyCapsule_GetPointer(capsule, "cleave.outputs");
  cleave_outputs_free(b->outputs, b->count);
  PyMem_RawFree(b);
}

static PyObject *output_array(const pcl_input *in, const pcl_entry *e, size_t i, void *data,
                              int writeable) {
  npy_intp dims[PCL_MAX_RANK];
  int nd;
  PyArray_Descr *descr;
  if (in->packed) {
    dims[0] = (npy_intp)cleave_plan_output_bytes(e->plan, i);
    nd = 1;
    descr = PyArray_DescrFromType(NPY_UINT8);
  } else {
    nd = pcl_output_dims(in, &e->info, cleave_plan_output_length(e->plan, i), dims);
    descr = PyArray_DESCR(in->array);
    Py_INCREF(descr);
  }
  return PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, data,
                              writeable ? NPY_ARRAY_WRITEABLE : 0, NULL);
}

/* Packed inputs: the buffer must hold exactly the packed stream of the logical shape. */
int pcl_check_packed_size(const pcl_input *in, const pcl_entry *e) {
  int64_t n = 1;
  for (size_t d = 0; d < in->rank; d++) {
    n *= in->shape[d]; /* the plan was created, so the element count fits in int64 */
  }
  int64_t bits = e->info.element_bits;
  int64_t need = n / 8 * bits + (n % 8 * bits + 7) / 8;
  if (PyArray_NBYTES(in->array) != need) {
    char msg[200];
    PyOS_snprintf(msg, sizeof msg,
                  "the packed input holds %lld bytes but shape and dtype need %lld",
                  (long long)PyArray_NBYTES(in->array), (long long)need);
    pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, msg);
    return -1;
  }
  return 0;
}

PyObject *pcl_copy_alloc(pcl_entry *e, pcl_input *in, const pcl_request *req) {
  size_t n = e->info.num_outputs;
  alloc_block *b = n >= ((size_t)PY_SSIZE_T_MAX - sizeof *b) / sizeof(void *)
                       ? NULL
                       : PyMem_RawCalloc(1, sizeof *b + (n + 1) * sizeof(void *));
  if (b == NULL) {
    return PyErr_NoMemory();
  }
  b->count = n;
  PyArrayObject *src = pcl_contiguous(in);
  if (src == NULL) {
    PyMem_RawFree(b);
    return NULL;
  }
  int st = pcl_run_alloc(e->plan, PyArray_DATA(src), b->outputs, req->threads,
                         pcl_release_gil(in, req->threads));
  Py_DECREF(src);
  if (st < 0) {
    PyMem_RawFree(b);
    return NULL;
  }
  PyObject *owner = PyCapsule_New(b, "cleave.outputs", alloc_block_destructor);
  if (owner == NULL) {
    cleave_outputs_free(b->outputs, n);
    PyMem_RawFree(b);
    return NULL;
  }
  PyObject *seq = pcl_new_sequence(req, (Py_ssize_t)n);
  for (size_t i = 0; seq != NULL && i < n; i++) {
    PyObject *v = output_array(in, e, i, b->outputs[i], 1);
    if (v == NULL) {
      Py_CLEAR(seq);
      break;
    }
    Py_INCREF(owner);
    if (PyArray_SetBaseObject((PyArrayObject *)v, owner) < 0) {
      Py_DECREF(v);
      Py_CLEAR(seq);
      break;
    }
    pcl_sequence_set(req, seq, (Py_ssize_t)i, v);
  }
  Py_DECREF(owner);
  return pcl_finish(in, req, seq);
}
