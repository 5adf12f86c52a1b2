/*
 * cleave ir-run MODEL.xml --input NAME=FILE.npy ... [-o PREFIX]: executes an IR graph made of
 * Parameter, Const, Split, VariadicSplit and Result layers (splits chained to any depth) with the
 * library, and writes one .npy per Result, all at once or not at all
 * (tools/common/outputs.c).
 *
 * Every tensor is held in memory (the inputs, the Consts read from the .bin, each split's
 * outputs); everything is computed before the first output file is created. Output k is the k-th
 * Result layer in document order. Byte-sized outputs keep their input's dtype and byte order
 * (Consts are little-endian); packed sub-byte types and strings are written as 1-D uint8 arrays of
 * their bytes: packed types as OpenVINO packs them, strings in OpenVINO's packed string layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli_util.h"
#include "help.h"
#include "ir_commands.h"
#include "ir_const.h"
#include "ir_open.h"
#include "ir_types.h"
#include "npy.h"
#include "outputs.h"
#include "report.h"

enum { OPT_INPUT = 1, OPT_BIN, OPT_OUTPUT, OPT_FORCE, OPT_JSON, OPT_QUIET, OPT_SYNC, OPT_HELP };

static const cli_option run_options[] = {
    {"input", 'i', 1, OPT_INPUT}, {"bin", 0, 1, OPT_BIN},     {"output", 'o', 1, OPT_OUTPUT},
    {"force", 'f', 0, OPT_FORCE}, {"json", 0, 0, OPT_JSON},   {"quiet", 'q', 0, OPT_QUIET},
    {"sync", 0, 0, OPT_SYNC},     {"help", 'h', 0, OPT_HELP},
};

/* One tensor of the graph. */
typedef struct tensor {
  int set;
  cleave_type type;
  size_t rank; /* never CLEAVE_RANK_DYNAMIC: a computed tensor has a shape */
  int64_t shape[IR_MAX_RANK];
  const void *data;
  int64_t bytes;              /* of data (strings: of the handles) */
  char descr[NPY_DESCR_SIZE]; /* byte-sized types: the .npy descr to write */
} tensor;

/* One --input NAME=FILE. */
typedef struct run_input {
  const char *name;
  const char *path;
  int fd;
  uint64_t size;
  int used;
} run_input;

typedef struct run_state {
  const ir_model *m;
  const ir_bin *bin;
  tensor **tensors; /* per layer, per port index */
  void **owned;     /* every buffer to free */
  size_t num_owned, cap_owned;
} run_state;

static int keep(run_state *s, void *p) {
  if (s->num_owned == s->cap_owned) {
    size_t cap = s->cap_owned == 0 ? 64 : s->cap_owned * 2;
    void **next = realloc(s->owned, cap * sizeof *next);
    if (next == NULL) {
      free(p);
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    s->owned = next;
    s->cap_owned = cap;
  }
  s->owned[s->num_owned++] = p;
  return 0;
}

/* The .npy descr of a byte-sized type, little-endian; "" when .npy has none. */
static void descr_of(cleave_type t, char *buf, size_t size) {
  static const struct {
    cleave_dtype dtype;
    const char *descr;
  } table[] = {
      {CLEAVE_BOOLEAN, "|b1"}, {CLEAVE_I8, "|i1"},     {CLEAVE_I16, "<i2"},  {CLEAVE_I32, "<i4"},
      {CLEAVE_I64, "<i8"},     {CLEAVE_U8, "|u1"},     {CLEAVE_U16, "<u2"},  {CLEAVE_U32, "<u4"},
      {CLEAVE_U64, "<u8"},     {CLEAVE_F16, "<f2"},    {CLEAVE_F32, "<f4"},  {CLEAVE_F64, "<f8"},
      {CLEAVE_C64, "<c8"},     {CLEAVE_C128, "<c16"},  {CLEAVE_BF16, "|V2"}, {CLEAVE_F8E4M3, "|V1"},
      {CLEAVE_F8E5M2, "|V1"},  {CLEAVE_F8E8M0, "|V1"},
  };
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (table[i].dtype == t.dtype) {
      snprintf(buf, size, "%s", table[i].descr);
    }
  }
}

static int is_packed(cleave_type t) {
  int64_t bits = 0;
  return t.dtype != CLEAVE_STRING &&
         (cleave_type_bits(t, &bits, NULL, NULL) != CLEAVE_OK || bits < 8);
}

static const char *const runnable[] = {"Parameter", "Const", "Split", "VariadicSplit", "Result"};

static int refuse_layers(const ir_model *m) {
  for (size_t i = 0; i < m->num_layers; i++) {
    const ir_layer *l = &m->layers[i];
    int ok = 0;
    for (size_t k = 0; k < sizeof runnable / sizeof runnable[0]; k++) {
      ok |= strcmp(l->type, runnable[k]) == 0;
    }
    if (!ok) {
      char label[400];
      ir_layer_label(l, label, sizeof label);
      return cli_error(CLI_EXIT_DATA,
                       "'%s' line %lu: %s cannot be run: ir-run runs Parameter, Const, Split, "
                       "VariadicSplit and Result layers only",
                       m->path, l->line, label);
    }
  }
  return 0;
}

static tensor *input_tensor(run_state *s, const ir_layer *l, size_t k) {
  const ir_edge *e = ir_port_edge(s->m, ir_layer_input(l, k));
  tensor *t = &s->tensors[e->from_index][e->from_port_index];
  return t->set ? t : NULL;
}

static int fits(const cleave_dim *dims, size_t rank, const int64_t *shape, size_t shape_rank) {
  if (rank == CLEAVE_RANK_DYNAMIC) {
    return 1;
  }
  if (rank != shape_rank) {
    return 0;
  }
  for (size_t i = 0; i < rank; i++) {
    if (shape[i] < dims[i].lo || (dims[i].hi != CLEAVE_DIM_UNBOUNDED && shape[i] > dims[i].hi)) {
      return 0;
    }
  }
  return 1;
}

static void shape_str(const int64_t *shape, size_t rank, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "[");
  for (size_t i = 0; i < rank && len < size; i++) {
    len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, i > 0 ? "," : "", shape[i]);
  }
  if (len < size) {
    snprintf(buf + len, size - len, "]");
  }
}

/* Reads the whole data of an input .npy (after its header) into a kept buffer. */
static int read_data(run_state *s, const run_input *in, const npy_header *h, uint64_t bytes,
                     void **data) {
  void *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (buf == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory reading '%s'", in->path);
  }
  int rc = keep(s, buf);
  if (rc != 0) {
    return rc;
  }
  uint64_t done = 0;
  while (done < bytes) {
    ssize_t n =
        pread(in->fd, (char *)buf + done, (size_t)(bytes - done), (off_t)(h->data_offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return cli_error(CLI_EXIT_IOERR, "reading '%s' failed: %s", in->path,
                       n == 0 ? "the file shrank" : strerror(errno));
    }
    done += (uint64_t)n;
  }
  *data = buf;
  return 0;
}

/* A packed or string Parameter: its input is a 1-D uint8 .npy of the bytes (packed as OpenVINO
 * packs the type; strings in OpenVINO's packed string layout), as ir-run writes such outputs, and
 * the Parameter's shape must be static. */
static int read_raw_parameter(run_state *s, size_t li, run_input *in, cleave_type want,
                              const cleave_dim *dims, size_t rank) {
  const ir_layer *l = &s->m->layers[li];
  char label[400];
  ir_layer_label(l, label, sizeof label);
  int64_t bits = 0;
  if (want.dtype != CLEAVE_STRING && cleave_type_bits(want, &bits, NULL, NULL) != CLEAVE_OK) {
    return cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s: a %s Parameter is not supported",
                     s->m->path, l->line, label, ir_type_name(want));
  }
  /* A dynamic rank is SIZE_MAX: tested before `rank` bounds a loop over `dims`. */
  int is_static = rank != CLEAVE_RANK_DYNAMIC;
  __int128 elements = 1;
  for (size_t i = 0; is_static && i < rank && elements <= INT64_MAX; i++) {
    is_static = dims[i].lo == dims[i].hi;
    elements *= dims[i].lo; /* at most 2^63 * 2^63: no overflow of __int128 */
  }
  is_static = is_static && elements <= INT64_MAX;
  if (!is_static) {
    return cli_error(CLI_EXIT_DATA,
                     "'%s' line %lu: %s: a %s Parameter needs a static shape (its input is a 1-D "
                     "uint8 .npy of its bytes)",
                     s->m->path, l->line, label, ir_type_name(want));
  }
  npy_header h;
  int rc = npy_read_header(in->fd, in->size, in->path, &h);
  if (rc != 0) {
    return rc;
  }
  if (strcmp(h.descr, "|u1") != 0 || h.rank != 1) {
    return cli_error(CLI_EXIT_DATA,
                     "'%s' must hold a 1-D uint8 array of the %s bytes %s takes (it holds '%s' "
                     "data of rank %zu)",
                     in->path, ir_type_name(want), label, h.descr, h.rank);
  }
  uint64_t bytes = 0;
  rc = npy_check_data_size(&h, 1, in->size, in->path, &bytes);
  if (rc != 0) {
    return rc;
  }
  if (want.dtype != CLEAVE_STRING && (__int128)bytes != (elements * bits + 7) / 8) {
    return cli_error(CLI_EXIT_DATA, "'%s' holds %llu bytes but %lld %s elements take %lld",
                     in->path, (unsigned long long)bytes, (long long)elements, ir_type_name(want),
                     (long long)((elements * bits + 7) / 8));
  }
  void *data = NULL;
  if ((rc = read_data(s, in, &h, bytes, &data)) != 0) {
    return rc;
  }
  const ir_port *out = ir_layer_output(l, 0);
  tensor *t = &s->tensors[li][out - l->ports];
  t->type = want;
  t->rank = rank;
  for (size_t i = 0; i < rank; i++) {
    t->shape[i] = dims[i].lo;
  }
  t->data = data;
  t->bytes = (int64_t)bytes;
  t->descr[0] = '\0';
  if (want.dtype == CLEAVE_STRING) {
    cleave_string *handles = calloc((size_t)elements + 1, sizeof *handles);
    if (handles == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    if ((rc = keep(s, handles)) != 0) {
      return rc;
    }
    ir_error err;
    if (ir_const_unpack_strings(data, bytes, (int64_t)elements, handles, label, in->path, &err) !=
        0) {
      return ir_report_error(&err);
    }
    t->data = handles;
    t->bytes = (int64_t)elements * (int64_t)sizeof *handles;
  }
  t->set = 1;
  return 0;
}

static int run_parameter(run_state *s, size_t li, run_input *inputs, size_t num_inputs) {
  const ir_layer *l = &s->m->layers[li];
  char label[400];
  ir_layer_label(l, label, sizeof label);
  run_input *in = NULL;
  for (size_t i = 0; i < num_inputs; i++) {
    if (strcmp(inputs[i].name, l->name) == 0) {
      in = &inputs[i];
    }
  }
  if (in == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "ir-run: Parameter \"%s\" needs an input (--input %s=FILE.npy)", l->name,
                     l->name);
  }
  in->used = 1;
  /* What the Parameter accepts. */
  cleave_type want = cleave_type_of(CLEAVE_U8);
  const char *type_name = ir_layer_attr(l, "element_type");
  ir_type_kind kind = type_name != NULL ? ir_type_from_name(type_name, &want) : IR_TYPE_DYNAMIC;
  if (kind == IR_TYPE_UNKNOWN_NAME) {
    return cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s: unknown element_type '%s'", s->m->path,
                     l->line, label, type_name);
  }
  cleave_dim dims[IR_MAX_RANK];
  size_t rank = CLEAVE_RANK_DYNAMIC;
  const ir_port *out = ir_layer_output(l, 0);
  const char *shape_attr = ir_layer_attr(l, "shape");
  char why[200];
  if (shape_attr != NULL) {
    if (ir_shape_parse(shape_attr, dims, IR_MAX_RANK, &rank, why, sizeof why) != 0) {
      return cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s: %s", s->m->path, l->line, label, why);
    }
  } else if (out != NULL) {
    rank = out->rank;
    memcpy(dims, out->dims, rank * sizeof *dims);
  }
  if (out == NULL) {
    return cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s has no output port", s->m->path, l->line,
                     label);
  }
  if (kind == IR_TYPE_KNOWN && (is_packed(want) || want.dtype == CLEAVE_STRING)) {
    return read_raw_parameter(s, li, in, want, dims, rank);
  }
  /* The .npy file. */
  npy_header h;
  int rc = npy_read_header(in->fd, in->size, in->path, &h);
  if (rc != 0) {
    return rc;
  }
  npy_dtype dt;
  rc = npy_descr_to_dtype(h.descr, h.descr[1] == 'V' && kind == IR_TYPE_KNOWN ? &want : NULL,
                          in->path, &dt);
  if (rc != 0) {
    return rc;
  }
  if (h.fortran_order && h.rank > 1) {
    return cli_error(CLI_EXIT_DATA,
                     "'%s' is in Fortran order, which ir-run does not take (save it "
                     "in C order)",
                     in->path);
  }
  if (kind == IR_TYPE_KNOWN && (dt.type.dtype != want.dtype || dt.type.width != want.width)) {
    return cli_error(CLI_EXIT_DATA, "'%s' holds '%s' data but %s takes %s", in->path, h.descr,
                     label, ir_type_name(want));
  }
  if (dt.type.dtype == CLEAVE_BYTES || dt.type.dtype == CLEAVE_UNICODE) {
    return cli_error(CLI_EXIT_DATA, "'%s' holds '%s' strings, which no IR element type describes",
                     in->path, h.descr);
  }
  int64_t shape[IR_MAX_RANK];
  for (size_t i = 0; i < h.rank; i++) {
    shape[i] = h.shape[i];
  }
  if (h.rank > IR_MAX_RANK || !fits(dims, rank, shape, h.rank)) {
    char have[1600];
    shape_str(shape, h.rank > IR_MAX_RANK ? IR_MAX_RANK : h.rank, have, sizeof have);
    return cli_error(CLI_EXIT_DATA, "'%s' has shape %s, which %s does not take (shape '%s')",
                     in->path, have, label, shape_attr != NULL ? shape_attr : "of its port");
  }
  uint64_t bytes = 0;
  rc = npy_check_data_size(&h, dt.item_size, in->size, in->path, &bytes);
  if (rc != 0) {
    return rc;
  }
  void *data = NULL;
  if ((rc = read_data(s, in, &h, bytes, &data)) != 0) {
    return rc;
  }
  tensor *t = &s->tensors[li][out - l->ports];
  t->set = 1;
  t->type = dt.type;
  t->rank = h.rank;
  memcpy(t->shape, shape, h.rank * sizeof *shape);
  t->data = data;
  t->bytes = (int64_t)bytes;
  snprintf(t->descr, sizeof t->descr, "%s", h.descr);
  return 0;
}

static int run_const(run_state *s, size_t li) {
  const ir_layer *l = &s->m->layers[li];
  ir_const c;
  ir_error err;
  void *data = NULL;
  if (ir_const_info(s->m, l, s->bin, &c, &err) != 0 ||
      ir_const_read(s->bin, &c, &data, &err) != 0) {
    return ir_report_error(&err);
  }
  int rc = keep(s, data);
  if (rc != 0) {
    return rc;
  }
  const ir_port *out = ir_layer_output(l, 0);
  tensor *t = &s->tensors[li][out - l->ports];
  t->set = 1;
  t->type = c.type;
  t->rank = c.rank;
  memcpy(t->shape, c.shape, c.rank * sizeof *c.shape);
  t->data = data;
  t->bytes = (int64_t)c.size;
  descr_of(c.type, t->descr, sizeof t->descr);
  if (c.type.dtype == CLEAVE_STRING) {
    cleave_string *handles = calloc((size_t)c.elements + 1, sizeof *handles);
    if (handles == NULL || (rc = keep(s, handles)) != 0) {
      return handles == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : rc;
    }
    char label[400];
    ir_layer_label(l, label, sizeof label);
    if (ir_const_unpack_strings(data, c.size, c.elements, handles, label, s->bin->path, &err) !=
        0) {
      return ir_report_error(&err);
    }
    t->data = handles;
    t->bytes = c.elements * (int64_t)sizeof *handles;
  }
  if (c.type.dtype == CLEAVE_U3 || c.type.dtype == CLEAVE_U6) {
    /* Readable, but the library splits neither: a Result may still pass it through. */
    t->descr[0] = '\0';
  }
  return 0;
}

static cleave_values values_of(const tensor *t) {
  cleave_values v;
  v.dtype = t->type.dtype;
  v.rank = t->rank > 2 ? 2 : t->rank;
  /* The elements of a tensor held in memory: the product fits, except that a partial product
   * may wrap (unsigned, modulo 2^64) when another dim is 0, which makes the result 0 as it
   * should be. */
  size_t count = 1;
  for (size_t i = 0; i < t->rank; i++) {
    count *= (size_t)t->shape[i]; /* a dim: >= 0 */
  }
  v.count = count;
  v.data = t->data;
  return v;
}

static int run_split(run_state *s, size_t li) {
  const ir_layer *l = &s->m->layers[li];
  char label[400];
  ir_layer_label(l, label, sizeof label);
  int variadic = strcmp(l->type, "VariadicSplit") == 0;
  size_t want = variadic ? 3 : 2;
  if (ir_layer_count(l, 0) != want) {
    return cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s: %s-1 takes %zu inputs, not %zu", s->m->path,
                     l->line, label, l->type, want, ir_layer_count(l, 0));
  }
  tensor *data = input_tensor(s, l, 0);
  tensor *axis = input_tensor(s, l, 1);
  tensor *lengths = variadic ? input_tensor(s, l, 2) : NULL;
  if (data == NULL || axis == NULL || (variadic && lengths == NULL)) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: an input of %s was not computed", label);
  }
  int64_t zero = 0;
  cleave_op op = cleave_op_split(&zero, 0);
  if (variadic) {
    op = cleave_op_variadic_split(&zero, NULL, 0);
    op.lengths = values_of(lengths);
  } else {
    const char *text = ir_layer_attr(l, "num_splits");
    if (text == NULL || ir_parse_int64(text, &op.num_splits) != 0) {
      return cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s: %s", s->m->path, l->line, label,
                       text == NULL ? "<data> has no num_splits attribute"
                                    : "num_splits is not an integer");
    }
  }
  op.axis = values_of(axis);
  cleave_plan *plan = NULL;
  cleave_error cerr;
  /* The output count first, so that a hostile count is refused before the plan allocates. */
  cleave_split_info counted;
  if (cleave_infer(&op, data->type, data->shape, data->rank, &counted, NULL, 0, &cerr) ==
          CLEAVE_OK &&
      counted.num_outputs != ir_layer_count(l, 1)) {
    return cli_error(CLI_EXIT_DATA,
                     "'%s' line %lu: %s declares %zu outputs but the split gives %zu", s->m->path,
                     l->line, label, ir_layer_count(l, 1), counted.num_outputs);
  }
  if (cleave_plan_create(&op, data->type, data->shape, data->rank, &plan, &cerr) != CLEAVE_OK) {
    return cli_error(cli_exit_for_status(cerr.status), "'%s' line %lu: %s: %s", s->m->path, l->line,
                     label, cerr.message);
  }
  const cleave_split_info *info = cleave_plan_info(plan);
  size_t n = info->num_outputs;
  int rc = 0;
  if (ir_layer_count(l, 1) != n) {
    rc = cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s declares %zu outputs but the split gives %zu",
                   s->m->path, l->line, label, ir_layer_count(l, 1), n);
  }
  void **outs = calloc(n + 1, sizeof *outs);
  if (rc == 0 && outs == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < n && rc == 0; i++) {
    const ir_port *port = ir_layer_output(l, i);
    tensor *t = &s->tensors[li][port - l->ports];
    t->set = 1;
    t->type = data->type;
    t->rank = info->output_rank;
    cleave_plan_output_shape(plan, i, t->shape, NULL);
    t->bytes = cleave_plan_output_bytes(plan, i);
    memcpy(t->descr, data->descr, sizeof t->descr);
    if (!fits(port->dims, port->rank, t->shape, t->rank)) {
      char have[1600], msg[1600];
      shape_str(t->shape, t->rank, have, sizeof have);
      cleave_dim pd[IR_MAX_RANK];
      memcpy(pd, port->dims, port->rank * sizeof *pd);
      cleave_partial_shape ps = {port->rank, pd};
      if (cleave_partial_shape_format(&ps, msg, sizeof msg, NULL, NULL) != CLEAVE_OK) {
        snprintf(msg, sizeof msg, "?");
      }
      rc =
          cli_error(CLI_EXIT_DATA,
                    "'%s' line %lu: %s: output port %" PRId64 " declares %s but the split gives %s",
                    s->m->path, port->line, label, port->id, msg, have);
      break;
    }
    void *buf = malloc(t->bytes > 0 ? (size_t)t->bytes : 1);
    if (buf == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      break;
    }
    if ((rc = keep(s, buf)) != 0) {
      break;
    }
    outs[i] = buf;
    t->data = buf;
  }
  if (rc == 0 && cleave_plan_run(plan, data->data, outs, &cerr) != CLEAVE_OK) {
    rc = cli_error(cli_exit_for_status(cerr.status), "'%s' line %lu: %s: %s", s->m->path, l->line,
                   label, cerr.message);
  }
  free(outs);
  cleave_plan_destroy(plan);
  return rc;
}

/* The bytes written for a tensor: itself, or for strings OpenVINO's packed layout. */
static int output_bytes(const tensor *t, unsigned char **bytes, uint64_t *size) {
  *bytes = NULL;
  if (t->type.dtype != CLEAVE_STRING) {
    *size = (uint64_t)t->bytes;
    return 0;
  }
  const cleave_string *s = t->data;
  uint64_t n = (uint64_t)t->bytes / sizeof *s;
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; i++) {
    total += s[i].size;
  }
  if (n > INT32_MAX - 2 || total > INT32_MAX) {
    return cli_error(CLI_EXIT_DATA, "a string output is too large for OpenVINO's packed layout");
  }
  uint64_t header = n == 0 ? 4 : 4 * (n + 2);
  unsigned char *out = malloc((size_t)(header + total) + 1);
  if (out == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  uint32_t v = (uint32_t)n, end = 0;
  memcpy(out, &v, 4);
  if (n > 0) {
    memcpy(out + 4, &end, 4);
  }
  for (uint64_t i = 0; i < n; i++) {
    memcpy(out + header + end, s[i].data, s[i].size);
    end += (uint32_t)s[i].size;
    memcpy(out + 8 + 4 * i, &end, 4);
  }
  *bytes = out;
  *size = header + total;
  return 0;
}

static int write_all(int fd, const void *buf, uint64_t size, uint64_t offset, const char *path) {
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, (const char *)buf + done, (size_t)(size - done), (off_t)(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", path,
                       n == 0 ? strerror(ENOSPC) : strerror(errno));
    }
    done += (uint64_t)n;
  }
  return 0;
}

static int write_output(out_set *set, size_t k, const tensor *t) {
  char path[PATH_MAX + 96];
  out_set_final_path(set, k, path, sizeof path);
  unsigned char *payload = NULL;
  uint64_t size = 0;
  int rc = output_bytes(t, &payload, &size);
  if (rc != 0) {
    return rc;
  }
  int raw = t->type.dtype == CLEAVE_STRING || is_packed(t->type);
  int64_t byte_shape = (int64_t)size;
  unsigned char *header = NULL;
  size_t header_size = 0;
  rc = raw ? npy_build_header("|u1", 0, &byte_shape, 1, &header, &header_size)
           : npy_build_header(t->descr, 0, t->shape, t->rank, &header, &header_size);
  int fd = -1;
  if (rc == 0) {
    rc = out_set_open(set, k, &fd);
  }
  if (rc == 0) {
    rc = write_all(fd, header, header_size, 0, path);
  }
  if (rc == 0) {
    rc = write_all(fd, payload != NULL ? payload : t->data, size, header_size, path);
  }
  if (fd >= 0) {
    int crc = out_set_close(set, k, fd);
    rc = rc != 0 ? rc : crc;
  }
  free(header);
  free(payload);
  return rc;
}

/* Runs the graph and writes the Results. */
static int run_graph(run_state *s, run_input *inputs, size_t num_inputs, const char *prefix,
                     int force, int json, int quiet, int sync) {
  const ir_model *m = s->m;
  int rc = 0;
  for (size_t i = 0; i < m->num_layers && rc == 0; i++) {
    s->tensors[i] = calloc(m->layers[i].num_ports + 1, sizeof **s->tensors);
    if (s->tensors[i] == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  /* Every Parameter first, so that a missing or unknown input is reported before any split. */
  for (size_t i = 0; i < m->num_layers && rc == 0; i++) {
    if (strcmp(m->layers[i].type, "Parameter") == 0) {
      rc = run_parameter(s, i, inputs, num_inputs);
    }
  }
  for (size_t i = 0; i < num_inputs && rc == 0; i++) {
    if (!inputs[i].used) {
      rc = cli_error(CLI_EXIT_USAGE, "ir-run: the model has no Parameter named '%s'",
                     inputs[i].name);
    }
  }
  size_t num_results = 0;
  for (size_t k = 0; k < m->num_layers && rc == 0; k++) {
    size_t li = m->order[k];
    const char *type = m->layers[li].type;
    if (strcmp(type, "Const") == 0) {
      rc = run_const(s, li);
    } else if (strcmp(type, "Split") == 0 || strcmp(type, "VariadicSplit") == 0) {
      rc = run_split(s, li);
    } else if (strcmp(type, "Result") == 0) {
      num_results++;
    }
  }
  if (rc != 0) {
    return rc;
  }
  const tensor **results = calloc(num_results + 1, sizeof *results);
  if (results == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < m->num_layers && rc == 0; i++) {
    const ir_layer *l = &m->layers[i];
    if (strcmp(l->type, "Result") != 0) {
      continue;
    }
    if (ir_layer_count(l, 0) != 1) {
      char label[400];
      ir_layer_label(l, label, sizeof label);
      rc = cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s has %zu inputs (a Result has one)", m->path,
                     l->line, label, ir_layer_count(l, 0));
      break;
    }
    results[k] = input_tensor(s, l, 0);
    if (results[k] == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "internal error: the input of a Result was not computed");
      break;
    }
    if (results[k]->descr[0] == '\0' && results[k]->type.dtype != CLEAVE_STRING &&
        !is_packed(results[k]->type)) {
      char label[400];
      ir_layer_label(l, label, sizeof label);
      rc = cli_error(CLI_EXIT_DATA, "'%s' line %lu: %s: a %s tensor has no .npy form", m->path,
                     l->line, label, ir_type_name(results[k]->type));
    }
    k++;
  }
  out_set set;
  if (rc == 0) {
    rc = out_set_init(&set, prefix, num_results, force, sync);
    if (rc == 0) {
      rc = out_set_create(&set);
      for (size_t i = 0; i < num_results && rc == 0; i++) {
        rc = write_output(&set, i, results[i]);
      }
      if (rc == 0) {
        report r;
        char path[PATH_MAX + 96];
        report_begin(&r, "ir-run", json, quiet);
        for (size_t i = 0; i < num_results; i++) {
          out_set_final_path(&set, i, path, sizeof path);
          report_output(&r, results[i]->shape, results[i]->rank, path);
        }
        rc = report_end(&r);
      }
      if (rc == 0) {
        rc = out_set_commit(&set);
      } else {
        out_set_abort(&set);
      }
      out_set_free(&set);
    }
  }
  free(results);
  return rc;
}

static char *default_prefix(const char *model) {
  size_t len = strlen(model);
  if (len > 4 && strcmp(model + len - 4, ".xml") == 0) {
    len -= 4;
  }
  char *p = malloc(len + 1);
  if (p != NULL) {
    memcpy(p, model, len);
    p[len] = '\0';
  }
  return p;
}

static int open_inputs(run_input *inputs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    inputs[i].fd = open(inputs[i].path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (inputs[i].fd < 0 || fstat(inputs[i].fd, &st) != 0) {
      return cli_error(CLI_EXIT_NOINPUT, "cannot open input '%s': %s", inputs[i].path,
                       strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
      return cli_error(CLI_EXIT_NOINPUT, "cannot open input '%s': it is not a regular file",
                       inputs[i].path);
    }
    inputs[i].size = (uint64_t)st.st_size;
  }
  return 0;
}

int cmd_ir_run(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "ir-run");
  const char *model_path = NULL, *bin_path = NULL, *prefix = NULL;
  int force = 0, json = 0, quiet = 0, sync = 0;
  size_t num_inputs = 0;
  run_input *inputs = calloc((size_t)argc + 1, sizeof *inputs);
  if (inputs == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = 0;
  for (;;) {
    int id = 0;
    const char *value = NULL;
    int kind =
        cli_parser_next(&p, run_options, sizeof run_options / sizeof run_options[0], &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
      break;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (model_path != NULL) {
        rc = cli_error(CLI_EXIT_USAGE, "ir-run: unexpected argument '%s' (one model only)", value);
        break;
      }
      model_path = value;
      continue;
    }
    if (id == OPT_HELP) {
      help_print("ir-run", stdout);
      free(inputs);
      return 0;
    }
    if (id == OPT_INPUT) {
      const char *eq = strchr(value, '=');
      if (eq == NULL || eq == value || eq[1] == '\0') {
        rc = cli_error(CLI_EXIT_USAGE, "ir-run: --input '%s' is not NAME=FILE.npy", value);
        break;
      }
      char *name = strndup(value, (size_t)(eq - value));
      if (name == NULL) {
        rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
        break;
      }
      inputs[num_inputs].name = name;
      inputs[num_inputs].path = eq + 1;
      inputs[num_inputs].fd = -1;
      num_inputs++;
      for (size_t i = 0; i + 1 < num_inputs; i++) {
        if (strcmp(inputs[i].name, name) == 0) {
          rc = cli_error(CLI_EXIT_USAGE, "ir-run: --input %s is given twice", name);
        }
      }
      if (rc != 0) {
        break;
      }
      continue;
    }
    bin_path = id == OPT_BIN ? value : bin_path;
    prefix = id == OPT_OUTPUT ? value : prefix;
    force |= id == OPT_FORCE;
    json |= id == OPT_JSON;
    quiet |= id == OPT_QUIET;
    sync |= id == OPT_SYNC;
  }
  if (rc == 0 && model_path == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "ir-run: the model is missing (usage: cleave ir-run MODEL.xml "
                                   "--input NAME=FILE.npy ... [-o PREFIX])");
  }
  char *own_prefix = NULL;
  if (rc == 0 && prefix == NULL) {
    own_prefix = default_prefix(model_path);
    prefix = own_prefix;
    if (prefix == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  ir_model m;
  ir_bin bin;
  int opened = 0;
  if (rc == 0) {
    FILE *probe = fopen(model_path, "rb");
    if (probe == NULL) {
      ir_error err;
      ir_model_load(model_path, &m, &err);
      rc = ir_report_error(&err);
    } else {
      fclose(probe);
      rc = open_inputs(inputs, num_inputs);
    }
  }
  if (rc == 0) {
    rc = ir_open(model_path, bin_path, &m, &bin);
    opened = rc == 0;
  }
  if (rc == 0) {
    rc = refuse_layers(&m);
  }
  if (rc == 0) {
    run_state s;
    memset(&s, 0, sizeof s);
    s.m = &m;
    s.bin = &bin;
    s.tensors = calloc(m.num_layers + 1, sizeof *s.tensors);
    rc = s.tensors == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
                           : run_graph(&s, inputs, num_inputs, prefix, force, json, quiet, sync);
    for (size_t i = 0; s.tensors != NULL && i < m.num_layers; i++) {
      free(s.tensors[i]);
    }
    free(s.tensors);
    for (size_t i = 0; i < s.num_owned; i++) {
      free(s.owned[i]);
    }
    free(s.owned);
  }
  if (opened) {
    ir_open_close(&m, &bin);
  }
  for (size_t i = 0; i < num_inputs; i++) {
    free((char *)inputs[i].name);
    if (inputs[i].fd >= 0) {
      close(inputs[i].fd);
    }
  }
  free(inputs);
  free(own_prefix);
  return rc;
}
