/*
 * The streaming writer: moves the data of a plan into the output files, in bounded memory.
 *
 * Each output file is written in one pass: the prefix the format rendered, then its tensors in
 * file order, every write at the offset the plan gave it, through a window that passes on
 * writes ending on window boundaries (ckpt_copy.c). A span that is a contiguous range of its
 * input (a whole tensor, a part of axis 0) is copied inside the kernel when its offsets agree
 * modulo 64 KiB and no checksums are computed, else read and written. The parts of one cut (columns
 * of the same input rows) are gathered from blocks of whole rows read once for all of them: every
 * part of a split (all in one file), and, for a lockstep plan (shard, reshard), the part of every
 * rank, whose files are written together in groups of up to STREAM_GROUP_SIZE open files. A tensor
 * assembled from several spans is built in blocks of output rows. A plan of one rank (--rank,
 * ckpt_plan.one_rank) reads a column of rows alone, row by row, when each row skips a page or
 * more of the other ranks' columns, so that a rank reads little more than its bytes. Memory is
 * two buffers of
 * CLEAVE_CHUNK_BYTES (default 1 MiB), the windows (at most 16 MiB) and the plans, whatever the
 * model's size.
 */
#ifndef CLEAVE_CKPT_COPY_H
#define CLEAVE_CKPT_COPY_H

#include "ckpt_hash.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "outputs.h"
#include "progress.h"

/**
 * Writes every file of `plan` (laid out by its format) into the temporaries of `out` (file i is
 * output i), reading the files of `model`. With `sums` (ckpt_sums_new; NULL: none), checksums
 * every file as it is written (ckpt_sums.h): `sums[i]` is known after the run when file i was
 * written in order of offset. Returns 0, or prints the error and returns an exit
 * status: CLI_EXIT_NOINPUT (an input cannot be opened any more), CLI_EXIT_IOERR (a read or write
 * failed, an input shrank), CLI_EXIT_SOFTWARE.
 */
int ckpt_copy_plan(const ckpt_plan *plan, const ckpt_model *model, const out_set *out,
                   progress *report, ckpt_file_sums *sums);

#endif /* CLEAVE_CKPT_COPY_H */
