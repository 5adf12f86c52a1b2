/* Plans: an operator validated once for one input type and shape, then run many times. */
#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct cleave_plan {
  cleave_geometry geom; /* in list mode, geom.list points at `list` below */
  cleave_values list;   /* the resolved lengths (no -1 left), owned: `lengths` */
  int64_t *lengths;     /* list mode only */
  int64_t *shape;       /* the input shape, owned */
  size_t rank;
};

cleave_status cleave_plan_create(const cleave_op *op, cleave_type type, const int64_t *shape,
                                 size_t rank, cleave_plan **plan, cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_plan_create needs a plan result");
  }
  *plan = NULL;
  cleave_geometry geom;
  cleave_status st = cleave_resolve(op, type, shape, rank, &geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_plan *p = calloc(1, sizeof *p);
  if (p == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate a plan");
  }
  p->rank = rank;
  if (rank > 0) {
    p->shape = malloc(rank * sizeof *p->shape);
    if (p->shape == NULL) {
      cleave_plan_destroy(p);
      return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                         "cannot allocate a plan's shape of rank %zu", rank);
    }
    memcpy(p->shape, shape, rank * sizeof *p->shape);
  }
  if (!geom.uniform) {
    /* The caller's values need not outlive the call: keep the resolved lengths. The count is
     * that of an array the caller holds, so the allocation is bounded by the caller's. */
    size_t count = (size_t)geom.info.num_outputs;
    p->lengths = malloc(count * sizeof *p->lengths);
    if (p->lengths == NULL) {
      cleave_plan_destroy(p);
      return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                         "cannot allocate a plan for %" PRId64 " outputs", geom.info.num_outputs);
    }
    for (size_t i = 0; i < count; i++) {
      p->lengths[i] = cleave_geometry_length(&geom, (int64_t)i);
    }
    p->list = cleave_values_list(p->lengths, geom.info.num_outputs);
    geom.list = &p->list;
    geom.minus_one = -1;
  }
  p->geom = geom;
  *plan = p;
  return cleave_succeed(err);
}

void cleave_plan_destroy(cleave_plan *plan) {
  if (plan != NULL) {
    free(plan->lengths);
    free(plan->shape);
    free(plan);
  }
}

const cleave_split_info *cleave_plan_info(const cleave_plan *plan) {
  return plan != NULL ? &plan->geom.info : NULL;
}

int64_t cleave_plan_output_length(const cleave_plan *plan, size_t i) {
  if (plan == NULL || (uint64_t)i >= (uint64_t)plan->geom.info.num_outputs) {
    return -1;
  }
  return cleave_geometry_length(&plan->geom, (int64_t)i);
}

int64_t cleave_plan_output_bytes(const cleave_plan *plan, size_t i) {
  int64_t length = cleave_plan_output_length(plan, i);
  if (length < 0) {
    return -1;
  }
  /* Bounded by the input's byte size, which cleave_resolve proved fits. */
  return plan->geom.outer * length * plan->geom.inner_bytes;
}

cleave_status cleave_plan_output_shape(const cleave_plan *plan, size_t i, int64_t *dims,
                                       cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  const cleave_split_info *info = &plan->geom.info;
  if ((uint64_t)i >= (uint64_t)info->num_outputs) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "output %zu does not exist: the plan has %" PRId64 " outputs", i,
                       info->num_outputs);
  }
  if (dims == NULL && info->output_rank > 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "dims is NULL but the output has rank %" PRId64, info->output_rank);
  }
  size_t at = 0;
  for (size_t k = 0; k < plan->rank; k++) {
    if ((int64_t)k != info->axis) {
      dims[at++] = plan->shape[k];
    } else if (!info->axis_removed) {
      dims[at++] = cleave_geometry_length(&plan->geom, (int64_t)i);
    }
  }
  return cleave_succeed(err);
}

cleave_status cleave_plan_run(const cleave_plan *plan, const void *input, void *const *outputs,
                              cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  cleave_status st = cleave_check_buffers(&plan->geom, input, outputs, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_copy_all(&plan->geom, input, outputs);
  return cleave_succeed(err);
}
