/* Kernels of the ONNX test runner for the joining operators. */
#include "ox_ops_concat.h"

#include "ox_node.h"

#include <stdlib.h>
#include <string.h>

/*
 * Runs `op` on `items[0..count)` into c->outputs[0]: the output's shape from cleave_concat_infer,
 * the copy from cleave_concat_run. An operator rule the inputs break is CLI_EXIT_FAIL with the
 * library's message, which names the input and the dimension at fault.
 */
static int ox_join(const ox_node_ctx *c, const cleave_concat_op *op, const ox_tensor *const *items,
                   size_t count, tool_error *err) {
  cleave_tensor *inputs = calloc(count + 1, sizeof *inputs);
  if (inputs == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", c->label);
  }
  for (size_t i = 0; i < count; i++) {
    inputs[i].data = items[i]->data;
    inputs[i].type = items[i]->type;
    inputs[i].rank = items[i]->rank;
    inputs[i].shape = items[i]->dims;
  }
  cleave_concat_info info;
  cleave_error cerr;
  memset(&cerr, 0, sizeof cerr);
  int64_t *dims = NULL;
  int st = CLI_EXIT_OK;
  if (cleave_concat_infer(op, inputs, count, &info, NULL, 0, &cerr) != CLEAVE_OK) {
    st = tool_fail(err, CLI_EXIT_FAIL, "%s: %s: %s", c->label, cleave_status_name(cerr.status),
                   cerr.message);
  }
  if (st == CLI_EXIT_OK) {
    dims = calloc(info.output_rank + 1, sizeof *dims);
    if (dims == NULL) {
      st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", c->label);
    }
  }
  if (st == CLI_EXIT_OK &&
      cleave_concat_infer(op, inputs, count, &info, dims, info.output_rank, &cerr) != CLEAVE_OK) {
    st = tool_fail(err, CLI_EXIT_SOFTWARE, "%s: the second cleave_concat_infer failed: %s: %s",
                   c->label, cleave_status_name(cerr.status), cerr.message);
  }
  ox_tensor out;
  memset(&out, 0, sizeof out);
  if (st == CLI_EXIT_OK) {
    st = ox_tensor_init(&out, items[0]->onnx_type, info.output_rank, dims, c->label, err);
  }
  if (st == CLI_EXIT_OK && cleave_concat_run(op, inputs, count, out.data, &cerr) != CLEAVE_OK) {
    st = tool_fail(err, CLI_EXIT_FAIL,
                   "%s: cleave_concat_run failed after cleave_concat_infer succeeded: %s: %s",
                   c->label, cleave_status_name(cerr.status), cerr.message);
    ox_tensor_free(&out);
  }
  if (st == CLI_EXIT_OK) {
    c->outputs[0].kind = OX_KIND_TENSOR;
    c->outputs[0].tensor = out;
  }
  free(dims);
  free(inputs);
  return st;
}

int ox_run_concat(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs[] = {"axis", NULL};
  int64_t axis = 0;
  int has_axis = 0;
  int st = ox_check_attributes(c, attrs, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 1, SIZE_MAX, 1, 1, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_attr_int(c, "axis", &axis, &has_axis, err);
  }
  const ox_tensor **items = NULL;
  if (st == CLI_EXIT_OK) {
    items = calloc(c->n_inputs + 1, sizeof *items);
    if (items == NULL) {
      st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", c->label);
    }
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < c->n_inputs; i++) {
    st = ox_input_tensor(c, i, "inputs", 1, &items[i], err);
  }
  if (st == CLI_EXIT_OK) {
    cleave_concat_op op = cleave_op_onnx_concat(c->opset, has_axis ? &axis : NULL);
    st = ox_join(c, &op, items, c->n_inputs, err);
  }
  free(items);
  return st;
}

int ox_run_concat_from_sequence(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs[] = {"axis", "new_axis", NULL};
  const ox_value *seq = NULL;
  int64_t axis = 0;
  int64_t new_axis = 0;
  int has_axis = 0;
  int has_new_axis = 0;
  int st = ox_check_attributes(c, attrs, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 1, 1, 1, 1, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_sequence_input(c, &seq, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_attr_int(c, "axis", &axis, &has_axis, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_attr_int(c, "new_axis", &new_axis, &has_new_axis, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_check_sequence_version(c, err);
  }
  if (st == CLI_EXIT_OK && !has_axis) {
    st = tool_fail(err, CLI_EXIT_DATA,
                   "malformed model: %s has no attribute 'axis', which ConcatFromSequence "
                   "requires",
                   c->label);
  }
  const ox_tensor **items = NULL;
  if (st == CLI_EXIT_OK) {
    items = calloc(seq->length + 1, sizeof *items);
    if (items == NULL) {
      st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", c->label);
    }
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < seq->length; i++) {
    items[i] = &seq->items[i];
  }
  if (st == CLI_EXIT_OK) {
    /* An empty sequence reaches the library, whose message names the rule (at least one input). */
    cleave_concat_op op = cleave_op_concat_from_sequence(c->opset, &axis, new_axis);
    st = ox_join(c, &op, items, seq->length, err);
  }
  free(items);
  return st;
}

int ox_run_sequence_construct(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs[] = {NULL};
  int st = ox_check_attributes(c, attrs, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 1, SIZE_MAX, 1, 1, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_check_sequence_version(c, err);
  }
  const ox_tensor *first = NULL;
  for (size_t i = 0; st == CLI_EXIT_OK && i < c->n_inputs; i++) {
    const ox_tensor *t = NULL;
    st = ox_input_tensor(c, i, "inputs", 1, &t, err);
    if (st == CLI_EXIT_OK && i == 0) {
      first = t;
    } else if (st == CLI_EXIT_OK && t->onnx_type != first->onnx_type) {
      st = tool_fail(err, CLI_EXIT_FAIL,
                     "%s: inputs[%zu] is %s but inputs[0] is %s: the tensors of a sequence have "
                     "one element type",
                     c->label, i, ox_type_name(t->onnx_type), ox_type_name(first->onnx_type));
    }
  }
  ox_tensor *items = NULL;
  if (st == CLI_EXIT_OK) {
    items = calloc(c->n_inputs + 1, sizeof *items);
    if (items == NULL) {
      st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", c->label);
    }
  }
  size_t made = 0;
  for (size_t i = 0; st == CLI_EXIT_OK && i < c->n_inputs; i++) {
    st = ox_tensor_copy(&items[i], &c->inputs[i]->tensor, err);
    made = st == CLI_EXIT_OK ? i + 1 : made;
  }
  if (st != CLI_EXIT_OK) {
    for (size_t i = 0; i < made; i++) {
      ox_tensor_free(&items[i]);
    }
    free(items);
    return st;
  }
  c->outputs[0].kind = OX_KIND_SEQUENCE;
  c->outputs[0].items = items;
  c->outputs[0].length = c->n_inputs;
  return CLI_EXIT_OK;
}
