/*
 * The checkers of test_util.h that drive every entry point of the API for one operator
 * description (cleave_infer, cleave_run, the one-shot calls, plans, views, allocated outputs) and
 * compare each with the reference (success) or with the expected status and message (errors).
 */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int is_i64_scalar(const cleave_values *v) {
  return v->rank == 0 && v->count == 1 && v->dtype == CLEAVE_I64 && v->data != NULL;
}

cleave_status tu_run_oneshot(const cleave_op *op, const cleave_tensor *input, void *const *outputs,
                             size_t num_outputs, cleave_error *err, int *ran) {
  *ran = 0;
  switch (op->kind) {
  case CLEAVE_OP_SPLIT:
    if (!is_i64_scalar(&op->axis)) {
      return CLEAVE_OK;
    }
    *ran = 1;
    return cleave_split(input, *(const int64_t *)op->axis.data, op->num_splits, outputs,
                        num_outputs, err);
  case CLEAVE_OP_VARIADIC_SPLIT:
    if (!is_i64_scalar(&op->axis)) {
      return CLEAVE_OK;
    }
    *ran = 1;
    return cleave_variadic_split(input, *(const int64_t *)op->axis.data, op->lengths, outputs,
                                 num_outputs, err);
  case CLEAVE_OP_SPLIT_TO_SEQUENCE: {
    int64_t axis = 0;
    if (op->axis.rank != CLEAVE_ABSENT) {
      if (!is_i64_scalar(&op->axis)) {
        return CLEAVE_OK;
      }
      axis = *(const int64_t *)op->axis.data;
    }
    *ran = 1;
    return cleave_split_to_sequence(input, op->opset, axis, op->lengths, op->keepdims, outputs,
                                    num_outputs, err);
  }
  case CLEAVE_OP_ONNX_SPLIT: {
    int64_t axis = 0;
    if (op->axis.rank != CLEAVE_ABSENT) {
      if (!is_i64_scalar(&op->axis)) {
        return CLEAVE_OK;
      }
      axis = *(const int64_t *)op->axis.data;
    }
    /* The one-shot call gives the node num_outputs outputs: as the output count when split is
     * absent or the opset below 18, else not at all. It expresses `op` only when that is what
     * `op` says. */
    int counted = op->lengths.rank == CLEAVE_ABSENT || op->opset < 18;
    int has_count = op->num_outputs.rank != CLEAVE_ABSENT;
    if (counted != has_count ||
        (has_count && (!is_i64_scalar(&op->num_outputs) ||
                       *(const int64_t *)op->num_outputs.data != (int64_t)num_outputs))) {
      return CLEAVE_OK;
    }
    *ran = 1;
    return cleave_onnx_split(input, op->opset, axis, op->lengths, outputs, num_outputs, err);
  }
  }
  return CLEAVE_OK;
}

static void prefill_error(cleave_error *err) {
  err->status = (cleave_status)99;
  memset(err->message, 'x', sizeof err->message - 1);
  err->message[sizeof err->message - 1] = '\0';
}

static void check_ok_error(const cleave_error *err) {
  TU_CHECK(err->status == CLEAVE_OK);
  TU_CHECK(err->message[0] == '\0');
}

/* Output i's expected shape. */
static size_t expected_shape(const tu_input *in, const tu_expect *ex, size_t i, int64_t *dims) {
  size_t r = 0;
  for (size_t d = 0; d < in->tensor.rank; ++d) {
    if (d == ex->axis) {
      if (!ex->axis_removed) {
        dims[r++] = ex->lengths[i];
      }
    } else {
      dims[r++] = in->shape[d];
    }
  }
  return r;
}

static void expected_outputs(const tu_input *in, const tu_expect *ex, unsigned char **refs,
                             size_t *sizes) {
  size_t esize = tu_elem_size(in->tensor.type);
  int64_t offset = 0;
  for (size_t i = 0; i < ex->num_outputs; ++i) {
    int64_t dims[TU_MAX_RANK];
    size_t r = expected_shape(in, ex, i, dims);
    sizes[i] = (size_t)tu_count(dims, r) * esize;
    refs[i] = malloc(sizes[i] + 1);
    assert_non_null(refs[i]);
    tu_reference_chunk(in->bytes, in->shape, in->tensor.rank, ex->axis, offset, ex->lengths[i],
                       esize, refs[i]);
    offset += ex->lengths[i];
  }
}

static void compare_outputs(const tu_input *in, const tu_outputs *out, unsigned char *const *refs,
                            const char *via) {
  for (size_t i = 0; i < out->count; ++i) {
    int same = memcmp(out->buffers[i], refs[i], out->sizes[i]) == 0;
    if (!same) {
      print_error("%s: output %zu differs from the reference\n", via, i);
    }
    TU_CHECK(same);
    for (size_t g = 0; g < TU_GUARD; ++g) {
      TU_CHECK(out->buffers[i][out->sizes[i] + g] == TU_SENTINEL);
    }
    if (in->tensor.type.dtype == CLEAVE_STRING) {
      /* The handles must point at the input's own bytes, not at copies. */
      size_t n = out->sizes[i] / sizeof(cleave_string);
      for (size_t e = 0; e < n; ++e) {
        cleave_string got;
        cleave_string want;
        memcpy(&got, out->buffers[i] + e * sizeof got, sizeof got);
        memcpy(&want, refs[i] + e * sizeof want, sizeof want);
        TU_CHECK(got.data == want.data);
        TU_CHECK(got.size == want.size);
        TU_CHECK(got.data >= in->pool);
      }
    }
  }
}

static void check_info(const cleave_split_info *info, const tu_input *in, const tu_expect *ex) {
  TU_CHECK(info->axis == ex->axis);
  TU_CHECK(info->axis_dim == in->shape[ex->axis]);
  TU_CHECK(info->num_outputs == ex->num_outputs);
  TU_CHECK(info->output_rank == in->tensor.rank - (ex->axis_removed ? 1 : 0));
  TU_CHECK(info->axis_removed == ex->axis_removed);
  TU_CHECK(info->element_size == (int64_t)tu_elem_size(in->tensor.type));
}

void tu_check_success(const cleave_op *op, const tu_input *in, const tu_expect *ex) {
  cleave_error err;
  cleave_split_info info;
  size_t n = ex->num_outputs;
  const cleave_tensor *t = &in->tensor;

  /* Inference, with a lengths array larger than needed: entries past n stay untouched. */
  int64_t *lens = malloc((n + 4) * sizeof *lens);
  assert_non_null(lens);
  for (size_t i = 0; i < n + 4; ++i) {
    lens[i] = -7777;
  }
  prefill_error(&err);
  memset(&info, 0x5A, sizeof info);
  cleave_status st = cleave_infer(op, t->type, t->shape, t->rank, &info, lens, n + 4, &err);
  if (st != CLEAVE_OK) {
    print_error("cleave_infer: status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  check_ok_error(&err);
  check_info(&info, in, ex);
  for (size_t i = 0; i < n; ++i) {
    TU_CHECK(lens[i] == ex->lengths[i]);
  }
  for (size_t i = n; i < n + 4; ++i) {
    TU_CHECK(lens[i] == -7777);
  }
  memset(&info, 0x5A, sizeof info);
  st = cleave_infer(op, t->type, t->shape, t->rank, &info, NULL, 0, NULL);
  TU_CHECK(st == CLEAVE_OK);
  check_info(&info, in, ex);
  free(lens);

  unsigned char **refs = calloc(n + 1, sizeof *refs);
  size_t *sizes = calloc(n + 1, sizeof *sizes);
  assert_non_null(refs);
  assert_non_null(sizes);
  expected_outputs(in, ex, refs, sizes);

  /* cleave_run. */
  tu_outputs out;
  tu_outputs_make(&out, n, sizes, 0);
  prefill_error(&err);
  st = cleave_run(op, t, (void *const *)out.buffers, n, &err);
  if (st != CLEAVE_OK) {
    print_error("cleave_run: status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  check_ok_error(&err);
  compare_outputs(in, &out, refs, "cleave_run");
  tu_check_inverse(op, in, ex, out.buffers);
  tu_outputs_free(&out);

  /* The one-shot call, when the op can be expressed with it. */
  int ran = 0;
  tu_outputs_make(&out, n, sizes, 0);
  prefill_error(&err);
  st = tu_run_oneshot(op, t, (void *const *)out.buffers, n, &err, &ran);
  if (ran) {
    if (st != CLEAVE_OK) {
      print_error("one-shot: status %d, message \"%s\"\n", (int)st, err.message);
    }
    TU_CHECK(st == CLEAVE_OK);
    check_ok_error(&err);
    compare_outputs(in, &out, refs, "one-shot");
  }
  tu_outputs_free(&out);

  /* A plan: accessors, then runs with different input and output addresses. */
  cleave_plan *plan = NULL;
  prefill_error(&err);
  st = cleave_plan_create(op, t->type, t->shape, t->rank, &plan, &err);
  if (st != CLEAVE_OK) {
    print_error("cleave_plan_create: status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  TU_CHECK(plan != NULL);
  check_ok_error(&err);
  check_info(cleave_plan_info(plan), in, ex);
  for (size_t i = 0; i < n; ++i) {
    int64_t want[TU_MAX_RANK];
    int64_t got[TU_MAX_RANK + 1];
    size_t r = expected_shape(in, ex, i, want);
    TU_CHECK(cleave_plan_output_length(plan, i) == ex->lengths[i]);
    TU_CHECK(cleave_plan_output_bytes(plan, i) == (int64_t)sizes[i]);
    for (size_t d = 0; d <= TU_MAX_RANK; ++d) {
      got[d] = -5;
    }
    TU_CHECK(cleave_plan_output_shape(plan, i, got, NULL) == CLEAVE_OK);
    for (size_t d = 0; d < r; ++d) {
      TU_CHECK(got[d] == want[d]);
    }
    TU_CHECK(got[r] == -5);
  }
  TU_CHECK(cleave_plan_output_length(plan, n) == -1);
  TU_CHECK(cleave_plan_output_bytes(plan, n) == -1);
  int64_t dummy[TU_MAX_RANK];
  TU_CHECK(cleave_plan_output_shape(plan, n, dummy, NULL) == CLEAVE_ERROR_INVALID_ARGUMENT);

  unsigned char *moved = malloc(in->nbytes + 1);
  assert_non_null(moved);
  memcpy(moved, in->bytes, in->nbytes);
  for (int round = 0; round < 3; ++round) {
    tu_outputs_make(&out, n, sizes, 0);
    /* Round 2 passes NULL for every empty output, which the API allows. */
    void **ptrs = calloc(n + 1, sizeof *ptrs);
    assert_non_null(ptrs);
    for (size_t i = 0; i < n; ++i) {
      ptrs[i] = round == 2 && sizes[i] == 0 ? NULL : out.buffers[i];
    }
    prefill_error(&err);
    st = cleave_plan_run(plan, round == 1 ? moved : in->bytes, (void *const *)ptrs, &err);
    if (st != CLEAVE_OK) {
      print_error("cleave_plan_run round %d: status %d, message \"%s\"\n", round, (int)st,
                  err.message);
    }
    TU_CHECK(st == CLEAVE_OK);
    check_ok_error(&err);
    compare_outputs(in, &out, refs, "cleave_plan_run");
    free(ptrs);
    tu_outputs_free(&out);
  }
  free(moved);
  cleave_plan_destroy(plan);

  for (size_t i = 0; i < n; ++i) {
    free(refs[i]);
  }
  free(refs);
  free(sizes);
}

static void check_message(const cleave_error *err, cleave_status status, const char *const *needles,
                          const char *via) {
  if (err->status != status) {
    print_error("%s: err.status %d, expected %d\n", via, (int)err->status, (int)status);
  }
  TU_CHECK(err->status == status);
  TU_CHECK(err->message[0] != '\0');
  TU_CHECK(strlen(err->message) < CLEAVE_MESSAGE_SIZE);
  TU_CHECK(strchr(err->message, '\n') == NULL);
  for (size_t i = 0; needles && needles[i]; ++i) {
    if (!tu_message_has(err->message, needles[i])) {
      print_error("%s: message \"%s\" lacks \"%s\"\n", via, err->message, needles[i]);
    }
    TU_CHECK(tu_message_has(err->message, needles[i]));
  }
}

static void check_status(cleave_status got, cleave_status want, const cleave_error *err,
                         const char *via) {
  if (got != want) {
    print_error("%s: status %d (%s), expected %d (%s); message \"%s\"\n", via, (int)got,
                cleave_status_name(got), (int)want, cleave_status_name(want),
                err ? err->message : "");
  }
  TU_CHECK(got == want);
}

static void check_infer_and_plan_error(const cleave_op *op, cleave_type type, const int64_t *shape,
                                       size_t rank, cleave_status status,
                                       const char *const *needles) {
  cleave_error err;
  cleave_split_info info;
  int64_t lens[64];
  for (size_t i = 0; i < 64; ++i) {
    lens[i] = -7777;
  }
  prefill_error(&err);
  cleave_status st = cleave_infer(op, type, shape, rank, &info, lens, 64, &err);
  check_status(st, status, &err, "cleave_infer");
  check_message(&err, status, needles, "cleave_infer");
  for (size_t i = 0; i < 64; ++i) {
    TU_CHECK(lens[i] == -7777);
  }
  st = cleave_infer(op, type, shape, rank, &info, NULL, 0, NULL);
  check_status(st, status, NULL, "cleave_infer (no lengths, no err)");

  cleave_plan *plan = (cleave_plan *)(void *)&err;
  prefill_error(&err);
  st = cleave_plan_create(op, type, shape, rank, &plan, &err);
  check_status(st, status, &err, "cleave_plan_create");
  check_message(&err, status, needles, "cleave_plan_create");
  TU_CHECK(plan == NULL);
  if (plan != NULL && st == CLEAVE_OK) {
    cleave_plan_destroy(plan);
  }
}

static void check_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                        size_t num_outputs, cleave_status status, const char *const *needles,
                        int run_only);

void tu_check_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                    size_t num_outputs, cleave_status status, const char *const *needles) {
  check_error(op, type, shape, rank, num_outputs, status, needles, 0);
}

void tu_check_run_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                        size_t num_outputs, cleave_status status, const char *const *needles) {
  check_error(op, type, shape, rank, num_outputs, status, needles, 1);
}

static void check_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                        size_t num_outputs, cleave_status status, const char *const *needles,
                        int run_only) {
  /* A real input when the shape is small and valid; otherwise a small dummy buffer that the
   * library must never get to read. */
  tu_input in;
  int small = rank <= TU_MAX_RANK && tu_elem_size(type) > 0;
  int64_t count = 1;
  for (size_t i = 0; small && i < rank; ++i) {
    if (shape[i] < 0 || shape[i] > 4096 || (count *= shape[i]) > 65536) {
      small = 0;
    }
  }
  cleave_tensor tensor;
  unsigned char dummy[256];
  memset(dummy, 0, sizeof dummy);
  if (small) {
    tu_input_make(&in, type, shape, rank, 3);
    tensor = in.tensor;
  } else {
    memset(&in, 0, sizeof in);
    tensor.data = dummy;
    tensor.type = type;
    tensor.rank = rank;
    tensor.shape = shape;
  }

  char text[256];
  tu_context("%s opset %lld on %s %s, expecting status %d", kind_name(op->kind),
             (long long)op->opset,
             cleave_dtype_name(type.dtype) ? cleave_dtype_name(type.dtype) : "?",
             tu_shape_text(shape, rank < TU_MAX_RANK ? rank : TU_MAX_RANK, text, sizeof text),
             (int)status);

  cleave_error err;
  cleave_split_info info;
  cleave_status st;
  if (run_only) {
    /* The op itself is valid: only running it with these outputs is not. */
    st = cleave_infer(op, type, shape, rank, &info, NULL, 0, &err);
    check_status(st, CLEAVE_OK, &err, "cleave_infer");
  } else {
    check_infer_and_plan_error(op, type, shape, rank, status, needles);
  }
  size_t each = in.nbytes > 64 ? in.nbytes : 64;
  tu_outputs out;
  tu_outputs_make(&out, num_outputs, NULL, each);
  prefill_error(&err);
  st = cleave_run(op, &tensor, (void *const *)out.buffers, num_outputs, &err);
  check_status(st, status, &err, "cleave_run");
  check_message(&err, status, needles, "cleave_run");
  TU_CHECK(tu_outputs_untouched(&out));
  tu_outputs_free(&out);

  int ran = 0;
  tu_outputs_make(&out, num_outputs, NULL, each);
  prefill_error(&err);
  st = tu_run_oneshot(op, &tensor, (void *const *)out.buffers, num_outputs, &err, &ran);
  if (ran) {
    check_status(st, status, &err, "one-shot");
    check_message(&err, status, needles, "one-shot");
    TU_CHECK(tu_outputs_untouched(&out));
  }
  tu_outputs_free(&out);

  if (small) {
    tu_input_free(&in);
  }
}
