/*
 * The data of ir-run's Parameter layers, read from .npy files through tools/npy: byte-sized types
 * from a C-order .npy of the Parameter's element type and of a shape its shape allows; packed
 * sub-byte and string Parameters (static shape) from a 1-D uint8 .npy of their bytes (packed as
 * OpenVINO packs the type, strings in its packed string layout), the form ir-run writes them in.
 */
#ifndef CLEAVE_IR_PARAMETER_H
#define CLEAVE_IR_PARAMETER_H

#include "error.h"
#include "ir_model.h"
#include "ir_run.h"

/**
 * Reads Parameter `layer` of `model` from `input` into `*t`. The buffers it allocates are stored
 * in owned[0] and owned[1] (NULL when unused) as soon as they exist, for the caller to free
 * whatever the outcome. Returns 0, or fills `err` (naming the file, and the layer with its line)
 * and returns CLI_EXIT_DATA, CLI_EXIT_IOERR or CLI_EXIT_SOFTWARE.
 */
int ir_parameter_read(const ir_model *model, const ir_layer *layer, const ir_input *input,
                      ir_tensor *t, void *owned[2], tool_error *err);

#endif /* CLEAVE_IR_PARAMETER_H */
