/* The differences of verify, printed in text or JSON. */
#include "ckpt_verify_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_report.h"
#include "cli_util.h"
#include "json_out.h"

void ckpt_diff_add(ckpt_differences *d, const char *file, const char *tensor, int64_t file_offset,
                   int64_t tensor_offset, const char *format, ...) {
  if (d->oom) {
    return;
  }
  if (d->count == d->cap) {
    size_t cap = d->cap == 0 ? 16 : 2 * d->cap;
    ckpt_difference *items = realloc(d->items, cap * sizeof *items);
    if (items == NULL) {
      d->oom = 1;
      return;
    }
    d->items = items;
    d->cap = cap;
  }
  ckpt_difference *x = &d->items[d->count];
  char problem[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(problem, sizeof problem, format, ap);
  va_end(ap);
  x->file = strdup(file);
  x->tensor = tensor != NULL ? strdup(tensor) : NULL;
  x->problem = strdup(problem);
  x->file_offset = file_offset;
  x->tensor_offset = tensor_offset;
  d->count++;
  if (x->file == NULL || x->problem == NULL || (tensor != NULL && x->tensor == NULL)) {
    d->oom = 1;
  }
}

static void print_text(const ckpt_difference *x) {
  ckpt_print_text(x->file);
  fputs(": ", stdout);
  if (x->tensor != NULL) {
    fputs("tensor '", stdout);
    ckpt_print_text(x->tensor);
    fputs("': ", stdout);
  }
  ckpt_print_text(x->problem);
  if (x->file_offset >= 0 && x->tensor_offset >= 0) {
    printf(" (byte %lld of the file, byte %lld of the tensor)", (long long)x->file_offset,
           (long long)x->tensor_offset);
  } else if (x->file_offset >= 0) {
    printf(" (byte %lld of the file)", (long long)x->file_offset);
  }
  putchar('\n');
}

int ckpt_diff_print(const ckpt_differences *d, const ckpt_verify_totals *t, int json, int quiet) {
  if (json) {
    json_out j;
    json_out_begin(&j, stdout);
    json_out_object(&j, NULL);
    json_out_string(&j, "command", t->cmd);
    json_out_string(&j, "outdir", t->outdir);
    json_out_bool(&j, "ok", d->count == 0);
    json_out_uint(&j, "files", t->files);
    json_out_uint(&j, "tensors", t->tensors);
    json_out_uint(&j, "bytes", t->bytes);
    json_out_uint(&j, "against", t->against);
    json_out_array(&j, "differences");
    for (size_t i = 0; i < d->count; i++) {
      const ckpt_difference *x = &d->items[i];
      json_out_object(&j, NULL);
      json_out_string(&j, "file", x->file);
      if (x->tensor != NULL) {
        json_out_string(&j, "tensor", x->tensor);
      }
      if (x->file_offset >= 0) {
        json_out_int(&j, "file_offset", x->file_offset);
      }
      if (x->tensor_offset >= 0) {
        json_out_int(&j, "tensor_offset", x->tensor_offset);
      }
      json_out_string(&j, "problem", x->problem);
      json_out_end_object(&j);
    }
    json_out_end_array(&j);
    json_out_end_object(&j);
    int rc = json_out_finish(&j);
    return rc != 0 ? rc : d->count > 0;
  }
  for (size_t i = 0; i < d->count; i++) {
    print_text(&d->items[i]);
  }
  if (!quiet) {
    fputs(t->outdir, stdout);
    printf(": %zu %s, %zu %s, %llu %s", t->files, tool_plural(t->files, "file", "files"),
           t->tensors, tool_plural(t->tensors, "tensor", "tensors"), (unsigned long long)t->bytes,
           tool_plural(t->bytes, "byte", "bytes"));
    if (d->count == 0) {
      printf(": as the manifest says%s\n",
             t->against > 0 ? ", and equal to the inputs they were copied from" : "");
    } else {
      printf(": %zu %s\n", d->count, tool_plural(d->count, "difference", "differences"));
    }
  }
  return ckpt_finish_stdout(d->count > 0);
}

void ckpt_diff_append(ckpt_differences *d, ckpt_differences *from) {
  d->oom |= from->oom;
  if (from->count > 0 && !d->oom && d->count + from->count > d->cap) {
    size_t cap = d->count + from->count;
    ckpt_difference *items = realloc(d->items, cap * sizeof *items);
    if (items == NULL) {
      d->oom = 1;
    } else {
      d->items = items;
      d->cap = cap;
    }
  }
  if (!d->oom && from->count > 0) {
    memcpy(d->items + d->count, from->items, from->count * sizeof *from->items);
    d->count += from->count;
    from->count = 0;
  }
  ckpt_diff_free(from);
}

void ckpt_diff_free(ckpt_differences *d) {
  for (size_t i = 0; i < d->count; i++) {
    free(d->items[i].file);
    free(d->items[i].tensor);
    free(d->items[i].problem);
  }
  free(d->items);
  memset(d, 0, sizeof *d);
}
