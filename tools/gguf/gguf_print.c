/* GGUF metadata values as text and as JSON. */
#include "gguf_print.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_value.h"

/* Text shown for arrays: at most this many elements. */
#define SHOWN 8

const char *gguf_print_type(const ckpt_meta *m, char *buf, size_t size) {
  int elem;
  uint64_t count;
  if (gguf_meta_array(m, &elem, &count) == 0) {
    snprintf(buf, size, "arr[%s,%llu]", gguf_value_type_name(elem), (unsigned long long)count);
  } else {
    snprintf(buf, size, "%s", gguf_value_type_name(gguf_meta_type(m)));
  }
  return buf;
}

/* One element of fixed type `t` at `p`, as text (floats with round-trip digits). */
static void scalar_text(int t, const unsigned char *p, char *buf, size_t size) {
  uint64_t v = gguf_le(p, gguf_value_size(t));
  switch (t) {
  case GGUF_I8:
    snprintf(buf, size, "%d", (int)(int8_t)v);
    break;
  case GGUF_I16:
    snprintf(buf, size, "%d", (int)(int16_t)v);
    break;
  case GGUF_I32:
    snprintf(buf, size, "%ld", (long)(int32_t)v);
    break;
  case GGUF_I64:
    snprintf(buf, size, "%lld", (long long)(int64_t)v);
    break;
  case GGUF_F32: {
    uint32_t bits = (uint32_t)v;
    float f;
    memcpy(&f, &bits, sizeof f);
    snprintf(buf, size, "%.9g", (double)f);
    break;
  }
  case GGUF_F64: {
    double d;
    memcpy(&d, &v, sizeof d);
    snprintf(buf, size, "%.17g", d);
    break;
  }
  case GGUF_BOOL:
    snprintf(buf, size, "%s", v ? "true" : "false");
    break;
  default:
    snprintf(buf, size, "%llu", (unsigned long long)v);
  }
}

/* Prints `n` bytes of a string with control characters and backslashes escaped. */
static void print_string(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\') {
      fputs("\\\\", stdout);
    } else if (s[i] < 0x20 || s[i] == 0x7f) {
      printf("\\x%02x", s[i]);
    } else {
      putchar(s[i]);
    }
  }
}

void gguf_print_value(const ckpt_meta *m) {
  const unsigned char *v = (const unsigned char *)m->value;
  int t = gguf_meta_type(m);
  char text[64];
  if (t == GGUF_STRING) {
    print_string(v, m->value_size);
    return;
  }
  int elem;
  uint64_t count;
  if (gguf_meta_array(m, &elem, &count) != 0) {
    scalar_text(t, v, text, sizeof text);
    fputs(text, stdout);
    return;
  }
  const unsigned char *p = v + 12;
  putchar('[');
  for (uint64_t i = 0; i < count && i < SHOWN; i++) {
    fputs(i > 0 ? ", " : "", stdout);
    if (elem == GGUF_STRING) {
      uint64_t n = gguf_le(p, 8);
      putchar('"');
      print_string(p + 8, (size_t)n);
      putchar('"');
      p += 8 + n;
    } else {
      scalar_text(elem, p, text, sizeof text);
      fputs(text, stdout);
      p += gguf_value_size(elem);
    }
  }
  if (count > SHOWN) {
    printf(", ... (%llu)", (unsigned long long)count);
  }
  putchar(']');
}

/* One element of fixed type `t` as a JSON value. */
static void scalar_json(json_out *j, const char *key, int t, const unsigned char *p) {
  uint64_t v = gguf_le(p, gguf_value_size(t));
  switch (t) {
  case GGUF_I8:
    json_out_int(j, key, (int8_t)v);
    break;
  case GGUF_I16:
    json_out_int(j, key, (int16_t)v);
    break;
  case GGUF_I32:
    json_out_int(j, key, (int32_t)v);
    break;
  case GGUF_I64:
    json_out_int(j, key, (int64_t)v);
    break;
  case GGUF_BOOL:
    json_out_bool(j, key, v != 0);
    break;
  case GGUF_F32: {
    /* Numbers are JSON numbers (docs/cli.md), with the digits that read back to the value. */
    uint32_t bits = (uint32_t)v;
    float f;
    memcpy(&f, &bits, sizeof f);
    json_out_double(j, key, (double)f, 9);
    break;
  }
  case GGUF_F64: {
    double d;
    memcpy(&d, &v, sizeof d);
    json_out_double(j, key, d, 17);
    break;
  }
  default:
    json_out_uint(j, key, v);
  }
}

/* A string of `n` bytes (UTF-8 without NUL, as the reader checked) as a JSON string. */
static void string_json(json_out *j, const char *key, const unsigned char *s, size_t n) {
  char *copy = malloc(n + 1);
  if (copy == NULL) {
    json_out_string(j, key, NULL);
    return;
  }
  memcpy(copy, s, n);
  copy[n] = '\0';
  json_out_string(j, key, copy);
  free(copy);
}

void gguf_json_value(json_out *j, const char *key, const ckpt_meta *m) {
  const unsigned char *v = (const unsigned char *)m->value;
  int t = gguf_meta_type(m);
  if (t == GGUF_STRING) {
    string_json(j, key, v, m->value_size);
    return;
  }
  int elem;
  uint64_t count;
  if (gguf_meta_array(m, &elem, &count) != 0) {
    scalar_json(j, key, t, v);
    return;
  }
  json_out_array(j, key);
  const unsigned char *p = v + 12;
  for (uint64_t i = 0; i < count; i++) {
    if (elem == GGUF_STRING) {
      uint64_t n = gguf_le(p, 8);
      string_json(j, NULL, p + 8, (size_t)n);
      p += 8 + n;
    } else {
      scalar_json(j, NULL, elem, p);
      p += gguf_value_size(elem);
    }
  }
  json_out_end_array(j);
}
