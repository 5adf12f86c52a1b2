/* Plans shared by the one-shot functions and cleave.Plan: a plan is created once per operator,
 * type and shape and reused, so that a repeated call pays what the C library's plan run costs. */
#ifndef PCL_PLAN_CACHE_H
#define PCL_PLAN_CACHE_H

#include "op.h"

/* A plan with the key it was made for. Reference-counted under the GIL: a run that releases the
 * GIL holds a reference, so that the cache may drop the entry meanwhile. */
typedef struct pcl_entry {
  Py_ssize_t refs;
  cleave_plan *plan;
  cleave_split_info info; /* the plan's (cleave_plan_info) */
  /* The key; op is the entry's own copy. */
  pcl_op op;
  cleave_type type;
  size_t rank;
  int64_t shape[PCL_MAX_RANK];
} pcl_entry;

/* Returns a new reference to the plan for (op, type, shape), creating it (and caching it) when
 * needed; NULL with the library's error set when the operator is invalid on that input. */
pcl_entry *pcl_entry_get(const pcl_op *op, cleave_type type, const int64_t *shape, size_t rank);
/* Creates an uncached entry (cleave.Plan): a new reference, or NULL with an exception set. */
pcl_entry *pcl_entry_new(const pcl_op *op, cleave_type type, const int64_t *shape, size_t rank);
/* Drops a reference (entry may be NULL); the last one destroys the plan. */
void pcl_entry_decref(pcl_entry *entry);
/* Drops every cached plan (module teardown). */
void pcl_plan_cache_clear(void);

#endif
