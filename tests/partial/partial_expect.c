/* The expectation helpers of the hand-written partial-shape tests; see partial_expect.h. */
#include "partial_expect.h"

#include <stdio.h>
#include <string.h>

static void print_outputs(const cleave_partial_info *info, const cleave_dim *dims, char *text,
                          size_t size) {
  size_t used = 0;
  size_t rank = info->output_rank == CLEAVE_RANK_DYNAMIC ? 0 : info->output_rank;
  text[0] = '\0';
  for (size_t i = 0; i < info->num_shapes; i++) {
    char shape[1024], count[CLEAVE_DIM_TEXT_SIZE];
    cleave_partial_shape out = {info->output_rank, dims + i * rank};
    assert_int_equal(cleave_partial_shape_format(&out, shape, sizeof shape, NULL, NULL), CLEAVE_OK);
    if (info->count_varies) {
      assert_int_equal(cleave_dim_format(info->count, count, sizeof count, NULL, NULL), CLEAVE_OK);
      used += (size_t)snprintf(text + used, size - used, "%s%s x %s", i ? "\n" : "", count, shape);
    } else {
      used += (size_t)snprintf(text + used, size - used, "%s%s", i ? "\n" : "", shape);
    }
    assert_true(used < size);
  }
}

/* Parses `shape_text`, infers, prints. */
pt_outcome pt_infer_as(const cleave_op *op, unsigned unknown, cleave_dtype dtype,
                       const char *shape_text) {
  static cleave_dim in[16], dims[PT_MAX_DIMS];
  pt_outcome o;
  memset(&o, 0, sizeof o);
  size_t rank = 0;
  cleave_error err;
  assert_int_equal(cleave_partial_shape_parse(shape_text, in, 16, &rank, &err), CLEAVE_OK);
  cleave_partial_shape shape = {rank, in};
  o.status = cleave_infer_partial(op, unknown, cleave_type_of(dtype), &shape, &o.info, dims,
                                  PT_MAX_DIMS, &err);
  assert_int_equal(err.status, o.status);
  if (o.status == CLEAVE_OK) {
    print_outputs(&o.info, dims, o.text, sizeof o.text);
  } else {
    snprintf(o.message, sizeof o.message, "%s", err.message);
  }
  return o;
}

pt_outcome pt_infer(const cleave_op *op, unsigned unknown, const char *shape_text) {
  return pt_infer_as(op, unknown, CLEAVE_F32, shape_text);
}

void pt_expect_text(const cleave_op *op, unsigned unknown, const char *shape_text,
                    const char *want) {
  pt_outcome o = pt_infer(op, unknown, shape_text);
  if (o.status != CLEAVE_OK) {
    print_error("on %s: status %d: %s\n", shape_text, (int)o.status, o.message);
  }
  assert_int_equal(o.status, CLEAVE_OK);
  if (strcmp(o.text, want) != 0) {
    print_error("on %s:\nwant:\n%s\ngot:\n%s\n", shape_text, want, o.text);
  }
  assert_string_equal(o.text, want);
}

/* Expects failure with `status` and a message holding every needle; nothing written. */
void pt_expect_error(const cleave_op *op, unsigned unknown, const char *shape_text,
                     cleave_status status, const char *const *needles) {
  static cleave_dim in[16], dims[8];
  size_t rank = 0;
  cleave_error err;
  assert_int_equal(cleave_partial_shape_parse(shape_text, in, 16, &rank, &err), CLEAVE_OK);
  cleave_partial_shape shape = {rank, in};
  for (int i = 0; i < 8; i++) {
    dims[i] = cleave_dim_range(-9, -9);
  }
  cleave_partial_info info;
  cleave_status st =
      cleave_infer_partial(op, unknown, cleave_type_of(CLEAVE_F32), &shape, &info, dims, 8, &err);
  if (st != status) {
    print_error("on %s: status %d, want %d (%s)\n", shape_text, (int)st, (int)status, err.message);
  }
  assert_int_equal(st, status);
  assert_int_equal(err.status, status);
  for (int i = 0; needles[i] != NULL; i++) {
    if (strstr(err.message, needles[i]) == NULL) {
      print_error("message \"%s\" lacks \"%s\"\n", err.message, needles[i]);
    }
    assert_non_null(strstr(err.message, needles[i]));
  }
  for (int i = 0; i < 8; i++) {
    assert_int_equal(dims[i].lo, -9);
    assert_int_equal(dims[i].hi, -9);
  }
}

/* Repeats `line` n times, joined by newlines. */
const char *pt_repeat(const char *line, int n) {
  static char buf[PT_TEXT_SIZE];
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? "\n" : "", line);
  }
  return buf;
}

cleave_op pt_sequence(const int64_t *axis, const int64_t *split) {
  cleave_op op = cleave_op_split_to_sequence(24);
  op.axis = cleave_values_scalar(axis);
  if (split != NULL) {
    op.lengths = cleave_values_scalar(split);
  }
  return op;
}
