/* Outputs in files of a bounded size, named as Hugging Face's writer names them. */
#include "ckpt_by_size.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the run of digits (or of non-digits) that starts `s`. */
static size_t run_length(const char *s, int digits) {
  size_t n = 0;
  while (s[n] != '\0' && (isdigit((unsigned char)s[n]) != 0) == digits) {
    n++;
  }
  return n;
}

/* Two runs of digits as numbers: leading zeros skipped, then the longer is larger, then the
 * digits. */
static int number_cmp(const char *a, size_t na, const char *b, size_t nb) {
  while (na > 0 && *a == '0') {
    a++;
    na--;
  }
  while (nb > 0 && *b == '0') {
    b++;
    nb--;
  }
  if (na != nb) {
    return na < nb ? -1 : 1;
  }
  return memcmp(a, b, na);
}

int ckpt_natural_cmp(const char *a, const char *b) {
  const char *x = a, *y = b;
  for (int digits = 0;; digits = !digits) {
    size_t nx = run_length(x, digits), ny = run_length(y, digits);
    int c;
    if (digits) {
      c = number_cmp(x, nx, y, ny);
    } else {
      c = memcmp(x, y, nx < ny ? nx : ny);
      c = c != 0 ? c : nx < ny ? -1 : nx > ny;
    }
    if (c != 0) {
      return c;
    }
    x += nx;
    y += ny;
    /* Both names are runs of non-digits and digits in turn, starting with non-digits (possibly
     * none): after equal runs, the one that has no next run is smaller. */
    if (*x == '\0' || *y == '\0') {
      if (*x != *y) {
        return *x == '\0' ? -1 : 1;
      }
      /* A name that ends in digits has one more (empty) run of non-digits than it shows: equal
       * so far means equal runs to the end. */
      return strcmp(a, b);
    }
  }
}

/* Tensor indices of a file in natural order of their names. */
typedef struct name_ref {
  const char *name;
  size_t index;
} name_ref;

static int natural_order(const void *a, const void *b) {
  return ckpt_natural_cmp(((const name_ref *)a)->name, ((const name_ref *)b)->name);
}

/* Gives the pending tensors (those of the file being filled) the next file number. */
static void close_file(size_t *file_of, const size_t *pending, size_t *count, size_t *files) {
  for (size_t i = 0; i < *count; i++) {
    file_of[pending[i]] = *files;
  }
  if (*count > 0) {
    (*files)++;
  }
  *count = 0;
}

/* Names the files: one without numbers, or numbered, with the index. */
static int name_files(ckpt_plan *plan, const char *base, const char *suffix,
                      const char *index_suffix, tool_error *err) {
  size_t n = plan->file_count;
  for (size_t i = 0; i < n; i++) {
    char name[4096];
    if (n == 1) {
      snprintf(name, sizeof name, "%s%s", base, suffix);
    } else {
      snprintf(name, sizeof name, "%s-%05zu-of-%05zu%s", base, i + 1, n, suffix);
    }
    plan->files[i].name = strdup(name);
    if (plan->files[i].name == NULL) {
      return tool_oom(err, "naming the outputs");
    }
  }
  if (n > 1 && index_suffix != NULL) {
    char name[4096];
    snprintf(name, sizeof name, "%s%s%s", base, suffix, index_suffix);
    plan->index_name = strdup(name);
    if (plan->index_name == NULL) {
      return tool_oom(err, "naming the index");
    }
  }
  return 0;
}

int ckpt_plan_by_size(ckpt_plan *plan, ckpt_out_file *all, uint64_t max_size, const char *base,
                      const char *suffix, const char *index_suffix, tool_error *err) {
  size_t n = all->tensor_count;
  name_ref *order = calloc(n + 1, sizeof *order);
  size_t *file_of = calloc(n + 1, sizeof *file_of);
  size_t *pending = calloc(n + 1, sizeof *pending);
  int rc = order == NULL || file_of == NULL || pending == NULL
               ? tool_oom(err, "laying out the outputs")
               : 0;
  size_t files = 0, count = 0;
  if (rc == 0) {
    for (size_t i = 0; i < n; i++) {
      order[i] = (name_ref){all->tensors[i].name, i};
    }
    qsort(order, n, sizeof *order, natural_order);
    uint64_t filled = 0;
    for (size_t k = 0; k < n; k++) {
      size_t i = order[k].index;
      uint64_t bytes = all->tensors[i].bytes;
      if (max_size != 0 && bytes > max_size) {
        file_of[i] = files++;
        continue;
      }
      if (max_size != 0 && filled + bytes > max_size) {
        close_file(file_of, pending, &count, &files);
        filled = 0;
      }
      pending[count++] = i;
      filled += bytes;
    }
    close_file(file_of, pending, &count, &files);
    rc = ckpt_plan_files(plan, files > 0 ? files : 1, err);
  }
  if (rc == 0) {
    rc = name_files(plan, base, suffix, index_suffix, err);
  }
  for (size_t k = 0; k < n && rc == 0; k++) {
    const ckpt_out_tensor *t = &all->tensors[order[k].index];
    if (ckpt_out_file_add(&plan->files[file_of[order[k].index]], t, ckpt_out_spans(all, t),
                          t->span_count) != 0) {
      rc = tool_oom(err, "laying out the outputs");
    }
  }
  free(order);
  free(file_of);
  free(pending);
  ckpt_out_file_free(all);
  return rc;
}
