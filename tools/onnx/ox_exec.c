/* Running an ONNX graph: an environment of named values, filled by the initializers and the
 * data set's inputs, then by each node in order. */
#include "ox_exec.h"

#include "ox_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ox_str(const char *s) {
  return s != NULL ? s : "";
}

typedef struct ox_binding {
  const char *name;
  ox_value value;
} ox_binding;

/* The values defined so far. Graphs here are small: a linear search. */
typedef struct ox_env {
  ox_binding *items;
  size_t count;
  size_t cap;
} ox_env;

static const ox_value *ox_env_get(const ox_env *env, const char *name) {
  /* Latest first, so that a fed graph input overrides its initializer. */
  for (size_t i = env->count; i-- > 0;) {
    if (strcmp(env->items[i].name, name) == 0) {
      return &env->items[i].value;
    }
  }
  return NULL;
}

/* Takes ownership of *value (and zeroes it), also on failure. */
static int ox_env_put(ox_env *env, const char *name, ox_value *value, tool_error *err) {
  if (env->count == env->cap) {
    size_t ncap = env->cap == 0 ? 16 : env->cap * 2;
    ox_binding *n = realloc(env->items, ncap * sizeof *n);
    if (n == NULL) {
      ox_value_free(value);
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", "graph values");
    }
    env->items = n;
    env->cap = ncap;
  }
  env->items[env->count].name = name;
  env->items[env->count].value = *value;
  env->count++;
  memset(value, 0, sizeof *value);
  return CLI_EXIT_OK;
}

static void ox_env_free(ox_env *env) {
  for (size_t i = 0; i < env->count; i++) {
    ox_value_free(&env->items[i].value);
  }
  free(env->items);
  memset(env, 0, sizeof *env);
}

static void ox_label(char *buf, size_t size, const Onnx__NodeProto *node, size_t index,
                     const ox_op *op, int version, int64_t opset) {
  char who[160];
  if (node->name != NULL && node->name[0] != '\0') {
    snprintf(who, sizeof who, "node '%.120s'", node->name);
  } else {
    snprintf(who, sizeof who, "node #%zu", index);
  }
  if (version > 0) {
    snprintf(buf, size, "%s (%s-%d)", who, op->op_type, version);
  } else {
    snprintf(buf, size, "%s (%s at opset %" PRId64 ")", who, op->op_type, opset);
  }
}

int ox_check_operators(const ox_model *m, tool_error *err) {
  for (size_t i = 0; i < m->graph->n_node; i++) {
    const Onnx__NodeProto *node = m->graph->node[i];
    if (ox_op_find(node->domain, node->op_type) == NULL) {
      const char *domain = ox_str(node->domain);
      const char *name = ox_str(node->name);
      char where[256];
      if (name[0] != '\0') {
        snprintf(where, sizeof where, "node '%.200s'", name);
      } else {
        snprintf(where, sizeof where, "node #%zu", i);
      }
      return tool_fail(err, CLI_EXIT_FAIL,
                       "unsupported operator '%s%s%s' (%s); supported: Split, "
                       "SplitToSequence, Concat, ConcatFromSequence, SequenceConstruct, "
                       "SequenceAt, SequenceLength, Constant",
                       domain, domain[0] != '\0' ? "::" : "", ox_str(node->op_type), where);
    }
  }
  return CLI_EXIT_OK;
}

static int ox_run_node(const ox_model *m, ox_env *env, size_t index, tool_error *err) {
  const Onnx__NodeProto *node = m->graph->node[index];
  const ox_op *op = ox_op_find(node->domain, node->op_type);
  char label[256];
  const ox_value **inputs = NULL;
  ox_value *outputs = NULL;
  int st = CLI_EXIT_OK;
  if (op == NULL) {
    return tool_fail(err, CLI_EXIT_FAIL, "unsupported operator '%s'", ox_str(node->op_type));
  }
  int version = ox_op_version(op, m->opset);
  ox_label(label, sizeof label, node, index, op, version, m->opset);
  inputs = calloc(node->n_input + 1, sizeof *inputs);
  outputs = calloc(node->n_output + 1, sizeof *outputs);
  if (inputs == NULL || outputs == NULL) {
    st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", label);
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < node->n_input; i++) {
    const char *name = ox_str(node->input[i]);
    if (name[0] == '\0') {
      continue;
    }
    inputs[i] = ox_env_get(env, name);
    if (inputs[i] == NULL) {
      st = tool_fail(err, CLI_EXIT_DATA, "malformed model: %s reads '%s', which is not defined",
                     label, name);
    }
  }
  if (st == CLI_EXIT_OK) {
    ox_node_ctx ctx;
    ctx.node = node;
    ctx.label = label;
    ctx.opset = m->opset;
    ctx.version = version;
    ctx.inputs = inputs;
    ctx.n_inputs = node->n_input;
    ctx.outputs = outputs;
    ctx.n_outputs = node->n_output;
    st = op->run(&ctx, err);
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < node->n_output; i++) {
    const char *name = ox_str(node->output[i]);
    if (name[0] == '\0') {
      continue; /* an omitted output: nothing is stored (nor need be produced) */
    }
    if (outputs[i].kind == 0) {
      st = tool_fail(err, CLI_EXIT_SOFTWARE, "%s produced no value for output %zu", label, i);
    } else {
      st = ox_env_put(env, name, &outputs[i], err);
    }
  }
  for (size_t i = 0; outputs != NULL && i < node->n_output; i++) {
    ox_value_free(&outputs[i]);
  }
  free(outputs);
  free(inputs);
  return st;
}

/* Checks a produced graph output against its declared element type. */
static int ox_check_declared(const Onnx__ValueInfoProto *vi, const ox_value *v, tool_error *err) {
  ox_kind kind;
  int32_t elem_type;
  int st = ox_declared_type(vi, "output", &kind, &elem_type, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  if (kind != v->kind) {
    return tool_fail(err, CLI_EXIT_FAIL,
                     "graph output '%s' is declared a %s but the graph produced a %s",
                     ox_str(vi->name), kind == OX_KIND_TENSOR ? "tensor" : "sequence",
                     v->kind == OX_KIND_TENSOR ? "tensor" : "sequence");
  }
  for (size_t i = 0; elem_type != 0 && i < (v->kind == OX_KIND_TENSOR ? 1 : v->length); i++) {
    const ox_tensor *t = v->kind == OX_KIND_TENSOR ? &v->tensor : &v->items[i];
    if (t->onnx_type != elem_type) {
      return tool_fail(err, CLI_EXIT_FAIL,
                       "graph output '%s' is declared %s but the graph produced %s",
                       ox_str(vi->name), ox_type_name(elem_type), ox_type_name(t->onnx_type));
    }
  }
  return CLI_EXIT_OK;
}

int ox_run_graph(const ox_model *m, const ox_data_set *ds, ox_value *results, tool_error *err) {
  const Onnx__GraphProto *g = m->graph;
  ox_env env = {NULL, 0, 0};
  int st = CLI_EXIT_OK;
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_initializer; i++) {
    ox_value v;
    char what[256];
    memset(&v, 0, sizeof v);
    snprintf(what, sizeof what, "initializer '%.200s'", ox_str(g->initializer[i]->name));
    v.kind = OX_KIND_TENSOR;
    st = ox_decode_tensor(g->initializer[i], what, &v.tensor, err);
    if (st == CLI_EXIT_OK) {
      st = ox_env_put(&env, ox_str(g->initializer[i]->name), &v, err);
    }
  }
  if (g->n_sparse_initializer > 0 && st == CLI_EXIT_OK) {
    st = tool_fail(err, CLI_EXIT_FAIL, "sparse initializers are not supported");
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_input; i++) {
    ox_value v;
    if (i >= ds->n_inputs || !ds->fed[i]) {
      continue;
    }
    st = ox_value_copy(&v, &ds->inputs[i], err);
    if (st == CLI_EXIT_OK) {
      st = ox_env_put(&env, ox_str(g->input[i]->name), &v, err);
    }
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_node; i++) {
    st = ox_run_node(m, &env, i, err);
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_output; i++) {
    const char *name = ox_str(g->output[i]->name);
    const ox_value *v = ox_env_get(&env, name);
    if (v == NULL) {
      st = tool_fail(err, CLI_EXIT_DATA, "malformed model: graph output '%s' is not defined", name);
    } else {
      st = ox_check_declared(g->output[i], v, err);
    }
    if (st == CLI_EXIT_OK) {
      st = ox_value_copy(&results[i], v, err);
    }
  }
  ox_env_free(&env);
  return st;
}
