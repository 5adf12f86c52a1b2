/* cleave.Plan: an operator bound to one input dtype and shape, run many times. */
#include "plan.h"

#include "args.h"
#include "dtypes.h"
#include "errors.h"
#include "execute.h"
#include "op_params.h"
#include "plan_head.h"
#include "run.h"

#include <string.h>

typedef struct {
  pcl_plan_head head; /* the dtype, packed or not, the ElementType constant */
  pcl_entry *entry;
} plan_object;

/* Operator parameters from keyword arguments, by the kind's parameter names. */
static int params_from_kwargs(cleave_op_kind kind, PyObject *kwargs, PyObject **p) {
  int n = pcl_op_param_count[kind];
  memset(p, 0, PCL_MAX_OP_PARAMS * sizeof *p);
  if (kwargs == NULL) {
    return 0;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    int found = 0;
    for (int i = 0; i < n; i++) {
      if (PyUnicode_CompareWithASCIIString(key, pcl_op_params[kind][i]) == 0) {
        p[i] = value;
        found = 1;
      }
    }
    if (!found) {
      PyErr_Format(PyExc_TypeError, "%R is not a parameter of %s (it takes %s%s%s%s%s%s%s)", key,
                   pcl_kind_name(kind), pcl_op_params[kind][0], ", ", pcl_op_params[kind][1],
                   n > 2 ? ", " : "", n > 2 ? pcl_op_params[kind][2] : "", n > 2 ? ", " : "",
                   n > 2 ? pcl_op_params[kind][3] : "");
      return -1;
    }
  }
  if (kind <= CLEAVE_OP_VARIADIC_SPLIT && p[0] == NULL) {
    PyErr_Format(PyExc_TypeError, "Plan of %s needs %s=", pcl_kind_name(kind),
                 pcl_op_params[kind][0]);
    return -1;
  }
  return 0;
}

static int shape_from_object(PyObject *obj, int64_t *shape, size_t *rank) {
  PyObject *seq = PySequence_Fast(obj, "shape must be a sequence of ints");
  if (seq == NULL) {
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > PCL_MAX_RANK) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "shape has %zd dimensions; at most %d are supported", n,
                 PCL_MAX_RANK);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (pcl_int64(PySequence_Fast_GET_ITEM(seq, i), "shape", &shape[i]) < 0) {
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  *rank = (size_t)n;
  return 0;
}

static PyObject *plan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  PyObject *name, *shape_obj, *dtype_obj;
  if (!PyArg_ParseTuple(args, "OOO:Plan", &name, &shape_obj, &dtype_obj)) {
    return NULL;
  }
  cleave_op_kind kind;
  if (pcl_kind_from_name(name, &kind) < 0) {
    return NULL;
  }
  PyObject *p[PCL_MAX_OP_PARAMS];
  if (params_from_kwargs(kind, kwargs, p) < 0) {
    return NULL;
  }
  int64_t shape[PCL_MAX_RANK];
  size_t rank;
  if (shape_from_object(shape_obj, shape, &rank) < 0) {
    return NULL;
  }
  cleave_type t;
  PyArray_Descr *descr;
  int packed;
  if (pcl_type_from_object(dtype_obj, &t, &descr, &packed) < 0) {
    return NULL;
  }
  pcl_op op;
  if (pcl_build_op(kind, p, &op, NULL) < 0) {
    pcl_op_clear(&op);
    Py_DECREF(descr);
    return NULL;
  }
  pcl_entry *e = pcl_entry_new(&op, t, shape, rank);
  pcl_op_clear(&op);
  if (e == NULL) {
    Py_DECREF(descr);
    return NULL;
  }
  plan_object *self = (plan_object *)type->tp_alloc(type, 0);
  if (self == NULL) {
    pcl_entry_decref(e);
    Py_DECREF(descr);
    return NULL;
  }
  self->entry = e;
  pcl_plan_head_set(&self->head, t, descr, packed);
  return (PyObject *)self;
}

static void plan_dealloc(PyObject *obj) {
  plan_object *self = (plan_object *)obj;
  pcl_entry_decref(self->entry);
  pcl_plan_head_clear(&self->head);
  Py_TYPE(obj)->tp_free(obj);
}

/* The plan's input: x must have the plan's dtype and shape. */
static int plan_input(plan_object *self, PyObject *x, pcl_input *in) {
  const pcl_entry *e = self->entry;
  PyObject *shape = NULL;
  if (self->head.packed) {
    shape = PyArray_IntTupleFromIntp((int)e->rank, (npy_intp *)(void *)(e->shape));
    if (shape == NULL) {
      return -1;
    }
  }
  int st = pcl_input_acquire(x, self->head.element_type, shape, in);
  Py_XDECREF(shape);
  if (st < 0) {
    return -1;
  }
  if (self->head.packed) {
    return 0;
  }
  if (in->type.dtype != e->type.dtype || in->type.width != e->type.width) {
    PyErr_Format(PyExc_TypeError, "the plan is for dtype %R, not %R", (PyObject *)self->head.descr,
                 (PyObject *)PyArray_DESCR(in->array));
    pcl_input_release(in);
    return -1;
  }
  if (in->rank != e->rank || memcmp(in->shape, e->shape, e->rank * sizeof(int64_t)) != 0) {
    PyObject *want = PyArray_IntTupleFromIntp((int)e->rank, (npy_intp *)(void *)(e->shape));
    PyObject *got = PyArray_IntTupleFromIntp((int)in->rank, (npy_intp *)(void *)(in->shape));
    if (want != NULL && got != NULL) {
      PyObject *w = PyObject_Repr(want), *g = PyObject_Repr(got);
      if (w != NULL && g != NULL) {
        char msg[CLEAVE_MESSAGE_SIZE];
        PyOS_snprintf(msg, sizeof msg, "the plan is for shape %s but x has shape %s",
                      PyUnicode_AsUTF8(w), PyUnicode_AsUTF8(g));
        pcl_raise(CLEAVE_ERROR_INVALID_SHAPE, msg);
      }
      Py_XDECREF(w);
      Py_XDECREF(g);
    }
    Py_XDECREF(want);
    Py_XDECREF(got);
    pcl_input_release(in);
    return -1;
  }
  return 0;
}

static PyObject *plan_call(plan_object *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, int views) {
  static const char *const names[] = {"x", "out", "threads"};
  static PyObject *interned_run[3], *interned_views[3];
  static pcl_params run_params = {"run", names, 3, 1, 1, interned_run};
  static pcl_params views_params = {"views", names, 1, 1, 1, interned_views};
  PyObject *slots[3];
  if (pcl_parse_args(views ? &views_params : &run_params, args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  pcl_request req = {views ? PCL_COPY_NEVER : PCL_COPY_ALWAYS, views ? NULL : slots[1], 1,
                     self->entry->op.c.kind == CLEAVE_OP_SPLIT_TO_SEQUENCE};
  if (!views && pcl_threads(slots[2], &req.threads) < 0) {
    return NULL;
  }
  pcl_input in;
  if (plan_input(self, slots[0], &in) < 0) {
    return NULL;
  }
  PyObject *result = pcl_execute(&self->entry->op, self->entry, &in, &req);
  pcl_input_release(&in);
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

/* _c_seconds(x, out, calls): the C library's own time for one run of this plan from x into out
 * (C-contiguous NumPy arrays), timed in a C loop of `calls` runs on this thread with the GIL
 * held: the baseline bench/bench_python.py compares the binding with, in the same process. */
/* One run of _c_seconds's loop. */
typedef struct timed_run {
  const cleave_plan *plan;
  const void *input;
  void *const *outputs;
} timed_run;

static int run_once(void *ctx) {
  const timed_run *run = ctx;
  return pcl_run(run->plan, run->input, run->outputs, 1, 0);
}

static PyObject *plan_c_seconds(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  plan_object *p = (plan_object *)self;
  if (nargs != 3 || !PyArray_Check(args[0]) || !PyList_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_c_seconds(x: ndarray, out: list of ndarrays, calls: int)");
    return NULL;
  }
  int64_t calls;
  if (pcl_int64(args[2], "calls", &calls) < 0) {
    return NULL;
  }
  Py_ssize_t n = PyList_GET_SIZE(args[1]);
  if ((size_t)n != p->entry->info.num_outputs || n > 4096 || calls < 1) {
    PyErr_SetString(PyExc_ValueError, "_c_seconds: wrong output count or calls");
    return NULL;
  }
  void **ptrs = PyMem_Malloc((size_t)(n + 1) * sizeof(void *));
  if (ptrs == NULL) {
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PyList_GET_ITEM(args[1], i);
    if (!PyArray_Check(o) ||
        PyArray_NBYTES((PyArrayObject *)o) != cleave_plan_output_bytes(p->entry->plan, (size_t)i)) {
      PyMem_Free(ptrs);
      PyErr_SetString(PyExc_ValueError, "_c_seconds: out[i] must have output i's size");
      return NULL;
    }
    ptrs[i] = PyArray_DATA((PyArrayObject *)o);
  }
  timed_run run = {p->entry->plan, PyArray_DATA((PyArrayObject *)args[0]), ptrs};
  PyObject *seconds = pcl_plan_seconds(run_once, &run, calls);
  PyMem_Free(ptrs);
  return seconds;
}

/* The output shapes of a plan as a tuple of tuples (packed types: each output's byte count). */
static PyObject *output_shapes(const pcl_entry *e, int packed_bytes) {
  Py_ssize_t n = (Py_ssize_t)e->info.num_outputs;
  PyObject *shapes = PyTuple_New(n);
  for (Py_ssize_t i = 0; shapes != NULL && i < n; i++) {
    PyObject *shape;
    if (packed_bytes) {
      shape = Py_BuildValue("(L)", (long long)cleave_plan_output_bytes(e->plan, (size_t)i));
    } else {
      int64_t len = cleave_plan_output_length(e->plan, (size_t)i);
      shape = PyTuple_New((Py_ssize_t)e->info.output_rank);
      Py_ssize_t k = 0;
      for (size_t d = 0; shape != NULL && d < e->rank; d++) {
        int64_t v = e->shape[d];
        if (d == e->info.axis) {
          if (e->info.axis_removed) {
            continue;
          }
          v = len;
        }
        PyObject *dim = PyLong_FromLongLong(v);
        if (dim == NULL) {
          Py_CLEAR(shape);
          break;
        }
        PyTuple_SET_ITEM(shape, k++, dim);
      }
    }
    if (shape == NULL) {
      Py_CLEAR(shapes);
      break;
    }
    PyTuple_SET_ITEM(shapes, i, shape);
  }
  return shapes;
}

static PyObject *plan_get_output_shapes(PyObject *self, void *closure) {
  (void)closure;
  plan_object *p = (plan_object *)self;
  return output_shapes(p->entry, p->head.packed);
}

static PyObject *plan_get_num_outputs(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(((plan_object *)self)->entry->info.num_outputs);
}

static PyObject *plan_get_axis(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(((plan_object *)self)->entry->info.axis);
}

static PyObject *plan_get_kernels(PyObject *self, void *closure) {
  (void)closure;
  return pcl_plan_kernels(cleave_plan_description(((plan_object *)self)->entry->plan));
}

static PyObject *plan_get_shape(PyObject *self, void *closure) {
  (void)closure;
  const pcl_entry *e = ((plan_object *)self)->entry;
  return PyArray_IntTupleFromIntp((int)e->rank, (npy_intp *)(void *)(e->shape));
}

/* An operator's split lengths as Plan() takes them: None, an int, or a list. */
static PyObject *lengths_repr(const pcl_op *op) {
  const cleave_values *v = &op->c.lengths;
  if (v->rank == CLEAVE_ABSENT) {
    return PyUnicode_FromString("None");
  }
  if (v->rank == 0) {
    return PyUnicode_FromFormat("%lld", (long long)op->lengths[0]);
  }
  PyObject *list = PyList_New((Py_ssize_t)v->count);
  for (size_t i = 0; list != NULL && i < v->count; i++) {
    PyObject *item = PyLong_FromLongLong(op->lengths[i]);
    if (item == NULL) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, item);
  }
  PyObject *r = list == NULL ? NULL : PyObject_Repr(list);
  Py_XDECREF(list);
  return r;
}

/* The operator's parameters as Plan()'s keyword arguments. */
static PyObject *params_repr(const pcl_op *op) {
  const cleave_op *c = &op->c;
  if (c->kind == CLEAVE_OP_SPLIT) {
    return PyUnicode_FromFormat("num_splits=%lld, axis=%lld", (long long)c->num_splits,
                                (long long)op->axis);
  }
  PyObject *lengths = lengths_repr(op);
  if (lengths == NULL) {
    return NULL;
  }
  PyObject *r;
  if (c->kind == CLEAVE_OP_VARIADIC_SPLIT) {
    r = PyUnicode_FromFormat("split_lengths=%U, axis=%lld", lengths, (long long)op->axis);
  } else if (c->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE) {
    r = PyUnicode_FromFormat("split=%U, axis=%lld, keepdims=%lld, opset=%lld", lengths,
                             (long long)op->axis, (long long)c->keepdims, (long long)c->opset);
  } else if (c->num_outputs.rank == CLEAVE_ABSENT) {
    r = PyUnicode_FromFormat("split=%U, axis=%lld, opset=%lld", lengths, (long long)op->axis,
                             (long long)c->opset);
  } else {
    r = PyUnicode_FromFormat("split=%U, axis=%lld, num_outputs=%lld, opset=%lld", lengths,
                             (long long)op->axis, (long long)op->num_outputs, (long long)c->opset);
  }
  Py_DECREF(lengths);
  return r;
}

/* cleave.Plan('split', (6, 4), 'float32', num_splits=3, axis=0): 3 outputs */
static PyObject *plan_repr(PyObject *self) {
  plan_object *p = (plan_object *)self;
  const pcl_entry *e = p->entry;
  PyObject *shape = plan_get_shape(self, NULL);
  PyObject *params = params_repr(&e->op);
  PyObject *dtype = pcl_plan_dtype_repr(&p->head);
  PyObject *r = NULL;
  if (shape != NULL && params != NULL && dtype != NULL) {
    r = PyUnicode_FromFormat("cleave.Plan('%s', %R, %U, %U): %zu output%s",
                             pcl_kind_name(e->op.c.kind), shape, dtype, params, e->info.num_outputs,
                             e->info.num_outputs == 1 ? "" : "s");
  }
  Py_XDECREF(shape);
  Py_XDECREF(params);
  Py_XDECREF(dtype);
  return r;
}

static PyMethodDef plan_methods[] = {
    {"run", (PyCFunction)(void (*)(void))plan_run, METH_FASTCALL | METH_KEYWORDS,
     "run($self, x, out=None, threads=None)\n--\n\nCopies the outputs of x (the plan's dtype and "
     "shape) "
     "into out=, or into fresh arrays from one block of the module's output arena; returns them."},
    {"views", (PyCFunction)(void (*)(void))plan_views, METH_FASTCALL | METH_KEYWORDS,
     "views($self, x)\n--\n\nThe outputs of x as views (no copy); they keep x alive."},
    {"_c_seconds", (PyCFunction)(void (*)(void))plan_c_seconds, METH_FASTCALL,
     "_c_seconds(x, out, calls)\n--\n\nThe C library's own seconds per run into out (for the "
     "benchmark)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef plan_getset[] = {
    {"output_shapes", plan_get_output_shapes, NULL, "The output shapes (tuple of tuples).", NULL},
    {"num_outputs", plan_get_num_outputs, NULL, "The number of outputs.", NULL},
    {"axis", plan_get_axis, NULL, "The normalised axis.", NULL},
    {"kernels", plan_get_kernels, NULL, "The copy schedule the library chose.", NULL},
    {"dtype", pcl_plan_get_dtype, NULL, "The NumPy dtype of inputs (uint8 for packed types).",
     NULL},
    {"shape", plan_get_shape, NULL, "The input shape the plan is for.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pcl_PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cleave.Plan",
    .tp_basicsize = sizeof(plan_object),
    .tp_dealloc = plan_dealloc,
    .tp_repr = plan_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
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
        "    ((2, 4), (2, 4), (2, 4))\n",
    .tp_methods = plan_methods,
    .tp_getset = plan_getset,
    .tp_new = plan_new,
};
