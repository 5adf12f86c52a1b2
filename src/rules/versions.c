/*
 * Operator versions and element types: the ONNX operator version in force at an opset, and
 * the types each ONNX version accepts (docs/operators.md sections 4 and 5). The OpenVINO operators
 * take every type and have one version.
 */
#include "rules/rules.h"

static const int64_t split_versions[] = {1, 2, 11, 13, 18};
static const int64_t sequence_versions[] = {11, 24};

/* The operator version in force at `opset`: the largest listed version not above it. */
static cleave_status resolve_version(const char *op_name, const int64_t *versions, size_t count,
                                     int64_t opset, int64_t *version, cleave_error *err) {
  if (opset < versions[0]) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_VERSION,
                       "opset %" PRId64 " is below %s's first version %" PRId64, opset, op_name,
                       versions[0]);
  }
  for (size_t i = count; i-- > 0;) {
    if (versions[i] <= opset) {
      *version = versions[i];
      break;
    }
  }
  return CLEAVE_OK;
}

/* The fifteen ONNX tensor types; NumPy's fixed-width strings count as `string`. */
static bool onnx_common_type(cleave_dtype dtype) {
  switch (dtype) {
  case CLEAVE_BOOLEAN:
  case CLEAVE_I8:
  case CLEAVE_I16:
  case CLEAVE_I32:
  case CLEAVE_I64:
  case CLEAVE_U8:
  case CLEAVE_U16:
  case CLEAVE_U32:
  case CLEAVE_U64:
  case CLEAVE_F16:
  case CLEAVE_F32:
  case CLEAVE_F64:
  case CLEAVE_C64:
  case CLEAVE_C128:
  case CLEAVE_STRING:
  case CLEAVE_BYTES:
  case CLEAVE_UNICODE:
    return true;
  default:
    return false;
  }
}

/* Whether an ONNX operator version accepts the element type (docs/operators.md sections 4 and 5).
 */
static bool onnx_accepts(cleave_op_kind kind, int64_t version, cleave_dtype dtype) {
  if (kind == CLEAVE_OP_ONNX_SPLIT && version == 1) {
    return dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64;
  }
  if (dtype == CLEAVE_BF16) {
    return kind == CLEAVE_OP_ONNX_SPLIT ? version >= 13 : version >= 24;
  }
  return onnx_common_type(dtype);
}

cleave_status cleave_resolve_version(const cleave_op *op, int64_t *version, char *name,
                                     size_t name_size, cleave_error *err) {
  cleave_status st = CLEAVE_OK;
  *version = 1;
  switch (op->kind) {
  case CLEAVE_OP_SPLIT:
    snprintf(name, name_size, "OpenVINO Split-1");
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    snprintf(name, name_size, "VariadicSplit-1");
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    st = resolve_version("SplitToSequence", sequence_versions,
                         sizeof sequence_versions / sizeof sequence_versions[0], op->opset, version,
                         err);
    snprintf(name, name_size, "SplitToSequence-%" PRId64, *version);
    break;
  case CLEAVE_OP_ONNX_SPLIT:
    st = resolve_version("ONNX Split", split_versions,
                         sizeof split_versions / sizeof split_versions[0], op->opset, version, err);
    snprintf(name, name_size, "ONNX Split-%" PRId64, *version);
    break;
  default:
    /* Kind 0 is what a zeroed description holds (`cleave_op op = {0};`). */
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "operator kind %d is not a cleave_op_kind%s: build the description with "
                       "an initialiser (cleave_op_split, cleave_op_variadic_split, "
                       "cleave_op_split_to_sequence or cleave_op_onnx_split), then set its fields",
                       (int)op->kind, op->kind == 0 ? " (the description is zeroed)" : "");
  }
  return st;
}

cleave_status cleave_check_op_type(const cleave_prepared *prep, cleave_type type,
                                   cleave_error *err) {
  cleave_op_kind kind = prep->op->kind;
  bool onnx = kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || kind == CLEAVE_OP_ONNX_SPLIT;
  if (!onnx || onnx_accepts(kind, prep->version, type.dtype)) {
    return CLEAVE_OK;
  }
  char name[CLEAVE_TYPE_TEXT];
  cleave_format_type(name, sizeof name, type);
  return cleave_fail(
      err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "%s does not accept %s data%s", prep->op_name, name,
      type.dtype == CLEAVE_BF16 && kind == CLEAVE_OP_SPLIT_TO_SEQUENCE ? " (bf16 needs opset 24)"
      : type.dtype == CLEAVE_BF16 && prep->version > 1                 ? " (bf16 needs opset 13)"
                                                                       : "");
}

/* ---- the concatenating family (docs/operators.md section 8) ------------------------------ */

static const int64_t concat_versions[] = {1, 4, 11, 13};
static const int64_t concat_from_sequence_versions[] = {11};

cleave_status cleave_resolve_concat_version(const cleave_concat_op *op, int64_t *version,
                                            char *name, size_t name_size, cleave_error *err) {
  cleave_status st = CLEAVE_OK;
  *version = 1;
  switch (op->kind) {
  case CLEAVE_OP_CONCAT:
    snprintf(name, name_size, "OpenVINO Concat-1");
    break;
  case CLEAVE_OP_ONNX_CONCAT:
    st = resolve_version("ONNX Concat", concat_versions,
                         sizeof concat_versions / sizeof concat_versions[0], op->opset, version,
                         err);
    snprintf(name, name_size, "ONNX Concat-%" PRId64, *version);
    break;
  case CLEAVE_OP_CONCAT_FROM_SEQUENCE:
    st = resolve_version("ConcatFromSequence", concat_from_sequence_versions,
                         sizeof concat_from_sequence_versions /
                             sizeof concat_from_sequence_versions[0],
                         op->opset, version, err);
    snprintf(name, name_size, "ConcatFromSequence-%" PRId64, *version);
    break;
  default:
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "operator kind %d is not a cleave_concat_kind (%d to %d)", (int)op->kind,
                       (int)CLEAVE_OP_CONCAT, (int)CLEAVE_OP_CONCAT_FROM_SEQUENCE);
  }
  return st;
}

/* ONNX Concat-1 takes the three float types; 4 and 11 the fifteen; 13 adds bfloat16.
 * ConcatFromSequence-11 takes the fifteen (its sequence types have no bfloat16). */
static bool concat_accepts(cleave_concat_kind kind, int64_t version, cleave_dtype dtype) {
  if (kind == CLEAVE_OP_ONNX_CONCAT && version == 1) {
    return dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64;
  }
  if (dtype == CLEAVE_BF16) {
    return kind == CLEAVE_OP_ONNX_CONCAT && version >= 13;
  }
  return onnx_common_type(dtype);
}

cleave_status cleave_check_concat_type(const cleave_concat_prepared *prep, cleave_error *err) {
  cleave_concat_kind kind = prep->op->kind;
  if (kind == CLEAVE_OP_CONCAT || concat_accepts(kind, prep->version, prep->type.dtype)) {
    return CLEAVE_OK;
  }
  char name[CLEAVE_TYPE_TEXT];
  cleave_format_type(name, sizeof name, prep->type);
  bool bf16_later =
      prep->type.dtype == CLEAVE_BF16 && kind == CLEAVE_OP_ONNX_CONCAT && prep->version > 1;
  return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "%s does not accept %s data%s",
                     prep->op_name, name, bf16_later ? " (bf16 needs opset 13)" : "");
}
