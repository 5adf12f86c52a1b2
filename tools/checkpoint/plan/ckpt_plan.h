/*
 * The plan of a checkpoint command: every output file, its tensors, and where each byte of each
 * output tensor comes from, all computed from the input headers before any data moves (so that
 * --dry-run prints it and a broken rule fails with nothing written).
 *
 * An output tensor is assembled from one or more spans. A span is a strided 2-D copy: `rows`
 * rows of `take` bytes, row r read at src_row + r * src_stride + src_col of input file
 * `src_file` and written at dst_offset + r * dst_stride of the output tensor. A whole tensor is
 * one span of one row; a part cut on axis 0 is one row of its source; a part cut on an inner
 * axis is a column of its source's rows (src_stride the source row, dst_stride = take); a
 * tensor concatenated from several ranks along an inner axis has one span per rank, each a
 * column of the output's rows (dst_stride the output row, dst_offset where the rank's columns
 * start). Spans of one output tensor never overlap in the output and together cover it.
 */
#ifndef CLEAVE_CKPT_PLAN_H
#define CLEAVE_CKPT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_cut.h"
#include "ckpt_model.h"
#include "error.h"

/** One strided piece of an output tensor. */
typedef struct ckpt_span {
  /** The input file (index in the model's files), and the file offset of source row 0. */
  size_t src_file;
  uint64_t src_row;
  /** Bytes from one source row to the next, and the offset of the piece in each source row. */
  uint64_t src_stride, src_col;
  /** Where row 0 goes in the output tensor, and bytes from one output row to the next. */
  uint64_t dst_offset, dst_stride;
  uint64_t rows, take;
  /**
   * The spans of one group are the parts of one cut: columns of the same source rows (the same
   * src_file, src_row, src_stride and rows), each packed into an output tensor of its own
   * (dst_offset 0, dst_stride = take). The writer reads those rows once for all of them: every
   * part of a split (in one file), or one part per file of a lockstep plan. 0: no group.
   */
  uint64_t group;
} ckpt_span;

/** One output tensor. */
typedef struct ckpt_out_tensor {
  char *name;
  const ckpt_dtype *dtype;
  int ndim;
  int64_t *shape;
  uint64_t bytes;
  /** Its spans: span_count entries from index first_span of its file's `spans`. */
  size_t first_span, span_count;
  /** The input tensor it comes from (the first one, when it is assembled from several), for
   * reports and messages. */
  const ckpt_tensor *source;
  /** Its offset in the output's data section (set by the format's layout). */
  uint64_t begin;
  /** Where it lies in the whole tensor (a shard's, a split's, a reshard's part), for reports;
   * zero: it is the whole tensor. */
  ckpt_slice slice;
  /** --outtype (ckpt_cast.h): the input's dtype when the elements are converted to `dtype`,
   * else NULL. The spans of a converted tensor count the input's bytes on both sides: an output
   * offset is the span's divided by cast_from's element size, times dtype's; `bytes` is the
   * output's. */
  const ckpt_dtype *cast_from;
  /** CKPT_DEQUANTIZE_FP8 when the conversion is a block-FP8 dequantization: each span's source
   * tensor is an FP8 weight whose `_scale_inv` (in the same input file) scales it.
   * CKPT_DEQUANTIZE_GGML when the input holds ggml blocks (cast_from a GGUF type, its `code`
   * ggml's number): each block becomes cast_from->block_elems floats (cleave_ggml_dequantize),
   * then `dtype` (cleave_cast from f32); the element sizes above are then per block, and every
   * span covers whole blocks (whole rows: a block never straddles two). 0: a float cast. */
  int dequantize;
} ckpt_out_tensor;

/** ckpt_out_tensor.dequantize's conversions. */
enum { CKPT_DEQUANTIZE_FP8 = 1, CKPT_DEQUANTIZE_GGML = 2 };

/** One output file. */
typedef struct ckpt_out_file {
  /** Its file name in OUTDIR. */
  char *name;
  /** Its tensors: in the order they are added, then in file order after the format's layout. */
  size_t tensor_count, tensor_cap;
  ckpt_out_tensor *tensors;
  size_t span_count, span_cap;
  ckpt_span *spans;
  /** Its metadata (borrowed from the model or from the plan's shared_meta). */
  int has_meta;
  size_t meta_count;
  const ckpt_meta *meta;
  /** Set by the format's layout: every byte before the data section (the format's header), and
   * the data section's size (its tensors, and any padding the format puts between them). */
  unsigned char *prefix;
  uint64_t prefix_size;
  uint64_t data_size;
} ckpt_out_file;

/** A tensor that exists in every rank and must be the same in each (merge and reshard write it
 * once per output, from one rank): `copy` is compared byte for byte with `tensor` before anything
 * is written. */
typedef struct ckpt_check {
  const ckpt_tensor *tensor;
  const ckpt_tensor *copy;
  /** Why they must be equal, for the message (a static string), or NULL: a tensor no --axis rule
   * takes. */
  const char *why;
} ckpt_check;

/** A text file a command makes rather than copies (convert's config.json), written after the
 * index and listed in the manifest with kind "generated". Both strings malloc'd, owned by the
 * plan. */
typedef struct ckpt_made_file {
  char *name;
  char *text;
} ckpt_made_file;

/** The plan. */
typedef struct ckpt_plan {
  size_t file_count;
  ckpt_out_file *files;
  /** 1 when every file has, position for position, tensors from the same source tensors, so
   * that their data can be written together, each block of input rows read once for all files
   * (shard's ranks). */
  int lockstep;
  /** 1 when the plan is one rank of a lockstep plan (--rank): the writer then reads only the
   * columns of a cut that this rank holds, row by row, when the other ranks' columns it skips in
   * each row are a page at least (ckpt_copy.h). */
  int one_rank;
  /** The index to write after the files (NULL: none), and its file name. */
  char *index_text;
  char *index_name;
  /** The text files the command makes, written after the index (ckpt_plan_add_made). */
  size_t made_count;
  ckpt_made_file *made;
  /** Metadata the files borrow and the plan owns (the union of the inputs' metadata), or
   * NULL. */
  ckpt_meta *shared_meta;
  /** The copies to compare before writing (ckpt_compare.h), and whether the inputs are ranks
   * (input file R is rank R: messages name the rank). */
  size_t check_count, check_cap;
  ckpt_check *checks;
  int ranked;
} ckpt_plan;

/**
 * Adds to the plan a text file `name` holding `text` (both copied), written with the outputs
 * after the index. Returns 0 or an exit status with the message in `err`.
 */
int ckpt_plan_add_made(ckpt_plan *plan, const char *name, const char *text, tool_error *err);

/**
 * Adds to `file` a tensor (its name and shape copied; first_span ignored) with the `count` spans
 * `spans` (copied). Returns 0 or -1 (out of memory; `file` is unchanged).
 */
int ckpt_out_file_add(ckpt_out_file *file, const ckpt_out_tensor *tensor, const ckpt_span *spans,
                      size_t count);

/** The spans of tensor `t` of `file`. */
const ckpt_span *ckpt_out_spans(const ckpt_out_file *file, const ckpt_out_tensor *t);

/** The output tensor that copies input tensor `t` whole (under its name, dtype and shape). */
ckpt_out_tensor ckpt_out_whole(const ckpt_tensor *t);

/** The one span of a whole tensor `t`: one row of t->bytes. */
ckpt_span ckpt_span_whole(const ckpt_tensor *t);

/** The span of part `p` of tensor `t` (ckpt_cut_tensor), in group `group`: one row when the
 * part is a contiguous range of `t` (a part of axis 0, or of rows that are whole), else the
 * part's column of every row. */
ckpt_span ckpt_span_part(const ckpt_tensor *t, const ckpt_part *p, uint64_t group);

/** The size of output file `f`: its prefix and its data. */
uint64_t ckpt_out_file_size(const ckpt_out_file *f);

/**
 * Refuses two output tensors of the plan with the same name: CLI_EXIT_DATA naming them and their
 * sources ("the part 'x' of tensor 'y' would replace the untouched tensor of that name", "two
 * outputs are named 'x' (parts of 'y' and 'z')"), or CLI_EXIT_SOFTWARE; else 0.
 */
int ckpt_plan_check_names(const ckpt_plan *plan, tool_error *err);

/** Adds the check that `copy` equals `tensor`. Returns 0 or CLI_EXIT_SOFTWARE (out of memory). */
int ckpt_plan_add_check(ckpt_plan *plan, const ckpt_tensor *tensor, const ckpt_tensor *copy,
                        tool_error *err);

/**
 * Gives every file of `plan` the union of the metadata of the files of `m`, sorted by key (the
 * plan owns it as shared_meta; a file has a metadata section when one input has). A key with two
 * values is CLI_EXIT_DATA: "<format's metadata name> 'KEY' differs between the <what> ('VALUE' in
 * 'FILE')". Returns 0, that, or CLI_EXIT_SOFTWARE.
 */
int ckpt_plan_union_meta(ckpt_plan *plan, const ckpt_model *m, const char *metadata_name,
                         const char *what, tool_error *err);

/** Gives `plan` `count` empty output files. Returns 0 or CLI_EXIT_SOFTWARE (out of memory). */
int ckpt_plan_files(ckpt_plan *plan, size_t count, tool_error *err);

/** Releases what output file `f` holds (its tensors, spans, name and prefix; not the metadata
 * it borrows) and zeroes it. */
void ckpt_out_file_free(ckpt_out_file *f);

/** Releases the plan and zeroes it (safe on a zeroed or partly built plan). */
void ckpt_plan_free(ckpt_plan *plan);

#endif /* CLEAVE_CKPT_PLAN_H */
