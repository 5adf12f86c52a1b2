/* The copies a plan must find equal, compared before anything is written. */
#include "ckpt_compare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "io_source.h"
#include "stream.h"

/* The model's files, opened on first use (`fd` -1 and `http` NULL until then). */
typedef struct inputs {
  const ckpt_model *model;
  io_source *files;
} inputs;

static int is_open(const io_source *s) {
  return s->fd >= 0 || s->http != NULL;
}

/* Reads `size` bytes at `at` of tensor t's data into buf. */
static int read_part(inputs *in, const ckpt_tensor *t, void *buf, size_t size, uint64_t at) {
  io_source *src = &in->files[t->file];
  tool_error err;
  if (!is_open(src) && io_source_open(src, in->model->files[t->file].path, NULL, &err) != 0) {
    tool_scrub(&err);
    return tool_report(&err);
  }
  if (io_source_read(src, buf, size, t->offset + at, CLI_EXIT_IOERR, &err) != 0) {
    return tool_report(&err);
  }
  return 0;
}

/* The message of a copy that differs from its tensor at byte `at` of the tensor. */
static int differs(const ckpt_plan *plan, const ckpt_model *m, const ckpt_check *c, uint64_t at) {
  tool_error err;
  const char *p0 = m->files[c->tensor->file].path, *p1 = m->files[c->copy->file].path;
  if (plan->ranked) {
    tool_fail(&err, CLI_EXIT_DATA,
              "tensor '%.200s' differs between rank %zu ('%.300s') and rank %zu ('%.300s'), "
              "first at byte %llu of its %llu; %s",
              c->tensor->name, c->tensor->file, p0, c->copy->file, p1, (unsigned long long)at,
              (unsigned long long)c->tensor->bytes,
              c->why != NULL ? c->why
                             : "a tensor no --axis rule takes must be the same in every rank");
  } else {
    tool_fail(&err, CLI_EXIT_DATA,
              "tensor '%.200s' of '%.300s' differs from its copy in '%.300s', first at byte "
              "%llu",
              c->tensor->name, p0, p1, (unsigned long long)at);
  }
  tool_scrub(&err);
  return tool_report(&err);
}

static int compare(const ckpt_plan *plan, inputs *in, const ckpt_check *c, unsigned char *a,
                   unsigned char *b, size_t chunk, const ckpt_check **held) {
  uint64_t size = c->tensor->bytes;
  for (uint64_t at = 0; at < size; at += chunk) {
    size_t n = size - at < chunk ? (size_t)(size - at) : chunk;
    /* A tensor of one chunk stays in `a` for the comparisons with its other copies. */
    int rc = *held == NULL || (*held)->tensor != c->tensor || size > chunk
                 ? read_part(in, c->tensor, a, n, at)
                 : 0;
    *held = rc == 0 ? c : NULL;
    if (rc == 0) {
      rc = read_part(in, c->copy, b, n, at);
    }
    if (rc != 0) {
      *held = NULL;
      return rc;
    }
    if (memcmp(a, b, n) != 0) {
      size_t i = 0;
      while (a[i] == b[i]) {
        i++;
      }
      return differs(plan, in->model, c, at + i);
    }
  }
  return 0;
}

int ckpt_compare_copies(const ckpt_plan *plan, const ckpt_model *model) {
  if (plan->check_count == 0) {
    return 0;
  }
  size_t chunk = stream_chunk_bytes();
  unsigned char *a = malloc(chunk), *b = malloc(chunk);
  inputs in = {model, calloc(model->file_count + 1, sizeof(io_source))};
  int rc = a == NULL || b == NULL || in.files == NULL
               ? cli_error(CLI_EXIT_SOFTWARE, "out of memory comparing the ranks")
               : 0;
  for (size_t i = 0; in.files != NULL && i < model->file_count; i++) {
    in.files[i].fd = -1;
  }
  /* The ranks' files stay open once opened (a merge of many ranks). */
  io_raise_open_limit(model->file_count + 64);
  const ckpt_check *held = NULL;
  for (size_t i = 0; i < plan->check_count && rc == 0; i++) {
    rc = compare(plan, &in, &plan->checks[i], a, b, chunk, &held);
  }
  for (size_t i = 0; in.files != NULL && i < model->file_count; i++) {
    io_source_close(&in.files[i]);
  }
  free(in.files);
  free(a);
  free(b);
  return rc;
}
