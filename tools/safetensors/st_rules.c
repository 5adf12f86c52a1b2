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

/* "FILE: tensor 'NAME' (DTYPE [SHAPE], viewed as [VIEW]): " before every message of a cut. */
static void cut_prefix(const char *file, const st_tensor *t, const int64_t *view, int view_ndim,
                       char *buf, size_t size) {
  char shape[256], viewed[300] = "";
  st_shape_text(t->shape, t->ndim, shape, sizeof shape);
  if (view != NULL) {
    char text[256];
    st_shape_text(view, view_ndim, text, sizeof text);
    snprintf(viewed, sizeof viewed, ", viewed as %s", text);
  }
  snprintf(buf, size, "%s: tensor '%.200s' (%s %s%s)", file, t->name, t->dtype->name, shape,
           viewed);
}

static int cut_fail(st_error *err, const char *prefix, const char *what, long long a, long long b) {
  char text[400];
  snprintf(text, sizeof text, what, a, b);
  return st_fail(err, CLI_EXIT_DATA, "%s: %s", prefix, text);
}

/* The view's shape, its -1 resolved (a reshape: the element count must not change). */
static int resolve_view(const st_cut *cut, const st_tensor *t, const char *prefix, int64_t *shape,
                        st_error *err) {
  uint64_t elements = 1;
  for (int d = 0; d < t->ndim; d++) {
    elements *= (uint64_t)t->shape[d]; /* the reader checked this cannot overflow */
  }
  uint64_t known = 1;
  int unknown = -1;
  for (int d = 0; d < cut->view_ndim; d++) {
    if (cut->view[d] < 0) {
      unknown = d;
    } else if (__builtin_mul_overflow(known, (uint64_t)cut->view[d], &known)) {
      return cut_fail(err, prefix, "the view's size overflows%.0lld%.0lld", 0, 0);
    }
    shape[d] = cut->view[d];
  }
  if (unknown >= 0) {
    if (known == 0 || elements % known != 0) {
      return cut_fail(err, prefix, "%lld elements cannot be viewed with a -1 beside %lld",
                      (long long)elements, (long long)known);
    }
    shape[unknown] = (int64_t)(elements / known);
  } else if (known != elements) {
    return cut_fail(err, prefix, "the view holds %lld elements, the tensor %lld", (long long)known,
                    (long long)elements);
  }
  return 0;
}

/* The split rule itself is the library's: OpenVINO Split-1 for -n, VariadicSplit-1 for -l
 * (its -1 resolved there), on the tensor's (or view's) shape, through cleave_infer. Returns the
 * per-part lengths (malloc'd, `*count` entries) and the normalised axis. */
static int library_rule(const st_cut *cut, const st_tensor *t, const int64_t *shape, int ndim,
                        const char *prefix, int64_t **len, size_t *count, size_t *axis,
                        st_error *err) {
  cleave_op op = cut->has_parts ? cleave_op_split(&cut->axis, cut->parts)
                                : cleave_op_variadic_split(&cut->axis, cut->lengths,
                                                           (size_t)cut->length_count);
  cleave_type type = cleave_type_of(t->dtype->lib);
  cleave_split_info info;
  cleave_error e;
  /* First every rule (nothing allocated for a count the rule refuses), then the lengths. */
  cleave_status st = cleave_infer(&op, type, shape, (size_t)ndim, &info, NULL, 0, &e);
  if (st == CLEAVE_OK) {
    *len = calloc(info.num_outputs + 1, sizeof **len);
    if (*len == NULL) {
      return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
    st = cleave_infer(&op, type, shape, (size_t)ndim, &info, *len, info.num_outputs, &e);
  }
  if (st != CLEAVE_OK) {
    free(*len);
    *len = NULL;
    return st_fail(err, cli_exit_for_status(st), "%s: %s", prefix, e.message);
  }
  *count = info.num_outputs;
  *axis = info.axis;
  return 0;
}

int st_cut_tensor(const st_cut *cut, const st_tensor *t, const char *file, st_part **parts,
                  size_t *count, st_error *err) {
  *parts = NULL;
  *count = 0;
  int64_t shape[ST_MAX_RANK];
  int ndim = cut->has_view ? cut->view_ndim : t->ndim;
  char prefix[700];
  cut_prefix(file, t, NULL, 0, prefix, sizeof prefix);
  if (cut->has_view) {
    int rc = resolve_view(cut, t, prefix, shape, err);
    if (rc != 0) {
      return rc;
    }
    cut_prefix(file, t, shape, ndim, prefix, sizeof prefix);
  } else if (t->ndim > 0) {
    memcpy(shape, t->shape, (size_t)t->ndim * sizeof *shape);
  }
  int64_t *len = NULL;
  size_t n = 0, axis = 0;
  int rc = library_rule(cut, t, shape, ndim, prefix, &len, &n, &axis, err);
  if (rc != 0) {
    return rc;
  }
  *parts = calloc(n + 1, sizeof **parts);
  if (*parts == NULL) {
    free(len);
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  uint64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) {
    outer *= (uint64_t)shape[d];
  }
  for (size_t d = axis + 1; d < (size_t)ndim; d++) {
    inner *= (uint64_t)shape[d];
  }
  /* safetensors' own rule: every part is whole bytes, so sub-byte parts must start and end on
   * byte boundaries in every row. */
  uint64_t bits = t->dtype->bits;
  uint64_t dim = (uint64_t)shape[axis];
  uint64_t row_bits = dim * inner * bits;
  if (rc == 0 && row_bits % 8 != 0 && outer > 1) {
    rc = cut_fail(err, prefix,
                  "a row along axis %lld holds %lld bits: the parts would not start on byte "
                  "boundaries",
                  (long long)axis, (long long)row_bits);
  }
  uint64_t at = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    st_part *p = &(*parts)[i];
    if ((at * inner * bits) % 8 != 0) {
      rc = cut_fail(err, prefix,
                    "part %lld starts at element %lld of the axis, which is not on a byte "
                    "boundary",
                    (long long)i, (long long)at);
      break;
    }
    if (((uint64_t)len[i] * inner * bits) % 8 != 0) {
      rc = cut_fail(err, prefix, "part %lld holds %lld bits: it does not end on a byte boundary",
                    (long long)i, (long long)((uint64_t)len[i] * inner * bits));
      break;
    }
    p->rows = outer;
    p->row_bytes = row_bits / 8;
    p->col = at * inner * bits / 8;
    p->take = (uint64_t)len[i] * inner * bits / 8;
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
