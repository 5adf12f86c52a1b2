/*
 * Static shape inference: `cleave_resolve` runs the rules (rules/prepare.c, rules/split.c) on a
 * static shape with known values, where every interval is a point, and computes the geometry
 * execution needs (byte-sized and packed); `cleave_infer` is its public face. Every entry point
 * (inference, one-shot runs, views, plans) goes through `cleave_resolve`, and partial inference
 * (partial.c) through the same rules, so they cannot drift apart.
 */
#include "infer/infer.h"
#include "rules/rules.h"

cleave_status cleave_resolve(const cleave_op *op, cleave_type type, const int64_t *shape,
                             size_t rank, cleave_geometry *geom, cleave_error *err) {
  if (op == NULL || geom == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the operator description is NULL");
  }
  *geom = (cleave_geometry){.minus_one = -1};
  /* Ranks above INT32_MAX are rejected by check_shape; clamp so that the conversion is exact
   * for every rank it lets through. */
  int64_t view_rank = rank > (size_t)INT64_MAX ? INT64_MAX : (int64_t)rank;
  cleave_shape_view view = {view_rank, shape, NULL, rank};
  cleave_prepared prep;
  cleave_status st = cleave_prepare(op, CLEAVE_UNKNOWN_NONE, type, &view, true, &prep, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t axis = prep.axis, d = shape[axis];
  cleave_split_hull hull;
  st = cleave_split_at(&prep, axis, cleave_dim_point(d), &hull, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  /* A point dimension and known values make every interval of the hull a point. */
  geom->info.axis = axis;
  geom->info.axis_dim = d;
  geom->info.element_size = prep.element_size;
  geom->info.element_bits = prep.element_bits;
  geom->info.num_outputs = hull.count.lo;
  geom->info.axis_removed = hull.axis_removed;
  geom->uniform = hull.uniform;
  geom->chunk = hull.chunk.lo;
  geom->last = hull.last.lo;
  geom->list = hull.list;
  geom->minus_one = hull.minus_one;
  geom->resolved = hull.resolved.lo;
  int64_t outer = 1, inner = prep.element_size == 0 ? 1 : prep.element_size;
  bool empty = false;
  for (size_t i = 0; i < rank; i++) {
    empty = empty || shape[i] == 0;
  }
  if (!empty) {
    /* check_shape proved the total fits, so these partial products do. */
    for (int64_t i = 0; i < axis; i++) {
      outer *= shape[i];
    }
    for (size_t i = (size_t)axis + 1; i < rank; i++) {
      inner *= shape[i];
    }
  }
  geom->outer = empty ? 0 : outer;
  geom->inner_bytes = empty ? 0 : inner;
  geom->bits_fit = true;
  geom->bytes_aligned = true;
  if (prep.element_size == 0) {
    cleave_geometry_pack(geom, empty, outer, inner, prep.bit_order == CLEAVE_BIT_ORDER_MSB_FIRST);
  }
  geom->info.output_rank = (int64_t)rank - (geom->info.axis_removed ? 1 : 0);
  return cleave_succeed(err);
}

cleave_status cleave_infer(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                           cleave_split_info *info, int64_t *lengths, size_t capacity,
                           cleave_error *err) {
  if (info == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "cleave_infer needs an info result");
  }
  cleave_geometry geom;
  cleave_status st = cleave_resolve(op, type, shape, rank, &geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  *info = cleave_split_info_of(&geom.info);
  if (lengths != NULL) {
    if ((uint64_t)capacity < (uint64_t)geom.info.num_outputs) {
      return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                         "lengths holds %zu entries but the operator has %" PRId64 " outputs",
                         capacity, geom.info.num_outputs);
    }
    for (int64_t i = 0; i < geom.info.num_outputs; i++) {
      lengths[i] = cleave_geometry_length(&geom, i);
    }
  }
  return cleave_succeed(err);
}
