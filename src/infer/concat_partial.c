/*
 * Partial-shape inference of the concatenating family (docs/operators.md sections 6 and 8): the
 * rules static inference (concat.c) applies, on intervals, for every axis position the axis may
 * take, combined into the tightest hull per dimension.
 *
 * For one axis position the output's dims are independent of one another (each is the inputs'
 * intersection at one position, or their sum at the axis) and every value of each is reachable,
 * so the hull over an unknown axis is, per dimension p, the union of the sum at p (when position
 * p is valid) and the intersection at p (when some other position is). A position is valid when
 * every intersection but its own is non-empty and its sum fits: with two empty intersections none
 * is, with one only that one's position can be. Nothing is allocated: the positions are visited a
 * few times instead.
 */
#include "rules/rules.h"

#include <string.h>

/* What the visit of the axis positions learns, for a concat (not a stack) of static rank. */
typedef struct survey {
  int64_t empty;     /* positions whose intersection is empty */
  int64_t first;     /* the first of them, or -1 */
  int64_t valid;     /* valid axis positions */
  int64_t one_valid; /* a valid position, or -1 */
} survey;

static bool position_valid(const cleave_concat_prepared *prep, const survey *sv, int64_t a) {
  if (sv->empty > 1 || (sv->empty == 1 && sv->first != a)) {
    return false;
  }
  cleave_dim sum;
  return cleave_concat_sum(prep, a, &sum, NULL) == CLEAVE_OK;
}

static void survey_positions(const cleave_concat_prepared *prep, survey *sv) {
  *sv = (survey){0, -1, 0, -1};
  int64_t r = prep->output_rank;
  for (int64_t j = 0; j < r && sv->empty < 2; j++) {
    cleave_dim d;
    if (cleave_concat_common(prep, j, 0, &d, NULL) != CLEAVE_OK) {
      sv->first = sv->empty++ == 0 ? j : sv->first;
    }
  }
  for (int64_t a = 0; a < r && sv->empty < 2; a++) {
    if (position_valid(prep, sv, a)) {
      sv->valid++;
      sv->one_valid = a;
    }
  }
}

/* The error when no axis position is valid: the first position's, noting whether the others
 * failed differently (as the split family reports an unknown axis). */
static cleave_status no_position(const cleave_concat_prepared *prep, cleave_error *err) {
  cleave_error first, other;
  cleave_status st = cleave_concat_at(prep, 0, NULL, &first);
  int64_t r = prep->output_rank;
  bool same = true;
  for (int64_t a = 1; a < r && same; a++) {
    cleave_status other_st = cleave_concat_at(prep, a, NULL, &other);
    same = other_st == st && strcmp(other.message, first.message) == 0;
  }
  if (same) {
    return cleave_fail(err, st, "%s", first.message);
  }
  bool negative_ok = prep->op->kind != CLEAVE_OP_ONNX_CONCAT || prep->version >= 11;
  return cleave_fail(err, st, "%s (and no other axis in [%" PRId64 ", %" PRId64 "] is valid)",
                     first.message, negative_ok ? -r : 0, r - 1);
}

/* Writes the hull over every axis position (they are all valid) of a stack. */
static void write_stack_hull(const cleave_concat_prepared *prep, cleave_dim *dims) {
  int64_t r = prep->output_rank; /* the inputs' rank plus 1 */
  for (int64_t p = 0; p < r; p++) {
    /* Position p holds the count when the axis is there, input dim p when the axis lies after
     * it, input dim p - 1 when before. */
    cleave_dim hull = cleave_dim_point((int64_t)prep->inputs->count), d;
    if (p < r - 1) {
      cleave_concat_common(prep, p, 0, &d, NULL);
      hull = cleave_dim_union(hull, d);
    }
    if (p > 0) {
      cleave_concat_common(prep, p - 1, 0, &d, NULL);
      hull = cleave_dim_union(hull, d);
    }
    dims[p] = hull;
  }
}

/* Writes the hull over the valid axis positions of a concat. */
static void write_concat_hull(const cleave_concat_prepared *prep, const survey *sv,
                              cleave_dim *dims) {
  for (int64_t p = 0; p < prep->output_rank; p++) {
    bool here = position_valid(prep, sv, p);
    bool elsewhere = sv->valid > (here ? 1 : 0);
    cleave_dim sum, common, hull = {0, 0};
    if (here) {
      cleave_concat_sum(prep, p, &sum, NULL);
      hull = sum;
    }
    if (elsewhere) {
      cleave_concat_common(prep, p, 0, &common, NULL);
      hull = here ? cleave_dim_union(hull, common) : common;
    }
    dims[p] = hull;
  }
}

cleave_status cleave_concat_infer_partial(const cleave_concat_op *op, unsigned unknown,
                                          cleave_type type, const cleave_partial_shape *inputs,
                                          size_t num_inputs, cleave_partial_info *info,
                                          cleave_dim *dims, size_t capacity, cleave_error *err) {
  if (info == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_concat_infer_partial needs an info result");
  }
  if ((unknown & ~(unsigned)(CLEAVE_UNKNOWN_AXIS | CLEAVE_UNKNOWN_LENGTHS)) != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "unknown flags 0x%x are not CLEAVE_UNKNOWN_* values", unknown);
  }
  cleave_concat_inputs in = {num_inputs, NULL, inputs, type};
  cleave_concat_prepared prep;
  cleave_status st = cleave_concat_prepare(op, unknown, &in, false, &prep, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  bool dynamic = prep.output_rank == CLEAVE_VIEW_RANK_DYNAMIC;
  survey sv = {0, -1, 1, prep.axis};
  if (!dynamic && prep.axis >= 0) {
    st = cleave_concat_at(&prep, prep.axis, NULL, err);
  } else if (!dynamic && !prep.stack) {
    survey_positions(&prep, &sv);
    st = sv.valid > 0 ? CLEAVE_OK : no_position(&prep, err);
  } else if (!dynamic) {
    /* Stacking checks every input dim at every position: one answer for all. */
    st = cleave_concat_at(&prep, 0, NULL, err);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_partial_info out = {0};
  out.count = cleave_dim_point(1);
  out.num_shapes = 1;
  out.output_rank = dynamic ? CLEAVE_RANK_DYNAMIC : (size_t)prep.output_rank;
  out.axis = prep.axis < 0 ? CLEAVE_AXIS_UNKNOWN : (size_t)prep.axis;
  out.dims_needed = dynamic ? 0 : (size_t)prep.output_rank;
  *info = out;
  if (dims == NULL || out.dims_needed == 0) {
    return cleave_succeed(err);
  }
  if (capacity < out.dims_needed) {
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "dims holds %zu entries but the output has rank %zu", capacity,
                       out.dims_needed);
  }
  if (prep.axis >= 0) {
    cleave_concat_at(&prep, prep.axis, dims, NULL);
  } else if (prep.stack) {
    write_stack_hull(&prep, dims);
  } else {
    write_concat_hull(&prep, &sv, dims);
  }
  return cleave_succeed(err);
}
