/* cleave.ConcatPlan: a concat bound to its inputs' dtype and shapes (see concat_plan.h). */
#include "concat_plan.h"

#include "args.h"
#include "concat_cache.h"
#include "concat_execute.h"
#include "concat_inputs.h"
#include "concat_op.h"
#include "dtypes.h"
#include "errors.h"
#include "plan_head.h"
#include "run.h"

#include <string.h>

typedef struct {
  pcl_plan_head head; /* the dtype, packed or not, the ElementType constant */
  pcl_concat_entry *entry;
  PyObject *shapes; /* the input shapes, a tuple of tuples (packed: passed as shapes=) */
} concat_plan_object;

/* Operator parameters from keyword arguments, by the operator's parameter names. */
static int params_from_kwargs(cleave_concat_kind kind, PyObject *kwargs, PyObject **p) {
  int which = kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE;
  int n = pcl_concat_param_count[which];
  memset(p, 0, PCL_CONCAT_MAX_PARAMS * sizeof *p);
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (kwargs != NULL && PyDict_Next(kwargs, &pos, &key, &value)) {
    int found = 0;
    for (int i = 0; i < n; i++) {
      if (PyUnicode_CompareWithASCIIString(key, pcl_concat_params[which][i]) == 0) {
        p[i] = value;
        found = 1;
      }
    }
    if (!found) {
      PyErr_Format(PyExc_TypeError, "%R is not a parameter of %s (it takes %s)", key,
                   pcl_concat_kind_name(kind), which ? "axis, new_axis, opset" : "axis, opset");
      return -1;
    }
  }
  return 0;
}

/* The shapes argument: a sequence of shapes, each a sequence of ints, as a tuple of tuples
 * (new reference) with the dims in one buffer (*dims, PyMem_Malloc'ed) and tensors pointing in. */
static PyObject *read_shapes(PyObject *obj, cleave_type type, cleave_tensor **tensors,
                             int64_t **dims) {
  *tensors = NULL;
  *dims = NULL;
  PyObject *seq = PySequence_Fast(obj, "shapes must be a sequence of shapes, one per input");
  if (seq == NULL) {
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject *result = PyTuple_New(n);
  size_t count = (size_t)n + 1;
  *tensors = PyMem_Calloc(count, sizeof **tensors);
  *dims = PyMem_Calloc(count, PCL_MAX_RANK * sizeof **dims);
  if (result == NULL || *tensors == NULL || *dims == NULL) {
    Py_XDECREF(result);
    Py_DECREF(seq);
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *one =
        PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "each shape must be a sequence of ints");
    if (one == NULL) {
      goto fail;
    }
    Py_ssize_t rank = PySequence_Fast_GET_SIZE(one);
    if (rank > PCL_MAX_RANK) {
      Py_DECREF(one);
      PyErr_Format(PyExc_ValueError, "shapes[%zd] has %zd dimensions; at most %d are supported", i,
                   rank, PCL_MAX_RANK);
      goto fail;
    }
    int64_t *d = *dims + (size_t)i * PCL_MAX_RANK;
    for (Py_ssize_t k = 0; k < rank; k++) {
      if (pcl_int64(PySequence_Fast_GET_ITEM(one, k), "shapes", &d[k]) < 0) {
        Py_DECREF(one);
        goto fail;
      }
    }
    Py_DECREF(one);
    PyObject *shape = PyArray_IntTupleFromIntp((int)rank, (npy_intp *)(void *)d);
    if (shape == NULL) {
      goto fail;
    }
    PyTuple_SET_ITEM(result, i, shape);
    (*tensors)[i] = (cleave_tensor){NULL, type, (size_t)rank, d};
  }
  Py_DECREF(seq);
  return result;
fail:
  Py_DECREF(seq);
  Py_DECREF(result);
  return NULL;
}

static PyObject *plan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  PyObject *name, *shapes_obj, *dtype_obj;
  if (!PyArg_ParseTuple(args, "OOO:ConcatPlan", &name, &shapes_obj, &dtype_obj)) {
    return NULL;
  }
  cleave_concat_kind kind;
  int found = pcl_concat_kind_from_name(name, &kind);
  if (found != 0) {
    if (found > 0) {
      PyErr_Format(PyExc_ValueError,
                   "unknown operator %R: expected 'concat' or 'concat_from_sequence'", name);
    }
    return NULL;
  }
  PyObject *p[PCL_CONCAT_MAX_PARAMS];
  if (params_from_kwargs(kind, kwargs, p) < 0) {
    return NULL;
  }
  cleave_type t;
  PyArray_Descr *descr;
  int packed;
  if (pcl_type_from_object(dtype_obj, &t, &descr, &packed) < 0) {
    return NULL;
  }
  pcl_concat_op op;
  cleave_tensor *tensors;
  int64_t *dims;
  PyObject *shapes = NULL;
  pcl_concat_entry *e = NULL;
  if (pcl_concat_build_op(kind, p, &op, NULL) == 0) {
    shapes = read_shapes(shapes_obj, t, &tensors, &dims);
    if (shapes != NULL) {
      e = pcl_concat_entry_new(&op, tensors, (size_t)PyTuple_GET_SIZE(shapes));
    }
    PyMem_Free(tensors);
    PyMem_Free(dims);
  }
  concat_plan_object *self = e == NULL ? NULL : (concat_plan_object *)type->tp_alloc(type, 0);
  if (self == NULL) {
    pcl_concat_entry_decref(e);
    Py_XDECREF(shapes);
    Py_DECREF(descr);
    return NULL;
  }
  self->entry = e;
  pcl_plan_head_set(&self->head, t, descr, packed);
  self->shapes = shapes;
  return (PyObject *)self;
}

static void plan_dealloc(PyObject *obj) {
  concat_plan_object *self = (concat_plan_object *)obj;
  pcl_concat_entry_decref(self->entry);
  pcl_plan_head_clear(&self->head);
  Py_XDECREF(self->shapes);
  Py_TYPE(obj)->tp_free(obj);
}

/* The inputs must be the plan's: count, dtype, shapes. */
static int check_plan_inputs(const concat_plan_object *self, const pcl_concat_inputs *in) {
  const pcl_concat_entry *e = self->entry;
  if ((size_t)in->n != e->num_inputs) {
    char msg[CLEAVE_MESSAGE_SIZE];
    PyOS_snprintf(msg, sizeof msg, "the plan has %zu inputs but arrays has %zd", e->num_inputs,
                  in->n);
    pcl_raise(CLEAVE_ERROR_INVALID_ARGUMENT, msg);
    return -1;
  }
  for (Py_ssize_t i = 0; i < in->n; i++) {
    const cleave_tensor *t = &in->tensors[i];
    if (!self->head.packed && (t->type.dtype != e->type.dtype || t->type.width != e->type.width)) {
      PyErr_Format(PyExc_TypeError, "the plan is for dtype %R, not %R (inputs[%zd])",
                   (PyObject *)self->head.descr, (PyObject *)PyArray_DESCR(in->arrays[i]), i);
      return -1;
    }
    if (t->rank != e->rank || (e->rank > 0 && memcmp(t->shape, e->shapes + (size_t)i * e->rank,
                                                     e->rank * sizeof(int64_t)) != 0)) {
      PyObject *got = PyArray_IntTupleFromIntp((int)t->rank, (npy_intp *)(void *)t->shape);
      PyObject *g = got == NULL ? NULL : PyObject_Repr(got);
      PyObject *w = PyObject_Repr(PyTuple_GET_ITEM(self->shapes, i));
      if (g != NULL && w != NULL) {
        char msg[CLEAVE_MESSAGE_SIZE];
        PyOS_snprintf(msg, sizeof msg,
                      "the plan is for inputs[%zd] of shape %s but it has shape %s", i,
                      PyUnicode_AsUTF8(w), PyUnicode_AsUTF8(g));
        pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, msg);
      }
      Py_XDECREF(got);
      Py_XDECREF(g);
      Py_XDECREF(w);
      return -1;
    }
  }
  return 0;
}

static PyObject *plan_run(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
  concat_plan_object *self = (concat_plan_object *)obj;
  static const char *const names[] = {"arrays", "out", "threads"};
  static PyObject *interned[3];
  static pcl_params params = {"run", names, 3, 1, 1, interned};
  PyObject *slots[3];
  int threads;
  if (pcl_parse_args(&params, args, nargs, kwnames, slots) < 0 ||
      pcl_threads(slots[2], &threads) < 0) {
    return NULL;
  }
  pcl_concat_inputs in;
  PyObject *result = NULL;
  if (pcl_concat_inputs_acquire(slots[0], self->head.element_type,
                                self->head.packed ? self->shapes : NULL, &in) == 0 &&
      check_plan_inputs(self, &in) == 0) {
    result = pcl_concat_execute(&self->entry->op, self->entry, &in, slots[1], threads);
  }
  pcl_concat_inputs_release(&in);
  return result;
}

/* _c_seconds(arrays, out, calls): the C library's own time for one run of this plan from the
 * arrays into out (C-contiguous NumPy arrays of the right byte sizes), timed in a C loop of `calls`
 * runs on this thread with the GIL held: the baseline bench/bench_concat_peers.py compares the
 * binding with, in the same process. */
/* One run of _c_seconds's loop. */
typedef struct timed_run {
  const cleave_concat_plan *plan;
  const void *const *inputs;
  void *output;
} timed_run;

static int run_once(void *ctx) {
  const timed_run *run = ctx;
  return pcl_concat_run(run->plan, run->inputs, run->output, 1, 0);
}

static PyObject *plan_c_seconds(PyObject *obj, PyObject *const *args, Py_ssize_t nargs) {
  concat_plan_object *self = (concat_plan_object *)obj;
  const pcl_concat_entry *e = self->entry;
  if (nargs != 3 || !PyList_Check(args[0]) || !PyArray_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_c_seconds(arrays: list of ndarrays, out: ndarray, calls)");
    return NULL;
  }
  int64_t calls;
  if (pcl_int64(args[2], "calls", &calls) < 0) {
    return NULL;
  }
  Py_ssize_t n = PyList_GET_SIZE(args[0]);
  PyArrayObject *out = (PyArrayObject *)args[1];
  if ((size_t)n != e->num_inputs || calls < 1 || !PyArray_IS_C_CONTIGUOUS(out) ||
      PyArray_NBYTES(out) != e->info.output_bytes) {
    PyErr_SetString(PyExc_ValueError, "_c_seconds: wrong input count, output or calls");
    return NULL;
  }
  const void **ptrs = PyMem_Malloc((size_t)(n + 1) * sizeof(void *));
  if (ptrs == NULL) {
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *a = PyList_GET_ITEM(args[0], i);
    int64_t bytes = 1;
    for (size_t d = 0; d < e->rank; d++) {
      bytes *= e->shapes[(size_t)i * e->rank + d];
    }
    if (!PyArray_Check(a) || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)a) ||
        (e->info.element_size > 0 &&
         PyArray_NBYTES((PyArrayObject *)a) != bytes * e->info.element_size)) {
      PyMem_Free(ptrs);
      PyErr_SetString(PyExc_ValueError,
                      "_c_seconds: arrays[i] must be input i's C-contiguous data");
      return NULL;
    }
    ptrs[i] = PyArray_DATA((PyArrayObject *)a);
  }
  timed_run run = {e->plan, ptrs, PyArray_DATA(out)};
  PyObject *seconds = pcl_plan_seconds(run_once, &run, calls);
  PyMem_Free(ptrs);
  return seconds;
}

static PyObject *plan_get_output_shape(PyObject *obj, void *closure) {
  (void)closure;
  const concat_plan_object *self = (concat_plan_object *)obj;
  const pcl_concat_entry *e = self->entry;
  if (self->head.packed) {
    return Py_BuildValue("(L)", (long long)e->info.output_bytes);
  }
  return PyArray_IntTupleFromIntp((int)e->info.output_rank, (npy_intp *)(void *)(e->output_shape));
}

static PyObject *plan_get_num_inputs(PyObject *obj, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(((concat_plan_object *)obj)->entry->num_inputs);
}

static PyObject *plan_get_axis(PyObject *obj, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(((concat_plan_object *)obj)->entry->info.axis);
}

static PyObject *plan_get_kernels(PyObject *obj, void *closure) {
  (void)closure;
  return pcl_plan_kernels(cleave_concat_plan_description(((concat_plan_object *)obj)->entry->plan));
}

static PyObject *plan_get_shapes(PyObject *obj, void *closure) {
  (void)closure;
  concat_plan_object *self = (concat_plan_object *)obj;
  Py_INCREF(self->shapes);
  return self->shapes;
}

/* The input shapes as ConcatPlan() takes them: many equal shapes as (shape,) * n. */
static PyObject *shapes_repr(PyObject *shapes) {
  Py_ssize_t n = PyTuple_GET_SIZE(shapes);
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

/* cleave.ConcatPlan('concat', ((2, 3), (2, 5)), 'float32', axis=1, opset=None): output (2, 8) */
static PyObject *plan_repr(PyObject *obj) {
  concat_plan_object *self = (concat_plan_object *)obj;
  PyObject *shapes = shapes_repr(self->shapes);
  PyObject *params = pcl_concat_params_repr(&self->entry->op);
  PyObject *output = plan_get_output_shape(obj, NULL);
  PyObject *dtype = pcl_plan_dtype_repr(&self->head);
  PyObject *r = NULL;
  if (shapes != NULL && params != NULL && output != NULL && dtype != NULL) {
    r = PyUnicode_FromFormat("cleave.ConcatPlan('%s', %U, %U, %U): output %R%s",
                             pcl_concat_kind_name(self->entry->op.c.kind), shapes, dtype, params,
                             output, self->head.packed ? " bytes" : "");
  }
  Py_XDECREF(shapes);
  Py_XDECREF(params);
  Py_XDECREF(output);
  Py_XDECREF(dtype);
  return r;
}

static PyMethodDef plan_methods[] = {
    {"run", (PyCFunction)(void (*)(void))plan_run, METH_FASTCALL | METH_KEYWORDS,
     "run($self, arrays, out=None, threads=None)\n--\n\n"
     "Joins the arrays (the plan's dtype and shapes, in order) into out=, or into a fresh array\n"
     "from the module's output arena; returns it."},
    {"_c_seconds", (PyCFunction)(void (*)(void))plan_c_seconds, METH_FASTCALL,
     "_c_seconds(arrays, out, calls)\n--\n\nThe C library's own seconds per run into out (for "
     "the benchmark)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef plan_getset[] = {
    {"output_shape", plan_get_output_shape, NULL,
     "The output's shape (packed types: its byte count).", NULL},
    {"num_inputs", plan_get_num_inputs, NULL, "The number of inputs.", NULL},
    {"axis", plan_get_axis, NULL, "The output's axis the inputs are joined along (normalised).",
     NULL},
    {"kernels", plan_get_kernels, NULL, "The copy schedule the library chose.", NULL},
    {"dtype", pcl_plan_get_dtype, NULL, "The NumPy dtype of inputs (uint8 for packed types).",
     NULL},
    {"shapes", plan_get_shapes, NULL, "The input shapes the plan is for (tuple of tuples).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pcl_ConcatPlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cleave.ConcatPlan",
    .tp_basicsize = sizeof(concat_plan_object),
    .tp_dealloc = plan_dealloc,
    .tp_repr = plan_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
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
        "    (2, 8)\n",
    .tp_methods = plan_methods,
    .tp_getset = plan_getset,
    .tp_new = plan_new,
};
