/* The module state and NumPy's C API table (see state.h). */
#define PCL_IMPORT_ARRAY
#include "state.h"

pcl_state pcl_module_state = {.arena_limit = PCL_ARENA_DEFAULT_LIMIT};

_Static_assert(sizeof(npy_intp) == sizeof(int64_t), "npy_intp must be int64_t");
_Static_assert(NPY_MAXDIMS <= PCL_MAX_RANK, "PCL_MAX_RANK must cover NumPy's ranks");

static const char error_doc[] =
    "An operator's rule was broken (or the binding refused a value).\n\n"
    "Attributes: status (the C library's cleave_status number), status_name (e.g. 'invalid "
    "axis') and message (the library's one-line message, naming the value and the rule).";

static PyObject *unknown_repr(PyObject *self) {
  (void)self;
  return PyUnicode_FromString("cleave.UNKNOWN");
}

static PyTypeObject unknown_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cleave.UnknownType",
    .tp_basicsize = sizeof(PyObject),
    .tp_repr = unknown_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The type of cleave.UNKNOWN: a value known to exist but not known (infer).",
};

int pcl_state_init(void) {
  import_array1(-1);
  pcl_state *s = &pcl_module_state;
  if (s->error_type == NULL) {
    s->error_type = PyErr_NewExceptionWithDoc("cleave.Error", error_doc, PyExc_ValueError, NULL);
    if (s->error_type == NULL) {
      return -1;
    }
  }
  if (s->str_dlpack == NULL) {
    s->str_dlpack = PyUnicode_InternFromString("__dlpack__");
    if (s->str_dlpack == NULL) {
      return -1;
    }
  }
  if (s->unknown == NULL) {
    if (PyType_Ready(&unknown_type) < 0) {
      return -1;
    }
    s->unknown = PyObject_New(PyObject, &unknown_type);
    if (s->unknown == NULL) {
      return -1;
    }
  }
  return 0;
}
