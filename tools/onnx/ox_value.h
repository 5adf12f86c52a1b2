/* Values flowing through an ONNX graph in the test runner: dense tensors and sequences of
 * tensors, with the ONNX element types mapped to cleave's. */
#ifndef CLEAVE_OX_VALUE_H
#define CLEAVE_OX_VALUE_H

#include "cleave.h"
#include "error.h"

#include <stddef.h>
#include <stdint.h>

/** ONNX TensorProto.DataType values. Debian's onnx.proto may predate the newer ones, so the
 * runner spells them all out itself. */
enum {
  OX_UNDEFINED = 0,
  OX_FLOAT = 1,
  OX_UINT8 = 2,
  OX_INT8 = 3,
  OX_UINT16 = 4,
  OX_INT16 = 5,
  OX_INT32 = 6,
  OX_INT64 = 7,
  OX_STRING = 8,
  OX_BOOL = 9,
  OX_FLOAT16 = 10,
  OX_DOUBLE = 11,
  OX_UINT32 = 12,
  OX_UINT64 = 13,
  OX_COMPLEX64 = 14,
  OX_COMPLEX128 = 15,
  OX_BFLOAT16 = 16,
  OX_FLOAT8E4M3FN = 17,
  OX_FLOAT8E4M3FNUZ = 18,
  OX_FLOAT8E5M2 = 19,
  OX_FLOAT8E5M2FNUZ = 20,
  OX_UINT4 = 21,
  OX_INT4 = 22,
  OX_FLOAT4E2M1 = 23,
  OX_FLOAT8E8M0 = 24,
  OX_UINT2 = 25,
  OX_INT2 = 26
};

/** Returns the ONNX name of a data type ("FLOAT", "INT4", ...), or "UNKNOWN". */
const char *ox_type_name(int32_t onnx_type);

/**
 * Maps an ONNX data type to cleave's. Returns CLI_EXIT_OK, or CLI_EXIT_FAIL (with a message naming
 * the type) for a type cleave cannot hold (the packed sub-byte types) or an unknown value.
 */
int ox_type_to_cleave(int32_t onnx_type, cleave_type *type, tool_error *err);

/**
 * A dense row-major tensor. `data` is owned and holds `count` elements in native byte order; for
 * STRING it is an array of `cleave_string` handles whose bytes belong to a decoded protobuf
 * message that must outlive the tensor. `dims` is owned (NULL when rank is 0).
 */
typedef struct ox_tensor {
  int32_t onnx_type;
  cleave_type type;
  size_t rank;
  int64_t *dims;
  int64_t count;
  size_t nbytes;
  void *data;
} ox_tensor;

/** The kinds of value the runner handles. */
typedef enum ox_kind { OX_KIND_TENSOR = 1, OX_KIND_SEQUENCE = 2 } ox_kind;

/** A tensor, or a sequence of `length` tensors (`items`, owned). */
typedef struct ox_value {
  ox_kind kind;
  ox_tensor tensor;
  size_t length;
  ox_tensor *items;
} ox_value;

/**
 * Computes the element count and byte size of a tensor of `onnx_type` with `dims[0..rank)`
 * without allocating. Returns CLI_EXIT_OK, CLI_EXIT_DATA (a negative dim, a size that overflows) or
 * CLI_EXIT_FAIL (a type cleave cannot hold). `what` names the tensor in messages.
 */
int ox_tensor_measure(int32_t onnx_type, size_t rank, const int64_t *dims, const char *what,
                      int64_t *count, size_t *nbytes, tool_error *err);

/**
 * Initialises `*t` as a zero-filled tensor of `onnx_type` with `dims[0..rank)`. Checks that the
 * dims are >= 0 and that the sizes do not overflow (CLI_EXIT_DATA), maps the type (CLI_EXIT_FAIL
 * when cleave cannot hold it). `what` names the tensor in messages. On failure `*t` owns nothing.
 */
int ox_tensor_init(ox_tensor *t, int32_t onnx_type, size_t rank, const int64_t *dims,
                   const char *what, tool_error *err);

/** Releases what `*t` owns and zeroes it. */
void ox_tensor_free(ox_tensor *t);

/** Makes `*dst` a deep copy of `*src` (string handles are copied, not their bytes). */
int ox_tensor_copy(ox_tensor *dst, const ox_tensor *src, tool_error *err);

/** Releases what `*v` owns and zeroes it. */
void ox_value_free(ox_value *v);

/** Makes `*dst` a deep copy of `*src`. */
int ox_value_copy(ox_value *dst, const ox_value *src, tool_error *err);

/**
 * Compares an expected tensor with an actual one exactly: type, shape and every element
 * (bitwise for numbers, bytewise for strings). Returns CLI_EXIT_OK or CLI_EXIT_FAIL with a message
 * saying what differs (prefixed by the caller).
 */
int ox_tensor_compare(const ox_tensor *expected, const ox_tensor *actual, tool_error *err);

/** Compares two values (kinds, sequence lengths, then each tensor). Same returns. */
int ox_value_compare(const ox_value *expected, const ox_value *actual, tool_error *err);

#endif /* CLEAVE_OX_VALUE_H */
