/* Globs with captures, and cutting one tensor into parts. */
#include "st_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static int match_from(const char *g, const char *s, st_match *m, int depth) {
  while (*g != '\0') {
    if (*g == '*') {
      if (depth >= ST_MAX_CAPTURES) {
        return 0;
      }
      for (size_t take = 0;; take++) {
        if (m != NULL) {
          m->start[depth] = s;
          m->len[depth] = take;
        }
        if (match_from(g + 1, s + take, m, depth + 1)) {
          return 1;
        }
        if (s[take] == '\0') {
          return 0;
        }
      }
    }
    if (*s == '\0' || (*g != '?' && *g != *s)) {
      return 0;
    }
    g++;
    s++;
  }
  if (*s != '\0') {
    return 0;
  }
  if (m != NULL) {
    m->count = depth;
  }
  return 1;
}

int st_glob_match(const char *glob, const char *name, st_match *m) {
  if (st_glob_stars(glob) > ST_MAX_CAPTURES) {
    return 0;
  }
  return match_from(glob, name, m, 0);
}

int st_glob_stars(const char *text) {
  int n = 0;
  for (; *text != '\0'; text++) {
    n += *text == '*';
  }
  return n;
}

char *st_glob_fill(const char *pattern, const st_match *m) {
  size_t n = strlen(pattern) + 1;
  for (int i = 0; i < m->count; i++) {
    n += m->len[i];
  }
  char *out = malloc(n);
  if (out == NULL) {
    return NULL;
  }
  size_t pos = 0;
  int k = 0;
  for (const char *p = pattern; *p != '\0'; p++) {
    if (*p == '*' && k < m->count) {
      memcpy(out + pos, m->start[k], m->len[k]);
      pos += m->len[k];
      k++;
    } else {
      out[pos++] = *p;
    }
  }
  out[pos] = '\0';
  return out;
}

int st_parse_view(const char *text, st_cut *cut) {
  cut->view_ndim = 0;
  const char *p = text;
  int unknown = 0;
  if (*p == '[') {
    p++;
  }
  while (*p != '\0' && *p != ']') {
    char *end = NULL;
    long long v = strtoll(p, &end, 10);
    if (end == p || cut->view_ndim >= ST_MAX_RANK || v < -1 || (v == -1 && unknown++)) {
      return -1;
    }
    cut->view[cut->view_ndim++] = v;
    p = end;
    if (*p == ',') {
      p++;
      if (*p == '\0' || *p == ']') {
        return -1;
      }
    } else if (*p != '\0' && *p != ']') {
      return -1;
    }
  }
  if (*p == ']' && (text[0] != '[' || p[1] != '\0')) {
    return -1;
  }
  if (*p == '\0' && text[0] == '[') {
    return -1;
  }
  cut->has_view = cut->view_ndim > 0;
  return cut->has_view ? 0 : -1;
}

static int cut_fail(st_error *err, const st_tensor *t, const char *what, long long a, long long b) {
  char shape[256];
  st_shape_text(t->shape, t->ndim, shape, sizeof shape);
  char text[400];
  snprintf(text, sizeof text, what, a, b);
  return st_fail(err, CLI_EXIT_DATA, "tensor '%.200s' (%s %s): %s", t->name, t->dtype->name, shape,
                 text);
}

int st_cut_tensor(const st_cut *cut, const st_tensor *t, st_part **parts, size_t *count,
                  st_error *err) {
  *parts = NULL;
  *count = 0;
  int64_t shape[ST_MAX_RANK];
  int ndim = t->ndim;
  uint64_t elements = 1;
  for (int d = 0; d < t->ndim; d++) {
    shape[d] = t->shape[d];
    elements *= (uint64_t)t->shape[d]; /* the reader checked this cannot overflow */
  }
  if (cut->has_view) {
    ndim = cut->view_ndim;
    uint64_t known = 1;
    int unknown = -1;
    for (int d = 0; d < ndim; d++) {
      if (cut->view[d] < 0) {
        unknown = d;
      } else if (__builtin_mul_overflow(known, (uint64_t)cut->view[d], &known)) {
        return cut_fail(err, t, "the view's size overflows%.0lld%.0lld", 0, 0);
      }
      shape[d] = cut->view[d];
    }
    if (unknown >= 0) {
      if (known == 0 || elements % known != 0) {
        return cut_fail(err, t, "%lld elements cannot be viewed with a -1 beside %lld",
                        (long long)elements, (long long)known);
      }
      shape[unknown] = (int64_t)(elements / known);
    } else if (known != elements) {
      return cut_fail(err, t, "the view holds %lld elements, the tensor %lld", (long long)known,
                      (long long)elements);
    }
  }
  int64_t axis = cut->axis;
  if (axis < -(int64_t)ndim || axis >= ndim) {
    return cut_fail(err, t, "axis %lld is out of range for rank %lld", (long long)axis, ndim);
  }
  if (axis < 0) {
    axis += ndim;
  }
  int64_t dim = shape[axis];
  size_t n = cut->parts > 0 ? (size_t)cut->parts : (size_t)cut->length_count;
  int64_t *len = calloc(n + 1, sizeof *len);
  *parts = calloc(n + 1, sizeof **parts);
  if (len == NULL || *parts == NULL) {
    free(len);
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = 0;
  if (cut->parts > 0) {
    if (dim % cut->parts != 0) {
      rc = cut_fail(err, t, "axis dimension %lld does not divide into %lld equal parts",
                    (long long)dim, (long long)cut->parts);
    }
    for (size_t i = 0; i < n; i++) {
      len[i] = dim / cut->parts;
    }
  } else {
    int64_t sum = 0;
    int unknown = -1;
    for (size_t i = 0; i < n; i++) {
      len[i] = cut->lengths[i];
      if (len[i] == -1) {
        unknown = (int)i;
      } else {
        sum += len[i];
      }
    }
    if (unknown >= 0 && sum <= dim) {
      len[unknown] = dim - sum;
      sum = dim;
    }
    if (sum != dim) {
      rc = cut_fail(err, t, "the lengths add up to %lld, not to the axis dimension %lld",
                    (long long)sum, (long long)dim);
    }
  }
  uint64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; d++) {
    outer *= (uint64_t)shape[d];
  }
  for (int64_t d = axis + 1; d < ndim; d++) {
    inner *= (uint64_t)shape[d];
  }
  uint64_t bits = t->dtype->bits;
  uint64_t row_bits = (uint64_t)dim * inner * bits;
  if (rc == 0 && row_bits % 8 != 0 && outer > 1) {
    rc = cut_fail(err, t,
                  "a row along axis %lld holds %lld bits: the parts would not start on byte "
                  "boundaries",
                  (long long)axis, (long long)row_bits);
  }
  uint64_t at = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    st_part *p = &(*parts)[i];
    if ((at * inner * bits) % 8 != 0) {
      rc = cut_fail(err, t,
                    "part %lld starts at element %lld of the axis, which is not on a byte "
                    "boundary",
                    (long long)i, (long long)at);
      break;
    }
    p->rows = outer;
    p->row_bytes = row_bits / 8;
    p->col = at * inner * bits / 8;
    p->take = (uint64_t)len[i] * inner * bits / 8;
    if (((uint64_t)len[i] * inner * bits) % 8 != 0) {
      rc = cut_fail(err, t, "part %lld holds %lld bits: it does not end on a byte boundary",
                    (long long)i, (long long)((uint64_t)len[i] * inner * bits));
      break;
    }
    /* The part's shape: the view's with the axis cut; after a view, folded back to the
     * tensor's trailing dimensions when they divide the part. */
    p->ndim = ndim;
    memcpy(p->shape, shape, (size_t)ndim * sizeof *shape);
    p->shape[axis] = len[i];
    if (cut->has_view && t->ndim >= 1) {
      uint64_t part_elems = outer * (uint64_t)len[i] * inner, trailing = 1;
      for (int d = 1; d < t->ndim; d++) {
        trailing *= (uint64_t)t->shape[d];
      }
      if (trailing != 0 && part_elems % trailing == 0) {
        p->ndim = t->ndim;
        memcpy(p->shape, t->shape, (size_t)t->ndim * sizeof *t->shape);
        p->shape[0] = (int64_t)(part_elems / trailing);
      }
    }
    at += (uint64_t)len[i];
  }
  free(len);
  if (rc != 0) {
    free(*parts);
    *parts = NULL;
    return rc;
  }
  *count = n;
  return 0;
}
