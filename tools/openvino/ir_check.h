/*
 * ir-check's core: for one Split or VariadicSplit layer, the data input's shape as its producer
 * declares it (a Parameter's `shape`, otherwise the producing output port's <dim>s), the axis and
 * split lengths from Const layers (unknown when computed by other layers), cleave's partial-shape
 * inference, and the comparison with the layer's declared output <dim>s.
 */
#ifndef CLEAVE_IR_CHECK_H
#define CLEAVE_IR_CHECK_H

#include <stddef.h>

#include "ir_const.h"
#include "ir_model.h"

/** The verdict on one layer. */
typedef enum ir_verdict {
  IR_VERDICT_OK = 0,
  IR_VERDICT_MISMATCH = 1,      /* the declared outputs contradict the inferred ones */
  IR_VERDICT_RULE_BROKEN = 2,   /* the inputs break a rule of the operator */
  IR_VERDICT_NOT_CHECKABLE = 3, /* what the check needs is not in the file */
} ir_verdict;

/** The verdict's name as printed: "OK", "MISMATCH", "RULE BROKEN", "NOT CHECKABLE". */
const char *ir_verdict_name(ir_verdict verdict);

/** What was found about one layer; all strings are malloc'd (NULL when not known). */
typedef struct ir_check_row {
  const ir_layer *layer;
  ir_verdict verdict;
  char *data;    /* the data input's partial shape, e.g. "[1,32,160,160]" */
  char *type;    /* its element type name, or NULL when not declared */
  char *axis;    /* "1", "[1]", or "?" */
  char *lengths; /* "[16,16]", "[?,?]" (VariadicSplit) or the num_splits value (Split) */
  char *source;  /* where unknown values come from, e.g. "layer 1301 \"x\" (Concat)" */
  char **inputs; /* Concat: each input's declared shape (data stays NULL) */
  size_t num_inputs;
  int hull; /* 1 when the inferred shapes are hulls over unknown values */
  char **inferred;
  size_t num_inferred;
  char **declared;
  size_t num_declared;
  char *reason; /* why not OK (or a note), or NULL */
} ir_check_row;

/**
 * Checks `layer` (type Split, VariadicSplit or Concat: ir_check_concat.h for the last). Fills `row`
 * (release with ir_check_row_free). Returns 0, or CLI_EXIT_IOERR / CLI_EXIT_SOFTWARE with `err`
 * filled when reading the .bin or memory fails (verdicts are in `row`, never in the return value).
 */
int ir_check_layer(const ir_model *model, const ir_bin *bin, const ir_layer *layer,
                   ir_check_row *row, tool_error *err);

/** Releases a row's strings. */
void ir_check_row_free(ir_check_row *row);

/** Returns 1 for the layer types ir-check checks (Split, VariadicSplit, Concat). */
int ir_is_split_layer(const ir_layer *layer);

/** Largest Const (bytes) read for an axis or split_lengths input. */
#define IR_MAX_VALUES_BYTES ((uint64_t)64 << 20)

#endif /* CLEAVE_IR_CHECK_H */
