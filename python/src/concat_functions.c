/* cleave.concat and cleave.concat_from_sequence (see concat_functions.h). */
#include "concat_functions.h"

#include "args.h"
#include "concat_execute.h"
#include "concat_inputs.h"
#include "concat_op.h"

#define CONCAT_COMMON_DOC                                                                          \
  "Keywords:\n"                                                                                    \
  "  out=x      write the output into this C-contiguous array of the output's dtype (exactly:\n"   \
  "             no casting) and shape, which must not share memory with any input (checked\n"      \
  "             before anything is written; np.concatenate(out=) would read inputs it had\n"       \
  "             already overwritten); returns it.\n"                                               \
  "  threads=n  copy on the library's pool of n threads (the GIL is released for copies of\n"      \
  "             1 MiB and more and whenever n > 1).\n"                                             \
  "  dtype=, shapes=  the inputs' element type where their dtype does not say it, as dtype= of\n"  \
  "             the splits: a NumPy dtype or one of cleave's types NumPy lacks (cleave.bf16,\n"    \
  "             ...). Same-sized elements are reinterpreted, never converted (np.concatenate's\n"  \
  "             dtype= casts). For a packed type (cleave.u4, cleave.int4, ...) every input is a\n" \
  "             uint8 buffer of packed elements, shapes= gives each input's logical shape, and\n"  \
  "             the output is a uint8 array of the output's packed bytes.\n\n"                     \
  "arrays: a list or tuple of NumPy arrays of one dtype (S/U strings; object arrays of str give\n" \
  "the same str objects), objects with the buffer protocol, or tensors with __dlpack__ (CPU\n"     \
  "memory: torch tensors, bfloat16 and bool included). The output is a fresh C-contiguous array\n" \
  "from the module's output arena (see set_arena_limit), of the first input's kind (a torch\n"     \
  "tensor when the first input is one). Non-contiguous inputs are made contiguous first.\n\n"      \
  "Errors: cleave.Error (a ValueError) with .status, .status_name and .message, the C library's\n" \
  "message naming the input and dimension at fault; MemoryError when memory runs out; TypeError\n" \
  "for arguments of the wrong Python type.\n"

const char pcl_concat_doc[] =
    "concat(arrays, axis=0, *, out=None, opset=None, threads=None, dtype=None, shapes=None)\n"
    "--\n\n"
    "np.concatenate and torch.cat, but one dtype exactly (nothing is cast) and, with opset 1-3\n"
    "(ONNX Concat-1), a default axis of 1.\n\n"
    "Joins the arrays along an existing axis: every input has the first's rank and dims except\n"
    "on axis, where the output has their sum. opset=None is OpenVINO Concat-1 (every element\n"
    "type, axis in [-rank, rank)); a number is the ONNX Concat in force at that opset (Concat-1,\n"
    "-4, -11, -13: their type lists, no negative axis before 11, and Concat-1's own default\n"
    "axis 1 when axis is not given). Unlike np.concatenate: no type promotion (float32 with\n"
    "float64, or two byte orders, is an error), no axis=None (flattening), and arrays is a list\n"
    "or tuple, not one array whose rows are joined. Returns one array.\n\n"
    "Example:\n"
    "    >>> cleave.concat([numpy.zeros((2, 1)), numpy.ones((2, 2))], axis=1)\n"
    "    array([[0., 1., 1.],\n"
    "           [0., 1., 1.]])\n\n" CONCAT_COMMON_DOC;

const char pcl_concat_from_sequence_doc[] =
    "concat_from_sequence(arrays, axis, new_axis=0, *, out=None, opset=11, threads=None,\n"
    "                     dtype=None, shapes=None)\n"
    "--\n\n"
    "ONNX ConcatFromSequence-11: new_axis=0 is concat, new_axis=1 is np.stack and torch.stack;\n"
    "unlike them, axis has no default.\n\n"
    "new_axis=False or 0 joins the arrays along axis (in [-rank, rank)), as concat does;\n"
    "new_axis=True or 1 stacks arrays of one shape along a new axis inserted at axis (in\n"
    "[-rank-1, rank]). The fifteen ONNX tensor types (no bfloat16). It undoes\n"
    "split_to_sequence(x, axis=axis, keepdims=False) with new_axis=1. Returns one array.\n\n"
    "Example:\n"
    "    >>> cleave.concat_from_sequence([numpy.arange(3), numpy.arange(3)], 0, new_axis=1)\n"
    "    array([[0, 1, 2],\n"
    "           [0, 1, 2]])\n\n" CONCAT_COMMON_DOC;

/* The keywords both functions take after their own, and their count. */
#define COMMON_NAMES "out", "threads", "dtype", "shapes"
#define COMMON_COUNT 4

static PyObject *run(cleave_concat_kind kind, pcl_params *params, PyObject *const *args,
                     Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *slots[1 + PCL_CONCAT_MAX_PARAMS + COMMON_COUNT];
  if (pcl_parse_args(params, args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  int np = pcl_concat_param_count[kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE];
  PyObject **common = slots + 1 + np;
  int threads;
  if (pcl_threads(common[1], &threads) < 0) {
    return NULL;
  }
  pcl_concat_op op;
  if (pcl_concat_build_op(kind, slots + 1, &op, NULL) < 0) {
    return NULL;
  }
  pcl_concat_inputs in;
  PyObject *result = NULL;
  if (pcl_concat_inputs_acquire(slots[0], common[2], common[3], &in) == 0) {
    result = pcl_concat_execute(&op, NULL, &in, common[0], threads);
  }
  pcl_concat_inputs_release(&in);
  return result;
}

PyObject *pcl_concat(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"arrays", "axis", "opset", COMMON_NAMES};
  static PyObject *interned[sizeof names / sizeof names[0]];
  static pcl_params params = {"concat", names, (int)(sizeof names / sizeof names[0]),
                              2,        1,     interned};
  return run(CLEAVE_OP_CONCAT, &params, args, nargs, kwnames);
}

PyObject *pcl_concat_from_sequence(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"arrays", "axis", "new_axis", "opset", COMMON_NAMES};
  static PyObject *interned[sizeof names / sizeof names[0]];
  static pcl_params params = {
      "concat_from_sequence", names, (int)(sizeof names / sizeof names[0]), 3, 2, interned};
  return run(CLEAVE_OP_CONCAT_FROM_SEQUENCE, &params, args, nargs, kwnames);
}
