/* Concat plans shared by the one-shot functions and cleave.ConcatPlan: a plan is created once per
 * operator, type and input shapes and reused, so that a repeated call pays what the C library's
 * plan run costs (as plan_cache.h does for the splits). */
#ifndef PCL_CONCAT_CACHE_H
#define PCL_CONCAT_CACHE_H

#include "concat_op.h"

/* A concat plan with the key it was made for. Reference-counted under the GIL: a run that
 * releases the GIL holds a reference, so that the cache may drop the entry meanwhile. */
typedef struct pcl_concat_entry {
  Py_ssize_t refs;
  cleave_concat_plan *plan;
  cleave_concat_info info;                /* the plan's (cleave_concat_plan_info) */
  int64_t output_shape[PCL_MAX_RANK + 1]; /* info.output_rank dims (stacking adds one) */
  /* The key; the inputs all have one type and rank, since the plan exists. */
  pcl_concat_op op;
  cleave_type type;
  size_t num_inputs;
  size_t rank;
  int64_t *shapes; /* num_inputs * rank dims, owned (NULL when there are none) */
} pcl_concat_entry;

/* Returns a new reference to the plan for (op, inputs[0..n): their types and shapes), creating
 * and caching it when needed; NULL with the library's error when the operator is invalid on
 * those inputs. */
pcl_concat_entry *pcl_concat_entry_get(const pcl_concat_op *op, const cleave_tensor *inputs,
                                       size_t n);
/* Creates an uncached entry (cleave.ConcatPlan): a new reference, or NULL with an exception. */
pcl_concat_entry *pcl_concat_entry_new(const pcl_concat_op *op, const cleave_tensor *inputs,
                                       size_t n);
/* Drops a reference (entry may be NULL); the last one destroys the plan. */
void pcl_concat_entry_decref(pcl_concat_entry *entry);
/* Drops every cached concat plan (module teardown). */
void pcl_concat_cache_clear(void);

#endif
