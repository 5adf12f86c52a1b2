/* The schema of safetensors headers: tensor entries, __metadata__, the header as a whole, on the
 * lexical layer of st_json_lex.c (see st_json.h for why a parser of its own, and what it
 * accepts). */
#include "st_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_dtype.h"
#include "st_json_lex.h"

/* An unknown field of a tensor entry: the reference reader ignores it; so does this one, after
 * checking that its value is JSON, and the first one is named in the report. */
static int skip_unknown_field(stj_parser *p, const char *key, size_t key_at) {
  st_header_notes *n = p->notes;
  if (n->unknown++ == 0) {
    n->unknown_at = key_at;
    snprintf(n->unknown_field, sizeof n->unknown_field, "%s", key);
    snprintf(n->unknown_tensor, sizeof n->unknown_tensor, "%s", p->tensor);
  }
  return stj_skip_value(p, 0);
}

static int parse_tensor(stj_parser *p, ckpt_tensor *t) {
  stj_ws(p);
  if (stj_peek(p) != '{') {
    return stj_fail_at(p, p->i, "the entry is %s, not an object", stj_kind_of(stj_peek(p)));
  }
  p->i++;
  int seen_dtype = 0, seen_shape = 0, seen_offsets = 0;
  stj_ws(p);
  if (stj_peek(p) == '}') {
    p->i++;
    return stj_fail_at(p, t->entry_pos - 8, "the field 'dtype' is missing");
  }
  for (;;) {
    stj_ws(p);
    size_t key_at = p->i;
    char *key = NULL;
    int rc = stj_string(p, &key, "a key");
    if (rc == 0) {
      rc = stj_expect(p, ':', "':'");
    }
    if (rc != 0) {
      free(key);
      return rc;
    }
    int *seen = strcmp(key, "dtype") == 0          ? &seen_dtype
                : strcmp(key, "shape") == 0        ? &seen_shape
                : strcmp(key, "data_offsets") == 0 ? &seen_offsets
                                                   : NULL;
    if (seen == NULL) {
      rc = skip_unknown_field(p, key, key_at);
    } else if (*seen) {
      rc = stj_fail_at(p, key_at, "duplicate field '%s'", key);
    }
    if (rc != 0) {
      free(key);
      return rc;
    }
    if (seen != NULL) {
      *seen = 1;
    }
    if (seen == NULL) {
      /* skipped above */
    } else if (seen == &seen_dtype) {
      char *name = NULL;
      size_t at = (stj_ws(p), p->i);
      rc = stj_string(p, &name, "dtype");
      if (rc == 0) {
        t->dtype = st_dtype_find(name);
        if (t->dtype == NULL) {
          rc = stj_fail_at(p, at, "unknown dtype '%.40s'", name);
        }
      }
      free(name);
    } else if (seen == &seen_shape) {
      int64_t dims[CKPT_MAX_RANK];
      int count = 0;
      rc = stj_int_array(p, dims, CKPT_MAX_RANK, &count, "shape");
      if (rc == 0 && count > 0) {
        t->shape = malloc((size_t)count * sizeof *t->shape);
        if (t->shape == NULL) {
          rc = stj_oom(p);
        } else {
          memcpy(t->shape, dims, (size_t)count * sizeof *dims);
          t->ndim = count;
        }
      }
    } else {
      int64_t offsets[2];
      int count = 0;
      size_t at = (stj_ws(p), p->i);
      rc = stj_int_array(p, offsets, 2, &count, "data_offsets");
      if (rc == 0 && count != 2) {
        rc = stj_fail_at(p, at, "data_offsets holds %d %s, not 2", count,
                         tool_plural((uint64_t)count, "integer", "integers"));
      } else if (rc == 0 && offsets[1] < offsets[0]) {
        rc = stj_fail_at(p, at, "data_offsets [%lld,%lld] ends before it begins",
                         (long long)offsets[0], (long long)offsets[1]);
      } else if (rc == 0) {
        t->offset = (uint64_t)offsets[0];
        t->bytes = (uint64_t)(offsets[1] - offsets[0]);
      }
    }
    free(key);
    if (rc != 0) {
      return rc;
    }
    rc = stj_next_item(p, '}', "a tensor entry");
    if (rc == 0) {
      break;
    }
    if (rc > 1) {
      return rc;
    }
  }
  if (!seen_dtype || !seen_shape || !seen_offsets) {
    return stj_fail_at(p, t->entry_pos - 8, "the field '%s' is missing",
                       !seen_dtype   ? "dtype"
                       : !seen_shape ? "shape"
                                     : "data_offsets");
  }
  return 0;
}

static int meta_cmp(const void *a, const void *b) {
  return strcmp(((const ckpt_meta *)a)->key, ((const ckpt_meta *)b)->key);
}

static int parse_metadata(stj_parser *p, ckpt_file *out) {
  stj_ws(p);
  if (stj_peek(p) != '{') {
    return stj_fail_at(p, p->i, "__metadata__ is %s, not an object", stj_kind_of(stj_peek(p)));
  }
  p->i++;
  out->has_meta = 1;
  size_t cap = 0;
  stj_ws(p);
  if (stj_peek(p) == '}') {
    p->i++;
    return 0;
  }
  for (;;) {
    if (out->meta_count == cap) {
      cap = cap ? cap * 2 : 8;
      ckpt_meta *m = realloc(out->meta, cap * sizeof *m);
      if (m == NULL) {
        return stj_oom(p);
      }
      out->meta = m;
    }
    ckpt_meta *m = &out->meta[out->meta_count];
    m->key = m->value = NULL;
    stj_ws(p);
    size_t key_at = p->i;
    int rc = stj_string(p, &m->key, "a __metadata__ key");
    if (rc == 0) {
      out->meta_count++;
      rc = stj_expect(p, ':', "':'");
    }
    if (rc == 0) {
      char what[300];
      snprintf(what, sizeof what, "__metadata__ '%.200s' (metadata maps strings to strings)",
               m->key);
      rc = stj_string(p, &m->value, what);
    }
    if (rc == 0) {
      m->value_size = strlen(m->value); /* the stj_parser refuses \u0000 */
      m->kind = CKPT_META_TEXT;
    }
    if (rc == 0) {
      for (size_t k = 0; k + 1 < out->meta_count; k++) {
        if (strcmp(out->meta[k].key, m->key) == 0) {
          rc = stj_fail_at(p, key_at, "duplicate __metadata__ key '%.200s'", m->key);
          break;
        }
      }
    }
    if (rc == 0) {
      rc = stj_next_item(p, '}', "__metadata__");
      if (rc == 0) {
        break;
      }
      rc = rc == 1 ? 0 : rc;
    }
    if (rc != 0) {
      return rc;
    }
  }
  qsort(out->meta, out->meta_count, sizeof *out->meta, meta_cmp);
  return 0;
}

static int by_name(const void *a, const void *b) {
  const ckpt_tensor *const *x = a, *const *y = b;
  return strcmp((*x)->name, (*y)->name);
}

/* Duplicate tensor names: sorted pointers, neighbours compared. */
static int check_duplicates(stj_parser *p, ckpt_file *out) {
  if (out->tensor_count < 2) {
    return 0;
  }
  const ckpt_tensor **order = malloc(out->tensor_count * sizeof *order);
  if (order == NULL) {
    return stj_oom(p);
  }
  for (size_t i = 0; i < out->tensor_count; i++) {
    order[i] = &out->tensors[i];
  }
  qsort(order, out->tensor_count, sizeof *order, by_name);
  int rc = 0;
  for (size_t i = 1; i < out->tensor_count; i++) {
    if (strcmp(order[i - 1]->name, order[i]->name) == 0) {
      const ckpt_tensor *later =
          order[i]->entry_pos > order[i - 1]->entry_pos ? order[i] : order[i - 1];
      p->tensor = NULL;
      rc = stj_fail_at(p, later->entry_pos - 8, "duplicate tensor name '%.200s'", later->name);
      break;
    }
  }
  free(order);
  return rc;
}

int st_json_header(const char *path, const char *text, size_t size, ckpt_file *out,
                   st_header_notes *notes, tool_error *err) {
  memset(notes, 0, sizeof *notes);
  stj_parser p = {(const unsigned char *)text, size, 0, path, err, NULL, notes};
  /* The reference reader skips JSON whitespace before the '{'; the canonical form has none. */
  stj_ws(&p);
  if (p.i == size || text[p.i] != '{') {
    return stj_fail_at(&p, p.i, "the header does not start with '{' (is this a safetensors file?)");
  }
  notes->leading = p.i;
  p.i++;
  size_t cap = 0;
  int seen_meta = 0;
  stj_ws(&p);
  int rc = 0;
  if (stj_peek(&p) == '}') {
    p.i++;
  } else {
    for (;;) {
      stj_ws(&p);
      size_t key_at = p.i;
      char *key = NULL;
      p.tensor = NULL;
      rc = stj_string(&p, &key, "a key");
      if (rc == 0) {
        rc = stj_expect(&p, ':', "':'");
      }
      if (rc != 0) {
        free(key);
        break;
      }
      if (strcmp(key, "__metadata__") == 0) {
        free(key);
        rc = seen_meta ? stj_fail_at(&p, key_at, "duplicate key '__metadata__'") : 0;
        seen_meta = 1;
        if (rc == 0) {
          rc = parse_metadata(&p, out);
        }
      } else {
        if (out->tensor_count == cap) {
          cap = cap ? cap * 2 : 64;
          ckpt_tensor *t = realloc(out->tensors, cap * sizeof *t);
          if (t == NULL) {
            free(key);
            rc = stj_oom(&p);
            break;
          }
          out->tensors = t;
        }
        ckpt_tensor *t = &out->tensors[out->tensor_count++];
        memset(t, 0, sizeof *t);
        t->name = key;
        t->entry_pos = 8 + key_at;
        p.tensor = key;
        rc = parse_tensor(&p, t);
        p.tensor = NULL;
      }
      if (rc == 0) {
        rc = stj_next_item(&p, '}', "the header");
        if (rc == 0) {
          break;
        }
        rc = rc == 1 ? 0 : rc;
      }
      if (rc != 0) {
        break;
      }
    }
  }
  if (rc == 0) {
    /* Padding: spaces (the reference writer's); NUL bytes (some writers') and other JSON
     * whitespace are accepted as departures. */
    size_t end = p.i;
    for (; p.i < p.n; p.i++) {
      unsigned char c = p.s[p.i];
      if (c == 0) {
        notes->padding_nul = 1;
      } else if (c == '\t' || c == '\n' || c == '\r') {
        notes->padding_ws = 1;
      } else if (c != ' ') {
        break;
      }
    }
    notes->padding_at = end;
    if (p.i < p.n) {
      rc = stj_fail_at(&p, end,
                       "the header's JSON must end with '}' followed only by padding (spaces; NUL "
                       "bytes and other whitespace are accepted)");
    }
  }
  if (rc == 0) {
    rc = check_duplicates(&p, out);
  }
  return rc;
}

int st_json_report_notes(const char *path, const st_header_notes *notes, st_leniency *lenient,
                         tool_error *err) {
  int rc = 0;
  if (notes->leading > 0) {
    rc = st_depart(lenient, err, "%s: byte 8: %zu %s of whitespace before the header's '{'", path,
                   notes->leading, tool_plural(notes->leading, "byte", "bytes"));
  }
  if (rc == 0 && (notes->padding_nul || notes->padding_ws)) {
    rc = st_depart(lenient, err,
                   "%s: byte %llu: the header is padded with %s after its '}', not with spaces",
                   path, (unsigned long long)(8 + notes->padding_at),
                   notes->padding_nul && notes->padding_ws ? "NUL bytes and whitespace"
                   : notes->padding_nul                    ? "NUL bytes"
                                                           : "tabs or line breaks");
  }
  if (rc == 0 && notes->unknown > 0) {
    char more[96] = "";
    if (notes->unknown > 1) {
      snprintf(more, sizeof more, "; %zu unknown %s in this header in all", notes->unknown,
               tool_plural(notes->unknown, "field", "fields"));
    }
    rc = st_depart(lenient, err,
                   "%s: byte %llu: tensor '%.160s': unknown field '%.64s' ignored (the fields are "
                   "dtype, shape and data_offsets%s)",
                   path, (unsigned long long)(8 + notes->unknown_at), notes->unknown_tensor,
                   notes->unknown_field, more);
  }
  return rc;
}
