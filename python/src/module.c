/*
 * The _cleave extension module: the method table and the initialisation, above every file they
 * name. The functions live in functions.c, infer.c and arena.c, the types in plan.c and dlpack.c,
 * what the module keeps between calls in state.c.
 */
#include "arena.h"
#include "dlpack.h"
#include "element_types.h"
#include "functions.h"
#include "ggml.h"
#include "infer.h"
#include "plan.h"
#include "plan_cache.h"
#include "pools.h"
#include "state.h"

static PyObject *version(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(cleave_version_string());
}

#define FASTCALL_KW(fn) (PyCFunction)(void (*)(void))(fn), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef methods[] = {
    {"split", FASTCALL_KW(pcl_split), pcl_split_doc},
    {"variadic_split", FASTCALL_KW(pcl_variadic_split), pcl_variadic_split_doc},
    {"split_to_sequence", FASTCALL_KW(pcl_split_to_sequence), pcl_split_to_sequence_doc},
    {"onnx_split", FASTCALL_KW(pcl_onnx_split), pcl_onnx_split_doc},
    {"concat", FASTCALL_KW(pcl_concat), pcl_concat_doc},
    {"concat_from_sequence", FASTCALL_KW(pcl_concat_from_sequence), pcl_concat_from_sequence_doc},
    {"_infer", FASTCALL_KW(pcl_infer_fn), pcl_infer_doc},
    {"library_version", version, METH_NOARGS,
     "library_version()\n--\n\nThe version of the C library built in, e.g. '0.2.0'."},
    {"set_arena_limit", pcl_set_arena_limit_fn, METH_O, pcl_set_arena_limit_doc},
    {"arena_limit", pcl_arena_limit_fn, METH_NOARGS, pcl_arena_limit_doc},
    {"trim_arena", (PyCFunction)(void (*)(void))pcl_trim_arena_fn, METH_FASTCALL,
     pcl_trim_arena_doc},
    {"arena_stats", pcl_arena_stats_fn, METH_NOARGS, pcl_arena_stats_doc},
    {"ggml_dequantize", (PyCFunction)(void (*)(void))pcl_ggml_dequantize, METH_FASTCALL,
     pcl_ggml_dequantize_doc},
    {"ggml_quantize", (PyCFunction)(void (*)(void))pcl_ggml_quantize, METH_FASTCALL,
     pcl_ggml_quantize_doc},
    {NULL, NULL, 0, NULL}};

/* Teardown: what the state holds beyond the interpreter's objects. */
static void module_free(void *module) {
  (void)module;
  pcl_plan_cache_clear();
  pcl_pools_release();
  pcl_arena_release();
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_cleave",
    "The C extension of the cleave package (import cleave, not this).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    module_free};

/* Adds a new reference to `value` to m as `name`. */
static int add(PyObject *m, const char *name, PyObject *value) {
  Py_INCREF(value);
  if (PyModule_AddObject(m, name, value) < 0) {
    Py_DECREF(value);
    return -1;
  }
  return 0;
}

PyMODINIT_FUNC PyInit__cleave(void);
PyMODINIT_FUNC PyInit__cleave(void) {
  if (pcl_state_init() < 0 || pcl_plan_types_ready() < 0 ||
      PyType_Ready(&pcl_DLPackExporterType) < 0) {
    return NULL;
  }
  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL) {
    return NULL;
  }
  const pcl_state *s = &pcl_module_state;
  if (add(m, "Error", s->error_type) < 0 || add(m, "UNKNOWN", s->unknown) < 0 ||
      add(m, "Plan", (PyObject *)&pcl_PlanType) < 0 ||
      add(m, "ConcatPlan", (PyObject *)&pcl_ConcatPlanType) < 0 ||
      PyModule_AddIntConstant(m, "MAX_RANK", PCL_MAX_RANK) < 0 || pcl_add_element_types(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
