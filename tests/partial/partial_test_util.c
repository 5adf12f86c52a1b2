/* Helpers of the partial-shape tests; see partial_test_util.h. */
#include "partial_test_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void pt_seed(pt_rng *rng, uint64_t seed) {
  /* splitmix64 of the seed, so that nearby seeds give unrelated streams and 0 is allowed. */
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  rng->state = z != 0 ? z : 1;
}

static uint64_t next(pt_rng *rng) {
  uint64_t x = rng->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng->state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

int64_t pt_below(pt_rng *rng, int64_t n) {
  return (int64_t)(next(rng) % (uint64_t)n);
}

int64_t pt_between(pt_rng *rng, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
  if (span == 0) {
    return (int64_t)next(rng);
  }
  return (int64_t)((uint64_t)lo + next(rng) % span);
}

cleave_op pt_op(const pt_case *c) {
  cleave_op op;
  switch (c->kind) {
  case CLEAVE_OP_SPLIT:
    op = cleave_op_split(&c->axis, c->num_splits);
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    op = cleave_op_variadic_split(&c->axis, c->lengths, (size_t)c->num_lengths);
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    op = cleave_op_split_to_sequence(c->opset);
    op.axis = cleave_values_scalar(&c->axis);
    break;
  default:
    op = cleave_op_onnx_split(c->opset);
    op.axis = cleave_values_scalar(&c->axis);
    break;
  }
  op.kind = c->kind;
  op.opset = c->opset;
  op.num_splits = c->num_splits;
  if (c->kind == CLEAVE_OP_ONNX_SPLIT && c->has_num_outputs) {
    op.num_outputs = cleave_values_scalar(&c->num_splits);
  }
  op.keepdims = c->keepdims;
  if (c->axis_1d) {
    op.axis = cleave_values_list(&c->axis, 1);
  }
  if (c->axis_unknown) {
    op.axis.data = NULL;
  }
  if (c->kind != CLEAVE_OP_SPLIT) {
    switch (c->lengths_form) {
    case PT_LENGTHS_ABSENT:
      op.lengths = cleave_values_none();
      break;
    case PT_LENGTHS_SCALAR:
      op.lengths = cleave_values_scalar(&c->lengths[0]);
      break;
    case PT_LENGTHS_LIST:
      op.lengths = cleave_values_list(c->lengths, (size_t)c->num_lengths);
      break;
    }
    if (c->lengths_unknown) {
      op.lengths.data = NULL;
    }
  }
  return op;
}

unsigned pt_unknown(const pt_case *c) {
  unsigned flags = 0;
  if (c->axis_unknown) {
    flags |= CLEAVE_UNKNOWN_AXIS;
  }
  if (c->lengths_unknown) {
    flags |= CLEAVE_UNKNOWN_LENGTHS;
  }
  return flags;
}

static const char *kind_name(cleave_op_kind kind) {
  switch (kind) {
  case CLEAVE_OP_SPLIT:
    return "Split-1";
  case CLEAVE_OP_VARIADIC_SPLIT:
    return "VariadicSplit-1";
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    return "SplitToSequence";
  case CLEAVE_OP_ONNX_SPLIT:
    return "ONNX Split";
  }
  return "?";
}

/* The test's own dim text (independent of the library's formatter). */
static void dim_text(char *buf, size_t size, cleave_dim d) {
  if (d.hi == CLEAVE_DIM_UNBOUNDED) {
    snprintf(buf, size, d.lo == 0 ? "?" : "%" PRId64 "..", d.lo);
  } else if (d.lo == d.hi) {
    snprintf(buf, size, "%" PRId64, d.lo);
  } else {
    snprintf(buf, size, "%" PRId64 "..%" PRId64, d.lo, d.hi);
  }
}

static void shape_text(char *buf, size_t size, const cleave_dim *dims, size_t rank) {
  if (rank == CLEAVE_RANK_DYNAMIC) {
    snprintf(buf, size, "[...]");
    return;
  }
  size_t used = 0;
  used += (size_t)snprintf(buf + used, size - used, "[");
  for (size_t i = 0; i < rank && used < size; i++) {
    char d[48];
    dim_text(d, sizeof d, dims[i]);
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i > 0 ? "," : "", d);
  }
  if (used < size) {
    snprintf(buf + used, size - used, "]");
  }
}

void pt_describe(const pt_case *c, char *buf, size_t size) {
  char shape[256], axis[32], lengths[128] = "", type[32];
  shape_text(shape, sizeof shape, c->dims, c->rank);
  if (c->axis_unknown) {
    snprintf(axis, sizeof axis, "?");
  } else {
    snprintf(axis, sizeof axis, "%" PRId64 "%s", c->axis, c->axis_1d ? " (shape [1])" : "");
  }
  const char *tname = cleave_dtype_name(c->type.dtype);
  snprintf(type, sizeof type, "%s", tname != NULL ? tname : "?");
  if (c->lengths_form == PT_LENGTHS_ABSENT) {
    snprintf(lengths, sizeof lengths, "absent");
  } else if (c->lengths_form == PT_LENGTHS_SCALAR) {
    if (c->lengths_unknown) {
      snprintf(lengths, sizeof lengths, "scalar ?");
    } else {
      snprintf(lengths, sizeof lengths, "scalar %" PRId64, c->lengths[0]);
    }
  } else {
    size_t used = (size_t)snprintf(lengths, sizeof lengths, "[");
    for (int64_t i = 0; i < c->num_lengths; i++) {
      if (c->lengths_unknown) {
        used += (size_t)snprintf(lengths + used, sizeof lengths - used, "%s?", i ? "," : "");
      } else {
        used += (size_t)snprintf(lengths + used, sizeof lengths - used, "%s%" PRId64, i ? "," : "",
                                 c->lengths[i]);
      }
    }
    snprintf(lengths + used, sizeof lengths - used, "]");
  }
  snprintf(buf, size,
           "%s opset %" PRId64 " type %s shape %s axis %s lengths %s num_splits %" PRId64
           " (given %d) keepdims %" PRId64,
           kind_name(c->kind), c->opset, type, shape, axis, lengths, c->num_splits,
           c->has_num_outputs, c->keepdims);
}

/* ---- the library ------------------------------------------------------------------------- */

/* Field by field: the structs have padding. */
static bool same_info(const cleave_partial_info *a, const cleave_partial_info *b) {
  return a->count.lo == b->count.lo && a->count.hi == b->count.hi &&
         a->count_varies == b->count_varies && a->num_shapes == b->num_shapes &&
         a->output_rank == b->output_rank && a->axis == b->axis &&
         a->axis_removed == b->axis_removed && a->dims_needed == b->dims_needed;
}

bool pt_library(const pt_case *c, pt_result *out, char *why, size_t why_size) {
  cleave_op op = pt_op(c);
  cleave_partial_shape shape = {c->rank, c->dims};
  cleave_partial_info info;
  cleave_error err;
  memset(out, 0, sizeof *out);
  cleave_status st =
      cleave_infer_partial(&op, pt_unknown(c), c->type, &shape, &info, NULL, 0, &err);
  out->status = st;
  if (st != CLEAVE_OK) {
    if (err.status != st || err.message[0] == '\0') {
      snprintf(why, why_size, "status %d but err has status %d and message \"%s\"", (int)st,
               (int)err.status, err.message);
      return false;
    }
    snprintf(out->message, sizeof out->message, "%s", err.message);
    return true;
  }
  size_t per = info.output_rank == CLEAVE_RANK_DYNAMIC ? 0 : info.output_rank;
  if (info.dims_needed != info.num_shapes * per) {
    snprintf(why, why_size, "dims_needed %zu is not %zu shapes x rank %zu", info.dims_needed,
             info.num_shapes, per);
    return false;
  }
  if (info.num_shapes > PT_MAX_OUTPUTS) {
    snprintf(why, why_size, "%zu output shapes: more than the test handles", info.num_shapes);
    return false;
  }
  enum { CAP = PT_MAX_OUTPUTS * PT_MAX_RANK + 4 };
  cleave_dim dims[CAP];
  if (info.dims_needed > 0) {
    /* One entry short: CLEAVE_ERROR_CAPACITY and nothing written. */
    for (int i = 0; i < CAP; i++) {
      dims[i] = cleave_dim_range(-7, -7);
    }
    cleave_partial_info short_info;
    st = cleave_infer_partial(&op, pt_unknown(c), c->type, &shape, &short_info, dims,
                              info.dims_needed - 1, &err);
    if (st != CLEAVE_ERROR_CAPACITY || short_info.dims_needed != info.dims_needed) {
      snprintf(why, why_size, "capacity %zu gave status %d, not CLEAVE_ERROR_CAPACITY",
               info.dims_needed - 1, (int)st);
      return false;
    }
    for (int i = 0; i < CAP; i++) {
      if (dims[i].lo != -7 || dims[i].hi != -7) {
        snprintf(why, why_size, "a call failing for capacity wrote dims[%d]", i);
        return false;
      }
    }
  }
  cleave_partial_info full;
  st = cleave_infer_partial(&op, pt_unknown(c), c->type, &shape, &full, dims, CAP, &err);
  if (st != CLEAVE_OK || !same_info(&full, &info)) {
    snprintf(why, why_size, "the call with dims gave status %d or a different info", (int)st);
    return false;
  }
  if (info.count_varies != (info.count.lo != info.count.hi) ||
      info.num_shapes != (size_t)(info.count_varies ? 1 : info.count.lo)) {
    snprintf(why, why_size, "count, count_varies and num_shapes disagree");
    return false;
  }
  out->count_varies = info.count_varies != 0;
  out->count = info.count;
  out->output_rank = info.output_rank;
  out->num_shapes = info.num_shapes;
  for (size_t i = 0; i < info.num_shapes; i++) {
    for (size_t p = 0; p < per; p++) {
      out->shapes[i][p] = dims[i * per + p];
    }
  }
  return true;
}

/* ---- the reference ----------------------------------------------------------------------- */

static bool enumerable(const pt_case *c) {
  if (c->rank == CLEAVE_RANK_DYNAMIC || c->rank > PT_MAX_RANK) {
    return false;
  }
  for (size_t i = 0; i < c->rank; i++) {
    if (c->dims[i].hi == CLEAVE_DIM_UNBOUNDED) {
      return false;
    }
  }
  return true;
}

static int64_t largest_dim(const pt_case *c) {
  int64_t m = 0;
  for (size_t i = 0; i < c->rank; i++) {
    m = c->dims[i].hi > m ? c->dims[i].hi : m;
  }
  return m;
}

/* The range each unknown length takes. A length above the largest dimension can never be valid
 * (lengths sum to the axis dimension), and any scalar split above it acts like one just above. */
static void length_range(const pt_case *c, int64_t *lo, int64_t *hi) {
  int64_t m = largest_dim(c);
  if (c->lengths_form == PT_LENGTHS_SCALAR) {
    *lo = 1;
    *hi = m + 1;
  } else {
    *lo = c->kind == CLEAVE_OP_VARIADIC_SPLIT ? -1 : 0;
    *hi = m;
  }
}

static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static int64_t tuple_count(const pt_case *c) {
  if (!c->lengths_unknown || c->lengths_form == PT_LENGTHS_ABSENT || c->kind == CLEAVE_OP_SPLIT) {
    return 1;
  }
  int64_t lo, hi, n = 1;
  length_range(c, &lo, &hi);
  int64_t k = c->lengths_form == PT_LENGTHS_SCALAR ? 1 : c->num_lengths;
  for (int64_t i = 0; i < k; i++) {
    n = sat_mul(n, hi - lo + 1);
  }
  return n;
}

int64_t pt_instance_count(const pt_case *c) {
  if (!enumerable(c)) {
    return INT64_MAX;
  }
  int64_t n = 1;
  for (size_t i = 0; i < c->rank; i++) {
    n = sat_mul(n, c->dims[i].hi - c->dims[i].lo + 1);
  }
  if (c->axis_unknown && c->rank > 0) {
    n = sat_mul(n, (int64_t)c->rank);
  }
  return sat_mul(n, tuple_count(c));
}

static cleave_dim join(cleave_dim a, int64_t v, bool first) {
  if (first) {
    return cleave_dim_point(v);
  }
  a.lo = v < a.lo ? v : a.lo;
  a.hi = v > a.hi ? v : a.hi;
  return a;
}

bool pt_reference(const pt_case *c, pt_result *out, int64_t *instances) {
  memset(out, 0, sizeof *out);
  *instances = 0;
  if (!enumerable(c)) {
    return false;
  }
  int64_t rank = (int64_t)c->rank;
  int64_t shape[PT_MAX_RANK];
  for (int64_t i = 0; i < rank; i++) {
    shape[i] = c->dims[i].lo;
  }
  /* Axis values: the known one, or every valid one (an unknown axis of rank-0 data: just 0,
   * which the static rules reject as they must). */
  int64_t axis_lo = c->axis, axis_hi = c->axis;
  if (c->axis_unknown) {
    axis_lo = rank > 0 ? -rank : 0;
    axis_hi = rank > 0 ? rank - 1 : 0;
  }
  bool unknown_lengths =
      c->lengths_unknown && c->lengths_form != PT_LENGTHS_ABSENT && c->kind != CLEAVE_OP_SPLIT;
  int64_t len_lo = 0, len_hi = 0;
  int64_t k = c->lengths_form == PT_LENGTHS_SCALAR ? 1 : c->num_lengths;
  if (unknown_lengths) {
    length_range(c, &len_lo, &len_hi);
  }
  bool any_valid = false, first_error = true, first_elem = true, first_count = true;
  bool seen[PT_MAX_OUTPUTS] = {false};
  cleave_dim per[PT_MAX_OUTPUTS][PT_MAX_RANK];
  cleave_dim elem[PT_MAX_RANK];
  int64_t cmin = 0, cmax = 0;
  for (;;) {
    for (int64_t axis = axis_lo; axis <= axis_hi; axis++) {
      pt_case inst = *c;
      inst.axis_unknown = false;
      inst.lengths_unknown = false;
      inst.axis = axis;
      int64_t tuple[PT_MAX_LENGTHS];
      for (int64_t i = 0; i < PT_MAX_LENGTHS; i++) {
        tuple[i] = len_lo;
      }
      for (;;) {
        if (unknown_lengths) {
          for (int64_t i = 0; i < k; i++) {
            inst.lengths[i] = tuple[i];
          }
        }
        cleave_op op = pt_op(&inst);
        cleave_split_info info;
        int64_t lens[PT_MAX_OUTPUTS];
        cleave_error err;
        cleave_status st = cleave_infer(&op, c->type, rank > 0 ? shape : NULL, (size_t)rank, &info,
                                        lens, PT_MAX_OUTPUTS, &err);
        (*instances)++;
        if (st == CLEAVE_ERROR_CAPACITY) {
          return false; /* more outputs than the reference records */
        }
        if (st != CLEAVE_OK) {
          out->status_mask |= 1u << (unsigned)st;
          if (first_error) {
            out->status = st;
            snprintf(out->message, sizeof out->message, "%s", err.message);
            first_error = false;
          }
        } else {
          any_valid = true;
          int64_t n = (int64_t)info.num_outputs;
          cmin = first_count || n < cmin ? n : cmin;
          cmax = first_count || n > cmax ? n : cmax;
          first_count = false;
          out->output_rank = info.output_rank;
          int64_t norm = axis < 0 ? axis + rank : axis;
          for (int64_t i = 0; i < n; i++) {
            int64_t q = 0;
            for (int64_t p = 0; p < rank; p++) {
              if (p == norm && info.axis_removed) {
                continue;
              }
              int64_t v = p == norm ? lens[i] : shape[p];
              per[i][q] = join(per[i][q], v, !seen[i]);
              elem[q] = join(elem[q], v, first_elem);
              q++;
            }
            seen[i] = true;
            first_elem = false;
          }
        }
        if (!unknown_lengths) {
          break;
        }
        int64_t j = 0;
        while (j < k && tuple[j] == len_hi) {
          tuple[j++] = len_lo;
        }
        if (j == k) {
          break;
        }
        tuple[j]++;
      }
    }
    int64_t j = 0;
    while (j < rank && shape[j] == c->dims[j].hi) {
      shape[j] = c->dims[j].lo;
      j++;
    }
    if (j == rank) {
      break;
    }
    shape[j]++;
  }
  if (!any_valid) {
    return true;
  }
  out->status = CLEAVE_OK;
  out->count_varies = cmin != cmax;
  out->count = cleave_dim_range(cmin, cmax);
  out->num_shapes = (size_t)(out->count_varies ? 1 : cmin);
  size_t per_rank = out->output_rank == CLEAVE_RANK_DYNAMIC ? 0 : out->output_rank;
  for (size_t i = 0; i < out->num_shapes; i++) {
    for (size_t p = 0; p < per_rank; p++) {
      out->shapes[i][p] = out->count_varies ? elem[p] : per[i][p];
    }
  }
  return true;
}

/* ---- comparison and printing ------------------------------------------------------------- */

bool pt_same(const pt_result *lib, const pt_result *ref, char *why, size_t why_size) {
  if (ref->status != CLEAVE_OK) {
    if (lib->status == CLEAVE_OK) {
      snprintf(why, why_size,
               "no concrete input is valid (first error %d: %s) but inference succeeded",
               (int)ref->status, ref->message);
      return false;
    }
    if ((ref->status_mask & (1u << (unsigned)lib->status)) == 0) {
      snprintf(why, why_size,
               "status %d (%s) is not one the concrete inputs gave (mask 0x%x, first: %s)",
               (int)lib->status, lib->message, ref->status_mask, ref->message);
      return false;
    }
    return true;
  }
  if (lib->status != CLEAVE_OK) {
    snprintf(why, why_size, "some concrete input is valid but inference failed: %s", lib->message);
    return false;
  }
  char want[4096], got[4096];
  pt_format(ref, want, sizeof want);
  pt_format(lib, got, sizeof got);
  if (lib->output_rank != ref->output_rank || strcmp(want, got) != 0) {
    snprintf(why, why_size, "expected (rank %" PRId64 ")\n%s\ngot (rank %" PRId64 ")\n%s",
             ref->output_rank, want, lib->output_rank, got);
    return false;
  }
  return true;
}

void pt_format(const pt_result *r, char *buf, size_t size) {
  if (r->status != CLEAVE_OK) {
    snprintf(buf, size, "error: %s", r->message);
    return;
  }
  size_t used = 0;
  buf[0] = '\0';
  size_t per = r->output_rank == CLEAVE_RANK_DYNAMIC ? 0 : r->output_rank;
  for (size_t i = 0; i < r->num_shapes && used < size; i++) {
    char shape[512];
    cleave_dim dims[PT_MAX_RANK];
    for (size_t p = 0; p < per; p++) {
      dims[p] = r->shapes[i][p];
    }
    shape_text(shape, sizeof shape, dims, r->output_rank);
    if (r->count_varies) {
      char count[48];
      dim_text(count, sizeof count, r->count);
      used += (size_t)snprintf(buf + used, size - used, "%s%s x %s", i ? "\n" : "", count, shape);
    } else {
      used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "\n" : "", shape);
    }
  }
}
