/* What cleave.Plan and cleave.ConcatPlan share (see plan_head.h). */
#include "plan_head.h"

#include "element_types.h"

#include <time.h>

void pcl_plan_head_set(pcl_plan_head *head, cleave_type t, PyArray_Descr *descr, int packed) {
  head->descr = descr;
  head->packed = packed;
  head->element_type = pcl_element_type_object(t.dtype);
  Py_XINCREF(head->element_type);
}

void pcl_plan_head_clear(pcl_plan_head *head) {
  Py_CLEAR(head->descr);
  Py_CLEAR(head->element_type);
}

PyObject *pcl_plan_get_dtype(PyObject *self, void *closure) {
  (void)closure;
  pcl_plan_head *head = (pcl_plan_head *)self;
  Py_INCREF(head->descr);
  return (PyObject *)head->descr;
}

PyObject *pcl_plan_dtype_repr(const pcl_plan_head *head) {
  if (head->element_type != NULL) {
    return PyObject_Repr(head->element_type);
  }
  PyObject *name = PyObject_Str((PyObject *)head->descr);
  PyObject *r = name == NULL ? NULL : PyObject_Repr(name);
  Py_XDECREF(name);
  return r;
}

PyObject *pcl_plan_kernels(const char *description) {
  return PyUnicode_FromString(description != NULL ? description : "");
}

PyObject *pcl_plan_seconds(int (*run)(void *ctx), void *ctx, int64_t calls) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int64_t k = 0; k < calls; k++) {
    if (run(ctx) < 0) {
      return NULL;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  return PyFloat_FromDouble(seconds / (double)calls);
}
