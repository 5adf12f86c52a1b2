/* NumPy dtypes and cleave type names to the library's element types (see dtypes.h). */
#include "dtypes.h"

#include "element_types.h"

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

/* A type of cleave's own (a constant, or a name NumPy does not read). */
static int cleave_storage(cleave_dtype dtype, cleave_type *type, PyArray_Descr **descr,
                          int *packed) {
  *type = cleave_type_of(dtype);
  return pcl_storage_descr(*type, descr, packed);
}

int pcl_type_from_object(PyObject *obj, cleave_type *type, PyArray_Descr **descr, int *packed) {
  *packed = 0;
  *descr = NULL;
  cleave_dtype dtype;
  if (pcl_element_type_of(obj, &dtype)) {
    return cleave_storage(dtype, type, descr, packed);
  }
  if (obj == Py_None) {
    PyErr_SetString(PyExc_TypeError, "dtype must not be None here");
    return -1;
  }
  PyArray_Descr *d = NULL;
  if (!PyArray_DescrConverter2(obj, &d)) {
    /* Anything NumPy reads means NumPy's type; only a str it does not read may be cleave's. */
    if (!PyUnicode_Check(obj) || !PyErr_ExceptionMatches(PyExc_TypeError)) {
      return -1;
    }
    PyErr_Clear();
    const char *name = PyUnicode_AsUTF8(obj);
    int found = name == NULL ? -1 : pcl_element_type_named(name, &dtype);
    if (found == 0) {
      PyErr_Format(PyExc_TypeError,
                   "dtype '%s' is neither a NumPy dtype nor one of cleave's type names (see "
                   "help(cleave.ElementType))",
                   name);
    }
    return found <= 0 ? -1 : cleave_storage(dtype, type, descr, packed);
  }
  if (PyDataType_ISUNSIZED(d)) {
    PyErr_Format(PyExc_TypeError, "dtype %R has no size: give one, such as 'S8' or 'U8'", obj);
    Py_DECREF(d);
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
