/*
 * The concatenating family's checks before the dimensions (docs/operators.md section 8), in the
 * section's order: the operator and its version, the inputs' count, their element types (each
 * valid, all equal), their shapes (dims, byte sizes), the version's type list, their ranks, the
 * new_axis attribute, then the axis. `cleave_concat_at` (concat_dims.c) then checks the dims for
 * one axis position. Static shapes are partial shapes whose dims are points, so static inference,
 * execution and partial inference run these same checks.
 */
#include "rules/rules.h"

#include <string.h>

cleave_shape_view cleave_concat_view(const cleave_concat_inputs *inputs, size_t i) {
  cleave_shape_view view;
  if (inputs->tensors != NULL) {
    const cleave_tensor *t = &inputs->tensors[i];
    /* Ranks above INT32_MAX are refused (check_shapes); clamping keeps the others exact. */
    view.rank = t->rank > (size_t)INT64_MAX ? INT64_MAX : (int64_t)t->rank;
    view.points = t->shape;
    view.dims = NULL;
    view.static_rank = t->rank;
    return view;
  }
  const cleave_partial_shape *p = &inputs->partial[i];
  view.rank = p->rank == CLEAVE_RANK_DYNAMIC ? CLEAVE_VIEW_RANK_DYNAMIC
              : p->rank > (size_t)INT64_MAX  ? INT64_MAX
                                             : (int64_t)p->rank;
  view.points = NULL;
  view.dims = p->dims;
  view.static_rank = p->rank;
  return view;
}

/* The input count: at least one, and an array to hold them. */
static cleave_status check_count(const cleave_concat_prepared *prep, cleave_error *err) {
  const cleave_concat_inputs *in = prep->inputs;
  if (in->count == 0) {
    if (prep->op->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                         "%s needs a sequence of at least one tensor: an empty one has no element "
                         "type or shape to give",
                         prep->op_name);
    }
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "%s needs at least one input, got none",
                       prep->op_name);
  }
  if (in->tensors == NULL && in->partial == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the inputs array is NULL but num_inputs is %zu", in->count);
  }
  /* Stacking makes the count a dimension. */
  if (in->count > (size_t)INT64_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "num_inputs %zu is above 2^63-1",
                       in->count);
  }
  return CLEAVE_OK;
}

/* Each type valid, and all equal to the first input's (static tensors carry one each). Fills the
 * element size; partial inference only needs the type to be valid (its sizes play no part). */
static cleave_status check_types(cleave_concat_prepared *prep, bool static_mode,
                                 cleave_error *err) {
  const cleave_concat_inputs *in = prep->inputs;
  prep->type = in->tensors != NULL ? in->tensors[0].type : in->type;
  cleave_status st = static_mode || cleave_is_packed(prep->type.dtype)
                         ? cleave_element_size(prep->type, &prep->element_size, &prep->element_bits,
                                               &prep->bit_order, err)
                         : cleave_type_check(prep->type, err);
  if (st != CLEAVE_OK || in->tensors == NULL) {
    return st;
  }
  for (size_t i = 1; i < in->count; i++) {
    cleave_type t = in->tensors[i].type;
    if (t.dtype != prep->type.dtype || t.width != prep->type.width) {
      char got[CLEAVE_TYPE_TEXT], want[CLEAVE_TYPE_TEXT];
      cleave_format_type(got, sizeof got, t);
      cleave_format_type(want, sizeof want, prep->type);
      return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                         "inputs[%zu] has type %s but inputs[0] has type %s: the inputs of %s "
                         "must have one element type",
                         i, got, want, prep->op_name);
    }
  }
  return CLEAVE_OK;
}

/* Each input's shape: a rank the rules handle, dims >= 0 (well-formed intervals), and for static
 * shapes a byte size within int64. */
static cleave_status check_shapes(const cleave_concat_prepared *prep, bool static_mode,
                                  cleave_error *err) {
  const cleave_concat_inputs *in = prep->inputs;
  for (size_t i = 0; i < in->count; i++) {
    cleave_shape_view view = cleave_concat_view(in, i);
    char name[CLEAVE_VALUE_TEXT];
    snprintf(name, sizeof name, "inputs[%zu]", i);
    if (view.rank == CLEAVE_VIEW_RANK_DYNAMIC) {
      continue;
    }
    if (view.rank > INT32_MAX) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE, "%s has rank %zu, which is too large",
                         name, view.static_rank);
    }
    if (view.rank > 0 && view.points == NULL && view.dims == NULL) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "%s.shape is NULL but its rank is %zu",
                         name, view.static_rank);
    }
    for (int64_t j = 0; j < view.rank; j++) {
      cleave_status st = cleave_check_dim(&view, j, name, err);
      if (st != CLEAVE_OK) {
        return st;
      }
    }
    if (static_mode) {
      cleave_status st =
          cleave_check_byte_size(view.points, view.rank, prep->type, prep->element_size, name, err);
      if (st != CLEAVE_OK) {
        return st;
      }
    }
  }
  return CLEAVE_OK;
}

/* One rank for every input of static rank; inputs of dynamic rank take it. */
static cleave_status check_ranks(cleave_concat_prepared *prep, cleave_error *err) {
  const cleave_concat_inputs *in = prep->inputs;
  prep->rank = CLEAVE_VIEW_RANK_DYNAMIC;
  for (size_t i = 0; i < in->count; i++) {
    cleave_shape_view view = cleave_concat_view(in, i);
    if (view.rank == CLEAVE_VIEW_RANK_DYNAMIC) {
      continue;
    }
    if (prep->rank == CLEAVE_VIEW_RANK_DYNAMIC) {
      prep->rank = view.rank;
      prep->rank_source = i;
    } else if (view.rank != prep->rank) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                         "inputs[%zu] has rank %" PRId64 " but inputs[%zu] has rank %" PRId64
                         ": the inputs of %s must have one rank",
                         i, view.rank, prep->rank_source, prep->rank, prep->op_name);
    }
  }
  prep->output_rank = prep->rank == CLEAVE_VIEW_RANK_DYNAMIC ? CLEAVE_VIEW_RANK_DYNAMIC
                                                             : prep->rank + (prep->stack ? 1 : 0);
  return CLEAVE_OK;
}

/* The axis attribute's presence, type and shape (an attribute is a scalar). */
static cleave_status check_axis_values(const cleave_concat_prepared *prep, bool unknown,
                                       cleave_error *err) {
  const cleave_values *v = &prep->op->axis;
  if (cleave_values_absent(v)) {
    /* Only ONNX Concat-1 has a default (1). */
    if (prep->op->kind == CLEAVE_OP_ONNX_CONCAT && prep->version == 1) {
      return CLEAVE_OK;
    }
    return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS, "%s needs the axis attribute",
                       prep->op_name);
  }
  cleave_status st = cleave_values_check_known(v, "axis", CLEAVE_ERROR_INVALID_AXIS, !unknown, err);
  if (st != CLEAVE_OK || v->rank == 0) {
    return st;
  }
  if (v->rank == 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                       "axis must be a scalar for %s (an attribute), got a 1-D tensor of %zu "
                       "value(s)",
                       prep->op_name, v->count);
  }
  return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                     "axis must be a scalar for %s (an attribute), got a tensor of rank %zu",
                     prep->op_name, v->rank);
}

/* Reads the axis and normalises it against the output's rank (the inputs' rank r, or r + 1 when
 * stacking); `prep->axis` stays -1 when its position is unknown (an unknown value, or a dynamic
 * rank). */
static cleave_status resolve_axis(cleave_concat_prepared *prep, bool unknown, cleave_error *err) {
  cleave_status st = check_axis_values(prep, unknown, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t r = prep->output_rank;
  if (unknown) {
    if (r == 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "no axis is valid for inputs of rank 0 (a scalar has no axis to "
                         "concatenate on)");
    }
    return CLEAVE_OK;
  }
  bool absent = cleave_values_absent(&prep->op->axis);
  cleave_int value = {1, 0, 0.0, true, false}; /* ONNX Concat-1's default */
  if (!absent) {
    value = cleave_values_get(&prep->op->axis, 0);
  }
  char text[CLEAVE_VALUE_TEXT + 40];
  cleave_format_int(text, sizeof text, value);
  if (absent) {
    strcat(text, " (the default of ONNX Concat-1)");
  }
  /* Negative axes came with ONNX's opset 11; OpenVINO has always had them. */
  bool negative_ok = prep->op->kind != CLEAVE_OP_ONNX_CONCAT || prep->version >= 11;
  const char *no_negative = "";
  char why[160] = "";
  if (value.fits && value.value < 0 && !negative_ok) {
    snprintf(why, sizeof why, ": %s takes no negative axis (they came with version 11)",
             prep->op_name);
    no_negative = why;
  }
  const char *stacking = prep->stack ? " (new_axis = 1 adds one)" : "";
  if (r == CLEAVE_VIEW_RANK_DYNAMIC) {
    /* Some rank fits any axis, but ranks are at most INT32_MAX (see check_shapes). */
    int64_t most = (int64_t)INT32_MAX + (prep->stack ? 1 : 0);
    if (!value.fits || value.value >= most || value.value < (negative_ok ? -most : 0)) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "axis %s is out of range for inputs of any rank (ranks are at most "
                         "%d)%s",
                         text, INT32_MAX, no_negative);
    }
    return CLEAVE_OK;
  }
  if (!value.fits || value.value >= r || value.value < (negative_ok ? -r : 0)) {
    if (r == 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "axis %s is out of range for inputs of rank 0 (a scalar has no axis to "
                         "concatenate on)",
                         text);
    }
    return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                       "axis %s is out of range [%" PRId64 ", %" PRId64
                       "] for inputs of rank %" PRId64 "%s%s",
                       text, negative_ok ? -r : 0, r - 1, prep->rank, stacking, no_negative);
  }
  prep->axis = value.value < 0 ? value.value + r : value.value;
  return CLEAVE_OK;
}

cleave_status cleave_concat_prepare(const cleave_concat_op *op, unsigned unknown,
                                    const cleave_concat_inputs *inputs, bool static_mode,
                                    cleave_concat_prepared *prep, cleave_error *err) {
  if (op == NULL || inputs == NULL || prep == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the operator description is NULL");
  }
  *prep = (cleave_concat_prepared){.op = op, .inputs = inputs, .axis = -1};
  cleave_status st =
      cleave_resolve_concat_version(op, &prep->version, prep->op_name, sizeof prep->op_name, err);
  if (st == CLEAVE_OK) {
    st = check_count(prep, err);
  }
  if (st == CLEAVE_OK) {
    st = check_types(prep, static_mode, err);
  }
  if (st == CLEAVE_OK) {
    st = check_shapes(prep, static_mode, err);
  }
  if (st == CLEAVE_OK) {
    st = cleave_check_concat_type(prep, err);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  if (op->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    if (op->new_axis != 0 && op->new_axis != 1) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_ATTRIBUTE,
                         "new_axis is %" PRId64 " but must be 0 or 1", op->new_axis);
    }
    prep->stack = op->new_axis == 1;
  }
  st = check_ranks(prep, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  return resolve_axis(prep, (unknown & CLEAVE_UNKNOWN_AXIS) != 0, err);
}
