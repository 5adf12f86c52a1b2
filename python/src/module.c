/* The _cleave extension module: method table, cleave.Error, cleave.UNKNOWN, initialisation. */
#define PCL_IMPORT_ARRAY
#include "module.h"

#include "lib.h"
#include "plan_cache.h"

#include <stddef.h>

pcl_state pcl_module_state;

_Static_assert(sizeof(npy_intp) == sizeof(int64_t), "npy_intp must be int64_t");
_Static_assert(NPY_MAXDIMS <= PCL_MAX_RANK, "PCL_MAX_RANK must cover NumPy's ranks");
_Static_assert(sizeof(pcl_dim) == sizeof(cleave_dim) &&
                   offsetof(pcl_dim, hi) == offsetof(cleave_dim, hi),
               "pcl_dim mirrors cleave_dim");

#define COMMON_DOC                                                                                 \
  "Keywords of every operator function:\n"                                                         \
  "  copy=None   views of x where possible (as np.split and torch.split return)\n"                 \
  "  copy=True   fresh C-contiguous arrays, all in one block allocated by the library\n"           \
  "              from the module's output arena (see set_arena_limit)\n"                           \
  "  copy=False  views, or an error\n"                                                             \
  "  out=[...]   write the outputs into these preallocated C-contiguous arrays (the outputs'\n"    \
  "              dtype and shapes, not overlapping x or each other); returns them. On any\n"       \
  "              error nothing is written.\n"                                                      \
  "  threads=n   copy on the library's pool of n threads (the GIL is released for copies of\n"     \
  "              1 MiB and more and whenever n > 1).\n"                                            \
  "  dtype=, shape=  packed sub-byte types (u1, u2, u4, i4, nf4, int4, ...): x is a uint8\n"       \
  "              buffer of the packed elements, shape their logical shape; outputs are uint8\n"    \
  "              arrays of each output's packed bytes. dtype= also reinterprets same-sized\n"      \
  "              elements (dtype='bf16' on uint16 data).\n\n"                                      \
  "x: a NumPy array of any dtype (S/U strings, object arrays of str: outputs share the str\n"      \
  "objects), any object with the buffer protocol, or a tensor with __dlpack__ (CPU memory; the\n"  \
  "outputs are handed back as the same kind, e.g. torch tensors, bfloat16 included, without a\n"   \
  "copy). A non-contiguous x gives views directly; copies first make it contiguous (one extra\n"   \
  "copy).\n\n"                                                                                     \
  "Errors: cleave.Error (a ValueError) with .status, .status_name and .message, the C library's\n" \
  "message; TypeError for arguments of the wrong Python type.\n"

const char pcl_split_doc[] =
    "split(x, num_splits, axis=0, *, copy=None, out=None, threads=None, dtype=None, shape=None)\n"
    "--\n\n"
    "OpenVINO Split-1: x into num_splits equal parts along axis.\n\n"
    "Rules: axis in [-rank, rank); num_splits >= 1 divides x.shape[axis]. Returns a tuple.\n\n"
    "Example:\n"
    "    >>> cleave.split(numpy.arange(6), 3)\n"
    "    (array([0, 1]), array([2, 3]), array([4, 5]))\n\n" COMMON_DOC;

const char pcl_variadic_split_doc[] =
    "variadic_split(x, split_lengths, axis=0, *, copy=None, out=None, threads=None, dtype=None,\n"
    "               shape=None)\n"
    "--\n\n"
    "OpenVINO VariadicSplit-1: x into parts of split_lengths along axis.\n\n"
    "Rules: lengths are >= 0 except one -1 (the rest of the axis); they sum to\n"
    "x.shape[axis]. Returns a tuple.\n\n"
    "Example:\n"
    "    >>> [p.shape for p in cleave.variadic_split(numpy.zeros((6, 4)), [1, -1, 2])]\n"
    "    [(1, 4), (3, 4), (2, 4)]\n\n" COMMON_DOC;

const char pcl_split_to_sequence_doc[] =
    "split_to_sequence(x, split=None, axis=0, keepdims=1, opset=24, *, copy=None, out=None,\n"
    "                  threads=None, dtype=None, shape=None)\n"
    "--\n\n"
    "ONNX SplitToSequence-11/-24 at `opset`: returns a list.\n\n"
    "Rules: split None gives parts of length 1 (without the axis when keepdims=0); an int gives\n"
    "parts of that length (the last may be shorter); a list gives those lengths (they sum to\n"
    "x.shape[axis]).\n\n"
    "Example:\n"
    "    >>> cleave.split_to_sequence(numpy.arange(5), 2)\n"
    "    [array([0, 1]), array([2, 3]), array([4])]\n\n" COMMON_DOC;

const char pcl_onnx_split_doc[] =
    "onnx_split(x, split=None, axis=0, num_outputs=None, opset=18, *, copy=None, out=None,\n"
    "           threads=None, dtype=None, shape=None)\n"
    "--\n\n"
    "ONNX Split-1/2/11/13/18 at `opset` (the version in force there). Returns a tuple.\n\n"
    "Rules: split gives the lengths (>= 0, summing to x.shape[axis]); otherwise num_outputs\n"
    "parts (at opset 18 the last may be smaller: ceil division); below opset 18 num_outputs is\n"
    "the node's output count.\n\n"
    "Example:\n"
    "    >>> cleave.onnx_split(numpy.arange(5), num_outputs=2)\n"
    "    (array([0, 1, 2]), array([3, 4]))\n\n" COMMON_DOC;

const char pcl_infer_doc[] = "_infer(operator, shape, dtype, params)\n--\n\n"
                             "Shape inference (use cleave.infer).";

static PyObject *version(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(pcl_version());
}

static PyMethodDef methods[] = {
    {"split", (PyCFunction)(void (*)(void))pcl_split, METH_FASTCALL | METH_KEYWORDS, pcl_split_doc},
    {"variadic_split", (PyCFunction)(void (*)(void))pcl_variadic_split,
     METH_FASTCALL | METH_KEYWORDS, pcl_variadic_split_doc},
    {"split_to_sequence", (PyCFunction)(void (*)(void))pcl_split_to_sequence,
     METH_FASTCALL | METH_KEYWORDS, pcl_split_to_sequence_doc},
    {"onnx_split", (PyCFunction)(void (*)(void))pcl_onnx_split, METH_FASTCALL | METH_KEYWORDS,
     pcl_onnx_split_doc},
    {"_infer", (PyCFunction)(void (*)(void))pcl_infer_fn, METH_FASTCALL | METH_KEYWORDS,
     pcl_infer_doc},
    {"library_version", version, METH_NOARGS,
     "library_version()\n--\n\nThe version of the C library built in, e.g. '0.2.0'."},
    {"set_arena_limit", pcl_set_arena_limit_fn, METH_O, pcl_set_arena_limit_doc},
    {"arena_limit", pcl_arena_limit_fn, METH_NOARGS, pcl_arena_limit_doc},
    {"trim_arena", (PyCFunction)(void (*)(void))pcl_trim_arena_fn, METH_FASTCALL,
     pcl_trim_arena_doc},
    {"arena_stats", pcl_arena_stats_fn, METH_NOARGS, pcl_arena_stats_doc},
    {NULL, NULL, 0, NULL}};

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

static const char error_doc[] =
    "An operator's rule was broken (or the binding refused a value).\n\n"
    "Attributes: status (the C library's cleave_status number), status_name (e.g. 'invalid "
    "axis') and message (the library's one-line message, naming the value and the rule).";

/* The singleton cleave.UNKNOWN. */
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

PyMODINIT_FUNC PyInit__cleave(void);
PyMODINIT_FUNC PyInit__cleave(void) {
  import_array();
  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL) {
    return NULL;
  }
  pcl_state *s = &pcl_module_state;
  s->error_type = PyErr_NewExceptionWithDoc("cleave.Error", error_doc, PyExc_ValueError, NULL);
  s->str_dlpack = PyUnicode_InternFromString("__dlpack__");
  if (s->error_type == NULL || s->str_dlpack == NULL || PyType_Ready(&unknown_type) < 0 ||
      PyType_Ready(&pcl_PlanType) < 0 || PyType_Ready(&pcl_DLPackExporterType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  s->unknown = PyObject_New(PyObject, &unknown_type);
  if (s->unknown == NULL) {
    Py_DECREF(m);
    return NULL;
  }
  Py_INCREF(s->error_type);
  Py_INCREF(s->unknown);
  Py_INCREF(&pcl_PlanType);
  if (PyModule_AddObject(m, "Error", s->error_type) < 0 ||
      PyModule_AddObject(m, "UNKNOWN", s->unknown) < 0 ||
      PyModule_AddObject(m, "Plan", (PyObject *)&pcl_PlanType) < 0 ||
      PyModule_AddIntConstant(m, "MAX_RANK", PCL_MAX_RANK) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
