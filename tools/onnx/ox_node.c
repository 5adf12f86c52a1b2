/* What every kernel of the ONNX test runner checks and reads of its node: attributes, arity,
 * tensor and sequence inputs. */
#include "ox_node.h"

#include <inttypes.h>
#include <string.h>

const char *ox_str(const char *s) {
  return s != NULL ? s : "";
}

const Onnx__AttributeProto *ox_attr(const ox_node_ctx *c, const char *name) {
  for (size_t i = 0; i < c->node->n_attribute; i++) {
    if (strcmp(ox_str(c->node->attribute[i]->name), name) == 0) {
      return c->node->attribute[i];
    }
  }
  return NULL;
}

/* Checks that every attribute of the node is one of `allowed` (NULL-terminated). */
int ox_check_attributes(const ox_node_ctx *c, const char *const *allowed, tool_error *err) {
  for (size_t i = 0; i < c->node->n_attribute; i++) {
    const char *name = ox_str(c->node->attribute[i]->name);
    int known = 0;
    for (size_t k = 0; allowed[k] != NULL; k++) {
      known = known || strcmp(allowed[k], name) == 0;
    }
    if (!known) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "malformed model: %s has an attribute '%s', which the "
                       "operator does not define",
                       c->label, name);
    }
  }
  return CLI_EXIT_OK;
}

/* Checks the attribute's declared type, when it declares one. */
int ox_check_attr_type(const ox_node_ctx *c, const Onnx__AttributeProto *a, int type,
                       const char *type_name, tool_error *err) {
  if (a->has_type && (int)a->type != type) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed model: attribute '%s' of %s is not of type %s",
                     ox_str(a->name), c->label, type_name);
  }
  return CLI_EXIT_OK;
}

/* Reads an INT attribute; `*present` says whether the node has it. */
int ox_attr_int(const ox_node_ctx *c, const char *name, int64_t *value, int *present,
                tool_error *err) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  *present = a != NULL;
  if (a == NULL) {
    return CLI_EXIT_OK;
  }
  int st = ox_check_attr_type(c, a, OX_ATTR_INT, "INT", err);
  if (st == CLI_EXIT_OK && !a->has_i) {
    st = tool_fail(err, CLI_EXIT_DATA, "malformed model: attribute '%s' of %s has no value", name,
                   c->label);
  }
  *value = a->i;
  return st;
}

/* Checks the node's input and output counts against the operator's. */
int ox_check_arity(const ox_node_ctx *c, size_t min_in, size_t max_in, size_t min_out,
                   size_t max_out, tool_error *err) {
  if (c->n_inputs < min_in || c->n_inputs > max_in) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed model: %s has %zu %s; it takes %zu to %zu",
                     c->label, c->n_inputs, tool_plural(c->n_inputs, "input", "inputs"), min_in,
                     max_in);
  }
  if (c->n_outputs < min_out || c->n_outputs > max_out) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed model: %s has %zu %s; it gives %zu to %zu",
                     c->label, c->n_outputs, tool_plural(c->n_outputs, "output", "outputs"),
                     min_out, max_out);
  }
  return CLI_EXIT_OK;
}

/* Returns input i as a tensor in *t (NULL when the optional input is omitted). */
int ox_input_tensor(const ox_node_ctx *c, size_t i, const char *name, int required,
                    const ox_tensor **t, tool_error *err) {
  const ox_value *v = i < c->n_inputs ? c->inputs[i] : NULL;
  *t = NULL;
  if (v == NULL) {
    if (required) {
      return tool_fail(err, CLI_EXIT_DATA, "malformed model: %s has no input '%s'", c->label, name);
    }
    return CLI_EXIT_OK;
  }
  if (v->kind != OX_KIND_TENSOR) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "malformed model: input '%s' of %s is a sequence, not a "
                     "tensor",
                     name, c->label);
  }
  *t = &v->tensor;
  return CLI_EXIT_OK;
}

int ox_output_named(const ox_node_ctx *c, size_t i) {
  const char *name = c->node->output[i];
  return name != NULL && name[0] != '\0';
}

int ox_sequence_input(const ox_node_ctx *c, const ox_value **seq, tool_error *err) {
  *seq = c->inputs[0];
  if (*seq == NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed model: %s has no input 'input_sequence'",
                     c->label);
  }
  if ((*seq)->kind != OX_KIND_SEQUENCE) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "malformed model: input 'input_sequence' of %s is a "
                     "tensor, not a sequence",
                     c->label);
  }
  return CLI_EXIT_OK;
}

int ox_check_sequence_version(const ox_node_ctx *c, tool_error *err) {
  if (c->version == 0) {
    return tool_fail(err, CLI_EXIT_FAIL,
                     "%s: the operator needs opset 11 or later, the model imports "
                     "opset %" PRId64,
                     c->label, c->opset);
  }
  return CLI_EXIT_OK;
}
