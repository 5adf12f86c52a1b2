/* A small cache of plans for the one-shot functions (see plan_cache.h). */
#include "plan_cache.h"

#include <string.h>

/* Eight plans: enough for a loop that splits a few different tensors, small enough that a linear
 * search costs a few nanoseconds. Guarded by the GIL. */
#define PCL_CACHE_SIZE 8
static pcl_entry *cache[PCL_CACHE_SIZE];
static unsigned next_victim;

static int same_key(const pcl_entry *e, const pcl_op *op, pcl_type type, const int64_t *shape,
                    size_t rank) {
  const pcl_op *k = &e->op;
  return e->rank == rank && k->kind == op->kind && k->num_splits == op->num_splits &&
         k->axis == op->axis && k->has_axis == op->has_axis && k->opset == op->opset &&
         k->has_lengths == op->has_lengths && k->count == op->count &&
         k->has_num_splits == op->has_num_splits && k->keepdims == op->keepdims &&
         k->lengths_rank == op->lengths_rank && e->type.dtype == type.dtype &&
         e->type.width == type.width && memcmp(e->shape, shape, rank * sizeof(int64_t)) == 0 &&
         (!op->has_lengths ||
          memcmp(k->lengths, op->lengths, (size_t)op->count * sizeof(int64_t)) == 0);
}

pcl_entry *pcl_entry_new(const pcl_op *op, pcl_type type, const int64_t *shape, size_t rank) {
  if (rank > PCL_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "rank %zu is above the %d supported", rank, PCL_MAX_RANK);
    return NULL;
  }
  pcl_entry *e = PyMem_Calloc(1, sizeof *e);
  if (e == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  e->op = *op;
  e->op.lengths = e->op.inline_lengths;
  if (op->has_lengths) {
    if (pcl_op_reserve(&e->op, op->count) < 0) {
      PyMem_Free(e);
      return NULL;
    }
    memcpy(e->op.lengths, op->lengths, (size_t)op->count * sizeof(int64_t));
  }
  e->type = type;
  e->rank = rank;
  memcpy(e->shape, shape, rank * sizeof(int64_t));
  if (pcl_plan_create(&e->op, type, shape, rank, &e->plan) < 0) {
    pcl_op_clear(&e->op);
    PyMem_Free(e);
    return NULL;
  }
  pcl_plan_info(e->plan, &e->info);
  e->refs = 1;
  return e;
}

void pcl_entry_decref(pcl_entry *e) {
  if (e != NULL && --e->refs == 0) {
    pcl_plan_destroy(e->plan);
    pcl_op_clear(&e->op);
    PyMem_Free(e);
  }
}

pcl_entry *pcl_entry_get(const pcl_op *op, pcl_type type, const int64_t *shape, size_t rank) {
  for (int i = 0; i < PCL_CACHE_SIZE; i++) {
    if (cache[i] != NULL && same_key(cache[i], op, type, shape, rank)) {
      cache[i]->refs++;
      return cache[i];
    }
  }
  pcl_entry *e = pcl_entry_new(op, type, shape, rank);
  if (e == NULL) {
    return NULL;
  }
  unsigned slot = next_victim++ % PCL_CACHE_SIZE;
  pcl_entry_decref(cache[slot]);
  cache[slot] = e;
  e->refs++;
  return e;
}

void pcl_plan_cache_clear(void) {
  for (int i = 0; i < PCL_CACHE_SIZE; i++) {
    pcl_entry_decref(cache[i]);
    cache[i] = NULL;
  }
}
