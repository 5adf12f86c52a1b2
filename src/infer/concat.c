/*
 * Static shape inference of the concatenating family: `cleave_concat_resolve` runs the rules
 * (rules/concat_prepare.c, rules/concat_dims.c) on static shapes, where every interval is a
 * point, and computes the geometry execution needs: the output cut along the axis into the
 * inputs, the split's geometry read the other way. `cleave_concat_infer` is its public face.
 */
#include "infer/infer.h"
#include "rules/rules.h"

#include <inttypes.h>

cleave_status cleave_concat_resolve(const cleave_concat_op *op, const cleave_tensor *inputs,
                                    size_t num_inputs, cleave_geometry *geom,
                                    cleave_concat_info *info, cleave_error *err) {
  if (geom == NULL || info == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the operator description is NULL");
  }
  cleave_concat_inputs in = {num_inputs, inputs, NULL, {CLEAVE_BOOLEAN, 0}};
  cleave_concat_prepared prep;
  cleave_status st = cleave_concat_prepare(op, CLEAVE_UNKNOWN_NONE, &in, true, &prep, err);
  if (st == CLEAVE_OK) {
    st = cleave_concat_at(&prep, prep.axis, NULL, err);
  }
  if (st == CLEAVE_OK) {
    st = cleave_concat_check_output_size(&prep, prep.axis, err);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t axis = prep.axis, rank = prep.output_rank;
  /* Every dim is a point now; the output's byte size fits, so every partial product does. */
  int64_t outer = 1, inner = 1, d = 0;
  bool empty = false;
  for (int64_t p = 0; p < rank; p++) {
    cleave_dim dim;
    cleave_concat_dim(&prep, axis, p, &dim, NULL);
    empty = empty || dim.lo == 0;
    if (p == axis) {
      d = dim.lo;
    }
  }
  for (int64_t p = 0; p < rank && !empty; p++) {
    cleave_dim dim;
    cleave_concat_dim(&prep, axis, p, &dim, NULL);
    if (p < axis) {
      outer *= dim.lo;
    } else if (p > axis) {
      inner *= dim.lo;
    }
  }
  *geom = (cleave_geometry){.minus_one = -1};
  geom->info.axis = axis;
  geom->info.axis_dim = d;
  geom->info.num_outputs = (int64_t)num_inputs;
  geom->info.output_rank = rank;
  geom->info.element_size = prep.element_size;
  geom->info.element_bits = prep.element_bits;
  if (prep.stack) {
    /* Stacking: each input is one slab of the new axis. */
    geom->uniform = true;
    geom->chunk = geom->last = 1;
  } else {
    geom->parts = inputs;
    geom->parts_axis = axis;
  }
  geom->outer = empty ? 0 : outer;
  geom->inner_bytes = empty ? 0 : inner * (prep.element_size == 0 ? 1 : prep.element_size);
  geom->bits_fit = true;
  geom->bytes_aligned = true;
  int64_t elements = empty ? 0 : outer * d * inner;
  int64_t bytes = elements * prep.element_size;
  if (prep.element_size == 0) {
    cleave_geometry_pack(geom, empty, outer, inner, prep.bit_order == CLEAVE_BIT_ORDER_MSB_FIRST);
    bytes = cleave_packed_bytes(elements, prep.element_bits);
  }
  *info = (cleave_concat_info){.axis = (size_t)axis,
                               .num_inputs = num_inputs,
                               .output_rank = (size_t)rank,
                               .new_axis = prep.stack ? 1 : 0,
                               .axis_dim = d,
                               .output_bytes = bytes,
                               .element_size = prep.element_size,
                               .element_bits = prep.element_bits};
  return cleave_succeed(err);
}

void cleave_concat_shape(const cleave_concat_info *info, const cleave_tensor *inputs,
                         int64_t *shape) {
  /* Off the axis the output has the inputs' dims (all equal): the first input's. */
  size_t k = 0;
  for (size_t p = 0; p < info->output_rank; p++) {
    if (p == info->axis) {
      shape[p] = info->axis_dim;
      k += info->new_axis ? 0 : 1;
    } else {
      shape[p] = inputs[0].shape[k++];
    }
  }
}

cleave_status cleave_concat_infer(const cleave_concat_op *op, const cleave_tensor *inputs,
                                  size_t num_inputs, cleave_concat_info *info, int64_t *shape,
                                  size_t capacity, cleave_error *err) {
  if (info == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_concat_infer needs an info result");
  }
  cleave_geometry geom;
  cleave_status st = cleave_concat_resolve(op, inputs, num_inputs, &geom, info, err);
  if (st != CLEAVE_OK || shape == NULL) {
    return st;
  }
  if (capacity < info->output_rank) {
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "shape holds %zu entries but the output has rank %zu", capacity,
                       info->output_rank);
  }
  cleave_concat_shape(info, inputs, shape);
  return cleave_succeed(err);
}
