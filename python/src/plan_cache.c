/* Plans of both families and a small cache of them for the one-shot functions (see
 * plan_cache.h); the slots are in the module state, replaced round-robin. */
#include "plan_cache.h"

#include "errors.h"

#include <string.h>

static int same_key(const pcl_entry *e, const pcl_op *op, const cleave_tensor *inputs, size_t n) {
  if (e->num_inputs != n) {
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    const cleave_tensor *t = &inputs[i];
    if (t->rank != e->rank || t->type.dtype != e->type.dtype || t->type.width != e->type.width ||
        (e->rank > 0 && memcmp(t->shape, e->shapes + i * e->rank, e->rank * sizeof(int64_t)))) {
      return 0;
    }
  }
  return pcl_op_equal(&e->op, op);
}

static void destroy_plan(const pcl_entry *e) {
  if (e->op.row->family == PCL_CONCAT) {
    cleave_concat_plan_destroy(e->plan.concat);
  } else {
    cleave_plan_destroy(e->plan.split);
  }
}

/* The library's plan of e->op on the inputs, and what it says of its outputs. */
static int create_plan(pcl_entry *e, const cleave_tensor *inputs, size_t n) {
  cleave_error err;
  if (e->op.row->family == PCL_SPLIT) {
    const cleave_tensor *x = &inputs[0];
    if (pcl_check(
            cleave_plan_create(&e->op.c.split, x->type, x->shape, x->rank, &e->plan.split, &err),
            &err) < 0) {
      return -1;
    }
    e->info.split = *cleave_plan_info(e->plan.split);
    return 0;
  }
  if (pcl_check(cleave_concat_plan_create(&e->op.c.concat, inputs, n, NULL, &e->plan.concat, &err),
                &err) < 0) {
    return -1;
  }
  e->info.concat = *cleave_concat_plan_info(e->plan.concat);
  if (pcl_check(cleave_concat_plan_output_shape(e->plan.concat, e->output_shape, &err), &err) < 0) {
    cleave_concat_plan_destroy(e->plan.concat);
    return -1;
  }
  return 0;
}

pcl_entry *pcl_entry_new(const pcl_op *op, const cleave_tensor *inputs, size_t n) {
  /* The library checks that the inputs have one rank (and that there is one); the entry keeps
   * n shapes of the first's rank, which the binding caps (a stacked output has one more). */
  size_t rank = n > 0 ? inputs[0].rank : 0;
  if (rank > PCL_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "rank %zu is above the %d supported", rank, PCL_MAX_RANK);
    return NULL;
  }
  int too_many =
      rank > 0 && n > ((size_t)PY_SSIZE_T_MAX - sizeof(pcl_entry)) / sizeof(int64_t) / rank;
  pcl_entry *e = too_many ? NULL : PyMem_Calloc(1, sizeof *e + n * rank * sizeof(int64_t));
  if (e == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  if (pcl_op_copy(&e->op, op) < 0) {
    PyMem_Free(e);
    return NULL;
  }
  if (create_plan(e, inputs, n) < 0) {
    pcl_op_clear(&e->op);
    PyMem_Free(e);
    return NULL;
  }
  e->type = inputs[0].type; /* n >= 1 and one type: the plan exists */
  e->num_inputs = n;
  e->rank = rank;
  for (size_t i = 0; i < n && rank > 0; i++) {
    memcpy(e->shapes + i * rank, inputs[i].shape, rank * sizeof(int64_t));
  }
  e->refs = 1;
  return e;
}

void pcl_entry_decref(pcl_entry *e) {
  if (e != NULL && --e->refs == 0) {
    destroy_plan(e);
    pcl_op_clear(&e->op);
    PyMem_Free(e);
  }
}

pcl_entry *pcl_entry_get(const pcl_op *op, const cleave_tensor *inputs, size_t n) {
  pcl_state *s = &pcl_module_state;
  for (int i = 0; i < PCL_PLAN_CACHE_SIZE; i++) {
    if (s->plan_cache[i] != NULL && same_key(s->plan_cache[i], op, inputs, n)) {
      s->plan_cache[i]->refs++;
      return s->plan_cache[i];
    }
  }
  pcl_entry *e = pcl_entry_new(op, inputs, n);
  if (e == NULL) {
    return NULL;
  }
  unsigned slot = s->plan_cache_next++ % PCL_PLAN_CACHE_SIZE;
  pcl_entry_decref(s->plan_cache[slot]);
  s->plan_cache[slot] = e;
  e->refs++;
  return e;
}

void pcl_plan_cache_clear(void) {
  pcl_state *s = &pcl_module_state;
  for (int i = 0; i < PCL_PLAN_CACHE_SIZE; i++) {
    pcl_entry_decref(s->plan_cache[i]);
    s->plan_cache[i] = NULL;
  }
}

size_t pcl_entry_num_outputs(const pcl_entry *e) {
  return e->op.row->family == PCL_CONCAT ? 1 : e->info.split.num_outputs;
}

size_t pcl_entry_axis(const pcl_entry *e) {
  return e->op.row->family == PCL_CONCAT ? e->info.concat.axis : e->info.split.axis;
}

int64_t pcl_entry_element_bits(const pcl_entry *e) {
  return e->op.row->family == PCL_CONCAT ? e->info.concat.element_bits : e->info.split.element_bits;
}

const char *pcl_entry_description(const pcl_entry *e) {
  const char *d = e->op.row->family == PCL_CONCAT ? cleave_concat_plan_description(e->plan.concat)
                                                  : cleave_plan_description(e->plan.split);
  return d != NULL ? d : "";
}

int64_t pcl_entry_output_bytes(const pcl_entry *e, size_t i) {
  return e->op.row->family == PCL_CONCAT ? e->info.concat.output_bytes
                                         : cleave_plan_output_bytes(e->plan.split, i);
}

size_t pcl_entry_output_rank(const pcl_entry *e) {
  return e->op.row->family == PCL_CONCAT ? e->info.concat.output_rank : e->info.split.output_rank;
}

int pcl_entry_output_dims(const pcl_entry *e, size_t i, int packed, npy_intp *dims) {
  if (packed) {
    dims[0] = (npy_intp)pcl_entry_output_bytes(e, i);
    return 1;
  }
  if (e->op.row->family == PCL_SPLIT) {
    return pcl_split_output_dims(e->shapes, e->rank, &e->info.split,
                                 cleave_plan_output_length(e->plan.split, i), dims);
  }
  for (size_t d = 0; d < e->info.concat.output_rank; d++) {
    dims[d] = (npy_intp)e->output_shape[d];
  }
  return (int)e->info.concat.output_rank;
}

int pcl_split_output_dims(const int64_t *shape, size_t rank, const cleave_split_info *info,
                          int64_t length, npy_intp *dims) {
  int nd = 0;
  for (size_t d = 0; d < rank; d++) {
    if (d == info->axis) {
      if (!info->axis_removed) {
        dims[nd++] = (npy_intp)length;
      }
    } else {
      dims[nd++] = (npy_intp)shape[d];
    }
  }
  return nd;
}
