/*
 * The copy engine's kernels: every path (block copies in cache and streamed, row-streamed rows,
 * the transpositions of 1/2/4/8-byte units, the gathers of 16-byte and odd units), each kernel
 * family, edge rows and columns of the tiles, misaligned pointers and zero sizes. Thresholds are
 * lowered through the plan options so that small data reaches every path. Runs on threads and
 * the options themselves are tested in test_exec.c.
 */
#include "kernel_check.h"

#include <stdio.h>
#include <string.h>

/* ---- block copies ------------------------------------------------------------------------ */

/* Every dim before the axis is 1: each output is one block. Streamed (nt) and in-cache copies,
 * with block sizes that are not multiples of a line, and every misalignment class. */
static void test_rows_contiguous(void **state) {
  (void)state;
  static const int64_t shape[2] = {7, 1000};
  static const int64_t lengths[4] = {1, 0, 2, 4}; /* blocks of 1000, 0, 2000, 4000 bytes */
  static const size_t misalign[][2] = {{0, 0}, {1, 0}, {0, 1}, {3, 7}, {5, 33}, {17, 63}};
  int64_t axis = 0;
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (int nt = 0; nt < 2; nt++) {
      for (size_t m = 0; m < sizeof misalign / sizeof misalign[0]; m++) {
        kc_case c = kc_variadic_case(cleave_type_of(CLEAVE_U8), 1, shape, 2, 0, lengths, 4, &axis);
        c.in_misalign = misalign[m][0];
        c.out_misalign = misalign[m][1];
        cleave_plan_options o = kc_options(kc_families[f], nt ? 0 : KC_NEVER, KC_NEVER, 64);
        const char *words_nt[] = {"rows", "nt", NULL}, *words[] = {"rows", NULL};
        kc_check(&c, &o, KC_ONE_THREAD, nt ? words_nt : words);
      }
    }
  }
}

/* Block sizes at the edges of the inline in-cache copy (256 to 16384 bytes) and just outside. */
static void test_rows_cached_edges(void **state) {
  (void)state;
  static const int64_t shape[2] = {2, 33280};
  static const int64_t lengths[4] = {255, 256, 16384, 16385};
  int64_t axis = 1;
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (size_t m = 0; m < 3; m++) {
      kc_case c = kc_variadic_case(cleave_type_of(CLEAVE_U8), 1, shape, 2, 1, lengths, 4, &axis);
      c.in_misalign = m * 7;
      c.out_misalign = m * 3;
      cleave_plan_options o = kc_options(kc_families[f], KC_NEVER, KC_NEVER, 64);
      const char *words[] = {"rows", NULL};
      kc_check(&c, &o, KC_ONE_THREAD, words);
    }
  }
}

/* Rows before the axis: each output takes one row piece per input row, in input order. */
static void test_rows_streamed(void **state) {
  (void)state;
  static const int64_t shape[3] = {5, 37, 24};
  static const int64_t lengths[3] = {3, 10, 24}; /* 288, 960, 2304 bytes per row */
  static const int64_t shape2[2] = {9, 300};
  static const int64_t lengths2[3] = {100, 67, 133}; /* odd row pieces: 400, 268, 532 bytes */
  int64_t axis1 = 1;
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (int nt = 0; nt < 2; nt++) {
      for (size_t m = 0; m < 4; m++) {
        cleave_plan_options o = kc_options(kc_families[f], nt ? 0 : KC_NEVER, KC_NEVER, 64);
        const char *words[] = {"rows", nt ? "nt" : NULL, NULL};
        kc_case c =
            kc_variadic_case(cleave_type_of(CLEAVE_F32), 4, shape, 3, 1, lengths, 3, &axis1);
        c.in_misalign = m * 5;
        c.out_misalign = m * 13;
        kc_check(&c, &o, KC_ONE_THREAD, words);
        kc_case d =
            kc_variadic_case(cleave_type_of(CLEAVE_I32), 4, shape2, 2, 1, lengths2, 3, &axis1);
        d.in_misalign = m;
        d.out_misalign = 3 * m;
        kc_check(&d, &o, KC_ONE_THREAD, words);
      }
    }
  }
}

/* Streamed row pieces whose outputs are not line-aligned: the line shared by two rows of an
 * output is written whole from both input rows, which a run split into tasks (cut anywhere in a
 * row) must not do across a task's edge. Pieces around the 256-byte streaming minimum, every
 * kind of output offset within a line, one thread, the pool and a caller's parallel-for. */
static void test_rows_streamed_joined(void **state) {
  (void)state;
  static const int64_t shape[2] = {13, 1500};
  static const int64_t lengths[2][4] = {{256, 300, 321, 623}, {255, 256, 321, 668}};
  static const size_t out_misalign[] = {0, 1, 16, 31, 48, 63};
  static const kc_threads threads[] = {KC_ONE_THREAD, KC_POOL_2, KC_CUSTOM_2};
  int64_t axis = 1;
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
      /* Tasks of about 200 bytes: most start and end inside a row piece. */
      cleave_plan_options o = kc_options(kc_families[f], 0, t == 0 ? KC_NEVER : 1600, 64);
      for (size_t l = 0; l < 2; l++) {
        for (size_t m = 0; m < sizeof out_misalign / sizeof out_misalign[0]; m++) {
          kc_case c =
              kc_variadic_case(cleave_type_of(CLEAVE_U8), 1, shape, 2, 1, lengths[l], 4, &axis);
          c.in_misalign = m % 3;
          c.out_misalign = out_misalign[m];
          const char *words[] = {"rows", "nt", NULL};
          kc_check(&c, &o, threads[t], words);
        }
      }
    }
  }
}

/* Streamed copies in lanes: pieces at and around the size where copy_nt cuts a copy into
 * interleaved lanes (16 KiB), single-row and multi-row, and row counts around the walk's lanes of
 * rows (at least 8 rows, pieces under 16 KiB; a leftover row or not), on one thread and split into
 * tasks that cut pieces anywhere. */
static void test_rows_streamed_lanes(void **state) {
  (void)state;
  static const int64_t wide_lengths[5] = {16383, 16384, 16385, 16640, 70001};
  static const int64_t narrow_lengths[4] = {256, 300, 321, 623};
  static const int64_t row_counts[] = {1, 3, 8, 9, 11, 35};
  static const size_t out_misalign[] = {0, 1, 48};
  static const kc_threads threads[] = {KC_ONE_THREAD, KC_POOL_2, KC_CUSTOM_2};
  int64_t axis = 1;
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
      /* Tasks of about 5000 bytes: most start and end inside a piece or a lane. */
      cleave_plan_options o = kc_options(kc_families[f], 0, t == 0 ? KC_NEVER : 40000, 64);
      for (size_t r = 0; r < sizeof row_counts / sizeof row_counts[0]; r++) {
        for (size_t m = 0; m < sizeof out_misalign / sizeof out_misalign[0]; m++) {
          const char *words[] = {"rows", "nt", NULL};
          if (row_counts[r] <= 9) {
            int64_t shape[2] = {row_counts[r], 16383 + 16384 + 16385 + 16640 + 70001};
            kc_case c =
                kc_variadic_case(cleave_type_of(CLEAVE_U8), 1, shape, 2, 1, wide_lengths, 5, &axis);
            c.in_misalign = m;
            c.out_misalign = out_misalign[m];
            kc_check(&c, &o, threads[t], words);
          }
          int64_t narrow[2] = {row_counts[r], 1500};
          kc_case d = kc_variadic_case(cleave_type_of(CLEAVE_U8), 1, narrow, 2, 1, narrow_lengths,
                                       4, &axis);
          d.in_misalign = 2 * m;
          d.out_misalign = out_misalign[m];
          kc_check(&d, &o, threads[t], words);
        }
      }
    }
  }
}

/* Without streaming, the description must not claim it. */
static void test_rows_in_cache_description(void **state) {
  (void)state;
  int64_t shape[2] = {4, 64}, axis = 0;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_plan_options o = kc_options(CLEAVE_KERNELS_PORTABLE, KC_NEVER, KC_NEVER, 64);
  cleave_plan *plan = NULL;
  assert_int_equal(
      cleave_plan_create_with(&op, cleave_type_of(CLEAVE_U8), shape, 2, &o, &plan, NULL),
      CLEAVE_OK);
  assert_string_equal(cleave_plan_description(plan), "portable rows");
  cleave_plan_destroy(plan);
}

/* ---- tiny outputs ------------------------------------------------------------------------ */

typedef struct tiny_type {
  cleave_type type;
  size_t esize;
  const char *word; /* the kernel expected for one element per output row */
} tiny_type;

static cleave_type bytes_type(int64_t width) {
  cleave_type t = {CLEAVE_BYTES, width};
  return t;
}

/* Whether a plan's description holds `word` as a whole word. */
static int has_word(const char *description, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(description, word); p != NULL; p = strstr(p + 1, word)) {
    if ((p == description || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) {
      return 1;
    }
  }
  return 0;
}

/* The description is complete: "nt" whenever some copy streams, the tiny kernels included (the
 * AVX2 transpositions and its 16- and 32-byte gathers stream in a non-temporal run; the portable
 * tiny kernels never do; the generic gather never does). */
static void test_description_says_nt(void **state) {
  (void)state;
  const struct {
    cleave_type type;
    const char *word;
    int avx2_streams;
  } cases[] = {
      {cleave_type_of(CLEAVE_U8), "transpose1", 1},
      {cleave_type_of(CLEAVE_F32), "transpose4", 1},
      {cleave_type_of(CLEAVE_F64), "transpose8", 1},
      {cleave_type_of(CLEAVE_C128), "gather", 1},
      {{CLEAVE_BYTES, 32}, "gather", 1},
      {{CLEAVE_BYTES, 24}, "gather", 0},
  };
  int64_t axis = 1, shape[2] = {300, 8};
  cleave_op op = cleave_op_split(&axis, 8);
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (int nt = 0; nt < 2; nt++) {
      cleave_plan_options o = kc_options(kc_families[f], nt ? 0 : KC_NEVER, KC_NEVER, 64);
      for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cleave_plan *plan = NULL;
        cleave_error err;
        assert_int_equal(cleave_plan_create_with(&op, cases[k].type, shape, 2, &o, &plan, &err),
                         CLEAVE_OK);
        const char *d = cleave_plan_description(plan);
        int want = nt && kc_families[f] == CLEAVE_KERNELS_AVX2 && cases[k].avx2_streams;
        if (!has_word(d, cases[k].word) || has_word(d, "nt") != want) {
          print_error("case %zu, family %d, nt %d: \"%s\"\n", k, (int)kc_families[f], nt, d);
        }
        assert_true(has_word(d, cases[k].word));
        assert_int_equal(has_word(d, "nt"), want);
        cleave_plan_destroy(plan);
      }
    }
  }
}

/* One element per output per row, for every unit size class, with rows and output counts
 * around the tile edges (4, 8, 16 outputs; 4 to 64 rows) and the 256-row block, streamed or
 * not, with aligned and misaligned outputs. */
static void test_tiny_units(void **state) {
  (void)state;
  const tiny_type types[] = {
      {cleave_type_of(CLEAVE_U8), 1, "transpose1"},
      {cleave_type_of(CLEAVE_BOOLEAN), 1, "transpose1"},
      {cleave_type_of(CLEAVE_I16), 2, "transpose2"},
      {cleave_type_of(CLEAVE_F32), 4, "transpose4"},
      {cleave_type_of(CLEAVE_F64), 8, "transpose8"},
      {cleave_type_of(CLEAVE_C128), 16, "gather"},
      {cleave_type_of(CLEAVE_STRING), sizeof(cleave_string), "gather"},
      {bytes_type(3), 3, "gather"},
      {bytes_type(5), 5, "gather"},
      {bytes_type(6), 6, "gather"},
      {bytes_type(7), 7, "gather"},
      {bytes_type(12), 12, "gather"},
      {bytes_type(24), 24, "gather"},
      {bytes_type(32), 32, "gather"},
      {bytes_type(33), 33, "gather"},
      {bytes_type(63), 63, "gather"},
  };
  /* 300 rows: whole stacked steps (up to 64 rows), a 256-row block edge, and leftovers. */
  static const int64_t rows[] = {2, 9, 17, 67, 300};
  static const int64_t outs[] = {1, 3, 8, 17, 33};
  int64_t axis = 1;
  int64_t lengths[64];
  size_t variant = 0;
  /* Output misalignments: 0 lets large runs stream whole lines, the others force plain stores
   * (16 keeps 16-byte alignment but not line alignment). */
  static const size_t out_misalign[] = {0, 1, 0, 16, 3, 0, 33};
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (int nt = 0; nt < 2; nt++) {
      cleave_plan_options o = kc_options(kc_families[f], nt ? 0 : KC_NEVER, KC_NEVER, 64);
      for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
          for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
            int64_t shape[2] = {rows[r], outs[k]};
            kc_case c =
                kc_split_case(types[t].type, types[t].esize, shape, 2, 1, outs[k], lengths, &axis);
            c.in_misalign = variant % 5;
            c.out_misalign = out_misalign[variant % (sizeof out_misalign / sizeof out_misalign[0])];
            variant++;
            const char *words[] = {types[t].word, NULL};
            kc_check(&c, &o, KC_ONE_THREAD, words);
          }
        }
      }
    }
  }
}

/* Transpositions of 4 and 8-byte units with streaming allowed, into outputs that are 4-byte but
 * not line-aligned (so they take ordinary stores), or that mix aligned and misaligned outputs
 * within one tile group. Rows around whole steps (16 rows of 4-byte units, 8 of 8-byte units)
 * and the 256-row block; output counts around the tile widths; the pool and a caller's
 * parallel-for too (their tasks cut the rows). */
static void test_tiny_units_mixed_alignment(void **state) {
  (void)state;
  if (kc_num_families() < 2) {
    return; /* no AVX2 on this CPU: the portable kernels are covered above */
  }
  const tiny_type types[] = {
      {cleave_type_of(CLEAVE_F32), 4, "transpose4"},
      {cleave_type_of(CLEAVE_F64), 8, "transpose8"},
  };
  static const int64_t rows[] = {16, 17, 31, 48, 300};
  static const int64_t outs[] = {4, 8, 9, 33};
  /* {first output's offset, step between outputs}: one offset for all, or offsets varying within
   * a group (some line-aligned). */
  static const size_t offsets[][2] = {{4, 0}, {16, 0}, {36, 0}, {60, 0}, {0, 4}, {8, 24}, {4, 8}};
  static const kc_threads threads[] = {KC_ONE_THREAD, KC_POOL_2, KC_CUSTOM_2};
  int64_t axis = 1;
  int64_t lengths[64];
  size_t variant = 0;
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        for (size_t m = 0; m < sizeof offsets / sizeof offsets[0]; m++) {
          kc_threads th = threads[variant++ % 3];
          cleave_plan_options o =
              kc_options(CLEAVE_KERNELS_AVX2, 0, th == KC_ONE_THREAD ? KC_NEVER : 64, 64);
          int64_t shape[2] = {rows[r], outs[k]};
          kc_case c =
              kc_split_case(types[t].type, types[t].esize, shape, 2, 1, outs[k], lengths, &axis);
          c.in_misalign = m % 3 * 4;
          c.out_misalign = offsets[m][0];
          c.out_misalign_step = offsets[m][1];
          const char *words[] = {types[t].word, NULL};
          kc_check(&c, &o, th, words);
        }
      }
    }
  }
}

/* Units made of several elements reach the same kernels, and the last output of a uniform split
 * may differ (its own segment). */
static void test_tiny_multi_element_units(void **state) {
  (void)state;
  int64_t axis1 = 1, axis2 = 2;
  int64_t lengths[64];
  for (size_t f = 0; f < kc_num_families(); f++) {
    cleave_plan_options o = kc_options(kc_families[f], KC_NEVER, KC_NEVER, 64);
    /* u16 pairs: 4-byte units. */
    int64_t s1[2] = {33, 34};
    kc_case c1 = kc_split_case(cleave_type_of(CLEAVE_U16), 2, s1, 2, 1, 17, lengths, &axis1);
    const char *w1[] = {"transpose4", NULL};
    kc_check(&c1, &o, KC_ONE_THREAD, w1);
    /* u8 runs of 8 along an inner axis: [O, k, 2, 4] split on axis 1 gives 8-byte units. */
    int64_t s2[4] = {19, 12, 2, 4};
    kc_case c2 = kc_split_case(cleave_type_of(CLEAVE_U8), 1, s2, 4, 1, 12, lengths, &axis1);
    const char *w2[] = {"transpose8", NULL};
    kc_check(&c2, &o, KC_ONE_THREAD, w2);
    /* Inner dims after the axis: [10, 3, 6, 2] f32 on axis 2 into 6: units of 8 bytes. */
    int64_t s3[4] = {10, 3, 6, 2};
    kc_case c3 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s3, 4, 2, 6, lengths, &axis2);
    const char *w3[] = {"transpose8", NULL};
    kc_check(&c3, &o, KC_ONE_THREAD, w3);
    /* SplitToSequence with a scalar split: lengths 3,3,3,1 of f32 -> 12-byte units (gather)
     * and a last 4-byte unit (transpose4). */
    int64_t s4[2] = {40, 10}, split = 3;
    static const int64_t l4[4] = {3, 3, 3, 1};
    kc_case c4;
    memset(&c4, 0, sizeof c4);
    c4.op = cleave_op_split_to_sequence(11);
    c4.op.axis = cleave_values_scalar(&axis1);
    c4.op.lengths = cleave_values_scalar(&split);
    c4.type = cleave_type_of(CLEAVE_F32);
    c4.esize = 4;
    memcpy(c4.shape, s4, sizeof s4);
    c4.rank = 2;
    c4.axis = 1;
    c4.lengths = l4;
    c4.num_outputs = 4;
    const char *w4[] = {"gather", "transpose4", NULL};
    kc_check(&c4, &o, KC_ONE_THREAD, w4);
    /* SplitToSequence without split and keepdims 0: the axis is dropped, bytes are the same. */
    int64_t s5[2] = {21, 9};
    static const int64_t l5[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    kc_case c5 = c4;
    c5.op.lengths = cleave_values_none();
    c5.op.keepdims = 0;
    c5.type = cleave_type_of(CLEAVE_I16);
    c5.esize = 2;
    memcpy(c5.shape, s5, sizeof s5);
    c5.lengths = l5;
    c5.num_outputs = 9;
    c5.axis_removed = 1;
    const char *w5[] = {"transpose2", NULL};
    kc_check(&c5, &o, KC_ONE_THREAD, w5);
  }
}

/* A list of lengths mixing every kind of segment in one plan, zero lengths included, and a
 * list longer than the one-shot path's stack of segments. */
static void test_mixed_segments(void **state) {
  (void)state;
  static const int64_t lengths[] = {1, 1, 1, 2, 0, 2, 5, 40, 1, 0, 0, 3, 16, 17, 1};
  int64_t sum = 0;
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    sum += lengths[i];
  }
  int64_t shape[2] = {70, sum}, axis = 1;
  int64_t many[150];
  int64_t many_sum = 0;
  for (size_t i = 0; i < 150; i++) {
    many[i] = (int64_t)(i % 3); /* 0, 1, 2, ...: a new segment at every output */
    many_sum += many[i];
  }
  int64_t shape2[2] = {37, many_sum};
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (int nt = 0; nt < 2; nt++) {
      cleave_plan_options o = kc_options(kc_families[f], nt ? 0 : KC_NEVER, KC_NEVER, 64);
      kc_case c = kc_variadic_case(cleave_type_of(CLEAVE_F32), 4, shape, 2, 1, lengths,
                                   sizeof lengths / sizeof lengths[0], &axis);
      c.in_misalign = 1;
      c.out_misalign = 2;
      const char *w[] = {"rows", "transpose4", "transpose8", "gather", NULL};
      kc_check(&c, &o, KC_ONE_THREAD, w);
      kc_case d = kc_variadic_case(cleave_type_of(CLEAVE_U16), 2, shape2, 2, 1, many, 150, &axis);
      const char *wd[] = {"transpose2", "transpose4", NULL};
      kc_check(&d, &o, KC_ONE_THREAD, wd);
    }
  }
}

/* The tiny threshold moves outputs between the kernels; results stay the same. */
static void test_tiny_threshold(void **state) {
  (void)state;
  int64_t lengths[64], axis = 1;
  for (size_t f = 0; f < kc_num_families(); f++) {
    /* 100-byte units below a raised threshold: the gather's large-unit path. */
    int64_t s1[2] = {13, 400};
    cleave_plan_options high = kc_options(kc_families[f], KC_NEVER, KC_NEVER, 200);
    kc_case c1 = kc_split_case(cleave_type_of(CLEAVE_U8), 1, s1, 2, 1, 4, lengths, &axis);
    const char *w1[] = {"gather", NULL};
    kc_check(&c1, &high, KC_ONE_THREAD, w1);
    /* 64-byte units exactly under a threshold of 65. */
    int64_t s2[2] = {13, 256};
    cleave_plan_options at65 = kc_options(kc_families[f], KC_NEVER, KC_NEVER, 65);
    kc_case c2 = kc_split_case(cleave_type_of(CLEAVE_U8), 1, s2, 2, 1, 4, lengths, &axis);
    kc_check(&c2, &at65, KC_ONE_THREAD, w1);
    /* A threshold of 1 sends one-element outputs row by row, streamed or not. */
    int64_t s3[2] = {50, 16};
    for (int nt = 0; nt < 2; nt++) {
      cleave_plan_options low = kc_options(kc_families[f], nt ? 0 : KC_NEVER, KC_NEVER, 1);
      kc_case c3 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s3, 2, 1, 16, lengths, &axis);
      c3.out_misalign = 1;
      const char *w3[] = {"rows", NULL};
      kc_check(&c3, &low, KC_ONE_THREAD, w3);
    }
    /* One input row: tiny outputs are single blocks, copied as rows. */
    int64_t s4[2] = {1, 24};
    cleave_plan_options def = kc_options(kc_families[f], KC_NEVER, KC_NEVER, 64);
    kc_case c4 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s4, 2, 1, 24, lengths, &axis);
    const char *w4[] = {"rows", NULL};
    kc_check(&c4, &def, KC_ONE_THREAD, w4);
  }
}

/* ---- zero sizes -------------------------------------------------------------------------- */

static void test_zero_sizes(void **state) {
  (void)state;
  int64_t lengths[8], axis0 = 0, axis1 = 1;
  for (size_t f = 0; f < kc_num_families(); f++) {
    cleave_plan_options o = kc_options(kc_families[f], 0, 0, 64);
    const char *empty[] = {"empty", NULL};
    /* No rows. */
    int64_t s1[2] = {0, 8};
    kc_case c1 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s1, 2, 1, 2, lengths, &axis1);
    for (int t = 0; t < 4; t++) {
      kc_check(&c1, &o, (kc_threads)t, empty);
    }
    /* An empty axis: every output empty. */
    int64_t s2[2] = {5, 0};
    kc_case c2 = kc_split_case(cleave_type_of(CLEAVE_U8), 1, s2, 2, 1, 4, lengths, &axis1);
    kc_check(&c2, &o, KC_POOL_2, empty);
    /* An empty inner dim. */
    int64_t s3[3] = {4, 6, 0};
    kc_case c3 = kc_split_case(cleave_type_of(CLEAVE_F64), 8, s3, 3, 0, 2, lengths, &axis0);
    kc_check(&c3, &o, KC_CUSTOM_2, empty);
    /* Zero-length outputs around non-empty ones. */
    int64_t s4[2] = {3, 5};
    static const int64_t l4[5] = {0, 2, 0, 3, 0};
    kc_case c4 = kc_variadic_case(cleave_type_of(CLEAVE_U8), 1, s4, 2, 1, l4, 5, &axis1);
    kc_check(&c4, &o, KC_ONE_THREAD, NULL);
  }
  /* No outputs at all: SplitToSequence over an empty axis. */
  int64_t s5[2] = {3, 0};
  cleave_op op = cleave_op_split_to_sequence(11);
  op.axis = cleave_values_scalar(&axis1);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), s5, 2, &plan, NULL),
                   CLEAVE_OK);
  assert_int_equal(cleave_plan_info(plan)->num_outputs, 0);
  assert_int_equal(cleave_plan_run(plan, NULL, NULL, NULL), CLEAVE_OK);
  void **none = NULL;
  assert_int_equal(cleave_plan_run_alloc(plan, NULL, NULL, none, NULL), CLEAVE_OK);
  cleave_outputs_free(none, 0);
  cleave_plan_destroy(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_contiguous),
      cmocka_unit_test(test_rows_streamed),
      cmocka_unit_test(test_rows_streamed_joined),
      cmocka_unit_test(test_rows_streamed_lanes),
      cmocka_unit_test(test_tiny_units_mixed_alignment),
      cmocka_unit_test(test_rows_cached_edges),
      cmocka_unit_test(test_rows_in_cache_description),
      cmocka_unit_test(test_tiny_units),
      cmocka_unit_test(test_tiny_multi_element_units),
      cmocka_unit_test(test_mixed_segments),
      cmocka_unit_test(test_tiny_threshold),
      cmocka_unit_test(test_zero_sizes),
      cmocka_unit_test(test_description_says_nt),
  };
  return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
