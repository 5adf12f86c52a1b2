/* Checking one Split or VariadicSplit layer against cleave's partial-shape inference. */
#include "ir_check.h"
#include "ir_check_concat.h"
#include "ir_check_shapes.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "ir_types.h"

const char *ir_verdict_name(ir_verdict verdict) {
  switch (verdict) {
  case IR_VERDICT_OK:
    return "OK";
  case IR_VERDICT_MISMATCH:
    return "MISMATCH";
  case IR_VERDICT_RULE_BROKEN:
    return "RULE BROKEN";
  case IR_VERDICT_NOT_CHECKABLE:
  default:
    return "NOT CHECKABLE";
  }
}

int ir_is_split_layer(const ir_layer *l) {
  return strcmp(l->type, "Split") == 0 || strcmp(l->type, "VariadicSplit") == 0 ||
         strcmp(l->type, "Concat") == 0;
}

void ir_check_row_free(ir_check_row *row) {
  free(row->data);
  free(row->type);
  free(row->axis);
  free(row->lengths);
  free(row->source);
  for (size_t i = 0; i < row->num_inputs; i++) {
    free(row->inputs[i]);
  }
  free(row->inputs);
  for (size_t i = 0; i < row->num_inferred; i++) {
    free(row->inferred[i]);
  }
  free(row->inferred);
  for (size_t i = 0; i < row->num_declared; i++) {
    free(row->declared[i]);
  }
  free(row->declared);
  free(row->reason);
  memset(row, 0, sizeof *row);
}

static int is_integer(cleave_dtype d) {
  return d >= CLEAVE_I8 && d <= CLEAVE_U64;
}

/* Value i of an integer array of `dtype`, as text. */
static void value_text(cleave_dtype dtype, const void *data, size_t i, char *buf, size_t size) {
  const unsigned char *p = data;
  switch (dtype) {
  case CLEAVE_I8: {
    int8_t v;
    memcpy(&v, p + i, 1);
    snprintf(buf, size, "%d", v);
    return;
  }
  case CLEAVE_I16: {
    int16_t v;
    memcpy(&v, p + 2 * i, 2);
    snprintf(buf, size, "%d", v);
    return;
  }
  case CLEAVE_I32: {
    int32_t v;
    memcpy(&v, p + 4 * i, 4);
    snprintf(buf, size, "%" PRId32, v);
    return;
  }
  case CLEAVE_I64: {
    int64_t v;
    memcpy(&v, p + 8 * i, 8);
    snprintf(buf, size, "%" PRId64, v);
    return;
  }
  case CLEAVE_U8:
    snprintf(buf, size, "%u", p[i]);
    return;
  case CLEAVE_U16: {
    uint16_t v;
    memcpy(&v, p + 2 * i, 2);
    snprintf(buf, size, "%u", v);
    return;
  }
  case CLEAVE_U32: {
    uint32_t v;
    memcpy(&v, p + 4 * i, 4);
    snprintf(buf, size, "%" PRIu32, v);
    return;
  }
  case CLEAVE_U64: {
    uint64_t v;
    memcpy(&v, p + 8 * i, 8);
    snprintf(buf, size, "%" PRIu64, v);
    return;
  }
  default:
    snprintf(buf, size, "?");
    return;
  }
}

/* "[a,b,...]" (rank >= 1) or "a" (a scalar); at most 64 values are shown. `v` is never absent
 * (read_values fills it). */
static char *values_text(const cleave_values *v, int unknown) {
  size_t shown = v->count < 64 ? v->count : 64;
  size_t cap = 64 + shown * 24;
  char *s = malloc(cap);
  if (s == NULL) {
    return NULL;
  }
  size_t len = 0;
  if (v->rank >= 1) {
    s[len++] = '[';
  }
  for (size_t i = 0; i < shown; i++) {
    char one[32] = "?";
    if (!unknown) {
      if (is_integer(v->dtype)) {
        value_text(v->dtype, v->data, i, one, sizeof one);
      }
    }
    len += (size_t)snprintf(s + len, cap - len, "%s%s", i > 0 ? "," : "", one);
  }
  if (v->count > shown) {
    len += (size_t)snprintf(s + len, cap - len, ",... (%zu values)", v->count);
  }
  if (v->rank >= 1) {
    s[len++] = ']';
  }
  s[len] = '\0';
  return s;
}

/* An axis or split_lengths input: its values when a Const gives them, else its type and count. */
typedef struct values_input {
  cleave_values values;
  void *owned;     /* the Const's bytes */
  int unknown;     /* the values are not in the file */
  char *not_known; /* why the check cannot run at all (malloc'd), or NULL */
} values_input;

static int read_values(const ir_model *m, const ir_bin *bin, const ir_port *input, const char *what,
                       values_input *out, tool_error *err) {
  memset(out, 0, sizeof *out);
  ir_source s = ir_producer(m, input);
  char label[400];
  ir_layer_label(s.layer, label, sizeof label);
  if (strcmp(s.layer->type, "Const") == 0) {
    ir_const c;
    int rc = ir_const_info(m, s.layer, bin, &c, err);
    if (rc != 0) {
      return rc; /* ir-check validated every Const up front: not reached */
    }
    /* A string or huge Const is not read (ranks >= 2 are read: the library states the rule). */
    if (c.type.dtype == CLEAVE_STRING || c.size > IR_MAX_VALUES_BYTES) {
      out->not_known =
          ir_text_printf("%s comes from %s, a %s Const of %" PRIu64 " %s", what, label,
                         ir_type_name(c.type), c.size, tool_plural(c.size, "byte", "bytes"));
      return out->not_known == NULL ? tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : 0;
    }
    rc = ir_const_read(bin, &c, &out->owned, err);
    if (rc != 0) {
      return rc;
    }
    out->values.dtype = c.type.dtype;
    out->values.rank = c.rank;
    out->values.count = (size_t)c.elements; /* in [0, IR_MAX_VALUES_BYTES * 8]: checked above */
    out->values.data = out->owned;
    return 0;
  }
  /* Computed by another layer: the port says the type and the count. */
  out->unknown = 1;
  cleave_type t = cleave_type_of(CLEAVE_I64);
  if (s.port->precision == NULL || ir_type_from_name(s.port->precision, &t) != IR_TYPE_KNOWN) {
    out->not_known =
        ir_text_printf("%s comes from port %" PRId64 " of %s, which declares no element type", what,
                       s.port->id, label);
    return out->not_known == NULL ? tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : 0;
  }
  /* The product of the static dims, saturated at INT64_MAX (the library refuses such a count). */
  size_t count = 1;
  for (size_t i = 0; i < s.port->rank; i++) {
    if (s.port->dims[i].lo != s.port->dims[i].hi) {
      out->not_known = ir_text_printf("%s comes from port %" PRId64 " of %s, whose shape is not "
                                      "static (the number of values is not known)",
                                      what, s.port->id, label);
      return out->not_known == NULL ? tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : 0;
    }
    size_t d = (size_t)s.port->dims[i].lo; /* a static dim: in [0, INT64_MAX] */
    count = d > 0 && count > (size_t)INT64_MAX / d ? (size_t)INT64_MAX : count * d;
  }
  out->values.dtype = t.dtype;
  out->values.rank = s.port->rank > 2 ? 2 : s.port->rank;
  out->values.count = count;
  out->values.data = NULL;
  return 0;
}

/* The data input's declared shape and type. */
static int data_input(const ir_model *m, const ir_layer *l, ir_check_row *row, cleave_dim *dims,
                      size_t *rank, cleave_type *type, int *type_known, tool_error *err) {
  const ir_port *in0 = ir_layer_input(l, 0);
  char label[400];
  const char *type_name = NULL;
  char *why = NULL;
  if (ir_declared_input(m, in0, dims, rank, &type_name, label, sizeof label, &why) != 0) {
    char *reason =
        why == NULL
            ? NULL
            : ir_text_printf("the data comes from %s, whose shape is malformed: %s", label, why);
    free(why);
    return ir_set_verdict(row, IR_VERDICT_NOT_CHECKABLE, reason, err);
  }
  *type_known = 0;
  *type = cleave_type_of(CLEAVE_U8);
  cleave_type t;
  if (type_name != NULL && ir_type_from_name(type_name, &t) == IR_TYPE_KNOWN) {
    row->type = ir_text_printf("%s", ir_type_name(t));
    int64_t bits = 0;
    /* Shapes do not depend on the type; u3/u6 (unsupported by the library) are checked as u8. */
    if (t.dtype == CLEAVE_STRING || cleave_type_bits(t, &bits, NULL, NULL) == CLEAVE_OK) {
      *type = t;
      *type_known = 1;
    }
  }
  row->data = ir_shape_text(*rank, dims);
  if (row->data == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  /* The layer's own input port must agree with its producer's output. */
  if (!ir_shapes_overlap(in0->rank, in0->dims, *rank, dims)) {
    char *mine = ir_shape_text(in0->rank, in0->dims);
    int rc =
        ir_set_verdict(row, IR_VERDICT_MISMATCH,
                       ir_text_printf("input port %" PRId64 " declares %s but its producer, %s, "
                                      "gives %s",
                                      in0->id, mine != NULL ? mine : "?", label, row->data),
                       err);
    free(mine);
    return rc;
  }
  return 0;
}

int ir_check_layer(const ir_model *m, const ir_bin *bin, const ir_layer *l, ir_check_row *row,
                   tool_error *err) {
  if (strcmp(l->type, "Concat") == 0) {
    return ir_check_concat_layer(m, l, row, err);
  }
  memset(row, 0, sizeof *row);
  row->layer = l;
  int variadic = strcmp(l->type, "VariadicSplit") == 0;
  size_t want_inputs = variadic ? 3 : 2;
  if (l->version != NULL && strcmp(l->version, "opset1") != 0) {
    return ir_set_verdict(
        row, IR_VERDICT_NOT_CHECKABLE,
        ir_text_printf("version '%s' is not opset1, the only opset that defines %s", l->version,
                       l->type),
        err);
  }
  if (ir_layer_count(l, 0) != want_inputs) {
    return ir_set_verdict(row, IR_VERDICT_RULE_BROKEN,
                          ir_text_printf("%s-1 takes %zu inputs but the layer has %zu", l->type,
                                         want_inputs, ir_layer_count(l, 0)),
                          err);
  }
  cleave_dim dims[IR_MAX_RANK];
  size_t rank = 0;
  cleave_type type;
  int type_known = 0;
  int rc = data_input(m, l, row, dims, &rank, &type, &type_known, err);
  if (rc != 0 || row->reason != NULL) {
    return rc;
  }
  values_input axis, lengths;
  memset(&lengths, 0, sizeof lengths);
  rc = read_values(m, bin, ir_layer_input(l, 1), "the axis", &axis, err);
  if (rc == 0 && variadic) {
    rc = read_values(m, bin, ir_layer_input(l, 2), "split_lengths", &lengths, err);
  }
  int64_t num_splits = 0;
  cleave_op op;
  unsigned unknown = 0;
  char *not_known = NULL;
  if (rc != 0) {
    goto done;
  }
  if (axis.not_known != NULL || lengths.not_known != NULL) {
    not_known = axis.not_known != NULL ? axis.not_known : lengths.not_known;
    rc = ir_set_verdict(row, IR_VERDICT_NOT_CHECKABLE, ir_text_printf("%s", not_known), err);
    goto done;
  }
  row->axis = values_text(&axis.values, axis.unknown);
  unknown |= axis.unknown ? CLEAVE_UNKNOWN_AXIS : 0;
  unknown |= lengths.unknown ? CLEAVE_UNKNOWN_LENGTHS : 0;
  for (size_t k = 1; k < want_inputs; k++) {
    values_input *v = k == 1 ? &axis : &lengths;
    if (v->unknown && row->source == NULL) {
      char label[400];
      ir_layer_label(ir_producer(m, ir_layer_input(l, k)).layer, label, sizeof label);
      row->source = ir_text_printf("%s", label);
    }
  }
  if (variadic) {
    row->lengths = values_text(&lengths.values, lengths.unknown);
    int64_t zero = 0;
    op = cleave_op_variadic_split(&zero, NULL, 0);
    op.lengths = lengths.values;
  } else {
    const char *text = ir_layer_attr(l, "num_splits");
    if (text == NULL || ir_parse_int64(text, &num_splits) != 0) {
      rc = ir_set_verdict(row, IR_VERDICT_NOT_CHECKABLE,
                          text == NULL
                              ? ir_text_printf("<data> has no num_splits attribute")
                              : ir_text_printf("num_splits '%.64s' is not an integer", text),
                          err);
      goto done;
    }
    row->lengths = ir_text_printf("%" PRId64, num_splits);
    int64_t zero = 0;
    op = cleave_op_split(&zero, num_splits);
  }
  op.axis = axis.values;
  row->hull = unknown != 0 || rank == CLEAVE_RANK_DYNAMIC;
  for (size_t i = 0; i < (rank == CLEAVE_RANK_DYNAMIC ? 0 : rank); i++) {
    row->hull |= dims[i].lo != dims[i].hi;
  }
  {
    cleave_partial_shape in = {rank, dims};
    cleave_partial_info info;
    cleave_error cerr;
    cleave_status st = cleave_infer_partial(&op, unknown, type, &in, &info, NULL, 0, &cerr);
    cleave_dim *out = NULL;
    size_t declared_count = ir_layer_count(l, 1);
    row->declared = calloc(declared_count + 1, sizeof *row->declared);
    if (row->declared == NULL) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
      goto done;
    }
    for (size_t i = 0; i < declared_count; i++) {
      const ir_port *p = ir_layer_output(l, i);
      row->declared[row->num_declared++] = ir_shape_text(p->rank, p->dims);
    }
    if (st == CLEAVE_OK && info.num_shapes != declared_count) {
      /* Decided before the shapes are allocated: a hostile count cannot exhaust memory. */
      rc = ir_set_verdict(row, IR_VERDICT_MISMATCH,
                          ir_text_printf("the layer declares %zu %s but %zu %s inferred",
                                         declared_count,
                                         tool_plural(declared_count, "output", "outputs"),
                                         info.num_shapes, info.num_shapes == 1 ? "is" : "are"),
                          err);
      goto done;
    }
    if (st == CLEAVE_OK) {
      out = malloc((info.dims_needed + 1) * sizeof *out);
      if (out == NULL) {
        rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
        goto done;
      }
      st = cleave_infer_partial(&op, unknown, type, &in, &info, out, info.dims_needed, &cerr);
    }
    if (st != CLEAVE_OK) {
      free(out);
      rc = ir_set_verdict(row, IR_VERDICT_RULE_BROKEN, ir_text_printf("%s", cerr.message), err);
      goto done;
    }
    size_t step = info.output_rank == CLEAVE_RANK_DYNAMIC ? 0 : info.output_rank;
    size_t n = info.num_shapes;
    size_t declared = ir_layer_count(l, 1);
    row->inferred = calloc(n + 1, sizeof *row->inferred);
    if (row->inferred == NULL) {
      free(out);
      rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
      goto done;
    }
    for (size_t i = 0; i < n; i++) {
      row->inferred[row->num_inferred++] = ir_shape_text(info.output_rank, out + i * step);
    }
    char *reason = NULL;
    int wider = 0;
    for (size_t i = 0; i < n && i < declared && reason == NULL; i++) {
      const ir_port *p = ir_layer_output(l, i);
      size_t bad = IR_RANKS_DIFFER;
      int c = ir_compare_shapes(info.output_rank, out + i * step, p, &bad);
      if (c == 0) {
        reason =
            bad == IR_RANKS_DIFFER
                ? ir_text_printf("output %zu (port %" PRId64 ") declares rank %zu, inferred %s "
                                 "has rank %zu",
                                 i, p->id, p->rank, row->inferred[i], info.output_rank)
                : ir_text_printf("output %zu (port %" PRId64 ") declares %s, inferred %s "
                                 "(dimension %zu)",
                                 i, p->id, row->declared[i], row->inferred[i], bad);
      }
      wider |= c == 2;
    }
    free(out);
    if (reason != NULL) {
      rc = ir_set_verdict(row, IR_VERDICT_MISMATCH, reason, err);
    } else if (wider) {
      rc = ir_set_verdict(row, IR_VERDICT_OK,
                          ir_text_printf("the declared outputs are less precise than inferred"),
                          err);
    } else {
      row->verdict = IR_VERDICT_OK;
    }
  }
done:
  free(axis.owned);
  free(axis.not_known);
  free(lengths.owned);
  free(lengths.not_known);
  return rc;
}
