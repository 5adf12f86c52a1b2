/* The operator commands on .npy files: split, variadic-split, split-to-sequence, onnx-split. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "dtype_note.h"
#include "help.h"
#include "io.h"
#include "npy.h"
#include "op_options.h"
#include "ops_commands.h"
#include "outputs.h"
#include "packed_input.h"
#include "progress.h"
#include "report.h"
#include "split_infer.h"
#include "stream.h"
#include "stream_bits.h"

/* What writing an output's header needs. */
typedef struct header_ctx {
  const npy_header *input;
  const split_result *result;
  const out_set *outputs;
  /* Packed data: each output's byte count (its 1-D uint8 shape); NULL otherwise. */
  const int64_t *packed_bytes;
  int64_t dims[NPY_MAX_RANK];
} header_ctx;

static int write_header(void *vctx, size_t i, int fd, uint64_t *header_size) {
  header_ctx *ctx = vctx;
  size_t rank = 1;
  if (ctx->packed_bytes != NULL) {
    ctx->dims[0] = ctx->packed_bytes[i];
  } else {
    split_output_dims(ctx->result, ctx->input->shape, ctx->input->rank, i, ctx->dims);
    rank = ctx->result->info.output_rank;
  }
  unsigned char *bytes = NULL;
  size_t size = 0;
  tool_error err;
  if (npy_build_header(ctx->input->descr, ctx->input->fortran_order, ctx->dims, rank, &bytes, &size,
                       &err) != 0) {
    return tool_report(&err);
  }
  /* The data starts where the header ends. */
  *header_size = 0;
  int rc = stream_write(ctx->outputs, i, fd, header_size, bytes, size);
  free(bytes);
  return rc;
}

/* The input as the operator sees it. */
typedef struct split_input {
  int fd;
  npy_header h;
  npy_dtype dt;         /* byte-sized data: the file's type */
  packed_input *packed; /* packed data (--dtype u4 --shape ...), or NULL */
  const int64_t *shape; /* the logical shape: the header's, or --shape */
  size_t rank;
  uint64_t data_bytes;
  int64_t *packed_bytes; /* packed data: each output's byte count (malloc'd) */
} split_input;

static int report_outputs(const op_options *o, const split_input *in, const split_result *res,
                          const out_set *set) {
  report r;
  int64_t dims[NPY_MAX_RANK];
  char path[OUT_PATH_BUF];
  report_begin(&r, stdout, o->command->name, o->flags.json, o->flags.quiet);
  for (size_t i = 0; i < res->info.num_outputs; i++) {
    split_output_dims(res, in->shape, in->rank, i, dims);
    out_set_final_path(set, i, path, sizeof path);
    report_output(&r, dims, res->info.output_rank, path);
  }
  return report_end(&r);
}

/* Byte-sized data: the byte stream of stream.h. */
static int stream_bytes(const split_input *in, const split_result *res, stream_job *job) {
  const npy_header *h = &in->h;
  /* Fortran-order data is the C-order data of the reversed shape: split it along the mirrored
   * axis, and the outputs, written with fortran_order True, load as the slices of the input. */
  size_t rank = h->rank;
  size_t axis = res->info.axis;
  size_t physical_axis = h->fortran_order ? rank - 1 - axis : axis;
  uint64_t rows = 1;
  uint64_t unit = (uint64_t)in->dt.item_size;
  for (size_t d = 0; d < rank; d++) {
    size_t logical = h->fortran_order ? rank - 1 - d : d;
    if (d < physical_axis) {
      rows *= (uint64_t)h->shape[logical];
    } else if (d > physical_axis) {
      unit *= (uint64_t)h->shape[logical];
    }
  }
  if (in->data_bytes == 0) {
    /* A zero dim elsewhere: every output is empty; the products above may then be meaningless. */
    rows = 0;
  }
  job->rows = rows;
  job->unit = unit;
  job->lengths = res->lengths;
  return stream_split(job);
}

/* Packed data. When every output's share of a row is whole bytes, the split is a byte split of
 * the packed bytes (stream.h, with units of the largest common byte count); otherwise the bit
 * stream of stream_bits.h. */
static int stream_packed(const split_input *in, const split_result *res, stream_job *job) {
  const packed_input *pk = in->packed;
  size_t axis = res->info.axis;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < pk->rank; d++) {
    if (d < axis) {
      outer *= pk->shape[d];
    } else if (d > axis) {
      inner *= pk->shape[d];
    }
  }
  size_t count = res->info.num_outputs;
  if (in->data_bytes == 0) {
    outer = inner = 0;
  }
  /* Bits fit in int64 (packed_check_input), and so do these. */
  uint64_t unit_bits = (uint64_t)inner * (uint64_t)pk->bits;
  uint64_t unit = 0;
  int aligned = 1;
  for (size_t i = 0; i < count && aligned; i++) {
    uint64_t bits = (uint64_t)res->lengths[i] * unit_bits;
    aligned = bits % 8 == 0;
    unit = stream_gcd(unit, bits / 8);
  }
  if (!aligned) {
    stream_bits_job bj;
    bj.in_fd = job->in_fd;
    bj.in_path = job->in_path;
    bj.data_offset = job->data_offset;
    bj.data_bytes = in->data_bytes;
    bj.type = pk->type;
    bj.outer = outer;
    bj.axis_dim = res->info.axis_dim;
    bj.inner = inner;
    bj.lengths = res->lengths;
    bj.count = count;
    bj.outputs = job->outputs;
    bj.write_header = job->write_header;
    bj.header_ctx = job->header_ctx;
    bj.progress = job->progress;
    return stream_bits_split(&bj);
  }
  if (unit == 0) {
    unit = 1;
  }
  int64_t *lengths = cli_calloc(count, sizeof *lengths);
  if (lengths == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < count; i++) {
    lengths[i] = (int64_t)((uint64_t)res->lengths[i] * unit_bits / 8 / unit);
  }
  job->rows = (uint64_t)outer;
  job->unit = unit;
  job->lengths = lengths;
  int rc = stream_split(job);
  free(lengths);
  return rc;
}

/* Splits the data into the outputs, reports them and commits them, or leaves nothing behind. */
static int write_outputs(const op_options *o, split_input *in, const split_result *res,
                         out_set *set) {
  out_set_limit_mode(set, io_permissions(in->fd));
  /* Up to STREAM_GROUP_SIZE outputs are written at once. */
  io_raise_open_limit((set->count < STREAM_GROUP_SIZE ? set->count : STREAM_GROUP_SIZE) + 64);
  int rc = out_set_create(set);
  if (rc != 0) {
    return rc;
  }
  progress prog;
  progress_init(&prog, !o->flags.quiet && !o->flags.no_progress && isatty(STDERR_FILENO),
                in->data_bytes);
  header_ctx hctx;
  hctx.input = &in->h;
  hctx.result = res;
  hctx.outputs = set;
  hctx.packed_bytes = in->packed_bytes;
  stream_job job;
  memset(&job, 0, sizeof job);
  job.in_fd = in->fd;
  job.in_path = o->input;
  job.data_offset = in->h.data_offset;
  job.count = res->info.num_outputs;
  job.outputs = set;
  job.write_header = write_header;
  job.header_ctx = &hctx;
  job.progress = &prog;
  rc = in->packed != NULL ? stream_packed(in, res, &job) : stream_bytes(in, res, &job);
  progress_finish(&prog);
  /* The report goes out before the commit: if stdout fails, the run fails and, like any failure,
   * leaves no output behind. */
  if (rc == 0) {
    rc = report_outputs(o, in, res, set);
  }
  if (rc != 0) {
    out_set_abort(set);
    return rc;
  }
  return out_set_commit(set);
}

/* Packed data: each output's byte count (bits rounded up), from the library's plan for the
 * logical shape. */
static int packed_output_bytes(const op_options *o, split_input *in, const split_result *res) {
  size_t count = res->info.num_outputs;
  in->packed_bytes = cli_calloc(count, sizeof *in->packed_bytes);
  if (in->packed_bytes == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  cleave_op op = op_options_build(o);
  cleave_plan *plan = NULL;
  cleave_error err;
  if (cleave_plan_create(&op, in->packed->type, in->shape, in->rank, &plan, &err) != CLEAVE_OK) {
    return cli_library_error(&err, NULL);
  }
  for (size_t i = 0; i < count; i++) {
    in->packed_bytes[i] = cleave_plan_output_bytes(plan, i);
  }
  cleave_plan_destroy(plan);
  return 0;
}

/* A --dtype refused by the file: when its name is also a NumPy code that means another type
 * ("i8" on int64 data), the message says so. */
static void note_numpy_name(const char *name, const char *descr, tool_error *err) {
  char note[160];
  if (dtype_numpy_note(name, descr, note, sizeof note)) {
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, "; %s", note);
  }
}

/* The checks that precede any output: the input file (66) and its data and the op's rules (65). */
static int prepare(const op_options *o, split_input *in, split_result *res) {
  uint64_t file_size = 0;
  tool_error err;
  int rc = io_open_regular(o->input, "input", &in->fd, &file_size, &err);
  if (rc == 0) {
    rc = npy_read_header(in->fd, file_size, o->input, &in->h, &err);
  }
  if (rc == 0 && in->packed == NULL) {
    rc = npy_descr_to_dtype(in->h.descr, o->flags.has_dtype ? &o->flags.dtype : NULL, o->input,
                            &in->dt, &err);
    if (rc != 0 && o->flags.has_dtype) {
      note_numpy_name(o->flags.dtype_text, in->h.descr, &err);
    }
    if (rc == 0) {
      rc =
          npy_check_data_size(&in->h, in->dt.item_size, file_size, o->input, &in->data_bytes, &err);
    }
    in->shape = in->h.shape;
    in->rank = in->h.rank;
  } else if (rc == 0) {
    packed_input *pk = in->packed;
    rc = packed_check_input(pk, &in->h, file_size, o->input, &err);
    if (rc == CLI_EXIT_DATA && strcmp(in->h.descr, "|u1") != 0) {
      note_numpy_name(o->flags.dtype_text, in->h.descr, &err);
    }
    in->data_bytes = pk->data_bytes;
    in->shape = pk->shape;
    in->rank = pk->rank;
  }
  if (rc != 0) {
    return tool_report(&err);
  }
  if (rc == 0) {
    cleave_op op = op_options_build(o);
    rc = split_infer(&op, in->packed != NULL ? in->packed->type : in->dt.type, in->shape, in->rank,
                     res);
  }
  if (rc == 0) {
    int64_t sum = 0;
    for (size_t i = 0; i < res->info.num_outputs; i++) {
      sum += res->lengths[i];
    }
    if (sum != res->info.axis_dim) {
      rc = cli_error(CLI_EXIT_SOFTWARE,
                     "internal error: the output lengths do not cover the axis dimension");
    }
  }
  if (rc == 0 && in->packed != NULL) {
    rc = packed_output_bytes(o, in, res);
  }
  return rc;
}

int cmd_split_file(int argc, char **argv, int first) {
  const op_command *command = op_command_find(argv[first - 1]);
  if (command == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: '%s' is not an operator command",
                     argv[first - 1]);
  }
  op_options o;
  int rc = op_options_parse(&o, command, 0, argc, argv, first);
  if (rc != 0 || o.help) {
    if (rc == 0) {
      help_print(command->name, stdout);
    }
    op_options_free(&o);
    return rc;
  }
  split_input in;
  memset(&in, 0, sizeof in);
  in.fd = -1;
  packed_input pk;
  if (packed_dtype(o.flags.dtype.dtype)) {
    /* A malformed --shape is a command-line error: it comes before opening the input. */
    rc = packed_parse_shape(o.shape_text, o.flags.dtype, o.flags.dtype_text, &pk);
    in.packed = &pk;
  }
  split_result res = {{0}, NULL};
  char *prefix = NULL;
  out_set set;
  memset(&set, 0, sizeof set);
  if (rc == 0) {
    rc = prepare(&o, &in, &res);
  }
  if (rc == 0) {
    prefix = out_resolve_prefix(o.flags.output, o.input, ".npy");
    if (prefix == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  if (rc == 0) {
    rc = out_set_init(&set, prefix, res.info.num_outputs, o.flags.force, o.flags.sync);
  }
  if (rc == 0) {
    rc = write_outputs(&o, &in, &res, &set);
  }
  out_set_free(&set);
  free(prefix);
  free(in.packed_bytes);
  split_result_free(&res);
  if (in.fd >= 0) {
    close(in.fd);
  }
  op_options_free(&o);
  return rc;
}
