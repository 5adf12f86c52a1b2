/* GGUF metadata values built as ckpt_meta entries (gguf_meta_build.h). */
#include "gguf_meta_build.h"

#include <stdlib.h>
#include <string.h>

#include "gguf_value.h"

const ckpt_meta *gguf_meta_get(const ckpt_meta *meta, size_t count, const char *key) {
  for (size_t i = 0; i < count; i++) {
    if (strcmp(meta[i].key, key) == 0) {
      return &meta[i];
    }
  }
  return NULL;
}

void gguf_meta_free_all(ckpt_meta *meta, size_t count) {
  for (size_t i = 0; i < count; i++) {
    free(meta[i].key);
    free(meta[i].value);
  }
  free(meta);
}

int gguf_meta_put_raw(ckpt_meta **meta, size_t *count, const char *key, int type, const void *bytes,
                      size_t size, tool_error *err) {
  if (size == SIZE_MAX) {
    return tool_oom(err, "a metadata value");
  }
  /* The layer's values are NUL-terminated after their bytes. */
  char *value = malloc(size + 1);
  if (value == NULL) {
    return tool_oom(err, "a metadata value");
  }
  if (size > 0) {
    memcpy(value, bytes, size);
  }
  value[size] = '\0';
  for (size_t i = 0; i < *count; i++) {
    if (strcmp((*meta)[i].key, key) == 0) {
      free((*meta)[i].value);
      (*meta)[i].value = value;
      (*meta)[i].value_size = size;
      (*meta)[i].kind = GGUF_META_KIND(type);
      return 0;
    }
  }
  char *k = strdup(key);
  if (k == NULL || *count >= SIZE_MAX / sizeof **meta - 1) {
    free(k);
    free(value);
    return tool_oom(err, "a metadata key");
  }
  ckpt_meta *grown = realloc(*meta, (*count + 1) * sizeof **meta);
  if (grown == NULL) {
    free(k);
    free(value);
    return tool_oom(err, "the metadata");
  }
  grown[*count] =
      (ckpt_meta){.key = k, .value = value, .value_size = size, .kind = GGUF_META_KIND(type)};
  *meta = grown;
  (*count)++;
  return 0;
}

static int put_scalar(ckpt_meta **meta, size_t *count, const char *key, int type, uint64_t bits,
                      tool_error *err) {
  unsigned char b[8];
  unsigned n = gguf_value_size(type);
  gguf_put_le(b, bits, n);
  return gguf_meta_put_raw(meta, count, key, type, b, n, err);
}

int gguf_meta_put_u32(ckpt_meta **meta, size_t *count, const char *key, uint32_t v,
                      tool_error *err) {
  return put_scalar(meta, count, key, GGUF_U32, v, err);
}

int gguf_meta_put_i32(ckpt_meta **meta, size_t *count, const char *key, int32_t v,
                      tool_error *err) {
  return put_scalar(meta, count, key, GGUF_I32, (uint32_t)v, err);
}

int gguf_meta_put_u64(ckpt_meta **meta, size_t *count, const char *key, uint64_t v,
                      tool_error *err) {
  return put_scalar(meta, count, key, GGUF_U64, v, err);
}

int gguf_meta_put_f32(ckpt_meta **meta, size_t *count, const char *key, float v, tool_error *err) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return put_scalar(meta, count, key, GGUF_F32, bits, err);
}

int gguf_meta_put_bool(ckpt_meta **meta, size_t *count, const char *key, int v, tool_error *err) {
  return put_scalar(meta, count, key, GGUF_BOOL, v != 0, err);
}

int gguf_meta_put_string_n(ckpt_meta **meta, size_t *count, const char *key, const char *s,
                           size_t len, tool_error *err) {
  return gguf_meta_put_raw(meta, count, key, GGUF_STRING, s, len, err);
}

int gguf_meta_put_string(ckpt_meta **meta, size_t *count, const char *key, const char *s,
                         tool_error *err) {
  return gguf_meta_put_string_n(meta, count, key, s, strlen(s), err);
}

/* An array's bytes: element type (4), count (8), then `body` bytes the caller fills. */
static unsigned char *array_start(int elem_type, size_t n, size_t body, size_t *size,
                                  tool_error *err) {
  if (body > SIZE_MAX - 12) {
    tool_oom(err, "a metadata array");
    return NULL;
  }
  unsigned char *b = malloc(12 + body);
  if (b == NULL) {
    tool_oom(err, "a metadata array");
    return NULL;
  }
  gguf_put_le(b, (uint64_t)elem_type, 4);
  gguf_put_le(b + 4, (uint64_t)n, 8);
  *size = 12 + body;
  return b;
}

static int put_array_32(ckpt_meta **meta, size_t *count, const char *key, int elem_type,
                        const void *v, size_t n, tool_error *err) {
  if (n > (SIZE_MAX - 12) / 4) {
    return tool_oom(err, "a metadata array");
  }
  size_t size;
  unsigned char *b = array_start(elem_type, n, n * 4, &size, err);
  if (b == NULL) {
    return err->status;
  }
  for (size_t i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, (const unsigned char *)v + 4 * i, 4);
    gguf_put_le(b + 12 + 4 * i, bits, 4);
  }
  int rc = gguf_meta_put_raw(meta, count, key, GGUF_ARRAY, b, size, err);
  free(b);
  return rc;
}

int gguf_meta_put_f32_array(ckpt_meta **meta, size_t *count, const char *key, const float *v,
                            size_t n, tool_error *err) {
  return put_array_32(meta, count, key, GGUF_F32, v, n, err);
}

int gguf_meta_put_i32_array(ckpt_meta **meta, size_t *count, const char *key, const int32_t *v,
                            size_t n, tool_error *err) {
  return put_array_32(meta, count, key, GGUF_I32, v, n, err);
}

int gguf_meta_put_string_array(ckpt_meta **meta, size_t *count, const char *key,
                               const char *const *v, const size_t *lens, size_t n,
                               tool_error *err) {
  size_t body = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = lens != NULL ? lens[i] : strlen(v[i]);
    if (len > SIZE_MAX - 8 - body) {
      return tool_oom(err, "a metadata array");
    }
    body += 8 + len;
  }
  size_t size;
  unsigned char *b = array_start(GGUF_STRING, n, body, &size, err);
  if (b == NULL) {
    return err->status;
  }
  unsigned char *p = b + 12;
  for (size_t i = 0; i < n; i++) {
    size_t len = lens != NULL ? lens[i] : strlen(v[i]);
    gguf_put_le(p, (uint64_t)len, 8);
    if (len > 0) {
      memcpy(p + 8, v[i], len);
    }
    p += 8 + len;
  }
  int rc = gguf_meta_put_raw(meta, count, key, GGUF_ARRAY, b, size, err);
  free(b);
  return rc;
}
