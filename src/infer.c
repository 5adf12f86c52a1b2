/*
 * Shape inference on static shapes: the one routine (cleave_resolve) that every entry point uses,
 * so that inference, one-shot runs and plans apply exactly the same rules (SEMANTICS.md 1-5).
 *
 * The checks run in a fixed order, and the first broken rule is reported: the operator and its
 * version, the element type, the data shape and its byte size, the axis, the attributes, then the
 * split description.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

/* Text buffer sizes for messages. */
enum { NAME_SIZE = 32, VALUE_SIZE = 32, TYPE_SIZE = 48 };

/* ---- operator versions and element types ------------------------------------------------- */

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

/* Whether an ONNX operator version accepts the element type (SEMANTICS.md 4 and 5). */
static bool onnx_accepts(cleave_op_kind kind, int64_t version, cleave_dtype dtype) {
  if (kind == CLEAVE_OP_ONNX_SPLIT && version == 1) {
    return dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64;
  }
  if (dtype == CLEAVE_BF16) {
    return kind == CLEAVE_OP_ONNX_SPLIT ? version >= 13 : version >= 24;
  }
  return onnx_common_type(dtype);
}

/* ---- the data shape ---------------------------------------------------------------------- */

static cleave_status check_shape(cleave_type type, const int64_t *shape, size_t rank,
                                 cleave_geometry *geom, cleave_error *err) {
  int64_t element_size = 0;
  cleave_status st = cleave_type_size(type, &element_size, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (rank > 0 && shape == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the data shape is NULL but its rank is %zu", rank);
  }
  if (rank > (size_t)INT32_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE, "rank %zu is too large", rank);
  }
  bool empty = false;
  for (size_t i = 0; i < rank; i++) {
    if (shape[i] < 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                         "data.shape[%zu] is %" PRId64 " but dimensions must be >= 0", i, shape[i]);
    }
    empty = empty || shape[i] == 0;
  }
  /* An empty tensor has byte size 0 whatever its other dims, so only a non-empty one can
   * overflow; and then every partial product below is bounded by the total. */
  if (!empty) {
    int64_t bytes = element_size;
    for (size_t i = 0; i < rank; i++) {
      if (cleave_mul_overflows(bytes, shape[i], &bytes)) {
        char dims[160], name[TYPE_SIZE];
        cleave_format_shape(dims, sizeof dims, shape, rank);
        cleave_format_type(name, sizeof name, type);
        return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                           "data of shape %s and type %s has a byte size above 2^63-1", dims, name);
      }
    }
  }
  geom->info.element_size = element_size;
  return CLEAVE_OK;
}

/* ---- the axis ---------------------------------------------------------------------------- */

static void format_int(char *buf, size_t size, cleave_int v) {
  if (v.fits) {
    snprintf(buf, size, "%" PRId64, v.value);
  } else {
    snprintf(buf, size, "%" PRIu64, v.unsigned_value);
  }
}

/* Reads the axis per the operator's rules on its rank, then normalises it against `rank`. */
static cleave_status resolve_axis(const cleave_op *op, const char *op_name, size_t rank,
                                  int64_t *axis, cleave_error *err) {
  const cleave_values *v = &op->axis;
  cleave_int value = {0, 0, true};
  bool onnx = op->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || op->kind == CLEAVE_OP_ONNX_SPLIT;
  if (v->rank < 0) {
    if (!onnx) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS, "%s needs an axis input", op_name);
    }
  } else {
    cleave_status st = cleave_values_check(v, "axis", CLEAVE_ERROR_INVALID_AXIS, err);
    if (st != CLEAVE_OK) {
      return st;
    }
    /* VariadicSplit alone also takes a 1-element 1-D axis. */
    bool shape_ok =
        v->rank == 0 || (op->kind == CLEAVE_OP_VARIADIC_SPLIT && v->rank == 1 && v->count == 1);
    if (!shape_ok) {
      if (v->rank == 1) {
        return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                           "axis must be a scalar for %s, got a 1-D tensor of %" PRId64
                           " value(s)%s",
                           op_name, v->count,
                           op->kind == CLEAVE_OP_VARIADIC_SPLIT ? ""
                                                                : " (only VariadicSplit "
                                                                  "accepts shape [1])");
      }
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "axis must be a scalar for %s, got a tensor of rank %d", op_name,
                         (int)v->rank);
    }
    value = cleave_values_get(v, 0);
  }
  int64_t r = (int64_t)rank;
  if (!value.fits || value.value < -r || value.value >= r) {
    char text[VALUE_SIZE];
    format_int(text, sizeof text, value);
    if (r == 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "axis %s is out of range for data of rank 0 (a scalar cannot be split)",
                         text);
    }
    return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                       "axis %s is out of range [%" PRId64 ", %" PRId64
                       "] for data of rank %" PRId64,
                       text, -r, r - 1, r);
  }
  *axis = value.value < 0 ? value.value + r : value.value;
  return CLEAVE_OK;
}

/* ---- split descriptions ------------------------------------------------------------------ */

static void set_uniform(cleave_geometry *geom, int64_t count, int64_t chunk, int64_t last) {
  geom->uniform = true;
  geom->info.num_outputs = count;
  geom->chunk = chunk;
  geom->last = last;
}

/*
 * Validates an explicit list of lengths (`name` in messages) and sets the geometry from it.
 * `allow_minus_one`: VariadicSplit's single -1 entry. Entries must otherwise be >= 0 and sum to d.
 */
static cleave_status resolve_list(const cleave_values *list, const char *name, bool allow_minus_one,
                                  cleave_geometry *geom, cleave_error *err) {
  int64_t d = geom->info.axis_dim, a = geom->info.axis;
  int64_t sum = 0, minus_one = -1;
  if (list->count == 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "%s is empty: it needs at least one entry",
                       name);
  }
  for (int64_t i = 0; i < list->count; i++) {
    cleave_int v = cleave_values_get(list, i);
    if (!v.fits) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s[%" PRId64 "] is %" PRIu64 ", which does not fit in int64", name, i,
                         v.unsigned_value);
    }
    if (allow_minus_one && v.value == -1) {
      if (minus_one >= 0) {
        return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                           "%s has -1 at index %" PRId64 " and at index %" PRId64
                           "; at most one entry may be -1",
                           name, minus_one, i);
      }
      minus_one = i;
      continue;
    }
    if (v.value < 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s[%" PRId64 "] is %" PRId64 " but entries must be >= %d", name, i,
                         v.value, allow_minus_one ? -1 : 0);
    }
    if (cleave_add_overflows(sum, v.value, &sum)) {
      return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                         "%s overflows int64 when summed up to index %" PRId64, name, i);
    }
  }
  if (minus_one >= 0) {
    if (sum > d) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s other than the -1 sum to %" PRId64 " but data.shape[%" PRId64
                         "] is %" PRId64 ", so the -1 would be %" PRId64,
                         name, sum, a, d, d - sum);
    }
  } else if (sum != d) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "%s sum to %" PRId64 " but data.shape[%" PRId64 "] is %" PRId64, name, sum,
                       a, d);
  }
  geom->uniform = false;
  geom->list = list;
  geom->minus_one = minus_one;
  geom->resolved = minus_one >= 0 ? d - sum : 0;
  geom->info.num_outputs = list->count;
  return CLEAVE_OK;
}

/* Checks the rank of a list of lengths: 1-D only. */
static cleave_status require_1d(const cleave_values *list, const char *name, const char *op_name,
                                cleave_error *err) {
  if (list->rank == 1) {
    return CLEAVE_OK;
  }
  if (list->rank == 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "%s must be 1-D for %s, got a scalar", name,
                       op_name);
  }
  return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "%s must be 1-D for %s, got rank %d", name,
                     op_name, (int)list->rank);
}

static cleave_status resolve_split_1(const cleave_op *op, cleave_geometry *geom,
                                     cleave_error *err) {
  int64_t n = op->num_splits, d = geom->info.axis_dim;
  if (n < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "num_splits is %" PRId64 " but must be >= 1", n);
  }
  if (d % n != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "data.shape[%" PRId64 "] = %" PRId64
                       " is not divisible by num_splits = %" PRId64,
                       geom->info.axis, d, n);
  }
  set_uniform(geom, n, d / n, d / n);
  return CLEAVE_OK;
}

static cleave_status resolve_variadic(const cleave_op *op, cleave_geometry *geom,
                                      cleave_error *err) {
  const cleave_values *list = &op->lengths;
  if (list->rank < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "VariadicSplit-1 needs split_lengths");
  }
  cleave_status st = cleave_values_check(list, "split_lengths", CLEAVE_ERROR_INVALID_SPLIT, err);
  if (st == CLEAVE_OK) {
    st = require_1d(list, "split_lengths", "VariadicSplit-1", err);
  }
  if (st == CLEAVE_OK) {
    st = resolve_list(list, "split_lengths", true, geom, err);
  }
  return st;
}

static cleave_status resolve_sequence(const cleave_op *op, cleave_geometry *geom,
                                      cleave_error *err) {
  const cleave_values *split = &op->lengths;
  int64_t d = geom->info.axis_dim;
  if (op->keepdims != 0 && op->keepdims != 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ATTRIBUTE,
                       "keepdims is %" PRId64 " but must be 0 or 1", op->keepdims);
  }
  if (split->rank < 0) {
    set_uniform(geom, d, 1, 1);
    geom->info.axis_removed = op->keepdims == 0;
    return CLEAVE_OK;
  }
  cleave_status st = cleave_values_check(split, "split", CLEAVE_ERROR_INVALID_SPLIT, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (split->dtype != CLEAVE_I32 && split->dtype != CLEAVE_I64) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "split must be int32 or int64, got %s",
                       cleave_dtype_name(split->dtype));
  }
  if (split->rank >= 2) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "split has rank %d but must be a scalar or 1-D", (int)split->rank);
  }
  if (split->rank == 1) {
    return resolve_list(split, "split", false, geom, err);
  }
  int64_t s = cleave_values_get(split, 0).value;
  if (s < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "split is %" PRId64 " but a scalar split must be >= 1", s);
  }
  int64_t rest = d % s;
  set_uniform(geom, d / s + (rest != 0), s, rest != 0 ? rest : s);
  return CLEAVE_OK;
}

static cleave_status resolve_onnx_split(const cleave_op *op, int64_t version, const char *op_name,
                                        cleave_geometry *geom, cleave_error *err) {
  const cleave_values *split = &op->lengths;
  bool has_split = split->rank >= 0, has_n = op->has_num_splits != 0;
  int64_t n = op->num_splits, d = geom->info.axis_dim;
  if (has_split) {
    cleave_status st = cleave_values_check(split, "split", CLEAVE_ERROR_INVALID_SPLIT, err);
    if (st != CLEAVE_OK) {
      return st;
    }
    if (split->dtype != CLEAVE_I64) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "split must be int64 for %s, got %s",
                         op_name, cleave_dtype_name(split->dtype));
    }
    st = require_1d(split, "split", op_name, err);
    if (st != CLEAVE_OK) {
      return st;
    }
  }
  if (version >= 18) {
    if (has_split == has_n) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s takes exactly one of split and num_outputs, got %s", op_name,
                         has_split ? "both" : "neither");
    }
    if (has_split) {
      return resolve_list(split, "split", false, geom, err);
    }
    if (n < 1) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "num_outputs is %" PRId64 " but must be >= 1", n);
    }
    int64_t chunk = d / n + (d % n != 0), used = 0;
    /* chunk * (n - 1) can only overflow when it is far above d: the same error. */
    if (cleave_mul_overflows(chunk, n - 1, &used) || used > d) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s with num_outputs = %" PRId64 " cannot split data.shape[%" PRId64
                         "] = %" PRId64 ": %" PRId64 " chunks of %" PRId64
                         " leave a negative length for the last output",
                         op_name, n, geom->info.axis, d, n - 1, chunk);
    }
    set_uniform(geom, n, chunk, d - used);
    return CLEAVE_OK;
  }
  if (has_n && n < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "the node's output count num_splits is %" PRId64 " but must be >= 1", n);
  }
  if (has_split) {
    if (has_n && split->count != n) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "split has %" PRId64 " entries but the node has %" PRId64 " outputs",
                         split->count, n);
    }
    return resolve_list(split, "split", false, geom, err);
  }
  if (!has_n) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s without split needs the node's number of outputs (num_splits)", op_name);
  }
  if (d % n != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "data.shape[%" PRId64 "] = %" PRId64 " is not divisible into the %" PRId64
                       " equal outputs of %s",
                       geom->info.axis, d, n, op_name);
  }
  set_uniform(geom, n, d / n, d / n);
  return CLEAVE_OK;
}

/* ---- the routine ------------------------------------------------------------------------- */

cleave_status cleave_resolve(const cleave_op *op, cleave_type type, const int64_t *shape,
                             size_t rank, cleave_geometry *geom, cleave_error *err) {
  if (op == NULL || geom == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the operator description is NULL");
  }
  *geom = (cleave_geometry){.minus_one = -1};
  char op_name[NAME_SIZE];
  int64_t version = 1;
  cleave_status st = CLEAVE_OK;
  switch (op->kind) {
  case CLEAVE_OP_SPLIT:
    snprintf(op_name, sizeof op_name, "Split-1");
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    snprintf(op_name, sizeof op_name, "VariadicSplit-1");
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    st = resolve_version("SplitToSequence", sequence_versions,
                         sizeof sequence_versions / sizeof sequence_versions[0], op->opset,
                         &version, err);
    snprintf(op_name, sizeof op_name, "SplitToSequence-%" PRId64, version);
    break;
  case CLEAVE_OP_ONNX_SPLIT:
    st = resolve_version("Split", split_versions, sizeof split_versions / sizeof split_versions[0],
                         op->opset, &version, err);
    snprintf(op_name, sizeof op_name, "Split-%" PRId64, version);
    break;
  default:
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "operator kind %d is not a cleave_op_kind", (int)op->kind);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  bool onnx = op->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || op->kind == CLEAVE_OP_ONNX_SPLIT;
  st = check_shape(type, shape, rank, geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (onnx && !onnx_accepts(op->kind, version, type.dtype)) {
    char name[TYPE_SIZE];
    cleave_format_type(name, sizeof name, type);
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "%s does not accept %s data%s", op_name,
                       name,
                       type.dtype == CLEAVE_BF16 && op->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE
                           ? " (bf16 needs opset 24)"
                       : type.dtype == CLEAVE_BF16 && version > 1 ? " (bf16 needs opset 13)"
                                                                  : "");
  }
  int64_t axis = 0;
  st = resolve_axis(op, op_name, rank, &axis, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  geom->info.axis = axis;
  geom->info.axis_dim = shape[axis];
  switch (op->kind) {
  case CLEAVE_OP_SPLIT:
    st = resolve_split_1(op, geom, err);
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    st = resolve_variadic(op, geom, err);
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    st = resolve_sequence(op, geom, err);
    break;
  default:
    st = resolve_onnx_split(op, version, op_name, geom, err);
    break;
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t outer = 1, inner = geom->info.element_size;
  bool empty = false;
  for (size_t i = 0; i < rank; i++) {
    empty = empty || shape[i] == 0;
  }
  if (!empty) {
    /* check_shape proved the total fits, so these partial products do. */
    for (int64_t i = 0; i < axis; i++) {
      outer *= shape[i];
    }
    for (size_t i = (size_t)axis + 1; i < rank; i++) {
      inner *= shape[i];
    }
  }
  geom->outer = empty ? 0 : outer;
  geom->inner_bytes = empty ? 0 : inner;
  geom->info.output_rank = (int64_t)rank - (geom->info.axis_removed ? 1 : 0);
  return cleave_succeed(err);
}

int64_t cleave_geometry_length(const cleave_geometry *geom, int64_t i) {
  if (geom->uniform) {
    return i == geom->info.num_outputs - 1 ? geom->last : geom->chunk;
  }
  if (i == geom->minus_one) {
    return geom->resolved;
  }
  return cleave_values_get(geom->list, i).value;
}

cleave_status cleave_infer(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                           cleave_split_info *info, int64_t *lengths, size_t capacity,
                           cleave_error *err) {
  if (info == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "cleave_infer needs an info result");
  }
  cleave_geometry geom;
  cleave_status st = cleave_resolve(op, type, shape, rank, &geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  *info = geom.info;
  if (lengths != NULL) {
    if ((uint64_t)capacity < (uint64_t)geom.info.num_outputs) {
      return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                         "lengths holds %zu entries but the operator has %" PRId64 " outputs",
                         capacity, geom.info.num_outputs);
    }
    for (int64_t i = 0; i < geom.info.num_outputs; i++) {
      lengths[i] = cleave_geometry_length(&geom, i);
    }
  }
  return cleave_succeed(err);
}
