/* The canonical writer's layout: tensor order, data offsets and the JSON header text. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "st_plan.h"

int st_out_file_add(st_out_file *file, const st_piece *piece) {
  if (file->count == file->capacity) {
    size_t cap = file->capacity == 0 ? 16 : file->capacity * 2;
    st_piece *p = realloc(file->pieces, cap * sizeof *p);
    if (p == NULL) {
      return -1;
    }
    file->pieces = p;
    file->capacity = cap;
  }
  st_piece *dst = &file->pieces[file->count];
  *dst = *piece;
  dst->name = strdup(piece->name);
  dst->shape = malloc((size_t)(piece->ndim > 0 ? piece->ndim : 1) * sizeof *dst->shape);
  if (dst->name == NULL || dst->shape == NULL) {
    free(dst->name);
    free(dst->shape);
    return -1;
  }
  if (piece->ndim > 0) {
    memcpy(dst->shape, piece->shape, (size_t)piece->ndim * sizeof *dst->shape);
  }
  file->count++;
  return 0;
}

void st_plan_free(st_plan *plan) {
  for (size_t i = 0; i < plan->file_count; i++) {
    st_out_file *f = &plan->files[i];
    for (size_t k = 0; k < f->count; k++) {
      free(f->pieces[k].name);
      free(f->pieces[k].shape);
    }
    free(f->pieces);
    free(f->name);
    free(f->header);
  }
  free(plan->files);
  free(plan->index_text);
  free(plan->index_name);
  free(plan->shared_meta);
  memset(plan, 0, sizeof *plan);
}

static int canonical_order(const void *a, const void *b) {
  const st_piece *x = a, *y = b;
  if (x->dtype->rank != y->dtype->rank) {
    return x->dtype->rank > y->dtype->rank ? -1 : 1;
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

int st_layout(st_out_file *file, st_error *err) {
  if (file->count > 1) {
    qsort(file->pieces, file->count, sizeof *file->pieces, canonical_order);
  }
  uint64_t at = 0;
  for (size_t i = 0; i < file->count; i++) {
    st_piece *p = &file->pieces[i];
    uint64_t bytes = p->rows * p->take;
    p->begin = at;
    p->end = at + bytes;
    if (p->end < at) {
      return st_fail(err, CLI_EXIT_DATA, "output '%s': the data size overflows", file->name);
    }
    at = p->end;
  }
  file->data_size = at;
  text_buf b = {0};
  puts_(&b, "{");
  int first = 1;
  if (file->has_meta) {
    puts_(&b, "\"__metadata__\":{");
    for (size_t i = 0; i < file->meta_count; i++) {
      if (i > 0) {
        puts_(&b, ",");
      }
      put_string(&b, file->meta[i].key);
      puts_(&b, ":");
      put_string(&b, file->meta[i].value);
    }
    puts_(&b, "}");
    first = 0;
  }
  for (size_t i = 0; i < file->count; i++) {
    const st_piece *p = &file->pieces[i];
    if (!first) {
      puts_(&b, ",");
    }
    first = 0;
    put_string(&b, p->name);
    puts_(&b, ":{\"dtype\":\"");
    puts_(&b, p->dtype->name);
    puts_(&b, "\",\"shape\":[");
    for (int d = 0; d < p->ndim; d++) {
      if (d > 0) {
        puts_(&b, ",");
      }
      put_u64(&b, (unsigned long long)p->shape[d]);
    }
    puts_(&b, "],\"data_offsets\":[");
    put_u64(&b, p->begin);
    puts_(&b, ",");
    put_u64(&b, p->end);
    puts_(&b, "]}");
  }
  puts_(&b, "}");
  while (!b.failed && b.len % 8 != 0) {
    puts_(&b, " ");
  }
  if (b.failed) {
    free(b.data);
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory rendering the header of '%s'",
                   file->name);
  }
  if (b.len > ST_MAX_HEADER) {
    free(b.data);
    return st_fail(err, CLI_EXIT_DATA,
                   "output '%s': its header would hold %zu bytes, more than the format's "
                   "limit of %u",
                   file->name, b.len, ST_MAX_HEADER);
  }
  file->header = b.data;
  file->header_size = b.len;
  return 0;
}

int st_plan_index(st_plan *plan, const st_model *model, st_error *err) {
  json_t *root = json_object();
  json_t *meta =
      model->index_metadata != NULL ? json_deep_copy(model->index_metadata) : json_object();
  json_t *map = json_object();
  unsigned long long total = 0;
  int failed = root == NULL || meta == NULL || map == NULL;
  for (size_t i = 0; i < plan->file_count && !failed; i++) {
    const st_out_file *f = &plan->files[i];
    total += f->data_size;
    for (size_t k = 0; k < f->count && !failed; k++) {
      failed = json_object_set_new(map, f->pieces[k].name, json_string(f->name)) != 0;
    }
  }
  if (!failed) {
    failed = json_object_set_new(meta, "total_size", json_integer((json_int_t)total)) != 0;
  }
  if (!failed) {
    failed = json_object_set(root, "metadata", meta) != 0 ||
             json_object_set(root, "weight_map", map) != 0;
  }
  char *text = failed ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
  json_decref(meta);
  json_decref(map);
  json_decref(root);
  if (text == NULL) {
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory rendering the index");
  }
  size_t n = strlen(text);
  plan->index_text = malloc(n + 2);
  plan->index_name = strdup(model->index_name);
  if (plan->index_text == NULL || plan->index_name == NULL) {
    free(text);
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory rendering the index");
  }
  memcpy(plan->index_text, text, n);
  memcpy(plan->index_text + n, "\n", 2);
  free(text);
  return 0;
}
