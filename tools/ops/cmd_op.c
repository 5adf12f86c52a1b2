/* The operator commands on .npy files (split, variadic-split, split-to-sequence, onnx-split,
 * concat, concat-from-sequence): one flow, each step in docs/cli.md's status order, through the
 * family of the command's entry in the table of operators. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "io.h"
#include "npy.h"
#include "op_commands.h"
#include "op_run.h"
#include "ops_commands.h"
#include "outputs.h"
#include "progress.h"
#include "report.h"

/* The largest rank of an output: a split's is at most its input's, a stack's one more than its
 * inputs' (npy_build_header refuses what a .npy cannot hold). */
#define OUTPUT_MAX_RANK (NPY_MAX_RANK + 1)

/* What writing an output's header needs. */
typedef struct header_ctx {
  const op_family *family;
  const op_inputs *in;
  const op_plan *plan;
  const out_set *outputs;
} header_ctx;

/* Output i's .npy header: its logical shape, or the 1-D shape of its packed bytes. */
static int write_header(void *vctx, size_t i, int fd, uint64_t *header_size) {
  const header_ctx *ctx = vctx;
  const op_plan *p = ctx->plan;
  int64_t dims[OUTPUT_MAX_RANK];
  size_t rank = 1;
  if (p->packed_bytes != NULL) {
    dims[0] = p->packed_bytes[i];
  } else {
    ctx->family->dims(ctx->in, p, i, dims);
    rank = p->rank;
  }
  unsigned char *bytes = NULL;
  size_t size = 0;
  tool_error err;
  if (npy_build_header(p->descr, p->fortran_order, dims, rank, &bytes, &size, &err) != 0) {
    return tool_report(&err);
  }
  /* The data starts where the header ends. */
  *header_size = 0;
  int rc = stream_write(ctx->outputs, i, fd, header_size, bytes, size);
  free(bytes);
  return rc;
}

/* `PATH SHAPE` per output, or the --json object. */
static int report_outputs(const op_options *o, const header_ctx *ctx) {
  const op_plan *p = ctx->plan;
  int64_t dims[OUTPUT_MAX_RANK];
  char path[OUT_PATH_BUF];
  report r;
  report_begin(&r, stdout, o->command->name, o->flags.json, o->flags.quiet);
  for (size_t i = 0; i < p->count; i++) {
    ctx->family->dims(ctx->in, p, i, dims);
    out_set_final_path(ctx->outputs, i, path, sizeof path);
    report_output(&r, dims, p->rank, path);
  }
  return report_end(&r);
}

/* Streams the data into the outputs, reports them and commits them, or leaves nothing behind. */
static int write_outputs(const op_options *o, const header_ctx *ctx, out_set *set) {
  /* The outputs hold the inputs' data: none is readable by more than some input is. */
  unsigned widest = 0;
  for (size_t i = 0; i < ctx->in->count; i++) {
    widest |= io_permissions(ctx->in->items[i].fd);
  }
  out_set_limit_mode(set, widest);
  /* Up to STREAM_GROUP_SIZE outputs are open at once, beside the inputs. */
  io_raise_open_limit(ctx->in->count +
                      (set->count < STREAM_GROUP_SIZE ? set->count : STREAM_GROUP_SIZE) + 64);
  int rc = out_set_create(set);
  if (rc != 0) {
    return rc;
  }
  progress prog;
  progress_init(&prog, !o->flags.quiet && !o->flags.no_progress && isatty(STDERR_FILENO),
                ctx->plan->total);
  stream_sink sink = {set, write_header, (void *)ctx, &prog};
  rc = ctx->family->stream(ctx->in, ctx->plan, &sink);
  progress_finish(&prog);
  /* The report goes out before the commit: if stdout fails, the run fails and, like any failure,
   * leaves no output behind. */
  if (rc == 0) {
    rc = report_outputs(o, ctx);
  }
  if (rc != 0) {
    out_set_abort(set);
    return rc;
  }
  return out_set_commit(set);
}

static void plan_free(op_plan *p) {
  split_result_free(&p->split);
  free(p->packed_bytes);
  free(p->out_dims);
  free(p->in_dims);
}

int cmd_op_file(int argc, char **argv, int first) {
  const op_command *command = op_command_find(argv[first - 1]);
  if (command == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: '%s' is not an operator command",
                     argv[first - 1]);
  }
  op_options o;
  int rc = op_options_parse(&o, command, 0, argc, argv, first);
  if (rc != 0) {
    op_options_free(&o);
    return rc == CLI_HELP_SHOWN ? 0 : rc;
  }
  const op_family *family = command->family;
  op_inputs in;
  op_plan plan;
  memset(&plan, 0, sizeof plan);
  out_set set;
  memset(&set, 0, sizeof set);
  rc = op_inputs_open(&in, &o);
  if (rc == 0) {
    rc = family->plan(&o, &in, &plan);
  }
  if (rc == 0) {
    rc = family->outputs(&o, &in, &plan, &set);
  }
  if (rc == 0) {
    header_ctx ctx = {family, &in, &plan, &set};
    rc = write_outputs(&o, &ctx, &set);
  }
  out_set_free(&set);
  plan_free(&plan);
  op_inputs_close(&in);
  op_options_free(&o);
  return rc;
}
