/* A small cache of concat plans for the one-shot functions (see concat_cache.h); the slots are in
 * the module state, replaced round-robin. */
#include "concat_cache.h"

#include "errors.h"

#include <string.h>

static int same_key(const pcl_concat_entry *e, const pcl_concat_op *op, const cleave_tensor *inputs,
                    size_t n) {
  if (e->num_inputs != n || !pcl_concat_op_equal(&e->op, op)) {
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    const cleave_tensor *t = &inputs[i];
    if (t->rank != e->rank || t->type.dtype != e->type.dtype || t->type.width != e->type.width ||
        (e->rank > 0 && memcmp(t->shape, e->shapes + i * e->rank, e->rank * sizeof(int64_t)))) {
      return 0;
    }
  }
  return 1;
}

pcl_concat_entry *pcl_concat_entry_new(const pcl_concat_op *op, const cleave_tensor *inputs,
                                       size_t n) {
  pcl_concat_entry *e = PyMem_Calloc(1, sizeof *e);
  if (e == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  pcl_concat_op_copy(&e->op, op);
  cleave_error err;
  if (pcl_check(cleave_concat_plan_create(&e->op.c, inputs, n, NULL, &e->plan, &err), &err) < 0) {
    PyMem_Free(e);
    return NULL;
  }
  e->info = *cleave_concat_plan_info(e->plan);
  e->num_inputs = n;
  e->type = inputs[0].type; /* n >= 1 and one type: the plan exists */
  e->rank = inputs[0].rank;
  if (e->info.output_rank > PCL_MAX_RANK + 1 ||
      pcl_check(cleave_concat_plan_output_shape(e->plan, e->output_shape, &err), &err) < 0) {
    if (!PyErr_Occurred()) {
      PyErr_Format(PyExc_ValueError, "rank %zu is above the %d supported", e->info.output_rank,
                   PCL_MAX_RANK);
    }
    cleave_concat_plan_destroy(e->plan);
    PyMem_Free(e);
    return NULL;
  }
  if (e->rank > 0) {
    e->shapes = n > (size_t)PY_SSIZE_T_MAX / (e->rank * sizeof(int64_t))
                    ? NULL
                    : PyMem_Malloc(n * e->rank * sizeof(int64_t));
    if (e->shapes == NULL) {
      cleave_concat_plan_destroy(e->plan);
      PyMem_Free(e);
      PyErr_NoMemory();
      return NULL;
    }
    for (size_t i = 0; i < n; i++) {
      memcpy(e->shapes + i * e->rank, inputs[i].shape, e->rank * sizeof(int64_t));
    }
  }
  e->refs = 1;
  return e;
}

void pcl_concat_entry_decref(pcl_concat_entry *e) {
  if (e != NULL && --e->refs == 0) {
    cleave_concat_plan_destroy(e->plan);
    PyMem_Free(e->shapes);
    PyMem_Free(e);
  }
}

pcl_concat_entry *pcl_concat_entry_get(const pcl_concat_op *op, const cleave_tensor *inputs,
                                       size_t n) {
  pcl_state *s = &pcl_module_state;
  for (int i = 0; i < PCL_PLAN_CACHE_SIZE; i++) {
    if (s->concat_cache[i] != NULL && same_key(s->concat_cache[i], op, inputs, n)) {
      s->concat_cache[i]->refs++;
      return s->concat_cache[i];
    }
  }
  pcl_concat_entry *e = pcl_concat_entry_new(op, inputs, n);
  if (e == NULL) {
    return NULL;
  }
  unsigned slot = s->concat_cache_next++ % PCL_PLAN_CACHE_SIZE;
  pcl_concat_entry_decref(s->concat_cache[slot]);
  s->concat_cache[slot] = e;
  e->refs++;
  return e;
}

void pcl_concat_cache_clear(void) {
  pcl_state *s = &pcl_module_state;
  for (int i = 0; i < PCL_PLAN_CACHE_SIZE; i++) {
    pcl_concat_entry_decref(s->concat_cache[i]);
    s->concat_cache[i] = NULL;
  }
}
