/*
 * Property tests of partial-shape inference against brute force.
 *
 * For thousands of random small bounded cases (intervals up to 12, ranks 0-4, every operator,
 * known and unknown axes and lengths) the reference enumerates every concrete input, runs the
 * static inference on each and takes the hulls; cleave_infer_partial must give exactly those
 * hulls, and fail exactly when no concrete input is valid. Further properties cover what cannot
 * be enumerated: values near INT64_MAX (rank-1/2 data of a 1-byte type so that static shapes
 * stay representable), unbounded intervals (against large bounded ones) and dynamic ranks.
 *
 * Seeded and reproducible: CLEAVE_PARTIAL_SEED and CLEAVE_PARTIAL_CASES override the defaults;
 * a failure prints the seed, the case number and the case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partial_test_util.h"

/* The most static calls one case may cost; cases above it are drawn again. */
#define INSTANCE_BUDGET 12000

static uint64_t base_seed = 20261121;
static int64_t num_cases = 3000;

static void read_environment(void) {
  const char *seed = getenv("CLEAVE_PARTIAL_SEED");
  const char *cases = getenv("CLEAVE_PARTIAL_CASES");
  if (seed != NULL && seed[0] != '\0') {
    base_seed = strtoull(seed, NULL, 10);
  }
  if (cases != NULL && cases[0] != '\0') {
    num_cases = strtoll(cases, NULL, 10);
  }
}

/* Reports one failing case; the caller fails the test at the end. */
static void report(const char *property, uint64_t seed, int64_t index, const pt_case *c,
                   const char *why) {
  char text[1024];
  pt_describe(c, text, sizeof text);
  print_error("%s: seed %" PRIu64 " case %" PRId64 ": %s\n  %s\n", property, seed, index, text,
              why);
}

/* ---- generating cases -------------------------------------------------------------------- */

static const int64_t onnx_opsets[] = {1, 2, 11, 12, 13, 17, 18, 20};
static const int64_t sequence_opsets[] = {11, 24, 12, 30};

static cleave_dim small_dim(pt_rng *r) {
  int64_t lo = pt_below(r, 4) == 0 ? 0 : pt_between(r, 0, 9);
  int64_t width = pt_below(r, 5) < 2 ? 0 : pt_between(r, 1, 6);
  int64_t hi = lo + width > 12 ? 12 : lo + width;
  return cleave_dim_range(lo, hi);
}

/* Fills lengths[0..k) with non-negative values summing to `total`. */
static void split_total(pt_rng *r, int64_t total, int64_t *lengths, int64_t k) {
  int64_t left = total;
  for (int64_t i = 0; i < k - 1; i++) {
    lengths[i] = pt_between(r, 0, left);
    left -= lengths[i];
  }
  lengths[k - 1] = left;
}

/* Lengths for a list: either random, or summing to a value the axis dim may take. */
static void gen_list(pt_rng *r, pt_case *c, bool variadic) {
  c->lengths_form = PT_LENGTHS_LIST;
  c->num_lengths = pt_below(r, 15) == 0 ? 0 : pt_between(r, 1, PT_MAX_LENGTHS);
  c->lengths_unknown = pt_below(r, 4) == 0;
  int64_t k = c->num_lengths;
  if (k == 0) {
    return;
  }
  cleave_dim d = (int64_t)c->rank > 0
                     ? c->dims[c->axis_unknown ? pt_below(r, (int64_t)c->rank)
                                               : (c->axis % (int64_t)c->rank + (int64_t)c->rank) %
                                                     (int64_t)c->rank]
                     : cleave_dim_point(0);
  if (pt_below(r, 2) == 0) {
    split_total(r, pt_between(r, d.lo, d.hi), c->lengths, k);
  } else {
    for (int64_t i = 0; i < k; i++) {
      c->lengths[i] = pt_between(r, 0, 6);
    }
  }
  if (variadic && pt_below(r, 5) < 2) {
    c->lengths[pt_below(r, k)] = -1;
  }
  if (pt_below(r, 20) == 0) {
    c->lengths[pt_below(r, k)] = variadic ? pt_between(r, -3, -1) : -1;
  }
}

static void gen_small(pt_rng *r, pt_case *c) {
  memset(c, 0, sizeof *c);
  c->kind = (cleave_op_kind)pt_between(r, 1, 4);
  c->opset = 1;
  if (c->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE) {
    c->opset = sequence_opsets[pt_below(r, 4)];
    if (pt_below(r, 40) == 0) {
      c->opset = 10;
    }
  } else if (c->kind == CLEAVE_OP_ONNX_SPLIT) {
    c->opset = onnx_opsets[pt_below(r, 8)];
  }
  static const cleave_dtype others[] = {CLEAVE_BF16, CLEAVE_I8, CLEAVE_F16, CLEAVE_STRING,
                                        CLEAVE_U64};
  c->type = cleave_type_of(pt_below(r, 10) < 8 ? CLEAVE_F32 : others[pt_below(r, 5)]);
  c->rank = pt_below(r, 12) == 0 ? 0 : (size_t)pt_between(r, 1, PT_MAX_RANK);
  for (int64_t i = 0; i < (int64_t)c->rank; i++) {
    c->dims[i] = small_dim(r);
  }
  c->axis_unknown = pt_below(r, 3) == 0;
  if (c->rank == 0) {
    c->axis = pt_between(r, -1, 1);
  } else if (pt_below(r, 12) == 0) {
    c->axis = pt_below(r, 2) ? (int64_t)c->rank : -(int64_t)c->rank - 1;
  } else {
    c->axis = pt_between(r, -(int64_t)c->rank, (int64_t)c->rank - 1);
  }
  c->axis_1d = pt_below(r, 10) == 0;
  c->keepdims = 1;
  c->has_num_outputs = 0;
  switch (c->kind) {
  case CLEAVE_OP_SPLIT:
    c->num_splits = pt_below(r, 15) == 0 ? pt_between(r, -1, 0) : pt_between(r, 1, 6);
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    if (pt_below(r, 25) == 0) {
      c->lengths_form = PT_LENGTHS_ABSENT;
    } else {
      gen_list(r, c, true);
    }
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE: {
    int64_t form = pt_below(r, 10);
    if (form < 3) {
      c->lengths_form = PT_LENGTHS_ABSENT;
    } else if (form < 6) {
      c->lengths_form = PT_LENGTHS_SCALAR;
      c->num_lengths = 1;
      c->lengths[0] = pt_below(r, 10) == 0 ? pt_between(r, -1, 0) : pt_between(r, 1, 7);
      c->lengths_unknown = pt_below(r, 4) == 0;
    } else {
      gen_list(r, c, false);
    }
    c->keepdims = pt_below(r, 20) == 0 ? 2 : pt_below(r, 2);
    break;
  }
  default:
    if (pt_below(r, 2) == 0) {
      gen_list(r, c, false);
    }
    c->has_num_outputs = (int)pt_below(r, 2);
    c->num_splits = pt_below(r, 12) == 0 ? 0 : pt_between(r, 1, 5);
    if (c->has_num_outputs && c->lengths_form == PT_LENGTHS_LIST && pt_below(r, 2) == 0) {
      c->num_splits = c->num_lengths;
    }
    break;
  }
}

/* ---- the properties ---------------------------------------------------------------------- */

typedef struct tally {
  int64_t cases, valid, varies, failures, instances;
} tally;

/* Checks one enumerable case against brute force. Returns false on a mismatch. */
static bool check_case(const pt_case *c, uint64_t seed, int64_t index, const char *property,
                       tally *t) {
  static pt_result lib, ref;
  char why[8192];
  int64_t instances = 0;
  t->cases++;
  if (!pt_library(c, &lib, why, sizeof why)) {
    report(property, seed, index, c, why);
    return false;
  }
  if (!pt_reference(c, &ref, &instances)) {
    report(property, seed, index, c, "the reference cannot enumerate this case");
    return false;
  }
  t->instances += instances;
  if (!pt_same(&lib, &ref, why, sizeof why)) {
    report(property, seed, index, c, why);
    return false;
  }
  /* Static is the point case: one concrete input gives the very same status and message. */
  bool points = !c->axis_unknown && !c->lengths_unknown;
  for (int64_t i = 0; i < (int64_t)c->rank; i++) {
    points = points && c->dims[i].lo == c->dims[i].hi;
  }
  if (points && lib.status != CLEAVE_OK &&
      (lib.status != ref.status || strcmp(lib.message, ref.message) != 0)) {
    snprintf(why, sizeof why, "static message \"%s\" (status %d) but partial \"%s\" (status %d)",
             ref.message, (int)ref.status, lib.message, (int)lib.status);
    report(property, seed, index, c, why);
    return false;
  }
  if (lib.status == CLEAVE_OK) {
    t->valid++;
    t->varies += lib.count_varies;
  }
  return true;
}

static void test_small_cases_against_brute_force(void **state) {
  (void)state;
  pt_rng r;
  pt_seed(&r, base_seed);
  tally t = {0};
  for (int64_t i = 0; i < num_cases; i++) {
    pt_case c;
    do {
      gen_small(&r, &c);
    } while (pt_instance_count(&c) > INSTANCE_BUDGET);
    if (!check_case(&c, base_seed, i, "small", &t)) {
      t.failures++;
    }
  }
  print_message("small: seed %" PRIu64 ": %" PRId64 " cases (%" PRId64 " valid, %" PRId64
                " with a varying count), %" PRId64 " static calls, %" PRId64 " failures\n",
                base_seed, t.cases, t.valid, t.varies, t.instances, t.failures);
  assert_int_equal(t.failures, 0);
  /* The generator must reach both outcomes and the varying-count form often. */
  assert_true(t.valid > t.cases / 4);
  assert_true(t.cases - t.valid > t.cases / 10);
  assert_true(t.varies > t.cases / 50);
}

/* Every case of a hand-picked family with every axis dim up to 12 and every op parameter up to
 * 6: exhaustive over the single-dimension world, where the closed forms have their corners. */
static void test_exhaustive_rank_1(void **state) {
  (void)state;
  tally t = {0};
  int64_t index = 0;
  for (int64_t lo = 0; lo <= 12; lo++) {
    for (int64_t hi = lo; hi <= 12; hi++) {
      for (int64_t p = 0; p <= 6; p++) {
        pt_case c;
        memset(&c, 0, sizeof c);
        c.type = cleave_type_of(CLEAVE_F32);
        c.rank = 1;
        c.dims[0] = cleave_dim_range(lo, hi);
        c.keepdims = 1;
        /* Split-1, n = p. */
        c.kind = CLEAVE_OP_SPLIT;
        c.opset = 1;
        c.num_splits = p;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        /* Split-18 with num_outputs = p. */
        c.kind = CLEAVE_OP_ONNX_SPLIT;
        c.opset = 18;
        c.has_num_outputs = 1;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        /* Split-13 with p equal outputs. */
        c.opset = 13;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        /* SplitToSequence with scalar split p, known and unknown, and without split. */
        c.kind = CLEAVE_OP_SPLIT_TO_SEQUENCE;
        c.opset = 24;
        c.has_num_outputs = 0;
        c.lengths_form = PT_LENGTHS_SCALAR;
        c.num_lengths = 1;
        c.lengths[0] = p;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        c.lengths_unknown = true;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        c.lengths_unknown = false;
        c.lengths_form = PT_LENGTHS_ABSENT;
        c.keepdims = p % 2;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        c.keepdims = 1;
        /* VariadicSplit with [p, -1] and [p, 12 - p]; unknown pairs. */
        c.kind = CLEAVE_OP_VARIADIC_SPLIT;
        c.opset = 1;
        c.lengths_form = PT_LENGTHS_LIST;
        c.num_lengths = 2;
        c.lengths[0] = p;
        c.lengths[1] = -1;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        c.lengths[1] = p + 3;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
        c.lengths_unknown = true;
        c.num_lengths = 1 + p % 3;
        t.failures += !check_case(&c, 0, index++, "exhaustive", &t);
      }
    }
  }
  print_message("exhaustive rank 1: %" PRId64 " cases (%" PRId64 " valid), %" PRId64 " failures\n",
                t.cases, t.valid, t.failures);
  assert_int_equal(t.failures, 0);
}

/* Values near INT64_MAX: rank 1 or 2 (the other dim 0 or 1) of a 1-byte type, so that every
 * concrete shape is a valid static shape; intervals of width up to 12 near the top. */
static void gen_large(pt_rng *r, pt_case *c) {
  memset(c, 0, sizeof *c);
  c->kind = (cleave_op_kind)pt_between(r, 1, 4);
  c->opset = c->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE ? 24
             : c->kind == CLEAVE_OP_ONNX_SPLIT      ? onnx_opsets[pt_between(r, 1, 7)]
                                                    : 1;
  c->type = cleave_type_of(CLEAVE_I8);
  c->rank = (size_t)pt_between(r, 1, 2);
  int64_t width = pt_below(r, 3) == 0 ? 0 : pt_between(r, 1, 12);
  int64_t base;
  switch (pt_below(r, 3)) {
  case 0:
    base = INT64_MAX - width - pt_between(r, 0, 20);
    break;
  case 1:
    base = pt_between(r, INT64_MAX / 2 - 40, INT64_MAX / 2 + 40);
    break;
  default:
    base = pt_between(r, INT64_MAX / 4, INT64_MAX - width);
    break;
  }
  cleave_dim big = cleave_dim_range(base, base + width);
  int64_t at = c->rank == 2 ? pt_below(r, 2) : 0;
  c->dims[at] = big;
  if (c->rank == 2) {
    c->dims[1 - at] = pt_below(r, 2) ? cleave_dim_range(0, 1) : cleave_dim_point(1);
  }
  c->axis = at;
  c->axis_unknown = c->rank == 2 && pt_below(r, 4) == 0;
  c->keepdims = 1;
  int64_t k = pt_between(r, 1, PT_MAX_LENGTHS);
  switch (c->kind) {
  case CLEAVE_OP_SPLIT:
    c->num_splits = pt_between(r, 1, 13);
    break;
  default:
    if (c->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE && pt_below(r, 2) == 0) {
      /* At most 60 elements. */
      c->lengths_form = PT_LENGTHS_SCALAR;
      c->num_lengths = 1;
      c->lengths[0] = pt_between(r, base / 60 + 1, INT64_MAX);
      break;
    }
    if (c->kind == CLEAVE_OP_ONNX_SPLIT && pt_below(r, 2) == 0) {
      c->has_num_outputs = 1;
      c->num_splits = pt_between(r, 1, 13);
      break;
    }
    c->lengths_form = PT_LENGTHS_LIST;
    c->num_lengths = k;
    split_total(r, pt_between(r, big.lo, big.hi), c->lengths, k);
    if (c->kind == CLEAVE_OP_VARIADIC_SPLIT && pt_below(r, 2) == 0) {
      c->lengths[pt_below(r, k)] = -1;
    }
    if (pt_below(r, 8) == 0) {
      /* Sums that overflow int64, or miss by a little. */
      c->lengths[pt_below(r, k)] = pt_below(r, 2) ? INT64_MAX - pt_below(r, 3) : 0;
    }
    break;
  }
}

static void test_large_values_against_brute_force(void **state) {
  (void)state;
  pt_rng r;
  uint64_t seed = base_seed ^ 0x5bd1e995u;
  pt_seed(&r, seed);
  tally t = {0};
  int64_t n = num_cases / 3 + 1;
  for (int64_t i = 0; i < n; i++) {
    pt_case c;
    gen_large(&r, &c);
    if (!check_case(&c, seed, i, "large", &t)) {
      t.failures++;
    }
  }
  print_message("large: %" PRId64 " cases (%" PRId64 " valid), %" PRId64 " failures\n", t.cases,
                t.valid, t.failures);
  assert_int_equal(t.failures, 0);
  assert_true(t.valid > t.cases / 4);
}

/* Whether two library results agree, treating `unbounded` as growing: a bound is unbounded in
 * `u` exactly when it grows from `b1` to `b2`, and otherwise equals both. */
static bool bound_matches(cleave_dim u, cleave_dim b1, cleave_dim b2) {
  if (u.lo != b1.lo || u.lo != b2.lo) {
    return false;
  }
  if (b1.hi != b2.hi) {
    return u.hi == CLEAVE_DIM_UNBOUNDED;
  }
  return u.hi == b1.hi;
}

/* Unbounded intervals: [L, unbounded) must agree with [L, L + 1000] and [L, L + 2000] on every
 * lower bound and on every upper bound that does not grow; the others must be unbounded. (The
 * bounded results are themselves checked against brute force above for small intervals.) */
static void test_unbounded_against_bounded(void **state) {
  (void)state;
  pt_rng r;
  uint64_t seed = base_seed ^ 0x27d4eb2fu;
  pt_seed(&r, seed);
  int64_t failures = 0, checked = 0;
  for (int64_t i = 0; i < num_cases; i++) {
    pt_case u, b1, b2;
    gen_small(&r, &u);
    if (u.rank == 0) {
      continue;
    }
    b1 = u;
    b2 = u;
    int64_t open = pt_below(&r, 3) == 0 ? (int64_t)u.rank : 1;
    for (int64_t j = 0; j < (int64_t)u.rank; j++) {
      bool make_open =
          open == (int64_t)u.rank ||
          j ==
              (u.axis_unknown ? 0 : (u.axis % (int64_t)u.rank + (int64_t)u.rank) % (int64_t)u.rank);
      if (make_open) {
        u.dims[j].hi = CLEAVE_DIM_UNBOUNDED;
        b1.dims[j].hi = u.dims[j].lo + 1000;
        b2.dims[j].hi = u.dims[j].lo + 2000;
      }
    }
    static pt_result ru, r1, r2;
    char why[8192] = "";
    bool ok = pt_library(&u, &ru, why, sizeof why) && pt_library(&b1, &r1, why, sizeof why) &&
              pt_library(&b2, &r2, why, sizeof why);
    if (ok && (ru.status != r2.status || r1.status != r2.status)) {
      snprintf(why, sizeof why, "statuses %d (unbounded), %d, %d (bounded)", (int)ru.status,
               (int)r1.status, (int)r2.status);
      ok = false;
    }
    if (ok && ru.status == CLEAVE_OK) {
      ok = ru.output_rank == r2.output_rank && ru.count_varies == r2.count_varies &&
           r1.count_varies == r2.count_varies && ru.num_shapes == r2.num_shapes &&
           r1.num_shapes == r2.num_shapes && bound_matches(ru.count, r1.count, r2.count);
      size_t per = ru.output_rank == CLEAVE_RANK_DYNAMIC ? 0 : ru.output_rank;
      for (size_t s = 0; ok && s < ru.num_shapes; s++) {
        for (size_t p = 0; ok && p < per; p++) {
          ok = bound_matches(ru.shapes[s][p], r1.shapes[s][p], r2.shapes[s][p]);
        }
      }
      if (!ok) {
        char a[2048], b[2048];
        pt_format(&ru, a, sizeof a);
        pt_format(&r2, b, sizeof b);
        snprintf(why, sizeof why, "unbounded gives\n%s\nbut L+2000 gives\n%s", a, b);
      }
    }
    checked++;
    if (!ok) {
      report("unbounded", seed, i, &u, why);
      failures++;
    }
  }
  print_message("unbounded: %" PRId64 " cases, %" PRId64 " failures\n", checked, failures);
  assert_int_equal(failures, 0);
}

/* Dynamic rank: with the axis dimension anything, validity and the output count are those of
 * rank-1 data [?] split on axis 0, and every output has a dynamic rank. */
static void test_dynamic_rank_matches_any_dim(void **state) {
  (void)state;
  pt_rng r;
  uint64_t seed = base_seed ^ 0x165667b1u;
  pt_seed(&r, seed);
  int64_t failures = 0;
  for (int64_t i = 0; i < num_cases / 3; i++) {
    pt_case dyn, one;
    gen_small(&r, &dyn);
    dyn.rank = CLEAVE_RANK_DYNAMIC;
    one = dyn;
    one.rank = 1;
    one.dims[0] = cleave_dim_any();
    one.axis = 0;
    one.axis_unknown = false;
    static pt_result rd, r1;
    char why[1024] = "";
    bool ok = pt_library(&dyn, &rd, why, sizeof why) && pt_library(&one, &r1, why, sizeof why);
    if (ok) {
      ok = rd.status == r1.status;
      if (ok && rd.status == CLEAVE_OK) {
        ok = rd.output_rank == CLEAVE_RANK_DYNAMIC && rd.count_varies == r1.count_varies &&
             rd.count.lo == r1.count.lo && rd.count.hi == r1.count.hi &&
             rd.num_shapes == r1.num_shapes;
      }
      if (!ok) {
        snprintf(why, sizeof why,
                 "dynamic: status %d count %" PRId64 "..%" PRId64 " rank %" PRId64
                 "; [?]: status %d count %" PRId64 "..%" PRId64,
                 (int)rd.status, rd.count.lo, rd.count.hi, rd.output_rank, (int)r1.status,
                 r1.count.lo, r1.count.hi);
      }
    }
    if (!ok) {
      report("dynamic", seed, i, &dyn, why);
      failures++;
    }
  }
  assert_int_equal(failures, 0);
}

int main(void) {
  read_environment();
  print_message("partial-shape property tests: seed %" PRIu64 ", %" PRId64
                " cases (CLEAVE_PARTIAL_SEED, CLEAVE_PARTIAL_CASES)\n",
                base_seed, num_cases);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_cases_against_brute_force),
      cmocka_unit_test(test_exhaustive_rank_1),
      cmocka_unit_test(test_large_values_against_brute_force),
      cmocka_unit_test(test_unbounded_against_bounded),
      cmocka_unit_test(test_dynamic_rank_matches_any_dim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
