/*
 * Opening an IR model for the ir-* commands: the .xml, then its .bin, in the order of docs/cli.md's
 * exit-status precedence (66 for a file that cannot be opened comes before 65 for invalid IR),
 * with every Const's byte range checked against the .bin.
 */
#ifndef CLEAVE_IR_OPEN_H
#define CLEAVE_IR_OPEN_H

#include "ir_const.h"
#include "ir_model.h"

/**
 * Loads `xml_path` and its weights (`bin_path`, or the .xml's name with ".bin"). A --bin that
 * cannot be opened is status 66 even before the .xml is parsed; the default .bin is needed only
 * when the model has Const layers. Returns 0, or fills `err` and returns its exit status (nothing
 * is left open). Release with ir_open_close.
 */
int ir_open(const char *xml_path, const char *bin_path, ir_model *model, ir_bin *bin,
            tool_error *err);

/** Releases what ir_open loaded. */
void ir_open_close(ir_model *model, ir_bin *bin);

#endif /* CLEAVE_IR_OPEN_H */
