/*
 * cleave.Plan and cleave.ConcatPlan (see plan.h). Two types, as the library has two kinds of plan
 * (a split has one input and several outputs, which may be views; a concat several inputs and
 * one output), and one implementation: the object, its construction from (operator, shapes,
 * dtype, **params), its runs, the timing loop and the getters are shared; the types differ in
 * what they call their inputs and outputs, in their methods' docstrings and in their reprs.
 */
#include "plan.h"

#include "args.h"
#include "dtypes.h"
#include "element_types.h"
#include "errors.h"
#include "execute.h"
#include "operators.h"
#include "run.h"

#include <string.h>
#include <time.h>

typedef struct {
  PyObject_HEAD pcl_entry *entry;
  PyArray_Descr *descr; /* the NumPy dtype of inputs (uint8 for packed types) */
  int packed;           /* the type is packed: inputs are given as their bytes */
  /* For a type NumPy lacks, its cleave.ElementType constant (runs pass it as dtype=, as the
   * dtype of an array does not say it); NULL for NumPy's types. */
  PyObject *element_type;
  PyObject *shapes; /* the input shapes, a tuple of tuples (a Plan's holds one) */
} plan_object;

static int is_split(const plan_object *self) {
  return self->entry->op.row->family == PCL_SPLIT;
}

/* The input shapes, a Plan's one or a ConcatPlan's sequence, as a tuple of tuples (a new
 * reference), with the library's tensors over their dims (*tensors and *dims, which the caller
 * frees with PyMem_Free whatever the outcome; the tensors' type is left to the caller). */
static PyObject *read_shapes(PyObject *obj, pcl_family family, cleave_tensor **tensors,
                             int64_t **dims) {
  PyObject *seq = NULL;
  Py_ssize_t n = 1;
  if (family == PCL_CONCAT) {
    seq = PySequence_Fast(obj, "shapes must be a sequence of shapes, one per input");
    if (seq == NULL) {
      return NULL;
    }
    n = PySequence_Fast_GET_SIZE(seq);
  }
  PyObject *result = PyTuple_New(n);
  *tensors = PyMem_Calloc((size_t)n + 1, sizeof **tensors);
  *dims = PyMem_Calloc((size_t)n + 1, PCL_MAX_RANK * sizeof **dims);
  if (result == NULL || *tensors == NULL || *dims == NULL) {
    Py_XDECREF(result);
    Py_XDECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    int64_t *d = *dims + (size_t)i * PCL_MAX_RANK;
    size_t rank;
    int st = seq == NULL ? pcl_shape(obj, -1, PCL_MAX_RANK, d, &rank)
                         : pcl_shape(PySequence_Fast_GET_ITEM(seq, i), i, PCL_MAX_RANK, d, &rank);
    PyObject *shape = st < 0 ? NULL : PyArray_IntTupleFromIntp((int)rank, (npy_intp *)(void *)d);
    if (shape == NULL) {
      Py_CLEAR(result);
      break;
    }
    PyTuple_SET_ITEM(result, i, shape);
    (*tensors)[i] = (cleave_tensor){.rank = rank, .shape = d};
  }
  Py_XDECREF(seq);
  return result;
}

static PyObject *plan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs, pcl_family family) {
  const char *name = family == PCL_SPLIT ? "Plan" : "ConcatPlan";
  PyObject *op_name, *shapes_obj, *dtype_obj;
  if (!PyArg_ParseTuple(args, family == PCL_SPLIT ? "OOO:Plan" : "OOO:ConcatPlan", &op_name,
                        &shapes_obj, &dtype_obj)) {
    return NULL;
  }
  const pcl_operator *row = pcl_operator_find(op_name, (int)family);
  PyObject *p[PCL_MAX_OP_PARAMS];
  if (row == NULL || pcl_operator_params(row, kwargs, 1, name, p) < 0) {
    return NULL;
  }
  PyObject *shapes = NULL;
  cleave_tensor *tensors = NULL;
  int64_t *dims = NULL;
  PyArray_Descr *descr = NULL;
  pcl_entry *e = NULL;
  pcl_op op;
  int built = 0;
  cleave_type t;
  int packed;
  /* Plan reads its shape before the dtype, ConcatPlan its shapes after the operator: the order
   * their errors have always come in. */
  if ((family == PCL_SPLIT &&
       (shapes = read_shapes(shapes_obj, family, &tensors, &dims)) == NULL) ||
      pcl_type_from_object(dtype_obj, &t, &descr, &packed) < 0) {
    goto done;
  }
  built = 1;
  if (row->build(row, p, &op, NULL) < 0 ||
      (family == PCL_CONCAT &&
       (shapes = read_shapes(shapes_obj, family, &tensors, &dims)) == NULL)) {
    goto done;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shapes); i++) {
    tensors[i].type = t;
  }
  e = pcl_entry_new(&op, tensors, (size_t)PyTuple_GET_SIZE(shapes));
done:
  if (built) {
    pcl_op_clear(&op);
  }
  PyMem_Free(tensors);
  PyMem_Free(dims);
  plan_object *self = e == NULL ? NULL : (plan_object *)type->tp_alloc(type, 0);
  if (self == NULL) {
    pcl_entry_decref(e);
    Py_XDECREF(shapes);
    Py_XDECREF(descr);
    return NULL;
  }
  self->entry = e;
  self->descr = descr;
  self->packed = packed;
  self->element_type = pcl_element_type_object(t.dtype);
  Py_XINCREF(self->element_type);
  self->shapes = shapes;
  return (PyObject *)self;
}

static PyObject *split_plan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  return plan_new(type, args, kwargs, PCL_SPLIT);
}

static PyObject *concat_plan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  return plan_new(type, args, kwargs, PCL_CONCAT);
}

static void plan_dealloc(PyObject *obj) {
  plan_object *self = (plan_object *)obj;
  pcl_entry_decref(self->entry);
  Py_CLEAR(self->descr);
  Py_CLEAR(self->element_type);
  Py_CLEAR(self->shapes);
  Py_TYPE(obj)->tp_free(obj);
}

/* The inputs must be the plan's: count, dtype, shapes. A split's x is named x, a concat's
 * inputs inputs[i]. */
static int check_plan_inputs(const plan_object *self, const pcl_inputs *in) {
  const pcl_entry *e = self->entry;
  char msg[CLEAVE_MESSAGE_SIZE];
  if ((size_t)in->n != e->num_inputs) {
    PyOS_snprintf(msg, sizeof msg, "the plan has %zu inputs but arrays has %zd", e->num_inputs,
                  in->n);
    pcl_raise(CLEAVE_ERROR_INVALID_ARGUMENT, msg);
    return -1;
  }
  for (Py_ssize_t i = 0; i < in->n; i++) {
    const cleave_tensor *t = &in->tensors[i];
    if (!self->packed && (t->type.dtype != e->type.dtype || t->type.width != e->type.width)) {
      PyObject *want = (PyObject *)self->descr, *got = (PyObject *)PyArray_DESCR(in->arrays[i]);
      if (in->sequence) {
        PyErr_Format(PyExc_TypeError, "the plan is for dtype %R, not %R (inputs[%zd])", want, got,
                     i);
      } else {
        PyErr_Format(PyExc_TypeError, "the plan is for dtype %R, not %R", want, got);
      }
      return -1;
    }
    if (t->rank == e->rank && (e->rank == 0 || memcmp(t->shape, e->shapes + (size_t)i * e->rank,
                                                      e->rank * sizeof(int64_t)) == 0)) {
      continue;
    }
    PyObject *got = PyArray_IntTupleFromIntp((int)t->rank, (npy_intp *)(void *)t->shape);
    PyObject *g = got == NULL ? NULL : PyObject_Repr(got);
    PyObject *w = PyObject_Repr(PyTuple_GET_ITEM(self->shapes, i));
    if (g != NULL && w != NULL) {
      if (in->sequence) {
        PyOS_snprintf(msg, sizeof msg,
                      "the plan is for inputs[%zd] of shape %s but it has shape %s", i,
                      PyUnicode_AsUTF8(w), PyUnicode_AsUTF8(g));
      } else {
        PyOS_snprintf(msg, sizeof msg, "the plan is for shape %s but x has shape %s",
                      PyUnicode_AsUTF8(w), PyUnicode_AsUTF8(g));
      }
      pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, msg);
    }
    Py_XDECREF(got);
    Py_XDECREF(g);
    Py_XDECREF(w);
    return -1;
  }
  return 0;
}

/* run(x | arrays, out=None, threads=None) and a Plan's views(x). */
static PyObject *plan_call(plan_object *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, int views) {
  static const char *const split_names[] = {"x", "out", "threads"};
  static const char *const concat_names[] = {"arrays", "out", "threads"};
  static PyObject *interned[3][3];
  static pcl_params parsers[3] = {{"run", split_names, 3, 1, 1, interned[0]},
                                  {"views", split_names, 1, 1, 1, interned[1]},
                                  {"run", concat_names, 3, 1, 1, interned[2]}};
  pcl_entry *e = self->entry;
  int split = is_split(self);
  PyObject *slots[3];
  if (pcl_parse_args(&parsers[split ? views : 2], args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  pcl_request req = {views ? PCL_COPY_NEVER : PCL_COPY_ALWAYS, views ? NULL : slots[1], 1,
                     e->op.row->returns};
  if (!views && pcl_threads(slots[2], &req.threads) < 0) {
    return NULL;
  }
  pcl_inputs in;
  PyObject *result = NULL;
  PyObject *shapes = self->packed ? self->shapes : NULL; /* packed inputs are their bytes */
  int st = split ? pcl_inputs_acquire_one(slots[0], self->element_type,
                                          shapes == NULL ? NULL : PyTuple_GET_ITEM(shapes, 0), &in)
                 : pcl_inputs_acquire(slots[0], self->element_type, shapes, &in);
  if (st == 0 && check_plan_inputs(self, &in) == 0) {
    result = pcl_execute(&e->op, e, &in, &req);
  }
  pcl_inputs_release(&in);
  return result;
}

static PyObject *plan_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
  return plan_call((plan_object *)self, args, nargs, kwnames, 0);
}

static PyObject *plan_views(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
  return plan_call((plan_object *)self, args, nargs, kwnames, 1);
}

/* Whether `a` may be item i of _c_seconds' list: a Plan's out[i] has output i's bytes, a
 * ConcatPlan's arrays[i] is input i's C-contiguous data. */
static int timed_item_fits(const pcl_entry *e, PyObject *a, size_t i) {
  if (!PyArray_Check(a)) {
    return 0;
  }
  PyArrayObject *array = (PyArrayObject *)a;
  if (e->op.row->family == PCL_SPLIT) {
    return PyArray_NBYTES(array) == pcl_entry_output_bytes(e, i);
  }
  int64_t count = 1, size = e->info.concat.element_size;
  for (size_t d = 0; d < e->rank; d++) {
    count *= e->shapes[i * e->rank + d];
  }
  return PyArray_IS_C_CONTIGUOUS(array) && (size == 0 || PyArray_NBYTES(array) == count * size);
}

/*
 * _c_seconds: the C library's own time for one run of this plan into caller arrays, timed in a C
 * loop of `calls` runs on this thread with the GIL held: the baseline the benchmarks
 * (bench/bench_python.py, bench/bench_concat_peers.py) compare the binding with, in the same
 * process. A Plan's takes (x, out: list of output arrays, calls), a ConcatPlan's (arrays: list of
 * C-contiguous inputs, out, calls).
 */
static PyObject *plan_c_seconds(PyObject *obj, PyObject *const *args, Py_ssize_t nargs) {
  const pcl_entry *e = ((plan_object *)obj)->entry;
  int split = is_split((plan_object *)obj);
  PyObject *list = nargs != 3 ? NULL : split ? args[1] : args[0];
  PyObject *one = nargs != 3 ? NULL : split ? args[0] : args[1];
  if (list == NULL || !PyList_Check(list) || !PyArray_Check(one)) {
    PyErr_SetString(PyExc_TypeError, split ? "_c_seconds(x: ndarray, out: list of ndarrays, "
                                             "calls: int)"
                                           : "_c_seconds(arrays: list of ndarrays, out: ndarray, "
                                             "calls)");
    return NULL;
  }
  int64_t calls;
  if (pcl_int64(args[2], "calls", &calls) < 0) {
    return NULL;
  }
  Py_ssize_t n = PyList_GET_SIZE(list);
  PyArrayObject *array = (PyArrayObject *)one;
  if (split ? (size_t)n != e->info.split.num_outputs || n > 4096 || calls < 1
            : (size_t)n != e->num_inputs || calls < 1 || !PyArray_IS_C_CONTIGUOUS(array) ||
                  PyArray_NBYTES(array) != e->info.concat.output_bytes) {
    PyErr_SetString(PyExc_ValueError, split ? "_c_seconds: wrong output count or calls"
                                            : "_c_seconds: wrong input count, output or calls");
    return NULL;
  }
  void **ptrs = PyMem_Malloc((size_t)(n + 1) * sizeof(void *));
  if (ptrs == NULL) {
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *a = PyList_GET_ITEM(list, i);
    if (!timed_item_fits(e, a, (size_t)i)) {
      PyMem_Free(ptrs);
      PyErr_SetString(PyExc_ValueError, split ? "_c_seconds: out[i] must have output i's size"
                                              : "_c_seconds: arrays[i] must be input i's "
                                                "C-contiguous data");
      return NULL;
    }
    ptrs[i] = PyArray_DATA((PyArrayObject *)a);
  }
  void *data = PyArray_DATA(array);
  const void *const *inputs = split ? (const void *const *)&data : (const void *const *)ptrs;
  void *const *outputs = split ? ptrs : &data;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int st = 0;
  for (int64_t k = 0; st == 0 && k < calls; k++) {
    st = pcl_run(e, inputs, outputs, 1, 0);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  PyMem_Free(ptrs);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  return st < 0 ? NULL : PyFloat_FromDouble(seconds / (double)calls);
}

/* Output i's shape as a tuple (packed types: its byte count). */
static PyObject *output_shape(const plan_object *self, size_t i) {
  npy_intp dims[PCL_MAX_RANK + 1];
  int nd = pcl_entry_output_dims(self->entry, i, self->packed, dims);
  return PyArray_IntTupleFromIntp(nd, dims);
}

static PyObject *plan_get_output_shapes(PyObject *obj, void *closure) {
  (void)closure;
  const plan_object *self = (plan_object *)obj;
  Py_ssize_t n = (Py_ssize_t)pcl_entry_num_outputs(self->entry);
  PyObject *shapes = PyTuple_New(n);
  for (Py_ssize_t i = 0; shapes != NULL && i < n; i++) {
    PyObject *shape = output_shape(self, (size_t)i);
    if (shape == NULL) {
      Py_CLEAR(shapes);
      break;
    }
    PyTuple_SET_ITEM(shapes, i, shape);
  }
  return shapes;
}

static PyObject *plan_get_output_shape(PyObject *obj, void *closure) {
  (void)closure;
  return output_shape((plan_object *)obj, 0);
}

static PyObject *plan_get_num_outputs(PyObject *obj, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(pcl_entry_num_outputs(((plan_object *)obj)->entry));
}

static PyObject *plan_get_num_inputs(PyObject *obj, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(((plan_object *)obj)->entry->num_inputs);
}

static PyObject *plan_get_axis(PyObject *obj, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(pcl_entry_axis(((plan_object *)obj)->entry));
}

static PyObject *plan_get_kernels(PyObject *obj, void *closure) {
  (void)closure;
  return PyUnicode_FromString(pcl_entry_description(((plan_object *)obj)->entry));
}

static PyObject *plan_get_dtype(PyObject *obj, void *closure) {
  (void)closure;
  PyObject *descr = (PyObject *)((plan_object *)obj)->descr;
  Py_INCREF(descr);
  return descr;
}

static PyObject *plan_get_shape(PyObject *obj, void *closure) {
  (void)closure;
  PyObject *shape = PyTuple_GET_ITEM(((plan_object *)obj)->shapes, 0);
  Py_INCREF(shape);
  return shape;
}

static PyObject *plan_get_shapes(PyObject *obj, void *closure) {
  (void)closure;
  PyObject *shapes = ((plan_object *)obj)->shapes;
  Py_INCREF(shapes);
  return shapes;
}

/* The shapes as the constructor takes them: a Plan's one shape; a ConcatPlan's, many equal
 * shapes as (shape,) * n. */
static PyObject *shapes_repr(const plan_object *self) {
  PyObject *shapes = self->shapes;
  Py_ssize_t n = PyTuple_GET_SIZE(shapes);
  if (is_split(self)) {
    return PyObject_Repr(PyTuple_GET_ITEM(shapes, 0));
  }
  int equal = n > 4;
  for (Py_ssize_t i = 1; equal && i < n; i++) {
    equal = PyObject_RichCompareBool(PyTuple_GET_ITEM(shapes, i), PyTuple_GET_ITEM(shapes, 0),
                                     Py_EQ) == 1;
  }
  if (equal) {
    return PyUnicode_FromFormat("(%R,) * %zd", PyTuple_GET_ITEM(shapes, 0), n);
  }
  return PyObject_Repr(shapes);
}

/* The dtype as the constructor takes it: the ElementType constant's repr, or the repr of the
 * NumPy dtype's name. */
static PyObject *dtype_repr(const plan_object *self) {
  if (self->element_type != NULL) {
    return PyObject_Repr(self->element_type);
  }
  PyObject *name = PyObject_Str((PyObject *)self->descr);
  PyObject *r = name == NULL ? NULL : PyObject_Repr(name);
  Py_XDECREF(name);
  return r;
}

/* What the repr says of the outputs: a Plan's count, a ConcatPlan's shape. */
static PyObject *outputs_repr(const plan_object *self) {
  if (is_split(self)) {
    size_t n = pcl_entry_num_outputs(self->entry);
    return PyUnicode_FromFormat("%zu output%s", n, n == 1 ? "" : "s");
  }
  PyObject *shape = output_shape(self, 0);
  PyObject *r = shape == NULL
                    ? NULL
                    : PyUnicode_FromFormat("output %R%s", shape, self->packed ? " bytes" : "");
  Py_XDECREF(shape);
  return r;
}

/* cleave.Plan('split', (6, 4), 'float32', num_splits=3, axis=0): 3 outputs
 * cleave.ConcatPlan('concat', ((2, 3), (2, 5)), 'float32', axis=1, opset=None): output (2, 8) */
static PyObject *plan_repr(PyObject *obj) {
  const plan_object *self = (plan_object *)obj;
  PyObject *shapes = shapes_repr(self);
  PyObject *dtype = dtype_repr(self);
  PyObject *params = pcl_op_params_repr(&self->entry->op);
  PyObject *outputs = outputs_repr(self);
  PyObject *r = NULL;
  if (shapes != NULL && dtype != NULL && params != NULL && outputs != NULL) {
    r = PyUnicode_FromFormat("%s('%s', %U, %U, %U): %U", Py_TYPE(obj)->tp_name,
                             self->entry->op.row->name, shapes, dtype, params, outputs);
  }
  Py_XDECREF(shapes);
  Py_XDECREF(dtype);
  Py_XDECREF(params);
  Py_XDECREF(outputs);
  return r;
}

#define METHOD(name, fn, flags, doc)                                                               \
  { name, (PyCFunction)(void (*)(void))(fn), flags, doc }
static const char split_plan_doc[] =
    "Plan(operator, shape, dtype, /, **params)\n--\n\n"
    "An operator bound to one input shape and dtype: validated once, run many times.\n\n"
    "operator is 'split', 'variadic_split', 'split_to_sequence' or 'onnx_split'; params\n"
    "are that function's (num_splits, split_lengths, split, axis, keepdims, opset,\n"
    "num_outputs). dtype is a NumPy dtype (a str as np.dtype reads it) or one of\n"
    "cleave's types NumPy lacks (cleave.bf16, cleave.u4, ...: help(cleave.ElementType)).\n\n"
    "Example:\n"
    "    >>> p = cleave.Plan('split', (6, 4), 'float32', num_splits=3, axis=0)\n"
    "    >>> p\n"
    "    cleave.Plan('split', (6, 4), 'float32', num_splits=3, axis=0): 3 outputs\n"
    "    >>> p.output_shapes\n"
    "    ((2, 4), (2, 4), (2, 4))\n";

static PyMethodDef split_plan_methods[] = {
    METHOD("run", plan_run, METH_FASTCALL | METH_KEYWORDS,
           "run($self, x, out=None, threads=None)\n--\n\nCopies the outputs of x (the plan's "
           "dtype and shape) into out=, or into fresh arrays from one block of the module's "
           "output arena; returns them."),
    METHOD("views", plan_views, METH_FASTCALL | METH_KEYWORDS,
           "views($self, x)\n--\n\nThe outputs of x as views (no copy); they keep x alive."),
    METHOD("_c_seconds", plan_c_seconds, METH_FASTCALL,
           "_c_seconds(x, out, calls)\n--\n\nThe C library's own seconds per run into out (for "
           "the benchmark)."),
    {NULL, NULL, 0, NULL}};

static PyGetSetDef split_plan_getset[] = {
    {"output_shapes", plan_get_output_shapes, NULL, "The output shapes (tuple of tuples).", NULL},
    {"num_outputs", plan_get_num_outputs, NULL, "The number of outputs.", NULL},
    {"axis", plan_get_axis, NULL, "The normalised axis.", NULL},
    {"kernels", plan_get_kernels, NULL, "The copy schedule the library chose.", NULL},
    {"dtype", plan_get_dtype, NULL, "The NumPy dtype of inputs (uint8 for packed types).", NULL},
    {"shape", plan_get_shape, NULL, "The input shape the plan is for.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static const char concat_plan_doc[] =
    "ConcatPlan(operator, shapes, dtype, /, **params)\n--\n\n"
    "A concat bound to its inputs' shapes and dtype: validated once, run many times.\n\n"
    "operator is 'concat' or 'concat_from_sequence'; shapes has one shape per input, in\n"
    "order; params are that function's (axis, opset; axis, new_axis, opset). dtype is a\n"
    "NumPy dtype or one of cleave's types NumPy lacks; with a packed one (cleave.u4, ...)\n"
    "shapes are the logical shapes and run() takes the inputs' packed bytes. A class of its\n"
    "own beside Plan: a concat has several inputs and one output, no views.\n\n"
    "Example:\n"
    "    >>> p = cleave.ConcatPlan('concat', [(2, 3), (2, 5)], 'float32', axis=1)\n"
    "    >>> p\n"
    "    cleave.ConcatPlan('concat', ((2, 3), (2, 5)), 'float32', axis=1, opset=None): "
    "output (2, 8)\n"
    "    >>> p.run([numpy.zeros((2, 3), 'float32'), numpy.ones((2, 5), 'float32')]).shape\n"
    "    (2, 8)\n";

static PyMethodDef concat_plan_methods[] = {
    METHOD("run", plan_run, METH_FASTCALL | METH_KEYWORDS,
           "run($self, arrays, out=None, threads=None)\n--\n\n"
           "Joins the arrays (the plan's dtype and shapes, in order) into out=, or into a fresh "
           "array\nfrom the module's output arena; returns it."),
    METHOD("_c_seconds", plan_c_seconds, METH_FASTCALL,
           "_c_seconds(arrays, out, calls)\n--\n\nThe C library's own seconds per run into out "
           "(for the benchmark)."),
    {NULL, NULL, 0, NULL}};

static PyGetSetDef concat_plan_getset[] = {
    {"output_shape", plan_get_output_shape, NULL,
     "The output's shape (packed types: its byte count).", NULL},
    {"num_inputs", plan_get_num_inputs, NULL, "The number of inputs.", NULL},
    {"axis", plan_get_axis, NULL, "The output's axis the inputs are joined along (normalised).",
     NULL},
    {"kernels", plan_get_kernels, NULL, "The copy schedule the library chose.", NULL},
    {"dtype", plan_get_dtype, NULL, "The NumPy dtype of inputs (uint8 for packed types).", NULL},
    {"shapes", plan_get_shapes, NULL, "The input shapes the plan is for (tuple of tuples).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* The types; the slots both share are set by pcl_plan_types_ready. */
PyTypeObject pcl_PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cleave.Plan",
    .tp_doc = split_plan_doc,
    .tp_methods = split_plan_methods,
    .tp_getset = split_plan_getset,
    .tp_new = split_plan_new,
};

PyTypeObject pcl_ConcatPlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cleave.ConcatPlan",
    .tp_doc = concat_plan_doc,
    .tp_methods = concat_plan_methods,
    .tp_getset = concat_plan_getset,
    .tp_new = concat_plan_new,
};

int pcl_plan_types_ready(void) {
  PyTypeObject *types[] = {&pcl_PlanType, &pcl_ConcatPlanType};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    PyTypeObject *t = types[i];
    t->tp_basicsize = sizeof(plan_object);
    t->tp_dealloc = plan_dealloc;
    t->tp_repr = plan_repr;
    t->tp_flags = Py_TPFLAGS_DEFAULT;
    if (PyType_Ready(t) < 0) {
      return -1;
    }
  }
  return 0;
}
