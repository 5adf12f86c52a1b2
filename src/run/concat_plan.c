/* Concat plans: a concatenating operator validated once for its inputs' type and shapes, with the
 * split's copy schedule for the other direction, then run many times, into caller buffers or into
 * a block from an allocator. */
#include "memory/allocator.h"
#include "run/run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The output starts on a line, or on a page when it is 1 MiB or more (as split outputs of that
 * size do): streaming stores then write whole lines from its first byte. */
#define LINE 64
#define PAGE 4096
#define PAGE_MIN ((int64_t)1024 * 1024)

/* Everything a run needs, immutable after creation. */
struct cleave_concat_plan {
  cleave_geometry geom; /* list form: geom.list points at `list` */
  cleave_concat_info info;
  cleave_values list; /* the inputs' lengths on the axis, owned: `lengths` */
  int64_t *lengths;
  int64_t *shape; /* the output's shape, owned */
  cleave_plan_options options;
  cleave_engine engine; /* engine.segs points at `inline_segs` or `segs` */
  cleave_seg inline_segs[CLEAVE_PLAN_INLINE_SEGS];
  cleave_seg *segs;
  char description[96];
};

cleave_status cleave_concat_plan_create(const cleave_concat_op *op, const cleave_tensor *inputs,
                                        size_t num_inputs, const cleave_plan_options *options,
                                        cleave_concat_plan **plan, cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_concat_plan_create needs a plan result");
  }
  *plan = NULL;
  cleave_geometry geom;
  cleave_concat_info info;
  cleave_status st = cleave_concat_resolve(op, inputs, num_inputs, &geom, &info, err);
  if (st == CLEAVE_OK) {
    st = cleave_check_join_in_memory(&geom, err);
  }
  cleave_plan_options opts = options != NULL ? *options : cleave_plan_options_default();
  const cleave_kernels *kernels = NULL;
  if (st == CLEAVE_OK) {
    st = cleave_options_check(&opts, err);
  }
  if (st == CLEAVE_OK) {
    st = cleave_kernels_pick(opts.kernels, &kernels, err);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_concat_plan *p = calloc(1, sizeof *p);
  if (p == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate a concat plan");
  }
  p->options = opts;
  p->info = info;
  /* The counts are those of arrays the caller holds, so these allocations are bounded by the
   * caller's. */
  p->shape = malloc((info.output_rank > 0 ? info.output_rank : 1) * sizeof *p->shape);
  p->lengths = malloc(num_inputs * sizeof *p->lengths);
  if (p->shape == NULL || p->lengths == NULL) {
    cleave_concat_plan_destroy(p);
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                       "cannot allocate a concat plan for %zu inputs of rank %zu", num_inputs,
                       info.output_rank);
  }
  cleave_concat_shape(&info, inputs, p->shape);
  /* The inputs' shapes need not outlive the call: keep their lengths. */
  for (size_t i = 0; i < num_inputs; i++) {
    p->lengths[i] = cleave_geometry_length(&geom, (int64_t)i);
  }
  p->list = cleave_values_list(p->lengths, num_inputs);
  geom.parts = NULL;
  geom.uniform = false;
  geom.list = &p->list;
  geom.minus_one = -1;
  p->geom = geom;
  st =
      cleave_schedule(&p->geom, &p->options, kernels, true, p->inline_segs, CLEAVE_PLAN_INLINE_SEGS,
                      &p->segs, &p->engine, p->description, sizeof p->description, err);
  if (st != CLEAVE_OK) {
    cleave_concat_plan_destroy(p);
    return st;
  }
  *plan = p;
  return cleave_succeed(err);
}

void cleave_concat_plan_destroy(cleave_concat_plan *plan) {
  if (plan != NULL) {
    free(plan->segs);
    free(plan->lengths);
    free(plan->shape);
    free(plan);
  }
}

const cleave_concat_info *cleave_concat_plan_info(const cleave_concat_plan *plan) {
  return plan != NULL ? &plan->info : NULL;
}

cleave_status cleave_concat_plan_output_shape(const cleave_concat_plan *plan, int64_t *dims,
                                              cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  if (dims == NULL && plan->info.output_rank > 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "dims is NULL but the output has rank %zu", plan->info.output_rank);
  }
  for (size_t k = 0; k < plan->info.output_rank; k++) {
    dims[k] = plan->shape[k];
  }
  return cleave_succeed(err);
}

const char *cleave_concat_plan_description(const cleave_concat_plan *plan) {
  return plan != NULL ? plan->description : NULL;
}

/* Copies with the plan's schedule (or the bit-stream copy) through `engine`. */
static void join(const cleave_concat_plan *plan, const cleave_engine *engine, cleave_parts inputs,
                 void *output, const cleave_exec *exec) {
  if (!plan->geom.bytes_aligned) {
    cleave_join_packed(&plan->geom, inputs, output, exec, plan->options.parallel_bytes);
  } else {
    cleave_engine_join(engine, inputs, output, exec);
  }
}

cleave_status cleave_concat_plan_run(const cleave_concat_plan *plan, const void *const *inputs,
                                     void *output, const cleave_exec *exec, cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  cleave_parts parts = cleave_parts_of_pointers(inputs);
  cleave_status st = cleave_check_join_buffers(&plan->geom, parts, output, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  join(plan, &plan->engine, parts, output, exec);
  return cleave_succeed(err);
}

cleave_status cleave_concat_plan_run_alloc(const cleave_concat_plan *plan,
                                           const void *const *inputs, const cleave_exec *exec,
                                           const cleave_allocator *allocator, void **output,
                                           cleave_error *err) {
  if (output == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the output result is NULL");
  }
  /* Before any check: the header promises NULL on every failure, a NULL plan's included. */
  *output = NULL;
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  cleave_allocator system;
  cleave_status st = cleave_allocator_pick(&allocator, &system, err);
  cleave_parts parts = cleave_parts_of_pointers(inputs);
  if (st == CLEAVE_OK) {
    /* The output is checked once it exists; only the inputs can be wrong before. */
    static const unsigned char placeholder;
    st = cleave_check_join_buffers(&plan->geom, parts, &placeholder, err);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t bytes = plan->info.output_bytes;
  int64_t align = bytes >= PAGE_MIN ? PAGE : LINE;
  cleave_block block;
  st = cleave_block_alloc(allocator, bytes, align, "the output", &block, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_block_seal(&block, allocator, block.data);
  cleave_engine engine = plan->engine;
  cleave_fresh_memory(&engine, block.data, (size_t)bytes, exec);
  join(plan, &engine, parts, block.data, exec);
  *output = block.data;
  return cleave_succeed(err);
}
