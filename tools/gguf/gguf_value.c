/* GGUF metadata value types, and the bytes the checkpoint layer holds them as. */
#include "gguf_value.h"

static const struct {
  const char *name;
  unsigned size;
} types[GGUF_TYPE_COUNT] = {
    [GGUF_U8] = {"u8", 1},     [GGUF_I8] = {"i8", 1},     [GGUF_U16] = {"u16", 2},
    [GGUF_I16] = {"i16", 2},   [GGUF_U32] = {"u32", 4},   [GGUF_I32] = {"i32", 4},
    [GGUF_F32] = {"f32", 4},   [GGUF_BOOL] = {"bool", 1}, [GGUF_STRING] = {"str", 0},
    [GGUF_ARRAY] = {"arr", 0}, [GGUF_U64] = {"u64", 8},   [GGUF_I64] = {"i64", 8},
    [GGUF_F64] = {"f64", 8},
};

const char *gguf_value_type_name(int64_t t) {
  return t >= 0 && t < GGUF_TYPE_COUNT ? types[t].name : "?";
}

unsigned gguf_value_size(int64_t t) {
  return t >= 0 && t < GGUF_TYPE_COUNT ? types[t].size : 0;
}

int gguf_meta_type(const ckpt_meta *m) {
  return m->kind >= GGUF_META_KIND(0) && m->kind < GGUF_META_KIND(GGUF_TYPE_COUNT)
             ? (int)(m->kind - GGUF_META_KIND(0))
             : -1;
}

uint64_t gguf_le(const unsigned char *p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = n; i > 0; i--) {
    v = v << 8 | p[i - 1];
  }
  return v;
}

void gguf_put_le(unsigned char *p, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    p[i] = (unsigned char)(v >> (8 * i));
  }
}

int gguf_meta_array(const ckpt_meta *m, int *elem_type, uint64_t *count) {
  if (gguf_meta_type(m) != GGUF_ARRAY || m->value_size < 12) {
    return -1;
  }
  const unsigned char *v = (const unsigned char *)m->value;
  *elem_type = (int)gguf_le(v, 4);
  *count = gguf_le(v + 4, 8);
  return 0;
}

int gguf_meta_integer(const ckpt_meta *m, int *neg, uint64_t *mag) {
  int t = gguf_meta_type(m);
  int is_signed = t == GGUF_I8 || t == GGUF_I16 || t == GGUF_I32 || t == GGUF_I64;
  int is_unsigned = t == GGUF_U8 || t == GGUF_U16 || t == GGUF_U32 || t == GGUF_U64;
  unsigned n = gguf_value_size(t);
  if ((!is_signed && !is_unsigned) || m->value_size != n) {
    return -1;
  }
  uint64_t raw = gguf_le((const unsigned char *)m->value, n);
  *neg = 0;
  *mag = raw;
  if (is_signed && n < 8 && (raw >> (8 * n - 1)) != 0) {
    raw |= ~UINT64_C(0) << (8 * n); /* sign-extend */
  }
  if (is_signed && (raw >> 63) != 0) {
    *neg = 1;
    *mag = ~raw + 1;
  } else if (is_signed) {
    *mag = raw;
  }
  return 0;
}
