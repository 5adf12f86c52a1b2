/* A small cache of plans for the one-shot functions (see plan_cache.h); the slots are in the
 * module state, replaced round-robin. */
#include "plan_cache.h"

#include "errors.h"

#include <string.h>

static int same_key(const pcl_entry *e, const pcl_op *op, cleave_type type, const int64_t *shape,
                    size_t rank) {
  return e->rank == rank && e->type.dtype == type.dtype && e->type.width == type.width &&
         memcmp(e->shape, shape, rank * sizeof(int64_t)) == 0 && pcl_op_equal(&e->op, op);
}

pcl_entry *pcl_entry_new(const pcl_op *op, cleave_type type, const int64_t *shape, size_t rank) {
  if (rank > PCL_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "rank %zu is above the %d supported", rank, PCL_MAX_RANK);
    return NULL;
  }
  pcl_entry *e = PyMem_Calloc(1, sizeof *e);
  if (e == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  if (pcl_op_copy(&e->op, op) < 0) {
    PyMem_Free(e);
    return NULL;
  }
  e->type = type;
  e->rank = rank;
  memcpy(e->shape, shape, rank * sizeof(int64_t));
  cleave_error err;
  if (pcl_check(cleave_plan_create(&e->op.c, type, shape, rank, &e->plan, &err), &err) < 0) {
    pcl_op_clear(&e->op);
    PyMem_Free(e);
    return NULL;
  }
  e->info = *cleave_plan_info(e->plan);
  e->refs = 1;
  return e;
}

void pcl_entry_decref(pcl_entry *e) {
  if (e != NULL && --e->refs == 0) {
    cleave_plan_destroy(e->plan);
    pcl_op_clear(&e->op);
    PyMem_Free(e);
  }
}

pcl_entry *pcl_entry_get(const pcl_op *op, cleave_type type, const int64_t *shape, size_t rank) {
  pcl_state *s = &pcl_module_state;
  for (int i = 0; i < PCL_PLAN_CACHE_SIZE; i++) {
    if (s->plan_cache[i] != NULL && same_key(s->plan_cache[i], op, type, shape, rank)) {
      s->plan_cache[i]->refs++;
      return s->plan_cache[i];
    }
  }
  pcl_entry *e = pcl_entry_new(op, type, shape, rank);
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
