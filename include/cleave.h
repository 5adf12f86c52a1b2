/*
 * cleave: the tensor-split operators of OpenVINO (Split-1, VariadicSplit-1) and ONNX
 * (SplitToSequence-11/-24, Split-1/2/11/13/18), with exact spec semantics, and their inverses
 * (Concat, ConcatFromSequence: the last section).
 *
 * What every operator does, rule by rule with its errors, is documented in docs/operators.md (and
 * the command line in docs/cli.md); this header is the C interface.
 *
 * Life cycle (after XNNPACK): describe the operator once in a `cleave_op`, then either
 *   - infer the output shapes without allocating (`cleave_infer`, or `cleave_infer_partial` when
 *     the shape or values are only partly known),
 *   - run it once (`cleave_run`, or the per-operator one-shot calls), or
 *   - create a plan that validates and precomputes everything for one input shape
 *     (`cleave_plan_create`) and run it many times with new data pointers (`cleave_plan_run`).
 *
 * Conventions that hold for every function here:
 *   - Ranks, counts, indices and capacities are `size_t`, as are sizes of memory blocks.
 *     Dimensions, split lengths, axis values, opsets, string widths and tensors' byte sizes are
 *     `int64_t`, as in the tensors they come from, and so are intervals (`cleave_dim`), the
 *     partial output count included. Flags are `int` (0/1).
 *     Enumerations are typed as their enum, except `cleave_unknown` flags, which are or-ed.
 *   - An optional operator input or attribute that is not given is absent, spelled one way:
 *     `cleave_values_none()` (rank CLEAVE_ABSENT). What partial inference does not know is
 *     CLEAVE_RANK_DYNAMIC (a rank), CLEAVE_AXIS_UNKNOWN (an axis position) or
 *     CLEAVE_DIM_UNBOUNDED (a dimension's upper bound).
 *   - The caller owns all memory it passes in. The library allocates only in functions that say
 *     so (`cleave_plan_create*`, `cleave_threadpool_create`, `cleave_arena_create`,
 *     `cleave_plan_run_alloc*`, the last from the caller's allocator when given one); what they
 *     allocate is released by the matching `_destroy` / `cleave_outputs_free`. Nothing else
 *     allocates, and the library keeps no global mutable state.
 *   - Every fallible function returns a `cleave_status` and takes a `cleave_error *err`: when
 *     `err` is not NULL it receives the same status and a human-readable message naming the
 *     offending value and the rule it broke. The exceptions are the plain queries (names,
 *     accessors), which can only fail on a bad argument (NULL, out of range, unknown value) and
 *     report it with one sentinel per result type: NULL for pointers, -1 for int64 values, 0 for
 *     counts.
 *   - On failure no output byte is written: every check happens before the first copy.
 *   - Every function is thread-safe as long as concurrent calls do not write to the same output
 *     memory or `cleave_error`.
 */
#ifndef CLEAVE_H
#define CLEAVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions and export
 * ------------------------------------------------------------------------------------------- */

#define CLEAVE_VERSION_MAJOR 0
#define CLEAVE_VERSION_MINOR 2
#define CLEAVE_VERSION_PATCH 0
/** The version as one comparable number: major * 10000 + minor * 100 + patch. */
#define CLEAVE_VERSION_NUMBER                                                                      \
  (CLEAVE_VERSION_MAJOR * 10000 + CLEAVE_VERSION_MINOR * 100 + CLEAVE_VERSION_PATCH)

/* CLEAVE_API marks the exported functions. The shared library is built with hidden visibility so
 * that only these are visible; consumers of the static library need nothing special. */
#if defined(CLEAVE_BUILDING_LIBRARY) && defined(__GNUC__)
#define CLEAVE_API __attribute__((visibility("default")))
#else
#define CLEAVE_API
#endif

/** Returns the library's version number (CLEAVE_VERSION_NUMBER of the build). Thread-safe. */
CLEAVE_API unsigned cleave_version_number(void);

/** Returns the library's version as a static string, e.g. "0.2.0". Thread-safe. */
CLEAVE_API const char *cleave_version_string(void);

/* ---------------------------------------------------------------------------------------------
 * Status and errors
 * ------------------------------------------------------------------------------------------- */

/** Result of every fallible call. The numeric values are fixed and will not change. */
typedef enum cleave_status {
  CLEAVE_OK = 0,
  /** API misuse: a NULL pointer where one is required, an unknown enumerator, an output count
   * that does not match the operator's. */
  CLEAVE_ERROR_INVALID_ARGUMENT = 1,
  /** A shape is not valid: a negative dimension. */
  CLEAVE_ERROR_INVALID_SHAPE = 2,
  /** The axis value, its type or its rank breaks the operator's rules (out of range, rank-0
   * data, a 1-element 1-D axis for OpenVINO Split-1). */
  CLEAVE_ERROR_INVALID_AXIS = 3,
  /** The split description breaks the operator's rules: num_splits, split_lengths, split or
   * num_outputs (counts, signs, divisibility, sums, ranks, types; ONNX Split without a way to
   * know its output count). */
  CLEAVE_ERROR_INVALID_SPLIT = 4,
  /** An attribute value outside its allowed set (keepdims not 0 or 1). */
  CLEAVE_ERROR_INVALID_ATTRIBUTE = 5,
  /** The element type is not accepted by the operator version, or is unknown. */
  CLEAVE_ERROR_UNSUPPORTED_TYPE = 6,
  /** The opset is below the operator's first version. */
  CLEAVE_ERROR_UNSUPPORTED_VERSION = 7,
  /** A size computation (elements, bytes, offsets, sums) does not fit in int64. */
  CLEAVE_ERROR_OVERFLOW = 8,
  /** Memory could not be allocated (by functions that allocate), or an input is too large to be
   * in memory (a packed input of more than 2^60 bytes: docs/operators.md section 1 makes a
   * representable but unallocatable size an out-of-memory error when executing, not a rule
   * violation). */
  CLEAVE_ERROR_OUT_OF_MEMORY = 9,
  /** A caller-provided array is too small; the needed size was reported. */
  CLEAVE_ERROR_CAPACITY = 10,
  /** A zero-copy view was asked of a packed sub-byte output that does not start on a byte
   * boundary (or whose rows do not): that output needs a copy. */
  CLEAVE_ERROR_COPY_REQUIRED = 11
} cleave_status;

/** Size of the message buffer in `cleave_error`, terminating NUL included. */
#define CLEAVE_MESSAGE_SIZE 512

/**
 * A status with its message. Caller-owned; pass NULL where a message is not wanted.
 * After a failing call `message` holds one line without a trailing newline, e.g.
 * "split_lengths sum to 7 but data.shape[0] is 6". After a successful call `status` is CLEAVE_OK
 * and `message` is empty.
 */
typedef struct cleave_error {
  cleave_status status;
  char message[CLEAVE_MESSAGE_SIZE];
} cleave_error;

/**
 * Returns a static, stable, non-empty name for every value of `cleave_status`, in enum order:
 * "ok", "invalid argument", "invalid shape", "invalid axis", "invalid split", "invalid attribute",
 * "unsupported type", "unsupported version", "overflow", "out of memory", "capacity too small",
 * "copy required". For any other value (an int cast to the enum, e.g. a status from a newer
 * library) it returns "unknown status", as strerror names an unknown errno, so that the result
 * can always be printed. Thread-safe.
 */
CLEAVE_API const char *cleave_status_name(cleave_status status);

/* ---------------------------------------------------------------------------------------------
 * Element types
 * ------------------------------------------------------------------------------------------- */

/** Element types. The numeric values are fixed. Names (see `cleave_dtype_name`) are those of
 * docs/operators.md section 7. */
typedef enum cleave_dtype {
  CLEAVE_BOOLEAN = 1, /* one byte per element */
  CLEAVE_I8 = 2,
  CLEAVE_I16 = 3,
  CLEAVE_I32 = 4,
  CLEAVE_I64 = 5,
  CLEAVE_U8 = 6,
  CLEAVE_U16 = 7,
  CLEAVE_U32 = 8,
  CLEAVE_U64 = 9,
  CLEAVE_F16 = 10,
  CLEAVE_BF16 = 11,
  CLEAVE_F32 = 12,
  CLEAVE_F64 = 13,
  CLEAVE_C64 = 14,  /* complex64: two f32 */
  CLEAVE_C128 = 15, /* complex128: two f64 */
  CLEAVE_F8E4M3 = 16,
  CLEAVE_F8E5M2 = 17,
  CLEAVE_F8E4M3FNUZ = 18,
  CLEAVE_F8E5M2FNUZ = 19,
  CLEAVE_F8E8M0 = 20,
  /** Fixed-width byte strings (NumPy `S<n>`): `width` bytes per element. */
  CLEAVE_BYTES = 21,
  /** Fixed-width unicode strings (NumPy `U<n>`): `width` UCS-4 code units, 4 bytes each. */
  CLEAVE_UNICODE = 22,
  /** Variable-length strings (ONNX/OpenVINO `string`): each element is a `cleave_string`. */
  CLEAVE_STRING = 23,
  /* Packed sub-byte types (docs/operators.md section 7). Each tensor is a stream of `bits`-wide
   * elements packed into bytes and padded to a whole byte; see `cleave_type_bits` for the bit
   * order. OpenVINO's: */
  CLEAVE_U1 = 24,     /* 1 bit, first element in the most significant bit */
  CLEAVE_U2 = 25,     /* 2 bits, first element in the most significant bits */
  CLEAVE_U3 = 26,     /* OpenVINO's 3-byte-group layout: not supported (a clear error) */
  CLEAVE_U4 = 27,     /* 4 bits, first element in the least significant bits (as below) */
  CLEAVE_I4 = 28,     /* 4 bits */
  CLEAVE_U6 = 29,     /* OpenVINO's 3-byte-group layout: not supported (a clear error) */
  CLEAVE_NF4 = 30,    /* 4 bits */
  CLEAVE_F4E2M1 = 31, /* 4 bits */
  /* ONNX's, all with the first element in the least significant bits: */
  CLEAVE_INT4 = 32,
  CLEAVE_UINT4 = 33,
  CLEAVE_INT2 = 34,
  CLEAVE_UINT2 = 35,
  CLEAVE_FLOAT4E2M1 = 36
} cleave_dtype;

/**
 * An element type. `width` is used by CLEAVE_BYTES (bytes per element) and CLEAVE_UNICODE
 * (characters per element), where it must be >= 1; it must be 0 for every other dtype.
 */
typedef struct cleave_type {
  cleave_dtype dtype;
  int64_t width;
} cleave_type;

/**
 * A variable-length string element (CLEAVE_STRING). The split copies these handles, not the
 * bytes they point to: output handles point at the same bytes as the input's, which stay owned by
 * whoever owns the input's bytes and must outlive every use of the outputs.
 */
typedef struct cleave_string {
  const char *data;
  size_t size;
} cleave_string;

/** Returns `{dtype, 0}`: the type of a dtype that needs no width. */
static inline cleave_type cleave_type_of(cleave_dtype dtype) {
  cleave_type t;
  t.dtype = dtype;
  t.width = 0;
  return t;
}

/** Returns the name of a dtype ("f32", "string", "bytes", ...), or NULL for an unknown value. */
CLEAVE_API const char *cleave_dtype_name(cleave_dtype dtype);

/** Looks a dtype up by its name as `cleave_dtype_name` spells it. Returns CLEAVE_OK or
 * CLEAVE_ERROR_UNSUPPORTED_TYPE (with a message naming the unknown name). */
CLEAVE_API cleave_status cleave_dtype_from_name(const char *name, cleave_dtype *dtype,
                                                cleave_error *err);

/**
 * Stores in `*bytes` the size of one element of `type`. Returns CLEAVE_OK,
 * CLEAVE_ERROR_UNSUPPORTED_TYPE (unknown dtype, or a width that is missing or not allowed) or
 * CLEAVE_ERROR_OVERFLOW (a unicode width whose byte size does not fit in int64).
 */
CLEAVE_API cleave_status cleave_type_size(cleave_type type, int64_t *bytes, cleave_error *err);

/** Bit orders of packed types: where a byte's first element sits. */
typedef enum cleave_bit_order {
  CLEAVE_BIT_ORDER_NONE = 0,      /* byte-sized types */
  CLEAVE_BIT_ORDER_LSB_FIRST = 1, /* the first element in the least significant bits */
  CLEAVE_BIT_ORDER_MSB_FIRST = 2  /* the first element in the most significant bits */
} cleave_bit_order;

/**
 * Stores in `*bits` the size of one element of `type` in bits (8 times the byte size for
 * byte-sized types; 1, 2 or 4 for packed ones) and, if `order` is not NULL, its bit order.
 * A packed tensor of N elements takes ceil(N * bits / 8) bytes. Returns CLEAVE_OK or
 * CLEAVE_ERROR_UNSUPPORTED_TYPE (as `cleave_type_size`; u3 and u6 are not supported) or
 * CLEAVE_ERROR_OVERFLOW. `cleave_type_size` fails for packed types, whose elements are not
 * whole bytes.
 */
CLEAVE_API cleave_status cleave_type_bits(cleave_type type, int64_t *bits, cleave_bit_order *order,
                                          cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * Operators
 * ------------------------------------------------------------------------------------------- */

/** The `rank` of absent values: an optional operator input or attribute that is not given. */
#define CLEAVE_ABSENT SIZE_MAX

/**
 * The integer values an operator reads from an input or an attribute: an axis, split lengths,
 * a SplitToSequence `split`, an ONNX Split output count. It mirrors the tensor that holds them, so
 * that the operators' rules on its type and rank can be checked.
 *   - `rank` CLEAVE_ABSENT means absent (`cleave_values_none()`); 0 a scalar (one value); 1 a 1-D
 *     tensor of `count` values; ranks >= 2 are representable so that they can be rejected as the
 *     specs require (the values are then `count` values in row-major order).
 *   - `dtype` is an integer type (CLEAVE_I8 .. CLEAVE_U64), or for ONNX Split-1's `split`
 *     input the data's float type (CLEAVE_F16, CLEAVE_F32, CLEAVE_F64: whole numbers).
 *   - `data` points at the values in native byte order; it is read during the call (and copied by
 *     `cleave_plan_create`), never kept.
 */
typedef struct cleave_values {
  cleave_dtype dtype;
  size_t rank;
  size_t count;
  const void *data;
} cleave_values;

/** Returns absent values (rank CLEAVE_ABSENT): the one spelling of "not given". */
static inline cleave_values cleave_values_none(void) {
  cleave_values v;
  v.dtype = CLEAVE_I64;
  v.rank = CLEAVE_ABSENT;
  v.count = 0;
  v.data = NULL;
  return v;
}

/** Returns an int64 scalar pointing at `*value` (which must outlive the use). */
static inline cleave_values cleave_values_scalar(const int64_t *value) {
  cleave_values v;
  v.dtype = CLEAVE_I64;
  v.rank = 0;
  v.count = 1;
  v.data = value;
  return v;
}

/** Returns an int64 1-D list of `count` values at `values` (which must outlive the use). */
static inline cleave_values cleave_values_list(const int64_t *values, size_t count) {
  cleave_values v;
  v.dtype = CLEAVE_I64;
  v.rank = 1;
  v.count = count;
  v.data = values;
  return v;
}

/**
 * Returns values of any type and rank, as the tensor that holds them: `count` values of `dtype`
 * at `data` (which must outlive the use), in a tensor of rank `rank` (0: a scalar, whose count
 * is 1; 1: a list). For example the int32 lengths of an ONNX model,
 * `cleave_values_of(CLEAVE_I32, 1, 3, lengths)`, or a uint8 scalar axis,
 * `cleave_values_of(CLEAVE_U8, 0, 1, &axis)`. Nothing is checked here: the operators check the
 * type, rank and count against their rules when they read the values.
 */
static inline cleave_values cleave_values_of(cleave_dtype dtype, size_t rank, size_t count,
                                             const void *data) {
  cleave_values v;
  v.dtype = dtype;
  v.rank = rank;
  v.count = count;
  v.data = data;
  return v;
}

/** The operators. Values are fixed. */
typedef enum cleave_op_kind {
  /** OpenVINO Split-1: `axis` (required; a scalar of any integer type), `num_splits`. */
  CLEAVE_OP_SPLIT = 1,
  /** OpenVINO VariadicSplit-1: `axis` (required; scalar or shape [1]), `lengths`
   * (split_lengths: 1-D, any integer type, one -1 allowed). */
  CLEAVE_OP_VARIADIC_SPLIT = 2,
  /** ONNX SplitToSequence-11/-24: `opset`, `axis` (attribute; absent means 0), `lengths` (the
   * optional `split` input: absent, an int32/int64 scalar, or 1-D), `keepdims`. */
  CLEAVE_OP_SPLIT_TO_SEQUENCE = 3,
  /** ONNX Split-1/2/11/13/18: `opset`, `axis` (attribute; absent means 0), `lengths` (the
   * `split` attribute or input: absent or int64 1-D; Split-1's `split` input has the data's type
   * T instead, f16/f32/f64 with whole-number values), `num_outputs`. */
  CLEAVE_OP_ONNX_SPLIT = 4
} cleave_op_kind;

/**
 * One operator with its attributes and the values of its non-data inputs. Build it with one of
 * the `cleave_op_*` initialisers below (they set the defaults and make every optional field
 * absent), then change fields as needed. Fields an operator does not use are ignored. A zeroed
 * description (`cleave_op op = {0};`) is no operator: every call refuses it with
 * CLEAVE_ERROR_INVALID_ARGUMENT and a message naming the initialisers.
 */
typedef struct cleave_op {
  cleave_op_kind kind;
  /** ONNX operators: the opset; the operator version in force is the largest version of the
   * operator not above it (opset 12 runs Split-11). Ignored by the OpenVINO operators. */
  int64_t opset;
  /** The axis. For the ONNX operators an attribute: absent means the default 0. */
  cleave_values axis;
  /** VariadicSplit split_lengths; SplitToSequence split; ONNX Split split. Optional. */
  cleave_values lengths;
  /** OpenVINO Split-1 only: num_splits (>= 1). */
  int64_t num_splits;
  /** ONNX Split only, optional: the node's number of outputs below opset 18 (required there
   * without `lengths`, checked against their count with them); the `num_outputs` attribute at
   * 18. A scalar of an integer type. */
  cleave_values num_outputs;
  /** SplitToSequence keepdims: 0 or 1 (default 1). */
  int64_t keepdims;
} cleave_op;

/** OpenVINO Split-1 on `*axis` (int64 scalar, which must outlive the use) into `num_splits`. */
static inline cleave_op cleave_op_split(const int64_t *axis, int64_t num_splits) {
  cleave_op op;
  op.kind = CLEAVE_OP_SPLIT;
  op.opset = 1;
  op.axis = cleave_values_scalar(axis);
  op.lengths = cleave_values_none();
  op.num_splits = num_splits;
  op.num_outputs = cleave_values_none();
  op.keepdims = 1;
  return op;
}

/** OpenVINO VariadicSplit-1 on `*axis` with `count` int64 split_lengths. */
static inline cleave_op cleave_op_variadic_split(const int64_t *axis, const int64_t *lengths,
                                                 size_t count) {
  cleave_op op = cleave_op_split(axis, 0);
  op.kind = CLEAVE_OP_VARIADIC_SPLIT;
  op.lengths = cleave_values_list(lengths, count);
  return op;
}

/** ONNX SplitToSequence at `opset` with axis 0, keepdims 1 and no `split`. */
static inline cleave_op cleave_op_split_to_sequence(int64_t opset) {
  cleave_op op;
  op.kind = CLEAVE_OP_SPLIT_TO_SEQUENCE;
  op.opset = opset;
  op.axis = cleave_values_none();
  op.lengths = cleave_values_none();
  op.num_splits = 0;
  op.num_outputs = cleave_values_none();
  op.keepdims = 1;
  return op;
}

/** ONNX Split at `opset` with axis 0, no `split` and no output count. */
static inline cleave_op cleave_op_onnx_split(int64_t opset) {
  cleave_op op = cleave_op_split_to_sequence(opset);
  op.kind = CLEAVE_OP_ONNX_SPLIT;
  return op;
}

/* ---------------------------------------------------------------------------------------------
 * Shape inference
 * ------------------------------------------------------------------------------------------- */

/**
 * The outcome of shape inference on a static shape. Output i has the input's shape with
 * `lengths[i]` on dimension `axis`, and, when `axis_removed` is set (SplitToSequence with
 * keepdims 0 and no `split`), without that dimension.
 */
typedef struct cleave_split_info {
  size_t axis;          /* normalised axis, in [0, rank) */
  int64_t axis_dim;     /* the input's dimension on axis */
  size_t num_outputs;   /* may be 0: an empty sequence */
  size_t output_rank;   /* rank, or rank - 1 when axis_removed */
  int axis_removed;     /* 1 when the outputs drop the axis */
  int64_t element_size; /* bytes per element; 0 for packed sub-byte types */
  int64_t element_bits; /* bits per element: 8 * element_size for byte-sized types (0 when that
                         * exceeds INT64_MAX, for elements of more than 2^60 bytes) */
} cleave_split_info;

/**
 * Infers the outputs of `op` on data of type `type` and shape `shape[0..rank)`.
 *
 * Fills `*info`. When `lengths` is not NULL it receives the per-output length on the axis, and
 * must hold `capacity` entries: if fewer than `info->num_outputs`, the call fails with
 * CLEAVE_ERROR_CAPACITY (and `info` filled). Pass `lengths` NULL to learn the count first.
 * `shape` may be NULL when rank is 0.
 *
 * Returns CLEAVE_OK or the status of the first rule broken (see `cleave_status`).
 * Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_infer(const cleave_op *op, cleave_type type, const int64_t *shape,
                                      size_t rank, cleave_split_info *info, int64_t *lengths,
                                      size_t capacity, cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * Partial shapes (shape inference without all the values)
 * ------------------------------------------------------------------------------------------- */

/*
 * Shape inference when the data shape, the axis value or the split lengths are only partly known
 * (docs/operators.md section 6). The result is the tightest per-output, per-dimension interval hull
 * over every concrete input consistent with what is known for which the operator is valid; when
 * no such input exists the call fails with the error the operator would give. Static inference
 * (`cleave_infer`) is the special case where every interval is a point and every value is known:
 * both go through the same rules.
 *
 * Dimensions are treated as unbounded integers: an interval may have no upper bound, and the
 * element type's byte size plays no part (it does for static shapes). Unknown split values are
 * any integers the operator's rules allow, whatever the lengths' integer type. A sum of *known*
 * lengths that does not fit in int64 is still CLEAVE_ERROR_OVERFLOW, as in static inference.
 */

/** The `hi` of a dimension with no upper bound (`L..` and `?` in the text form). It is distinct
 * from every finite bound, INT64_MAX included. */
#define CLEAVE_DIM_UNBOUNDED ((int64_t)-1)

/** The `rank` of a partial shape whose rank is unknown (`[...]` in the text form), and the
 * `output_rank` of outputs of such data. */
#define CLEAVE_RANK_DYNAMIC SIZE_MAX

/** The `axis` of `cleave_partial_info` when the axis position is unknown (an unknown axis value,
 * or data of dynamic rank). */
#define CLEAVE_AXIS_UNKNOWN SIZE_MAX

/**
 * A dimension known to lie in [lo, hi]: 0 <= lo <= hi <= INT64_MAX, or hi == CLEAVE_DIM_UNBOUNDED
 * for no upper bound. A static dimension has lo == hi.
 */
typedef struct cleave_dim {
  int64_t lo;
  int64_t hi;
} cleave_dim;

/** Returns the static dimension [value, value]. */
static inline cleave_dim cleave_dim_point(int64_t value) {
  cleave_dim d;
  d.lo = value;
  d.hi = value;
  return d;
}

/** Returns [lo, hi] (hi may be CLEAVE_DIM_UNBOUNDED). */
static inline cleave_dim cleave_dim_range(int64_t lo, int64_t hi) {
  cleave_dim d;
  d.lo = lo;
  d.hi = hi;
  return d;
}

/** Returns the fully unknown dimension [0, unbounded] (`?`). */
static inline cleave_dim cleave_dim_any(void) {
  return cleave_dim_range(0, CLEAVE_DIM_UNBOUNDED);
}

/**
 * A partial shape: `rank` >= 0 dimensions at `dims` (which may be NULL when rank is 0), or
 * `rank` == CLEAVE_RANK_DYNAMIC (dims ignored). The caller owns `dims`.
 */
typedef struct cleave_partial_shape {
  size_t rank;
  const cleave_dim *dims;
} cleave_partial_shape;

/**
 * Flags for `cleave_infer_partial` saying which of the operator's values are unknown.
 * CLEAVE_UNKNOWN_AXIS: the axis value is unknown (its tensor's type and rank, in `op->axis`, are
 * still checked; its data is not read). For the ONNX operators an absent axis attribute flagged
 * unknown counts as present with an unknown value; the OpenVINO operators still need the input.
 * CLEAVE_UNKNOWN_LENGTHS: the values of `op->lengths` are unknown: its dtype, rank and count are
 * known and checked, its data is not read (it may be NULL). Lengths are all known or all unknown.
 * The flag is ignored when `op->lengths` is absent or unused by the operator.
 */
typedef enum cleave_unknown {
  CLEAVE_UNKNOWN_NONE = 0,
  CLEAVE_UNKNOWN_AXIS = 1,
  CLEAVE_UNKNOWN_LENGTHS = 2
} cleave_unknown;

/**
 * The outcome of partial-shape inference.
 *
 * The outputs (sequence elements for SplitToSequence) come in one of two forms:
 *   - `count_varies` == 0: `count` is a point C and there are C output shapes, each its own
 *     tightest hull (`num_shapes` == C; C may be 0, an empty sequence);
 *   - `count_varies` == 1 (SplitToSequence only, when the element count differs between
 *     consistent inputs): `count` is the interval of possible counts and there is one shape, the
 *     hull over every element of every consistent input (`num_shapes` == 1).
 * Every output shape has rank `output_rank` (CLEAVE_RANK_DYNAMIC when the data's rank is).
 */
typedef struct cleave_partial_info {
  cleave_dim count;   /* the number of outputs, as an interval */
  int count_varies;   /* 1 when `count` is not a point (then num_shapes is 1) */
  size_t num_shapes;  /* the number of output shapes described */
  size_t output_rank; /* rank of every output shape, or CLEAVE_RANK_DYNAMIC */
  size_t axis;        /* the normalised axis, or CLEAVE_AXIS_UNKNOWN */
  int axis_removed;   /* 1 when the outputs drop the axis (keepdims 0) */
  size_t dims_needed; /* num_shapes * output_rank (0 for a dynamic rank): the entries `dims` must
                       * hold */
} cleave_partial_info;

/**
 * Infers the outputs of `op` on data of type `type` and partial shape `*shape`, with the values
 * named in `unknown` (`cleave_unknown` flags, or-ed) unknown. The rules are those of
 * `cleave_infer` (same checks, same order, same statuses; for a static shape and known values
 * the same messages), applied to every consistent input (docs/operators.md section 6).
 *
 * Fills `*info`. When `dims` is not NULL it receives the output shapes one after the other:
 * shape i is dims[i * output_rank .. (i + 1) * output_rank) (nothing for a dynamic rank). It must
 * hold `capacity` entries: if fewer than `info->dims_needed`, the call fails with
 * CLEAVE_ERROR_CAPACITY (with `info` filled and `dims` untouched). Pass `dims` NULL to learn the
 * size first.
 *
 * Returns CLEAVE_OK or the status of the first rule broken; CLEAVE_ERROR_INVALID_SHAPE for a
 * malformed partial shape (lo < 0, hi < lo). Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_infer_partial(const cleave_op *op, unsigned unknown,
                                              cleave_type type, const cleave_partial_shape *shape,
                                              cleave_partial_info *info, cleave_dim *dims,
                                              size_t capacity, cleave_error *err);

/**
 * Parses the text form of a partial shape (docs/operators.md section 6): `[6,12,10,24]`, `[]` (a
 * scalar), `[...]` (dynamic rank); a dimension is `N`, `?` or `-1` (any size), `L..H` or `L..` (no
 * upper bound). Spaces and tabs are allowed around brackets, commas and dimensions.
 *
 * Stores the rank (or CLEAVE_RANK_DYNAMIC) in `*rank` and the dimensions in `dims`, which holds
 * `capacity` entries; pass `dims` NULL to learn the rank first. Returns CLEAVE_OK,
 * CLEAVE_ERROR_INVALID_SHAPE (malformed text, a number above INT64_MAX, `L..H` with L > H: the
 * message names the offending character or dimension and its position),
 * CLEAVE_ERROR_CAPACITY (rank above `capacity`; `*rank` is set, `dims` untouched) or
 * CLEAVE_ERROR_INVALID_ARGUMENT (`text` or `rank` NULL). Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_partial_shape_parse(const char *text, cleave_dim *dims,
                                                    size_t capacity, size_t *rank,
                                                    cleave_error *err);

/**
 * Writes the canonical text form of `*shape` to `buf` (`size` bytes, NUL included): `[...]` for a
 * dynamic rank, otherwise `[d0,d1,...]` with no spaces, each dimension as `cleave_dim_format`
 * writes it. `*length` (when not NULL) receives the text's length without the NUL, even when it
 * does not fit. Returns CLEAVE_OK, CLEAVE_ERROR_CAPACITY (buf too small: buf receives "" when
 * size > 0), CLEAVE_ERROR_INVALID_SHAPE (a malformed dimension) or
 * CLEAVE_ERROR_INVALID_ARGUMENT (shape NULL, or dims NULL with rank > 0). Thread-safe.
 */
CLEAVE_API cleave_status cleave_partial_shape_format(const cleave_partial_shape *shape, char *buf,
                                                     size_t size, size_t *length,
                                                     cleave_error *err);

/** The size of a buffer that holds any dimension's text form, NUL included. */
#define CLEAVE_DIM_TEXT_SIZE 48

/**
 * Writes the canonical text form of one dimension (or of `cleave_partial_info.count`) to `buf`:
 * `N` for a point, `?` for [0, unbounded], `L..` for [L, unbounded] with L > 0, `L..H` otherwise.
 * `*length` and the statuses are as for `cleave_partial_shape_format`; a buffer of
 * CLEAVE_DIM_TEXT_SIZE bytes always suffices. Thread-safe.
 */
CLEAVE_API cleave_status cleave_dim_format(cleave_dim dim, char *buf, size_t size, size_t *length,
                                           cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * Execution
 * ------------------------------------------------------------------------------------------- */

/**
 * A dense, row-major tensor as an operator input. `data` holds the product of `shape` elements
 * of `type`, in native byte order (CLEAVE_STRING: that many `cleave_string` handles).
 */
typedef struct cleave_tensor {
  const void *data;
  cleave_type type;
  size_t rank;
  const int64_t *shape;
} cleave_tensor;

/**
 * Runs `op` on `input` once, writing output i (dense, row-major) to `outputs[i]`.
 * `num_outputs` must equal the operator's output count (see `cleave_infer`) or the call fails
 * with CLEAVE_ERROR_INVALID_ARGUMENT naming both counts. Each `outputs[i]` must hold the output's
 * byte size; it may be NULL only when that size is 0. Output buffers must not overlap the input
 * or each other. Nothing is written unless every check passes. Allocates nothing. Returns
 * CLEAVE_OK, any inference status, CLEAVE_ERROR_INVALID_ARGUMENT, or CLEAVE_ERROR_OUT_OF_MEMORY
 * for a packed input too large to be in memory (more than 2^60 bytes).
 */
CLEAVE_API cleave_status cleave_run(const cleave_op *op, const cleave_tensor *input,
                                    void *const *outputs, size_t num_outputs, cleave_error *err);

/*
 * One-shot calls: `cleave_run` of the operator's `cleave_op` initialiser. The split description
 * is one `cleave_values` (absent: `cleave_values_none()`), as in `cleave_op.lengths`, and the
 * output count is `num_outputs`.
 */

/** One-shot OpenVINO Split-1: `cleave_run` of `cleave_op_split(&axis, num_splits)`. */
CLEAVE_API cleave_status cleave_split(const cleave_tensor *input, int64_t axis, int64_t num_splits,
                                      void *const *outputs, size_t num_outputs, cleave_error *err);

/** One-shot OpenVINO VariadicSplit-1 with `split_lengths` (1-D, any integer type). */
CLEAVE_API cleave_status cleave_variadic_split(const cleave_tensor *input, int64_t axis,
                                               cleave_values split_lengths, void *const *outputs,
                                               size_t num_outputs, cleave_error *err);

/** One-shot ONNX SplitToSequence at `opset`, with the optional `split` input. */
CLEAVE_API cleave_status cleave_split_to_sequence(const cleave_tensor *input, int64_t opset,
                                                  int64_t axis, cleave_values split,
                                                  int64_t keepdims, void *const *outputs,
                                                  size_t num_outputs, cleave_error *err);

/** One-shot ONNX Split at `opset`, with the optional `split`. The node has `num_outputs`
 * outputs: without `split` that is the output count (below opset 18) or `num_outputs` (18);
 * with `split` below 18 it is checked against the number of lengths. */
CLEAVE_API cleave_status cleave_onnx_split(const cleave_tensor *input, int64_t opset, int64_t axis,
                                           cleave_values split, void *const *outputs,
                                           size_t num_outputs, cleave_error *err);

/**
 * One output described in place, aliasing the input (DLPack-style): element (k0, k1, ...) of the
 * output is at `data + sum(k_j * strides[j]) * element size`. `shape` and `strides` (in elements,
 * never bytes) have `rank` entries and point into the caller's `dims` array (see
 * `cleave_plan_views`). `contiguous` is 1 when the output's elements are dense and row-major at
 * `data` (then a copy of its byte size from `data` is the output): always when every input dim
 * before the axis is 1, when the output takes the whole axis, or when the output is empty.
 * `data` is NULL only when the input pointer was NULL (an empty input).
 * For packed sub-byte types, `data` is the byte where the output's first row starts (views exist
 * only when every row starts on a byte boundary), and strides still count elements: element k is
 * at bit (sum k_j * strides[j]) * bits of the stream that starts at `data`, in the type's bit
 * order.
 */
typedef struct cleave_view {
  const void *data;
  size_t rank;
  const int64_t *shape;
  const int64_t *strides;
  int contiguous;
} cleave_view;

/** The number of int64 entries `cleave_plan_views` needs in `dims`: 2 * outputs * output rank. */
#define CLEAVE_VIEW_DIMS(num_outputs, output_rank) ((size_t)2 * (num_outputs) * (output_rank))

/**
 * One-shot form of `cleave_plan_views`: validates `op` on `input` (as `cleave_run` does) and
 * describes its outputs as views of `input->data`. Returns CLEAVE_OK, any inference status, or
 * a status of `cleave_plan_views`. Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_views(const cleave_op *op, const cleave_tensor *input,
                                      cleave_view *views, size_t num_views, int64_t *dims,
                                      size_t dims_capacity, cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * Threads
 * ------------------------------------------------------------------------------------------- */

/** One piece of parallel work: the library's code for task `index` of a parallel-for. */
typedef void (*cleave_task_fn)(void *task_context, size_t index);

/**
 * A parallel-for supplied by the caller (e.g. a bridge to its own thread pool): it must call
 * `task(task_context, i)` exactly once for every i in [0, count), from any threads, in any order
 * and possibly concurrently, and return only when every call has returned. `pool_context` is the
 * `context` of the `cleave_exec` it came with.
 */
typedef void (*cleave_parallel_for_fn)(void *pool_context, cleave_task_fn task, void *task_context,
                                       size_t count);

/**
 * How a run may use threads. All zero (or a NULL `cleave_exec *`) means: only the calling thread.
 * `num_threads` is how many threads `parallel_for` can run at once (the calling thread included);
 * the library splits large runs into a few tasks per thread. Runs smaller than the plan's
 * `parallel_bytes` never call `parallel_for`.
 */
typedef struct cleave_exec {
  cleave_parallel_for_fn parallel_for;
  void *context;
  size_t num_threads;
} cleave_exec;

/** A built-in pool of worker threads. Opaque; created and destroyed by the caller. */
typedef struct cleave_threadpool cleave_threadpool;

/**
 * Creates a pool that runs work on `num_threads` threads: the calling thread of each parallel-for
 * and `num_threads - 1` workers (so 1 starts no thread). Returns CLEAVE_OK,
 * CLEAVE_ERROR_INVALID_ARGUMENT (`num_threads` 0, or above 1024, or `pool` NULL) or
 * CLEAVE_ERROR_OUT_OF_MEMORY (memory or threads could not be had; nothing is left running).
 * `*pool` is NULL on failure.
 */
CLEAVE_API cleave_status cleave_threadpool_create(size_t num_threads, cleave_threadpool **pool,
                                                  cleave_error *err);

/** Stops and joins the workers and releases the pool. No run may be using it. NULL is a no-op. */
CLEAVE_API void cleave_threadpool_destroy(cleave_threadpool *pool);

/** Returns the pool's thread count (the `num_threads` it was created with); 0 for NULL. */
CLEAVE_API size_t cleave_threadpool_threads(const cleave_threadpool *pool);

/**
 * The pool's parallel-for, with the `cleave_parallel_for_fn` signature (`pool_context` is the
 * pool). Runs `task(task_context, i)` for every i < count on the pool's threads and returns when
 * all are done. The pool runs one job at a time: a call made while it is busy (from inside one of
 * its tasks, i.e. nested use, or from another thread) runs its tasks on the calling thread
 * instead of waiting, so nested and concurrent use never deadlocks.
 */
CLEAVE_API void cleave_threadpool_parallel_for(void *pool_context, cleave_task_fn task,
                                               void *task_context, size_t count);

/** Returns the `cleave_exec` that runs on `pool` (all zero for NULL: the calling thread only). */
CLEAVE_API cleave_exec cleave_exec_threadpool(cleave_threadpool *pool);

/* ---------------------------------------------------------------------------------------------
 * Plans: validate once, run many times
 * ------------------------------------------------------------------------------------------- */

/** An operator bound to one input type and shape, with its copy schedule precomputed. Opaque;
 * immutable after creation, so one plan may be run from several threads at once (into different
 * outputs). */
typedef struct cleave_plan cleave_plan;

/** Kernel families for `cleave_plan_options.kernels`. */
typedef enum cleave_kernels_choice {
  /** The best family this CPU supports (checked at plan creation). */
  CLEAVE_KERNELS_AUTO = 0,
  /** Portable C kernels (with SSE2 streaming stores on x86-64), on every CPU. */
  CLEAVE_KERNELS_PORTABLE = 1,
  /** AVX2 kernels; plan creation fails with CLEAVE_ERROR_INVALID_ARGUMENT without AVX2. */
  CLEAVE_KERNELS_AVX2 = 2
} cleave_kernels_choice;

/**
 * Tuning of a plan's copy schedule. Start from `cleave_plan_options_default()`. The defaults suit
 * large-memory x86 machines; the fields exist so that tests can force each kernel on small data
 * and callers can tune for their cache sizes. Results never depend on them, only speed.
 */
typedef struct cleave_plan_options {
  /** Runs that move at least this many bytes (the input's byte size) write whole cache lines
   * with non-temporal stores, bypassing the caches. >= 0; INT64_MAX disables them. */
  int64_t nontemporal_bytes;
  /** Runs smaller than this (input bytes) stay on the calling thread. >= 0. */
  int64_t parallel_bytes;
  /** An output taking fewer bytes than this from each input row (e.g. one element per row) is
   * copied by the gather/transposition kernels rather than row by row. >= 1. */
  int64_t tiny_bytes;
  /** Which kernel family to use. */
  cleave_kernels_choice kernels;
} cleave_plan_options;

/** Returns the default options. Thread-safe. */
CLEAVE_API cleave_plan_options cleave_plan_options_default(void);

/**
 * Validates `op` on `type` and `shape[0..rank)` and allocates a plan in `*plan` (set to NULL on
 * failure). The op's values are copied: `op` and what it points at need not outlive the call.
 * Returns CLEAVE_OK, any inference status, or CLEAVE_ERROR_OUT_OF_MEMORY.
 */
CLEAVE_API cleave_status cleave_plan_create(const cleave_op *op, cleave_type type,
                                            const int64_t *shape, size_t rank, cleave_plan **plan,
                                            cleave_error *err);

/**
 * `cleave_plan_create` with options (NULL: the defaults). Returns what `cleave_plan_create` does,
 * and CLEAVE_ERROR_INVALID_ARGUMENT for an option out of range or AVX2 kernels on a CPU without
 * AVX2.
 */
CLEAVE_API cleave_status cleave_plan_create_with(const cleave_op *op, cleave_type type,
                                                 const int64_t *shape, size_t rank,
                                                 const cleave_plan_options *options,
                                                 cleave_plan **plan, cleave_error *err);

/** Releases a plan. NULL is a no-op. */
CLEAVE_API void cleave_plan_destroy(cleave_plan *plan);

/** Returns the inference outcome the plan was built from (NULL for a NULL plan). */
CLEAVE_API const cleave_split_info *cleave_plan_info(const cleave_plan *plan);

/** Returns output i's length on the axis (-1 for a NULL plan or i >= num_outputs). */
CLEAVE_API int64_t cleave_plan_output_length(const cleave_plan *plan, size_t i);

/** Returns output i's size in bytes (-1 for a NULL plan or i >= num_outputs). */
CLEAVE_API int64_t cleave_plan_output_bytes(const cleave_plan *plan, size_t i);

/**
 * Writes output i's shape (`cleave_plan_info(plan)->output_rank` entries) to `dims`.
 * Returns CLEAVE_OK or CLEAVE_ERROR_INVALID_ARGUMENT (NULL plan, i out of range, `dims` NULL for
 * rank > 0).
 */
CLEAVE_API cleave_status cleave_plan_output_shape(const cleave_plan *plan, size_t i, int64_t *dims,
                                                  cleave_error *err);

/**
 * Describes the copy schedule the plan chose, as a string owned by the plan (valid until
 * `cleave_plan_destroy`; NULL for a NULL plan), e.g. "avx2 rows nt", "portable transpose4 gather"
 * or "bits". Words: the kernel family; "rows" (row-by-row block copies, one block per output when
 * every dim before the axis is 1), "transpose1/2/4/8" and "gather" (tiny-output kernels); "nt"
 * when some copy writes with non-temporal (streaming) stores: large row copies, and in the AVX2
 * family large transpositions and gathers of 16- and 32-byte units; "empty" when there is nothing
 * to copy; "bits" alone for a packed split whose blocks are not whole bytes (the bit-stream copy).
 */
CLEAVE_API const char *cleave_plan_description(const cleave_plan *plan);

/**
 * Runs the plan: reads the input at `input`, writes output i to `outputs[i]` for every
 * i < num_outputs (a NULL entry is allowed only for a 0-byte output). No shape validation
 * happens here; only the pointers are checked. Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_plan_run(const cleave_plan *plan, const void *input,
                                         void *const *outputs, cleave_error *err);

/**
 * `cleave_plan_run` that may use threads as `exec` allows (NULL: the calling thread only).
 * Same checks, statuses and guarantees; nothing is written unless the checks pass. Allocates
 * nothing. Thread-safe; may be called from a task of the same pool (see
 * `cleave_threadpool_parallel_for`: a busy built-in pool runs the call on the calling thread).
 */
CLEAVE_API cleave_status cleave_plan_run_exec(const cleave_plan *plan, const void *input,
                                              void *const *outputs, const cleave_exec *exec,
                                              cleave_error *err);

/**
 * Allocates the plan's outputs and runs the plan into them (with threads as `exec` allows).
 * On success `outputs[i]` (the caller's array of num_outputs entries) points at output i, which
 * starts at the same offset modulo 64 as its first element in the input (modulo 4096 for outputs
 * of 1 MiB or more), so outputs are as aligned as the input, except that outputs taking fewer
 * than the plan's `tiny_bytes` from each of several rows (the tiny-output kernels) start on a
 * 64-byte boundary; all outputs live in one block from the system allocator
 * (`cleave_allocator_system`). Release them with `cleave_outputs_free`. On failure every entry of
 * `outputs` is set to NULL and nothing stays allocated; only a NULL plan, whose number of outputs
 * is not known, leaves the array as it is. `outputs` may be NULL when the plan has no outputs. Returns CLEAVE_OK, CLEAVE_ERROR_INVALID_ARGUMENT (NULL plan, outputs or non-empty
 * input), CLEAVE_ERROR_OVERFLOW (the block's size does not fit in size_t/int64) or
 * CLEAVE_ERROR_OUT_OF_MEMORY. Thread-safe.
 */
CLEAVE_API cleave_status cleave_plan_run_alloc(const cleave_plan *plan, const void *input,
                                               const cleave_exec *exec, void **outputs,
                                               cleave_error *err);

/**
 * Releases the outputs of one successful `cleave_plan_run_alloc` (or `cleave_plan_run_alloc_with`,
 * giving the block back to the allocator it came from): pass the same array and its entry count.
 * Sets every entry to NULL. A NULL array, a count of 0 or a NULL first entry is a no-op.
 */
CLEAVE_API void cleave_outputs_free(void **outputs, size_t num_outputs);

/**
 * Describes every output of `plan` as a view of the input at `input`, without copying. Fills
 * `views[0..num_views)`; `num_views` must be the plan's output count (else
 * CLEAVE_ERROR_INVALID_ARGUMENT). Shapes and strides are written to `dims`, which must hold
 * `CLEAVE_VIEW_DIMS(num_outputs, output_rank)` entries (else CLEAVE_ERROR_CAPACITY naming the
 * size needed; `dims` may be NULL when that is 0). The views stay valid while `dims` and the
 * input memory do; they do not refer to the plan. The time taken depends on the output count and
 * rank, never on the tensor's size. Allocates nothing. Thread-safe. Also returns
 * CLEAVE_ERROR_COPY_REQUIRED (naming the output) for packed data whose output rows do not start
 * on byte boundaries, CLEAVE_ERROR_OVERFLOW when the dims needed exceed SIZE_MAX, and
 * CLEAVE_ERROR_OUT_OF_MEMORY for a packed input too large to be in memory. Nothing is written to
 * `views` or `dims` on failure.
 */
CLEAVE_API cleave_status cleave_plan_views(const cleave_plan *plan, const void *input,
                                           cleave_view *views, size_t num_views, int64_t *dims,
                                           size_t dims_capacity, cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * Allocators and the output arena
 * ------------------------------------------------------------------------------------------- */

/*
 * Where library-allocated outputs come from. Every allocating call has a form that takes a
 * `cleave_allocator`; NULL (and the calls without one) means the system allocator. A caller can
 * plug in its own arena (as XNNPACK and ONNX Runtime let callers do), or use the library's
 * `cleave_arena`, which keeps freed blocks for the next run of a fitting size.
 */

/** The largest alignment the library ever asks of an allocator. */
#define CLEAVE_ALLOCATOR_MAX_ALIGNMENT 4096

/**
 * A memory allocator supplied by the caller. Caller-owned; the library copies the struct, so it
 * need not outlive the call, but `user` and what it points at must stay valid until every block
 * allocated through it has been freed.
 *   - `alloc(size, alignment, user)` returns `size` bytes (size >= 1) aligned to `alignment` (a
 *     power of two, at most CLEAVE_ALLOCATOR_MAX_ALIGNMENT), or NULL when it cannot. The memory
 *     need not be zeroed.
 *   - `free(ptr, size, user)` releases a block `alloc` returned, with the same `size`. Never
 *     called with NULL.
 * Both may be called from any thread, and concurrently when the allocating calls run
 * concurrently: they must then be thread-safe. Neither may call back into the library's
 * allocating calls with the same allocator.
 */
typedef struct cleave_allocator {
  void *(*alloc)(size_t size, size_t alignment, void *user);
  void (*free)(void *ptr, size_t size, void *user);
  void *user;
} cleave_allocator;

/**
 * Returns the system allocator the library uses by default: blocks of 4 MiB or more are mapped
 * directly (2 MiB-aligned, 4 KiB pages: huge pages made first touch unpredictable, 0.3x to 4x the
 * time of 4 KiB pages, where the kernel compacts memory on the fault), smaller ones come from
 * `posix_memalign`. Its `user` is NULL. Thread-safe.
 */
CLEAVE_API cleave_allocator cleave_allocator_system(void);

/**
 * A reusable output arena: blocks freed through it are kept, up to a byte limit set by the
 * caller, and handed to the next allocation of the same size class (sizes rounded up by at most
 * 1/8, and to whole 4 KiB pages), with their pages already touched, so that repeated allocating
 * runs pay no page faults and no kernel zeroing. Opaque; created and destroyed by the caller.
 * All its functions are thread-safe: one arena may serve several threads and plans at once.
 */
typedef struct cleave_arena cleave_arena;

/**
 * Creates an arena that keeps at most `limit_bytes` of freed blocks (0: keeps nothing, every
 * block goes back at once). New blocks come from `backing` (NULL: the system allocator, with
 * transparent-huge-page advice for blocks of 4 MiB or more, since the arena touches each block
 * once and keeps it; the struct is copied, its `user` must outlive the arena). When `backing`
 * cannot supply a block, the arena releases the blocks it keeps and asks once more. Returns
 * CLEAVE_OK, CLEAVE_ERROR_INVALID_ARGUMENT (`arena` NULL, or `backing` without both functions) or
 * CLEAVE_ERROR_OUT_OF_MEMORY. `*arena` is NULL on failure.
 */
CLEAVE_API cleave_status cleave_arena_create(size_t limit_bytes, const cleave_allocator *backing,
                                             cleave_arena **arena, cleave_error *err);

/**
 * Releases the blocks the arena keeps, then the arena. Blocks still in use stay valid: the
 * arena is released when the last of them is freed (each then goes back to `backing`). No
 * allocation through the arena may follow. NULL is a no-op.
 */
CLEAVE_API void cleave_arena_destroy(cleave_arena *arena);

/**
 * Releases kept blocks, least recently freed first, until the arena keeps at most `keep_bytes`.
 * Returns the number of bytes released. Blocks in use are not affected. Thread-safe.
 */
CLEAVE_API size_t cleave_arena_trim(cleave_arena *arena, size_t keep_bytes);

/** What an arena holds, for monitoring and tests (`cleave_arena_get_stats`). */
typedef struct cleave_arena_stats {
  size_t limit_bytes; /* the limit it was created with */
  size_t kept_bytes;  /* freed blocks kept for reuse (<= limit_bytes), in size-class bytes */
  size_t kept_blocks;
  size_t used_bytes; /* blocks handed out and not yet freed, in size-class bytes */
  size_t used_blocks;
  size_t reused;    /* allocations served from a kept block */
  size_t allocated; /* allocations that asked `backing` for a new block */
} cleave_arena_stats;

/** Returns the arena's current figures (all zero for NULL). Thread-safe. */
CLEAVE_API cleave_arena_stats cleave_arena_get_stats(cleave_arena *arena);

/**
 * Returns an allocator that allocates from `arena` and gives blocks back to it. The allocator
 * is valid while the arena is (see `cleave_arena_destroy`); it can also be handed to code of the
 * caller's own. Its `alloc` returns NULL for an alignment above CLEAVE_ALLOCATOR_MAX_ALIGNMENT.
 * For a NULL arena every field is NULL, which the allocating calls refuse
 * (CLEAVE_ERROR_INVALID_ARGUMENT).
 */
CLEAVE_API cleave_allocator cleave_arena_allocator(cleave_arena *arena);

/**
 * `cleave_plan_run_alloc` with the outputs' block taken from `allocator` (NULL: the system
 * allocator), in one `alloc` call. The outputs remember their allocator: `cleave_outputs_free`
 * gives the block back to it (one `free` call with the size `alloc` was asked for). Same
 * layout, statuses and guarantees as `cleave_plan_run_alloc`; in particular on failure every
 * entry of `outputs` is NULL and nothing stays allocated. Also returns
 * CLEAVE_ERROR_INVALID_ARGUMENT for an allocator without both functions, and
 * CLEAVE_ERROR_OUT_OF_MEMORY when its `alloc` returns NULL.
 *
 * Both calls copy with the plan's schedule: memory whose pages are already resident (a reused
 * block) is written as `cleave_plan_run_exec` writes caller buffers (streaming stores for large
 * runs, the tiny-output kernels, threads as `exec` allows). Fresh memory (pages not yet touched)
 * is first made resident, on Linux 5.14 or later with `madvise(MADV_POPULATE_WRITE)` over the
 * whole pages the outputs occupy, in a few long ranges per thread, and then written the same
 * way; populating leaves every byte as it was, so it is safe on any writable memory an
 * allocator hands out. Where it cannot be done, fresh memory is written with ordinary stores
 * (the kernel's zeroing leaves the page in the cache), each thread writing, and so first
 * touching, its own long range of pages. Thread-safe as far as the allocator is.
 */
CLEAVE_API cleave_status cleave_plan_run_alloc_with(const cleave_plan *plan, const void *input,
                                                    const cleave_exec *exec,
                                                    const cleave_allocator *allocator,
                                                    void **outputs, cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * The inverse operators: Concat and ConcatFromSequence
 * ------------------------------------------------------------------------------------------- */

/*
 * OpenVINO Concat-1, ONNX Concat-1/4/11/13 and ONNX ConcatFromSequence-11 (docs/operators.md
 * section 8): several inputs joined along one axis into one output. They undo the splits: for
 * every valid split of x into y_0..y_k-1 along an axis, the concat of y along that axis is x,
 * byte for byte (and ConcatFromSequence with new_axis 1 undoes SplitToSequence with keepdims 0).
 *
 * The family has calls of its own beside the split family's, in the same life cycle (describe,
 * infer, plan once, run many), rather than more kinds of `cleave_op`: the split calls take one
 * input and give several outputs, these take several inputs and give one, so no call could serve
 * both, and a type of its own lets the compiler refuse a split described to a concat call. Inputs
 * are `cleave_tensor`s, each with its own element type (the types must match exactly); the
 * output is one dense row-major tensor. The copy is the split's copy engine run the other way
 * (the same schedule, kernels, streaming stores and threads), with bit-exact packed sub-byte types
 * and `cleave_string` handles (the output's handles point at the inputs' bytes, which stay owned
 * by the caller). There are no views: a concat needs a copy.
 *
 * Everything in the conventions at the top of this header holds: statuses and messages naming
 * the input and dimension at fault, nothing written on failure, allocation only where a name says
 * so, thread safety.
 */

/** The concatenating operators. Values are fixed, and distinct from the `cleave_op_kind`s. */
typedef enum cleave_concat_kind {
  /** OpenVINO Concat-1: `axis` (required) in [-r, r-1]; every element type. */
  CLEAVE_OP_CONCAT = 5,
  /** ONNX Concat-1/4/11/13 at `opset`: `axis` optional with default 1 in version 1 and
   * required from 4, in [0, r-1] before version 11 and [-r, r-1] from it. */
  CLEAVE_OP_ONNX_CONCAT = 6,
  /** ONNX ConcatFromSequence-11 at `opset`: `axis` (required), `new_axis` (0: Concat of the
   * sequence's tensors; 1: tensors of equal shapes stacked along a new axis at `axis`, in
   * [-r-1, r], as numpy.stack). */
  CLEAVE_OP_CONCAT_FROM_SEQUENCE = 7
} cleave_concat_kind;

/**
 * A concatenating operator with its attributes. Build it with one of the initialisers below, then
 * change fields as needed. Fields an operator does not use are ignored.
 */
typedef struct cleave_concat_op {
  cleave_concat_kind kind;
  /** ONNX operators: the opset; the operator version in force is the largest version of the
   * operator not above it (opset 12 runs Concat-11). Ignored by OpenVINO Concat-1. */
  int64_t opset;
  /** The `axis` attribute: a scalar of any integer type, or absent (`cleave_values_none()`), which
   * only ONNX Concat-1 allows (its default is 1). */
  cleave_values axis;
  /** ConcatFromSequence only: `new_axis`, 0 or 1 (default 0). */
  int64_t new_axis;
} cleave_concat_op;

/** OpenVINO Concat-1 on `*axis` (an int64 scalar, which must outlive the use). */
static inline cleave_concat_op cleave_op_concat(const int64_t *axis) {
  cleave_concat_op op;
  op.kind = CLEAVE_OP_CONCAT;
  op.opset = 1;
  op.axis = cleave_values_scalar(axis);
  op.new_axis = 0;
  return op;
}

/** ONNX Concat at `opset` on `*axis`; `axis` NULL leaves the attribute absent (Concat-1's
 * default, 1). */
static inline cleave_concat_op cleave_op_onnx_concat(int64_t opset, const int64_t *axis) {
  cleave_concat_op op = cleave_op_concat(axis);
  op.kind = CLEAVE_OP_ONNX_CONCAT;
  op.opset = opset;
  if (axis == NULL) {
    op.axis = cleave_values_none();
  }
  return op;
}

/** ONNX ConcatFromSequence at `opset` on `*axis` with `new_axis` (0 or 1). */
static inline cleave_concat_op cleave_op_concat_from_sequence(int64_t opset, const int64_t *axis,
                                                              int64_t new_axis) {
  cleave_concat_op op = cleave_op_concat(axis);
  op.kind = CLEAVE_OP_CONCAT_FROM_SEQUENCE;
  op.opset = opset;
  op.new_axis = new_axis;
  return op;
}

/** The outcome of concat shape inference on static shapes. */
typedef struct cleave_concat_info {
  size_t axis;          /* the normalised axis of the output, in [0, output_rank) */
  size_t num_inputs;    /* >= 1 */
  size_t output_rank;   /* the inputs' rank, plus 1 when new_axis stacks them */
  int new_axis;         /* 1 when the inputs are stacked along a new axis */
  int64_t axis_dim;     /* the output's dimension on axis: the inputs' sum, or num_inputs */
  int64_t output_bytes; /* the output's byte size (packed types: rounded up to whole bytes) */
  int64_t element_size; /* bytes per element; 0 for packed sub-byte types */
  int64_t element_bits; /* bits per element (0 when that exceeds INT64_MAX, as in
                         * `cleave_split_info`) */
} cleave_concat_info;

/**
 * Infers the output of `op` on `inputs[0..num_inputs)`, whose `type`, `rank` and `shape` are
 * read (`data` is not: it may be NULL). Fills `*info`; when `shape` is not NULL it receives the
 * output's `info->output_rank` dimensions and must hold `capacity` entries, else the call fails
 * with CLEAVE_ERROR_CAPACITY (with `info` filled). Pass `shape` NULL to learn the rank first.
 *
 * Returns CLEAVE_OK or the status of the first rule broken (docs/operators.md section 8: the
 * operator and version; at least one input, else CLEAVE_ERROR_INVALID_ARGUMENT; each type valid,
 * all equal and accepted by the version, else CLEAVE_ERROR_UNSUPPORTED_TYPE; dims >= 0, byte
 * sizes and the axis sum within int64, one rank, equal dims off the axis, else
 * CLEAVE_ERROR_INVALID_SHAPE or CLEAVE_ERROR_OVERFLOW; new_axis 0 or 1, else
 * CLEAVE_ERROR_INVALID_ATTRIBUTE; the axis, else CLEAVE_ERROR_INVALID_AXIS). Messages name the
 * input and the dimension at fault. Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_concat_infer(const cleave_concat_op *op,
                                             const cleave_tensor *inputs, size_t num_inputs,
                                             cleave_concat_info *info, int64_t *shape,
                                             size_t capacity, cleave_error *err);

/**
 * Infers the output of `op` on inputs of element type `type` (one for all: the static calls check
 * that the types match) and partial shapes `inputs[0..num_inputs)`, with the axis value unknown
 * when `unknown` has CLEAVE_UNKNOWN_AXIS (CLEAVE_UNKNOWN_LENGTHS is ignored: a concat has no
 * lengths). The output is the tightest hull over every consistent static input for which the
 * operator is valid (docs/operators.md sections 6 and 8): on the axis the interval sum of the
 * inputs' dims, elsewhere their intersection (empty: the operator's error); an input of dynamic
 * rank takes the others' rank (every input's dynamic: the output's is); an unknown axis gives the
 * hull over every valid axis position. For static shapes and a known axis the checks, statuses
 * and messages are those of `cleave_concat_infer`.
 *
 * Fills `*info` as `cleave_infer_partial` does for one output (count 1, `num_shapes` 1,
 * `axis_removed` 0; `axis` CLEAVE_AXIS_UNKNOWN when unknown or the rank is dynamic). When `dims`
 * is not NULL it receives the output's `info->output_rank` dimensions (none for a dynamic rank)
 * and must hold `capacity` entries, else CLEAVE_ERROR_CAPACITY (`dims` untouched). Returns
 * CLEAVE_OK, an inference status, or CLEAVE_ERROR_INVALID_SHAPE for a malformed partial shape.
 * Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_concat_infer_partial(const cleave_concat_op *op, unsigned unknown,
                                                     cleave_type type,
                                                     const cleave_partial_shape *inputs,
                                                     size_t num_inputs, cleave_partial_info *info,
                                                     cleave_dim *dims, size_t capacity,
                                                     cleave_error *err);

/**
 * Runs `op` once on `inputs[0..num_inputs)`, writing the output (dense, row-major, of
 * `cleave_concat_info.output_bytes`) to `output`. An input's `data` may be NULL only when that
 * input is empty, `output` only when the output is. The output must not overlap any input.
 * Nothing is written unless every check passes. Allocates nothing; runs on the calling thread.
 * Returns CLEAVE_OK, any inference status, CLEAVE_ERROR_INVALID_ARGUMENT (a NULL pointer) or
 * CLEAVE_ERROR_OUT_OF_MEMORY (a packed output too large to be in memory, above 2^60 bytes).
 */
CLEAVE_API cleave_status cleave_concat_run(const cleave_concat_op *op, const cleave_tensor *inputs,
                                           size_t num_inputs, void *output, cleave_error *err);

/** A concat bound to its inputs' type and shapes, with its copy schedule precomputed. Opaque;
 * immutable after creation, so one plan may be run from several threads at once (into different
 * outputs). */
typedef struct cleave_concat_plan cleave_concat_plan;

/**
 * Validates `op` on the types and shapes of `inputs[0..num_inputs)` (their `data` is not read) and
 * allocates a plan in `*plan` (NULL on failure), tuned by `options` (NULL: the defaults, as for
 * `cleave_plan_create_with`). Nothing the arguments point at need outlive the call. Returns
 * CLEAVE_OK, any inference status, CLEAVE_ERROR_INVALID_ARGUMENT (`plan` NULL, a bad option, AVX2
 * kernels on a CPU without AVX2) or CLEAVE_ERROR_OUT_OF_MEMORY (also for a packed output of more
 * than 2^60 bytes, which cannot be in memory). Thread-safe.
 */
CLEAVE_API cleave_status cleave_concat_plan_create(const cleave_concat_op *op,
                                                   const cleave_tensor *inputs, size_t num_inputs,
                                                   const cleave_plan_options *options,
                                                   cleave_concat_plan **plan, cleave_error *err);

/** Releases a concat plan. NULL is a no-op. */
CLEAVE_API void cleave_concat_plan_destroy(cleave_concat_plan *plan);

/** Returns the inference outcome the plan was built from (NULL for a NULL plan). */
CLEAVE_API const cleave_concat_info *cleave_concat_plan_info(const cleave_concat_plan *plan);

/**
 * Writes the output's shape (`cleave_concat_plan_info(plan)->output_rank` entries) to `dims`.
 * Returns CLEAVE_OK or CLEAVE_ERROR_INVALID_ARGUMENT (NULL plan, `dims` NULL for rank > 0).
 */
CLEAVE_API cleave_status cleave_concat_plan_output_shape(const cleave_concat_plan *plan,
                                                         int64_t *dims, cleave_error *err);

/**
 * Describes the plan's copy schedule as a string owned by the plan (valid until it is destroyed;
 * NULL for a NULL plan), in the words of `cleave_plan_description`: the kernel family, "rows",
 * "transpose1/2/4/8", "gather", "nt", "empty", or "bits" for packed inputs whose rows do not fall
 * on byte boundaries.
 */
CLEAVE_API const char *cleave_concat_plan_description(const cleave_concat_plan *plan);

/**
 * Runs the plan: reads input i at `inputs[i]` for every i < num_inputs (NULL allowed only for an
 * empty input) and writes the output to `output` (NULL only when it is empty), using threads as
 * `exec` allows (NULL: the calling thread only; see `cleave_plan_run_exec`). No shape validation
 * happens here; only the pointers are checked (CLEAVE_ERROR_INVALID_ARGUMENT), and nothing is
 * written unless they pass. Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_concat_plan_run(const cleave_concat_plan *plan,
                                                const void *const *inputs, void *output,
                                                const cleave_exec *exec, cleave_error *err);

/**
 * Allocates the output and runs the plan into it (with threads as `exec` allows). The block comes
 * from `allocator` (NULL: the system allocator; `cleave_arena_allocator` for the output arena) in
 * one `alloc` call, and the output starts on a 64-byte boundary (4096 for outputs of 1 MiB or
 * more). On success `*output` points at it; release it with `cleave_outputs_free(output, 1)`,
 * which gives the block back to its allocator (an empty output too gets a block, so success
 * always gives a pointer). On any failure (a NULL plan too) `*output` is NULL, unless `output`
 * itself is NULL, and nothing stays allocated. Fresh
 * memory is populated first, as for `cleave_plan_run_alloc_with`. Returns CLEAVE_OK,
 * CLEAVE_ERROR_INVALID_ARGUMENT (NULL plan or `output`, an input NULL but not empty, an allocator
 * without both functions), CLEAVE_ERROR_OVERFLOW (the block's size does not fit in size_t) or
 * CLEAVE_ERROR_OUT_OF_MEMORY. Thread-safe as far as the allocator is.
 */
CLEAVE_API cleave_status cleave_concat_plan_run_alloc(const cleave_concat_plan *plan,
                                                      const void *const *inputs,
                                                      const cleave_exec *exec,
                                                      const cleave_allocator *allocator,
                                                      void **output, cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * Element casts and block-FP8 dequantization
 *
 * One rule for every cast (docs/casts.md): the result is the source value rounded to the
 * destination type, round-to-nearest-even, computed exactly (once, never through an
 * intermediate rounding) on the bits, whatever the thread's floating-point environment (only
 * the float32 product of `cleave_dequantize_fp8_blocks` is the CPU's, which assumes the default
 * environment: round-to-nearest, no flush-to-zero):
 *   - a value above the destination's largest finite value by half an ulp or more becomes an
 *     infinity of its sign; infinities stay infinities;
 *   - subnormal results are exact (rounded like any other value, never flushed to zero), and
 *     subnormal sources are read exactly;
 *   - a NaN stays a NaN of the same sign, quiet, keeping the leading bits of its payload that
 *     fit (as x86's conversion instructions do; for quiet NaNs the bits NumPy's astype gives,
 *     and for the default NaN torch's .to(float16)); an FP8 e4m3 NaN (S.1111.111) becomes the
 *     default quiet NaN of its sign (payload zero).
 * The vector kernels (AVX2 with F16C, chosen at run time) give the same bits as the portable
 * ones for every input.
 * ------------------------------------------------------------------------------------------- */

/**
 * Returns 1 when `cleave_cast` converts `from` to `to`, else 0: both among CLEAVE_F32,
 * CLEAVE_F16, CLEAVE_BF16, CLEAVE_F64, or `from` CLEAVE_F8E4M3 (OCP's e4m3 "fn": bias 7, no
 * infinities, S.1111.111 the only NaN) and `to` one of the four. Thread-safe.
 */
CLEAVE_API int cleave_cast_supported(cleave_dtype from, cleave_dtype to);

/**
 * Converts `count` elements of type `from` at `src` into `count` elements of type `to` at `dst`
 * by the rule above (from == to copies the bytes). The buffers need no alignment and must not
 * overlap. Returns CLEAVE_OK, CLEAVE_ERROR_INVALID_ARGUMENT (`src` or `dst` NULL while `count`
 * > 0), CLEAVE_ERROR_UNSUPPORTED_TYPE (a pair `cleave_cast_supported` refuses, named in the
 * message) or CLEAVE_ERROR_OVERFLOW (`count` elements of 8 bytes do not fit in size_t); nothing
 * is written on failure. Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_cast(const void *src, cleave_dtype from, void *dst,
                                     cleave_dtype to, size_t count, cleave_error *err);

/**
 * Block-FP8 dequantization, as DeepSeek-V3's reference computes it: a weight of FP8 e4m3
 * elements of shape [..., rows, cols] (C order) comes with a scale of shape
 * [..., ceil(rows / block_rows), ceil(cols / block_cols)] (`scale_type` CLEAVE_F32 or
 * CLEAVE_BF16), one factor per block of block_rows x block_cols elements (the last block of
 * each axis may be partial). Element (i, j) of a matrix becomes
 *   round_to(to, float32(w[i][j]) * float32(scale[i / block_rows][j / block_cols]))
 * with the product an IEEE float32 multiplication (round-to-nearest-even) and the rounding to
 * `to` (CLEAVE_F32, CLEAVE_F16, CLEAVE_BF16 or CLEAVE_F64) that of `cleave_cast` from f32.
 *
 * The call converts `count` consecutive elements starting at element index `first` of the whole
 * weight (counted in C order over every dimension): `weight` points at element `first` (not at
 * the start of the weight), `scale` at the start of the whole scale, and `dst` receives `count`
 * elements of `to`. A whole tensor is first = 0, count = its element count; a run of one row's
 * columns is first = row * cols + col. Returns CLEAVE_OK, CLEAVE_ERROR_INVALID_ARGUMENT (a NULL
 * pointer while `count` > 0, rows, cols or a block size below 1, `first` negative) or
 * CLEAVE_ERROR_UNSUPPORTED_TYPE (scale or destination type); nothing is written on failure.
 * Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_dequantize_fp8_blocks(const void *weight, int64_t rows,
                                                      int64_t cols, const void *scale,
                                                      cleave_dtype scale_type, int64_t block_rows,
                                                      int64_t block_cols, int64_t first,
                                                      size_t count, void *dst, cleave_dtype to,
                                                      cleave_error *err);

/* ---------------------------------------------------------------------------------------------
 * ggml blocks: the element types of GGUF files, dequantized and quantized
 * ------------------------------------------------------------------------------------------- */

/** ggml's element types (GGML_TYPE_* in ggml.h, GGMLQuantizationType in gguf-py), with ggml's
 * numbers, which GGUF files store. A block type stores `block_elements` values in `block_bytes`
 * bytes (`cleave_ggml_type_size`); the plain types are blocks of one element. */
typedef enum cleave_ggml_type {
  CLEAVE_GGML_F32 = 0,
  CLEAVE_GGML_F16 = 1,
  CLEAVE_GGML_Q4_0 = 2,
  CLEAVE_GGML_Q4_1 = 3,
  CLEAVE_GGML_Q5_0 = 6,
  CLEAVE_GGML_Q5_1 = 7,
  CLEAVE_GGML_Q8_0 = 8,
  CLEAVE_GGML_Q8_1 = 9,
  CLEAVE_GGML_Q2_K = 10,
  CLEAVE_GGML_Q3_K = 11,
  CLEAVE_GGML_Q4_K = 12,
  CLEAVE_GGML_Q5_K = 13,
  CLEAVE_GGML_Q6_K = 14,
  CLEAVE_GGML_Q8_K = 15,
  CLEAVE_GGML_IQ2_XXS = 16,
  CLEAVE_GGML_IQ2_XS = 17,
  CLEAVE_GGML_IQ3_XXS = 18,
  CLEAVE_GGML_IQ1_S = 19,
  CLEAVE_GGML_IQ4_NL = 20,
  CLEAVE_GGML_IQ3_S = 21,
  CLEAVE_GGML_IQ2_S = 22,
  CLEAVE_GGML_IQ4_XS = 23,
  CLEAVE_GGML_I8 = 24,
  CLEAVE_GGML_I16 = 25,
  CLEAVE_GGML_I32 = 26,
  CLEAVE_GGML_I64 = 27,
  CLEAVE_GGML_F64 = 28,
  CLEAVE_GGML_IQ1_M = 29,
  CLEAVE_GGML_BF16 = 30,
  CLEAVE_GGML_TQ1_0 = 34,
  CLEAVE_GGML_TQ2_0 = 35,
  CLEAVE_GGML_MXFP4 = 39,
  CLEAVE_GGML_NVFP4 = 40,
  CLEAVE_GGML_Q1_0 = 41,
  CLEAVE_GGML_Q2_0 = 42
} cleave_ggml_type;

/** Returns the type's name as gguf-py spells it ("F32", "Q4_0", "Q6_K", "IQ4_XS", "MXFP4"), or
 * NULL for a value that is no ggml type. Thread-safe. */
CLEAVE_API const char *cleave_ggml_type_name(cleave_ggml_type type);

/** Looks a type up by its name, as `cleave_ggml_type_name` spells it or in lower case ("q8_0").
 * Returns CLEAVE_OK, CLEAVE_ERROR_INVALID_ARGUMENT (NULL argument) or
 * CLEAVE_ERROR_UNSUPPORTED_TYPE (no such name). Thread-safe. */
CLEAVE_API cleave_status cleave_ggml_type_from_name(const char *name, cleave_ggml_type *type,
                                                    cleave_error *err);

/**
 * Reports the type's block: `*block_elements` values stored in `*block_bytes` bytes (Q8_0: 32 in
 * 34; Q4_K: 256 in 144; F16: 1 in 2), as gguf-py's GGML_QUANT_SIZES lists them. Either pointer
 * may be NULL. Returns CLEAVE_OK or CLEAVE_ERROR_UNSUPPORTED_TYPE (no ggml type). Thread-safe.
 */
CLEAVE_API cleave_status cleave_ggml_type_size(cleave_ggml_type type, int64_t *block_elements,
                                               int64_t *block_bytes, cleave_error *err);

/** Returns 1 when `cleave_ggml_dequantize` takes the type, else 0. Thread-safe. */
CLEAVE_API int cleave_ggml_can_dequantize(cleave_ggml_type type);

/**
 * Returns 1 when `cleave_ggml_quantize` takes the type (Q8_0, and F32, F16 and BF16 as casts) and
 * a row of `row_length` elements is a whole number of its blocks (gguf-py's `can_quantize`: a
 * tensor whose last dimension is not falls back to another type in llama.cpp's converter), else
 * 0. Thread-safe.
 */
CLEAVE_API int cleave_ggml_can_quantize(cleave_ggml_type type, int64_t row_length);

/**
 * Dequantizes `src_bytes` bytes of ggml blocks of `type` at `src` into float32 at `dst`: block by
 * block, `block_elements` floats per block, bit for bit what gguf-py's `quants.dequantize`
 * computes with NumPy (the f16 scales widened exactly, every product and sum rounded to float32
 * in the order gguf-py takes them, never fused; a NaN keeps its payload as NumPy's x86
 * arithmetic keeps it). Every bit pattern is a valid input: NaN and infinite scales give NaN and
 * infinities, never an error. One choice is NumPy's by chance: where Q4_1's or Q5_1's scale and
 * minimum are both NaN, NumPy returns either's payload depending on memory alignment; this
 * returns the minimum's (quieted). Types: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K,
 * Q4_K, Q5_K, Q6_K, TQ1_0, TQ2_0, IQ4_NL, IQ4_XS, MXFP4, NVFP4 (`cleave_ggml_can_dequantize`).
 * `dst_bytes` is the room at `dst`, at least src_bytes / block_bytes * block_elements * 4.
 * Returns CLEAVE_OK, CLEAVE_ERROR_INVALID_ARGUMENT (NULL `src` or `dst` with a non-zero size, a
 * negative size), CLEAVE_ERROR_UNSUPPORTED_TYPE (a type it does not dequantize),
 * CLEAVE_ERROR_INVALID_SHAPE (`src_bytes` not a whole number of blocks), CLEAVE_ERROR_OVERFLOW
 * (the float size does not fit in int64) or CLEAVE_ERROR_CAPACITY (`dst_bytes` too small); on
 * failure nothing is written. Uses AVX2 where the CPU has it, with the same bits. Allocates
 * nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_ggml_dequantize(cleave_ggml_type type, const void *src,
                                                int64_t src_bytes, float *dst, int64_t dst_bytes,
                                                cleave_error *err);

/**
 * Quantizes `src_bytes` bytes of float32 at `src` (rows of `row_length` elements) into ggml
 * blocks of `type` at `dst`, bit for bit as gguf-py's `quants.quantize` does. Q8_0: per block of
 * 32, d = max|x| / 127 in float32, each x * (1 / d) (0 when d is 0) rounded half away from zero to
 * int8 (a NaN or infinite product gives 0, as NumPy's cast does here), d stored as f16 rounded to
 * nearest even (NaN keeps its leading payload bits). F16 and BF16 round to nearest even (BF16
 * quiets a NaN, as gguf-py does); F32 copies. `row_length` must be a whole number of blocks
 * (`cleave_ggml_can_quantize`) and divide the element count. `dst_bytes` is the room at `dst`,
 * at least elements / block_elements * block_bytes. Returns CLEAVE_OK,
 * CLEAVE_ERROR_INVALID_ARGUMENT (NULL pointer with a non-zero size, a negative size),
 * CLEAVE_ERROR_UNSUPPORTED_TYPE (a type it does not quantize), CLEAVE_ERROR_INVALID_SHAPE
 * (`src_bytes` not whole floats, a row not whole blocks or not dividing the elements) or
 * CLEAVE_ERROR_CAPACITY; on failure nothing is written. Allocates nothing. Thread-safe.
 */
CLEAVE_API cleave_status cleave_ggml_quantize(cleave_ggml_type type, const float *src,
                                              int64_t src_bytes, int64_t row_length, void *dst,
                                              int64_t dst_bytes, cleave_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CLEAVE_H */
