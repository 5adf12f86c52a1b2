/*
 * Partial-shape inference of the concatenating operators (docs/operators.md sections 6 and 8):
 * hand-written cases with their exact results and messages, and a property test against brute
 * force in tests/partial's style: for thousands of random bounded cases the reference enumerates
 * every concrete input (every shape in the intervals, every axis value when it is unknown), runs
 * the static inference on each and takes the hulls; cleave_concat_infer_partial must give exactly
 * those hulls, and fail exactly when no concrete input is valid. Unbounded dims are checked
 * against large bounds, dynamic ranks against static ranks of unknown dims.
 *
 * Seeded and reproducible: CLEAVE_PARTIAL_SEED and CLEAVE_PARTIAL_CASES override the defaults.
 */
#include "concat_check.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUTS 3
#define MAX_RANK 3

/* Parses `text` (the text form of section 6) into a partial shape held by `dims`. */
static cleave_partial_shape parse(const char *text, cleave_dim *dims) {
  size_t rank = 0;
  cleave_error err;
  if (cleave_partial_shape_parse(text, dims, CC_MAX_RANK, &rank, &err) != CLEAVE_OK) {
    fail_msg("cannot parse %s: %s", text, err.message);
  }
  cleave_partial_shape s = {rank, dims};
  return s;
}

/* Infers on shapes given as text and returns the output's text, or "error: MESSAGE". */
static const char *infer(const cleave_concat_op *op, unsigned unknown, const char *const *texts,
                         size_t n) {
  static char out[CLEAVE_MESSAGE_SIZE + 16];
  cleave_dim dims[MAX_INPUTS + 2][CC_MAX_RANK];
  cleave_partial_shape shapes[MAX_INPUTS + 2];
  for (size_t i = 0; i < n; i++) {
    shapes[i] = parse(texts[i], dims[i]);
  }
  cleave_partial_info info;
  cleave_dim result[CC_MAX_RANK + 1];
  cleave_error err;
  cleave_status st = cleave_concat_infer_partial(op, unknown, cleave_type_of(CLEAVE_F32), shapes, n,
                                                 &info, result, CC_MAX_RANK + 1, &err);
  if (st != CLEAVE_OK) {
    snprintf(out, sizeof out, "error: %s", err.message);
    return out;
  }
  cleave_partial_shape s = {info.output_rank, result};
  assert_int_equal(cleave_partial_shape_format(&s, out, sizeof out, NULL, NULL), CLEAVE_OK);
  return out;
}

#define CHECK_INFER(op, unknown, want, ...)                                                        \
  do {                                                                                             \
    const char *const texts_[] = {__VA_ARGS__};                                                    \
    assert_string_equal(infer(op, unknown, texts_, sizeof texts_ / sizeof texts_[0]), want);       \
  } while (0)

static void test_examples(void **state) {
  (void)state;
  int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  /* The axis dim is the interval sum, the others the intersection. */
  CHECK_INFER(&op, 0, "[3..4,4..]", "[2..4,3]", "[3..6,1..]");
  CHECK_INFER(&op, CLEAVE_UNKNOWN_AXIS, "[3..10,3..]", "[2..4,3]", "[3..6,1..]");
  CHECK_INFER(&op, 0,
              "error: inputs[1].shape[0] is 5..6 but inputs[0].shape[0] is 2..4: the inputs of "
              "OpenVINO Concat-1 must have equal dims except on axis 1",
              "[2..4,3]", "[5..6,1]");
  CHECK_INFER(&op, 0,
              "error: inputs[2].shape[0] is 5..6 but inputs[0..1].shape[0] can only be 2..4: the "
              "inputs of OpenVINO Concat-1 must have equal dims except on axis 1",
              "[?,3]", "[2..4,3]", "[5..6,3]");
  /* A dynamic rank takes the others'; alone, it stays dynamic. */
  CHECK_INFER(&op, 0, "[2,4..]", "[...]", "[2,3]", "[2,1]");
  CHECK_INFER(&op, 0, "[...]", "[...]", "[...]");
  CHECK_INFER(&op, CLEAVE_UNKNOWN_AXIS, "[...]", "[...]");
  /* No axis position valid. */
  CHECK_INFER(&op, CLEAVE_UNKNOWN_AXIS,
              "error: inputs[1].shape[1] is 5 but inputs[0].shape[1] is 3: the inputs of OpenVINO "
              "Concat-1 must have equal dims except on axis 0 (and no other axis in [-2, 1] is "
              "valid)",
              "[2,3]", "[4,5]");
  CHECK_INFER(&op, CLEAVE_UNKNOWN_AXIS,
              "error: no axis is valid for inputs of rank 0 (a scalar has no axis to concatenate "
              "on)",
              "[]", "[]");
  /* Only one position valid: the hull is that position's shape. */
  CHECK_INFER(&op, CLEAVE_UNKNOWN_AXIS, "[2,8]", "[2,3]", "[2,5]");
  /* Sums near int64's end: lower bounds that overflow fail, upper bounds are capped. */
  axis = 0;
  CHECK_INFER(&op, 0, "[2..9223372036854775807]", "[1..9223372036854775807]",
              "[1..9223372036854775807]");
  CHECK_INFER(&op, 0, "error: inputs[0..1].shape[0] sum above 2^63-1 even at their lower bounds",
              "[9223372036854775807]", "[1..2]");
  int64_t far = 3000000000;
  op.axis = cleave_values_scalar(&far);
  CHECK_INFER(&op, 0,
              "error: axis 3000000000 is out of range for inputs of any rank (ranks are at most "
              "2147483647)",
              "[...]");
  int64_t negative = -1;
  cleave_concat_op onnx4 = cleave_op_onnx_concat(4, &negative);
  CHECK_INFER(&onnx4, 0,
              "error: axis -1 is out of range for inputs of any rank (ranks are at most "
              "2147483647): ONNX Concat-4 takes no negative axis (they came with version 11)",
              "[...]");
  /* Stacking: every dim in common, the count at the axis; over an unknown axis, the hull. */
  axis = 1;
  cleave_concat_op stack = cleave_op_concat_from_sequence(11, &axis, 1);
  CHECK_INFER(&stack, 0, "[2..3,3,3,5..]", "[?,3,4..]", "[2..3,?,5..]", "[...]");
  CHECK_INFER(&stack, CLEAVE_UNKNOWN_AXIS, "[2,2..3,2..3]", "[2,3]", "[2,3]");
  CHECK_INFER(&stack, CLEAVE_UNKNOWN_AXIS, "[3]", "[]", "[]", "[]");
  CHECK_INFER(&stack, 0,
              "error: inputs[1].shape[0] is 4 but inputs[0].shape[0] is 2..3: "
              "ConcatFromSequence-11 with new_axis = 1 needs inputs of one shape",
              "[2..3,1]", "[4,1]");
}

/* The capacity protocol and the info fields. */
static void test_info(void **state) {
  (void)state;
  cleave_dim a[2] = {{2, 2}, {3, 4}}, bad[1] = {{5, 2}};
  cleave_partial_shape shapes[2] = {{2, a}, {2, a}};
  int64_t axis = -1;
  cleave_concat_op op = cleave_op_concat(&axis);
  cleave_partial_info info;
  cleave_dim out[2] = {{-7, -7}, {-7, -7}};
  cleave_error err;
  assert_int_equal(cleave_concat_infer_partial(&op, 0, cleave_type_of(CLEAVE_F32), shapes, 2, &info,
                                               NULL, 0, &err),
                   CLEAVE_OK);
  assert_int_equal(info.dims_needed, 2);
  assert_int_equal(info.axis, 1);
  assert_int_equal(info.output_rank, 2);
  assert_int_equal(cleave_concat_infer_partial(&op, 0, cleave_type_of(CLEAVE_F32), shapes, 2, &info,
                                               out, 1, &err),
                   CLEAVE_ERROR_CAPACITY);
  assert_string_equal(err.message, "dims holds 1 entries but the output has rank 2");
  assert_int_equal(out[0].lo, -7);
  assert_int_equal(cleave_concat_infer_partial(&op, CLEAVE_UNKNOWN_AXIS, cleave_type_of(CLEAVE_F32),
                                               shapes, 2, &info, out, 2, &err),
                   CLEAVE_OK);
  assert_true(info.axis == CLEAVE_AXIS_UNKNOWN);
  shapes[1].dims = bad;
  shapes[1].rank = 1;
  assert_int_equal(cleave_concat_infer_partial(&op, 0, cleave_type_of(CLEAVE_F32), shapes + 1, 1,
                                               &info, out, 2, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  assert_string_equal(err.message, "inputs[0].shape[0] is [5, 2]: the upper bound must be >= the "
                                   "lower bound (or unbounded)");
  bad[0] = cleave_dim_range(-1, 2);
  assert_int_equal(cleave_concat_infer_partial(&op, 0, cleave_type_of(CLEAVE_F32), shapes + 1, 1,
                                               &info, out, 2, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  assert_string_equal(err.message,
                      "inputs[0].shape[0] has lower bound -1 but dimensions must be >= 0");
  assert_int_equal(cleave_concat_infer_partial(&op, 0, cleave_type_of(CLEAVE_F32), shapes, 2, NULL,
                                               out, 2, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "cleave_concat_infer_partial needs an info result");
}

/* ---- the property test -------------------------------------------------------------------- */

/* One random case: the operator, inputs' ranks and dims, the axis value or unknown. */
typedef struct pcase {
  int kind; /* 0 OpenVINO, 1 ONNX Concat, 2 ConcatFromSequence */
  int64_t opset;
  int stack;
  size_t n, rank;
  cleave_dim dims[MAX_INPUTS][MAX_RANK];
  int unknown;
  int64_t axis;
} pcase;

static cleave_concat_op pcase_op(const pcase *c, const int64_t *axis) {
  if (c->kind == 1) {
    return cleave_op_onnx_concat(c->opset, axis);
  }
  if (c->kind == 2) {
    return cleave_op_concat_from_sequence(11, axis, c->stack);
  }
  return cleave_op_concat(axis);
}

/* The hull over every concrete input and axis value (static inference on each); false when none
 * is valid. */
static bool reference(const pcase *c, cleave_dim *hull, size_t *out_rank) {
  int64_t lo_axis = c->axis, hi_axis = c->axis;
  size_t r = c->rank + (c->stack ? 1 : 0);
  if (c->unknown) {
    lo_axis = -(int64_t)r - 1; /* a little outside the range: the rules drop those */
    hi_axis = (int64_t)r;
  }
  int64_t idx[MAX_INPUTS * MAX_RANK] = {0};
  size_t slots = c->n * c->rank;
  bool any = false;
  for (;;) {
    int64_t shapes[MAX_INPUTS][MAX_RANK];
    cleave_tensor t[MAX_INPUTS];
    for (size_t i = 0; i < c->n; i++) {
      for (size_t k = 0; k < c->rank; k++) {
        shapes[i][k] = c->dims[i][k].lo + idx[i * c->rank + k];
      }
      t[i] = (cleave_tensor){NULL, cleave_type_of(CLEAVE_U8), c->rank, shapes[i]};
    }
    for (int64_t a = lo_axis; a <= hi_axis; a++) {
      cleave_concat_op op = pcase_op(c, &a);
      cleave_concat_info info;
      int64_t out[MAX_RANK + 1];
      if (cleave_concat_infer(&op, t, c->n, &info, out, MAX_RANK + 1, NULL) != CLEAVE_OK) {
        continue;
      }
      *out_rank = info.output_rank;
      for (size_t p = 0; p < info.output_rank; p++) {
        cleave_dim d = cleave_dim_point(out[p]);
        hull[p] = any ? (cleave_dim){d.lo < hull[p].lo ? d.lo : hull[p].lo,
                                     d.hi > hull[p].hi ? d.hi : hull[p].hi}
                      : d;
      }
      any = true;
    }
    size_t s = 0;
    for (; s < slots; s++) {
      const cleave_dim *d = &c->dims[s / c->rank][s % c->rank];
      if (++idx[s] <= d->hi - d->lo) {
        break;
      }
      idx[s] = 0;
    }
    if (s == slots) {
      return any;
    }
  }
}

static void describe(const pcase *c, char *buf, size_t size) {
  size_t at =
      (size_t)snprintf(buf, size, "kind %d opset %lld stack %d axis %s%lld:", c->kind,
                       (long long)c->opset, c->stack, c->unknown ? "? " : "", (long long)c->axis);
  for (size_t i = 0; i < c->n && at < size; i++) {
    char text[128];
    cleave_partial_shape s = {c->rank, c->dims[i]};
    cleave_partial_shape_format(&s, text, sizeof text, NULL, NULL);
    at += (size_t)snprintf(buf + at, size - at, " %s", text);
  }
}

static uint64_t seed_from_env(void) {
  const char *s = getenv("CLEAVE_PARTIAL_SEED");
  return s != NULL && s[0] != '\0' ? strtoull(s, NULL, 10) : 20261128;
}

static int64_t cases_from_env(void) {
  const char *s = getenv("CLEAVE_PARTIAL_CASES");
  return s != NULL && s[0] != '\0' ? strtoll(s, NULL, 10) : 3000;
}

static void random_case(uint64_t *rng, pcase *c) {
  memset(c, 0, sizeof *c);
  static const int64_t opsets[] = {1, 4, 11, 13};
  c->kind = (int)cc_between(rng, 0, 2);
  c->opset = c->kind == 1 ? opsets[cc_between(rng, 0, 3)] : 11;
  c->stack = c->kind == 2 && cc_between(rng, 0, 1);
  c->n = (size_t)cc_between(rng, 1, MAX_INPUTS);
  c->rank = (size_t)cc_between(rng, 0, MAX_RANK);
  for (size_t i = 0; i < c->n; i++) {
    for (size_t k = 0; k < c->rank; k++) {
      /* Inputs that share dims more often than not, so that many cases are valid. */
      int64_t lo = i > 0 && cc_between(rng, 0, 2) > 0 ? c->dims[0][k].lo : cc_between(rng, 0, 4);
      c->dims[i][k] = cleave_dim_range(lo, lo + cc_between(rng, 0, 2));
    }
  }
  c->unknown = cc_between(rng, 0, 2) == 0;
  c->axis = cc_between(rng, -(int64_t)c->rank - 2, (int64_t)c->rank + 1);
}

static void test_property(void **state) {
  (void)state;
  uint64_t rng = seed_from_env();
  int64_t cases = cases_from_env(), failures = 0;
  for (int64_t k = 0; k < cases; k++) {
    pcase c;
    random_case(&rng, &c);
    cleave_partial_shape shapes[MAX_INPUTS];
    for (size_t i = 0; i < c.n; i++) {
      shapes[i] = (cleave_partial_shape){c.rank, c.dims[i]};
    }
    cleave_concat_op op = pcase_op(&c, &c.axis);
    cleave_partial_info info;
    cleave_dim got[MAX_RANK + 1], want[MAX_RANK + 1];
    cleave_error err;
    cleave_status st = cleave_concat_infer_partial(&op, c.unknown ? CLEAVE_UNKNOWN_AXIS : 0,
                                                   cleave_type_of(CLEAVE_U8), shapes, c.n, &info,
                                                   got, MAX_RANK + 1, &err);
    size_t rank = 0;
    bool valid = reference(&c, want, &rank);
    bool same = (st == CLEAVE_OK) == valid;
    for (size_t p = 0; same && valid && p < rank; p++) {
      same = info.output_rank == rank && got[p].lo == want[p].lo && got[p].hi == want[p].hi;
    }
    if (!same) {
      char text[512];
      describe(&c, text, sizeof text);
      print_error("case %" PRId64 ": %s\n  library: %s (%s)\n", k, text, cleave_status_name(st),
                  err.message);
      failures++;
    }
  }
  assert_int_equal(failures, 0);
}

/* Unbounded dims: the same hull as large bounds give, with the large bound read as unbounded. */
static void test_unbounded(void **state) {
  (void)state;
  uint64_t rng = seed_from_env() + 1;
  const int64_t big = 1000000;
  for (int64_t k = 0; k < cases_from_env(); k++) {
    pcase c;
    random_case(&rng, &c);
    pcase bounded = c;
    for (size_t i = 0; i < c.n; i++) {
      for (size_t j = 0; j < c.rank; j++) {
        if (cc_between(&rng, 0, 3) == 0) {
          c.dims[i][j].hi = CLEAVE_DIM_UNBOUNDED;
          bounded.dims[i][j].hi = big;
        }
      }
    }
    cleave_partial_shape su[MAX_INPUTS], sb[MAX_INPUTS];
    for (size_t i = 0; i < c.n; i++) {
      su[i] = (cleave_partial_shape){c.rank, c.dims[i]};
      sb[i] = (cleave_partial_shape){c.rank, bounded.dims[i]};
    }
    cleave_concat_op op = pcase_op(&c, &c.axis);
    unsigned unknown = c.unknown ? CLEAVE_UNKNOWN_AXIS : 0;
    cleave_partial_info iu, ib;
    cleave_dim du[MAX_RANK + 1], db[MAX_RANK + 1];
    cleave_status su_st = cleave_concat_infer_partial(&op, unknown, cleave_type_of(CLEAVE_U8), su,
                                                      c.n, &iu, du, MAX_RANK + 1, NULL);
    cleave_status sb_st = cleave_concat_infer_partial(&op, unknown, cleave_type_of(CLEAVE_U8), sb,
                                                      c.n, &ib, db, MAX_RANK + 1, NULL);
    char text[512];
    describe(&c, text, sizeof text);
    cc_context("unbounded case %" PRId64 ": %s", k, text);
    CC_CHECK(su_st == sb_st);
    for (size_t p = 0; su_st == CLEAVE_OK && p < iu.output_rank; p++) {
      CC_CHECK(du[p].lo == db[p].lo);
      CC_CHECK(du[p].hi == CLEAVE_DIM_UNBOUNDED ? db[p].hi >= big : du[p].hi == db[p].hi);
    }
    /* A dynamic rank in place of the first input: as a static rank of unknown dims. */
    if (c.n >= 2 && c.rank > 0) {
      cleave_dim any[MAX_RANK] = {cleave_dim_any(), cleave_dim_any(), cleave_dim_any()};
      cleave_partial_shape dyn = su[0], open = {c.rank, any};
      su[0] = (cleave_partial_shape){CLEAVE_RANK_DYNAMIC, NULL};
      sb[0] = open;
      for (size_t i = 1; i < c.n; i++) {
        sb[i] = su[i];
      }
      su_st = cleave_concat_infer_partial(&op, unknown, cleave_type_of(CLEAVE_U8), su, c.n, &iu, du,
                                          MAX_RANK + 1, NULL);
      sb_st = cleave_concat_infer_partial(&op, unknown, cleave_type_of(CLEAVE_U8), sb, c.n, &ib, db,
                                          MAX_RANK + 1, NULL);
      CC_CHECK(su_st == sb_st);
      for (size_t p = 0; su_st == CLEAVE_OK && p < iu.output_rank; p++) {
        CC_CHECK(du[p].lo == db[p].lo && du[p].hi == db[p].hi);
      }
      su[0] = dyn;
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_examples),
      cmocka_unit_test(test_info),
      cmocka_unit_test(test_property),
      cmocka_unit_test(test_unbounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
