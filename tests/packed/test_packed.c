/*
 * Packed sub-byte types (docs/operators.md section 7): every type and bit order, random shapes,
 * axes and lengths (odd element counts, boundaries at every bit offset), checked bit for bit
 * against a straightforward element-by-element reference written here; hand-written vectors showing
 * each type's bit order; byte sizes; views; and the types' errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cleave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The test's own table: bits per element and whether the first element is in the high bits. */
typedef struct packed_case {
  const char *name;
  cleave_dtype dtype;
  int bits;
  int msb_first;
} packed_case;

static const packed_case packed_types[] = {
    {"u1", CLEAVE_U1, 1, 1},
    {"u2", CLEAVE_U2, 2, 1},
    {"u4", CLEAVE_U4, 4, 0},
    {"i4", CLEAVE_I4, 4, 0},
    {"nf4", CLEAVE_NF4, 4, 0},
    {"f4e2m1", CLEAVE_F4E2M1, 4, 0},
    {"int4", CLEAVE_INT4, 4, 0},
    {"uint4", CLEAVE_UINT4, 4, 0},
    {"int2", CLEAVE_INT2, 2, 0},
    {"uint2", CLEAVE_UINT2, 2, 0},
    {"float4e2m1", CLEAVE_FLOAT4E2M1, 4, 0},
};
#define NUM_PACKED (sizeof packed_types / sizeof packed_types[0])

/* ---- the reference: one element at a time ----------------------------------------------- */

static unsigned get_element(const unsigned char *buf, int64_t j, const packed_case *t) {
  int64_t bit = j * t->bits;
  unsigned mask = (1u << t->bits) - 1;
  unsigned shift = t->msb_first ? (unsigned)(8 - t->bits - bit % 8) : (unsigned)(bit % 8);
  return (unsigned)(buf[bit / 8] >> shift) & mask;
}

static void set_element(unsigned char *buf, int64_t j, unsigned v, const packed_case *t) {
  int64_t bit = j * t->bits;
  unsigned shift = t->msb_first ? (unsigned)(8 - t->bits - bit % 8) : (unsigned)(bit % 8);
  buf[bit / 8] = (unsigned char)(buf[bit / 8] | (v << shift));
}

static int64_t bytes_of(int64_t count, int bits) {
  return (count * bits + 7) / 8;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
  /* xorshift64*: reproducible across runs and platforms. */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717u;
}
static int64_t rand_below(int64_t n) {
  return (int64_t)(next_random() % (uint64_t)n);
}

/* Expected output `o` of a split of `shape` on `axis` into `lengths`, packed from bit 0. */
static void reference(const unsigned char *in, const int64_t *shape, size_t rank, int64_t axis,
                      const int64_t *lengths, int64_t o, const packed_case *t,
                      unsigned char *expected) {
  int64_t outer = 1, inner = 1, offset = 0;
  for (int64_t k = 0; k < axis; k++) {
    outer *= shape[k];
  }
  for (size_t k = (size_t)axis + 1; k < rank; k++) {
    inner *= shape[k];
  }
  for (int64_t i = 0; i < o; i++) {
    offset += lengths[i];
  }
  int64_t d = shape[axis], len = lengths[o], j = 0;
  memset(expected, 0, (size_t)bytes_of(outer * len * inner, t->bits));
  for (int64_t r = 0; r < outer; r++) {
    for (int64_t a = 0; a < len; a++) {
      for (int64_t c = 0; c < inner; c++) {
        int64_t from = (r * d + offset + a) * inner + c;
        set_element(expected, j++, get_element(in, from, t), t);
      }
    }
  }
}

/* The inverse property (docs/operators.md section 8): OpenVINO Concat-1 of the outputs along the
 * axis, one-shot and through a plan, gives the input's elements back, with zero padding bits. */
static void check_inverse(const packed_case *t, const int64_t *shape, size_t rank, int64_t axis,
                          const int64_t *lengths, int64_t n, unsigned char *const *outs,
                          const unsigned char *in, int64_t count) {
  cleave_tensor parts[8];
  int64_t shapes[8][4];
  const void *ptrs[8];
  for (int64_t o = 0; o < n; o++) {
    memcpy(shapes[o], shape, rank * sizeof *shape);
    shapes[o][axis] = lengths[o];
    parts[o] = (cleave_tensor){outs[o], cleave_type_of(t->dtype), rank, shapes[o]};
    ptrs[o] = outs[o];
  }
  size_t bytes = (size_t)bytes_of(count, t->bits);
  unsigned char *back = malloc(bytes + 16);
  cleave_concat_op op = cleave_op_concat(&axis);
  for (int pass = 0; pass < 2; pass++) {
    memset(back, 0xA5, bytes + 16);
    cleave_error err;
    cleave_status st = CLEAVE_OK;
    if (pass == 0) {
      st = cleave_concat_run(&op, parts, (size_t)n, back, &err);
    } else {
      cleave_concat_plan *plan = NULL;
      st = cleave_concat_plan_create(&op, parts, (size_t)n, NULL, &plan, &err);
      if (st == CLEAVE_OK) {
        st = cleave_concat_plan_run(plan, ptrs, back, NULL, &err);
      }
      cleave_concat_plan_destroy(plan);
    }
    if (st != CLEAVE_OK) {
      fail_msg("%s: concat of the outputs: status %d: %s", t->name, (int)st, err.message);
    }
    for (int64_t j = 0; j < count; j++) {
      if (get_element(back, j, t) != get_element(in, j, t)) {
        fail_msg("%s pass %d: the concat of the outputs differs at element %lld (axis %lld)",
                 t->name, pass, (long long)j, (long long)axis);
      }
    }
    /* The padding bits of the last byte are zero, and nothing is written past it. */
    for (int64_t j = count; j % (8 / t->bits) != 0; j++) {
      assert_int_equal(get_element(back, j, t), 0);
    }
    assert_int_equal(back[bytes], 0xA5);
  }
  free(back);
}

/* Runs VariadicSplit `shape`/`axis`/`lengths` of type `t` through cleave_run and a plan, and
 * compares every output byte (padding bits included) with the reference; then joins the outputs
 * back (check_inverse). */
static void check_split(const packed_case *t, const int64_t *shape, size_t rank, int64_t axis,
                        const int64_t *lengths, int64_t n) {
  int64_t count = 1;
  for (size_t k = 0; k < rank; k++) {
    count *= shape[k];
  }
  size_t in_bytes = (size_t)bytes_of(count, t->bits);
  /* Exactly the input's size, so that ASan sees any read past it; random padding bits too. */
  unsigned char *in = malloc(in_bytes + 1);
  for (size_t b = 0; b < in_bytes; b++) {
    in[b] = (unsigned char)next_random();
  }
  unsigned char *outs[64], *expected = malloc(in_bytes + 16);
  void *ptrs[64];
  for (int64_t o = 0; o < n; o++) {
    outs[o] = malloc(in_bytes + 16);
    ptrs[o] = outs[o];
  }
  cleave_op op = cleave_op_variadic_split(&axis, lengths, (size_t)n);
  cleave_tensor tensor = {in, cleave_type_of(t->dtype), rank, shape};
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t o = 0; o < n; o++) {
      memset(outs[o], 0xA5, in_bytes + 16);
    }
    cleave_error err;
    cleave_status st;
    cleave_plan *plan = NULL;
    if (pass == 0) {
      st = cleave_run(&op, &tensor, ptrs, (size_t)n, &err);
    } else {
      st = cleave_plan_create(&op, tensor.type, shape, rank, &plan, &err);
      if (st == CLEAVE_OK) {
        st = cleave_plan_run(plan, in, ptrs, &err);
      }
    }
    if (st != CLEAVE_OK) {
      fail_msg("%s: status %d: %s", t->name, (int)st, err.message);
    }
    for (int64_t o = 0; o < n; o++) {
      int64_t out_count = count / (shape[axis] == 0 ? 1 : shape[axis]) * lengths[o];
      if (shape[axis] == 0) {
        out_count = 0;
      }
      size_t out_bytes = (size_t)bytes_of(out_count, t->bits);
      if (plan != NULL) {
        assert_int_equal(cleave_plan_output_bytes(plan, (size_t)o), (int64_t)out_bytes);
      }
      reference(in, shape, rank, axis, lengths, o, t, expected);
      if (memcmp(outs[o], expected, out_bytes) != 0) {
        fail_msg("%s pass %d output %lld of %lld differs (axis %lld, rank %zu)", t->name, pass,
                 (long long)o, (long long)n, (long long)axis, rank);
      }
      /* Nothing written past the output's last byte. */
      for (size_t b = out_bytes; b < out_bytes + 16; b++) {
        assert_int_equal(outs[o][b], 0xA5);
      }
    }
    cleave_plan_destroy(plan);
  }
  check_inverse(t, shape, rank, axis, lengths, n, outs, in, count);
  for (int64_t o = 0; o < n; o++) {
    free(outs[o]);
  }
  free(expected);
  free(in);
}

static void test_random_splits(void **state) {
  (void)state;
  for (size_t ti = 0; ti < NUM_PACKED; ti++) {
    const packed_case *t = &packed_types[ti];
    for (int trial = 0; trial < 300; trial++) {
      size_t rank = (size_t)(1 + rand_below(4));
      int64_t shape[4];
      for (size_t k = 0; k < rank; k++) {
        shape[k] = rand_below(7);
      }
      if (trial % 10 == 0) {
        /* Now and then one long dimension: blocks of more than 64 bits. */
        shape[rand_below((int64_t)rank)] = rand_below(150);
      }
      int64_t axis = rand_below((int64_t)rank);
      int64_t d = shape[axis], n = 1 + rand_below(5), lengths[8], left = d;
      for (int64_t o = 0; o < n - 1; o++) {
        lengths[o] = rand_below(left + 1);
        left -= lengths[o];
      }
      lengths[n - 1] = left;
      check_split(t, shape, rank, axis, lengths, n);
    }
  }
}

/* A parallel-for that runs the tasks in reverse order on the calling thread: results must not
 * depend on the order (each task owns whole bytes of every output). */
static void reverse_for(void *pool, cleave_task_fn task, void *context, size_t count) {
  (void)pool;
  for (size_t i = count; i-- > 0;) {
    task(context, i);
  }
}

/* The bit-stream copy on threads: ranges of 8-row groups, through the built-in pool and through
 * a caller's parallel-for, against the reference (row counts that are not multiples of 8, cuts
 * inside bytes). */
static void test_threaded(void **state) {
  (void)state;
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  cleave_exec execs[2] = {cleave_exec_threadpool(pool), {reverse_for, NULL, 3}};
  cleave_plan_options options = cleave_plan_options_default();
  options.parallel_bytes = 0;
  static const int64_t rows[] = {16, 17, 23, 61, 200};
  for (size_t ti = 0; ti < NUM_PACKED; ti++) {
    const packed_case *t = &packed_types[ti];
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      int64_t shape[2] = {rows[r], 45}, axis = 1, lengths[3] = {7, 1, 37};
      int64_t count = shape[0] * shape[1];
      size_t in_bytes = (size_t)bytes_of(count, t->bits);
      unsigned char *in = malloc(in_bytes);
      for (size_t b = 0; b < in_bytes; b++) {
        in[b] = (unsigned char)next_random();
      }
      cleave_op op = cleave_op_variadic_split(&axis, lengths, 3);
      cleave_plan *plan = NULL;
      assert_int_equal(
          cleave_plan_create_with(&op, cleave_type_of(t->dtype), shape, 2, &options, &plan, NULL),
          CLEAVE_OK);
      assert_string_equal(cleave_plan_description(plan), "bits");
      for (size_t e = 0; e < 2; e++) {
        unsigned char *outs[3], *expected = malloc(in_bytes + 16);
        void *ptrs[3];
        for (int o = 0; o < 3; o++) {
          outs[o] = malloc(in_bytes + 16);
          memset(outs[o], 0xA5, in_bytes + 16);
          ptrs[o] = outs[o];
        }
        assert_int_equal(cleave_plan_run_exec(plan, in, ptrs, &execs[e], NULL), CLEAVE_OK);
        for (int o = 0; o < 3; o++) {
          size_t out_bytes = (size_t)bytes_of(shape[0] * lengths[o], t->bits);
          reference(in, shape, 2, axis, lengths, o, t, expected);
          if (memcmp(outs[o], expected, out_bytes) != 0 || outs[o][out_bytes] != 0xA5) {
            fail_msg("%s threaded (exec %zu) rows %lld output %d differs", t->name, e,
                     (long long)rows[r], o);
          }
          free(outs[o]);
        }
        free(expected);
      }
      cleave_plan_destroy(plan);
      free(in);
    }
  }
  cleave_threadpool_destroy(pool);
}

/* Boundaries at every bit offset: one row of 67 elements cut at each position. */
static void test_every_offset(void **state) {
  (void)state;
  for (size_t ti = 0; ti < NUM_PACKED; ti++) {
    for (int64_t cut = 0; cut <= 67; cut++) {
      int64_t shape[2] = {3, 67}, lengths[2] = {cut, 67 - cut};
      check_split(&packed_types[ti], shape, 2, 1, lengths, 2);
      int64_t shape1[1] = {67};
      check_split(&packed_types[ti], shape1, 1, 0, lengths, 2);
    }
  }
}

/* Byte-aligned splits take the byte engine: large enough to reach its block paths. */
static void test_aligned_large(void **state) {
  (void)state;
  for (size_t ti = 0; ti < NUM_PACKED; ti++) {
    int64_t shape[2] = {64, 4096}, lengths[4] = {1024, 2048, 512, 512};
    check_split(&packed_types[ti], shape, 2, 1, lengths, 4);
    int64_t shape0[2] = {4096, 48}, lengths0[3] = {8, 4000, 88};
    check_split(&packed_types[ti], shape0, 2, 0, lengths0, 3);
  }
}

/* Hand-written vectors: the bit order of each type, by example. */
static void test_bit_order_vectors(void **state) {
  (void)state;
  int64_t axis = 0, lengths[2] = {1, 3};
  int64_t shape[1] = {4};
  unsigned char out0[1], out1[1];
  void *outs[2] = {out0, out1};
  cleave_error err;
  /* u2 (OpenVINO): elements 3,0,1,2 in one byte, first in the high bits: 0b11'00'01'10. The
   * tail [0,1,2] repacks from the high bits: 0b00'01'10'00; the head [3]: 0b11'000000. */
  unsigned char u2[1] = {0xC6};
  cleave_tensor t = {u2, cleave_type_of(CLEAVE_U2), 1, shape};
  assert_int_equal(cleave_variadic_split(&t, axis, cleave_values_list(lengths, 2), outs, 2, &err),
                   CLEAVE_OK);
  assert_int_equal(out0[0], 0xC0);
  assert_int_equal(out1[0], 0x18);
  /* uint2 (ONNX): the same elements 3,0,1,2 from the low bits: 0b10'01'00'11 = 0x93. Tail
   * [0,1,2] -> 0b00'10'01'00 = 0x24; head [3] -> 0x03. */
  unsigned char uint2[1] = {0x93};
  t.data = uint2;
  t.type = cleave_type_of(CLEAVE_UINT2);
  assert_int_equal(cleave_variadic_split(&t, axis, cleave_values_list(lengths, 2), outs, 2, &err),
                   CLEAVE_OK);
  assert_int_equal(out0[0], 0x03);
  assert_int_equal(out1[0], 0x24);
  /* u1: 8 elements 1,0,1,1,0,0,1,0 = 0b10110010 (first in bit 7). Split [3,5]: [1,0,1] ->
   * 0b101'00000 = 0xA0; [1,0,0,1,0] -> 0b10010'000 = 0x90. */
  int64_t shape8[1] = {8}, l35[2] = {3, 5};
  unsigned char u1[1] = {0xB2};
  t.data = u1;
  t.type = cleave_type_of(CLEAVE_U1);
  t.shape = shape8;
  assert_int_equal(cleave_variadic_split(&t, axis, cleave_values_list(l35, 2), outs, 2, &err),
                   CLEAVE_OK);
  assert_int_equal(out0[0], 0xA0);
  assert_int_equal(out1[0], 0x90);
  /* Every 4-bit type: elements 1,2,3 stored low nibble first: 0x21, 0x03 (high nibble of the
   * last byte is padding, here deliberately not zero: 0xF3). Split [1,2]: [1] -> 0x01;
   * [2,3] -> 0x32. */
  static const cleave_dtype nibble_types[] = {CLEAVE_U4,        CLEAVE_I4,   CLEAVE_NF4,
                                              CLEAVE_F4E2M1,    CLEAVE_INT4, CLEAVE_UINT4,
                                              CLEAVE_FLOAT4E2M1};
  int64_t shape3[1] = {3}, l12[2] = {1, 2};
  unsigned char nibbles[2] = {0x21, 0xF3};
  for (size_t i = 0; i < sizeof nibble_types / sizeof nibble_types[0]; i++) {
    t.data = nibbles;
    t.type = cleave_type_of(nibble_types[i]);
    t.shape = shape3;
    assert_int_equal(cleave_variadic_split(&t, axis, cleave_values_list(l12, 2), outs, 2, &err),
                     CLEAVE_OK);
    assert_int_equal(out0[0], 0x01);
    assert_int_equal(out1[0], 0x32);
  }
}

static void test_sizes_and_names(void **state) {
  (void)state;
  for (size_t ti = 0; ti < NUM_PACKED; ti++) {
    const packed_case *t = &packed_types[ti];
    int64_t bits = 0;
    cleave_bit_order order = CLEAVE_BIT_ORDER_NONE;
    assert_int_equal(cleave_type_bits(cleave_type_of(t->dtype), &bits, &order, NULL), CLEAVE_OK);
    assert_int_equal(bits, t->bits);
    assert_int_equal(order, t->msb_first ? CLEAVE_BIT_ORDER_MSB_FIRST : CLEAVE_BIT_ORDER_LSB_FIRST);
    assert_string_equal(cleave_dtype_name(t->dtype), t->name);
    cleave_dtype back;
    assert_int_equal(cleave_dtype_from_name(t->name, &back, NULL), CLEAVE_OK);
    assert_int_equal(back, t->dtype);
    /* No byte size per element. */
    int64_t size = 0;
    cleave_error err;
    assert_int_equal(cleave_type_size(cleave_type_of(t->dtype), &size, &err),
                     CLEAVE_ERROR_UNSUPPORTED_TYPE);
    assert_non_null(strstr(err.message, t->name));
    /* Inference reports the bits; an element count above 2^63-1 is an overflow (sizes are
     * checked in elements first for packed types). */
    int64_t shape[2] = {3, 5}, axis = 1, n = 5;
    cleave_op op = cleave_op_split(&axis, n);
    cleave_split_info info;
    assert_int_equal(cleave_infer(&op, cleave_type_of(t->dtype), shape, 2, &info, NULL, 0, NULL),
                     CLEAVE_OK);
    assert_int_equal(info.element_bits, t->bits);
    assert_int_equal(info.element_size, 0);
    int64_t huge[2] = {INT64_MAX, 2};
    assert_int_equal(cleave_infer(&op, cleave_type_of(t->dtype), huge, 2, &info, NULL, 0, &err),
                     CLEAVE_ERROR_OVERFLOW);
    assert_non_null(strstr(err.message, "2^63-1"));
  }
}

static void test_unsupported(void **state) {
  (void)state;
  static const cleave_dtype groups[] = {CLEAVE_U3, CLEAVE_U6};
  for (size_t i = 0; i < 2; i++) {
    int64_t shape[1] = {8}, axis = 0;
    unsigned char in[3] = {1, 2, 3}, out[4][3];
    memset(out, 0x5A, sizeof out);
    void *outs[4] = {out[0], out[1], out[2], out[3]};
    cleave_tensor t = {in, cleave_type_of(groups[i]), 1, shape};
    cleave_error err;
    assert_int_equal(cleave_split(&t, axis, 2, outs, 2, &err), CLEAVE_ERROR_UNSUPPORTED_TYPE);
    assert_non_null(strstr(err.message, cleave_dtype_name(groups[i])));
    assert_non_null(strstr(err.message, "not supported"));
    for (size_t b = 0; b < sizeof out; b++) {
      assert_int_equal(((unsigned char *)out)[b], 0x5A);
    }
  }
  /* The ONNX operators do not take packed types, whatever the opset. */
  for (size_t ti = 0; ti < NUM_PACKED; ti++) {
    int64_t shape[1] = {4};
    cleave_op split = cleave_op_onnx_split(18);
    static const int64_t two = 2;
    split.num_outputs = cleave_values_scalar(&two);
    cleave_op seq = cleave_op_split_to_sequence(24);
    cleave_split_info info;
    cleave_error err;
    cleave_type type = cleave_type_of(packed_types[ti].dtype);
    assert_int_equal(cleave_infer(&split, type, shape, 1, &info, NULL, 0, &err),
                     CLEAVE_ERROR_UNSUPPORTED_TYPE);
    assert_non_null(strstr(err.message, packed_types[ti].name));
    assert_int_equal(cleave_infer(&seq, type, shape, 1, &info, NULL, 0, &err),
                     CLEAVE_ERROR_UNSUPPORTED_TYPE);
  }
}

/* Views alias the input only where each output's rows start on byte boundaries. */
static void test_views(void **state) {
  (void)state;
  unsigned char in[12] = {0};
  int64_t axis = 1;
  cleave_view views[2];
  int64_t dims[8];
  cleave_error err;
  /* u4 [3,8] split 8 -> [2,6]: rows of 4 bytes, cuts at 1 byte: every row starts on a byte. */
  int64_t shape[2] = {3, 8}, aligned[2] = {2, 6};
  cleave_op op = cleave_op_variadic_split(&axis, aligned, 2);
  cleave_tensor t = {in, cleave_type_of(CLEAVE_U4), 2, shape};
  assert_int_equal(cleave_views(&op, &t, views, 2, dims, 8, &err), CLEAVE_OK);
  assert_ptr_equal(views[0].data, in);
  assert_ptr_equal(views[1].data, in + 1);
  assert_int_equal(views[1].shape[1], 6);
  assert_int_equal(views[1].strides[0], 8);
  assert_int_equal(views[1].contiguous, 0);
  /* A cut after 3 nibbles does not start on a byte: a copy is needed, named in the message. */
  int64_t odd[2] = {3, 5};
  op = cleave_op_variadic_split(&axis, odd, 2);
  assert_int_equal(cleave_views(&op, &t, views, 2, dims, 8, &err), CLEAVE_ERROR_COPY_REQUIRED);
  assert_non_null(strstr(err.message, "output 1"));
}

/* The plan names its copy: the bit-stream copy only where blocks are not whole bytes. */
static void test_plan_kernels(void **state) {
  (void)state;
  int64_t shape[2] = {3, 8}, axis = 1, aligned[2] = {2, 6}, odd[2] = {3, 5};
  cleave_plan *plan = NULL;
  cleave_op op = cleave_op_variadic_split(&axis, odd, 2);
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U4), shape, 2, &plan, NULL),
                   CLEAVE_OK);
  assert_string_equal(cleave_plan_description(plan), "bits");
  cleave_plan_destroy(plan);
  op = cleave_op_variadic_split(&axis, aligned, 2);
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U4), shape, 2, &plan, NULL),
                   CLEAVE_OK);
  assert_null(strstr(cleave_plan_description(plan), "bits"));
  cleave_plan_destroy(plan);
}

/* A packed input of more than 2^60 bytes: its shape is valid (inference works), but it cannot be
 * in memory and its bit offsets do not fit in int64, so every execution entry point refuses it
 * as out of memory, and writes nothing. */
static void test_too_large_for_memory(void **state) {
  (void)state;
  int64_t shape[1] = {(int64_t)1 << 62}, axis = 0; /* u4: 2^61 bytes */
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_type type = cleave_type_of(CLEAVE_U4);
  cleave_split_info info;
  assert_int_equal(cleave_infer(&op, type, shape, 1, &info, NULL, 0, NULL), CLEAVE_OK);
  assert_int_equal(info.num_outputs, 2);
  unsigned char in[1] = {0}, out[2][4];
  memset(out, 0x5A, sizeof out);
  void *outs[2] = {out[0], out[1]};
  cleave_tensor t = {in, type, 1, shape};
  cleave_error err;
  assert_int_equal(cleave_run(&op, &t, outs, 2, &err), CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_non_null(strstr(err.message, "2^60"));
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, type, shape, 1, &plan, &err),
                   CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_null(plan);
  cleave_view views[2];
  int64_t dims[4] = {7, 7, 7, 7};
  assert_int_equal(cleave_views(&op, &t, views, 2, dims, 4, &err), CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_int_equal(dims[0], 7);
  for (size_t b = 0; b < sizeof out; b++) {
    assert_int_equal(((unsigned char *)out)[b], 0x5A);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bit_order_vectors),
      cmocka_unit_test(test_sizes_and_names),
      cmocka_unit_test(test_unsupported),
      cmocka_unit_test(test_every_offset),
      cmocka_unit_test(test_aligned_large),
      cmocka_unit_test(test_random_splits),
      cmocka_unit_test(test_views),
      cmocka_unit_test(test_plan_kernels),
      cmocka_unit_test(test_too_large_for_memory),
      cmocka_unit_test(test_threaded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
