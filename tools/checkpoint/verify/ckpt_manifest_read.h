/*
 * Reading a manifest back (docs/manifest.md) for `verify`: the JSON parsed by jansson and checked
 * against the schema, as hostile input (every number bounded, every range inside its file, file
 * names that stay in OUTDIR). Strings are borrowed from the parsed tree the manifest owns.
 */
#ifndef CLEAVE_CKPT_MANIFEST_READ_H
#define CLEAVE_CKPT_MANIFEST_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "error.h"

/** The largest manifest read (about 3 million tensors). */
#define CKPT_MANIFEST_MAX_BYTES ((uint64_t)1 << 30)

/** One piece of a tensor: rows rows of take bytes, row r from input file `input` at
 * offset + r * stride, to the tensor at to + r * to_stride. */
typedef struct ckpt_mf_piece {
  size_t input;
  uint64_t offset, rows, take, stride, to, to_stride;
  /** A dequantized tensor's piece (its "scale"): where the FP8 weight it reads starts in the
   * input, the weight's last two dimensions, and its scale's offset, size and type. */
  int has_scale;
  uint64_t weight, scale_offset, scale_bytes;
  int64_t rows_of_weight, cols_of_weight;
  cleave_dtype scale_type;
} ckpt_mf_piece;

typedef struct ckpt_mf_tensor {
  const char *name, *dtype;
  int ndim;
  int64_t shape[CKPT_MAX_RANK];
  uint64_t offset, bytes, hash;
  size_t piece_count;
  ckpt_mf_piece *pieces;
  /** Its "cast" (--outtype): the library types converted from and to (0 when it was copied),
   * the block size of a dequantization (0 otherwise), and the bytes its pieces count (the
   * input's: `bytes` when copied). */
  cleave_dtype cast_from, cast_to;
  int64_t block[2];
  uint64_t piece_bytes;
} ckpt_mf_tensor;

enum { CKPT_MF_DATA, CKPT_MF_INDEX, CKPT_MF_GENERATED, CKPT_MF_SIDECAR };

typedef struct ckpt_mf_file {
  const char *name;
  int kind;
  uint64_t bytes, hash;
  /** Data files: the tensors, in order of offset, not overlapping. */
  size_t tensor_count;
  ckpt_mf_tensor *tensors;
} ckpt_mf_file;

typedef struct ckpt_mf_input {
  const char *name, *path;
  uint64_t bytes;
} ckpt_mf_input;

/** A manifest read. Free with ckpt_manifest_free. */
typedef struct ckpt_manifest {
  void *root; /* the jansson tree the strings point into */
  /** 1 when it held its checksum of itself and the checksum was found right (always so for
   * version CKPT_MANIFEST_VERSION); 0 for a manifest of version 1 without one, whose edit
   * cannot be told. */
  int proved;
  const char *command;
  /** A run of one rank (--rank): the run's identity (NULL: a whole run), the rank and the
   * count. */
  const char *run;
  int64_t rank, ranks;
  size_t input_count;
  ckpt_mf_input *inputs;
  size_t file_count;
  ckpt_mf_file *files;
} ckpt_manifest;

/**
 * Reads the manifest at `path`: a version-2 manifest must end with its checksum of itself
 * (`self_xxh3`, docs/manifest.md), which must match its bytes; a version-1 manifest, which has
 * none, is read as it is (mf->proved says which; one that holds the member is checked too). Returns
 * 0; CLI_EXIT_NOINPUT (it cannot be opened; CLI_EXIT_SOFTWARE for a resource limit); CLI_EXIT_DATA
 * when it was changed since it was written (its checksum of itself differs, or is not where cleave
 * writes it), is not a manifest of a version this cleave reads, or breaks the schema, the message
 * naming the place ("PATH: line L, column C: ...", "PATH: self_xxh3: ...", "PATH:
 * files[2].tensors[0].bytes: ..."); or CLI_EXIT_SOFTWARE; with the message in `err`. Free `mf` in
 * either case.
 */
int ckpt_manifest_read(const char *path, ckpt_manifest *mf, tool_error *err);

/**
 * Checks that the pieces of tensor `t` (as ckpt_manifest_read returns it: every row of every
 * piece inside the tensor) cover each of its bytes exactly once (what `verify
 * --against` relies on to say the tensor equals its inputs). Returns 0, or CLI_EXIT_DATA with
 * "PATH: WHERE.pieces...: ..." in `err` (`where` the tensor's place, "files[0].tensors[2]"),
 * naming the first byte of the tensor in no piece or in two pieces, or a piece whose rows overlap
 * each other; or CLI_EXIT_SOFTWARE (out of memory). Time: O(k log k) for k pieces that are byte
 * ranges, or columns of the same rows; otherwise O(n log k) for n rows in all, and never more
 * than about the tensor's bytes: check first that its file holds them, when the manifest cannot
 * be trusted to say so.
 */
int ckpt_mf_tiling(const char *path, const char *where, const ckpt_mf_tensor *t, tool_error *err);

/** Releases the manifest and zeroes it. */
void ckpt_manifest_free(ckpt_manifest *mf);

#endif /* CLEAVE_CKPT_MANIFEST_READ_H */
