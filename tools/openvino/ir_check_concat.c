/* Checking one Concat layer against cleave's partial-shape inference of the concat family. */
#include "ir_check_concat.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "ir_check_shapes.h"
#include "ir_types.h"

/* Each input's declared shape into shapes[k] (IR_MAX_RANK dims each) and its text into
 * row->inputs; the element type of the first input that declares one into *type. A verdict other
 * than OK is left in `row` (its reason set). */
static int read_inputs(const ir_model *m, const ir_layer *l, ir_check_row *row,
                       cleave_partial_shape *shapes, cleave_dim *dims, cleave_type *type,
                       tool_error *err) {
  size_t n = ir_layer_count(l, 0);
  int have_type = 0;
  size_t typed_input = 0;
  for (size_t k = 0; k < n; k++) {
    const ir_port *in = ir_layer_input(l, k);
    cleave_dim *d = dims + k * IR_MAX_RANK;
    char label[400];
    const char *type_name = NULL;
    char *why = NULL;
    size_t rank = 0;
    if (ir_declared_input(m, in, d, &rank, &type_name, label, sizeof label, &why) != 0) {
      char *reason = why == NULL ? NULL
                                 : ir_text_printf("inputs[%zu] comes from %s, whose shape is "
                                                  "malformed: %s",
                                                  k, label, why);
      free(why);
      return ir_set_verdict(row, IR_VERDICT_NOT_CHECKABLE, reason, err);
    }
    shapes[k].rank = rank;
    shapes[k].dims = d;
    row->inputs[row->num_inputs] = ir_shape_text(rank, d);
    if (row->inputs[row->num_inputs++] == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
    if (!ir_shapes_overlap(in->rank, in->dims, rank, d)) {
      char *mine = ir_shape_text(in->rank, in->dims);
      int rc =
          ir_set_verdict(row, IR_VERDICT_MISMATCH,
                         ir_text_printf("input port %" PRId64 " declares %s but its "
                                        "producer, %s, gives %s",
                                        in->id, mine != NULL ? mine : "?", label, row->inputs[k]),
                         err);
      free(mine);
      return rc;
    }
    cleave_type t;
    if (type_name == NULL || ir_type_from_name(type_name, &t) != IR_TYPE_KNOWN) {
      continue;
    }
    if (!have_type) {
      have_type = 1;
      typed_input = k;
      *type = t;
      row->type = ir_text_printf("%s", ir_type_name(t));
      if (row->type == NULL) {
        return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
      }
    } else if (t.dtype != type->dtype || t.width != type->width) {
      return ir_set_verdict(row, IR_VERDICT_RULE_BROKEN,
                            ir_text_printf("inputs[%zu] has type %s but inputs[%zu] has type %s: "
                                           "the inputs of Concat-1 have one element type",
                                           k, ir_type_name(t), typed_input, row->type),
                            err);
    }
  }
  /* Shapes do not depend on the type; types the library cannot size (u3, u6) are checked as
   * u8. */
  int64_t bits = 0;
  if (!have_type ||
      (type->dtype != CLEAVE_STRING && cleave_type_bits(*type, &bits, NULL, NULL) != CLEAVE_OK)) {
    *type = cleave_type_of(CLEAVE_U8);
  }
  return 0;
}

/* The inferred output against the declared one. */
static int compare_output(const ir_layer *l, ir_check_row *row, const cleave_partial_info *info,
                          const cleave_dim *out, tool_error *err) {
  const ir_port *p = ir_layer_output(l, 0);
  size_t bad = IR_RANKS_DIFFER;
  int c = ir_compare_shapes(info->output_rank, out, p, &bad);
  if (c == 0) {
    return ir_set_verdict(
        row, IR_VERDICT_MISMATCH,
        bad == IR_RANKS_DIFFER
            ? ir_text_printf("the output (port %" PRId64 ") declares rank %zu, inferred %s has "
                             "rank %zu",
                             p->id, p->rank, row->inferred[0], info->output_rank)
            : ir_text_printf("the output (port %" PRId64 ") declares %s, inferred %s "
                             "(dimension %zu)",
                             p->id, row->declared[0], row->inferred[0], bad),
        err);
  }
  if (c == 2) {
    return ir_set_verdict(row, IR_VERDICT_OK,
                          ir_text_printf("the declared output is less precise than inferred"), err);
  }
  row->verdict = IR_VERDICT_OK;
  return 0;
}

/* The inference on the inputs read, and the verdict. */
static int infer(const ir_layer *l, ir_check_row *row, int64_t axis, cleave_type type,
                 const cleave_partial_shape *shapes, size_t n, tool_error *err) {
  cleave_concat_op op = cleave_op_concat(&axis);
  cleave_partial_info info;
  cleave_error cerr;
  cleave_dim out[IR_MAX_RANK + 1];
  if (cleave_concat_infer_partial(&op, 0, type, shapes, n, &info, out, IR_MAX_RANK + 1, &cerr) !=
      CLEAVE_OK) {
    return ir_set_verdict(row, IR_VERDICT_RULE_BROKEN, ir_text_printf("%s", cerr.message), err);
  }
  row->inferred = calloc(2, sizeof *row->inferred);
  if (row->inferred == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  row->inferred[0] = ir_shape_text(info.output_rank, out);
  row->num_inferred = 1;
  if (row->inferred[0] == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t declared = ir_layer_count(l, 1);
  if (declared != 1) {
    return ir_set_verdict(
        row, IR_VERDICT_MISMATCH,
        ir_text_printf("the layer declares %zu outputs but Concat-1 has one", declared), err);
  }
  return compare_output(l, row, &info, out, err);
}

int ir_check_concat_layer(const ir_model *m, const ir_layer *l, ir_check_row *row,
                          tool_error *err) {
  memset(row, 0, sizeof *row);
  row->layer = l;
  if (l->version != NULL && strcmp(l->version, "opset1") != 0) {
    return ir_set_verdict(row, IR_VERDICT_NOT_CHECKABLE,
                          ir_text_printf("version '%s' is not opset1, the only opset that "
                                         "defines Concat",
                                         l->version),
                          err);
  }
  const char *text = ir_layer_attr(l, "axis");
  int64_t axis = 0;
  if (text == NULL || ir_parse_int64(text, &axis) != 0) {
    return ir_set_verdict(row, IR_VERDICT_NOT_CHECKABLE,
                          text == NULL ? ir_text_printf("<data> has no axis attribute")
                                       : ir_text_printf("axis '%.64s' is not an integer", text),
                          err);
  }
  row->axis = ir_text_printf("%" PRId64, axis);
  size_t n = ir_layer_count(l, 0);
  size_t declared = ir_layer_count(l, 1);
  row->declared = calloc(declared + 1, sizeof *row->declared);
  row->inputs = calloc(n + 1, sizeof *row->inputs);
  cleave_partial_shape *shapes = calloc(n + 1, sizeof *shapes);
  cleave_dim *dims = calloc(n * IR_MAX_RANK + 1, sizeof *dims);
  int rc = 0;
  if (row->axis == NULL || row->declared == NULL || row->inputs == NULL || shapes == NULL ||
      dims == NULL) {
    rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; rc == 0 && i < declared; i++) {
    const ir_port *p = ir_layer_output(l, i);
    row->declared[row->num_declared] = ir_shape_text(p->rank, p->dims);
    if (row->declared[row->num_declared++] == NULL) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  cleave_type type = cleave_type_of(CLEAVE_U8);
  if (rc == 0) {
    rc = read_inputs(m, l, row, shapes, dims, &type, err);
  }
  if (rc == 0 && row->reason == NULL) {
    row->hull = 0;
    for (size_t k = 0; k < n; k++) {
      row->hull |= shapes[k].rank == CLEAVE_RANK_DYNAMIC;
      for (size_t d = 0; shapes[k].rank != CLEAVE_RANK_DYNAMIC && d < shapes[k].rank; d++) {
        row->hull |= shapes[k].dims[d].lo != shapes[k].dims[d].hi;
      }
    }
    /* No input: the library's rule (at least one) gives the message. */
    rc = infer(l, row, axis, type, shapes, n, err);
  }
  free(shapes);
  free(dims);
  return rc;
}
