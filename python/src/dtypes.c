/* NumPy dtypes and cleave type names to the library's element types (see dtypes.h). */
#include "dtypes.h"

#include "errors.h"

#include <string.h>

int pcl_type_from_descr(PyArray_Descr *descr, cleave_type *type, int *is_object) {
  type->width = 0;
  *is_object = 0;
  switch (descr->type_num) {
  case NPY_BOOL:
    type->dtype = CLEAVE_BOOLEAN;
    return 0;
  case NPY_HALF:
    type->dtype = CLEAVE_F16;
    return 0;
  case NPY_FLOAT:
    type->dtype = CLEAVE_F32;
    return 0;
  case NPY_DOUBLE:
    type->dtype = CLEAVE_F64;
    return 0;
  case NPY_CFLOAT:
    type->dtype = CLEAVE_C64;
    return 0;
  case NPY_CDOUBLE:
    type->dtype = CLEAVE_C128;
    return 0;
  case NPY_STRING:
    type->dtype = CLEAVE_BYTES;
    type->width = PyDataType_ELSIZE(descr);
    return 0;
  case NPY_UNICODE:
    type->dtype = CLEAVE_UNICODE;
    type->width = PyDataType_ELSIZE(descr) / 4;
    return 0;
  case NPY_OBJECT:
    type->dtype = CLEAVE_STRING;
    *is_object = 1;
    return 0;
  case NPY_DATETIME:
  case NPY_TIMEDELTA:
    /* 64-bit counts: moved as int64. */
    type->dtype = CLEAVE_I64;
    return 0;
  default:
    break;
  }
  if (PyTypeNum_ISINTEGER(descr->type_num)) {
    int is_signed = PyTypeNum_ISSIGNED(descr->type_num);
    switch (PyDataType_ELSIZE(descr)) {
    case 1:
      type->dtype = is_signed ? CLEAVE_I8 : CLEAVE_U8;
      return 0;
    case 2:
      type->dtype = is_signed ? CLEAVE_I16 : CLEAVE_U16;
      return 0;
    case 4:
      type->dtype = is_signed ? CLEAVE_I32 : CLEAVE_U32;
      return 0;
    case 8:
      type->dtype = is_signed ? CLEAVE_I64 : CLEAVE_U64;
      return 0;
    default:
      break;
    }
  }
  if (PyDataType_ELSIZE(descr) > 0 && !PyDataType_REFCHK(descr)) {
    /* long double, complex long double, void and structured dtypes: the library has no such
     * type; their elements are moved as fixed-width bytes of the same size. */
    type->dtype = CLEAVE_BYTES;
    type->width = PyDataType_ELSIZE(descr);
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "cleave cannot split arrays of dtype %R", (PyObject *)descr);
  return -1;
}

int pcl_type_from_object(PyObject *obj, cleave_type *type, PyArray_Descr **descr, int *packed) {
  *packed = 0;
  *descr = NULL;
  if (PyUnicode_Check(obj)) {
    const char *name = PyUnicode_AsUTF8(obj);
    if (name == NULL) {
      return -1;
    }
    cleave_dtype dtype;
    if (cleave_dtype_from_name(name, &dtype, NULL) != CLEAVE_OK) {
      /* Not a cleave name: NumPy's spelling ("float32", "<i4") is tried below. */
      goto numpy;
    }
    type->dtype = dtype;
    type->width = 0;
    if (dtype == CLEAVE_BYTES || dtype == CLEAVE_UNICODE) {
      PyErr_Format(PyExc_TypeError,
                   "dtype '%s' needs a width: pass a NumPy dtype such as 'S8' or 'U8' instead",
                   name);
      return -1;
    }
    if (dtype == CLEAVE_STRING) {
      *descr = PyArray_DescrFromType(NPY_OBJECT);
      return 0;
    }
    int64_t bits;
    cleave_error err;
    if (pcl_check(cleave_type_bits(*type, &bits, NULL, &err), &err) < 0) {
      return -1;
    }
    *packed = bits < 8;
    /* NumPy's own dtype where it has one; otherwise unsigned storage of the same size. */
    static const struct {
      cleave_dtype dtype;
      int type_num;
    } natural[] = {
        {CLEAVE_BOOLEAN, NPY_BOOL},   {CLEAVE_I8, NPY_INT8},     {CLEAVE_I16, NPY_INT16},
        {CLEAVE_I32, NPY_INT32},      {CLEAVE_I64, NPY_INT64},   {CLEAVE_U16, NPY_UINT16},
        {CLEAVE_U32, NPY_UINT32},     {CLEAVE_U64, NPY_UINT64},  {CLEAVE_F16, NPY_FLOAT16},
        {CLEAVE_F32, NPY_FLOAT32},    {CLEAVE_F64, NPY_FLOAT64}, {CLEAVE_C64, NPY_COMPLEX64},
        {CLEAVE_C128, NPY_COMPLEX128}};
    for (size_t i = 0; i < sizeof natural / sizeof natural[0]; i++) {
      if (natural[i].dtype == dtype) {
        *descr = PyArray_DescrFromType(natural[i].type_num);
        return 0;
      }
    }
    int type_num = NPY_UINT8;
    switch (bits) {
    case 16:
      type_num = NPY_UINT16;
      break;
    case 32:
      type_num = NPY_UINT32;
      break;
    case 64:
      type_num = NPY_UINT64;
      break;
    case 128:
      type_num = NPY_CDOUBLE;
      break;
    default:
      break;
    }
    *descr = PyArray_DescrFromType(type_num);
    return 0;
  }
numpy:;
  PyArray_Descr *d = NULL;
  if (!PyArray_DescrConverter2(obj, &d)) {
    return -1;
  }
  if (d == NULL) {
    PyErr_SetString(PyExc_TypeError, "dtype must not be None here");
    return -1;
  }
  int is_object;
  if (pcl_type_from_descr(d, type, &is_object) < 0) {
    Py_DECREF(d);
    return -1;
  }
  *descr = d;
  return 0;
}
