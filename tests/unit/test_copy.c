/*
 * The data movement of every operator, for every element type of the API (docs/operators.md
 * sections 1-5 and 7): many shapes of ranks 1 to 5 (zero-size dimensions included), every axis in
 * both its positive and negative spelling, and several split descriptions per operator. Each case
 * runs through cleave_infer, cleave_run, the one-shot call and a plan, and every output is compared
 * with the naive element-by-element reference of test_util.c.
 *
 * One cmocka test per (operator, element type), e.g. "variadic_split/bytes3".
 */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape_case {
  size_t rank;
  int64_t dims[5];
} shape_case;

static const shape_case shapes[] = {
    {1, {6}},
    {1, {0}},
    {1, {1}},
    {1, {12}},
    {2, {4, 6}},
    {2, {0, 3}},
    {2, {3, 0}},
    {2, {1, 1}},
    {2, {17, 19}},
    {3, {2, 3, 4}},
    {3, {3, 0, 2}},
    {3, {1, 6, 1}},
    {4, {2, 3, 2, 4}},
    {4, {2, 0, 3, 2}},
    {5, {2, 1, 3, 2, 2}},
    {5, {1, 2, 0, 2, 3}},
    {5, {2, 2, 2, 2, 4}},
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

static const cleave_dtype int_types[] = {CLEAVE_I8, CLEAVE_I16, CLEAVE_I32, CLEAVE_I64,
                                         CLEAVE_U8, CLEAVE_U16, CLEAVE_U32, CLEAVE_U64};
#define NUM_INT_TYPES (sizeof int_types / sizeof int_types[0])

/* Holds the integer values of one cleave_values (int64 storage keeps every type aligned). */
typedef struct values_box {
  int64_t storage[8];
} values_box;

static cleave_values make_values(values_box *box, cleave_dtype dtype, int32_t rank,
                                 const int64_t *vals, int64_t count) {
  size_t w = tu_int_size(dtype);
  unsigned char *p = (unsigned char *)box->storage;
  for (int64_t i = 0; i < count; ++i) {
    tu_store_int(dtype, vals[i], p + (size_t)i * w);
  }
  cleave_values v;
  v.dtype = dtype;
  v.rank = (size_t)rank;
  v.count = (size_t)count;
  v.data = box->storage;
  return v;
}

/* An integer type able to hold `value` (unsigned types cannot hold negatives). */
static cleave_dtype pick_int_type(size_t counter, int64_t value) {
  cleave_dtype t = int_types[counter % NUM_INT_TYPES];
  if (value < 0 && (t == CLEAVE_U8 || t == CLEAVE_U16 || t == CLEAVE_U32 || t == CLEAVE_U64)) {
    return CLEAVE_I64;
  }
  return t;
}

static void set_context(const char *op, const tu_type_case *tc, const shape_case *sc, int64_t axis,
                        const char *detail) {
  char text[128];
  tu_context("%s on %s %s, axis %lld, %s", op, tc->label,
             tu_shape_text(sc->dims, sc->rank, text, sizeof text), (long long)axis, detail);
}

static size_t norm_axis(int64_t axis, size_t rank) {
  return (size_t)(axis < 0 ? axis + (int64_t)rank : axis);
}

/* ----- Split-1 ----- */

static void copy_split(void **state) {
  const tu_type_case *tc = *state;
  size_t counter = 0;
  for (size_t s = 0; s < NUM_SHAPES; ++s) {
    const shape_case *sc = &shapes[s];
    tu_input in;
    tu_input_make(&in, tc->type, sc->dims, sc->rank, (unsigned)s);
    for (int64_t axis = -(int64_t)sc->rank; axis < (int64_t)sc->rank; ++axis) {
      size_t a = norm_axis(axis, sc->rank);
      int64_t d = sc->dims[a];
      const int64_t candidates[] = {1, 2, 3, 4, 6, d};
      for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; ++c) {
        int64_t n = candidates[c];
        if (n < 1 || (d % n) != 0 || (c == 5 && (d <= 6))) {
          continue;
        }
        int64_t lens[64];
        for (int64_t i = 0; i < n; ++i) {
          lens[i] = d / n;
        }
        values_box box;
        cleave_dtype at = pick_int_type(counter++, axis);
        cleave_op op = cleave_op_split(NULL, n);
        op.axis = make_values(&box, at, 0, &axis, 1);
        char detail[64];
        snprintf(detail, sizeof detail, "num_splits %lld, axis type %d", (long long)n, (int)at);
        set_context("Split-1", tc, sc, axis, detail);
        tu_expect ex = {a, (size_t)n, lens, 0};
        tu_check_success(&op, &in, &ex);
      }
    }
    tu_input_free(&in);
  }
}

/* ----- VariadicSplit-1 ----- */

typedef struct len_case {
  size_t k;
  int64_t v[6];
} len_case;

/* Split-length lists valid for an axis of length d; -1 entries only when `minus_one`. */
static size_t length_cases(int64_t d, int minus_one, len_case *out) {
  size_t n = 0;
  out[n++] = (len_case){1, {d}};
  out[n++] = (len_case){2, {0, d}};
  out[n++] = (len_case){3, {d, 0, 0}};
  if (minus_one) {
    out[n++] = (len_case){1, {-1}};
    out[n++] = (len_case){2, {-1, 0}};
  }
  if (d >= 1) {
    out[n++] = (len_case){2, {1, d - 1}};
    if (minus_one) {
      out[n++] = (len_case){2, {-1, 1}};
      out[n++] = (len_case){3, {0, -1, 1}};
    }
  }
  if (d >= 3) {
    out[n++] = (len_case){3, {1, 1, d - 2}};
    out[n++] = (len_case){5, {d - 3, 1, 0, 1, 1}};
    if (minus_one) {
      out[n++] = (len_case){4, {d - 2, 0, -1, 1}};
    }
  }
  return n;
}

/* The test's own resolution of a -1 entry. */
static void resolve(const len_case *lc, int64_t d, int64_t *lens) {
  int64_t sum = 0;
  for (size_t i = 0; i < lc->k; ++i) {
    sum += lc->v[i] == -1 ? 0 : lc->v[i];
  }
  for (size_t i = 0; i < lc->k; ++i) {
    lens[i] = lc->v[i] == -1 ? d - sum : lc->v[i];
  }
}

static void copy_variadic_split(void **state) {
  const tu_type_case *tc = *state;
  size_t counter = 0;
  for (size_t s = 0; s < NUM_SHAPES; ++s) {
    const shape_case *sc = &shapes[s];
    tu_input in;
    tu_input_make(&in, tc->type, sc->dims, sc->rank, (unsigned)s + 7);
    for (int64_t axis = -(int64_t)sc->rank; axis < (int64_t)sc->rank; ++axis) {
      size_t a = norm_axis(axis, sc->rank);
      int64_t d = sc->dims[a];
      len_case cases[16];
      size_t nc = length_cases(d, 1, cases);
      for (size_t c = 0; c < nc; ++c) {
        int64_t lens[8];
        resolve(&cases[c], d, lens);
        values_box abox;
        values_box lbox;
        cleave_dtype at = pick_int_type(counter, axis);
        cleave_dtype lt = pick_int_type(counter + 3, -1);
        /* Alternate between a scalar axis and a [1]-shaped one; both are VariadicSplit axes. */
        int32_t arank = (counter % 2) ? 1 : 0;
        ++counter;
        cleave_op op = cleave_op_variadic_split(NULL, NULL, 0);
        op.axis = make_values(&abox, at, arank, &axis, 1);
        op.lengths = make_values(&lbox, lt, 1, cases[c].v, (int64_t)cases[c].k);
        char detail[96];
        snprintf(detail, sizeof detail, "%zu lengths (first %lld), axis type %d rank %d",
                 cases[c].k, (long long)cases[c].v[0], (int)at, (int)arank);
        set_context("VariadicSplit-1", tc, sc, axis, detail);
        tu_expect ex = {a, cases[c].k, lens, 0};
        tu_check_success(&op, &in, &ex);
        /* The same through plain int64 values, which the one-shot call can express. */
        if (at != CLEAVE_I64 || lt != CLEAVE_I64 || arank != 0) {
          cleave_op op64 = cleave_op_variadic_split(&axis, cases[c].v, cases[c].k);
          tu_check_success(&op64, &in, &ex);
        }
      }
    }
    tu_input_free(&in);
  }
}

/* ----- SplitToSequence-11/-24 ----- */

static const int64_t sequence_opsets[] = {11, 12, 23, 24, 30};

static void copy_split_to_sequence(void **state) {
  const tu_type_case *tc = *state;
  size_t counter = 0;
  size_t runs = 0;
  for (size_t s = 0; s < NUM_SHAPES; ++s) {
    const shape_case *sc = &shapes[s];
    tu_input in;
    tu_input_make(&in, tc->type, sc->dims, sc->rank, (unsigned)s + 11);
    for (int64_t axis = -(int64_t)sc->rank; axis < (int64_t)sc->rank; ++axis) {
      size_t a = norm_axis(axis, sc->rank);
      int64_t d = sc->dims[a];
      int64_t opset = sequence_opsets[counter++ % 5];
      int64_t version = opset >= 24 ? 24 : 11;
      if (!tu_sequence_accepts(version, tc->type.dtype)) {
        opset = 24;
        version = 24;
      }
      if (!tu_sequence_accepts(version, tc->type.dtype)) {
        continue;
      }
      int64_t lens[64];
      values_box abox;
      cleave_op op = cleave_op_split_to_sequence(opset);
      /* The axis attribute: absent (default 0) when it is 0 on every other shape. */
      if (!(axis == 0 && s % 2 == 0)) {
        op.axis = make_values(&abox, CLEAVE_I64, 0, &axis, 1);
      }
      char detail[96];

      /* No split: d elements of length 1; keepdims 0 drops the axis. */
      for (int64_t keep = 0; keep <= 1; ++keep) {
        for (int64_t i = 0; i < d; ++i) {
          lens[i] = 1;
        }
        op.keepdims = keep;
        op.lengths = cleave_values_none();
        snprintf(detail, sizeof detail, "opset %lld, no split, keepdims %lld", (long long)opset,
                 (long long)keep);
        set_context("SplitToSequence", tc, sc, axis, detail);
        tu_expect ex = {a, (size_t)d, lens, keep == 0};
        tu_check_success(&op, &in, &ex);
        ++runs;
      }

      /* A scalar split s: floor(d/s) chunks of s, then d mod s if not 0; keepdims ignored. */
      const int64_t sizes[] = {1, 2, 3, 5, d + 1};
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        int64_t sz = sizes[k];
        size_t n = 0;
        for (int64_t done = 0; done < d; done += sz) {
          lens[n++] = d - done < sz ? d - done : sz;
        }
        values_box sbox;
        cleave_dtype st = (k % 2) ? CLEAVE_I32 : CLEAVE_I64;
        op.lengths = make_values(&sbox, st, 0, &sz, 1);
        op.keepdims = (int64_t)(k % 2);
        snprintf(detail, sizeof detail, "opset %lld, scalar split %lld (type %d), keepdims %lld",
                 (long long)opset, (long long)sz, (int)st, (long long)op.keepdims);
        set_context("SplitToSequence", tc, sc, axis, detail);
        tu_expect ex = {a, n, lens, 0};
        tu_check_success(&op, &in, &ex);
        ++runs;
      }

      /* A 1-D split: the entries as given; keepdims ignored. */
      len_case cases[16];
      size_t nc = length_cases(d, 0, cases);
      for (size_t c = 0; c < nc; ++c) {
        values_box sbox;
        cleave_dtype st = (c % 2) ? CLEAVE_I32 : CLEAVE_I64;
        op.lengths = make_values(&sbox, st, 1, cases[c].v, (int64_t)cases[c].k);
        op.keepdims = (int64_t)(c % 2);
        snprintf(detail, sizeof detail, "opset %lld, %zu split entries (type %d), keepdims %lld",
                 (long long)opset, cases[c].k, (int)st, (long long)op.keepdims);
        set_context("SplitToSequence", tc, sc, axis, detail);
        tu_expect ex = {a, cases[c].k, cases[c].v, 0};
        tu_check_success(&op, &in, &ex);
        ++runs;
      }
    }
    tu_input_free(&in);
  }
  if (!tu_sequence_accepts(24, tc->type.dtype)) {
    /* Not a SplitToSequence type at any version: rejected whatever the shape. */
    assert_int_equal(runs, 0);
    for (size_t s = 0; s < 4; ++s) {
      cleave_op op = cleave_op_split_to_sequence(s % 2 ? 11 : 24);
      char name[32];
      const char *needles[] = {tu_type_text(tc->type, name, sizeof name), NULL};
      tu_check_error(&op, tc->type, shapes[s].dims, shapes[s].rank, (size_t)shapes[s].dims[0],
                     CLEAVE_ERROR_UNSUPPORTED_TYPE, needles);
    }
  } else {
    assert_true(runs > 0);
  }
}

/* ----- ONNX Split-1/2/11/13/18 ----- */

typedef struct onnx_opset {
  int64_t opset;
  int64_t version;
} onnx_opset;

static const onnx_opset onnx_opsets[] = {{1, 1},   {2, 2},   {10, 2},  {11, 11}, {12, 11},
                                         {13, 13}, {17, 13}, {18, 18}, {25, 18}};
#define NUM_ONNX_OPSETS (sizeof onnx_opsets / sizeof onnx_opsets[0])

static void copy_onnx_split(void **state) {
  const tu_type_case *tc = *state;
  size_t runs = 0;
  for (size_t o = 0; o < NUM_ONNX_OPSETS; ++o) {
    int64_t opset = onnx_opsets[o].opset;
    int64_t version = onnx_opsets[o].version;
    if (!tu_onnx_split_accepts(version, tc->type.dtype)) {
      char name[32];
      const char *needles[] = {tu_type_text(tc->type, name, sizeof name), NULL};
      cleave_op op = cleave_op_onnx_split(opset);
      int64_t split[2] = {3, 3};
      op.lengths = cleave_values_list(split, 2);
      tu_context("ONNX Split opset %lld on %s: type not accepted", (long long)opset, tc->label);
      tu_check_error(&op, tc->type, shapes[0].dims, 1, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, needles);
      continue;
    }
    for (size_t s = 0; s < NUM_SHAPES; ++s) {
      const shape_case *sc = &shapes[s];
      /* Every opset sees every shape, but only a few axes, to keep the suite fast. */
      tu_input in;
      tu_input_make(&in, tc->type, sc->dims, sc->rank, (unsigned)(s + o));
      for (int64_t axis = -(int64_t)sc->rank; axis < (int64_t)sc->rank; ++axis) {
        size_t a = norm_axis(axis, sc->rank);
        int64_t d = sc->dims[a];
        int64_t lens[64];
        char detail[96];
        cleave_op op = cleave_op_onnx_split(opset);
        if (!(axis == 0 && s % 2 == 1)) {
          op.axis = cleave_values_scalar(&axis);
        }

        if (version < 18) {
          /* Equal parts: n outputs, n divides d. */
          const int64_t ns[] = {1, 2, 3, d};
          for (size_t k = 0; k < 4; ++k) {
            int64_t n = ns[k];
            if (n < 1 || d % n != 0 || (k == 3 && d <= 3)) {
              continue;
            }
            for (int64_t i = 0; i < n; ++i) {
              lens[i] = d / n;
            }
            op.lengths = cleave_values_none();
            op.num_outputs = tu_count_value(n);
            snprintf(detail, sizeof detail, "opset %lld, %lld equal parts", (long long)opset,
                     (long long)n);
            set_context("ONNX Split", tc, sc, axis, detail);
            tu_expect ex = {a, (size_t)n, lens, 0};
            tu_check_success(&op, &in, &ex);
            ++runs;
          }
        } else {
          /* num_outputs n: ceil(d/n) each, the last gets the rest (it may be 0). */
          for (int64_t n = 1; n <= 5; ++n) {
            int64_t c = (d + n - 1) / n;
            int64_t last = d - c * (n - 1);
            if (last < 0) {
              continue;
            }
            for (int64_t i = 0; i < n - 1; ++i) {
              lens[i] = c;
            }
            lens[n - 1] = last;
            op.lengths = cleave_values_none();
            op.num_outputs = tu_count_value(n);
            snprintf(detail, sizeof detail, "opset %lld, num_outputs %lld", (long long)opset,
                     (long long)n);
            set_context("ONNX Split", tc, sc, axis, detail);
            tu_expect ex = {a, (size_t)n, lens, 0};
            tu_check_success(&op, &in, &ex);
            ++runs;
          }
        }

        /* Explicit lengths; below 18 the output count may be stated too and must match. */
        len_case cases[16];
        size_t nc = length_cases(d, 0, cases);
        for (size_t c = 0; c < nc; ++c) {
          op.lengths = cleave_values_list(cases[c].v, cases[c].k);
          int count_given = version < 18 && (c % 2) == 1;
          op.num_outputs = count_given ? tu_count_value((int64_t)cases[c].k) : cleave_values_none();
          snprintf(detail, sizeof detail, "opset %lld, %zu lengths, count given %d",
                   (long long)opset, cases[c].k, count_given);
          set_context("ONNX Split", tc, sc, axis, detail);
          tu_expect ex = {a, cases[c].k, cases[c].v, 0};
          tu_check_success(&op, &in, &ex);
          ++runs;
        }
      }
      tu_input_free(&in);
    }
  }
  if (tu_onnx_split_accepts(18, tc->type.dtype)) {
    assert_true(runs > 0);
  } else {
    assert_int_equal(runs, 0);
  }
}

/* Inputs of a few MiB and more, so that runs take the library's large-copy paths (long rows,
 * streaming stores) as well; still compared with the naive reference. */
static void copy_large(void **state) {
  (void)state;
  struct {
    cleave_type type;
    size_t rank;
    int64_t dims[3];
  } cases[] = {
      {{CLEAVE_U8, 0}, 2, {3, 3145733}},
      {{CLEAVE_F32, 0}, 2, {2, 1179651}},
      {{CLEAVE_BYTES, 7}, 3, {5, 1, 270001}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    tu_input in;
    tu_input_make(&in, cases[c].type, cases[c].dims, cases[c].rank, (unsigned)c);
    size_t last = cases[c].rank - 1;
    int64_t d = cases[c].dims[last];
    const int64_t lens[3] = {d / 3, -1, 7};
    const int64_t resolved[3] = {d / 3, d - d / 3 - 7, 7};
    const int64_t axis = -1;
    cleave_op op = cleave_op_variadic_split(&axis, lens, 3);
    char text[64];
    tu_context("large VariadicSplit on %s, case %zu",
               tu_shape_text(cases[c].dims, cases[c].rank, text, sizeof text), c);
    tu_expect ex = {last, 3, resolved, 0};
    tu_check_success(&op, &in, &ex);

    const int64_t axis0 = 0;
    int64_t n = cases[c].dims[0];
    int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    cleave_op split = cleave_op_split(&axis0, n);
    tu_context("large Split-1 on axis 0 into %lld, case %zu", (long long)n, c);
    tu_expect ex0 = {0, (size_t)n, ones, 0};
    tu_check_success(&split, &in, &ex0);
    tu_input_free(&in);
  }
}

int main(void) {
  static const struct {
    const char *op;
    CMUnitTestFunction fn;
  } ops[] = {
      {"split", copy_split},
      {"variadic_split", copy_variadic_split},
      {"split_to_sequence", copy_split_to_sequence},
      {"onnx_split", copy_onnx_split},
  };
  size_t count = 4 * tu_num_types + 1;
  struct CMUnitTest *tests = calloc(count, sizeof *tests);
  char **names = calloc(count, sizeof *names);
  assert_non_null(tests);
  assert_non_null(names);
  size_t t = 0;
  for (size_t o = 0; o < 4; ++o) {
    for (size_t i = 0; i < tu_num_types; ++i) {
      names[t] = malloc(64);
      assert_non_null(names[t]);
      snprintf(names[t], 64, "%s/%s", ops[o].op, tu_types[i].label);
      tests[t].name = names[t];
      tests[t].test_func = ops[o].fn;
      tests[t].initial_state = (void *)(uintptr_t)&tu_types[i];
      ++t;
    }
  }
  tests[t].name = "large";
  tests[t].test_func = copy_large;
  int failures = tu_run_group("copy", tests, count);
  for (size_t i = 0; i < count; ++i) {
    free(names[i]);
  }
  free(names);
  free(tests);
  return failures;
}
