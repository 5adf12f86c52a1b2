/* Zero-copy views: each output described as (data pointer, shape, strides) inside the input. */
#include "run/run.h"

#include <inttypes.h>

/* A packed output is a view only when each of its rows starts on a byte boundary: its offset in
 * the row is whole bytes and, with several rows, so is the row. */
static cleave_status check_packed_views(const cleave_geometry *geom, cleave_error *err) {
  int64_t offset = 0;
  bool rows_aligned = geom->outer == 1 || geom->info.axis_dim * geom->inner_bits % 8 == 0;
  for (int64_t i = 0; i < geom->info.num_outputs; i++) {
    int64_t length = cleave_geometry_length(geom, i);
    int64_t bit = offset * geom->inner_bits % 8;
    if (length > 0 && (bit != 0 || !rows_aligned)) {
      if (bit != 0) {
        return cleave_fail(err, CLEAVE_ERROR_COPY_REQUIRED,
                           "output %" PRId64 " starts at bit %" PRId64
                           " of a byte: a view of packed data must start on a byte boundary, so "
                           "this output needs a copy",
                           i, bit);
      }
      return cleave_fail(err, CLEAVE_ERROR_COPY_REQUIRED,
                         "output %" PRId64 " has rows of %" PRId64
                         " bits that start inside bytes: a view of packed data must start on a "
                         "byte boundary, so this output needs a copy",
                         i, geom->info.axis_dim * geom->inner_bits);
    }
    offset += length;
  }
  return CLEAVE_OK;
}

cleave_status cleave_fill_views(const cleave_geometry *geom, const int64_t *shape, size_t rank,
                                const void *input, cleave_view *views, size_t num_views,
                                int64_t *dims, size_t dims_capacity, cleave_error *err) {
  const cleave_shape_info *info = &geom->info;
  int64_t n = info->num_outputs;
  if ((uint64_t)num_views != (uint64_t)n) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "num_views is %zu but the operator produces %" PRId64 " outputs", num_views,
                       n);
  }
  cleave_status st = cleave_check_array(views, "views", geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  size_t out_rank = (size_t)info->output_rank, need = 0;
  if (__builtin_mul_overflow((size_t)n, out_rank, &need) ||
      __builtin_mul_overflow(need, (size_t)2, &need)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "the views of %" PRId64 " outputs of rank %zu need more than SIZE_MAX dims",
                       n, out_rank);
  }
  if (dims_capacity < need) {
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "dims_capacity is %zu but the views need %zu entries (2 * %" PRId64
                       " outputs * rank %zu)",
                       dims_capacity, need, n, out_rank);
  }
  if (need > 0 && dims == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "dims is NULL but the views need %zu entries", need);
  }
  st = cleave_check_input(geom, input, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  bool has_bytes = cleave_geometry_has_data(geom);
  if (has_bytes && geom->packed) {
    st = check_packed_views(geom, err);
    if (st != CLEAVE_OK) {
      return st;
    }
  }
  if (n == 0) {
    return cleave_succeed(err);
  }
  /* The input's row-major strides, in elements. They can only overflow for an empty input
   * (whose total is 0 while a suffix product is huge); such strides are reported as 0. */
  if (out_rank == 0) {
    /* Rank-0 outputs (a 1-D input split into its elements without keepdims). */
    const unsigned char *base = input;
    for (int64_t i = 0; i < n; i++) {
      views[i] = (cleave_view){base != NULL ? base + cleave_geometry_bytes(geom, i) : NULL, 0, NULL,
                               NULL, 1};
    }
    return cleave_succeed(err);
  }
  int64_t *strides0 = dims + out_rank; /* output 0's strides, copied to the others */
  int64_t stride = 1;
  bool overflowed = false;
  size_t at = out_rank;
  for (size_t k = rank; k-- > 0;) {
    if (k == (size_t)info->axis && info->axis_removed) {
      overflowed = overflowed || cleave_mul_overflows(stride, shape[k], &stride);
      continue;
    }
    strides0[--at] = overflowed ? 0 : stride;
    overflowed = overflowed || cleave_mul_overflows(stride, shape[k], &stride);
  }
  if (overflowed) {
    /* Every stride before the overflow was computed from a product that later overflowed:
     * clear them all rather than report wrapped values. */
    for (size_t k = 0; k < out_rank; k++) {
      strides0[k] = 0;
    }
  }
  const unsigned char *base = input;
  int64_t offset = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t length = cleave_geometry_length(geom, i);
    int64_t *dshape = dims + (size_t)i * 2 * out_rank, *dstrides = dshape + out_rank;
    size_t d = 0;
    for (size_t k = 0; k < rank; k++) {
      if (k != (size_t)info->axis) {
        dshape[d++] = shape[k];
      } else if (!info->axis_removed) {
        dshape[d++] = length;
      }
    }
    if (i > 0) {
      for (size_t k = 0; k < out_rank; k++) {
        dstrides[k] = strides0[k];
      }
    }
    cleave_view *v = &views[i];
    /* Within the input's byte size (0 for an empty input); whole bytes for packed views. */
    v->data = base != NULL ? base + cleave_geometry_bytes(geom, offset) : NULL;
    v->rank = out_rank;
    v->shape = dshape;
    v->strides = dstrides;
    bool empty = !has_bytes || length == 0;
    v->contiguous = empty || geom->outer == 1 || length == info->axis_dim;
    offset += length;
  }
  return cleave_succeed(err);
}

cleave_status cleave_views(const cleave_op *op, const cleave_tensor *input, cleave_view *views,
                           size_t num_views, int64_t *dims, size_t dims_capacity,
                           cleave_error *err) {
  if (input == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the input tensor is NULL");
  }
  cleave_geometry geom;
  cleave_status st = cleave_resolve(op, input->type, input->shape, input->rank, &geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  return cleave_fill_views(&geom, input->shape, input->rank, input->data, views, num_views, dims,
                           dims_capacity, err);
}
