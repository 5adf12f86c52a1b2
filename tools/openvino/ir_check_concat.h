/*
 * ir-check on a Concat layer (OpenVINO Concat-1): every input's shape as its producer declares it,
 * the `axis` attribute, cleave's partial-shape inference of the concat family, and the comparison
 * with the layer's declared output <dim>s.
 */
#ifndef CLEAVE_IR_CHECK_CONCAT_H
#define CLEAVE_IR_CHECK_CONCAT_H

#include "error.h"
#include "ir_check.h"
#include "ir_model.h"

/**
 * Checks `layer` (type Concat). Fills `row` (release with ir_check_row_free): `inputs` with each
 * input's declared shape, `axis` with the attribute, `inferred` and `declared` with the output.
 * Returns 0, or CLI_EXIT_SOFTWARE with `err` filled when memory runs out (verdicts are in `row`).
 */
int ir_check_concat_layer(const ir_model *model, const ir_layer *layer, ir_check_row *row,
                          tool_error *err);

#endif /* CLEAVE_IR_CHECK_CONCAT_H */
