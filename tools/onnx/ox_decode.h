/* Reading protobuf files and decoding ONNX TensorProto / SequenceProto messages into runner
 * values. The messages are parsed by protobuf-c from code generated at build time. */
#ifndef CLEAVE_OX_DECODE_H
#define CLEAVE_OX_DECODE_H

#include "error.h"
#include "onnx/onnx-data.pb-c.h"
#include "onnx/onnx.pb-c.h"
#include "ox_value.h"

#include <stddef.h>
#include <stdint.h>

/**
 * Reads the file at `path` and parses it as a message of type `desc`. On success `*out` owns the
 * message (free it with `protobuf_c_message_free_unpacked(*out, NULL)`). Returns CLI_EXIT_OK,
 * CLI_EXIT_NOINPUT (cannot open or read), CLI_EXIT_DATA (not a valid message of that type) or
 * CLI_EXIT_SOFTWARE.
 */
int ox_unpack_file(const char *path, const ProtobufCMessageDescriptor *desc, ProtobufCMessage **out,
                   tool_error *err);

/**
 * Decodes a TensorProto into `*out`: dims, data_type, and the data from raw_data (little-endian)
 * or from the typed field the type uses (float_data, int32_data, int64_data, string_data,
 * double_data, uint64_data). STRING elements point into `tp`, which must outlive `*out`.
 * `what` names the tensor in messages. Returns CLI_EXIT_OK, CLI_EXIT_DATA (data not matching the
 * dims or the type), CLI_EXIT_FAIL (a type or storage the runner does not support: sub-byte types,
 * external data, segments) or CLI_EXIT_SOFTWARE. On failure `*out` owns nothing.
 */
int ox_decode_tensor(const Onnx__TensorProto *tp, const char *what, ox_tensor *out,
                     tool_error *err);

/**
 * Decodes a SequenceProto of tensors into a sequence value. Same returns as `ox_decode_tensor`;
 * sequences of other kinds (sparse tensors, sequences, maps, optionals) give CLI_EXIT_FAIL.
 */
int ox_decode_sequence(const Onnx__SequenceProto *sp, const char *what, ox_value *out,
                       tool_error *err);

#endif /* CLEAVE_OX_DECODE_H */
