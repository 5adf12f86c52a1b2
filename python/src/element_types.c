/* cleave.ElementType and its constants, the names dtype= accepts for them, and their NumPy
 * storage (see element_types.h). */
#include "element_types.h"

#include "errors.h"

#include <string.h>

typedef struct {
  PyObject_HEAD cleave_dtype dtype;
} element_type;

/* The constants: every type the library splits that NumPy has no dtype for (u3 and u6, which it
 * does not split, have none). Statically allocated, as Py_None is: the array's own reference
 * keeps each alive for the life of the process. */
static element_type constants[] = {
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_BF16},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_F8E4M3},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_F8E5M2},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_F8E4M3FNUZ},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_F8E5M2FNUZ},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_F8E8M0},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_STRING},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_U1},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_U2},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_U4},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_I4},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_NF4},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_F4E2M1},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_INT4},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_UINT4},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_INT2},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_UINT2},
    {PyObject_HEAD_INIT(&pcl_ElementTypeType) CLEAVE_FLOAT4E2M1},
};
#define CONSTANT_COUNT (sizeof constants / sizeof constants[0])

/* Other spellings of cleave's types that NumPy does not read and nobody reads otherwise:
 * PyTorch's (and ml_dtypes') names of the same formats, and the library's name of bool. (ml_dtypes'
 * float4_e2m1fn is left out: it is OpenVINO's f4e2m1 and ONNX's float4e2m1 alike.) */
static const struct {
  const char *name;
  cleave_dtype dtype;
} aliases[] = {
    {"bfloat16", CLEAVE_BF16},
    {"float8_e4m3fn", CLEAVE_F8E4M3},
    {"float8_e5m2", CLEAVE_F8E5M2},
    {"float8_e4m3fnuz", CLEAVE_F8E4M3FNUZ},
    {"float8_e5m2fnuz", CLEAVE_F8E5M2FNUZ},
    {"float8_e8m0fnu", CLEAVE_F8E8M0},
    {"boolean", CLEAVE_BOOLEAN},
};

/* The library's types NumPy has, with NumPy's type and name. */
static const struct {
  cleave_dtype dtype;
  int type_num;
  const char *numpy_name;
} numpy_types[] = {
    {CLEAVE_BOOLEAN, NPY_BOOL, "bool_"},      {CLEAVE_I8, NPY_INT8, "int8"},
    {CLEAVE_I16, NPY_INT16, "int16"},         {CLEAVE_I32, NPY_INT32, "int32"},
    {CLEAVE_I64, NPY_INT64, "int64"},         {CLEAVE_U8, NPY_UINT8, "uint8"},
    {CLEAVE_U16, NPY_UINT16, "uint16"},       {CLEAVE_U32, NPY_UINT32, "uint32"},
    {CLEAVE_U64, NPY_UINT64, "uint64"},       {CLEAVE_F16, NPY_FLOAT16, "float16"},
    {CLEAVE_F32, NPY_FLOAT32, "float32"},     {CLEAVE_F64, NPY_FLOAT64, "float64"},
    {CLEAVE_C64, NPY_COMPLEX64, "complex64"}, {CLEAVE_C128, NPY_COMPLEX128, "complex128"}};
#define NUMPY_TYPE_COUNT (sizeof numpy_types / sizeof numpy_types[0])

/* The index of dtype in numpy_types, or NUMPY_TYPE_COUNT. */
static size_t numpy_type_index(cleave_dtype dtype) {
  size_t i = 0;
  while (i < NUMPY_TYPE_COUNT && numpy_types[i].dtype != dtype) {
    i++;
  }
  return i;
}

static const char *name_of(cleave_dtype dtype) {
  const char *name = cleave_dtype_name(dtype);
  return name != NULL ? name : "?";
}

int pcl_element_type_of(PyObject *obj, cleave_dtype *dtype) {
  if (Py_TYPE(obj) != &pcl_ElementTypeType) {
    return 0;
  }
  *dtype = ((element_type *)obj)->dtype;
  return 1;
}

PyObject *pcl_element_type_object(cleave_dtype dtype) {
  for (size_t i = 0; i < CONSTANT_COUNT; i++) {
    if (constants[i].dtype == dtype) {
      return (PyObject *)&constants[i];
    }
  }
  return NULL;
}

/* ValueError for one of the library's names that NumPy's spelling reads as a byte count. */
static int ambiguous(const char *name, cleave_dtype dtype) {
  size_t i = numpy_type_index(dtype);
  if (i < NUMPY_TYPE_COUNT) {
    PyErr_Format(PyExc_ValueError,
                 "dtype '%s' is ambiguous: NumPy counts the digits of '%s' in bytes (and has no "
                 "such type), cleave in bits; for cleave's %s write '%s' (np.%s)",
                 name, name, name, numpy_types[i].numpy_name, numpy_types[i].numpy_name);
    return -1;
  }
  /* The others have constants, except the types the library does not split: say so. */
  cleave_error err = {CLEAVE_OK, ""};
  (void)cleave_type_bits(cleave_type_of(dtype), &(int64_t){0}, NULL, &err);
  PyErr_Format(PyExc_ValueError,
               "dtype '%s' is ambiguous: NumPy counts the digits of '%s' in bytes (and has no "
               "such type), cleave in bits; %s",
               name, name, err.message);
  return -1;
}

int pcl_element_type_named(const char *name, cleave_dtype *dtype) {
  for (size_t i = 0; i < CONSTANT_COUNT; i++) {
    if (strcmp(name, name_of(constants[i].dtype)) == 0) {
      *dtype = constants[i].dtype;
      return 1;
    }
  }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    if (strcmp(name, aliases[i].name) == 0) {
      *dtype = aliases[i].dtype;
      return 1;
    }
  }
  cleave_dtype d;
  if (cleave_dtype_from_name(name, &d, NULL) == CLEAVE_OK) {
    return ambiguous(name, d);
  }
  return 0;
}

int pcl_storage_descr(cleave_type type, PyArray_Descr **descr, int *packed) {
  *packed = 0;
  if (type.dtype == CLEAVE_STRING) {
    *descr = PyArray_DescrFromType(NPY_OBJECT);
    return 0;
  }
  int64_t bits;
  cleave_error err;
  if (pcl_check(cleave_type_bits(type, &bits, NULL, &err), &err) < 0) {
    return -1;
  }
  *packed = bits < 8;
  size_t i = numpy_type_index(type.dtype);
  /* Otherwise unsigned storage of the element's size (bytes for packed types). */
  int type_num = i < NUMPY_TYPE_COUNT ? numpy_types[i].type_num
                 : bits == 16         ? NPY_UINT16
                                      : NPY_UINT8;
  *descr = PyArray_DescrFromType(type_num);
  return 0;
}

static PyObject *element_type_repr(PyObject *self) {
  return PyUnicode_FromFormat("cleave.%s", name_of(((element_type *)self)->dtype));
}

static PyObject *get_name(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(name_of(((element_type *)self)->dtype));
}

static PyObject *get_bits(PyObject *self, void *closure) {
  (void)closure;
  int64_t bits;
  cleave_error err;
  cleave_type t = cleave_type_of(((element_type *)self)->dtype);
  if (pcl_check(cleave_type_bits(t, &bits, NULL, &err), &err) < 0) {
    return NULL;
  }
  return PyLong_FromLongLong(bits);
}

static PyObject *get_packed(PyObject *self, void *closure) {
  (void)closure;
  PyArray_Descr *descr;
  int packed;
  if (pcl_storage_descr(cleave_type_of(((element_type *)self)->dtype), &descr, &packed) < 0) {
    return NULL;
  }
  Py_DECREF(descr);
  return PyBool_FromLong(packed);
}

static PyObject *get_storage(PyObject *self, void *closure) {
  (void)closure;
  PyArray_Descr *descr;
  int packed;
  if (pcl_storage_descr(cleave_type_of(((element_type *)self)->dtype), &descr, &packed) < 0) {
    return NULL;
  }
  return (PyObject *)descr;
}

/* Pickled (and copied) as the constant's name in the module cleave: the same object comes back. */
static PyObject *element_type_reduce(PyObject *self, PyObject *unused) {
  (void)unused;
  return PyUnicode_FromString(name_of(((element_type *)self)->dtype));
}

static PyMethodDef element_type_methods[] = {{"__reduce__", element_type_reduce, METH_NOARGS, NULL},
                                             {NULL, NULL, 0, NULL}};

static PyGetSetDef element_type_getset[] = {
    {"name", get_name, NULL, "The library's name of the type, e.g. 'u4'.", NULL},
    {"bits", get_bits, NULL, "Bits per element (1, 2 or 4 for packed types).", NULL},
    {"packed", get_packed, NULL, "Whether several elements share a byte.", NULL},
    {"storage", get_storage, NULL,
     "The NumPy dtype elements are held in: uint8 for packed and 8-bit float types (packed data:\n"
     "the packed bytes), uint16 for bf16, object for string.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pcl_ElementTypeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cleave.ElementType",
    .tp_basicsize = sizeof(element_type),
    .tp_repr = element_type_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "An element type of cleave that NumPy has no dtype for; pass it as dtype=.\n\n"
        "The constants (cleave.<name>), as docs/operators.md section 7 names them:\n"
        "  bf16                          bfloat16 (held in uint16)\n"
        "  f8e4m3 f8e5m2 f8e4m3fnuz f8e5m2fnuz f8e8m0   the 8-bit floats (held in uint8)\n"
        "  string                        variable-length strings (object arrays of str)\n"
        "  u1 u2 u4 i4 nf4 f4e2m1        OpenVINO's packed types (u1, u2: first element in\n"
        "                                the most significant bits; the others: least)\n"
        "  int4 uint4 int2 uint2 float4e2m1   ONNX's packed types (least significant first)\n\n"
        "A dtype= str means what np.dtype reads it as ('u4' is uint32, 'i8' int64); a str NumPy\n"
        "does not read may name one of these constants ('bf16', 'uint4', 'nf4', 'string', ...)\n"
        "or give PyTorch's spelling ('bfloat16', 'float8_e4m3fn', 'float8_e5m2',\n"
        "'float8_e4m3fnuz', 'float8_e5m2fnuz', 'float8_e8m0fnu'). OpenVINO's u1, u2, u4 and i4\n"
        "are only these constants: as strings they are NumPy's uint8, uint16, uint32, int32.\n\n"
        "Example:\n"
        "    >>> cleave.uint4.bits, cleave.uint4.packed, cleave.bf16.storage\n"
        "    (4, True, dtype('uint16'))\n",
    .tp_methods = element_type_methods,
    .tp_getset = element_type_getset,
};

int pcl_add_element_types(PyObject *m) {
  if (PyType_Ready(&pcl_ElementTypeType) < 0) {
    return -1;
  }
  Py_INCREF(&pcl_ElementTypeType);
  if (PyModule_AddObject(m, "ElementType", (PyObject *)&pcl_ElementTypeType) < 0) {
    Py_DECREF(&pcl_ElementTypeType);
    return -1;
  }
  for (size_t i = 0; i < CONSTANT_COUNT; i++) {
    PyObject *c = (PyObject *)&constants[i];
    Py_INCREF(c);
    if (PyModule_AddObject(m, name_of(constants[i].dtype), c) < 0) {
      Py_DECREF(c);
      return -1;
    }
  }
  return 0;
}
