/* Loading an ONNX model and checking the structure of its graph. */
#include "ox_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ox_is_default_domain(const char *domain) {
  return domain == NULL || domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0;
}

static const char *ox_str(const char *s) {
  return s != NULL ? s : "";
}

const Onnx__TensorProto *ox_model_initializer(const ox_model *m, const char *name) {
  for (size_t i = 0; i < m->graph->n_initializer; i++) {
    if (strcmp(ox_str(m->graph->initializer[i]->name), name) == 0) {
      return m->graph->initializer[i];
    }
  }
  return NULL;
}

int ox_model_input_is_fed(const ox_model *m, size_t i) {
  return ox_model_initializer(m, ox_str(m->graph->input[i]->name)) == NULL;
}

/* The names defined so far while walking the graph. Graphs here are small: a linear search. */
typedef struct ox_names {
  const char **items;
  size_t count;
  size_t cap;
} ox_names;

static int ox_names_has(const ox_names *s, const char *name) {
  for (size_t i = 0; i < s->count; i++) {
    if (strcmp(s->items[i], name) == 0) {
      return 1;
    }
  }
  return 0;
}

static int ox_names_add(ox_names *s, const char *name, tool_error *err) {
  if (s->count == s->cap) {
    size_t ncap = s->cap == 0 ? 16 : s->cap * 2;
    const char **n = realloc(s->items, ncap * sizeof *n);
    if (n == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", "graph names");
    }
    s->items = n;
    s->cap = ncap;
  }
  s->items[s->count++] = name;
  return CLI_EXIT_OK;
}

/* Describes node i for messages: "node 'name' (OpType)" or "node #i (OpType)". */
static void ox_node_label(char *buf, size_t size, const Onnx__NodeProto *node, size_t i) {
  if (node->name != NULL && node->name[0] != '\0') {
    snprintf(buf, size, "node '%s' (%s)", node->name, ox_str(node->op_type));
  } else {
    snprintf(buf, size, "node #%zu (%s)", i, ox_str(node->op_type));
  }
}

static int ox_check_graph(const Onnx__GraphProto *g, tool_error *err) {
  ox_names defined = {NULL, 0, 0};
  int st = CLI_EXIT_OK;
  char label[256];
  /* Initializers first: below IR 4 they are also listed as graph inputs, which is no
   * redefinition. */
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_initializer; i++) {
    const char *name = ox_str(g->initializer[i]->name);
    if (name[0] == '\0') {
      st = tool_fail(err, CLI_EXIT_DATA, "malformed model: initializer %zu has no name", i);
    } else if (ox_names_has(&defined, name)) {
      st =
          tool_fail(err, CLI_EXIT_DATA, "malformed model: initializer '%s' is defined twice", name);
    } else {
      st = ox_names_add(&defined, name, err);
    }
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_input; i++) {
    const char *name = ox_str(g->input[i]->name);
    int is_init = 0;
    for (size_t k = 0; k < g->n_initializer; k++) {
      is_init = is_init || strcmp(ox_str(g->initializer[k]->name), name) == 0;
    }
    if (name[0] == '\0') {
      st = tool_fail(err, CLI_EXIT_DATA, "malformed model: graph input %zu has no name", i);
    } else if (!is_init && ox_names_has(&defined, name)) {
      st =
          tool_fail(err, CLI_EXIT_DATA, "malformed model: graph input '%s' is defined twice", name);
    } else if (!is_init) {
      st = ox_names_add(&defined, name, err);
    }
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_node; i++) {
    const Onnx__NodeProto *node = g->node[i];
    ox_node_label(label, sizeof label, node, i);
    if (node->op_type == NULL || node->op_type[0] == '\0') {
      st = tool_fail(err, CLI_EXIT_DATA, "malformed model: %s has no op_type", label);
    }
    for (size_t k = 0; st == CLI_EXIT_OK && k < node->n_input; k++) {
      const char *name = ox_str(node->input[k]);
      /* An empty name is an omitted optional input. */
      if (name[0] != '\0' && !ox_names_has(&defined, name)) {
        st = tool_fail(err, CLI_EXIT_DATA,
                       "malformed model: %s reads '%s', which no graph input, initializer or "
                       "earlier node defines",
                       label, name);
      }
    }
    for (size_t k = 0; st == CLI_EXIT_OK && k < node->n_output; k++) {
      const char *name = ox_str(node->output[k]);
      if (name[0] != '\0' && ox_names_has(&defined, name)) {
        st = tool_fail(err, CLI_EXIT_DATA,
                       "malformed model: %s defines '%s', which is already "
                       "defined",
                       label, name);
      } else if (name[0] != '\0') {
        st = ox_names_add(&defined, name, err);
      }
    }
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_output; i++) {
    const char *name = ox_str(g->output[i]->name);
    if (!ox_names_has(&defined, name)) {
      st = tool_fail(err, CLI_EXIT_DATA, "malformed model: graph output '%s' is not defined", name);
    }
  }
  free(defined.items);
  return st;
}

int ox_model_load(const char *path, ox_model *m, tool_error *err) {
  ProtobufCMessage *msg = NULL;
  memset(m, 0, sizeof *m);
  int st = ox_unpack_file(path, &onnx__model_proto__descriptor, &msg, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  m->proto = (Onnx__ModelProto *)msg;
  m->graph = m->proto->graph;
  if (m->graph == NULL) {
    ox_model_free(m);
    return tool_fail(err, CLI_EXIT_DATA, "malformed model: %s has no graph", path);
  }
  int found = 0;
  for (size_t i = 0; i < m->proto->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->proto->opset_import[i];
    if (ox_is_default_domain(o->domain) && o->has_version) {
      m->opset = o->version;
      found = 1;
    }
  }
  if (!found) {
    ox_model_free(m);
    return tool_fail(err, CLI_EXIT_DATA,
                     "malformed model: %s imports no opset version for the default domain", path);
  }
  st = ox_check_graph(m->graph, err);
  if (st != CLI_EXIT_OK) {
    ox_model_free(m);
  }
  return st;
}

void ox_model_free(ox_model *m) {
  if (m->proto != NULL) {
    protobuf_c_message_free_unpacked(&m->proto->base, NULL);
  }
  memset(m, 0, sizeof *m);
}

int ox_declared_type(const Onnx__ValueInfoProto *vi, const char *role, ox_kind *kind,
                     int32_t *elem_type, tool_error *err) {
  const char *name = ox_str(vi->name);
  const Onnx__TypeProto *t = vi->type;
  *elem_type = 0;
  if (t == NULL || t->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed model: graph %s '%s' has no type", role, name);
  }
  if (t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
    *kind = OX_KIND_TENSOR;
    if (t->tensor_type->has_elem_type) {
      *elem_type = t->tensor_type->elem_type;
    }
    return CLI_EXIT_OK;
  }
  if (t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
    const Onnx__TypeProto *e = t->sequence_type->elem_type;
    *kind = OX_KIND_SEQUENCE;
    if (e == NULL || e->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
      return CLI_EXIT_OK;
    }
    if (e->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
      if (e->tensor_type->has_elem_type) {
        *elem_type = e->tensor_type->elem_type;
      }
      return CLI_EXIT_OK;
    }
  }
  return tool_fail(err, CLI_EXIT_FAIL,
                   "graph %s '%s' has a type the runner does not support (only tensors and "
                   "sequences of tensors)",
                   role, name);
}
