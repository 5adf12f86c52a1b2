/* Exceptions by status (see errors.h). */
#include "errors.h"

/* The exception class of a status: the only place that chooses one. */
static PyObject *exception_of(cleave_status status) {
  switch (status) {
  case CLEAVE_ERROR_OUT_OF_MEMORY:
    return PyExc_MemoryError;
  default:
    return pcl_module_state.error_type;
  }
}

PyObject *pcl_raise(cleave_status status, const char *message) {
  PyObject *type = exception_of(status);
  PyObject *exc = PyObject_CallFunction(type, "s", message);
  if (exc == NULL) {
    return NULL;
  }
  const char *status_name = cleave_status_name(status);
  PyObject *code = PyLong_FromLong((long)status);
  PyObject *msg = PyUnicode_FromString(message);
  PyObject *name = PyUnicode_FromString(status_name);
  if (code != NULL && msg != NULL && name != NULL &&
      PyObject_SetAttrString(exc, "status", code) == 0 &&
      PyObject_SetAttrString(exc, "message", msg) == 0 &&
      PyObject_SetAttrString(exc, "status_name", name) == 0) {
    PyErr_SetObject(type, exc);
  }
  Py_XDECREF(code);
  Py_XDECREF(msg);
  Py_XDECREF(name);
  Py_DECREF(exc);
  return NULL;
}

int pcl_check(cleave_status status, const cleave_error *err) {
  if (status == CLEAVE_OK) {
    return 0;
  }
  pcl_raise(status, err->message);
  return -1;
}
