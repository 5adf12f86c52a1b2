/*
 * DLPack in both directions: tensors of any producer with __dlpack__ come in as NumPy arrays over
 * the producer's memory, and outputs go back to the producer's kind (its from_dlpack) through a
 * small exporter object, so that neither direction copies.
 *
 * The structs below are the DLPack ABI (v0.x, the version PyTorch 1.13 and NumPy 1.24 speak),
 * declared from its specification: Debian ships no dlpack header.
 */
#include "dlpack.h"

#include <string.h>

typedef struct {
  int32_t device_type; /* 1: CPU */
  int32_t device_id;
} DLDevice;

typedef struct {
  uint8_t code; /* 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool */
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; /* in elements; NULL: C-contiguous */
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_COMPLEX = 5, DL_BOOL = 6 };
enum { DL_CPU = 1 };

/* The library's type and NumPy's storage type for a DLPack dtype. */
static int map_dtype(DLDataType dt, cleave_type *type, int *type_num) {
  type->width = 0;
  if (dt.lanes != 1) {
    goto unsupported;
  }
  switch (dt.code * 1000 + dt.bits) {
  case DL_INT * 1000 + 8:
    type->dtype = CLEAVE_I8;
    *type_num = NPY_INT8;
    return 0;
  case DL_INT * 1000 + 16:
    type->dtype = CLEAVE_I16;
    *type_num = NPY_INT16;
    return 0;
  case DL_INT * 1000 + 32:
    type->dtype = CLEAVE_I32;
    *type_num = NPY_INT32;
    return 0;
  case DL_INT * 1000 + 64:
    type->dtype = CLEAVE_I64;
    *type_num = NPY_INT64;
    return 0;
  case DL_UINT * 1000 + 8:
    type->dtype = CLEAVE_U8;
    *type_num = NPY_UINT8;
    return 0;
  case DL_UINT * 1000 + 16:
    type->dtype = CLEAVE_U16;
    *type_num = NPY_UINT16;
    return 0;
  case DL_UINT * 1000 + 32:
    type->dtype = CLEAVE_U32;
    *type_num = NPY_UINT32;
    return 0;
  case DL_UINT * 1000 + 64:
    type->dtype = CLEAVE_U64;
    *type_num = NPY_UINT64;
    return 0;
  case DL_FLOAT * 1000 + 16:
    type->dtype = CLEAVE_F16;
    *type_num = NPY_FLOAT16;
    return 0;
  case DL_FLOAT * 1000 + 32:
    type->dtype = CLEAVE_F32;
    *type_num = NPY_FLOAT32;
    return 0;
  case DL_FLOAT * 1000 + 64:
    type->dtype = CLEAVE_F64;
    *type_num = NPY_FLOAT64;
    return 0;
  case DL_BFLOAT * 1000 + 16:
    type->dtype = CLEAVE_BF16;
    *type_num = NPY_UINT16;
    return 0;
  case DL_COMPLEX * 1000 + 64:
    type->dtype = CLEAVE_C64;
    *type_num = NPY_COMPLEX64;
    return 0;
  case DL_COMPLEX * 1000 + 128:
    type->dtype = CLEAVE_C128;
    *type_num = NPY_COMPLEX128;
    return 0;
  case DL_BOOL * 1000 + 8:
    type->dtype = CLEAVE_BOOLEAN;
    *type_num = NPY_BOOL;
    return 0;
  default:
    break;
  }
unsupported:
  PyErr_Format(PyExc_TypeError, "DLPack dtype (code %d, %d bits, %d lanes) is not supported",
               (int)dt.code, (int)dt.bits, (int)dt.lanes);
  return -1;
}

/* Owner of an imported tensor: calls the producer's deleter when the last view goes. */
static void managed_capsule_destructor(PyObject *capsule) {
  DLManagedTensor *m = PyCapsule_GetPointer(capsule, "cleave.dltensor");
  if (m != NULL && m->deleter != NULL) {
    m->deleter(m);
  }
}

int pcl_dlpack_import(PyObject *obj, pcl_input *in) {
  PyObject *capsule = PyObject_CallMethodNoArgs(obj, pcl_module_state.str_dlpack);
  if (capsule == NULL) {
    return -1;
  }
  DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
  if (m == NULL) {
    Py_DECREF(capsule);
    return -1;
  }
  DLTensor *t = &m->dl_tensor;
  int type_num = 0;
  if (t->device.device_type != DL_CPU) {
    Py_DECREF(capsule);
    PyErr_Format(PyExc_TypeError,
                 "x is a DLPack tensor on device type %d; cleave splits tensors in CPU memory",
                 (int)t->device.device_type);
    return -1;
  }
  if (t->ndim < 0 || t->ndim > NPY_MAXDIMS) {
    Py_DECREF(capsule);
    PyErr_Format(PyExc_ValueError, "DLPack tensor of rank %d is not supported", (int)t->ndim);
    return -1;
  }
  if (map_dtype(t->dtype, &in->type, &type_num) < 0) {
    Py_DECREF(capsule);
    return -1;
  }
  /* From here the tensor is ours: the producer's capsule must no longer delete it. */
  if (PyCapsule_SetName(capsule, "used_dltensor") < 0) {
    Py_DECREF(capsule);
    return -1;
  }
  Py_DECREF(capsule);
  PyObject *owner = PyCapsule_New(m, "cleave.dltensor", managed_capsule_destructor);
  if (owner == NULL) {
    if (m->deleter != NULL) {
      m->deleter(m);
    }
    return -1;
  }
  npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
  int64_t itemsize = t->dtype.bits / 8;
  for (int i = 0; i < t->ndim; i++) {
    dims[i] = (npy_intp)t->shape[i];
  }
  if (t->strides != NULL) {
    for (int i = 0; i < t->ndim; i++) {
      strides[i] = (npy_intp)(t->strides[i] * itemsize);
    }
  } else {
    npy_intp s = (npy_intp)itemsize;
    for (int i = t->ndim - 1; i >= 0; i--) {
      strides[i] = s;
      s *= dims[i] > 0 ? dims[i] : 1;
    }
  }
  char *data = (char *)t->data + t->byte_offset;
  PyArray_Descr *descr = PyArray_DescrFromType(type_num);
  PyObject *array = PyArray_NewFromDescr(&PyArray_Type, descr, t->ndim, dims, strides, data,
                                         NPY_ARRAY_WRITEABLE, NULL);
  if (array == NULL) {
    Py_DECREF(owner);
    return -1;
  }
  if (PyArray_SetBaseObject((PyArrayObject *)array, owner) < 0) { /* steals owner */
    Py_DECREF(array);
    return -1;
  }
  in->array = (PyArrayObject *)array;
  in->dl_code = t->dtype.code;
  in->dl_bits = t->dtype.bits;
  return 0;
}

/* --- Export --- */

/* A NumPy array offered through __dlpack__ with the DLPack dtype of the caller's tensor. */
typedef struct {
  PyObject_HEAD PyObject *array;
  int code;
  int bits;
} exporter;

typedef struct {
  DLManagedTensor managed;
  int64_t shape[NPY_MAXDIMS];
  int64_t strides[NPY_MAXDIMS];
} export_block;

static void export_deleter(DLManagedTensor *m) {
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_XDECREF((PyObject *)m->manager_ctx);
  PyMem_RawFree(m);
  PyGILState_Release(gil);
}

static void export_capsule_destructor(PyObject *capsule) {
  /* Only a capsule nobody consumed still owns its tensor. */
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
    m->deleter(m);
  }
}

static PyObject *exporter_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
  (void)args;
  (void)nargs;
  (void)kwnames; /* stream= is meaningless for CPU memory */
  exporter *e = (exporter *)self;
  PyArrayObject *a = (PyArrayObject *)e->array;
  export_block *b = PyMem_RawCalloc(1, sizeof *b);
  if (b == NULL) {
    return PyErr_NoMemory();
  }
  int nd = PyArray_NDIM(a);
  npy_intp itemsize = PyArray_ITEMSIZE(a);
  for (int i = 0; i < nd; i++) {
    b->shape[i] = PyArray_DIM(a, i);
    b->strides[i] = itemsize > 0 ? PyArray_STRIDE(a, i) / itemsize : 0;
  }
  DLTensor *t = &b->managed.dl_tensor;
  t->data = PyArray_DATA(a);
  t->device.device_type = DL_CPU;
  t->ndim = nd;
  t->dtype.code = (uint8_t)e->code;
  t->dtype.bits = (uint8_t)e->bits;
  t->dtype.lanes = 1;
  t->shape = b->shape;
  t->strides = b->strides;
  Py_INCREF(e->array);
  b->managed.manager_ctx = e->array;
  b->managed.deleter = export_deleter;
  PyObject *capsule = PyCapsule_New(&b->managed, "dltensor", export_capsule_destructor);
  if (capsule == NULL) {
    Py_DECREF(e->array);
    PyMem_RawFree(b);
  }
  return capsule;
}

static PyObject *exporter_device(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return Py_BuildValue("(ii)", DL_CPU, 0);
}

static void exporter_dealloc(PyObject *self) {
  Py_XDECREF(((exporter *)self)->array);
  Py_TYPE(self)->tp_free(self);
}

static PyMethodDef exporter_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))exporter_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "A DLPack capsule of the output (CPU memory, no copy)."},
    {"__dlpack_device__", exporter_device, METH_NOARGS, "(1, 0): CPU memory."},
    {NULL, NULL, 0, NULL}};

PyTypeObject pcl_DLPackExporterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cleave._cleave.DLPackExporter",
    .tp_basicsize = sizeof(exporter),
    .tp_dealloc = exporter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An output offered through DLPack (internal).",
    .tp_methods = exporter_methods,
};

PyObject *pcl_dlpack_export(const pcl_input *in, PyObject *array) {
  if (in->from_dlpack == NULL) {
    /* A producer without from_dlpack gets NumPy arrays (bfloat16 as its uint16 storage). */
    return array;
  }
  exporter *e = PyObject_New(exporter, &pcl_DLPackExporterType);
  if (e == NULL) {
    Py_DECREF(array);
    return NULL;
  }
  e->array = array; /* the stolen reference */
  e->code = in->dl_code;
  e->bits = in->dl_bits;
  PyObject *result = PyObject_CallOneArg(in->from_dlpack, (PyObject *)e);
  Py_DECREF(e);
  return result;
}
