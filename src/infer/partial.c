/*
 * Partial-shape inference (docs/operators.md section 6): the rules (rules/) that static inference
 * (infer.c) applies, applied to every axis position the axis may take, then combined into the
 * tightest hull per output and dimension.
 *
 * For one axis position the rules give each output's length on the axis as an interval
 * (cleave_split_at); every other output dimension is the data's, whose values are all reachable
 * because validity depends on the axis dimension alone. Over an unknown axis, output i's
 * dimension j is the union of its axis length at position j (if j is valid) and the data's
 * dimension j (if some other position is valid). Nothing is allocated: the positions are visited
 * twice, once to decide validity and the count, once to write the shapes.
 */
#include "rules/rules.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* An accumulated hull that may still be empty. */
typedef struct hull_acc {
  bool any;
  cleave_dim dim;
} hull_acc;

static void acc_add(hull_acc *acc, cleave_dim dim) {
  acc->dim = acc->any ? cleave_dim_union(acc->dim, dim) : dim;
  acc->any = true;
}

/* The union of every element's length on the axis. */
static cleave_dim element_union(const cleave_split_hull *hull) {
  if (hull->uniform) {
    /* chunk is used by every element but the last, so only when there are two or more (always
     * when the count varies: then chunk == last). */
    bool chunk_used = hull->count.hi == CLEAVE_DIM_UNBOUNDED || hull->count.hi >= 2;
    return chunk_used ? cleave_dim_union(hull->chunk, hull->last) : hull->last;
  }
  hull_acc acc = {false, {0, 0}};
  for (int64_t i = 0; i < hull->count.lo; i++) {
    acc_add(&acc, cleave_split_hull_length(hull, i));
  }
  return acc.dim;
}

static bool has_elements(const cleave_split_hull *hull) {
  return hull->count.hi != 0;
}

/* What the first visit of the positions learns. */
typedef struct survey {
  int64_t first, last; /* first and last position with outputs, or -1 */
  int64_t valid;       /* positions for which the operator is valid */
  hull_acc count;      /* the union of the counts */
  bool count_varies;   /* some position's count is not a point, or two positions differ */
  bool axis_removed;
} survey;

/* The dimension the rules see at `position`: the data's, or anything for a dynamic rank. */
static cleave_dim axis_dim(const cleave_prepared *prep, int64_t position) {
  if (prep->shape.rank == CLEAVE_VIEW_RANK_DYNAMIC) {
    return cleave_dim_any();
  }
  return cleave_view_dim(&prep->shape, position);
}

/* The axis positions to visit: the known one, every one, or one stand-in for a dynamic rank. */
static void position_range(const cleave_prepared *prep, int64_t *begin, int64_t *end) {
  if (prep->shape.rank == CLEAVE_VIEW_RANK_DYNAMIC) {
    *begin = -1;
    *end = 0;
  } else if (prep->axis >= 0) {
    *begin = prep->axis;
    *end = prep->axis + 1;
  } else {
    *begin = 0;
    *end = prep->shape.rank;
  }
}

static cleave_status survey_positions(const cleave_prepared *prep, survey *sv, cleave_error *err) {
  *sv = (survey){.first = -1, .last = -1};
  int64_t begin = 0, end = 0;
  position_range(prep, &begin, &end);
  /* The error to report when no position is valid: that of the first position, noting whether
   * the others failed differently. */
  cleave_error first_err, other_err;
  cleave_status first_status = CLEAVE_OK;
  bool same_error = true;
  for (int64_t a = begin; a < end; a++) {
    cleave_split_hull hull;
    cleave_error *sink = first_status == CLEAVE_OK ? &first_err : &other_err;
    cleave_status st = cleave_split_at(prep, a, axis_dim(prep, a), &hull, sink);
    if (st != CLEAVE_OK) {
      if (first_status == CLEAVE_OK) {
        first_status = st;
      } else if (st != first_status || strcmp(other_err.message, first_err.message) != 0) {
        same_error = false;
      }
      continue;
    }
    if (sv->valid > 0 && sv->axis_removed != hull.axis_removed) {
      /* Cannot happen: axis removal does not depend on the axis dimension. */
      return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "inconsistent axis removal");
    }
    sv->valid++;
    sv->axis_removed = hull.axis_removed;
    if (hull.count.lo != hull.count.hi || (sv->count.any && (sv->count.dim.lo != hull.count.lo ||
                                                             sv->count.dim.hi != hull.count.hi))) {
      sv->count_varies = true;
    }
    acc_add(&sv->count, hull.count);
    if (has_elements(&hull)) {
      if (sv->first < 0) {
        sv->first = a;
      }
      sv->last = a;
    }
  }
  if (sv->valid > 0) {
    return CLEAVE_OK;
  }
  if (same_error || end - begin <= 1) {
    return cleave_fail(err, first_status, "%s", first_err.message);
  }
  int64_t r = prep->shape.rank;
  return cleave_fail(err, first_status,
                     "%s (and no other axis in [%" PRId64 ", %" PRId64 "] is valid)",
                     first_err.message, -r, r - 1);
}

/* Whether some position with outputs other than `p` exists (first/last bound them). */
static bool other_position(const survey *sv, int64_t p) {
  return sv->first >= 0 && (sv->first != p || sv->last != p);
}

/* Writes the one element hull of a sequence whose count varies (output rank `rank`). */
static void write_element_hull(const cleave_prepared *prep, const survey *sv, int64_t rank,
                               cleave_dim *dims) {
  int64_t begin = 0, end = 0;
  position_range(prep, &begin, &end);
  if (sv->axis_removed) {
    /* Output dimension p is data dimension p when the axis lies after it, p + 1 otherwise. */
    for (int64_t p = 0; p < rank; p++) {
      hull_acc acc = {false, {0, 0}};
      if (sv->last > p) {
        acc_add(&acc, cleave_view_dim(&prep->shape, p));
      }
      if (sv->first <= p) {
        acc_add(&acc, cleave_view_dim(&prep->shape, p + 1));
      }
      dims[p] = acc.dim;
    }
    return;
  }
  /* A negative lo marks a dimension no position has reached yet. */
  for (int64_t p = 0; p < rank; p++) {
    dims[p] = cleave_dim_range(-1, 0);
  }
  for (int64_t a = begin; a < end; a++) {
    cleave_split_hull hull;
    if (cleave_split_at(prep, a, axis_dim(prep, a), &hull, NULL) == CLEAVE_OK &&
        has_elements(&hull)) {
      dims[a] = element_union(&hull);
    }
  }
  for (int64_t p = 0; p < rank; p++) {
    if (other_position(sv, p)) {
      cleave_dim data = cleave_view_dim(&prep->shape, p);
      dims[p] = dims[p].lo < 0 ? data : cleave_dim_union(dims[p], data);
    }
  }
}

/* Writes `count` output shapes of rank `rank`, the count being the same at every position. */
static void write_shapes(const cleave_prepared *prep, const survey *sv, int64_t count, int64_t rank,
                         cleave_dim *dims) {
  int64_t begin = 0, end = 0;
  position_range(prep, &begin, &end);
  if (sv->axis_removed) {
    /* Every element is the data shape without the axis (SplitToSequence without split). */
    for (int64_t p = 0; p < rank; p++) {
      hull_acc acc = {false, {0, 0}};
      if (sv->last > p) {
        acc_add(&acc, cleave_view_dim(&prep->shape, p));
      }
      if (sv->first <= p) {
        acc_add(&acc, cleave_view_dim(&prep->shape, p + 1));
      }
      for (int64_t i = 0; i < count; i++) {
        dims[i * rank + p] = acc.dim;
      }
    }
    return;
  }
  for (int64_t i = 0; i < count; i++) {
    for (int64_t p = 0; p < rank; p++) {
      dims[i * rank + p] = cleave_dim_range(-1, 0);
    }
  }
  for (int64_t a = begin; a < end; a++) {
    cleave_split_hull hull;
    if (cleave_split_at(prep, a, axis_dim(prep, a), &hull, NULL) != CLEAVE_OK) {
      continue;
    }
    for (int64_t i = 0; i < count; i++) {
      dims[i * rank + a] = cleave_split_hull_length(&hull, i);
    }
  }
  for (int64_t p = 0; p < rank; p++) {
    if (!other_position(sv, p)) {
      continue;
    }
    cleave_dim data = cleave_view_dim(&prep->shape, p);
    for (int64_t i = 0; i < count; i++) {
      cleave_dim *d = &dims[i * rank + p];
      *d = d->lo < 0 ? data : cleave_dim_union(*d, data);
    }
  }
}

cleave_status cleave_infer_partial(const cleave_op *op, unsigned unknown, cleave_type type,
                                   const cleave_partial_shape *shape, cleave_partial_info *info,
                                   cleave_dim *dims, size_t capacity, cleave_error *err) {
  if (info == NULL || shape == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_infer_partial needs a shape and an info result");
  }
  if ((unknown & ~(unsigned)(CLEAVE_UNKNOWN_AXIS | CLEAVE_UNKNOWN_LENGTHS)) != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "unknown flags 0x%x are not CLEAVE_UNKNOWN_* values", unknown);
  }
  /* The rules work in int64: a dynamic rank is CLEAVE_VIEW_RANK_DYNAMIC, and ranks above
   * INT32_MAX are refused by them, so clamping keeps every rank they let through exact. */
  bool dynamic = shape->rank == CLEAVE_RANK_DYNAMIC;
  int64_t rank = dynamic                           ? CLEAVE_VIEW_RANK_DYNAMIC
                 : shape->rank > (size_t)INT64_MAX ? INT64_MAX
                                                   : (int64_t)shape->rank;
  cleave_shape_view view = {rank, NULL, shape->dims, shape->rank};
  cleave_prepared prep;
  cleave_status st = cleave_prepare(op, unknown, type, &view, false, &prep, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  survey sv;
  st = survey_positions(&prep, &sv, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  /* Every count below is >= 0: a point count of outputs, a rank. */
  int64_t num_shapes = sv.count_varies ? 1 : sv.count.dim.lo;
  int64_t output_rank = dynamic ? 0 : rank - (sv.axis_removed ? 1 : 0);
  int64_t dims_needed = 0;
  bool too_many = cleave_mul_overflows(num_shapes, output_rank, &dims_needed) ||
                  (uint64_t)dims_needed > (uint64_t)SIZE_MAX;
  cleave_partial_info out = {0};
  out.count = sv.count.dim;
  out.count_varies = sv.count_varies;
  out.num_shapes = (size_t)num_shapes;
  out.axis = prep.axis < 0 ? CLEAVE_AXIS_UNKNOWN : (size_t)prep.axis;
  out.axis_removed = sv.axis_removed;
  out.output_rank = dynamic ? CLEAVE_RANK_DYNAMIC : (size_t)output_rank;
  out.dims_needed = too_many ? SIZE_MAX : (size_t)dims_needed;
  *info = out;
  if (dims == NULL || out.dims_needed == 0) {
    return cleave_succeed(err);
  }
  if (too_many || capacity < out.dims_needed) {
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "dims holds %zu entries but %zu output shapes of rank %zu need %s%zu",
                       capacity, out.num_shapes, out.output_rank, too_many ? "more than " : "",
                       out.dims_needed);
  }
  if (out.count_varies) {
    write_element_hull(&prep, &sv, output_rank, dims);
  } else {
    write_shapes(&prep, &sv, num_shapes, output_rank, dims);
  }
  return cleave_succeed(err);
}
