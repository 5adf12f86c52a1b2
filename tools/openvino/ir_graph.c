/* Graph checks of an IR model: unique ids, edges between existing ports, one producer per input
 * port, every input connected, no cycles; and the indices the lookups use (ir_model.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_model.h"

/* A layer's id with its index: qsort has no context argument, so the key travels with it. */
typedef struct id_index {
  int64_t id;
  size_t index;
} id_index;

static int by_id_cmp(const void *a, const void *b) {
  int64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
  return x < y ? -1 : x > y;
}

static int by_port_cmp(const void *a, const void *b) {
  int64_t x = ((const ir_port *)a)->id, y = ((const ir_port *)b)->id;
  return x < y ? -1 : x > y;
}

static int check_ports(const ir_model *m, const ir_layer *l, tool_error *err) {
  if (l->num_ports < 2) {
    return 0;
  }
  ir_port *sorted = malloc(l->num_ports * sizeof *sorted);
  if (sorted == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  memcpy(sorted, l->ports, l->num_ports * sizeof *sorted);
  qsort(sorted, l->num_ports, sizeof *sorted, by_port_cmp);
  for (size_t i = 1; i < l->num_ports; i++) {
    if (sorted[i].id == sorted[i - 1].id) {
      char label[400];
      ir_layer_label(l, label, sizeof label);
      unsigned long line =
          sorted[i].line > sorted[i - 1].line ? sorted[i].line : sorted[i - 1].line;
      long long id = (long long)sorted[i].id;
      free(sorted);
      return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s has two ports with id %lld", m->path,
                       line, label, id);
    }
  }
  free(sorted);
  return 0;
}

/* Resolves one edge's ends. */
static int resolve_edge(ir_model *m, size_t k, tool_error *err) {
  ir_edge *e = &m->edges[k];
  const ir_layer *from = ir_model_layer(m, e->from_layer);
  const ir_layer *to = ir_model_layer(m, e->to_layer);
  if (from == NULL || to == NULL) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' line %lu: an <edge> refers to layer %lld, which does "
                     "not exist",
                     m->path, e->line, (long long)(from == NULL ? e->from_layer : e->to_layer));
  }
  const ir_port *out = ir_layer_port(from, e->from_port);
  const ir_port *in = ir_layer_port(to, e->to_port);
  char label[400];
  if (out == NULL || !out->is_output) {
    ir_layer_label(from, label, sizeof label);
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' line %lu: an <edge> starts at port %lld of %s, which "
                     "has no such %s port",
                     m->path, e->line, (long long)e->from_port, label, "output");
  }
  if (in == NULL || in->is_output) {
    ir_layer_label(to, label, sizeof label);
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' line %lu: an <edge> ends at port %lld of %s, which "
                     "has no such %s port",
                     m->path, e->line, (long long)e->to_port, label, "input");
  }
  e->from_index = (size_t)(from - m->layers);
  e->from_port_index = (size_t)(out - from->ports);
  e->to_index = (size_t)(to - m->layers);
  e->to_port_index = (size_t)(in - to->ports);
  ir_port *target = &m->layers[e->to_index].ports[e->to_port_index];
  if (target->edge != IR_NO_EDGE) {
    ir_layer_label(to, label, sizeof label);
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' line %lu: input port %lld of %s has two producers (edges on lines "
                     "%lu and %lu)",
                     m->path, e->line, (long long)e->to_port, label, m->edges[target->edge].line,
                     e->line);
  }
  target->edge = k;
  return 0;
}

/* Kahn's algorithm over the layers; a layer left over lies on or after a cycle. */
static int topological_order(ir_model *m, tool_error *err) {
  size_t n = m->num_layers;
  size_t *indegree = calloc(n + 1, sizeof *indegree);
  size_t *first = calloc(n + 1, sizeof *first); /* CSR of outgoing edges by source layer */
  size_t *targets = malloc((m->num_edges + 1) * sizeof *targets);
  m->order = malloc((n + 1) * sizeof *m->order);
  if (indegree == NULL || first == NULL || targets == NULL || m->order == NULL) {
    free(indegree);
    free(first);
    free(targets);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t k = 0; k < m->num_edges; k++) {
    first[m->edges[k].from_index + 1]++;
    indegree[m->edges[k].to_index]++;
  }
  for (size_t i = 0; i < n; i++) {
    first[i + 1] += first[i];
  }
  size_t *fill = calloc(n + 1, sizeof *fill);
  if (fill == NULL) {
    free(indegree);
    free(first);
    free(targets);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t k = 0; k < m->num_edges; k++) {
    size_t src = m->edges[k].from_index;
    targets[first[src] + fill[src]++] = m->edges[k].to_index;
  }
  free(fill);
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; i++) {
    if (indegree[i] == 0) {
      m->order[tail++] = i;
    }
  }
  while (head < tail) {
    size_t l = m->order[head++];
    for (size_t k = first[l]; k < first[l + 1]; k++) {
      if (--indegree[targets[k]] == 0) {
        m->order[tail++] = targets[k];
      }
    }
  }
  int rc = 0;
  if (tail < n) {
    /* Report the first layer in document order that is still waiting. */
    for (size_t i = 0; i < n; i++) {
      if (indegree[i] != 0) {
        char label[400];
        ir_layer_label(&m->layers[i], label, sizeof label);
        rc = tool_fail(err, CLI_EXIT_DATA,
                       "'%s' line %lu: the edges form a cycle: %s depends on its own output "
                       "(or on a layer that does)",
                       m->path, m->layers[i].line, label);
        break;
      }
    }
  }
  free(indegree);
  free(first);
  free(targets);
  return rc;
}

int ir_graph_check(ir_model *m, tool_error *err) {
  m->by_id = malloc((m->num_layers + 1) * sizeof *m->by_id);
  id_index *keys = malloc((m->num_layers + 1) * sizeof *keys);
  if (m->by_id == NULL || keys == NULL) {
    free(keys);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < m->num_layers; i++) {
    keys[i].id = m->layers[i].id;
    keys[i].index = i;
  }
  qsort(keys, m->num_layers, sizeof *keys, by_id_cmp);
  for (size_t i = 0; i < m->num_layers; i++) {
    m->by_id[i] = keys[i].index;
  }
  free(keys);
  for (size_t i = 1; i < m->num_layers; i++) {
    const ir_layer *a = &m->layers[m->by_id[i - 1]], *b = &m->layers[m->by_id[i]];
    if (a->id == b->id) {
      const ir_layer *later = a->line > b->line ? a : b;
      const ir_layer *earlier = later == a ? b : a;
      return tool_fail(err, CLI_EXIT_DATA,
                       "'%s' line %lu: duplicate layer id %lld (\"%.200s\"; also \"%.200s\" on "
                       "line %lu)",
                       m->path, later->line, (long long)later->id, later->name, earlier->name,
                       earlier->line);
    }
  }
  for (size_t i = 0; i < m->num_layers; i++) {
    int rc = check_ports(m, &m->layers[i], err);
    if (rc != 0) {
      return rc;
    }
  }
  for (size_t k = 0; k < m->num_edges; k++) {
    int rc = resolve_edge(m, k, err);
    if (rc != 0) {
      return rc;
    }
  }
  for (size_t i = 0; i < m->num_layers; i++) {
    const ir_layer *l = &m->layers[i];
    for (size_t p = 0; p < l->num_ports; p++) {
      if (!l->ports[p].is_output && l->ports[p].edge == IR_NO_EDGE) {
        char label[400];
        ir_layer_label(l, label, sizeof label);
        return tool_fail(err, CLI_EXIT_DATA,
                         "'%s' line %lu: input port %lld of %s is not connected (no <edge> ends "
                         "there)",
                         m->path, l->ports[p].line, (long long)l->ports[p].id, label);
      }
    }
  }
  return topological_order(m, err);
}
