/*
 * Zero-copy views: every output read back through its (data, shape, strides) must equal the
 * naive reference, the contiguous flag must follow its rule, and errors write nothing.
 */
#include "kernel_check.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 4096

/* Reads a view element by element, in row-major order of its shape, into `out`. */
static void materialise(const cleave_view *v, size_t esize, unsigned char *out) {
  size_t count = 1;
  for (size_t k = 0; k < v->rank; k++) {
    count *= (size_t)v->shape[k];
  }
  int64_t index[KC_MAX_RANK] = {0};
  for (size_t e = 0; e < count; e++) {
    int64_t at = 0;
    for (size_t k = 0; k < v->rank; k++) {
      at += index[k] * v->strides[k];
    }
    memcpy(out + e * esize, (const unsigned char *)v->data + (size_t)at * esize, esize);
    for (size_t k = v->rank; k-- > 0;) {
      if (++index[k] < v->shape[k]) {
        break;
      }
      index[k] = 0;
    }
  }
}

/* Checks the views of a case, through a plan and through the one-shot call. */
static void check_views(const kc_case *c) {
  size_t total = c->esize;
  for (size_t k = 0; k < c->rank; k++) {
    total *= (size_t)c->shape[k];
  }
  unsigned char *in = malloc(total + 1);
  assert_non_null(in);
  kc_fill(in, total, 7);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&c->op, c->type, c->shape, c->rank, &plan, NULL), CLEAVE_OK);
  size_t out_rank = c->rank - (c->axis_removed ? 1 : 0);
  size_t outer = 1;
  for (size_t k = 0; k < c->axis; k++) {
    outer *= (size_t)c->shape[k];
  }
  for (int oneshot = 0; oneshot < 2; oneshot++) {
    cleave_view views[64];
    int64_t dims[MAX_DIMS];
    cleave_error err;
    size_t need = CLEAVE_VIEW_DIMS(c->num_outputs, out_rank);
    assert_true(need <= MAX_DIMS);
    if (oneshot) {
      cleave_tensor t = {in, c->type, c->rank, c->shape};
      assert_int_equal(cleave_views(&c->op, &t, views, c->num_outputs, dims, need, &err),
                       CLEAVE_OK);
    } else {
      assert_int_equal(cleave_plan_views(plan, in, views, c->num_outputs, dims, need, &err),
                       CLEAVE_OK);
    }
    assert_int_equal(err.status, CLEAVE_OK);
    for (size_t i = 0; i < c->num_outputs; i++) {
      const cleave_view *v = &views[i];
      assert_int_equal(v->rank, out_rank);
      /* The shape: the input's, with the length on the axis (or without the axis). */
      size_t d = 0;
      for (size_t k = 0; k < c->rank; k++) {
        if (k != c->axis) {
          assert_int_equal(v->shape[d++], c->shape[k]);
        } else if (!c->axis_removed) {
          assert_int_equal(v->shape[d++], c->lengths[i]);
        }
      }
      /* Views alias the input. */
      size_t bytes = kc_output_bytes(c, i);
      assert_true((const unsigned char *)v->data >= in &&
                  (const unsigned char *)v->data <= in + total);
      int contiguous = bytes == 0 || outer == 1 || c->lengths[i] == c->shape[c->axis];
      assert_int_equal(v->contiguous, contiguous);
      unsigned char *got = malloc(bytes + 1), *expect = malloc(bytes + 1);
      assert_non_null(got);
      assert_non_null(expect);
      materialise(v, c->esize, got);
      kc_reference(c, in, i, expect);
      assert_memory_equal(got, expect, bytes);
      if (contiguous && bytes > 0) {
        /* Contiguous means: the output's bytes as they are at data. */
        assert_memory_equal(v->data, expect, bytes);
      }
      free(got);
      free(expect);
    }
  }
  cleave_plan_destroy(plan);
  free(in);
}

static void test_views_every_operator(void **state) {
  (void)state;
  int64_t axis0 = 0, axis1 = 1, axis_neg = -1, axis2 = 2;
  /* Split-1 on every axis of [4, 6, 8]. */
  int64_t s[3] = {4, 6, 8};
  static const int64_t l0[2] = {2, 2}, l1[3] = {2, 2, 2}, l2[4] = {2, 2, 2, 2};
  kc_case a =
      kc_make_case(cleave_op_split(&axis0, 2), cleave_type_of(CLEAVE_F32), 4, s, 3, 0, l0, 2);
  check_views(&a);
  kc_case b =
      kc_make_case(cleave_op_split(&axis1, 3), cleave_type_of(CLEAVE_U8), 1, s, 3, 1, l1, 3);
  check_views(&b);
  kc_case c =
      kc_make_case(cleave_op_split(&axis_neg, 4), cleave_type_of(CLEAVE_F64), 8, s, 3, 2, l2, 4);
  check_views(&c);
  /* VariadicSplit with zero and whole-axis lengths; rows of 1 before the axis. */
  int64_t s2[4] = {1, 1, 9, 5};
  static const int64_t v2[4] = {0, 4, 5, 0};
  kc_case d = kc_make_case(cleave_op_variadic_split(&axis2, v2, 4), cleave_type_of(CLEAVE_I16), 2,
                           s2, 4, 2, v2, 4);
  check_views(&d);
  static const int64_t whole[2] = {6, 0};
  kc_case e = kc_make_case(cleave_op_variadic_split(&axis1, whole, 2), cleave_type_of(CLEAVE_I32),
                           4, s, 3, 1, whole, 2);
  check_views(&e);
  /* SplitToSequence with keepdims 0: the axis is gone from shapes and strides. */
  cleave_op seq = cleave_op_split_to_sequence(11);
  seq.axis = cleave_values_scalar(&axis1);
  seq.keepdims = 0;
  static const int64_t ones[6] = {1, 1, 1, 1, 1, 1};
  kc_case f = kc_make_case(seq, cleave_type_of(CLEAVE_F32), 4, s, 3, 1, ones, 6);
  f.axis_removed = 1;
  check_views(&f);
  /* ... down to rank-0 outputs of a 1-D input. */
  int64_t s3[1] = {5};
  cleave_op seq0 = cleave_op_split_to_sequence(11);
  seq0.keepdims = 0;
  kc_case g = kc_make_case(seq0, cleave_type_of(CLEAVE_U16), 2, s3, 1, 0, ones, 5);
  g.axis_removed = 1;
  check_views(&g);
  /* ONNX Split-18 with num_outputs: uneven last output. */
  cleave_op onnx = cleave_op_onnx_split(18);
  onnx.axis = cleave_values_scalar(&axis2);
  static const int64_t three = 3;
  onnx.num_outputs = cleave_values_scalar(&three);
  static const int64_t l3[3] = {3, 3, 2};
  kc_case h = kc_make_case(onnx, cleave_type_of(CLEAVE_C64), 8, s, 3, 2, l3, 3);
  check_views(&h);
}

/* An empty input: views with a NULL data pointer when the input pointer is NULL. */
static void test_views_empty(void **state) {
  (void)state;
  int64_t shape[3] = {0, 4, 6}, axis = 1;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_tensor t = {NULL, cleave_type_of(CLEAVE_F32), 3, shape};
  cleave_view views[2];
  int64_t dims[12];
  cleave_error err;
  assert_int_equal(cleave_views(&op, &t, views, 2, dims, 12, &err), CLEAVE_OK);
  for (int i = 0; i < 2; i++) {
    assert_null(views[i].data);
    assert_int_equal(views[i].contiguous, 1);
    assert_int_equal(views[i].shape[0], 0);
    assert_int_equal(views[i].shape[1], 2);
    assert_int_equal(views[i].strides[1], 6);
    assert_int_equal(views[i].strides[2], 1);
  }
  /* Strides of an empty tensor that would overflow are reported as 0. */
  int64_t huge[3] = {0, (int64_t)1 << 40, (int64_t)1 << 40};
  cleave_op one = cleave_op_split(&axis, 1);
  cleave_tensor th = {NULL, cleave_type_of(CLEAVE_U8), 3, huge};
  assert_int_equal(cleave_views(&one, &th, views, 1, dims, 6, &err), CLEAVE_OK);
  for (int k = 0; k < 3; k++) {
    assert_int_equal(views[0].strides[k], 0);
  }
  assert_int_equal(views[0].shape[2], (int64_t)1 << 40);
  /* No outputs: SplitToSequence over an empty axis needs no arrays. */
  int64_t none_shape[2] = {3, 0};
  cleave_op seq = cleave_op_split_to_sequence(11);
  seq.axis = cleave_values_scalar(&axis);
  cleave_tensor tn = {NULL, cleave_type_of(CLEAVE_F32), 2, none_shape};
  assert_int_equal(cleave_views(&seq, &tn, NULL, 0, NULL, 0, &err), CLEAVE_OK);
  /* 2^62 empty outputs of rank 2: the dims they need do not fit in size_t. */
  int64_t many_shape[2] = {0, (int64_t)1 << 62};
  cleave_tensor tm = {NULL, cleave_type_of(CLEAVE_F32), 2, many_shape};
  assert_int_equal(cleave_views(&seq, &tm, views, (size_t)1 << 62, dims, 12, &err),
                   CLEAVE_ERROR_OVERFLOW);
  assert_non_null(strstr(err.message, "4611686018427387904"));
}

/* Errors: status, message naming the values, and nothing written. */
static void test_views_errors(void **state) {
  (void)state;
  int64_t shape[2] = {4, 6}, axis = 1;
  cleave_op op = cleave_op_split(&axis, 3);
  float in[24] = {0};
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), shape, 2, &plan, NULL),
                   CLEAVE_OK);
  cleave_view views[3];
  int64_t dims[12];
  cleave_error err;
  struct {
    const cleave_plan *plan;
    const void *input;
    cleave_view *views;
    size_t num_views;
    int64_t *dims;
    size_t capacity;
    cleave_status status;
    const char *needle1, *needle2;
  } bad[] = {
      {NULL, in, views, 3, dims, 12, CLEAVE_ERROR_INVALID_ARGUMENT, "plan", "NULL"},
      {plan, in, views, 2, dims, 12, CLEAVE_ERROR_INVALID_ARGUMENT, "num_views is 2", "3"},
      {plan, in, NULL, 3, dims, 12, CLEAVE_ERROR_INVALID_ARGUMENT, "views", "NULL"},
      {plan, in, views, 3, dims, 11, CLEAVE_ERROR_CAPACITY, "dims_capacity is 11", "12"},
      {plan, in, views, 3, NULL, 12, CLEAVE_ERROR_INVALID_ARGUMENT, "dims", "12"},
      {plan, NULL, views, 3, dims, 12, CLEAVE_ERROR_INVALID_ARGUMENT, "input", "NULL"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(views, 0x6B, sizeof views);
    memset(dims, 0x6B, sizeof dims);
    cleave_status st = cleave_plan_views(bad[i].plan, bad[i].input, bad[i].views, bad[i].num_views,
                                         bad[i].dims, bad[i].capacity, &err);
    assert_int_equal(st, bad[i].status);
    assert_int_equal(err.status, bad[i].status);
    assert_non_null(strstr(err.message, bad[i].needle1));
    assert_non_null(strstr(err.message, bad[i].needle2));
    const unsigned char *vb = (const unsigned char *)views, *db = (const unsigned char *)dims;
    for (size_t k = 0; k < sizeof views; k++) {
      assert_int_equal(vb[k], 0x6B);
    }
    for (size_t k = 0; k < sizeof dims; k++) {
      assert_int_equal(db[k], 0x6B);
    }
  }
  /* One-shot: inference errors and a NULL tensor. */
  cleave_tensor t = {in, cleave_type_of(CLEAVE_F32), 2, shape};
  cleave_op bad_op = cleave_op_split(&axis, 4);
  assert_int_equal(cleave_views(&bad_op, &t, views, 4, dims, 16, &err), CLEAVE_ERROR_INVALID_SPLIT);
  assert_int_equal(cleave_views(&op, NULL, views, 3, dims, 12, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "input"));
  cleave_plan_destroy(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_views_every_operator),
      cmocka_unit_test(test_views_empty),
      cmocka_unit_test(test_views_errors),
  };
  return cmocka_run_group_tests_name("views", tests, NULL, NULL);
}
