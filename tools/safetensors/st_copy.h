/*
 * Writing the planned outputs: each output file in one pass (header, then its tensors in order,
 * every write at its planned offset). Contiguous ranges are copied inside the kernel
 * (copy_file_range, falling back to read and write); inner-axis parts are gathered by a library
 * plan from blocks of rows read once for all the parts of a tensor (every part of a split, the
 * ranks of a shard in groups of up to 256 open files), so memory is two buffers of
 * CLEAVE_CHUNK_BYTES (default 1 MiB) and the plans whatever the model size.
 */
#ifndef CLEAVE_ST_COPY_H
#define CLEAVE_ST_COPY_H

#include "outputs.h"
#include "progress.h"
#include "st_model.h"
#include "st_plan.h"

/** Writes every file of `plan` into the temporaries of `out` (file i = output i). Returns 0 or
 * prints an error and returns CLI_EXIT_IOERR / CLI_EXIT_SOFTWARE. */
int st_copy_plan(const st_plan *plan, const st_model *model, const out_set *out, progress *report);

#endif /* CLEAVE_ST_COPY_H */
