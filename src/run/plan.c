/* Plans: an operator validated once for one input type and shape, with its copy schedule, then
 * run many times. */
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plan's copy schedule: segments inline when they fit, the engine, the description. */
static cleave_status plan_schedule(cleave_plan *p, const cleave_kernels *kernels,
                                   cleave_error *err) {
  return cleave_schedule(&p->geom, &p->options, kernels, false, p->inline_segs,
                         CLEAVE_PLAN_INLINE_SEGS, &p->segs, &p->engine, p->description,
                         sizeof p->description, err);
}

cleave_status cleave_plan_create(const cleave_op *op, cleave_type type, const int64_t *shape,
                                 size_t rank, cleave_plan **plan, cleave_error *err) {
  return cleave_plan_create_with(op, type, shape, rank, NULL, plan, err);
}

cleave_status cleave_plan_create_with(const cleave_op *op, cleave_type type, const int64_t *shape,
                                      size_t rank, const cleave_plan_options *options,
                                      cleave_plan **plan, cleave_error *err) {
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
  st = cleave_check_in_memory(&geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_plan_options opts = options != NULL ? *options : cleave_plan_options_default();
  const cleave_kernels *kernels = NULL;
  st = cleave_options_check(&opts, err);
  if (st == CLEAVE_OK) {
    st = cleave_kernels_pick(opts.kernels, &kernels, err);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_plan *p = calloc(1, sizeof *p);
  if (p == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate a plan");
  }
  p->rank = rank;
  p->options = opts;
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
    p->list = cleave_values_list(p->lengths, count);
    geom.list = &p->list;
    geom.minus_one = -1;
  }
  p->geom = geom;
  p->info = cleave_split_info_of(&geom.info);
  st = plan_schedule(p, kernels, err);
  if (st != CLEAVE_OK) {
    cleave_plan_destroy(p);
    return st;
  }
  *plan = p;
  return cleave_succeed(err);
}

void cleave_plan_destroy(cleave_plan *plan) {
  if (plan != NULL) {
    free(plan->segs);
    free(plan->lengths);
    free(plan->shape);
    free(plan);
  }
}

const cleave_split_info *cleave_plan_info(const cleave_plan *plan) {
  return plan != NULL ? &plan->info : NULL;
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
  return cleave_geometry_output_bytes(&plan->geom, length);
}

cleave_status cleave_plan_output_shape(const cleave_plan *plan, size_t i, int64_t *dims,
                                       cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  const cleave_shape_info *info = &plan->geom.info;
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

const char *cleave_plan_description(const cleave_plan *plan) {
  return plan != NULL ? plan->description : NULL;
}

cleave_status cleave_plan_run(const cleave_plan *plan, const void *input, void *const *outputs,
                              cleave_error *err) {
  return cleave_plan_run_exec(plan, input, outputs, NULL, err);
}

cleave_status cleave_plan_run_exec(const cleave_plan *plan, const void *input, void *const *outputs,
                                   const cleave_exec *exec, cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  cleave_status st = cleave_check_buffers(&plan->geom, input, outputs, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (!plan->geom.bytes_aligned) {
    cleave_copy_packed(&plan->geom, input, outputs, exec, plan->options.parallel_bytes);
  } else {
    cleave_engine_run(&plan->engine, input, outputs, exec);
  }
  return cleave_succeed(err);
}

cleave_status cleave_plan_views(const cleave_plan *plan, const void *input, cleave_view *views,
                                size_t num_views, int64_t *dims, size_t dims_capacity,
                                cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  return cleave_fill_views(&plan->geom, plan->shape, plan->rank, input, views, num_views, dims,
                           dims_capacity, err);
}
