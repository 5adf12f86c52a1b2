/* The model's lookups, labels and release (what every user of a loaded model needs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_model.h"

void ir_layer_label(const ir_layer *l, char *buf, size_t size) {
  snprintf(buf, size, "layer %lld \"%.200s\" (%.64s)", (long long)l->id, l->name, l->type);
}

const ir_layer *ir_model_layer(const ir_model *m, int64_t id) {
  size_t lo = 0, hi = m->num_layers;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const ir_layer *l = &m->layers[m->by_id[mid]];
    if (l->id == id) {
      return l;
    }
    if (l->id < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return NULL;
}

const ir_port *ir_layer_port(const ir_layer *l, int64_t id) {
  for (size_t i = 0; i < l->num_ports; i++) {
    if (l->ports[i].id == id) {
      return &l->ports[i];
    }
  }
  return NULL;
}

const char *ir_layer_attr(const ir_layer *l, const char *key) {
  for (size_t i = 0; i < l->num_data; i++) {
    if (strcmp(l->data[i].key, key) == 0) {
      return l->data[i].value;
    }
  }
  return NULL;
}

static const ir_port *nth_port(const ir_layer *l, size_t n, int outputs) {
  for (size_t i = 0; i < l->num_ports; i++) {
    if (l->ports[i].is_output == outputs && n-- == 0) {
      return &l->ports[i];
    }
  }
  return NULL;
}

const ir_port *ir_layer_input(const ir_layer *l, size_t i) {
  return nth_port(l, i, 0);
}

const ir_port *ir_layer_output(const ir_layer *l, size_t i) {
  return nth_port(l, i, 1);
}

size_t ir_layer_count(const ir_layer *l, int outputs) {
  size_t n = 0;
  for (size_t i = 0; i < l->num_ports; i++) {
    n += l->ports[i].is_output == outputs;
  }
  return n;
}

void ir_model_free(ir_model *m) {
  for (size_t i = 0; i < m->num_layers; i++) {
    ir_layer *l = &m->layers[i];
    free(l->name);
    free(l->type);
    free(l->version);
    for (size_t k = 0; k < l->num_data; k++) {
      free(l->data[k].key);
      free(l->data[k].value);
    }
    free(l->data);
    for (size_t k = 0; k < l->num_ports; k++) {
      free(l->ports[k].precision);
      free(l->ports[k].names);
      free(l->ports[k].dims);
    }
    free(l->ports);
  }
  free(m->layers);
  free(m->edges);
  free(m->by_id);
  free(m->order);
  free(m->path);
  memset(m, 0, sizeof *m);
}
