/*
 * What ir-check's layer checks share (ir_check.c for the splits, ir_check_concat.c for Concat):
 * the producer of an input and the shape it declares, shapes as text, the comparison of a
 * declared output with an inferred one, and setting a row's verdict.
 */
#ifndef CLEAVE_IR_CHECK_SHAPES_H
#define CLEAVE_IR_CHECK_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "error.h"
#include "ir_check.h"
#include "ir_model.h"

/** A malloc'd printf; NULL when out of memory. */
__attribute__((format(printf, 1, 2))) char *ir_text_printf(const char *format, ...);

/** The canonical text of a partial shape (malloc'd), or NULL when out of memory. */
char *ir_shape_text(size_t rank, const cleave_dim *dims);

/** Where an input comes from: the producing layer and its output port (both point into the
 * model). */
typedef struct ir_source {
  const ir_layer *layer;
  const ir_port *port;
} ir_source;

/** The producer of `input` (the graph checks guarantee one for every input port). */
ir_source ir_producer(const ir_model *m, const ir_port *input);

/**
 * The shape and element type name an input's producer declares: a Parameter's `shape` and
 * `element_type` attributes when it has them, otherwise the producing port's <dim>s and
 * precision. `dims` holds IR_MAX_RANK entries; `*type_name` points into the model (NULL when not
 * declared). Returns 0, or 1 with a malloc'd reason in *why (NULL when out of memory) when a
 * Parameter's shape is malformed. `label` receives the producer's label.
 */
int ir_declared_input(const ir_model *m, const ir_port *input, cleave_dim *dims, size_t *rank,
                      const char **type_name, char *label, size_t label_size, char **why);

/** ir_compare_shapes' *bad_dim when the ranks differ. */
#define IR_RANKS_DIFFER SIZE_MAX

/** 1 when every declared dim lies in the inferred interval; 0 when some pair is disjoint (its
 * index in *bad_dim) or the ranks differ (*bad_dim = IR_RANKS_DIFFER); 2 when they overlap but
 * the declared interval is wider. A dynamic inferred rank matches anything. */
int ir_compare_shapes(size_t rank, const cleave_dim *inferred, const ir_port *declared,
                      size_t *bad_dim);

/** 1 when two declared shapes can describe the same tensor (every dim pair overlaps). */
int ir_shapes_overlap(size_t rank_a, const cleave_dim *a, size_t rank_b, const cleave_dim *b);

/** Sets the row's verdict and reason (taking `reason`, malloc'd); a NULL reason means memory ran
 * out: returns CLI_EXIT_SOFTWARE with `err` filled, else 0. */
int ir_set_verdict(ir_check_row *row, ir_verdict verdict, char *reason, tool_error *err);

#endif /* CLEAVE_IR_CHECK_SHAPES_H */
