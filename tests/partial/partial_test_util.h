/*
 * Helpers of the partial-shape tests: a seeded generator, descriptions of one inference case and
 * the brute-force reference that enumerates every concrete input of a bounded partial case and
 * runs the static inference (cleave_infer) on each.
 *
 * The reference knows nothing of the closed forms: it only builds concrete shapes, axes and
 * lengths, asks the static routine for the lengths on the axis, and takes hulls of the results.
 */
#ifndef CLEAVE_PARTIAL_TEST_UTIL_H
#define CLEAVE_PARTIAL_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cleave.h"

/** The largest data rank of a generated case. */
#define PT_MAX_RANK 4
/** The largest number of split lengths of a generated case. */
#define PT_MAX_LENGTHS 4
/** The largest output count the reference records per index. */
#define PT_MAX_OUTPUTS 64

/** A small deterministic generator (xorshift64*). */
typedef struct pt_rng {
  uint64_t state;
} pt_rng;

/** Seeds a generator (any seed, 0 included). */
void pt_seed(pt_rng *rng, uint64_t seed);
/** A uniform value in [0, n) for n >= 1. */
int64_t pt_below(pt_rng *rng, int64_t n);
/** A uniform value in [lo, hi]. */
int64_t pt_between(pt_rng *rng, int64_t lo, int64_t hi);

/** Where the lengths of a case come from. */
typedef enum pt_lengths_form {
  PT_LENGTHS_ABSENT = 0,
  PT_LENGTHS_SCALAR = 1, /* SplitToSequence's scalar split */
  PT_LENGTHS_LIST = 2
} pt_lengths_form;

/** One partial inference case, with everything needed to build concrete instances. */
typedef struct pt_case {
  cleave_op_kind kind;
  int64_t opset;
  cleave_type type;
  size_t rank; /* CLEAVE_RANK_DYNAMIC allowed only in hand-made cases */
  cleave_dim dims[PT_MAX_RANK];
  bool axis_unknown;
  int64_t axis;
  bool axis_1d; /* VariadicSplit's shape-[1] axis */
  pt_lengths_form lengths_form;
  bool lengths_unknown;
  int64_t lengths[PT_MAX_LENGTHS]; /* the values, or the scalar in lengths[0] */
  int64_t num_lengths;
  int64_t num_splits;  /* Split-1's num_splits; ONNX Split's num_outputs when has_num_outputs */
  int has_num_outputs; /* ONNX Split only */
  int64_t keepdims;
} pt_case;

/** Builds the cleave_op of a case. Axis and lengths point into `c` (so `c` must outlive the op);
 * unknown values are given NULL data, which the library must not read. */
cleave_op pt_op(const pt_case *c);

/** The CLEAVE_UNKNOWN_* flags of a case. */
unsigned pt_unknown(const pt_case *c);

/** Describes a case on one line (for failure reports). */
void pt_describe(const pt_case *c, char *buf, size_t size);

/** The outcome of partial inference in plain form, from either the library or the reference. */
typedef struct pt_result {
  cleave_status status;
  unsigned status_mask; /* reference only: every status a concrete instance gave (bit = status) */
  bool count_varies;
  cleave_dim count;
  size_t output_rank;
  size_t num_shapes;
  cleave_dim shapes[PT_MAX_OUTPUTS][PT_MAX_RANK];
  char message[CLEAVE_MESSAGE_SIZE];
} pt_result;

/** Runs cleave_infer_partial on a case; checks the capacity protocol along the way and returns
 * false (with a note in `why`) if it is broken. */
bool pt_library(const pt_case *c, pt_result *out, char *why, size_t why_size);

/**
 * The brute-force reference: enumerates every concrete input of a bounded case (every shape in
 * the intervals, every axis value when unknown, every length tuple up to the largest dimension
 * when unknown), runs cleave_infer on each and takes the hulls. `instances` receives the number
 * of static calls made. Returns false when the case is not enumerable (unbounded or dynamic).
 */
bool pt_reference(const pt_case *c, pt_result *out, int64_t *instances);

/** The number of concrete instances pt_reference would enumerate (INT64_MAX if too many to
 * count). */
int64_t pt_instance_count(const pt_case *c);

/** Compares a library result with the reference; on a mismatch writes why and returns false. */
bool pt_same(const pt_result *lib, const pt_result *ref, char *why, size_t why_size);

/** Formats a result as the CLI prints it (one line per shape, or "COUNT x SHAPE"), lines joined
 * by '\n', or "error: MESSAGE". */
void pt_format(const pt_result *r, char *buf, size_t size);

#endif /* CLEAVE_PARTIAL_TEST_UTIL_H */
