/*
 * The same fault gives the same status in every version of ONNX Split (issue 26): each faulty
 * description below runs through Split-1, -2, -11, -13 and -18 (every entry point, through
 * tu_check_error: status, message, nothing written; and partial inference on the same shape as
 * points), and every version must give the status the test states. Only faults that are faults
 * in every version are listed: where the versions' rules differ (Split-18's ceil(d/n) accepts
 * what equal parts refuse, a type only some versions accept), the verdicts may differ too.
 *
 * The node's output count (cleave_op.num_outputs) is given below 18 the way a model gives it, and
 * at 18 only where the fault is about num_outputs itself.
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

static const int64_t versions[] = {1, 2, 11, 13, 18};
#define NUM_VERSIONS (sizeof versions / sizeof versions[0])

/* How a fault gives num_outputs. */
typedef enum count_form {
  COUNT_NONE,  /* absent in every version */
  COUNT_GIVEN, /* `count` in every version (the node's count below 18, the attribute at 18) */
} count_form;

typedef struct fault {
  const char *what;
  const int64_t *shape;
  size_t rank;
  cleave_dtype dtype;
  cleave_values axis;  /* cleave_values_none(): the default 0 */
  cleave_values split; /* cleave_values_none(): no split */
  count_form count_form;
  cleave_values count;
  cleave_status status;
  const char *needle; /* in every version's message */
  int partial;        /* partial inference refuses it too (it ignores byte sizes) */
} fault;

static const int64_t shape64[2] = {6, 4};
static const int64_t shape54[2] = {5, 4};
static const int64_t shape_negative[2] = {-1, 4};
static const int64_t shape_huge[2] = {INT64_MAX / 2, 4};

static const int64_t two = 2, three = 3, zero = 0, minus_two = -2, axis2 = 2, axis_m3 = -3,
                     four = 4;
static const int64_t axis_list[1] = {0}, count_list[1] = {2};
static const float axis_f32 = 0.0f, count_f32 = 2.0f;
static const uint64_t count_huge = UINT64_MAX;
static const int64_t sum5[2] = {2, 3}, negative[2] = {7, -1}, halves[2] = {3, 3},
                     overflow[2] = {INT64_MAX, 1}, rank2[4] = {1, 2, 1, 2};
static const int32_t halves32[2] = {3, 3};
static const uint64_t halves_u64[2] = {3, UINT64_MAX};

static size_t faults(fault *out) {
  const cleave_values none = cleave_values_none();
  const cleave_values count2 = cleave_values_scalar(&two);
  size_t n = 0;
  /* The axis. */
  out[n++] = (fault){"axis above the range",
                     shape64,
                     2,
                     CLEAVE_F32,
                     cleave_values_scalar(&axis2),
                     none,
                     COUNT_GIVEN,
                     count2,
                     CLEAVE_ERROR_INVALID_AXIS,
                     "out of range",
                     1};
  out[n++] = (fault){"axis below the range",
                     shape64,
                     2,
                     CLEAVE_F32,
                     cleave_values_scalar(&axis_m3),
                     none,
                     COUNT_GIVEN,
                     count2,
                     CLEAVE_ERROR_INVALID_AXIS,
                     "out of range",
                     1};
  out[n++] = (fault){"a 1-D axis",
                     shape64,
                     2,
                     CLEAVE_F32,
                     cleave_values_list(axis_list, 1),
                     none,
                     COUNT_GIVEN,
                     count2,
                     CLEAVE_ERROR_INVALID_AXIS,
                     "must be a scalar",
                     1};
  out[n++] = (fault){"an f32 axis",
                     shape64,
                     2,
                     CLEAVE_F32,
                     cleave_values_of(CLEAVE_F32, 0, 1, &axis_f32),
                     none,
                     COUNT_GIVEN,
                     count2,
                     CLEAVE_ERROR_INVALID_AXIS,
                     "axis must have an integer type",
                     1};
  out[n++] = (fault){"rank-0 data", NULL,   0,
                     CLEAVE_F32,    none,   none,
                     COUNT_GIVEN,   count2, CLEAVE_ERROR_INVALID_AXIS,
                     "rank 0",      1};
  /* The data. */
  out[n++] = (fault){
      "a negative dimension",     shape_negative,  2, CLEAVE_F32, none, none, COUNT_GIVEN, count2,
      CLEAVE_ERROR_INVALID_SHAPE, "data.shape[0]", 1};
  out[n++] = (fault){
      "a byte size above 2^63-1", shape_huge,     2, CLEAVE_F32, none, none, COUNT_GIVEN, count2,
      CLEAVE_ERROR_OVERFLOW,      "above 2^63-1", 0};
  out[n++] = (fault){"a type no version accepts",
                     shape64,
                     2,
                     CLEAVE_F8E4M3,
                     none,
                     none,
                     COUNT_GIVEN,
                     count2,
                     CLEAVE_ERROR_UNSUPPORTED_TYPE,
                     "does not accept f8e4m3",
                     1};
  /* Explicit lengths. */
  out[n++] = (fault){"lengths that do not sum to the axis",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     cleave_values_list(sum5, 2),
                     COUNT_NONE,
                     none,
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "split sum to 5 but data.shape[0] is 6",
                     1};
  out[n++] = (fault){"a negative length",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     cleave_values_list(negative, 2),
                     COUNT_NONE,
                     none,
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "split[1] is -1 but entries must be >= 0",
                     1};
  out[n++] = (fault){"an empty split",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     cleave_values_list(halves, 0),
                     COUNT_NONE,
                     none,
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "split is empty: it needs at least one entry",
                     1};
  out[n++] = (fault){"a scalar split", shape64, 2,
                     CLEAVE_F32,       none,    cleave_values_scalar(&three),
                     COUNT_NONE,       none,    CLEAVE_ERROR_INVALID_SPLIT,
                     "got a scalar",   1};
  out[n++] = (fault){"a rank-2 split", shape64, 2,
                     CLEAVE_F32,       none,    cleave_values_of(CLEAVE_I64, 2, 4, rank2),
                     COUNT_NONE,       none,    CLEAVE_ERROR_INVALID_SPLIT,
                     "got rank 2",     1};
  out[n++] = (fault){"an int32 split", shape64, 2,
                     CLEAVE_F32,       none,    cleave_values_of(CLEAVE_I32, 1, 2, halves32),
                     COUNT_NONE,       none,    CLEAVE_ERROR_INVALID_SPLIT,
                     "got i32",        1};
  out[n++] = (fault){"a uint64 split above INT64_MAX",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     cleave_values_of(CLEAVE_U64, 1, 2, halves_u64),
                     COUNT_NONE,
                     none,
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "got u64",
                     1};
  out[n++] = (fault){"lengths whose sum overflows",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     cleave_values_list(overflow, 2),
                     COUNT_NONE,
                     none,
                     CLEAVE_ERROR_OVERFLOW,
                     "split overflows int64",
                     1};
  out[n++] = (fault){"split values without data",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     cleave_values_list(NULL, 2),
                     COUNT_NONE,
                     none,
                     CLEAVE_ERROR_INVALID_ARGUMENT,
                     "data pointer is NULL",
                     1};
  /* A count that does not match the lengths (at 18: both given). */
  out[n++] = (fault){"a count other than the lengths'",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     cleave_values_list(halves, 2),
                     COUNT_GIVEN,
                     cleave_values_scalar(&three),
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "split",
                     1};
  /* The output count. */
  out[n++] = (fault){
      "no split and no count",    shape64,       2, CLEAVE_F32, none, none, COUNT_NONE, none,
      CLEAVE_ERROR_INVALID_SPLIT, "num_outputs", 1};
  out[n++] = (fault){"a count of 0",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     none,
                     COUNT_GIVEN,
                     cleave_values_scalar(&zero),
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "num_outputs is 0 but must be >= 1",
                     1};
  out[n++] = (fault){"a negative count",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     none,
                     COUNT_GIVEN,
                     cleave_values_scalar(&minus_two),
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "num_outputs is -2 but must be >= 1",
                     1};
  out[n++] = (fault){"a 1-D count",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     none,
                     COUNT_GIVEN,
                     cleave_values_list(count_list, 1),
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "num_outputs must be a scalar",
                     1};
  out[n++] = (fault){"an f32 count",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     none,
                     COUNT_GIVEN,
                     cleave_values_of(CLEAVE_F32, 0, 1, &count_f32),
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "num_outputs must have an integer type, got f32",
                     1};
  out[n++] = (fault){"a count above INT64_MAX",
                     shape64,
                     2,
                     CLEAVE_F32,
                     none,
                     none,
                     COUNT_GIVEN,
                     cleave_values_of(CLEAVE_U64, 0, 1, &count_huge),
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "does not fit in int64",
                     1};
  out[n++] = (fault){"a count the axis cannot be split into",
                     shape54,
                     2,
                     CLEAVE_F32,
                     none,
                     none,
                     COUNT_GIVEN,
                     cleave_values_scalar(&four),
                     CLEAVE_ERROR_INVALID_SPLIT,
                     "data.shape[0] = 5",
                     1};
  return n;
}

static cleave_op fault_op(const fault *f, int64_t opset) {
  cleave_op op = cleave_op_onnx_split(opset);
  op.axis = f->axis;
  op.lengths = f->split;
  if (f->count_form == COUNT_GIVEN) {
    op.num_outputs = f->count;
  }
  return op;
}

/* Partial inference on the fault's shape, every dimension a point. */
static cleave_status partial_status(const cleave_op *op, const fault *f, cleave_error *err) {
  cleave_dim dims[2], out[16];
  for (size_t i = 0; i < f->rank; ++i) {
    dims[i] = cleave_dim_point(f->shape[i]);
  }
  for (size_t i = 0; i < 16; ++i) {
    out[i] = cleave_dim_range(-9, -9);
  }
  cleave_partial_shape shape = {f->rank, dims};
  cleave_partial_info info;
  cleave_status st =
      cleave_infer_partial(op, 0, cleave_type_of(f->dtype), &shape, &info, out, 16, err);
  for (size_t i = 0; i < 16; ++i) {
    TU_CHECK(out[i].lo == -9 && out[i].hi == -9);
  }
  return st;
}

static void test_same_fault_same_status(void **state) {
  (void)state;
  fault list[32];
  size_t n = faults(list);
  for (size_t k = 0; k < n; ++k) {
    const fault *f = &list[k];
    cleave_status seen[NUM_VERSIONS];
    for (size_t v = 0; v < NUM_VERSIONS; ++v) {
      cleave_op op = fault_op(f, versions[v]);
      tu_context("%s, ONNX Split-%lld", f->what, (long long)versions[v]);
      /* The status by itself first, so that a disagreement names the versions. */
      cleave_split_info info;
      cleave_error err;
      seen[v] =
          cleave_infer(&op, cleave_type_of(f->dtype), f->shape, f->rank, &info, NULL, 0, &err);
      if (seen[v] != f->status) {
        print_error("%s: ONNX Split-%lld gives %s (%s), expected %s\n", f->what,
                    (long long)versions[v], cleave_status_name(seen[v]), err.message,
                    cleave_status_name(f->status));
      }
      const char *needles[] = {f->needle, NULL};
      tu_check_error(&op, cleave_type_of(f->dtype), f->shape, f->rank, 2, f->status, needles);
      if (f->partial) {
        cleave_status st = partial_status(&op, f, &err);
        if (st != f->status) {
          print_error("%s: partial inference of ONNX Split-%lld gives %s (%s)\n", f->what,
                      (long long)versions[v], cleave_status_name(st), err.message);
        }
        TU_CHECK(st == f->status);
        TU_CHECK(tu_message_has(err.message, f->needle));
      }
    }
    for (size_t v = 1; v < NUM_VERSIONS; ++v) {
      tu_context("%s: Split-%lld against Split-1", f->what, (long long)versions[v]);
      TU_CHECK(seen[v] == seen[0]);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_fault_same_status),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
