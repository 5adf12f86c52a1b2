/*
 * The output plan of `cleave st split` and `cleave st shard`: every output file, its header and
 * where each of its tensors comes from, all computed from the input headers before any data
 * moves.
 *
 * An output tensor ("piece") takes, from each of `rows` rows of `row_bytes` bytes starting at
 * `src_offset` of input file `src_file`, the `take` bytes at `col`: a whole tensor is one row
 * taken whole, an axis-0 part is one row's range, an inner-axis part is a column of every row.
 */
#ifndef CLEAVE_ST_PLAN_H
#define CLEAVE_ST_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "st_model.h"

typedef struct st_piece {
  char *name;
  const st_dtype *dtype;
  int ndim;
  int64_t *shape; /* ndim entries; st_out_file_add copies them */
  size_t src_file;
  uint64_t src_offset; /* file offset of the source tensor's first byte */
  uint64_t rows, row_bytes, col, take;
  /** The cut this piece is a part of: the same number for every part of one source tensor in
   * the plan (all in one file for split, one per rank for shard); 0 for a whole tensor. */
  uint64_t cut;
  /** Offsets in the output's data section (set by st_layout). */
  uint64_t begin, end;
  /** The source tensor's name (for the plan printout). */
  const char *source;
} st_piece;

typedef struct st_out_file {
  char *name; /* file name in OUTDIR */
  size_t count, capacity;
  st_piece *pieces; /* in file order after st_layout */
  size_t meta_count;
  const st_meta *meta; /* borrowed */
  int has_meta;
  char *header; /* the JSON header, padded with spaces to a multiple of 8 */
  uint64_t header_size;
  uint64_t data_size;
} st_out_file;

typedef struct st_plan {
  size_t file_count;
  st_out_file *files;
  /** 1 when every file has the same tensors from the same sources in the same order, so that
   * their data can be written together, reading each input row block once (shard). */
  int lockstep;
  /** The index to write after the files (NULL: none), and its file name. */
  char *index_text;
  char *index_name;
  /** Metadata the files borrow and the plan owns (shard's merged metadata), or NULL. */
  st_meta *shared_meta;
} st_plan;

/** Adds a piece (copied, with its name and shape) to `file`. Returns 0 or -1 (out of memory). */
int st_out_file_add(st_out_file *file, const st_piece *piece);

/**
 * Orders the tensors of `file` as the reference writer does (dtype rank descending, then name
 * byte-wise), assigns their data offsets and renders the header. Returns 0 or an exit status
 * with the message in `err`.
 */
int st_layout(st_out_file *file, st_error *err);

/** The index of a sharded output (HF layout): renders `plan->index_text` from the files. */
int st_plan_index(st_plan *plan, const st_model *model, st_error *err);

/** Releases the plan. */
void st_plan_free(st_plan *plan);

#endif /* CLEAVE_ST_PLAN_H */
