/*
 * The concatenating operators' rules (docs/operators.md section 8): every rule of OpenVINO
 * Concat-1, ONNX Concat-1/4/11/13 and ConcatFromSequence-11, with its status and exact message
 * through every entry point, and the valid cases at each rule's edge (defaults, negative axes,
 * type lists, zero-size inputs, stacking).
 */
#include "concat_check.h"

#include <stdio.h>
#include <string.h>

/* Data no failing call may read or write: every tensor below points at it. */
static unsigned char dummy[256];

/* Tensors of `type` with the given shapes (rank `rank` each), all pointing at `dummy`. */
typedef struct tensors {
  cleave_tensor t[4];
  int64_t shapes[4][CC_MAX_RANK];
} tensors;

static void make(tensors *s, cleave_type type, size_t rank, size_t n, const int64_t *dims) {
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < rank; k++) {
      s->shapes[i][k] = dims[i * rank + k];
    }
    s->t[i] = (cleave_tensor){dummy, type, rank, s->shapes[i]};
  }
}

#define F32 cleave_type_of(CLEAVE_F32)

/* Two f32 [2,3] inputs. */
static void pair(tensors *s) {
  static const int64_t dims[] = {2, 3, 2, 3};
  make(s, F32, 2, 2, dims);
}

/* ---- OpenVINO Concat-1 -------------------------------------------------------------------- */

static void test_openvino_axis(void **state) {
  (void)state;
  tensors s;
  pair(&s);
  int64_t axis = 2;
  cleave_concat_op op = cleave_op_concat(&axis);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis 2 is out of range [-2, 1] for inputs of rank 2", 1);
  axis = -3;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis -3 is out of range [-2, 1] for inputs of rank 2", 1);
  op.axis = cleave_values_none();
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "OpenVINO Concat-1 needs the axis attribute", 1);
  int64_t list[2] = {0, 1};
  op.axis = cleave_values_list(list, 1);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis must be a scalar for OpenVINO Concat-1 (an attribute), got a 1-D tensor of "
                 "1 value(s)",
                 1);
  op.axis.rank = 2;
  op.axis.count = 2;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis must be a scalar for OpenVINO Concat-1 (an attribute), got a tensor of rank "
                 "2",
                 1);
  float real = 1.0f;
  op.axis = (cleave_values){CLEAVE_F32, 0, 1, &real};
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS, "axis must have an integer type, got f32",
                 1);
  uint64_t huge = UINT64_MAX;
  op.axis = (cleave_values){CLEAVE_U64, 0, 1, &huge};
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis 18446744073709551615 is out of range [-2, 1] for inputs of rank 2", 1);
  /* Rank 0: the range is empty. */
  tensors scalars;
  make(&scalars, F32, 0, 2, NULL);
  axis = 0;
  op = cleave_op_concat(&axis);
  cc_check_error(&op, scalars.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis 0 is out of range for inputs of rank 0 (a scalar has no axis to "
                 "concatenate on)",
                 1);
}

static void test_openvino_inputs(void **state) {
  (void)state;
  tensors s;
  pair(&s);
  int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  cc_check_error(&op, s.t, 0, CLEAVE_ERROR_INVALID_ARGUMENT,
                 "OpenVINO Concat-1 needs at least one input, got none", 1);
  cc_check_error(&op, NULL, 2, CLEAVE_ERROR_INVALID_ARGUMENT,
                 "the inputs array is NULL but num_inputs is 2", 1);
  s.t[1].type = cleave_type_of(CLEAVE_F16);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "inputs[1] has type f16 but inputs[0] has type f32: the inputs of OpenVINO "
                 "Concat-1 must have one element type",
                 0);
  pair(&s);
  s.t[0].type = (cleave_type){CLEAVE_BYTES, 3};
  s.t[1].type = (cleave_type){CLEAVE_BYTES, 5};
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "inputs[1] has type S5 but inputs[0] has type S3: the inputs of OpenVINO Concat-1 "
                 "must have one element type",
                 0);
  s.t[0].type = s.t[1].type = (cleave_type){CLEAVE_BYTES, 0};
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "width is 0 but bytes elements need a width >= 1", 1);
  s.t[0].type = s.t[1].type = cleave_type_of((cleave_dtype)99);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "element type 99 is not a cleave_dtype", 1);
  s.t[0].type = s.t[1].type = cleave_type_of(CLEAVE_U3);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "u3 is not supported: OpenVINO packs it in 3-byte groups, which cleave does not "
                 "split",
                 1);
  pair(&s);
  s.shapes[1][0] = -1;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_SHAPE,
                 "inputs[1].shape[0] is -1 but dimensions must be >= 0", 0);
  pair(&s);
  s.t[1].shape = NULL;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_ARGUMENT,
                 "inputs[1].shape is NULL but its rank is 2", 1);
  static const int64_t ranks[] = {2, 3, 2, 3, 1};
  tensors mixed;
  make(&mixed, F32, 2, 1, ranks);
  mixed.t[1] = (cleave_tensor){dummy, F32, 3, ranks + 2};
  cc_check_error(&op, mixed.t, 2, CLEAVE_ERROR_INVALID_SHAPE,
                 "inputs[1] has rank 3 but inputs[0] has rank 2: the inputs of OpenVINO Concat-1 "
                 "must have one rank",
                 1);
}

static void test_openvino_dims(void **state) {
  (void)state;
  static const int64_t dims[] = {2, 3, 2, 4, 3, 4};
  tensors s;
  make(&s, F32, 2, 3, dims);
  int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  /* Dims are checked position by position, every input at each. */
  cc_check_error(&op, s.t, 3, CLEAVE_ERROR_INVALID_SHAPE,
                 "inputs[2].shape[0] is 3 but inputs[0].shape[0] is 2: the inputs of OpenVINO "
                 "Concat-1 must have equal dims except on axis 1",
                 1);
  axis = 0;
  cc_check_error(&op, s.t, 3, CLEAVE_ERROR_INVALID_SHAPE,
                 "inputs[1].shape[1] is 4 but inputs[0].shape[1] is 3: the inputs of OpenVINO "
                 "Concat-1 must have equal dims except on axis 0",
                 1);
}

static void test_overflow(void **state) {
  (void)state;
  int64_t axis = 0;
  cleave_concat_op op = cleave_op_concat(&axis);
  /* Each input's byte size fits; their dims on the axis do not sum within int64. */
  const int64_t half = (int64_t)1 << 62;
  int64_t dims[] = {half, half};
  tensors s;
  make(&s, cleave_type_of(CLEAVE_U8), 1, 2, dims);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_OVERFLOW, "inputs[0..1].shape[0] sum above 2^63-1", 1);
  /* The sum fits, the output's byte size does not (2^62 u16 elements). */
  int64_t quarter[] = {(int64_t)1 << 61, (int64_t)1 << 61};
  make(&s, cleave_type_of(CLEAVE_U16), 1, 2, quarter);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_OVERFLOW,
                 "the output of shape [4611686018427387904] and type u16 has a byte size above "
                 "2^63-1",
                 0);
  /* An input's own byte size. */
  int64_t big[] = {1, 1, half, 2};
  make(&s, cleave_type_of(CLEAVE_F64), 2, 2, big);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_OVERFLOW,
                 "inputs[1] of shape [4611686018427387904,2] and type f64 has a byte size above "
                 "2^63-1",
                 0);
  /* Packed types count elements: 2^63 u4 elements in 2^62 bytes is still too many. */
  axis = 1;
  int64_t packed[] = {2, (int64_t)1 << 61, 2, (int64_t)1 << 61};
  make(&s, cleave_type_of(CLEAVE_U4), 2, 2, packed);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_OVERFLOW,
                 "the output of shape [2,4611686018427387904] and type u4 has more than 2^63-1 "
                 "elements",
                 0);
  /* A packed output of more than 2^60 bytes passes inference and cannot be run. */
  int64_t huge[] = {(int64_t)1 << 60, (int64_t)1 << 60};
  make(&s, cleave_type_of(CLEAVE_U4), 1, 2, huge);
  axis = 0;
  cleave_concat_info info;
  cleave_error err;
  assert_int_equal(cleave_concat_infer(&op, s.t, 2, &info, NULL, 0, &err), CLEAVE_OK);
  assert_int_equal(info.output_bytes, (int64_t)1 << 60);
  assert_int_equal(cleave_concat_run(&op, s.t, 2, dummy, &err), CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_string_equal(err.message, "a packed output of more than 2^60 bytes cannot be in memory");
  cleave_concat_plan *plan = NULL;
  assert_int_equal(cleave_concat_plan_create(&op, s.t, 2, NULL, &plan, &err),
                   CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_null(plan);
}

/* ---- ONNX Concat -------------------------------------------------------------------------- */

static void test_onnx_versions(void **state) {
  (void)state;
  tensors s;
  pair(&s);
  int64_t axis = 0;
  cleave_concat_op op = cleave_op_onnx_concat(0, &axis);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_VERSION,
                 "opset 0 is below ONNX Concat's first version 1", 1);
  /* The version in force at each opset: its name in messages, its type list. */
  static const struct {
    int64_t opset;
    const char *name;
  } versions[] = {{1, "ONNX Concat-1"},   {3, "ONNX Concat-1"},   {4, "ONNX Concat-4"},
                  {10, "ONNX Concat-4"},  {11, "ONNX Concat-11"}, {12, "ONNX Concat-11"},
                  {13, "ONNX Concat-13"}, {30, "ONNX Concat-13"}};
  char want[256];
  for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
    op = cleave_op_onnx_concat(versions[v].opset, &axis);
    cc_context("opset %lld", (long long)versions[v].opset);
    tensors t;
    pair(&t);
    t.t[0].type = t.t[1].type = cleave_type_of(CLEAVE_F8E4M3);
    snprintf(want, sizeof want, "%s does not accept f8e4m3 data", versions[v].name);
    cc_check_error(&op, t.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, want, 1);
    t.t[0].type = t.t[1].type = cleave_type_of(CLEAVE_INT4);
    snprintf(want, sizeof want, "%s does not accept int4 data", versions[v].name);
    cc_check_error(&op, t.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, want, 1);
    t.t[0].type = t.t[1].type = cleave_type_of(CLEAVE_BF16);
    if (versions[v].opset < 13) {
      snprintf(want, sizeof want, "%s does not accept bf16 data%s", versions[v].name,
               versions[v].opset >= 4 ? " (bf16 needs opset 13)" : "");
      cc_check_error(&op, t.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, want, 1);
    }
    t.t[0].type = t.t[1].type = cleave_type_of(CLEAVE_I32);
    if (versions[v].opset < 4) {
      snprintf(want, sizeof want, "%s does not accept i32 data", versions[v].name);
      cc_check_error(&op, t.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, want, 1);
    }
    /* Negative axes came with version 11. */
    int64_t negative = -1;
    op.axis = cleave_values_scalar(&negative);
    if (versions[v].opset < 11) {
      snprintf(want, sizeof want,
               "axis -1 is out of range [0, 1] for inputs of rank 2: %s takes no negative axis "
               "(they came with version 11)",
               versions[v].name);
      cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS, want, 1);
    }
    int64_t two = 2;
    op.axis = cleave_values_scalar(&two);
    snprintf(want, sizeof want, "axis 2 is out of range [%d, 1] for inputs of rank 2",
             versions[v].opset < 11 ? 0 : -2);
    cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS, want, 1);
    /* The axis is optional only in version 1 (default 1). */
    op.axis = cleave_values_none();
    if (versions[v].opset >= 4) {
      snprintf(want, sizeof want, "%s needs the axis attribute", versions[v].name);
      cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS, want, 1);
    }
  }
  /* Concat-1's default axis 1 against rank-1 inputs. */
  static const int64_t dims[] = {3, 4};
  tensors line;
  make(&line, F32, 1, 2, dims);
  op = cleave_op_onnx_concat(1, NULL);
  cc_check_error(
      &op, line.t, 2, CLEAVE_ERROR_INVALID_AXIS,
      "axis 1 (the default of ONNX Concat-1) is out of range [0, 0] for inputs of rank 1", 1);
}

/* The valid edge of each ONNX version: default axis, negative axes, its types. */
static void test_onnx_valid(void **state) {
  (void)state;
  static const int64_t shapes[3][CC_MAX_RANK] = {{2, 3}, {2, 1}, {2, 0}};
  static const cleave_dtype types[] = {CLEAVE_F32,    CLEAVE_BF16,    CLEAVE_I64,
                                       CLEAVE_STRING, CLEAVE_BOOLEAN, CLEAVE_C128};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    cc_inputs in;
    cc_inputs_make(&in, cleave_type_of(types[t]), 3, 2, shapes, (unsigned)t);
    cc_expect ex;
    cc_expect_of(in.tensors, 3, 1, 0, &ex);
    static const int64_t opsets[] = {1, 4, 11, 13};
    for (size_t v = 0; v < 4; v++) {
      int accepted =
          types[t] == CLEAVE_F32 || (types[t] == CLEAVE_BF16 ? opsets[v] >= 13 : opsets[v] >= 4);
      if (!accepted) {
        continue;
      }
      cc_context("ONNX Concat at opset %lld, type %d", (long long)opsets[v], (int)types[t]);
      int64_t axis = opsets[v] >= 11 ? -1 : 1;
      cleave_concat_op op = cleave_op_onnx_concat(opsets[v], opsets[v] == 1 ? NULL : &axis);
      cc_check_success(&op, in.tensors, 3, &ex);
    }
    cc_inputs_free(&in);
  }
}

/* ---- ConcatFromSequence-11 ---------------------------------------------------------------- */

static void test_sequence_rules(void **state) {
  (void)state;
  tensors s;
  pair(&s);
  int64_t axis = 0;
  cleave_concat_op op = cleave_op_concat_from_sequence(10, &axis, 0);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_VERSION,
                 "opset 10 is below ConcatFromSequence's first version 11", 1);
  op = cleave_op_concat_from_sequence(11, &axis, 0);
  cc_check_error(&op, s.t, 0, CLEAVE_ERROR_INVALID_ARGUMENT,
                 "ConcatFromSequence-11 needs a sequence of at least one tensor: an empty one has "
                 "no element type or shape to give",
                 1);
  op.new_axis = 2;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_ATTRIBUTE, "new_axis is 2 but must be 0 or 1",
                 1);
  op.new_axis = 0;
  op.axis = cleave_values_none();
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "ConcatFromSequence-11 needs the axis attribute", 1);
  s.t[0].type = s.t[1].type = cleave_type_of(CLEAVE_BF16);
  op = cleave_op_concat_from_sequence(24, &axis, 1);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "ConcatFromSequence-11 does not accept bf16 data", 1);
  /* Stacking adds an axis: [-r-1, r]. */
  pair(&s);
  axis = 3;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis 3 is out of range [-3, 2] for inputs of rank 2 (new_axis = 1 adds one)", 1);
  axis = -4;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis -4 is out of range [-3, 2] for inputs of rank 2 (new_axis = 1 adds one)", 1);
  /* Stacking needs one shape, the axis dim included. */
  axis = 1;
  s.shapes[1][0] = 4;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_SHAPE,
                 "inputs[1].shape[0] is 4 but inputs[0].shape[0] is 2: ConcatFromSequence-11 with "
                 "new_axis = 1 needs inputs of one shape",
                 1);
  /* Without new_axis it is Concat. */
  op.new_axis = 0;
  axis = 0;
  s.shapes[1][1] = 5;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_SHAPE,
                 "inputs[1].shape[1] is 5 but inputs[0].shape[1] is 3: the inputs of "
                 "ConcatFromSequence-11 must have equal dims except on axis 0",
                 1);
}

static void test_sequence_valid(void **state) {
  (void)state;
  /* numpy.stack of scalars, of [2,3] tensors at every axis, negative ones included. */
  static const int64_t none[3][CC_MAX_RANK] = {{0}, {0}, {0}};
  cc_inputs in;
  cc_inputs_make(&in, cleave_type_of(CLEAVE_I16), 3, 0, none, 1);
  for (int64_t axis = -1; axis <= 0; axis++) {
    cleave_concat_op op = cleave_op_concat_from_sequence(11, &axis, 1);
    cc_expect ex;
    cc_expect_of(in.tensors, 3, 0, 1, &ex);
    cc_check_success(&op, in.tensors, 3, &ex);
  }
  cc_inputs_free(&in);
  static const int64_t same[3][CC_MAX_RANK] = {{2, 3}, {2, 3}, {2, 3}};
  cc_inputs_make(&in, cleave_type_of(CLEAVE_STRING), 3, 2, same, 2);
  for (int64_t axis = -3; axis <= 2; axis++) {
    cc_context("stack at axis %lld", (long long)axis);
    cleave_concat_op op = cleave_op_concat_from_sequence(11, &axis, 1);
    cc_expect ex;
    cc_expect_of(in.tensors, 3, (size_t)(axis < 0 ? axis + 3 : axis), 1, &ex);
    cc_check_success(&op, in.tensors, 3, &ex);
    if (axis >= -2 && axis <= 1) {
      op.new_axis = 0;
      cc_expect_of(in.tensors, 3, (size_t)(axis < 0 ? axis + 2 : axis), 0, &ex);
      cc_check_success(&op, in.tensors, 3, &ex);
    }
  }
  cc_inputs_free(&in);
}

/* Zero-size inputs contribute nothing; an empty output is valid; one input is a copy. */
static void test_zero_size(void **state) {
  (void)state;
  static const int64_t shapes[4][CC_MAX_RANK] = {{0, 3}, {2, 3}, {0, 3}, {1, 3}};
  cc_inputs in;
  cc_inputs_make(&in, cleave_type_of(CLEAVE_C64), 4, 2, shapes, 3);
  int64_t axis = 0;
  cleave_concat_op op = cleave_op_concat(&axis);
  cc_expect ex;
  cc_expect_of(in.tensors, 4, 0, 0, &ex);
  cc_check_success(&op, in.tensors, 4, &ex);
  cc_expect_of(in.tensors + 1, 1, 0, 0, &ex);
  cc_check_success(&op, in.tensors + 1, 1, &ex);
  cc_inputs_free(&in);
  static const int64_t empty[2][CC_MAX_RANK] = {{0, 3}, {0, 3}};
  cc_inputs_make(&in, cleave_type_of(CLEAVE_U4), 2, 2, empty, 3);
  cc_expect_of(in.tensors, 2, 0, 0, &ex);
  cc_check_success(&op, in.tensors, 2, &ex);
  axis = 1;
  cc_expect_of(in.tensors, 2, 1, 0, &ex);
  cc_check_success(&op, in.tensors, 2, &ex);
  cc_inputs_free(&in);
}

/* When several rules break, the first in section 8's order is reported. */
static void test_order(void **state) {
  (void)state;
  static const int64_t dims[] = {2, 3, 4, 5};
  tensors s;
  make(&s, F32, 2, 2, dims);
  s.t[1].type = cleave_type_of(CLEAVE_I8);
  int64_t axis = 9;
  cleave_concat_op op = cleave_op_onnx_concat(0, &axis);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_VERSION,
                 "opset 0 is below ONNX Concat's first version 1", 0);
  op.opset = 13;
  cc_check_error(&op, s.t, 0, CLEAVE_ERROR_INVALID_ARGUMENT,
                 "ONNX Concat-13 needs at least one input, got none", 0);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "inputs[1] has type i8 but inputs[0] has type f32: the inputs of ONNX Concat-13 "
                 "must have one element type",
                 0);
  s.t[1].type = F32;
  s.shapes[1][1] = -2;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_SHAPE,
                 "inputs[1].shape[1] is -2 but dimensions must be >= 0", 0);
  s.shapes[1][1] = 5;
  s.t[0].type = s.t[1].type = cleave_type_of(CLEAVE_F8E5M2);
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 "ONNX Concat-13 does not accept f8e5m2 data", 1);
  s.t[0].type = s.t[1].type = F32;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_AXIS,
                 "axis 9 is out of range [-2, 1] for inputs of rank 2", 1);
}

/* API misuse outside the operator's rules. */
static void test_misuse(void **state) {
  (void)state;
  tensors s;
  pair(&s);
  int64_t axis = 0;
  cleave_concat_op op = cleave_op_concat(&axis);
  cc_check_error(NULL, s.t, 2, CLEAVE_ERROR_INVALID_ARGUMENT, "the operator description is NULL",
                 1);
  op.kind = (cleave_concat_kind)1;
  cc_check_error(&op, s.t, 2, CLEAVE_ERROR_INVALID_ARGUMENT,
                 "operator kind 1 is not a cleave_concat_kind (5 to 7)", 1);
  op = cleave_op_concat(&axis);
  cleave_error err;
  assert_int_equal(cleave_concat_infer(&op, s.t, 2, NULL, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "cleave_concat_infer needs an info result");
  assert_int_equal(cleave_concat_plan_create(&op, s.t, 2, NULL, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "cleave_concat_plan_create needs a plan result");
  cleave_plan_options bad = cleave_plan_options_default();
  bad.tiny_bytes = 0;
  cleave_concat_plan *plan = NULL;
  assert_int_equal(cleave_concat_plan_create(&op, s.t, 2, &bad, &plan, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "options.tiny_bytes is 0 but must be >= 1");
  assert_null(plan);
  cleave_partial_info pinfo;
  assert_int_equal(cleave_concat_infer_partial(&op, 8, F32, NULL, 0, &pinfo, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "unknown flags 0x8 are not CLEAVE_UNKNOWN_* values");
  /* Accessors of a NULL plan. */
  assert_null(cleave_concat_plan_info(NULL));
  assert_null(cleave_concat_plan_description(NULL));
  int64_t dims[2];
  assert_int_equal(cleave_concat_plan_output_shape(NULL, dims, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  cleave_concat_plan_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_openvino_axis),  cmocka_unit_test(test_openvino_inputs),
      cmocka_unit_test(test_openvino_dims),  cmocka_unit_test(test_overflow),
      cmocka_unit_test(test_onnx_versions),  cmocka_unit_test(test_onnx_valid),
      cmocka_unit_test(test_sequence_rules), cmocka_unit_test(test_sequence_valid),
      cmocka_unit_test(test_zero_size),      cmocka_unit_test(test_order),
      cmocka_unit_test(test_misuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
