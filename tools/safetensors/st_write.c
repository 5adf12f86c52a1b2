/* The canonical safetensors writer: tensor order, data offsets, header text, output index. */
#include "st_write.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_read.h"

static int canonical_order(const void *a, const void *b) {
  const ckpt_out_tensor *x = a, *y = b;
  if (x->dtype->code != y->dtype->code) {
    return x->dtype->code > y->dtype->code ? -1 : 1;
  }
  return strcmp(x->name, y->name);
}

/* A growing text buffer. */
typedef struct text_buf {
  char *data;
  size_t len, cap;
  int failed;
} text_buf;

static void put(text_buf *b, const char *s, size_t n) {
  if (b->failed) {
    return;
  }
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap == 0 ? 4096 : b->cap;
    while (b->len + n + 1 > cap) {
      cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (p == NULL) {
      b->failed = 1;
      return;
    }
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void puts_(text_buf *b, const char *s) {
  put(b, s, strlen(s));
}

/* A JSON string as serde_json writes it: '"' and '\\' escaped, the control characters as \b,
 * \f, \n, \r, \t or \u00XX (lower-case hex), everything else (UTF-8 included) as is. */
static void put_string(text_buf *b, const char *s) {
  put(b, "\"", 1);
  const char *run = s;
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    const char *esc = NULL;
    char hex[8];
    if (c == '"') {
      esc = "\\\"";
    } else if (c == '\\') {
      esc = "\\\\";
    } else if (c == '\b') {
      esc = "\\b";
    } else if (c == '\f') {
      esc = "\\f";
    } else if (c == '\n') {
      esc = "\\n";
    } else if (c == '\r') {
      esc = "\\r";
    } else if (c == '\t') {
      esc = "\\t";
    } else if (c < 0x20) {
      snprintf(hex, sizeof hex, "\\u%04x", c);
      esc = hex;
    }
    if (esc != NULL) {
      put(b, run, (size_t)(s - run));
      puts_(b, esc);
      run = s + 1;
    }
  }
  put(b, run, (size_t)(s - run));
  put(b, "\"", 1);
}

static void put_u64(text_buf *b, unsigned long long v) {
  char digits[24];
  snprintf(digits, sizeof digits, "%llu", v);
  puts_(b, digits);
}

/* The header's JSON text (without the 8-byte size), padded with spaces to a multiple of 8. */
static void render_header(const ckpt_out_file *file, text_buf *b) {
  puts_(b, "{");
  int first = 1;
  if (file->has_meta) {
    puts_(b, "\"__metadata__\":{");
    for (size_t i = 0; i < file->meta_count; i++) {
      if (i > 0) {
        puts_(b, ",");
      }
      put_string(b, file->meta[i].key);
      puts_(b, ":");
      put_string(b, file->meta[i].value);
    }
    puts_(b, "}");
    first = 0;
  }
  for (size_t i = 0; i < file->tensor_count; i++) {
    const ckpt_out_tensor *t = &file->tensors[i];
    if (!first) {
      puts_(b, ",");
    }
    first = 0;
    put_string(b, t->name);
    puts_(b, ":{\"dtype\":\"");
    puts_(b, t->dtype->name);
    puts_(b, "\",\"shape\":[");
    for (int d = 0; d < t->ndim; d++) {
      if (d > 0) {
        puts_(b, ",");
      }
      put_u64(b, (unsigned long long)t->shape[d]);
    }
    puts_(b, "],\"data_offsets\":[");
    put_u64(b, t->begin);
    puts_(b, ",");
    put_u64(b, t->begin + t->bytes);
    puts_(b, "]}");
  }
  puts_(b, "}");
  while (!b->failed && (b->len - 8) % 8 != 0) {
    puts_(b, " ");
  }
}

int st_layout(ckpt_out_file *file, tool_error *err) {
  if (file->tensor_count > 1) {
    qsort(file->tensors, file->tensor_count, sizeof *file->tensors, canonical_order);
  }
  uint64_t at = 0;
  for (size_t i = 0; i < file->tensor_count; i++) {
    ckpt_out_tensor *t = &file->tensors[i];
    t->begin = at;
    if (at + t->bytes < at) {
      return tool_fail(err, CLI_EXIT_DATA, "output '%s': the data size overflows", file->name);
    }
    at += t->bytes;
  }
  file->data_size = at;
  text_buf b = {0};
  put(&b, "\0\0\0\0\0\0\0\0", 8); /* the size, filled in below */
  render_header(file, &b);
  if (b.failed) {
    free(b.data);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory rendering the header of '%s'",
                     file->name);
  }
  uint64_t n = b.len - 8;
  if (n > ST_MAX_HEADER) {
    free(b.data);
    return tool_fail(err, CLI_EXIT_DATA,
                     "output '%s': its header would hold %llu bytes, more than the format's "
                     "limit of %u",
                     file->name, (unsigned long long)n, ST_MAX_HEADER);
  }
  for (int i = 0; i < 8; i++) {
    b.data[i] = (char)(unsigned char)(n >> (8 * i));
  }
  free(file->prefix);
  file->prefix = (unsigned char *)b.data;
  file->prefix_size = b.len;
  return 0;
}

/* jansson's text (JSON_ENSURE_ASCII) made what Python's json.dumps writes, as Hugging Face's
 * tools do: the hex digits of \u escapes in lower case, and DEL escaped too. Only strings hold
 * backslashes or DEL. Returns a malloc'd copy with a final newline, or NULL. */
static char *as_python_writes(const char *text) {
  size_t n = strlen(text), dels = 0;
  for (size_t i = 0; i < n; i++) {
    dels += text[i] == 0x7f;
  }
  char *out = malloc(n + 5 * dels + 2), *o = out;
  for (size_t i = 0; out != NULL && i < n; i++) {
    if (text[i] == 0x7f) {
      memcpy(o, "\\u007f", 6);
      o += 6;
    } else if (text[i] == '\\' && i + 1 < n) {
      *o++ = text[i++];
      *o++ = text[i];
      int hex = text[i] == 'u' ? 4 : 0;
      for (int k = 0; k < hex && i + 1 < n; k++) {
        char c = text[++i];
        *o++ = c >= 'A' && c <= 'F' ? (char)(c - 'A' + 'a') : c;
      }
    } else {
      *o++ = text[i];
    }
  }
  if (out != NULL) {
    memcpy(o, "\n", 2);
  }
  return out;
}

/* The index of a sharded output (Hugging Face's layout): the input index's metadata with the
 * new total_size, and every tensor's file; indented by 2, keys sorted, non-ASCII escaped, a final
 * newline, as Python's json.dumps(index, indent=2, sort_keys=True) + "\n" writes it. */
static int st_index_render(void *ctx, ckpt_plan *plan, tool_error *err) {
  const st_model *model = ctx;
  json_t *root = json_object();
  json_t *meta =
      model->index_metadata != NULL ? json_deep_copy(model->index_metadata) : json_object();
  json_t *map = json_object();
  uint64_t total = 0;
  int failed = root == NULL || meta == NULL || map == NULL;
  for (size_t i = 0; i < plan->file_count && !failed; i++) {
    const ckpt_out_file *f = &plan->files[i];
    total += f->data_size;
    for (size_t k = 0; k < f->tensor_count && !failed; k++) {
      failed = json_object_set_new(map, f->tensors[k].name, json_string(f->name)) != 0;
    }
  }
  if (!failed) {
    failed = json_object_set_new(meta, "total_size", json_integer((json_int_t)total)) != 0;
  }
  if (!failed) {
    failed = json_object_set(root, "metadata", meta) != 0 ||
             json_object_set(root, "weight_map", map) != 0;
  }
  char *text =
      failed ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
  json_decref(meta);
  json_decref(map);
  json_decref(root);
  plan->index_text = text != NULL ? as_python_writes(text) : NULL;
  free(text);
  return plan->index_text == NULL ? tool_oom(err, "rendering the index") : 0;
}

static int layout(void *ctx, ckpt_out_file *file, tool_error *err) {
  (void)ctx;
  return st_layout(file, err);
}

ckpt_format st_format(const st_model *m) {
  ckpt_format f = {
      "safetensors", "__metadata__", ".safetensors", (void *)m, layout, st_index_render, NULL};
  return f;
}
