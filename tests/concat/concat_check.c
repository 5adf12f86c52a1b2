/* The concat tests' helpers (see concat_check.h): inputs, the naive reference and the checkers. */
#include "concat_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cc_elem cc_elem_of(cleave_type type) {
  cc_elem e = {0, 0, 0};
  switch (type.dtype) {
  case CLEAVE_BOOLEAN:
  case CLEAVE_I8:
  case CLEAVE_U8:
  case CLEAVE_F8E4M3:
  case CLEAVE_F8E5M2:
  case CLEAVE_F8E4M3FNUZ:
  case CLEAVE_F8E5M2FNUZ:
  case CLEAVE_F8E8M0:
    e.bytes = 1;
    break;
  case CLEAVE_I16:
  case CLEAVE_U16:
  case CLEAVE_F16:
  case CLEAVE_BF16:
    e.bytes = 2;
    break;
  case CLEAVE_I32:
  case CLEAVE_U32:
  case CLEAVE_F32:
    e.bytes = 4;
    break;
  case CLEAVE_I64:
  case CLEAVE_U64:
  case CLEAVE_F64:
  case CLEAVE_C64:
    e.bytes = 8;
    break;
  case CLEAVE_C128:
    e.bytes = 16;
    break;
  case CLEAVE_BYTES:
    e.bytes = (size_t)type.width;
    break;
  case CLEAVE_UNICODE:
    e.bytes = (size_t)type.width * 4;
    break;
  case CLEAVE_STRING:
    e.bytes = sizeof(cleave_string);
    break;
  case CLEAVE_U1:
    e.bits = 1;
    e.msb_first = 1;
    break;
  case CLEAVE_U2:
    e.bits = 2;
    e.msb_first = 1;
    break;
  case CLEAVE_INT2:
  case CLEAVE_UINT2:
    e.bits = 2;
    break;
  default: /* the 4-bit types, all LSB first */
    e.bits = 4;
    break;
  }
  if (e.bytes > 0) {
    e.bits = (int)(8 * e.bytes);
  }
  return e;
}

size_t cc_bytes(cc_elem e, int64_t count) {
  return e.bytes > 0 ? (size_t)count * e.bytes : ((size_t)count * (size_t)e.bits + 7) / 8;
}

int64_t cc_count(const int64_t *shape, size_t rank) {
  int64_t n = 1;
  for (size_t i = 0; i < rank; i++) {
    n *= shape[i];
  }
  return n;
}

static char cc_ctx[1024];

void cc_context(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cc_ctx, sizeof cc_ctx, fmt, ap);
  va_end(ap);
}

void cc_fail(const char *what, const char *file, int line) {
  print_error("check failed: %s\n  context: %s\n", what, cc_ctx);
  _fail(file, line);
}

int64_t cc_between(uint64_t *state, int64_t lo, int64_t hi) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  uint64_t r = *state * 2685821657736338717u;
  return lo + (int64_t)(r % (uint64_t)(hi - lo + 1));
}

/* ---- elements ---------------------------------------------------------------------------- */

static unsigned get_bits(const unsigned char *buf, int64_t j, cc_elem e) {
  int64_t bit = j * e.bits;
  unsigned shift = e.msb_first ? (unsigned)(8 - e.bits - bit % 8) : (unsigned)(bit % 8);
  return (unsigned)(buf[bit / 8] >> shift) & ((1u << e.bits) - 1);
}

static void set_bits(unsigned char *buf, int64_t j, unsigned v, cc_elem e) {
  int64_t bit = j * e.bits;
  unsigned shift = e.msb_first ? (unsigned)(8 - e.bits - bit % 8) : (unsigned)(bit % 8);
  unsigned mask = ((1u << e.bits) - 1) << shift;
  buf[bit / 8] = (unsigned char)((buf[bit / 8] & ~mask) | ((v << shift) & mask));
}

/* Copies element `from` of `in` to element `to` of `out`. */
static void copy_element(unsigned char *out, int64_t to, const unsigned char *in, int64_t from,
                         cc_elem e) {
  if (e.bytes > 0) {
    memcpy(out + (size_t)to * e.bytes, in + (size_t)from * e.bytes, e.bytes);
  } else {
    set_bits(out, to, get_bits(in, from, e), e);
  }
}

void cc_inputs_make(cc_inputs *in, cleave_type type, size_t count, size_t rank,
                    const int64_t (*shapes)[CC_MAX_RANK], unsigned seed) {
  memset(in, 0, sizeof *in);
  in->count = count;
  in->tensors = calloc(count + 1, sizeof *in->tensors);
  in->shapes = calloc(count + 1, sizeof *in->shapes);
  in->data = calloc(count + 1, sizeof *in->data);
  in->pools = calloc(count + 1, sizeof *in->pools);
  assert_non_null(in->tensors);
  assert_non_null(in->shapes);
  assert_non_null(in->data);
  assert_non_null(in->pools);
  cc_elem e = cc_elem_of(type);
  uint64_t global = 0; /* elements of all inputs numbered in turn: each is told apart */
  for (size_t i = 0; i < count; i++) {
    memcpy(in->shapes[i], shapes[i], sizeof in->shapes[i]);
    int64_t n = cc_count(shapes[i], rank);
    size_t bytes = cc_bytes(e, n);
    in->data[i] = malloc(bytes + 1);
    assert_non_null(in->data[i]);
    if (type.dtype == CLEAVE_STRING) {
      in->pools[i] = malloc((size_t)n * 8 + 1);
      assert_non_null(in->pools[i]);
    }
    /* Packed inputs get set tail bits: nothing of them may reach the output. */
    memset(in->data[i], e.bytes > 0 ? 0 : 0xFF, bytes + 1);
    for (int64_t k = 0; k < n; k++, global++) {
      uint64_t g = global * 2654435761u + seed;
      if (type.dtype == CLEAVE_STRING) {
        cleave_string s;
        for (size_t b = 0; b < 8; b++) {
          in->pools[i][(size_t)k * 8 + b] = (char)('a' + (g + b) % 26);
        }
        s.data = in->pools[i] + (size_t)k * 8;
        s.size = (size_t)(g % 8);
        memcpy(in->data[i] + (size_t)k * e.bytes, &s, sizeof s);
      } else if (e.bytes > 0) {
        for (size_t b = 0; b < e.bytes; b++) {
          in->data[i][(size_t)k * e.bytes + b] =
              (unsigned char)((global >> (8 * (b % 8))) + b * 29u + seed);
        }
      } else {
        set_bits(in->data[i], k, (unsigned)(g >> 7) & ((1u << e.bits) - 1), e);
      }
    }
    in->tensors[i].data = in->data[i];
    in->tensors[i].type = type;
    in->tensors[i].rank = rank;
    in->tensors[i].shape = in->shapes[i];
  }
}

void cc_inputs_free(cc_inputs *in) {
  for (size_t i = 0; i < in->count; i++) {
    free(in->data[i]);
    free(in->pools[i]);
  }
  free(in->tensors);
  free(in->shapes);
  free(in->data);
  free(in->pools);
  memset(in, 0, sizeof *in);
}

void cc_expect_of(const cleave_tensor *inputs, size_t count, size_t axis, int stack,
                  cc_expect *ex) {
  memset(ex, 0, sizeof *ex);
  size_t r = inputs[0].rank;
  ex->axis = axis;
  ex->stack = stack;
  ex->rank = stack ? r + 1 : r;
  for (size_t p = 0, k = 0; p < ex->rank; p++) {
    if (p == axis && stack) {
      ex->shape[p] = (int64_t)count;
      continue;
    }
    ex->shape[p] = inputs[0].shape[k];
    if (p == axis) {
      ex->shape[p] = 0;
      for (size_t i = 0; i < count; i++) {
        ex->shape[p] += inputs[i].shape[k];
      }
    }
    k++;
  }
}

void cc_reference(const cleave_tensor *inputs, size_t count, size_t axis, int stack,
                  unsigned char *out) {
  cc_expect ex;
  cc_expect_of(inputs, count, axis, stack, &ex);
  cc_elem e = cc_elem_of(inputs[0].type);
  int64_t total = cc_count(ex.shape, ex.rank);
  memset(out, 0, cc_bytes(e, total) + 1);
  int64_t idx[CC_MAX_RANK + 1] = {0};
  for (int64_t o = 0; o < total; o++) {
    /* Which input holds output index idx, and where. */
    size_t which = 0;
    int64_t at = idx[axis];
    if (stack) {
      which = (size_t)at;
    } else {
      while (at >= inputs[which].shape[axis]) {
        at -= inputs[which].shape[axis];
        which++;
      }
    }
    const cleave_tensor *t = &inputs[which];
    int64_t flat = 0;
    for (size_t p = 0, k = 0; p < ex.rank; p++) {
      if (stack && p == axis) {
        continue;
      }
      flat = flat * t->shape[k] + (p == axis ? at : idx[p]);
      k++;
    }
    copy_element(out, o, t->data, flat, e);
    for (size_t p = ex.rank; p-- > 0;) {
      if (++idx[p] < ex.shape[p]) {
        break;
      }
      idx[p] = 0;
    }
  }
}
