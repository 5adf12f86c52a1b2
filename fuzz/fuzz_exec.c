/* Fuzz target: execution on small random tensors, one-shot, through a plan into caller buffers
 * and into library-allocated outputs (the system allocator or an output arena; default thresholds,
 * or streaming stores and 2 threads for any size), compared with a naive element-by-element
 * reference. Also checks that a failing call writes nothing. The same bytes also describe a
 * concat (fuzz_concat.h), run the same ways and compared with its own reference. */
#include "fuzz_concat.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_OUTPUTS = 64, SENTINEL = 0xA5 };

/* Where output `o`'s element `e` comes from in the input, by full index arithmetic. */
static int64_t source_index(const fuzz_case *c, const cleave_split_info *info,
                            const int64_t *lengths, int64_t o, int64_t e) {
  int64_t offset = 0;
  for (int64_t i = 0; i < o; i++) {
    offset += lengths[i];
  }
  /* Decompose e over the output's shape (input shape with lengths[o] on the axis). */
  int64_t index[FUZZ_MAX_RANK];
  for (size_t k = c->rank; k-- > 0;) {
    int64_t dim = k == info->axis ? lengths[o] : c->shape[k];
    index[k] = e % dim;
    e /= dim;
  }
  index[info->axis] += offset;
  int64_t flat = 0;
  for (size_t k = 0; k < c->rank; k++) {
    flat = flat * c->shape[k] + index[k];
  }
  return flat;
}

/* Element j of a packed buffer: `bits` wide, the first element in the high or the low bits. */
static unsigned packed_get(const unsigned char *buf, int64_t j, int64_t bits, bool msb_first) {
  int64_t bit = j * bits;
  unsigned shift = msb_first ? (unsigned)(8 - bits - bit % 8) : (unsigned)(bit % 8);
  return (unsigned)(buf[bit / 8] >> shift) & ((1u << bits) - 1);
}

/* Whether element e of output `out` equals element `from` of the input. */
static bool same_element(const unsigned char *out, int64_t e, const unsigned char *in, int64_t from,
                         int64_t ebits, bool msb_first) {
  if (ebits % 8 == 0) {
    size_t esize = (size_t)(ebits / 8);
    return memcmp(out + (size_t)e * esize, in + (size_t)from * esize, esize) == 0;
  }
  return packed_get(out, e, ebits, msb_first) == packed_get(in, from, ebits, msb_first);
}

/* Whether every element of output `o` equals its source element of the input. */
static bool output_matches(const fuzz_case *c, const cleave_split_info *info,
                           const int64_t *lengths, int64_t o, const unsigned char *out,
                           const unsigned char *in, int64_t count, int64_t ebits, bool msb_first) {
  int64_t elements = count == 0 ? 0 : count / c->shape[info->axis] * lengths[o];
  for (int64_t e = 0; e < elements; e++) {
    if (!same_element(out, e, in, source_index(c, info, lengths, o, e), ebits, msb_first)) {
      return false;
    }
  }
  return true;
}

/* One arena for the whole run, as a long-lived program would keep it: blocks freed by one input
 * serve the next (stale bytes included), up to 1 MiB kept. */
static cleave_arena *fuzz_arena(void) {
  static cleave_arena *arena;
  if (arena == NULL && cleave_arena_create((size_t)1 << 20, NULL, &arena, NULL) != CLEAVE_OK) {
    abort();
  }
  return arena;
}

/* One pool of 2 threads for the whole run. */
static cleave_threadpool *fuzz_pool(void) {
  static cleave_threadpool *pool;
  if (pool == NULL && cleave_threadpool_create(2, &pool, NULL) != CLEAVE_OK) {
    abort();
  }
  return pool;
}

/* ---- concat ------------------------------------------------------------------------------- */

/* Whether every element of the concat's output equals its source element, found by index
 * arithmetic on the output's shape. */
static bool concat_matches(const fuzz_concat *c, const cleave_concat_info *info,
                           const int64_t *shape, const unsigned char *out, int64_t ebits,
                           bool msb_first) {
  int64_t total = 1;
  for (size_t p = 0; p < info->output_rank; p++) {
    total *= shape[p];
  }
  for (int64_t e = 0; e < total; e++) {
    int64_t index[FUZZ_MAX_RANK + 1], rest = e;
    for (size_t p = info->output_rank; p-- > 0;) {
      index[p] = rest % shape[p];
      rest /= shape[p];
    }
    size_t which = 0;
    int64_t at = index[info->axis];
    if (info->new_axis) {
      which = (size_t)at;
    } else {
      while (at >= c->inputs[which].shape[info->axis]) {
        at -= c->inputs[which].shape[info->axis];
        which++;
      }
    }
    const cleave_tensor *t = &c->inputs[which];
    int64_t flat = 0;
    for (size_t p = 0, k = 0; p < info->output_rank; p++) {
      if (!(info->new_axis && p == info->axis)) {
        flat = flat * t->shape[k] + (p == info->axis ? at : index[p]);
        k++;
      }
    }
    if (!same_element(out, e, t->data, flat, ebits, msb_first)) {
      return false;
    }
  }
  return true;
}

static void run_concat(const uint8_t *data, size_t size) {
  fuzz_reader r = {data, size, 0};
  fuzz_concat c;
  fuzz_read_concat(&r, &c, true);
  unsigned char *inputs[FUZZ_MAX_INPUTS];
  size_t total = 0;
  for (size_t i = 0; i < c.n; i++) {
    int64_t count = 1, bits = 0;
    for (size_t k = 0; k < c.inputs[i].rank; k++) {
      count *= c.shapes[i][k];
    }
    size_t bytes = cleave_type_bits(c.inputs[i].type, &bits, NULL, NULL) == CLEAVE_OK
                       ? (size_t)((count * bits + 7) / 8)
                       : 0;
    inputs[i] = malloc(bytes + 1);
    for (size_t b = 0; b < bytes; b++) {
      inputs[i][b] = (unsigned char)(b * 131 + i * 37 + (b >> 8));
    }
    c.inputs[i].data = inputs[i];
    total += bytes;
  }
  unsigned char *out = malloc(total + 64);
  memset(out, SENTINEL, total + 64);
  cleave_concat_info info;
  int64_t shape[FUZZ_MAX_RANK + 1];
  cleave_status inferred =
      cleave_concat_infer(&c.op, c.inputs, c.n, &info, shape, FUZZ_MAX_RANK + 1, NULL);
  cleave_status st = cleave_concat_run(&c.op, c.inputs, c.n, out, NULL);
  if (inferred != CLEAVE_OK) {
    /* A failing call writes nothing. */
    for (size_t b = 0; b < total + 64; b++) {
      if (st == CLEAVE_OK || out[b] != SENTINEL) {
        abort();
      }
    }
  } else {
    int64_t ebits = 0;
    cleave_bit_order order = CLEAVE_BIT_ORDER_NONE;
    cleave_type_bits(c.inputs[0].type, &ebits, &order, NULL);
    bool msb_first = order == CLEAVE_BIT_ORDER_MSB_FIRST;
    if (st != CLEAVE_OK || (size_t)info.output_bytes > total ||
        !concat_matches(&c, &info, shape, out, ebits, msb_first) ||
        out[info.output_bytes] != SENTINEL) {
      abort();
    }
    /* A packed output's unused tail bits are zero. */
    if (ebits % 8 != 0 && info.output_bytes > 0) {
      int64_t elements = 1;
      for (size_t p = 0; p < info.output_rank; p++) {
        elements *= shape[p];
      }
      unsigned filled = (unsigned)(elements * ebits % 8);
      unsigned char tail = out[info.output_bytes - 1];
      unsigned char unused = filled == 0 ? 0
                             : msb_first ? (unsigned char)(0xFFu >> filled)
                                         : (unsigned char)(0xFFu << filled);
      if ((tail & unused) != 0) {
        abort();
      }
    }
    /* Through a plan into a cleared buffer, then into allocated outputs: the system allocator or
     * the arena, default thresholds or streaming stores and 2 threads for any size. */
    unsigned choice = fuzz_u8(&r);
    cleave_plan_options eager = cleave_plan_options_default();
    eager.nontemporal_bytes = 0;
    eager.parallel_bytes = 0;
    cleave_concat_plan *plan = NULL;
    if (cleave_concat_plan_create(&c.op, c.inputs, c.n, (choice & 2) ? &eager : NULL, &plan,
                                  NULL) != CLEAVE_OK) {
      abort();
    }
    cleave_exec pooled = cleave_exec_threadpool(fuzz_pool());
    const cleave_exec *exec = (choice & 2) ? &pooled : NULL;
    const void *ptrs[FUZZ_MAX_INPUTS];
    for (size_t i = 0; i < c.n; i++) {
      ptrs[i] = inputs[i];
    }
    memset(out, SENTINEL, total + 64);
    if (cleave_concat_plan_run(plan, ptrs, out, exec, NULL) != CLEAVE_OK ||
        !concat_matches(&c, &info, shape, out, ebits, msb_first) ||
        out[info.output_bytes] != SENTINEL) {
      abort();
    }
    cleave_allocator from_arena = cleave_arena_allocator(fuzz_arena());
    void *allocated = NULL;
    if (cleave_concat_plan_run_alloc(plan, ptrs, exec, (choice & 1) ? &from_arena : NULL,
                                     &allocated, NULL) != CLEAVE_OK ||
        !concat_matches(&c, &info, shape, allocated, ebits, msb_first)) {
      abort();
    }
    cleave_outputs_free(&allocated, 1);
    cleave_concat_plan_destroy(plan);
  }
  free(out);
  for (size_t i = 0; i < c.n; i++) {
    free(inputs[i]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  run_concat(data, size);
  fuzz_reader r = {data, size, 0};
  fuzz_case c;
  fuzz_read_case(&r, &c, true);
  int64_t ebits = 0;
  int64_t count = 1;
  for (size_t k = 0; k < c.rank; k++) {
    count *= c.shape[k];
  }
  cleave_bit_order order = CLEAVE_BIT_ORDER_NONE;
  bool sized = cleave_type_bits(c.type, &ebits, &order, NULL) == CLEAVE_OK;
  bool msb_first = order == CLEAVE_BIT_ORDER_MSB_FIRST;
  /* Packed tensors take whole bytes: ceil(count * bits / 8). */
  size_t in_bytes = sized ? (size_t)((count * ebits + 7) / 8) : 0;
  unsigned char *input = malloc(in_bytes + 1);
  for (size_t i = 0; i < in_bytes; i++) {
    input[i] = (unsigned char)(i * 131 + (i >> 8));
  }
  /* Every output buffer is as large as the whole input: enough for any output. */
  unsigned char *outputs[MAX_OUTPUTS];
  void *ptrs[MAX_OUTPUTS];
  for (int i = 0; i < MAX_OUTPUTS; i++) {
    outputs[i] = malloc(in_bytes + 1);
    memset(outputs[i], SENTINEL, in_bytes + 1);
    ptrs[i] = outputs[i];
  }
  cleave_tensor tensor = {input, c.type, c.rank, c.shape};
  cleave_split_info info;
  int64_t lengths[MAX_OUTPUTS];
  cleave_status inferred =
      cleave_infer(&c.op, c.type, c.shape, c.rank, &info, lengths, MAX_OUTPUTS, NULL);
  size_t n = inferred == CLEAVE_OK ? info.num_outputs : (size_t)(fuzz_u8(&r) % 4);
  cleave_status st = cleave_run(&c.op, &tensor, ptrs, n, NULL);
  if (inferred != CLEAVE_OK) {
    if (st == CLEAVE_OK) {
      abort();
    }
    for (int i = 0; i < MAX_OUTPUTS; i++) {
      for (size_t b = 0; b < in_bytes + 1; b++) {
        if (outputs[i][b] != SENTINEL) {
          abort();
        }
      }
    }
  } else {
    if (st != CLEAVE_OK) {
      abort();
    }
    for (int pass = 0; pass < 2; pass++) {
      for (int64_t o = 0; o < (int64_t)info.num_outputs; o++) {
        int64_t elements = count == 0 ? 0 : count / c.shape[info.axis] * lengths[o];
        if (!output_matches(&c, &info, lengths, o, outputs[o], input, count, ebits, msb_first)) {
          abort();
        }
        int64_t out_bits = elements * ebits, out_bytes = (out_bits + 7) / 8;
        /* A packed output's unused tail bits are zero. */
        if (out_bits % 8 != 0) {
          unsigned used = (unsigned)(out_bits % 8);
          unsigned char tail = outputs[o][out_bytes - 1];
          unsigned char unused =
              msb_first ? (unsigned char)(0xFFu >> used) : (unsigned char)(0xFFu << used);
          if ((tail & unused) != 0) {
            abort();
          }
        }
        /* Nothing written past the output's end. */
        if (outputs[o][out_bytes] != SENTINEL && out_bytes < (int64_t)in_bytes) {
          abort();
        }
      }
      if (pass == 1) {
        break;
      }
      /* Again through a plan, into cleared outputs. */
      cleave_plan *plan = NULL;
      if (cleave_plan_create(&c.op, c.type, c.shape, c.rank, &plan, NULL) != CLEAVE_OK) {
        abort();
      }
      for (int i = 0; i < MAX_OUTPUTS; i++) {
        memset(outputs[i], SENTINEL, in_bytes + 1);
      }
      if (cleave_plan_run(plan, input, ptrs, NULL) != CLEAVE_OK) {
        abort();
      }
      /* Into outputs the library allocates: from the system or from the arena, with the
       * default thresholds or with streaming stores and threads for any size (a pool of 2). */
      unsigned choice = fuzz_u8(&r);
      cleave_allocator from_arena = cleave_arena_allocator(fuzz_arena());
      const cleave_allocator *allocator = choice % 2 == 0 ? NULL : &from_arena;
      cleave_plan *alloc_plan = plan;
      cleave_exec pooled = cleave_exec_threadpool(fuzz_pool());
      const cleave_exec *exec = NULL;
      if (choice & 2) {
        cleave_plan_options eager = cleave_plan_options_default();
        eager.nontemporal_bytes = 0;
        eager.parallel_bytes = 0;
        if (cleave_plan_create_with(&c.op, c.type, c.shape, c.rank, &eager, &alloc_plan, NULL) !=
            CLEAVE_OK) {
          abort();
        }
        exec = &pooled;
      }
      void *allocated[MAX_OUTPUTS];
      if (info.num_outputs > 0 && cleave_plan_run_alloc_with(alloc_plan, input, exec, allocator,
                                                             allocated, NULL) != CLEAVE_OK) {
        abort();
      }
      for (int64_t o = 0; o < (int64_t)info.num_outputs; o++) {
        if (!output_matches(&c, &info, lengths, o, allocated[o], input, count, ebits, msb_first)) {
          abort();
        }
      }
      cleave_outputs_free(allocated, info.num_outputs);
      if (alloc_plan != plan) {
        cleave_plan_destroy(alloc_plan);
      }
      cleave_plan_destroy(plan);
    }
  }
  for (int i = 0; i < MAX_OUTPUTS; i++) {
    free(outputs[i]);
  }
  free(input);
  return 0;
}
