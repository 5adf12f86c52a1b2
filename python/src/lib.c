/*
 * Thin wrappers over libcleave (see lib.h): the only file that calls the library.
 */
#include "lib.h"

#include "module.h"

#include <stdlib.h>
#include <string.h>

void pcl_op_init(pcl_op *op, pcl_kind kind, int64_t opset) {
  memset(op, 0, sizeof *op);
  op->kind = kind;
  op->opset = opset;
  op->lengths = op->inline_lengths;
  op->lengths_rank = 1;
  op->keepdims = 1;
}

int pcl_op_reserve(pcl_op *op, int64_t count) {
  if (count <= PCL_INLINE_LENGTHS) {
    op->lengths = op->inline_lengths;
    return 0;
  }
  if ((uint64_t)count > SIZE_MAX / sizeof(int64_t)) {
    PyErr_NoMemory();
    return -1;
  }
  op->lengths = PyMem_Malloc((size_t)count * sizeof(int64_t));
  if (op->lengths == NULL) {
    op->lengths = op->inline_lengths;
    PyErr_NoMemory();
    return -1;
  }
  return 0;
}

void pcl_op_clear(pcl_op *op) {
  if (op->lengths != op->inline_lengths) {
    PyMem_Free(op->lengths);
    op->lengths = op->inline_lengths;
  }
}

/* The library's operator for `op`; it points into `op`, which must outlive its use. */
static cleave_op to_cleave_op(const pcl_op *op) {
  cleave_op c;
  switch (op->kind) {
  case PCL_SPLIT:
    c = cleave_op_split(&op->axis, op->num_splits);
    break;
  case PCL_VARIADIC_SPLIT:
    c = cleave_op_variadic_split(&op->axis, op->lengths, (size_t)op->count);
    break;
  case PCL_SPLIT_TO_SEQUENCE:
    c = cleave_op_split_to_sequence(op->opset);
    break;
  default:
    c = cleave_op_onnx_split(op->opset);
    break;
  }
  c.opset = op->opset;
  c.axis = op->has_axis ? cleave_values_scalar(&op->axis) : cleave_values_none();
  if (op->has_lengths) {
    c.lengths = op->lengths_rank == 0 ? cleave_values_scalar(op->lengths)
                                      : cleave_values_list(op->lengths, (size_t)op->count);
  } else {
    c.lengths = cleave_values_none();
  }
  if (op->kind == PCL_ONNX_SPLIT) {
    c.num_outputs =
        op->has_num_splits ? cleave_values_scalar(&op->num_splits) : cleave_values_none();
  }
  c.keepdims = op->keepdims;
  return c;
}

static cleave_type to_cleave_type(pcl_type t) {
  cleave_type c;
  c.dtype = (cleave_dtype)t.dtype;
  c.width = t.width;
  return c;
}

PyObject *pcl_raise(int status, const char *message) {
  PyObject *exc = PyObject_CallFunction(pcl_module_state.error_type, "s", message);
  if (exc == NULL) {
    return NULL;
  }
  PyObject *code = PyLong_FromLong(status);
  PyObject *msg = PyUnicode_FromString(message);
  const char *status_name = cleave_status_name((cleave_status)status);
  PyObject *name = PyUnicode_FromString(status_name != NULL ? status_name : "unknown status");
  if (code == NULL || msg == NULL || name == NULL ||
      PyObject_SetAttrString(exc, "status", code) < 0 ||
      PyObject_SetAttrString(exc, "message", msg) < 0 ||
      PyObject_SetAttrString(exc, "status_name", name) < 0) {
    Py_XDECREF(code);
    Py_XDECREF(msg);
    Py_XDECREF(name);
    Py_DECREF(exc);
    return NULL;
  }
  Py_DECREF(code);
  Py_DECREF(msg);
  Py_DECREF(name);
  PyErr_SetObject(pcl_module_state.error_type, exc);
  Py_DECREF(exc);
  return NULL;
}

/* Turns a library status into the binding's convention. */
static int check(cleave_status st, const cleave_error *err) {
  if (st == CLEAVE_OK) {
    return 0;
  }
  if (st == CLEAVE_ERROR_OUT_OF_MEMORY && strstr(err->message, "2^60") == NULL) {
    PyErr_SetString(PyExc_MemoryError, err->message);
    return -1;
  }
  pcl_raise((int)st, err->message);
  return -1;
}

const char *pcl_version(void) {
  return cleave_version_string();
}

int pcl_dtype_from_name(const char *name, int *dtype) {
  cleave_error err;
  cleave_dtype d;
  if (check(cleave_dtype_from_name(name, &d, &err), &err) < 0) {
    return -1;
  }
  *dtype = (int)d;
  return 0;
}

int pcl_type_bits(pcl_type type, int64_t *bits, int *msb_first) {
  cleave_error err;
  cleave_bit_order order;
  if (check(cleave_type_bits(to_cleave_type(type), bits, &order, &err), &err) < 0) {
    return -1;
  }
  *msb_first = order == CLEAVE_BIT_ORDER_MSB_FIRST;
  return 0;
}

static void to_pcl_info(const cleave_split_info *c, pcl_info *info) {
  info->axis = (int64_t)c->axis;
  info->num_outputs = (int64_t)c->num_outputs;
  info->output_rank = (int64_t)c->output_rank;
  info->axis_removed = c->axis_removed;
  info->element_bits = c->element_bits;
}

int pcl_infer(const pcl_op *op, pcl_type type, const int64_t *shape, size_t rank, pcl_info *info,
              int64_t *lengths, size_t capacity) {
  cleave_op c = to_cleave_op(op);
  cleave_split_info ci;
  cleave_error err;
  cleave_status st =
      cleave_infer(&c, to_cleave_type(type), shape, rank, &ci, lengths, capacity, &err);
  if (st == CLEAVE_ERROR_CAPACITY && lengths != NULL && (uint64_t)ci.num_outputs > capacity) {
    to_pcl_info(&ci, info);
    return 1;
  }
  if (check(st, &err) < 0) {
    return -1;
  }
  to_pcl_info(&ci, info);
  return 0;
}

int pcl_plan_create(const pcl_op *op, pcl_type type, const int64_t *shape, size_t rank,
                    pcl_plan **plan) {
  cleave_op c = to_cleave_op(op);
  cleave_error err;
  return check(cleave_plan_create(&c, to_cleave_type(type), shape, rank, plan, &err), &err);
}

void pcl_plan_destroy(pcl_plan *plan) {
  cleave_plan_destroy(plan);
}

void pcl_plan_info(const pcl_plan *plan, pcl_info *info) {
  to_pcl_info(cleave_plan_info(plan), info);
}

int64_t pcl_plan_output_length(const pcl_plan *plan, size_t i) {
  return cleave_plan_output_length(plan, i);
}

int64_t pcl_plan_output_bytes(const pcl_plan *plan, size_t i) {
  return cleave_plan_output_bytes(plan, i);
}

const char *pcl_plan_kernels(const pcl_plan *plan) {
  const char *text = cleave_plan_description(plan);
  return text != NULL ? text : "";
}

/* The module's built-in pools, one per thread count asked for, created on first use and kept
 * (creating threads per call would cost more than most copies). Guarded by the GIL. */
#define PCL_MAX_POOLS 8
static struct {
  size_t threads;
  cleave_threadpool *pool;
} pools[PCL_MAX_POOLS];

static int exec_for(int threads, cleave_exec *exec) {
  memset(exec, 0, sizeof *exec);
  if (threads <= 1) {
    return 0;
  }
  int free_slot = -1;
  for (int i = 0; i < PCL_MAX_POOLS; i++) {
    if (pools[i].pool != NULL && pools[i].threads == (size_t)threads) {
      *exec = cleave_exec_threadpool(pools[i].pool);
      return 0;
    }
    if (pools[i].pool == NULL && free_slot < 0) {
      free_slot = i;
    }
  }
  if (free_slot < 0) {
    PyErr_Format(PyExc_ValueError,
                 "threads=%d: at most %d different thread counts can be used in one process",
                 threads, PCL_MAX_POOLS);
    return -1;
  }
  cleave_error err;
  cleave_threadpool *pool = NULL;
  if (check(cleave_threadpool_create((size_t)threads, &pool, &err), &err) < 0) {
    return -1;
  }
  pools[free_slot].threads = (size_t)threads;
  pools[free_slot].pool = pool;
  *exec = cleave_exec_threadpool(pool);
  return 0;
}

void pcl_pools_release(void) {
  for (int i = 0; i < PCL_MAX_POOLS; i++) {
    cleave_threadpool_destroy(pools[i].pool);
    pools[i].pool = NULL;
  }
}

int pcl_plan_run(const pcl_plan *plan, const void *input, void *const *outputs, int threads,
                 int release_gil) {
  cleave_exec exec;
  if (exec_for(threads, &exec) < 0) {
    return -1;
  }
  cleave_error err;
  cleave_status st;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS st = cleave_plan_run_exec(plan, input, outputs, &exec, &err);
    Py_END_ALLOW_THREADS
  } else if (threads > 1) {
    st = cleave_plan_run_exec(plan, input, outputs, &exec, &err);
  } else {
    st = cleave_plan_run(plan, input, outputs, &err);
  }
  return check(st, &err);
}

/*
 * The module's output arena (copy=True outputs come from it): created on first use with the
 * current limit, replaced when the limit changes. A run holds a use of the arena it allocates
 * from, so that a limit change made by another thread while the run has the GIL released never
 * destroys an arena that is still being allocated from: the retired arena is destroyed when its
 * last run ends. Blocks outlive the arena's destruction (the library releases an arena when its
 * last block is freed), so arrays survive a limit change and module teardown. Guarded by the GIL.
 */
typedef struct {
  cleave_arena *arena;
  size_t runs; /* runs in flight allocating from it */
  int retired; /* destroy when runs reaches 0 */
} arena_slot;

static arena_slot *arena_current;
static size_t arena_limit = PCL_ARENA_DEFAULT_LIMIT;

static void arena_slot_release(arena_slot *slot) {
  if (slot->retired && slot->runs == 0) {
    cleave_arena_destroy(slot->arena);
    PyMem_RawFree(slot);
  }
}

static void arena_retire(void) {
  arena_slot *slot = arena_current;
  arena_current = NULL;
  if (slot != NULL) {
    slot->retired = 1;
    arena_slot_release(slot);
  }
}

/* The arena to allocate from, with a use taken (NULL and no error: the limit is 0). */
static int arena_acquire(arena_slot **slot) {
  *slot = NULL;
  if (arena_limit == 0) {
    return 0;
  }
  if (arena_current == NULL) {
    arena_slot *s = PyMem_RawCalloc(1, sizeof *s);
    if (s == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    cleave_error err;
    if (check(cleave_arena_create(arena_limit, NULL, &s->arena, &err), &err) < 0) {
      PyMem_RawFree(s);
      return -1;
    }
    arena_current = s;
  }
  arena_current->runs++;
  *slot = arena_current;
  return 0;
}

size_t pcl_arena_limit(void) {
  return arena_limit;
}

void pcl_arena_set_limit(size_t limit_bytes) {
  if (limit_bytes != arena_limit) {
    arena_retire(); /* the next copy creates one with the new limit */
    arena_limit = limit_bytes;
  }
}

size_t pcl_arena_trim(size_t keep_bytes) {
  return arena_current != NULL ? cleave_arena_trim(arena_current->arena, keep_bytes) : 0;
}

void pcl_arena_get_stats(pcl_arena_stats *stats) {
  cleave_arena_stats s = cleave_arena_get_stats(arena_current ? arena_current->arena : NULL);
  stats->limit_bytes = arena_limit;
  stats->kept_bytes = s.kept_bytes;
  stats->kept_blocks = s.kept_blocks;
  stats->used_bytes = s.used_bytes;
  stats->used_blocks = s.used_blocks;
  stats->reused = s.reused;
  stats->allocated = s.allocated;
}

void pcl_arena_release(void) {
  arena_retire();
}

int pcl_plan_run_alloc(const pcl_plan *plan, const void *input, void **outputs, int threads,
                       int release_gil) {
  cleave_exec exec;
  if (exec_for(threads, &exec) < 0) {
    return -1;
  }
  arena_slot *slot;
  if (arena_acquire(&slot) < 0) {
    return -1;
  }
  cleave_allocator allocator =
      slot != NULL ? cleave_arena_allocator(slot->arena) : cleave_allocator_system();
  cleave_error err;
  cleave_status st;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS st =
        cleave_plan_run_alloc_with(plan, input, &exec, &allocator, outputs, &err);
    Py_END_ALLOW_THREADS
  } else {
    st = cleave_plan_run_alloc_with(plan, input, &exec, &allocator, outputs, &err);
  }
  if (slot != NULL) {
    slot->runs--;
    arena_slot_release(slot);
  }
  return check(st, &err);
}

void pcl_outputs_free(void **outputs, size_t count) {
  cleave_outputs_free(outputs, count);
}

int pcl_infer_partial(const pcl_op *op, int unknown_axis, int unknown_lengths, pcl_type type,
                      int64_t rank, const pcl_dim *dims_in, pcl_partial_info *info, pcl_dim *dims,
                      size_t capacity) {
  cleave_op c = to_cleave_op(op);
  if (unknown_axis && !op->has_axis) {
    c.axis = cleave_values_scalar(&op->axis);
  }
  /* pcl_dim and cleave_dim have the same layout (checked at compile time in module.c). */
  cleave_partial_shape shape = {rank == PCL_RANK_DYNAMIC ? CLEAVE_RANK_DYNAMIC : (size_t)rank,
                                (const cleave_dim *)(const void *)dims_in};
  unsigned unknown =
      (unknown_axis ? CLEAVE_UNKNOWN_AXIS : 0u) | (unknown_lengths ? CLEAVE_UNKNOWN_LENGTHS : 0u);
  cleave_partial_info ci;
  cleave_error err;
  cleave_status st = cleave_infer_partial(&c, unknown, to_cleave_type(type), &shape, &ci,
                                          (cleave_dim *)(void *)dims, capacity, &err);
  if (check(st, &err) < 0) {
    return -1;
  }
  info->count.lo = ci.count.lo;
  info->count.hi = ci.count.hi;
  info->count_varies = ci.count_varies;
  info->num_shapes = (int64_t)ci.num_shapes;
  info->output_rank =
      ci.output_rank == CLEAVE_RANK_DYNAMIC ? PCL_RANK_DYNAMIC : (int64_t)ci.output_rank;
  info->axis = ci.axis == CLEAVE_AXIS_UNKNOWN ? -1 : (int64_t)ci.axis;
  info->axis_removed = ci.axis_removed;
  info->dims_needed = (int64_t)ci.dims_needed;
  return 0;
}

int pcl_partial_shape_parse(const char *text, pcl_dim *dims, size_t capacity, int64_t *rank) {
  cleave_error err;
  size_t r = 0;
  cleave_status st =
      cleave_partial_shape_parse(text, (cleave_dim *)(void *)dims, capacity, &r, &err);
  *rank = r == CLEAVE_RANK_DYNAMIC ? PCL_RANK_DYNAMIC : (int64_t)r;
  return check(st, &err);
}

PyObject *pcl_partial_shape_format(int64_t rank, const pcl_dim *dims) {
  cleave_partial_shape shape = {rank == PCL_RANK_DYNAMIC ? CLEAVE_RANK_DYNAMIC : (size_t)rank,
                                (const cleave_dim *)(const void *)dims};
  size_t length = 0;
  cleave_error err;
  cleave_status st = cleave_partial_shape_format(&shape, NULL, 0, &length, &err);
  if (st != CLEAVE_OK && st != CLEAVE_ERROR_CAPACITY) {
    check(st, &err);
    return NULL;
  }
  char *buf = PyMem_Malloc(length + 1);
  if (buf == NULL) {
    return PyErr_NoMemory();
  }
  st = cleave_partial_shape_format(&shape, buf, length + 1, &length, &err);
  PyObject *text =
      check(st, &err) < 0 ? NULL : PyUnicode_FromStringAndSize(buf, (Py_ssize_t)length);
  PyMem_Free(buf);
  return text;
}
