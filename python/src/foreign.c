/* Other libraries' tensors (see foreign.h). */
#include "foreign.h"

#include "dlpack.h"

/* The function `name` of obj's top-level module (a new reference), or NULL. */
static PyObject *producer_function(PyObject *obj, const char *name) {
  PyObject *modname = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__module__");
  if (modname == NULL || !PyUnicode_Check(modname)) {
    Py_XDECREF(modname);
    PyErr_Clear();
    return NULL;
  }
  PyObject *dot = PyUnicode_FromString(".");
  PyObject *parts = dot == NULL ? NULL : PyUnicode_Split(modname, dot, 1);
  Py_XDECREF(dot);
  Py_DECREF(modname);
  if (parts == NULL) {
    PyErr_Clear();
    return NULL;
  }
  PyObject *module = PyImport_GetModule(PyList_GET_ITEM(parts, 0));
  Py_DECREF(parts);
  if (module == NULL) {
    PyErr_Clear();
    return NULL;
  }
  PyObject *fn = PyObject_GetAttrString(module, name);
  Py_DECREF(module);
  if (fn == NULL) {
    PyErr_Clear();
  }
  return fn;
}

/* Whether `a`, from obj's __array__, is a view of obj's memory rather than a copy (a copy would
 * leave out= arrays unwritten and views detached): it must not own its data and, for objects
 * that tell their address (PyTorch's data_ptr()), start there. */
static int views_memory_of(PyObject *obj, PyArrayObject *a) {
  if (PyArray_CHKFLAGS(a, NPY_ARRAY_OWNDATA) || PyArray_BASE(a) == NULL) {
    return 0;
  }
  PyObject *ptr = PyObject_CallMethod(obj, "data_ptr", NULL);
  if (ptr == NULL) {
    PyErr_Clear();
    return 1;
  }
  void *address = PyLong_AsVoidPtr(ptr);
  Py_DECREF(ptr);
  if (address == NULL && PyErr_Occurred()) {
    PyErr_Clear();
    return 0;
  }
  return address == PyArray_DATA(a) || PyArray_SIZE(a) == 0;
}

/* obj through NumPy's array protocol, if that gives a view of obj's memory; NULL otherwise. */
static PyArrayObject *shared_array(PyObject *obj) {
  if (!PyObject_HasAttrString(obj, "__array__")) {
    return NULL;
  }
  PyObject *a = PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
  if (a == NULL) {
    PyErr_Clear();
    return NULL;
  }
  if (!PyArray_Check(a) || !views_memory_of(obj, (PyArrayObject *)a)) {
    Py_DECREF(a);
    return NULL;
  }
  return (PyArrayObject *)a;
}

int pcl_foreign_wrap(PyObject *obj, pcl_input *in) {
  in->dl_code = -1;
  if (pcl_dlpack_import(obj, in) == 0) {
    return 0;
  }
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  in->array = shared_array(obj);
  if (in->array == NULL) {
    PyErr_Restore(type, value, traceback); /* the refusal says what to do (detach(), ...) */
    return -1;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  return 0;
}

void pcl_foreign_hand_back(PyObject *obj, pcl_input *in) {
  if (in->dl_code >= 0) {
    in->from_dlpack = producer_function(obj, "from_dlpack");
  } else {
    in->from_numpy = producer_function(obj, "from_numpy");
  }
}
