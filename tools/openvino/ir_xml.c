/*
 * Reading an IR .xml file into an ir_model with expat (Debian's libexpat1-dev): a well-kept,
 * non-validating streaming parser that never fetches external entities. A hand-written XML
 * parser would have to get entities, character references, CDATA, encodings and comments right;
 * expat does. Any DOCTYPE is refused before its internal subset is read, so entity declarations
 * (billion-laughs bombs, external entities) never reach the reader.
 */
#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "ir_model.h"
#include "ir_types.h"

/* What an open element is. */
typedef enum elem_kind {
  K_NET,
  K_LAYERS,
  K_LAYER,
  K_DATA,
  K_PORTS_IN,
  K_PORTS_OUT,
  K_PORT,
  K_DIM,
  K_EDGES,
  K_EDGE,
  K_SKIP /* anything the reader does not use (rt_info, bodies, meta data) */
} elem_kind;

typedef struct parse_state {
  XML_Parser parser;
  ir_model *m;
  tool_error *err;
  int failed;
  unsigned depth;
  elem_kind stack[IR_MAX_DEPTH];
  int seen_layers, seen_edges;
  size_t layers_cap, edges_cap, ports_cap, data_cap, dims_cap;
  /* The <dim> being read. */
  char dim_text[72];
  size_t dim_len;
  int dim_too_long;
} parse_state;

static unsigned long line_of(const parse_state *s) {
  return (unsigned long)XML_GetCurrentLineNumber(s->parser);
}

/* Records the first failure and stops the parser. */
__attribute__((format(printf, 2, 3))) static void fail(parse_state *s, const char *format, ...) {
  if (s->failed) {
    return;
  }
  char text[900];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  tool_fail(s->err, CLI_EXIT_DATA, "'%s' line %lu: %s", s->m->path, line_of(s), text);
  s->failed = 1;
  XML_StopParser(s->parser, XML_FALSE);
}

static ir_layer *current_layer(parse_state *s) {
  return &s->m->layers[s->m->num_layers - 1];
}

/* "layer 5 "name" (Type)" of the layer being read. */
static const char *layer_text(parse_state *s, char *buf, size_t size) {
  ir_layer_label(current_layer(s), buf, size);
  return buf;
}

static const char *find_attr(const XML_Char **atts, const char *key) {
  for (size_t i = 0; atts[i] != NULL; i += 2) {
    if (strcmp(atts[i], key) == 0) {
      return atts[i + 1];
    }
  }
  return NULL;
}

static char *dup_or_fail(parse_state *s, const char *text) {
  char *copy = strdup(text);
  if (copy == NULL) {
    fail(s, "out of memory");
    if (s->err->status == CLI_EXIT_DATA) {
      s->err->status = CLI_EXIT_SOFTWARE;
    }
  }
  return copy;
}

/* Grows *array (of `elem` bytes per entry) to hold one more than `count`. */
static int grow(parse_state *s, void **array, size_t *cap, size_t count, size_t elem) {
  if (count < *cap) {
    return 0;
  }
  size_t next = *cap == 0 ? 16 : *cap * 2;
  void *p = realloc(*array, next * elem);
  if (p == NULL) {
    fail(s, "out of memory");
    s->err->status = CLI_EXIT_SOFTWARE;
    return -1;
  }
  *array = p;
  *cap = next;
  return 0;
}

static void start_net(parse_state *s, const char *name, const XML_Char **atts) {
  if (strcmp(name, "net") != 0) {
    fail(s, "the root element is <%.64s>, not <net>", name);
    return;
  }
  const char *version = find_attr(atts, "version");
  int64_t v = 0;
  if (version == NULL) {
    fail(s, "<net> has no version attribute (IR versions 10 and 11 are read)");
  } else if (ir_parse_index(version, &v) != 0 || (v != 10 && v != 11)) {
    fail(s, "IR version '%.32s' is not supported (versions 10 and 11 are)", version);
  } else {
    s->m->version = (int)v;
  }
}

static void start_layer(parse_state *s, const XML_Char **atts) {
  ir_model *m = s->m;
  if (m->num_layers >= IR_MAX_LAYERS) {
    fail(s, "more than %u layers", IR_MAX_LAYERS);
    return;
  }
  if (grow(s, (void **)&m->layers, &s->layers_cap, m->num_layers, sizeof *m->layers) != 0) {
    return;
  }
  ir_layer *l = &m->layers[m->num_layers++];
  memset(l, 0, sizeof *l);
  l->line = line_of(s);
  s->ports_cap = 0;
  s->data_cap = 0;
  const char *id = find_attr(atts, "id");
  const char *name = find_attr(atts, "name");
  const char *type = find_attr(atts, "type");
  const char *version = find_attr(atts, "version");
  l->name = dup_or_fail(s, name != NULL ? name : "");
  l->type = dup_or_fail(s, type != NULL ? type : "");
  if (version != NULL) {
    l->version = dup_or_fail(s, version);
  }
  if (s->failed) {
    return;
  }
  if (id == NULL) {
    fail(s, "a <layer> has no id attribute");
  } else if (ir_parse_index(id, &l->id) != 0) {
    fail(s, "layer id '%.64s' is not a non-negative integer", id);
  } else if (name == NULL) {
    fail(s, "layer %lld has no name attribute", (long long)l->id);
  } else if (type == NULL || type[0] == '\0') {
    fail(s, "layer %lld \"%.200s\" has no type attribute", (long long)l->id, name);
  }
}

static void start_data(parse_state *s, const XML_Char **atts) {
  ir_layer *l = current_layer(s);
  char label[400];
  if (l->has_data) {
    fail(s, "%s has more than one <data>", layer_text(s, label, sizeof label));
    return;
  }
  l->has_data = 1;
  for (size_t i = 0; atts[i] != NULL && !s->failed; i += 2) {
    if (l->num_data >= IR_MAX_DATA_ATTRS) {
      fail(s, "%s has more than %u <data> attributes", layer_text(s, label, sizeof label),
           IR_MAX_DATA_ATTRS);
      return;
    }
    if (grow(s, (void **)&l->data, &s->data_cap, l->num_data, sizeof *l->data) != 0) {
      return;
    }
    ir_attr *a = &l->data[l->num_data];
    a->key = dup_or_fail(s, atts[i]);
    a->value = dup_or_fail(s, atts[i + 1]);
    l->num_data++;
  }
}

static void start_port(parse_state *s, const XML_Char **atts, int is_output) {
  ir_layer *l = current_layer(s);
  char label[400];
  if (l->num_ports >= IR_MAX_PORTS) {
    fail(s, "%s has more than %u ports", layer_text(s, label, sizeof label), IR_MAX_PORTS);
    return;
  }
  if (grow(s, (void **)&l->ports, &s->ports_cap, l->num_ports, sizeof *l->ports) != 0) {
    return;
  }
  ir_port *p = &l->ports[l->num_ports++];
  memset(p, 0, sizeof *p);
  p->is_output = is_output;
  p->line = line_of(s);
  p->edge = IR_NO_EDGE;
  s->dims_cap = 0;
  const char *id = find_attr(atts, "id");
  const char *precision = find_attr(atts, "precision");
  const char *names = find_attr(atts, "names");
  if (id == NULL) {
    fail(s, "%s has a port without an id", layer_text(s, label, sizeof label));
    return;
  }
  if (ir_parse_index(id, &p->id) != 0) {
    fail(s, "%s: port id '%.64s' is not a non-negative integer", layer_text(s, label, sizeof label),
         id);
    return;
  }
  if (precision != NULL) {
    cleave_type t;
    if (ir_type_from_name(precision, &t) == IR_TYPE_UNKNOWN_NAME) {
      fail(s, "%s: port %lld has an unknown precision '%.64s'", layer_text(s, label, sizeof label),
           (long long)p->id, precision);
      return;
    }
    p->precision = dup_or_fail(s, precision);
  }
  if (names != NULL) {
    p->names = dup_or_fail(s, names);
  }
}

static void start_edge(parse_state *s, const XML_Char **atts) {
  ir_model *m = s->m;
  if (m->num_edges >= IR_MAX_EDGES) {
    fail(s, "more than %u edges", IR_MAX_EDGES);
    return;
  }
  if (grow(s, (void **)&m->edges, &s->edges_cap, m->num_edges, sizeof *m->edges) != 0) {
    return;
  }
  ir_edge *e = &m->edges[m->num_edges++];
  memset(e, 0, sizeof *e);
  e->line = line_of(s);
  static const char *const keys[] = {"from-layer", "from-port", "to-layer", "to-port"};
  int64_t *fields[] = {&e->from_layer, &e->from_port, &e->to_layer, &e->to_port};
  for (size_t i = 0; i < 4; i++) {
    const char *v = find_attr(atts, keys[i]);
    if (v == NULL) {
      fail(s, "an <edge> has no %s attribute", keys[i]);
      return;
    }
    if (ir_parse_index(v, fields[i]) != 0) {
      fail(s, "<edge> %s '%.64s' is not a non-negative integer", keys[i], v);
      return;
    }
  }
}

/* The kind of a child `name` of an element of kind `parent`; K_SKIP for ignored elements. */
static int child_kind(parse_state *s, elem_kind parent, const char *name, elem_kind *kind) {
  char label[400];
  switch (parent) {
  case K_NET:
    if (strcmp(name, "layers") == 0) {
      if (s->seen_layers++) {
        fail(s, "<net> has more than one <layers>");
        return -1;
      }
      *kind = K_LAYERS;
    } else if (strcmp(name, "edges") == 0) {
      if (s->seen_edges++) {
        fail(s, "<net> has more than one <edges>");
        return -1;
      }
      *kind = K_EDGES;
    } else {
      *kind = K_SKIP;
    }
    return 0;
  case K_LAYERS:
    if (strcmp(name, "layer") != 0) {
      fail(s, "<%.64s> inside <layers> (only <layer> is allowed)", name);
      return -1;
    }
    *kind = K_LAYER;
    return 0;
  case K_LAYER:
    *kind = strcmp(name, "data") == 0     ? K_DATA
            : strcmp(name, "input") == 0  ? K_PORTS_IN
            : strcmp(name, "output") == 0 ? K_PORTS_OUT
                                          : K_SKIP;
    return 0;
  case K_PORTS_IN:
  case K_PORTS_OUT:
    if (strcmp(name, "port") != 0) {
      fail(s, "%s: <%.64s> inside <%s> (only <port> is allowed)",
           layer_text(s, label, sizeof label), name, parent == K_PORTS_IN ? "input" : "output");
      return -1;
    }
    *kind = K_PORT;
    return 0;
  case K_PORT:
    *kind = strcmp(name, "dim") == 0 ? K_DIM : K_SKIP;
    return 0;
  case K_DIM:
    fail(s, "%s: <%.64s> inside <dim>", layer_text(s, label, sizeof label), name);
    return -1;
  case K_EDGES:
    if (strcmp(name, "edge") != 0) {
      fail(s, "<%.64s> inside <edges> (only <edge> is allowed)", name);
      return -1;
    }
    *kind = K_EDGE;
    return 0;
  case K_DATA:
  case K_EDGE:
  case K_SKIP:
  default:
    *kind = K_SKIP;
    return 0;
  }
}

static void XMLCALL on_start(void *data, const XML_Char *name, const XML_Char **atts) {
  parse_state *s = data;
  if (s->failed) {
    return;
  }
  if (s->depth >= IR_MAX_DEPTH) {
    fail(s, "elements are nested deeper than %u levels", IR_MAX_DEPTH);
    return;
  }
  elem_kind kind = K_NET;
  if (s->depth == 0) {
    start_net(s, name, atts);
  } else if (child_kind(s, s->stack[s->depth - 1], name, &kind) != 0) {
    return;
  }
  s->stack[s->depth++] = kind;
  switch (kind) {
  case K_LAYER:
    start_layer(s, atts);
    break;
  case K_DATA:
    start_data(s, atts);
    break;
  case K_PORT:
    start_port(s, atts, s->stack[s->depth - 2] == K_PORTS_OUT);
    break;
  case K_DIM:
    s->dim_len = 0;
    s->dim_too_long = 0;
    break;
  case K_EDGE:
    start_edge(s, atts);
    break;
  default:
    break;
  }
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void end_dim(parse_state *s) {
  ir_layer *l = current_layer(s);
  ir_port *p = &l->ports[l->num_ports - 1];
  char label[400];
  if (p->rank >= IR_MAX_RANK) {
    fail(s, "%s: port %lld has more than %d dimensions", layer_text(s, label, sizeof label),
         (long long)p->id, IR_MAX_RANK);
    return;
  }
  size_t b = 0, e = s->dim_len;
  while (b < e && is_space(s->dim_text[b])) {
    b++;
  }
  while (e > b && is_space(s->dim_text[e - 1])) {
    e--;
  }
  char why[200];
  cleave_dim d;
  if (s->dim_too_long) {
    fail(s, "%s: port %lld: a <dim> is longer than 64 characters",
         layer_text(s, label, sizeof label), (long long)p->id);
    return;
  }
  if (b == e) {
    fail(s, "%s: port %lld: an empty <dim>", layer_text(s, label, sizeof label), (long long)p->id);
    return;
  }
  if (ir_dim_parse(s->dim_text + b, e - b, &d, why, sizeof why) != 0) {
    fail(s, "%s: port %lld: %s", layer_text(s, label, sizeof label), (long long)p->id, why);
    return;
  }
  if (grow(s, (void **)&p->dims, &s->dims_cap, p->rank, sizeof *p->dims) != 0) {
    return;
  }
  p->dims[p->rank++] = d;
}

static void XMLCALL on_end(void *data, const XML_Char *name) {
  parse_state *s = data;
  (void)name;
  if (s->failed || s->depth == 0) {
    return;
  }
  elem_kind kind = s->stack[--s->depth];
  if (kind == K_DIM) {
    end_dim(s);
  }
}

static void XMLCALL on_text(void *data, const XML_Char *text, int len) {
  parse_state *s = data;
  if (s->failed || s->depth == 0 || s->stack[s->depth - 1] != K_DIM || len <= 0) {
    return;
  }
  if (s->dim_len + (size_t)len > 64) {
    s->dim_too_long = 1;
    return;
  }
  memcpy(s->dim_text + s->dim_len, text, (size_t)len);
  s->dim_len += (size_t)len;
}

static void XMLCALL on_doctype(void *data, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset) {
  parse_state *s = data;
  (void)name;
  (void)sysid;
  (void)pubid;
  (void)has_internal_subset;
  fail(s, "a DOCTYPE declaration is not allowed in IR (entities are refused)");
}

static void XMLCALL on_entity(void *data, const XML_Char *name, int is_parameter,
                              const XML_Char *value, int value_length, const XML_Char *base,
                              const XML_Char *system_id, const XML_Char *public_id,
                              const XML_Char *notation) {
  parse_state *s = data;
  (void)name;
  (void)is_parameter;
  (void)value;
  (void)value_length;
  (void)base;
  (void)system_id;
  (void)public_id;
  (void)notation;
  fail(s, "an entity declaration is not allowed in IR");
}

int ir_model_parse(const char *text, size_t size, const char *path, ir_model *m, tool_error *err) {
  memset(m, 0, sizeof *m);
  err->status = 0;
  err->message[0] = '\0';
  m->path = strdup(path);
  if (m->path == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (size > IR_MAX_XML_BYTES) {
    ir_model_free(m);
    return tool_fail(err, CLI_EXIT_DATA, "'%s' is larger than %llu MiB, the limit for an IR .xml",
                     path, (unsigned long long)(IR_MAX_XML_BYTES >> 20));
  }
  parse_state s;
  memset(&s, 0, sizeof s);
  s.m = m;
  s.err = err;
  /* "UTF-8" as the default: a declaration of another encoding is still honoured by expat. */
  s.parser = XML_ParserCreate(NULL);
  if (s.parser == NULL) {
    ir_model_free(m);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory creating the XML parser");
  }
  XML_SetUserData(s.parser, &s);
  XML_SetElementHandler(s.parser, on_start, on_end);
  XML_SetCharacterDataHandler(s.parser, on_text);
  XML_SetStartDoctypeDeclHandler(s.parser, on_doctype);
  XML_SetEntityDeclHandler(s.parser, on_entity);
  XML_SetParamEntityParsing(s.parser, XML_PARAM_ENTITY_PARSING_NEVER);
  /* Feed in pieces: XML_Parse takes an int length. */
  size_t done = 0;
  enum XML_Status st = XML_STATUS_OK;
  do {
    size_t piece = size - done > (1u << 24) ? (1u << 24) : size - done;
    int final = done + piece == size;
    st = XML_Parse(s.parser, text + done, (int)piece, final);
    done += piece;
  } while (st == XML_STATUS_OK && done < size);
  if (st != XML_STATUS_OK && !s.failed) {
    enum XML_Error code = XML_GetErrorCode(s.parser);
    tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu column %lu: not well-formed XML: %s", path,
              (unsigned long)XML_GetCurrentLineNumber(s.parser),
              (unsigned long)XML_GetCurrentColumnNumber(s.parser) + 1, XML_ErrorString(code));
    s.failed = 1;
  }
  XML_ParserFree(s.parser);
  if (!s.failed && !s.seen_layers) {
    tool_fail(err, CLI_EXIT_DATA, "'%s': <net> has no <layers>", path);
    s.failed = 1;
  }
  if (!s.failed && !s.seen_edges) {
    /* A single-layer net needs no edges, but OpenVINO always writes the element. */
    tool_fail(err, CLI_EXIT_DATA, "'%s': <net> has no <edges>", path);
    s.failed = 1;
  }
  if (!s.failed && ir_graph_check(m, err) != 0) {
    s.failed = 1;
  }
  if (s.failed) {
    ir_model_free(m);
    return err->status;
  }
  return 0;
}

int ir_model_load(const char *path, ir_model *m, tool_error *err) {
  memset(m, 0, sizeof *m);
  int fd = -1;
  uint64_t size = 0;
  int rc = io_open_regular(path, NULL, &fd, &size, err);
  if (rc != 0) {
    return rc;
  }
  if (size > IR_MAX_XML_BYTES) {
    close(fd);
    return tool_fail(err, CLI_EXIT_DATA, "'%s' is larger than %llu MiB, the limit for an IR .xml",
                     path, (unsigned long long)(IR_MAX_XML_BYTES >> 20));
  }
  char *text = malloc(size > 0 ? (size_t)size : 1);
  if (text == NULL) {
    close(fd);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading '%s'", path);
  }
  /* The size came from the file: a shorter read means it shrank meanwhile. */
  rc = io_read_full(fd, path, text, (size_t)size, 0, CLI_EXIT_IOERR, err);
  close(fd);
  if (rc == 0) {
    rc = ir_model_parse(text, (size_t)size, path, m, err);
  }
  free(text);
  return rc;
}
