/* cleave.split, variadic_split, split_to_sequence and onnx_split (see functions.h). */
#include "functions.h"

#include "args.h"
#include "execute.h"
#include "input.h"
#include "op_params.h"

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
  "  dtype=, shape=  x's element type where x's dtype does not say it: a NumPy dtype (a str\n"     \
  "              means what np.dtype reads: 'u4' is uint32, 'i8' int64) or one of cleave's\n"      \
  "              types NumPy lacks (cleave.bf16, cleave.uint4, ...: help(cleave.ElementType)).\n"  \
  "              Same-sized elements are reinterpreted (dtype=cleave.bf16 on uint16 data); for\n"  \
  "              a packed type (cleave.u4, cleave.int4, ...) x is a uint8 buffer of the packed\n"  \
  "              elements, shape= their logical shape, and the outputs are uint8 arrays of\n"      \
  "              each output's packed bytes.\n\n"                                                  \
  "x: a NumPy array of any dtype (S/U strings, object arrays of str: outputs share the str\n"      \
  "objects), any object with the buffer protocol, or a tensor with __dlpack__ (CPU memory; the\n"  \
  "outputs are handed back as the same kind, e.g. torch tensors, bfloat16 included, without a\n"   \
  "copy; a tensor whose DLPack export is refused, as PyTorch 1.13 refuses bool, comes through\n"   \
  "NumPy's array protocol when that shares its memory). A non-contiguous x gives views\n"          \
  "directly; copies first make it contiguous (one extra copy).\n\n"                                \
  "Errors: cleave.Error (a ValueError) with .status, .status_name and .message, the C library's\n" \
  "message; MemoryError (with the same attributes) when memory runs out; TypeError for\n"          \
  "arguments of the wrong Python type.\n"

const char pcl_split_doc[] =
    "split(x, num_splits, axis=0, *, copy=None, out=None, threads=None, dtype=None, shape=None)\n"
    "--\n\n"
    "OpenVINO Split-1: num_splits equal parts (a count, as np.split; torch.split takes a size).\n\n"
    "x into num_splits equal parts along axis: cleave.split(x, 2) is two halves, where\n"
    "torch.split(x, 2) gives parts of size 2. Unlike np.split, a list is not accepted (for\n"
    "lengths use variadic_split).\n\n"
    "Rules: axis in [-rank, rank); num_splits >= 1 divides x.shape[axis]. Returns a tuple.\n\n"
    "Example:\n"
    "    >>> cleave.split(numpy.arange(6), 3)\n"
    "    (array([0, 1]), array([2, 3]), array([4, 5]))\n\n" COMMON_DOC;

const char pcl_variadic_split_doc[] =
    "variadic_split(x, split_lengths, axis=0, *, copy=None, out=None, threads=None, dtype=None,\n"
    "               shape=None)\n"
    "--\n\n"
    "OpenVINO VariadicSplit-1: x into parts of split_lengths along axis.\n\n"
    "The lengths are sizes, as torch.split(x, [sizes]) takes them (np.split takes the indices\n"
    "where to cut).\n\n"
    "Rules: lengths are >= 0 except one -1 (the rest of the axis); they sum to\n"
    "x.shape[axis]. Returns a tuple.\n\n"
    "Example:\n"
    "    >>> [p.shape for p in cleave.variadic_split(numpy.zeros((6, 4)), [1, -1, 2])]\n"
    "    [(1, 4), (3, 4), (2, 4)]\n\n" COMMON_DOC;

const char pcl_split_to_sequence_doc[] =
    "split_to_sequence(x, split=None, axis=0, keepdims=True, opset=24, *, copy=None, out=None,\n"
    "                  threads=None, dtype=None, shape=None)\n"
    "--\n\n"
    "ONNX SplitToSequence-11/-24 at `opset`: returns a list.\n\n"
    "Rules: split None gives parts of length 1 (without the axis when keepdims is False or 0);\n"
    "an int gives parts of that length, as torch.split(x, n) does (the last may be shorter; not\n"
    "np.split's count); a list gives those lengths (they sum to x.shape[axis]).\n\n"
    "Example:\n"
    "    >>> cleave.split_to_sequence(numpy.arange(5), 2)\n"
    "    [array([0, 1]), array([2, 3]), array([4])]\n\n" COMMON_DOC;

const char pcl_onnx_split_doc[] =
    "onnx_split(x, split=None, axis=0, num_outputs=None, opset=18, *, copy=None, out=None,\n"
    "           threads=None, dtype=None, shape=None)\n"
    "--\n\n"
    "ONNX Split-1/2/11/13/18 at `opset` (the version in force there). Returns a tuple.\n\n"
    "Rules: split gives the lengths (sizes >= 0 summing to x.shape[axis]; np.split would take\n"
    "cut indices); otherwise num_outputs parts (at opset 18 the last may be smaller: ceil\n"
    "division); below opset 18 num_outputs is the node's output count.\n\n"
    "Example:\n"
    "    >>> cleave.onnx_split(numpy.arange(5), num_outputs=2)\n"
    "    (array([0, 1, 2]), array([3, 4]))\n\n" COMMON_DOC;

/* The keywords every operator function takes after its own. */
#define COMMON_NAMES "copy", "out", "threads", "dtype", "shape"
#define COMMON_COUNT 5

static PyObject *run(cleave_op_kind kind, pcl_params *params, PyObject *const *args,
                     Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *slots[1 + PCL_MAX_OP_PARAMS + COMMON_COUNT];
  if (pcl_parse_args(params, args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  int np = pcl_op_param_count[kind];
  PyObject **common = slots + 1 + np;
  pcl_request req;
  req.out = common[1];
  req.as_list = kind == CLEAVE_OP_SPLIT_TO_SEQUENCE;
  if (pcl_copy_mode(common[0], &req.copy) < 0 || pcl_threads(common[2], &req.threads) < 0) {
    return NULL;
  }
  pcl_op op;
  if (pcl_build_op(kind, slots + 1, &op, NULL) < 0) {
    pcl_op_clear(&op);
    return NULL;
  }
  pcl_input in;
  if (pcl_input_acquire(slots[0], common[3], common[4], &in) < 0) {
    pcl_op_clear(&op);
    return NULL;
  }
  PyObject *result = pcl_execute(&op, NULL, &in, &req);
  pcl_input_release(&in);
  pcl_op_clear(&op);
  return result;
}

#define DEFINE_OP(fn, kind, pyname, required, ...)                                                 \
  PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {       \
    (void)self;                                                                                    \
    static const char *const names[] = {"x", __VA_ARGS__, COMMON_NAMES};                           \
    static PyObject *interned[sizeof names / sizeof names[0]];                                     \
    static pcl_params params = {                                                                   \
        pyname,   names,   (int)(sizeof names / sizeof names[0]), 1 + pcl_op_param_count_##kind,   \
        required, interned};                                                                       \
    return run(kind, &params, args, nargs, kwnames);                                               \
  }

enum {
  pcl_op_param_count_CLEAVE_OP_SPLIT = 2,
  pcl_op_param_count_CLEAVE_OP_VARIADIC_SPLIT = 2,
  pcl_op_param_count_CLEAVE_OP_SPLIT_TO_SEQUENCE = 4,
  pcl_op_param_count_CLEAVE_OP_ONNX_SPLIT = 4
};

DEFINE_OP(pcl_split, CLEAVE_OP_SPLIT, "split", 2, "num_splits", "axis")
DEFINE_OP(pcl_variadic_split, CLEAVE_OP_VARIADIC_SPLIT, "variadic_split", 2, "split_lengths",
          "axis")
DEFINE_OP(pcl_split_to_sequence, CLEAVE_OP_SPLIT_TO_SEQUENCE, "split_to_sequence", 1, "split",
          "axis", "keepdims", "opset")
DEFINE_OP(pcl_onnx_split, CLEAVE_OP_ONNX_SPLIT, "onnx_split", 1, "split", "axis", "num_outputs",
          "opset")
