/* The splits on a file (split, variadic-split, split-to-sequence, onnx-split): the library's
 * inference on the input, and the streamed split of its data (byte-sized data, or packed
 * sub-byte data by bytes or by bits) into PREFIX_i.npy. */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "op_run.h"
#include "packed_input.h"
#include "stream_bits.h"

/* Packed data: each output's byte count (bits rounded up), from the library's plan for the
 * logical shape. */
static int packed_output_bytes(const op_options *o, const op_inputs *in, op_plan *p) {
  const op_input *c = &in->items[0];
  p->packed_bytes = cli_calloc(p->count, sizeof *p->packed_bytes);
  if (p->packed_bytes == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  cleave_op op = op_options_split(o);
  cleave_plan *plan = NULL;
  cleave_error err;
  if (cleave_plan_create(&op, c->packed.type, c->shape, c->rank, &plan, &err) != CLEAVE_OK) {
    return cli_library_error(&err, NULL);
  }
  for (size_t i = 0; i < p->count; i++) {
    p->packed_bytes[i] = cleave_plan_output_bytes(plan, i);
  }
  cleave_plan_destroy(plan);
  return 0;
}

static int split_plan(const op_options *o, const op_inputs *in, op_plan *p) {
  const op_input *c = &in->items[0];
  cleave_op op = op_options_split(o);
  int rc = split_infer(&op, in->tensors[0].type, c->shape, c->rank, &p->split);
  if (rc != 0) {
    return rc;
  }
  const cleave_split_info *info = &p->split.info;
  int64_t sum = 0;
  for (size_t i = 0; i < info->num_outputs; i++) {
    sum += p->split.lengths[i];
  }
  if (sum != info->axis_dim) {
    return cli_error(CLI_EXIT_SOFTWARE,
                     "internal error: the output lengths do not cover the axis dimension");
  }
  p->count = info->num_outputs;
  p->rank = info->output_rank;
  p->total = c->data_bytes;
  p->descr = c->h.descr;
  p->fortran_order = c->h.fortran_order;
  return in->packed ? packed_output_bytes(o, in, p) : 0;
}

static void split_dims(const op_inputs *in, const op_plan *p, size_t i, int64_t *dims) {
  split_output_dims(&p->split, in->items[0].shape, in->items[0].rank, i, dims);
}

static int split_outputs(const op_options *o, const op_inputs *in, const op_plan *p, out_set *set) {
  char *prefix = out_resolve_prefix(o->flags.output, in->items[0].path, ".npy");
  if (prefix == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = out_set_init(set, prefix, p->count, o->flags.force, o->flags.sync);
  free(prefix);
  return rc;
}

/* Byte-sized data: the byte stream of stream.h. */
static int stream_bytes(const op_input *c, const op_plan *p, stream_job *job) {
  const npy_header *h = &c->h;
  /* Fortran-order data is the C-order data of the reversed shape: split it along the mirrored
   * axis, and the outputs, written with fortran_order True, load as the slices of the input. */
  size_t rank = h->rank;
  size_t axis = p->split.info.axis;
  size_t physical_axis = h->fortran_order ? rank - 1 - axis : axis;
  uint64_t rows = 1;
  uint64_t unit = (uint64_t)c->dt.item_size;
  for (size_t d = 0; d < rank; d++) {
    size_t logical = h->fortran_order ? rank - 1 - d : d;
    if (d < physical_axis) {
      rows *= (uint64_t)h->shape[logical];
    } else if (d > physical_axis) {
      unit *= (uint64_t)h->shape[logical];
    }
  }
  if (c->data_bytes == 0) {
    /* A zero dim elsewhere: every output is empty; the products above may then be meaningless. */
    rows = 0;
  }
  job->rows = rows;
  job->unit = unit;
  job->lengths = p->split.lengths;
  return stream_split(job);
}

/* Packed data. When every output's share of a row is whole bytes, the split is a byte split of
 * the packed bytes (stream.h, with units of the largest common byte count); otherwise the bit
 * stream of stream_bits.h. */
static int stream_packed(const op_input *c, const op_plan *p, stream_job *job) {
  const packed_input *pk = &c->packed;
  const split_result *res = &p->split;
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
  if (c->data_bytes == 0) {
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
    bj.in = job->in;
    bj.data_bytes = c->data_bytes;
    bj.type = pk->type;
    bj.outer = outer;
    bj.axis_dim = res->info.axis_dim;
    bj.inner = inner;
    bj.lengths = res->lengths;
    bj.count = count;
    bj.sink = job->sink;
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

static int split_stream(const op_inputs *in, const op_plan *p, const stream_sink *sink) {
  const op_input *c = &in->items[0];
  stream_job job;
  memset(&job, 0, sizeof job);
  job.in.fd = c->fd;
  job.in.path = c->path;
  job.in.data_offset = c->h.data_offset;
  job.count = p->count;
  job.sink = *sink;
  return in->packed ? stream_packed(c, p, &job) : stream_bytes(c, p, &job);
}

const op_family op_split_family = {split_plan, split_dims, split_outputs, split_stream};
