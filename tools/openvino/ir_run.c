/* ir-run's graph interpreter: Parameters, Consts, splits and concats in memory, the Results
 * collected. */
#include "ir_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_parameter.h"
#include "ir_strings.h"
#include "ir_types.h"
#include "shape_format.h"

/* Adds `p` to the buffers the run frees; frees it at once when that fails. */
static int keep(ir_run *s, void *p, tool_error *err) {
  if (s->num_owned == s->cap_owned) {
    size_t cap = s->cap_owned == 0 ? 64 : s->cap_owned * 2;
    void **next = realloc(s->owned, cap * sizeof *next);
    if (next == NULL) {
      free(p);
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
    s->owned = next;
    s->cap_owned = cap;
  }
  s->owned[s->num_owned++] = p;
  return 0;
}

static const char *const runnable[] = {"Parameter",     "Const",  "Split",
                                       "VariadicSplit", "Concat", "Result"};

int ir_run_check_layers(const ir_model *m, tool_error *err) {
  for (size_t i = 0; i < m->num_layers; i++) {
    const ir_layer *l = &m->layers[i];
    int ok = 0;
    for (size_t k = 0; k < sizeof runnable / sizeof runnable[0]; k++) {
      ok |= strcmp(l->type, runnable[k]) == 0;
    }
    if (!ok) {
      char label[400];
      ir_layer_label(l, label, sizeof label);
      return tool_fail(err, CLI_EXIT_DATA,
                       "'%s' line %lu: %s cannot be run: ir-run runs Parameter, Const, Split, "
                       "VariadicSplit, Concat and Result layers only",
                       m->path, l->line, label);
    }
  }
  return 0;
}

static ir_tensor *port_tensor(ir_run *s, size_t li, const ir_port *port) {
  return &s->tensors[li][port - s->model->layers[li].ports];
}

static ir_tensor *input_tensor(ir_run *s, const ir_layer *l, size_t k) {
  const ir_edge *e = ir_port_edge(s->model, ir_layer_input(l, k));
  ir_tensor *t = &s->tensors[e->from_index][e->from_port_index];
  return t->set ? t : NULL;
}

static int run_parameter(ir_run *s, size_t li, ir_input *inputs, size_t num_inputs,
                         tool_error *err) {
  const ir_layer *l = &s->model->layers[li];
  ir_input *in = NULL;
  for (size_t i = 0; i < num_inputs; i++) {
    if (strcmp(inputs[i].name, l->name) == 0) {
      in = &inputs[i];
    }
  }
  if (in == NULL) {
    return tool_fail(err, CLI_EXIT_USAGE, "Parameter \"%s\" needs an input (--input %s=FILE.npy)",
                     l->name, l->name);
  }
  in->used = 1;
  const ir_port *out = ir_layer_output(l, 0);
  ir_tensor scratch;
  memset(&scratch, 0, sizeof scratch);
  void *owned[2] = {NULL, NULL};
  int rc = ir_parameter_read(s->model, l, in, out != NULL ? port_tensor(s, li, out) : &scratch,
                             owned, err);
  for (size_t k = 0; k < 2; k++) {
    int kept = owned[k] != NULL ? keep(s, owned[k], err) : 0;
    rc = rc != 0 ? rc : kept;
  }
  return rc;
}

static int run_const(ir_run *s, size_t li, tool_error *err) {
  const ir_layer *l = &s->model->layers[li];
  ir_const c;
  void *data = NULL;
  int rc = ir_const_info(s->model, l, s->bin, &c, err);
  if (rc == 0) {
    rc = ir_const_read(s->bin, &c, &data, err);
  }
  if (rc == 0) {
    rc = keep(s, data, err);
  }
  if (rc != 0) {
    return rc;
  }
  ir_tensor *t = port_tensor(s, li, ir_layer_output(l, 0));
  t->set = 1;
  t->type = c.type;
  t->rank = c.rank;
  memcpy(t->shape, c.shape, c.rank * sizeof *c.shape);
  t->data = data;
  t->bytes = (int64_t)c.size;
  /* u3 and u6 are readable, but the library splits neither and .npy has no form for them: a
   * Result may still pass them through. */
  if (npy_descr_for(c.type, t->descr, sizeof t->descr) != 0) {
    t->descr[0] = '\0';
  }
  if (c.type.dtype == CLEAVE_STRING) {
    cleave_string *handles = calloc((size_t)c.elements + 1, sizeof *handles);
    if (handles == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
    if ((rc = keep(s, handles, err)) != 0) {
      return rc;
    }
    char label[400];
    ir_layer_label(l, label, sizeof label);
    rc = ir_strings_unpack(data, c.size, c.elements, handles, label, s->bin->path, err);
    if (rc != 0) {
      return rc;
    }
    t->data = handles;
    t->bytes = c.elements * (int64_t)sizeof *handles;
  }
  return 0;
}

static cleave_values values_of(const ir_tensor *t) {
  cleave_values v;
  v.dtype = t->type.dtype;
  v.rank = t->rank > 2 ? 2 : t->rank;
  /* The elements of a tensor held in memory: the product fits, except that a partial product
   * may wrap (unsigned, modulo 2^64) when another dim is 0, which makes the result 0 as it
   * should be. */
  size_t count = 1;
  for (size_t i = 0; i < t->rank; i++) {
    count *= (size_t)t->shape[i]; /* a dim: >= 0 */
  }
  v.count = count;
  v.data = t->data;
  return v;
}

/* The split's operator from its inputs (and num_splits). */
static int split_op(ir_run *s, const ir_layer *l, const char *label, cleave_op *op,
                    const ir_tensor **data, tool_error *err) {
  const ir_model *m = s->model;
  int variadic = strcmp(l->type, "VariadicSplit") == 0;
  size_t want = variadic ? 3 : 2;
  if (ir_layer_count(l, 0) != want) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: %s-1 takes %zu inputs, not %zu",
                     m->path, l->line, label, l->type, want, ir_layer_count(l, 0));
  }
  *data = input_tensor(s, l, 0);
  const ir_tensor *axis = input_tensor(s, l, 1);
  const ir_tensor *lengths = variadic ? input_tensor(s, l, 2) : NULL;
  if (*data == NULL || axis == NULL || (variadic && lengths == NULL)) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "internal error: an input of %s was not computed",
                     label);
  }
  static const int64_t zero = 0;
  *op = cleave_op_split(&zero, 0);
  if (variadic) {
    *op = cleave_op_variadic_split(&zero, NULL, 0);
    op->lengths = values_of(lengths);
  } else {
    const char *text = ir_layer_attr(l, "num_splits");
    if (text == NULL || ir_parse_int64(text, &op->num_splits) != 0) {
      return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: %s", m->path, l->line, label,
                       text == NULL ? "<data> has no num_splits attribute"
                                    : "num_splits is not an integer");
    }
  }
  op->axis = values_of(axis);
  return 0;
}

/* A computed tensor against its output port's declared dims (CLI_EXIT_DATA when they differ). */
static int check_port(const ir_run *s, const ir_port *port, const ir_tensor *t, const char *label,
                      const char *what, tool_error *err) {
  if (ir_dims_fit(port->dims, port->rank, t->shape, t->rank)) {
    return 0;
  }
  char have[SHAPE_TEXT_MAX], declared[1600];
  shape_format(t->shape, t->rank, have, sizeof have);
  cleave_dim pd[IR_MAX_RANK];
  memcpy(pd, port->dims, port->rank * sizeof *pd);
  cleave_partial_shape ps = {port->rank, pd};
  if (cleave_partial_shape_format(&ps, declared, sizeof declared, NULL, NULL) != CLEAVE_OK) {
    snprintf(declared, sizeof declared, "?");
  }
  return tool_fail(err, CLI_EXIT_DATA,
                   "'%s' line %lu: %s: output port %" PRId64 " declares %s but the %s gives %s",
                   s->model->path, port->line, label, port->id, declared, what, have);
}

/* Output i of a planned split: its tensor, checked against the port's declaration, and its
 * buffer. */
static int split_output(ir_run *s, size_t li, const ir_tensor *data, const cleave_plan *plan,
                        size_t i, const char *label, void **buf, tool_error *err) {
  const ir_layer *l = &s->model->layers[li];
  const ir_port *port = ir_layer_output(l, i);
  ir_tensor *t = port_tensor(s, li, port);
  t->set = 1;
  t->type = data->type;
  t->rank = cleave_plan_info(plan)->output_rank;
  cleave_plan_output_shape(plan, i, t->shape, NULL);
  t->bytes = cleave_plan_output_bytes(plan, i);
  memcpy(t->descr, data->descr, sizeof t->descr);
  int rc = check_port(s, port, t, label, "split", err);
  if (rc != 0) {
    return rc;
  }
  *buf = malloc(t->bytes > 0 ? (size_t)t->bytes : 1);
  if (*buf == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  rc = keep(s, *buf, err);
  if (rc != 0) {
    *buf = NULL; /* keep freed it */
    return rc;
  }
  t->data = *buf;
  return 0;
}

static int run_split(ir_run *s, size_t li, tool_error *err) {
  const ir_model *m = s->model;
  const ir_layer *l = &m->layers[li];
  char label[400];
  ir_layer_label(l, label, sizeof label);
  cleave_op op;
  const ir_tensor *data = NULL;
  int rc = split_op(s, l, label, &op, &data, err);
  if (rc != 0) {
    return rc;
  }
  cleave_error lib;
  /* The output count first, so that a hostile count is refused before the plan allocates. */
  cleave_split_info counted;
  if (cleave_infer(&op, data->type, data->shape, data->rank, &counted, NULL, 0, &lib) ==
          CLEAVE_OK &&
      counted.num_outputs != ir_layer_count(l, 1)) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' line %lu: %s declares %zu %s but the split gives %zu", m->path, l->line,
                     label, ir_layer_count(l, 1),
                     tool_plural(ir_layer_count(l, 1), "output", "outputs"), counted.num_outputs);
  }
  cleave_plan *plan = NULL;
  if (cleave_plan_create(&op, data->type, data->shape, data->rank, &plan, &lib) != CLEAVE_OK) {
    return tool_fail(err, cli_exit_for_status(lib.status), "'%s' line %lu: %s: %s", m->path,
                     l->line, label, lib.message);
  }
  size_t n = cleave_plan_info(plan)->num_outputs;
  if (ir_layer_count(l, 1) != n) {
    rc = tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s declares %zu %s but the split gives %zu",
                   m->path, l->line, label, ir_layer_count(l, 1),
                   tool_plural(ir_layer_count(l, 1), "output", "outputs"), n);
  }
  void **outs = calloc(n + 1, sizeof *outs);
  if (rc == 0 && outs == NULL) {
    rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < n && rc == 0; i++) {
    rc = split_output(s, li, data, plan, i, label, &outs[i], err);
  }
  if (rc == 0 && cleave_plan_run(plan, data->data, outs, &lib) != CLEAVE_OK) {
    rc = tool_fail(err, cli_exit_for_status(lib.status), "'%s' line %lu: %s: %s", m->path, l->line,
                   label, lib.message);
  }
  free(outs);
  cleave_plan_destroy(plan);
  return rc;
}

/* Concat-1: the inputs joined along the `axis` attribute into the one output. */
static int run_concat(ir_run *s, size_t li, tool_error *err) {
  const ir_model *m = s->model;
  const ir_layer *l = &m->layers[li];
  char label[400];
  ir_layer_label(l, label, sizeof label);
  const char *text = ir_layer_attr(l, "axis");
  int64_t axis = 0;
  if (text == NULL || ir_parse_int64(text, &axis) != 0) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: %s", m->path, l->line, label,
                     text == NULL ? "<data> has no axis attribute" : "axis is not an integer");
  }
  if (ir_layer_count(l, 1) != 1) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' line %lu: %s declares %zu outputs (Concat-1 has one)", m->path, l->line,
                     label, ir_layer_count(l, 1));
  }
  size_t n = ir_layer_count(l, 0);
  cleave_tensor *in = calloc(n + 1, sizeof *in);
  if (in == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = 0;
  for (size_t k = 0; k < n && rc == 0; k++) {
    const ir_tensor *t = input_tensor(s, l, k);
    if (t == NULL) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE, "internal error: an input of %s was not computed",
                     label);
      break;
    }
    in[k].data = t->data;
    in[k].type = t->type;
    in[k].rank = t->rank;
    in[k].shape = t->shape;
  }
  /* Every input has rank <= IR_MAX_RANK, so the output's fits. No input: the library's rule. */
  const ir_port *port = ir_layer_output(l, 0);
  ir_tensor *out = port_tensor(s, li, port);
  cleave_concat_op op = cleave_op_concat(&axis);
  cleave_concat_info info;
  cleave_error lib;
  if (rc == 0 &&
      cleave_concat_infer(&op, in, n, &info, out->shape, IR_MAX_RANK, &lib) != CLEAVE_OK) {
    rc = tool_fail(err, cli_exit_for_status(lib.status), "'%s' line %lu: %s: %s", m->path, l->line,
                   label, lib.message);
  }
  void *buf = NULL;
  if (rc == 0) {
    out->set = 1;
    out->type = in[0].type;
    out->rank = info.output_rank;
    out->bytes = info.output_bytes;
    memcpy(out->descr, input_tensor(s, l, 0)->descr, sizeof out->descr);
    rc = check_port(s, port, out, label, "concat", err);
  }
  if (rc == 0) {
    buf = malloc(out->bytes > 0 ? (size_t)out->bytes : 1);
    rc = buf == NULL ? tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : keep(s, buf, err);
  }
  if (rc == 0) {
    out->data = buf;
    if (cleave_concat_run(&op, in, n, buf, &lib) != CLEAVE_OK) {
      rc = tool_fail(err, cli_exit_for_status(lib.status), "'%s' line %lu: %s: %s", m->path,
                     l->line, label, lib.message);
    }
  }
  free(in);
  return rc;
}

/* Each Result's input, in document order, once the graph has run. */
static int collect_results(ir_run *s, tool_error *err) {
  const ir_model *m = s->model;
  size_t count = 0;
  for (size_t i = 0; i < m->num_layers; i++) {
    count += strcmp(m->layers[i].type, "Result") == 0;
  }
  s->results = calloc(count + 1, sizeof *s->results);
  if (s->results == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < m->num_layers; i++) {
    const ir_layer *l = &m->layers[i];
    if (strcmp(l->type, "Result") != 0) {
      continue;
    }
    char label[400];
    ir_layer_label(l, label, sizeof label);
    if (ir_layer_count(l, 0) != 1) {
      return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s has %zu inputs (a Result has one)",
                       m->path, l->line, label, ir_layer_count(l, 0));
    }
    const ir_tensor *t = input_tensor(s, l, 0);
    if (t == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE,
                       "internal error: the input of a Result was not computed");
    }
    if (t->descr[0] == '\0' && t->type.dtype != CLEAVE_STRING && !ir_type_is_packed(t->type)) {
      return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: a %s tensor has no .npy form",
                       m->path, l->line, label, ir_type_name(t->type));
    }
    s->results[s->num_results++] = t;
  }
  return 0;
}

int ir_run_graph(ir_run *s, const ir_model *m, const ir_bin *bin, ir_input *inputs,
                 size_t num_inputs, tool_error *err) {
  memset(s, 0, sizeof *s);
  s->model = m;
  s->bin = bin;
  s->tensors = calloc(m->num_layers + 1, sizeof *s->tensors);
  int rc = s->tensors == NULL ? tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : 0;
  for (size_t i = 0; i < m->num_layers && rc == 0; i++) {
    s->tensors[i] = calloc(m->layers[i].num_ports + 1, sizeof **s->tensors);
    if (s->tensors[i] == NULL) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  /* Every Parameter first, so that a missing or unknown input is reported before any split. */
  for (size_t i = 0; i < m->num_layers && rc == 0; i++) {
    if (strcmp(m->layers[i].type, "Parameter") == 0) {
      rc = run_parameter(s, i, inputs, num_inputs, err);
    }
  }
  for (size_t i = 0; i < num_inputs && rc == 0; i++) {
    if (!inputs[i].used) {
      rc = tool_fail(err, CLI_EXIT_USAGE, "the model has no Parameter named '%s'", inputs[i].name);
    }
  }
  for (size_t k = 0; k < m->num_layers && rc == 0; k++) {
    size_t li = m->order[k];
    const char *type = m->layers[li].type;
    if (strcmp(type, "Const") == 0) {
      rc = run_const(s, li, err);
    } else if (strcmp(type, "Split") == 0 || strcmp(type, "VariadicSplit") == 0) {
      rc = run_split(s, li, err);
    } else if (strcmp(type, "Concat") == 0) {
      rc = run_concat(s, li, err);
    }
  }
  return rc != 0 ? rc : collect_results(s, err);
}

void ir_run_free(ir_run *s) {
  for (size_t i = 0; s->tensors != NULL && i < s->model->num_layers; i++) {
    free(s->tensors[i]);
  }
  free(s->tensors);
  for (size_t i = 0; i < s->num_owned; i++) {
    free(s->owned[i]);
  }
  free(s->owned);
  free(s->results);
  memset(s, 0, sizeof *s);
}
