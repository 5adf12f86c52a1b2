/* The joining commands on .npy files: concat and concat-from-sequence. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "concat_inputs.h"
#include "concat_options.h"
#include "help.h"
#include "io.h"
#include "npy.h"
#include "ops_commands.h"
#include "outputs.h"
#include "progress.h"
#include "report.h"
#include "stream.h"
#include "stream_concat.h"
#include "stream_concat_bits.h"

/* What the output's header says. */
typedef struct header_ctx {
  const out_set *outputs;
  const char *descr;
  int fortran_order;
  const int64_t *dims;
  size_t rank;
} header_ctx;

static int write_header(void *vctx, size_t i, int fd, uint64_t *header_size) {
  header_ctx *ctx = vctx;
  unsigned char *bytes = NULL;
  size_t size = 0;
  tool_error err;
  if (npy_build_header(ctx->descr, ctx->fortran_order, ctx->dims, ctx->rank, &bytes, &size, &err) !=
      0) {
    return tool_report(&err);
  }
  *header_size = 0;
  int rc = stream_write(ctx->outputs, i, fd, header_size, bytes, size);
  free(bytes);
  return rc;
}

/* The join as the stream sees it: per input, its shape in the output's rank (stacking inserts a
 * dim of 1 at the axis) and in the output's memory order. */
typedef struct join_plan {
  size_t rank;       /* the output's */
  int64_t *out_dims; /* the output's shape (logical) */
  int64_t *dims;     /* count x rank: each input's shape in the output's memory order */
  int fortran;       /* the output's memory order */
  size_t axis;       /* the axis in the output's memory order */
  uint64_t rows;     /* product of the output's dims before it */
} join_plan;

static void join_plan_free(join_plan *p) {
  free(p->out_dims);
  free(p->dims);
  memset(p, 0, sizeof *p);
}

/* The product of dims[from..rank) times `unit`; 0 when one of them is 0. The nonzero products
 * are those of sizes the library checked, so they fit. */
static uint64_t tail_product(const int64_t *dims, size_t from, size_t rank, uint64_t unit) {
  for (size_t d = from; d < rank; d++) {
    if (dims[d] == 0) {
      return 0;
    }
  }
  uint64_t p = unit;
  for (size_t d = from; d < rank; d++) {
    p *= (uint64_t)dims[d];
  }
  return p;
}

static int make_plan(const concat_inputs *in, const cleave_concat_info *info, join_plan *p) {
  size_t n = in->count, r = info->output_rank;
  p->rank = r;
  p->out_dims = cli_calloc(r + 1, sizeof *p->out_dims);
  p->dims = cli_calloc(n * r + 1, sizeof *p->dims);
  if (p->out_dims == NULL || p->dims == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  /* The memory order of the first input whose layout depends on it, or else of the first input
   * (the parts of a Fortran-order split along its last axis are [d,1] in Fortran order: joined,
   * they give the input back in its own order). */
  p->fortran = in->packed ? 0 : in->items[0].h.fortran_order;
  for (size_t i = 0; i < n && !in->packed; i++) {
    if (in->items[i].layout_matters) {
      p->fortran = in->items[i].h.fortran_order;
      break;
    }
  }
  p->axis = p->fortran ? r - 1 - info->axis : info->axis;
  for (size_t i = 0; i < n; i++) {
    const concat_input *c = &in->items[i];
    int64_t *d = p->dims + i * r;
    for (size_t k = 0; k < r; k++) {
      size_t at = p->fortran ? r - 1 - k : k; /* the logical axis of physical axis k */
      if (!info->new_axis) {
        d[k] = c->shape[at];
      } else {
        d[k] = at == info->axis ? 1 : c->shape[at < info->axis ? at : at - 1];
      }
    }
  }
  return 0;
}

/* Byte-sized data, or packed data whose pieces are whole bytes: stream_concat.h. */
static int run_bytes(const concat_inputs *in, const join_plan *p, uint64_t element,
                     stream_concat_job *job) {
  stream_concat_input *items = cli_calloc(in->count, sizeof *items);
  if (items == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < in->count; i++) {
    const concat_input *c = &in->items[i];
    const int64_t *d = p->dims + i * p->rank;
    items[i].fd = c->fd;
    items[i].path = c->path;
    items[i].data_offset = c->h.data_offset;
    if (in->packed) {
      /* Bits, whole bytes per row (checked by the caller). */
      items[i].piece = tail_product(d, p->axis, p->rank, element) / 8;
      continue;
    }
    items[i].piece = tail_product(d, p->axis, p->rank, element);
    items[i].swap = concat_input_swap(in, i);
    if (c->layout_matters && c->h.fortran_order != p->fortran) {
      items[i].dims = d;
      items[i].rank = p->rank;
      items[i].element = (size_t)element;
    }
  }
  job->inputs = items;
  int rc = stream_concat(job);
  free(items);
  return rc;
}

/* Packed data: whole bytes per row through the byte join, otherwise the bit join. */
static int run_packed(const concat_inputs *in, const join_plan *p, const cleave_concat_info *info,
                      stream_concat_job *job) {
  uint64_t bits = (uint64_t)info->element_bits;
  int aligned = 1;
  for (size_t i = 0; i < in->count; i++) {
    aligned &= tail_product(p->dims + i * p->rank, p->axis, p->rank, bits) % 8 == 0;
  }
  if (aligned) {
    return run_bytes(in, p, bits, job);
  }
  stream_concat_bits_input *items = cli_calloc(in->count, sizeof *items);
  if (items == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < in->count; i++) {
    items[i].fd = in->items[i].fd;
    items[i].path = in->items[i].path;
    items[i].data_offset = in->items[i].h.data_offset;
    items[i].piece = (int64_t)tail_product(p->dims + i * p->rank, p->axis, p->rank, 1);
  }
  stream_concat_bits_job bj;
  bj.inputs = items;
  bj.count = in->count;
  bj.type = in->tensors[0].type;
  bj.rows = (int64_t)job->rows;
  bj.outputs = job->outputs;
  bj.write_header = job->write_header;
  bj.header_ctx = job->header_ctx;
  bj.progress = job->progress;
  int rc = stream_concat_bits(&bj);
  free(items);
  return rc;
}

/* Joins the inputs into the output, reports it and commits it, or leaves nothing behind. */
static int write_output(const concat_options *o, const concat_inputs *in,
                        const cleave_concat_info *info, const join_plan *p, out_set *set) {
  unsigned widest = 0;
  for (size_t i = 0; i < in->count; i++) {
    widest |= io_permissions(in->items[i].fd);
  }
  out_set_limit_mode(set, widest);
  int rc = out_set_create(set);
  if (rc != 0) {
    return rc;
  }
  uint64_t total = (uint64_t)info->output_bytes;
  progress prog;
  progress_init(&prog, !o->flags.quiet && !o->flags.no_progress && isatty(STDERR_FILENO), total);
  int64_t packed_dims[1] = {info->output_bytes};
  header_ctx h;
  h.outputs = set;
  h.descr = in->packed ? "|u1" : in->items[0].h.descr;
  h.fortran_order = p->fortran;
  h.dims = in->packed ? packed_dims : p->out_dims;
  h.rank = in->packed ? 1 : p->rank;
  stream_concat_job job;
  memset(&job, 0, sizeof job);
  job.count = in->count;
  job.outputs = set;
  job.write_header = write_header;
  job.header_ctx = &h;
  job.progress = &prog;
  /* Products of the output's dims before the axis: 0 when the output is empty (the product may
   * then be meaningless). */
  job.rows = 1;
  for (size_t d = 0; d < p->axis; d++) {
    size_t at = p->fortran ? p->rank - 1 - d : d;
    job.rows *= (uint64_t)p->out_dims[at];
  }
  if (total == 0) {
    job.rows = 0;
  }
  rc = in->packed ? run_packed(in, p, info, &job)
                  : run_bytes(in, p, (uint64_t)info->element_size, &job);
  progress_finish(&prog);
  if (rc == 0) {
    report r;
    report_begin(&r, stdout, o->command->name, o->flags.json, o->flags.quiet);
    report_output(&r, p->out_dims, p->rank, o->flags.output);
    rc = report_end(&r);
  }
  if (rc != 0) {
    out_set_abort(set);
    return rc;
  }
  return out_set_commit(set);
}

/* The library's inference on the inputs: the output's shape, or the rule the inputs break. */
static int infer(const concat_options *o, const concat_inputs *in, cleave_concat_info *info,
                 join_plan *p) {
  cleave_concat_op op = concat_options_build(o);
  cleave_error err;
  if (cleave_concat_infer(&op, in->tensors, in->count, info, NULL, 0, &err) != CLEAVE_OK) {
    return concat_inputs_error(in, &err);
  }
  int rc = make_plan(in, info, p);
  if (rc == 0 && cleave_concat_infer(&op, in->tensors, in->count, info, p->out_dims, p->rank,
                                     &err) != CLEAVE_OK) {
    rc = concat_inputs_error(in, &err);
  }
  return rc;
}

int cmd_concat_file(int argc, char **argv, int first) {
  const concat_command *command = concat_command_find(argv[first - 1]);
  if (command == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: '%s' is not a joining command",
                     argv[first - 1]);
  }
  concat_options o;
  int rc = concat_options_parse(&o, command, 0, argc, argv, first);
  if (rc != 0 || o.help) {
    if (rc == 0) {
      help_print(command->name, stdout);
    }
    concat_options_free(&o);
    return rc;
  }
  concat_inputs in;
  cleave_concat_info info;
  join_plan plan;
  memset(&plan, 0, sizeof plan);
  out_set set;
  memset(&set, 0, sizeof set);
  rc = concat_inputs_open(&in, &o);
  if (rc == 0) {
    rc = infer(&o, &in, &info, &plan);
  }
  if (rc == 0) {
    rc = out_set_init_file(&set, o.flags.output, o.inputs, o.input_count, o.flags.force,
                           o.flags.sync);
  }
  if (rc == 0) {
    rc = write_output(&o, &in, &info, &plan, &set);
  }
  out_set_free(&set);
  join_plan_free(&plan);
  concat_inputs_close(&in);
  concat_options_free(&o);
  return rc;
}
