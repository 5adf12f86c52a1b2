/* Kernels of the ONNX test runner. Split and SplitToSequence translate the node into a
 * `cleave_op` and run it with cleave_infer + cleave_run; the sequence operators and Constant
 * are plain bookkeeping. */
#include "ox_ops.h"

#include "ox_decode.h"
#include "ox_node.h"
#include "ox_ops_concat.h"
#include "shape_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The integer values held by a tensor, as cleave reads an axis or lengths from one. Non-integer
 * tensors are passed on too: cleave rejects their type with its own message. */
static cleave_values ox_values_of(const ox_tensor *t) {
  cleave_values v;
  v.dtype = t->type.dtype;
  v.rank = t->rank;
  v.count = (size_t)t->count; /* a decoded tensor's element count: >= 0 */
  v.data = t->data;
  return v;
}

/*
 * Runs `op` on `data` and returns its outputs as a new array of tensors in *outs (*n_outs of
 * them). Shapes come from cleave_infer; the copy from cleave_run.
 */
static int ox_execute(const ox_node_ctx *c, const cleave_op *op, const ox_tensor *data,
                      ox_tensor **outs, size_t *n_outs, tool_error *err) {
  cleave_error cerr;
  cleave_split_info info;
  int64_t *lengths = NULL;
  int64_t *dims = NULL;
  void **ptrs = NULL;
  ox_tensor *res = NULL;
  size_t n = 0;
  int st = CLI_EXIT_OK;
  *outs = NULL;
  *n_outs = 0;
  memset(&cerr, 0, sizeof cerr);
  if (cleave_infer(op, data->type, data->dims, data->rank, &info, NULL, 0, &cerr) != CLEAVE_OK) {
    return tool_fail(err, CLI_EXIT_FAIL, "%s: %s: %s", c->label, cleave_status_name(cerr.status),
                     cerr.message);
  }
  if (info.num_outputs > SIZE_MAX / sizeof(ox_tensor) || info.output_rank > data->rank) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "%s: cleave_infer returned %zu outputs of rank %zu",
                     c->label, info.num_outputs, info.output_rank);
  }
  n = info.num_outputs;
  lengths = calloc(n + 1, sizeof *lengths);
  dims = calloc(data->rank + 1, sizeof *dims);
  ptrs = calloc(n + 1, sizeof *ptrs);
  res = calloc(n + 1, sizeof *res);
  if (lengths == NULL || dims == NULL || ptrs == NULL || res == NULL) {
    st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", c->label);
  }
  if (st == CLI_EXIT_OK &&
      cleave_infer(op, data->type, data->dims, data->rank, &info, lengths, n, &cerr) != CLEAVE_OK) {
    st = tool_fail(err, CLI_EXIT_SOFTWARE, "%s: the second cleave_infer failed: %s: %s", c->label,
                   cleave_status_name(cerr.status), cerr.message);
  }
  size_t made = 0;
  for (size_t i = 0; st == CLI_EXIT_OK && i < n; i++) {
    size_t r = 0;
    for (size_t k = 0; k < data->rank; k++) {
      if (k == info.axis) {
        if (info.axis_removed) {
          continue;
        }
        dims[r++] = lengths[i];
      } else {
        dims[r++] = data->dims[k];
      }
    }
    st = ox_tensor_init(&res[i], data->onnx_type, r, dims, c->label, err);
    if (st == CLI_EXIT_OK) {
      ptrs[i] = res[i].data;
      made = i + 1;
    }
  }
  if (st == CLI_EXIT_OK) {
    cleave_tensor in;
    in.data = data->data;
    in.type = data->type;
    in.rank = data->rank;
    in.shape = data->dims;
    if (cleave_run(op, &in, (void *const *)ptrs, n, &cerr) != CLEAVE_OK) {
      st = tool_fail(err, CLI_EXIT_FAIL,
                     "%s: cleave_run failed after cleave_infer succeeded: %s: %s", c->label,
                     cleave_status_name(cerr.status), cerr.message);
    }
  }
  if (st != CLI_EXIT_OK) {
    for (size_t i = 0; i < made; i++) {
      ox_tensor_free(&res[i]);
    }
    free(res);
    res = NULL;
    n = 0;
  }
  free(lengths);
  free(dims);
  free(ptrs);
  *outs = res;
  *n_outs = n;
  return st;
}

static int ox_run_split(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs_v1[] = {"axis", "split", NULL};
  static const char *const attrs_v13[] = {"axis", NULL};
  static const char *const attrs_v18[] = {"axis", "num_outputs", NULL};
  const int v = c->version;
  const ox_tensor *data;
  const ox_tensor *split_input = NULL;
  int64_t axis = 0;
  int64_t num_outputs = 0;
  int has_axis;
  int has_num;
  ox_tensor *outs = NULL;
  size_t n_outs = 0;
  /* Split-1 reads `split` from an attribute or a second input, Split-2 and -11 from the
   * attribute, Split-13 and -18 from the input. */
  int st = ox_check_attributes(c, v >= 18 ? attrs_v18 : v >= 13 ? attrs_v13 : attrs_v1, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 1, v == 2 || v == 11 ? 1 : 2, 1, SIZE_MAX, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_input_tensor(c, 0, "input", 1, &data, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_input_tensor(c, 1, "split", 0, &split_input, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_attr_int(c, "axis", &axis, &has_axis, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_attr_int(c, "num_outputs", &num_outputs, &has_num, err);
  }
  if (st != CLI_EXIT_OK) {
    return st;
  }
  cleave_op op = cleave_op_onnx_split(c->opset);
  if (has_axis) {
    op.axis = cleave_values_scalar(&axis);
  }
  const Onnx__AttributeProto *split_attr = ox_attr(c, "split");
  if (split_attr != NULL) {
    st = ox_check_attr_type(c, split_attr, OX_ATTR_INTS, "INTS", err);
    if (st == CLI_EXIT_OK && split_input != NULL) {
      st = tool_fail(err, CLI_EXIT_DATA,
                     "malformed model: %s gives 'split' both as an attribute "
                     "and as an input",
                     c->label);
    }
    if (st != CLI_EXIT_OK) {
      return st;
    }
    op.lengths = cleave_values_list(split_attr->ints, split_attr->n_ints);
  } else if (split_input != NULL) {
    /* Split-1's schema types its `split` input T, the data's float type, with whole-number
     * values (cleave checks those); integer lengths are the `split` attribute (docs/operators.md
     * section 5). */
    if (v == 1 && split_input->type.dtype != CLEAVE_F16 && split_input->type.dtype != CLEAVE_F32 &&
        split_input->type.dtype != CLEAVE_F64) {
      const char *name = cleave_dtype_name(split_input->type.dtype);
      return tool_fail(
          err, CLI_EXIT_FAIL,
          "%s: invalid split: the split input of ONNX Split-1 has the data's type T "
          "(float16, float or double), got %s; integer lengths go in the split attribute",
          c->label, name != NULL ? name : "a non-numeric type");
    }
    op.lengths = ox_values_of(split_input);
  }
  /* Split-18 with num_outputs may list fewer outputs (trailing ones omitted, onnx PR 8255): the
   * sizes still come from num_outputs and only the listed outputs are kept. */
  int trailing_omitted = v >= 18 && has_num;
  int64_t node_outputs = (int64_t)c->n_outputs;
  if (v >= 18) {
    if (has_num) {
      op.num_outputs = cleave_values_scalar(&num_outputs);
    }
    if (has_num && num_outputs >= 1 && (uint64_t)c->n_outputs > (uint64_t)num_outputs) {
      return tool_fail(err, CLI_EXIT_FAIL,
                       "%s: invalid split: the node lists %zu %s but num_outputs is %" PRId64,
                       c->label, c->n_outputs, tool_plural(c->n_outputs, "output", "outputs"),
                       num_outputs);
    }
  } else {
    op.num_outputs = cleave_values_scalar(&node_outputs);
  }
  st = ox_execute(c, &op, data, &outs, &n_outs, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  if (trailing_omitted ? n_outs < c->n_outputs : n_outs != c->n_outputs) {
    st = tool_fail(err, CLI_EXIT_FAIL, "%s: the split gives %zu %s but the node has %zu", c->label,
                   n_outs, tool_plural(n_outs, "output", "outputs"), c->n_outputs);
  }
  /* Outputs with an empty name are omitted in every version: not produced. */
  for (size_t i = 0; i < n_outs; i++) {
    if (st == CLI_EXIT_OK && i < c->n_outputs && ox_output_named(c, i)) {
      c->outputs[i].kind = OX_KIND_TENSOR;
      c->outputs[i].tensor = outs[i];
    } else {
      ox_tensor_free(&outs[i]);
    }
  }
  free(outs);
  return st;
}

static int ox_run_split_to_sequence(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs[] = {"axis", "keepdims", NULL};
  const ox_tensor *data;
  const ox_tensor *split = NULL;
  int64_t axis = 0;
  int64_t keepdims = 1;
  int has_axis;
  int has_keepdims;
  int st = ox_check_attributes(c, attrs, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 1, 2, 1, 1, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_input_tensor(c, 0, "input", 1, &data, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_input_tensor(c, 1, "split", 0, &split, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_attr_int(c, "axis", &axis, &has_axis, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_attr_int(c, "keepdims", &keepdims, &has_keepdims, err);
  }
  if (st != CLI_EXIT_OK) {
    return st;
  }
  cleave_op op = cleave_op_split_to_sequence(c->opset);
  if (has_axis) {
    op.axis = cleave_values_scalar(&axis);
  }
  if (has_keepdims) {
    op.keepdims = keepdims;
  }
  if (split != NULL) {
    op.lengths = ox_values_of(split);
  }
  c->outputs[0].kind = OX_KIND_SEQUENCE;
  return ox_execute(c, &op, data, &c->outputs[0].items, &c->outputs[0].length, err);
}

static int ox_run_sequence_at(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs[] = {NULL};
  const ox_value *seq;
  const ox_tensor *pos;
  int64_t p;
  int st = ox_check_attributes(c, attrs, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 2, 2, 1, 1, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_sequence_input(c, &seq, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_input_tensor(c, 1, "position", 1, &pos, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_check_sequence_version(c, err);
  }
  if (st != CLI_EXIT_OK) {
    return st;
  }
  if (pos->rank != 0 || (pos->onnx_type != OX_INT32 && pos->onnx_type != OX_INT64)) {
    char dims[128];
    shape_format(pos->dims, pos->rank, dims, sizeof dims);
    return tool_fail(err, CLI_EXIT_FAIL, "%s: position must be an int32 or int64 scalar, got %s %s",
                     c->label, ox_type_name(pos->onnx_type), dims);
  }
  if (pos->onnx_type == OX_INT32) {
    int32_t p32;
    memcpy(&p32, pos->data, sizeof p32);
    p = p32;
  } else {
    memcpy(&p, pos->data, sizeof p);
  }
  int64_t n = (int64_t)seq->length;
  if (p < -n || p >= n) {
    return tool_fail(err, CLI_EXIT_FAIL,
                     "%s: position %" PRId64 " is out of range [%" PRId64 ", %" PRId64
                     "] for a sequence of %" PRId64 " %s",
                     c->label, p, -n, n - 1, n, tool_plural((uint64_t)n, "tensor", "tensors"));
  }
  if (p < 0) {
    p += n;
  }
  c->outputs[0].kind = OX_KIND_TENSOR;
  return ox_tensor_copy(&c->outputs[0].tensor, &seq->items[p], err);
}

static int ox_run_sequence_length(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs[] = {NULL};
  const ox_value *seq;
  int st = ox_check_attributes(c, attrs, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 1, 1, 1, 1, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_sequence_input(c, &seq, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_check_sequence_version(c, err);
  }
  if (st == CLI_EXIT_OK) {
    c->outputs[0].kind = OX_KIND_TENSOR;
    st = ox_tensor_init(&c->outputs[0].tensor, OX_INT64, 0, NULL, c->label, err);
  }
  if (st == CLI_EXIT_OK) {
    int64_t len = (int64_t)seq->length;
    memcpy(c->outputs[0].tensor.data, &len, sizeof len);
  }
  return st;
}

/* Builds a Constant's 0-D (count < 0) or 1-D tensor from attribute values of `elem` bytes. */
static int ox_constant_values(const ox_node_ctx *c, int32_t onnx_type, const void *values,
                              int64_t count, size_t elem, tool_error *err) {
  int64_t dim = count < 0 ? 1 : count;
  c->outputs[0].kind = OX_KIND_TENSOR;
  int st = ox_tensor_init(&c->outputs[0].tensor, onnx_type, count < 0 ? 0 : 1, &dim, c->label, err);
  if (st == CLI_EXIT_OK && dim > 0) {
    memcpy(c->outputs[0].tensor.data, values, (size_t)dim * elem);
  }
  return st;
}

static int ox_run_constant(const ox_node_ctx *c, tool_error *err) {
  static const char *const attrs[] = {"value",         "value_int",    "value_ints",
                                      "value_float",   "value_floats", "value_string",
                                      "value_strings", "sparse_value", NULL};
  int st = ox_check_attributes(c, attrs, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_arity(c, 0, 0, 1, 1, err);
  }
  if (st == CLI_EXIT_OK && c->node->n_attribute != 1) {
    st = tool_fail(err, CLI_EXIT_DATA,
                   "malformed model: %s has %zu attributes; it needs exactly one", c->label,
                   c->node->n_attribute);
  }
  if (st != CLI_EXIT_OK) {
    return st;
  }
  const Onnx__AttributeProto *a = c->node->attribute[0];
  const char *name = ox_str(a->name);
  if (strcmp(name, "value") == 0) {
    st = ox_check_attr_type(c, a, OX_ATTR_TENSOR, "TENSOR", err);
    if (st == CLI_EXIT_OK && a->t == NULL) {
      st = tool_fail(err, CLI_EXIT_DATA, "malformed model: attribute 'value' of %s holds no tensor",
                     c->label);
    }
    if (st == CLI_EXIT_OK) {
      c->outputs[0].kind = OX_KIND_TENSOR;
      st = ox_decode_tensor(a->t, c->label, &c->outputs[0].tensor, err);
    }
  } else if (strcmp(name, "value_int") == 0) {
    st = ox_check_attr_type(c, a, OX_ATTR_INT, "INT", err);
    if (st == CLI_EXIT_OK) {
      st = ox_constant_values(c, OX_INT64, &a->i, -1, sizeof a->i, err);
    }
  } else if (strcmp(name, "value_ints") == 0) {
    st = ox_check_attr_type(c, a, OX_ATTR_INTS, "INTS", err);
    if (st == CLI_EXIT_OK) {
      st = ox_constant_values(c, OX_INT64, a->ints, (int64_t)a->n_ints, sizeof *a->ints, err);
    }
  } else if (strcmp(name, "value_float") == 0) {
    st = ox_check_attr_type(c, a, OX_ATTR_FLOAT, "FLOAT", err);
    if (st == CLI_EXIT_OK) {
      st = ox_constant_values(c, OX_FLOAT, &a->f, -1, sizeof a->f, err);
    }
  } else if (strcmp(name, "value_floats") == 0) {
    st = ox_check_attr_type(c, a, OX_ATTR_FLOATS, "FLOATS", err);
    if (st == CLI_EXIT_OK) {
      st = ox_constant_values(c, OX_FLOAT, a->floats, (int64_t)a->n_floats, sizeof *a->floats, err);
    }
  } else if (strcmp(name, "value_string") == 0 || strcmp(name, "value_strings") == 0) {
    int one = strcmp(name, "value_string") == 0;
    size_t n = one ? 1 : a->n_strings;
    cleave_string *s = calloc(n + 1, sizeof *s);
    st = ox_check_attr_type(c, a, one ? OX_ATTR_STRING : OX_ATTR_STRINGS,
                            one ? "STRING" : "STRINGS", err);
    if (st == CLI_EXIT_OK && s == NULL) {
      st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", c->label);
    }
    for (size_t i = 0; st == CLI_EXIT_OK && i < n; i++) {
      const ProtobufCBinaryData *b = one ? &a->s : &a->strings[i];
      s[i].data = (const char *)b->data;
      s[i].size = b->len;
    }
    if (st == CLI_EXIT_OK) {
      st = ox_constant_values(c, OX_STRING, s, one ? -1 : (int64_t)n, sizeof *s, err);
    }
    free(s);
  } else {
    (void)OX_ATTR_SPARSE_TENSOR;
    st = tool_fail(err, CLI_EXIT_FAIL, "%s: sparse constants are not supported", c->label);
  }
  return st;
}

static const int ox_split_versions[] = {1, 2, 11, 13, 18, 0};
static const int ox_split_to_sequence_versions[] = {11, 24, 0};
static const int ox_sequence_versions[] = {11, 0};
static const int ox_constant_versions[] = {1, 9, 11, 12, 13, 19, 21, 23, 24, 0};
static const int ox_concat_versions[] = {1, 4, 11, 13, 0};

static const ox_op ox_ops[] = {
    {"Split", ox_split_versions, ox_run_split},
    {"SplitToSequence", ox_split_to_sequence_versions, ox_run_split_to_sequence},
    {"SequenceAt", ox_sequence_versions, ox_run_sequence_at},
    {"SequenceLength", ox_sequence_versions, ox_run_sequence_length},
    {"Constant", ox_constant_versions, ox_run_constant},
    {"Concat", ox_concat_versions, ox_run_concat},
    {"ConcatFromSequence", ox_sequence_versions, ox_run_concat_from_sequence},
    {"SequenceConstruct", ox_sequence_versions, ox_run_sequence_construct},
};

const ox_op *ox_op_find(const char *domain, const char *op_type) {
  if (domain != NULL && domain[0] != '\0' && strcmp(domain, "ai.onnx") != 0) {
    return NULL;
  }
  for (size_t i = 0; i < sizeof ox_ops / sizeof ox_ops[0]; i++) {
    if (strcmp(ox_ops[i].op_type, ox_str(op_type)) == 0) {
      return &ox_ops[i];
    }
  }
  return NULL;
}

int ox_op_version(const ox_op *op, int64_t opset) {
  int v = 0;
  for (size_t i = 0; op->versions[i] != 0; i++) {
    if (op->versions[i] <= opset) {
      v = op->versions[i];
    }
  }
  return v;
}
