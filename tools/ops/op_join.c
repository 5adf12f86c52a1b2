/* The joins on files (concat, concat-from-sequence): the join's plan in the output's memory order
 * (the first layout-dependent input's), and the streamed join (byte-sized, packed by bytes or by
 * bits) into the one output file. */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "op_run.h"
#include "stream_concat.h"
#include "stream_concat_bits.h"

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

/* Per input, its shape in the output's rank (stacking inserts a dim of 1 at the axis) and in the
 * output's memory order. */
static int layout(const op_inputs *in, op_plan *p) {
  const cleave_concat_info *info = &p->info;
  size_t n = in->count, r = info->output_rank;
  p->out_dims = cli_calloc(r + 1, sizeof *p->out_dims);
  p->in_dims = cli_calloc(n * r + 1, sizeof *p->in_dims);
  if (p->out_dims == NULL || p->in_dims == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  /* The memory order of the first input whose layout depends on it, or else of the first input
   * (the parts of a Fortran-order split along its last axis are [d,1] in Fortran order: joined,
   * they give the input back in its own order). */
  p->fortran_order = in->packed ? 0 : in->items[0].h.fortran_order;
  for (size_t i = 0; i < n && !in->packed; i++) {
    if (in->items[i].layout_matters) {
      p->fortran_order = in->items[i].h.fortran_order;
      break;
    }
  }
  p->axis = p->fortran_order ? r - 1 - info->axis : info->axis;
  for (size_t i = 0; i < n; i++) {
    const op_input *c = &in->items[i];
    int64_t *d = p->in_dims + i * r;
    for (size_t k = 0; k < r; k++) {
      size_t at = p->fortran_order ? r - 1 - k : k; /* the logical axis of physical axis k */
      if (!info->new_axis) {
        d[k] = c->shape[at];
      } else {
        d[k] = at == info->axis ? 1 : c->shape[at < info->axis ? at : at - 1];
      }
    }
  }
  return 0;
}

/* The library's inference on the inputs: the output's shape, or the rule the inputs break. */
static int join_plan(const op_options *o, const op_inputs *in, op_plan *p) {
  cleave_concat_op op = op_options_join(o);
  cleave_error err;
  if (cleave_concat_infer(&op, in->tensors, in->count, &p->info, NULL, 0, &err) != CLEAVE_OK) {
    return op_inputs_error(in, &err);
  }
  int rc = layout(in, p);
  if (rc == 0 && cleave_concat_infer(&op, in->tensors, in->count, &p->info, p->out_dims,
                                     p->info.output_rank, &err) != CLEAVE_OK) {
    rc = op_inputs_error(in, &err);
  }
  if (rc != 0) {
    return rc;
  }
  p->count = 1;
  p->rank = p->info.output_rank;
  p->total = (uint64_t)p->info.output_bytes;
  p->descr = in->packed ? "|u1" : in->items[0].h.descr;
  if (in->packed) {
    p->packed_bytes = cli_calloc(1, sizeof *p->packed_bytes);
    if (p->packed_bytes == NULL) {
      return CLI_EXIT_SOFTWARE;
    }
    p->packed_bytes[0] = p->info.output_bytes;
  }
  return 0;
}

static void join_dims(const op_inputs *in, const op_plan *p, size_t i, int64_t *dims) {
  (void)in;
  (void)i;
  memcpy(dims, p->out_dims, p->rank * sizeof *dims);
}

static int join_outputs(const op_options *o, const op_inputs *in, const op_plan *p, out_set *set) {
  (void)in;
  (void)p;
  return out_set_init_file(set, o->flags.output, o->inputs.items, o->inputs.count, o->flags.force,
                           o->flags.sync);
}

/* Byte-sized data, or packed data whose pieces are whole bytes: stream_concat.h. */
static int run_bytes(const op_inputs *in, const op_plan *p, uint64_t element,
                     stream_concat_job *job) {
  stream_concat_input *items = cli_calloc(in->count, sizeof *items);
  if (items == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < in->count; i++) {
    const op_input *c = &in->items[i];
    const int64_t *d = p->in_dims + i * p->rank;
    items[i].in.fd = c->fd;
    items[i].in.path = c->path;
    items[i].in.data_offset = c->h.data_offset;
    if (in->packed) {
      /* Bits, whole bytes per row (checked by the caller). */
      items[i].piece = tail_product(d, p->axis, p->rank, element) / 8;
      continue;
    }
    items[i].piece = tail_product(d, p->axis, p->rank, element);
    items[i].swap = op_input_swap(in, i);
    if (c->layout_matters && c->h.fortran_order != p->fortran_order) {
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
static int run_packed(const op_inputs *in, const op_plan *p, stream_concat_job *job) {
  uint64_t bits = (uint64_t)p->info.element_bits;
  int aligned = 1;
  for (size_t i = 0; i < in->count; i++) {
    aligned &= tail_product(p->in_dims + i * p->rank, p->axis, p->rank, bits) % 8 == 0;
  }
  if (aligned) {
    return run_bytes(in, p, bits, job);
  }
  stream_concat_bits_input *items = cli_calloc(in->count, sizeof *items);
  if (items == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < in->count; i++) {
    items[i].in.fd = in->items[i].fd;
    items[i].in.path = in->items[i].path;
    items[i].in.data_offset = in->items[i].h.data_offset;
    items[i].piece = (int64_t)tail_product(p->in_dims + i * p->rank, p->axis, p->rank, 1);
  }
  stream_concat_bits_job bj;
  bj.inputs = items;
  bj.count = in->count;
  bj.type = in->tensors[0].type;
  bj.rows = (int64_t)job->rows;
  bj.sink = job->sink;
  int rc = stream_concat_bits(&bj);
  free(items);
  return rc;
}

static int join_stream(const op_inputs *in, const op_plan *p, const stream_sink *sink) {
  stream_concat_job job;
  memset(&job, 0, sizeof job);
  job.count = in->count;
  job.sink = *sink;
  /* Products of the output's dims before the axis: 0 when the output is empty (the product may
   * then be meaningless). */
  job.rows = 1;
  for (size_t d = 0; d < p->axis; d++) {
    size_t at = p->fortran_order ? p->rank - 1 - d : d;
    job.rows *= (uint64_t)p->out_dims[at];
  }
  if (p->total == 0) {
    job.rows = 0;
  }
  return in->packed ? run_packed(in, p, &job)
                    : run_bytes(in, p, (uint64_t)p->info.element_size, &job);
}

const op_family op_join_family = {join_plan, join_dims, join_outputs, join_stream};
