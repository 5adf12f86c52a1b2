/*
 * An OpenVINO IR model (versions 10 and 11) as read from its .xml file: the layers of the top-level
 * graph with their <data> attributes and ports, and the edges between them, validated as a graph
 * (unique ids, edges between existing ports, one producer per input port, no cycles).
 *
 * The XML is parsed with expat (tools/openvino/ir_xml.c); the graph checks are in ir_graph.c, the
 * lookups and the release in ir_model.c. Failures are tool_errors (tools/common/error.h).
 * Every size read from the file is bounded by the limits below. Sub-graph bodies (TensorIterator,
 * Loop, If) and rt_info are skipped: only the top-level layers are read.
 */
#ifndef CLEAVE_IR_MODEL_H
#define CLEAVE_IR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "error.h"

/** Largest .xml file read, in bytes. */
#define IR_MAX_XML_BYTES ((uint64_t)512 << 20)
/** Most layers in the top-level graph. */
#define IR_MAX_LAYERS 1000000u
/** Most edges. */
#define IR_MAX_EDGES 4000000u
/** Most ports of one layer. */
#define IR_MAX_PORTS 100000u
/** Most <data> attributes of one layer. */
#define IR_MAX_DATA_ATTRS 1024u
/** Largest rank of a port or shape. */
#define IR_MAX_RANK 64
/** Deepest element nesting. */
#define IR_MAX_DEPTH 256u

/** One <port> of a layer. */
typedef struct ir_port {
  int64_t id;
  int is_output;
  char *precision;  /* the attribute as written, or NULL */
  char *names;      /* tensor names, or NULL */
  size_t rank;      /* the number of <dim> children (never CLEAVE_RANK_DYNAMIC) */
  cleave_dim *dims; /* rank entries (NULL when 0): -1 is [0, unbounded] */
  unsigned long line;
  /* Filled by the graph checks for input ports: the producing edge's index. */
  size_t edge;
} ir_port;

/** One attribute of <data>. */
typedef struct ir_attr {
  char *key;
  char *value;
} ir_attr;

/** One <layer>. */
typedef struct ir_layer {
  int64_t id;
  char *name;
  char *type;
  char *version; /* NULL when absent */
  unsigned long line;
  ir_attr *data;
  size_t num_data;
  int has_data;
  ir_port *ports; /* inputs and outputs in document order */
  size_t num_ports;
} ir_layer;

/** One <edge>, with the layer and port indices the graph checks resolve. */
typedef struct ir_edge {
  int64_t from_layer, from_port, to_layer, to_port;
  unsigned long line;
  size_t from_index, from_port_index, to_index, to_port_index;
} ir_edge;

/** A model. */
typedef struct ir_model {
  char *path; /* the .xml path, for messages */
  int version;
  ir_layer *layers; /* in document order */
  size_t num_layers;
  ir_edge *edges;
  size_t num_edges;
  size_t *by_id; /* layer indices sorted by id */
  size_t *order; /* layer indices in a topological order (producers first) */
} ir_model;

/** The no-edge marker of ir_port.edge. */
#define IR_NO_EDGE ((size_t)-1)

/**
 * Reads and validates the model at `path`. Returns 0, or fills `err` and returns
 * CLI_EXIT_NOINPUT (the file cannot be opened or read as a regular file) or CLI_EXIT_DATA (not
 * valid IR: the message names the file, the line, and the layer when there is one). On failure
 * the model is released. Release a loaded model with ir_model_free.
 */
int ir_model_load(const char *path, ir_model *model, tool_error *err);

/** Parses IR from memory (`path` names it in messages); as ir_model_load otherwise. */
int ir_model_parse(const char *text, size_t size, const char *path, ir_model *model,
                   tool_error *err);

/** Releases a model. Safe on a zeroed or already released model. */
void ir_model_free(ir_model *model);

/** Validates the parsed graph and builds the indices the lookups use (ir_graph.c). Used by
 * ir_model_parse. */
int ir_graph_check(ir_model *model, tool_error *err);

/** The layer with `id`, or NULL. */
const ir_layer *ir_model_layer(const ir_model *model, int64_t id);

/** The port with `id` of `layer`, or NULL. */
const ir_port *ir_layer_port(const ir_layer *layer, int64_t id);

/** The value of <data> attribute `key`, or NULL. */
const char *ir_layer_attr(const ir_layer *layer, const char *key);

/** The i-th input port (document order) of `layer`, or NULL. */
const ir_port *ir_layer_input(const ir_layer *layer, size_t i);

/** The number of input (or output) ports of `layer`. */
size_t ir_layer_count(const ir_layer *layer, int outputs);

/** The i-th output port of `layer`, or NULL. */
const ir_port *ir_layer_output(const ir_layer *layer, size_t i);

/** The edge feeding input port `port` (which must be an input port of a loaded model). */
static inline const ir_edge *ir_port_edge(const ir_model *model, const ir_port *port) {
  return port->edge == IR_NO_EDGE ? NULL : &model->edges[port->edge];
}

/** Writes `layer N "NAME" (TYPE)` to buf, for messages. */
void ir_layer_label(const ir_layer *layer, char *buf, size_t size);

#endif /* CLEAVE_IR_MODEL_H */
