/*
 * The geometry of a tensor cut along one axis into consecutive parts (internal, never installed):
 * what static inference (infer/) resolves and what the copy engine (copy/), views and runs
 * (run/) work from. It knows nothing of operators: the split family fills it with its outputs,
 * and an operator that gathers parts into one tensor (Concat) can describe its inputs with it.
 */
#ifndef CLEAVE_GEOMETRY_H
#define CLEAVE_GEOMETRY_H

#include "core/core.h"

/** The static inference outcome in the engine's arithmetic (int64 throughout, as the shapes);
 * the public `cleave_split_info` is made from it by `cleave_split_info_of`. */
typedef struct cleave_shape_info {
  int64_t axis;
  int64_t axis_dim;
  int64_t num_outputs;
  int64_t output_rank;
  bool axis_removed;
  int64_t element_size;
  int64_t element_bits;
} cleave_shape_info;

/** The public form of `info`: its counts and indices are size_t (all are >= 0). */
static inline cleave_split_info cleave_split_info_of(const cleave_shape_info *info) {
  cleave_split_info out;
  out.axis = (size_t)info->axis;
  out.axis_dim = info->axis_dim;
  out.num_outputs = (size_t)info->num_outputs;
  out.output_rank = (size_t)info->output_rank;
  out.axis_removed = info->axis_removed ? 1 : 0;
  out.element_size = info->element_size;
  out.element_bits = info->element_bits;
  return out;
}

/**
 * The resolved geometry of a tensor cut into parts, from which execution needs nothing else. The
 * whole tensor (a split's input, a concat's output) is viewed as [outer, axis_dim, inner]; part i
 * (a split's output i, a concat's input i) is [outer, length(i), inner]. `info.num_outputs` counts
 * the parts whatever the direction. Lengths come in one of three forms, so that no allocation is
 * needed:
 *   - uniform: every part has `chunk`, except the last, which has `last`;
 *   - list: entry i of `list` (whose -1, if any, at `minus_one` resolves to `resolved`);
 *   - tensors: `parts[i].shape[parts_axis]` (a concat's inputs, when `parts` is not NULL).
 */
typedef struct cleave_geometry {
  cleave_shape_info info;
  int64_t outer;       /* product of dims before axis (0 if the tensor is empty) */
  int64_t inner_bytes; /* product of dims after axis times the element size (0 if empty) */
  bool uniform;
  int64_t chunk;
  int64_t last;
  const cleave_values *list;
  int64_t minus_one; /* index of the -1 entry, or -1 */
  int64_t resolved;
  const cleave_tensor *parts;
  int64_t parts_axis;
  /* Packed sub-byte types (inner_bytes is then 0): the same [outer, axis_dim, inner] view in
   * bits. `bits_fit` is false when a bit count of the tensor does not fit in int64 (only for
   * tensors of more than 2^60 bytes, which cannot be in memory: execution refuses them). */
  bool packed;
  bool msb_first;
  bool bits_fit;
  int64_t inner_bits; /* product of dims after axis times the element's bits (0 if empty) */
  int64_t input_bits; /* the whole input's bits */
  /* Whether every block of the split starts and ends on a byte boundary (the axis row and every
   * output length are whole bytes): always for byte-sized types. Packed splits that are take the
   * byte engine; the others the bit-stream copy. */
  bool bytes_aligned;
} cleave_geometry;

/** Bytes of `n` positions along the axis of one input row: exact for byte-sized types and for
 * byte-aligned packed splits (positions at block boundaries). */
static inline int64_t cleave_geometry_bytes(const cleave_geometry *g, int64_t n) {
  return g->packed ? n * g->inner_bits / 8 : n * g->inner_bytes;
}

/** Whether the input holds any byte to move. */
static inline bool cleave_geometry_has_data(const cleave_geometry *g) {
  return g->outer > 0 && g->info.axis_dim > 0 && (g->packed ? g->inner_bits : g->inner_bytes) > 0;
}

/** The byte size of an output of `length` positions on the axis (packed: rounded up). */
static inline int64_t cleave_geometry_output_bytes(const cleave_geometry *g, int64_t length) {
  if (!g->packed) {
    return g->outer * length * g->inner_bytes;
  }
  if (g->inner_bits == 0) {
    return 0;
  }
  int64_t bits = g->info.element_bits;
  return cleave_packed_bytes(g->outer * length * (g->inner_bits / bits), bits);
}

/** geometry.c: the length of part i on the axis (i < num_outputs). */
int64_t cleave_geometry_length(const cleave_geometry *geom, int64_t i);

/**
 * geometry.c: fills the packed part of a geometry whose info (axis_dim, num_outputs,
 * element_bits) and lengths are set, for a whole tensor of `outer` rows of `inner` elements (from
 * 1) after the axis, with the first element of a byte in its most significant bits when
 * `msb_first`; `empty` when the tensor holds no element. Sets `bits_fit` (the bit counts fit in
 * int64) and `bytes_aligned` (an axis row and every part's share of it are whole bytes).
 */
void cleave_geometry_pack(cleave_geometry *geom, bool empty, int64_t outer, int64_t inner,
                          bool msb_first);

#endif /* CLEAVE_GEOMETRY_H */
