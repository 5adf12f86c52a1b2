/* The module's operator functions, one per row of the operator table, with their docstrings
 * (see functions.h). */
#include "functions.h"

#include "args.h"
#include "execute.h"
#include "inputs.h"
#include "operators.h"

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

/* What a family's functions take besides the operator's parameters: the data (first), and the
 * keyword-only arguments after the parameters, in one order for both families so that `call`
 * finds each in the same slot: out, threads, dtype, shape(s), and a split's copy. (The order of
 * keyword-only arguments is not seen from Python; the docstrings give the signatures.) */
typedef struct family_args {
  const char *data;
  const char *keywords[5];
  int keyword_count;
} family_args;

static const family_args split_args = {"x", {"out", "threads", "dtype", "shape", "copy"}, 5};
static const family_args concat_args = {"arrays", {"out", "threads", "dtype", "shapes"}, 4};

#define MAX_ARGS (1 + PCL_MAX_OP_PARAMS + 5)

/* A function's parser, made from its row on first use. */
typedef struct function_parser {
  pcl_params params;
  const char *names[MAX_ARGS];
  PyObject *interned[MAX_ARGS];
} function_parser;

static function_parser parsers[PCL_OPERATOR_COUNT];

static pcl_params *parser_of(int index) {
  function_parser *f = &parsers[index];
  if (f->params.names == NULL) {
    const pcl_operator *row = &pcl_operators[index];
    const family_args *fa = row->family == PCL_SPLIT ? &split_args : &concat_args;
    int n = 0;
    f->names[n++] = fa->data;
    for (int i = 0; i < row->count; i++) {
      f->names[n++] = row->params[i];
    }
    for (int i = 0; i < fa->keyword_count; i++) {
      f->names[n++] = fa->keywords[i];
    }
    f->params =
        (pcl_params){row->name, f->names, n, 1 + row->positional, 1 + row->required, f->interned};
  }
  return &f->params;
}

static PyObject *call(int index, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  const pcl_operator *row = &pcl_operators[index];
  PyObject *slots[MAX_ARGS];
  if (pcl_parse_args(parser_of(index), args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  PyObject *data = slots[0], **p = slots + 1, **kw = slots + 1 + row->count;
  int split = row->family == PCL_SPLIT;
  pcl_request req = {PCL_COPY_IF_NEEDED, kw[0], 1, row->returns};
  if ((split && pcl_copy_mode(kw[4], &req.copy) < 0) || pcl_threads(kw[1], &req.threads) < 0) {
    return NULL;
  }
  pcl_op op;
  if (row->build(row, p, &op, NULL) < 0) {
    pcl_op_clear(&op);
    return NULL;
  }
  pcl_inputs in;
  PyObject *result = NULL;
  if ((split ? pcl_inputs_acquire_one(data, kw[2], kw[3], &in)
             : pcl_inputs_acquire(data, kw[2], kw[3], &in)) == 0) {
    result = pcl_execute(&op, NULL, &in, &req);
  }
  pcl_inputs_release(&in);
  pcl_op_clear(&op);
  return result;
}

#define DEFINE_FUNCTION(fn, index)                                                                 \
  PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {       \
    (void)self;                                                                                    \
    return call(index, args, nargs, kwnames);                                                      \
  }

DEFINE_FUNCTION(pcl_split, PCL_OPERATOR_SPLIT)
DEFINE_FUNCTION(pcl_variadic_split, PCL_OPERATOR_VARIADIC_SPLIT)
DEFINE_FUNCTION(pcl_split_to_sequence, PCL_OPERATOR_SPLIT_TO_SEQUENCE)
DEFINE_FUNCTION(pcl_onnx_split, PCL_OPERATOR_ONNX_SPLIT)
DEFINE_FUNCTION(pcl_concat, PCL_OPERATOR_CONCAT)
DEFINE_FUNCTION(pcl_concat_from_sequence, PCL_OPERATOR_CONCAT_FROM_SEQUENCE)
