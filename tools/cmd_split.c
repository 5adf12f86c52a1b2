/* The operator commands on .npy files: split, variadic-split, split-to-sequence, onnx-split. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"
#include "npy.h"
#include "outputs.h"
#include "progress.h"
#include "report.h"
#include "split_infer.h"
#include "stream.h"

/* What writing an output's header needs. */
typedef struct header_ctx {
  const npy_header *input;
  const split_result *result;
  const out_set *outputs;
  int64_t dims[NPY_MAX_RANK];
} header_ctx;

static int write_header(void *vctx, size_t i, int fd, uint64_t *header_size) {
  header_ctx *ctx = vctx;
  split_output_dims(ctx->result, ctx->input->shape, ctx->input->rank, i, ctx->dims);
  unsigned char *bytes = NULL;
  size_t size = 0;
  int rc = npy_build_header(ctx->input->descr, ctx->input->fortran_order, ctx->dims,
                            (size_t)ctx->result->info.output_rank, &bytes, &size);
  if (rc != 0) {
    return rc;
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, bytes + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      int e = n == 0 ? ENOSPC : errno;
      char path[PATH_MAX + 96];
      out_set_final_path(ctx->outputs, i, path, sizeof path);
      free(bytes);
      return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", path, strerror(e));
    }
    done += (size_t)n;
  }
  free(bytes);
  *header_size = size;
  return 0;
}

/* Opens the input: status 66 when it cannot be opened or is not a regular file. */
static int open_input(const char *path, int *fd, uint64_t *size) {
  *fd = open(path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) {
    return cli_error(CLI_EXIT_NOINPUT, "cannot open input '%s': %s", path, strerror(errno));
  }
  struct stat st;
  if (fstat(*fd, &st) != 0) {
    return cli_error(CLI_EXIT_NOINPUT, "cannot open input '%s': %s", path, strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return cli_error(CLI_EXIT_NOINPUT, "cannot open input '%s': it is a directory", path);
  }
  if (!S_ISREG(st.st_mode)) {
    return cli_error(CLI_EXIT_NOINPUT,
                     "cannot open input '%s': it is not a regular file (the split reads it "
                     "more than once)",
                     path);
  }
  *size = (uint64_t)st.st_size;
  return 0;
}

/* The default prefix: the input's name without its ".npy" suffix. */
static char *default_prefix(const char *input) {
  size_t len = strlen(input);
  if (len > 4 && strcmp(input + len - 4, ".npy") == 0) {
    len -= 4;
  }
  char *prefix = malloc(len + 1);
  if (prefix != NULL) {
    memcpy(prefix, input, len);
    prefix[len] = '\0';
  }
  return prefix;
}

static int report_outputs(const op_options *o, const npy_header *h, const split_result *res,
                          const out_set *set) {
  report r;
  int64_t dims[NPY_MAX_RANK];
  char path[PATH_MAX + 96];
  report_begin(&r, o->command->name, o->json, o->quiet);
  for (size_t i = 0; i < (size_t)res->info.num_outputs; i++) {
    split_output_dims(res, h->shape, h->rank, i, dims);
    out_set_final_path(set, i, path, sizeof path);
    report_output(&r, dims, (size_t)res->info.output_rank, path);
  }
  return report_end(&r);
}

/* Splits the data into the outputs, reports them and commits them, or leaves nothing behind. */
static int write_outputs(const op_options *o, int fd, const npy_header *h, const npy_dtype *dt,
                         uint64_t data_bytes, const split_result *res, out_set *set) {
  int rc = out_set_create(set);
  if (rc != 0) {
    return rc;
  }
  /* Fortran-order data is the C-order data of the reversed shape: split it along the mirrored
   * axis, and the outputs, written with fortran_order True, load as the slices of the input. */
  size_t rank = h->rank;
  size_t axis = (size_t)res->info.axis;
  size_t physical_axis = h->fortran_order ? rank - 1 - axis : axis;
  uint64_t rows = 1;
  uint64_t unit = (uint64_t)dt->item_size;
  for (size_t d = 0; d < rank; d++) {
    size_t logical = h->fortran_order ? rank - 1 - d : d;
    if (d < physical_axis) {
      rows *= (uint64_t)h->shape[logical];
    } else if (d > physical_axis) {
      unit *= (uint64_t)h->shape[logical];
    }
  }
  if (data_bytes == 0) {
    /* A zero dim elsewhere: every output is empty; the products above may then be meaningless. */
    rows = 0;
  }
  progress prog;
  progress_init(&prog, !o->quiet && !o->no_progress && isatty(STDERR_FILENO), data_bytes);
  header_ctx hctx;
  hctx.input = h;
  hctx.result = res;
  hctx.outputs = set;
  stream_job job;
  job.in_fd = fd;
  job.in_path = o->input;
  job.data_offset = h->data_offset;
  job.rows = rows;
  job.unit = unit;
  job.lengths = res->lengths;
  job.count = (size_t)res->info.num_outputs;
  job.outputs = set;
  job.write_header = write_header;
  job.header_ctx = &hctx;
  job.progress = &prog;
  rc = stream_split(&job);
  progress_finish(&prog);
  /* The report goes out before the commit: if stdout fails, the run fails and, like any failure,
   * leaves no output behind. */
  if (rc == 0) {
    rc = report_outputs(o, h, res, set);
  }
  if (rc != 0) {
    out_set_abort(set);
    return rc;
  }
  return out_set_commit(set);
}

/* The checks that precede any output: the input file (66) and its data and the op's rules (65). */
static int prepare(const op_options *o, int *fd, npy_header *h, npy_dtype *dt, uint64_t *data_bytes,
                   split_result *res) {
  uint64_t file_size = 0;
  int rc = open_input(o->input, fd, &file_size);
  if (rc == 0) {
    rc = npy_read_header(*fd, file_size, o->input, h);
  }
  if (rc == 0) {
    rc = npy_descr_to_dtype(h->descr, o->has_dtype ? &o->dtype : NULL, o->input, dt);
  }
  if (rc == 0) {
    rc = npy_check_data_size(h, dt->item_size, file_size, o->input, data_bytes);
  }
  if (rc == 0) {
    cleave_op op = op_options_build(o);
    rc = split_infer(&op, dt->type, h->shape, h->rank, res);
  }
  if (rc == 0) {
    int64_t sum = 0;
    for (int64_t i = 0; i < res->info.num_outputs; i++) {
      sum += res->lengths[i];
    }
    if (sum != res->info.axis_dim) {
      rc = cli_error(CLI_EXIT_SOFTWARE,
                     "internal error: the output lengths do not cover the axis dimension");
    }
  }
  return rc;
}

int cmd_split_file(const op_command *command, int argc, char **argv, int first) {
  op_options o;
  int rc = op_options_parse(&o, command, 0, argc, argv, first);
  if (rc != 0 || o.help) {
    if (rc == 0) {
      help_print(command->name, stdout);
    }
    op_options_free(&o);
    return rc;
  }
  int fd = -1;
  npy_header h;
  npy_dtype dt;
  uint64_t data_bytes = 0;
  split_result res = {{0}, NULL};
  char *prefix = NULL;
  out_set set;
  memset(&set, 0, sizeof set);
  rc = prepare(&o, &fd, &h, &dt, &data_bytes, &res);
  if (rc == 0 && o.prefix == NULL) {
    prefix = default_prefix(o.input);
    if (prefix == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  if (rc == 0) {
    rc = out_set_init(&set, o.prefix != NULL ? o.prefix : prefix, (size_t)res.info.num_outputs,
                      o.force, o.sync);
  }
  if (rc == 0) {
    rc = write_outputs(&o, fd, &h, &dt, data_bytes, &res, &set);
  }
  out_set_free(&set);
  free(prefix);
  split_result_free(&res);
  if (fd >= 0) {
    close(fd);
  }
  op_options_free(&o);
  return rc;
}
