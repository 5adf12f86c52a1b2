/* The outputs' checksums: in flight as the writer writes, or read back. */
#include "ckpt_sums.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"

ckpt_file_sums *ckpt_sums_new(const ckpt_plan *plan) {
  ckpt_file_sums *sums = calloc(plan->file_count + 1, sizeof *sums);
  for (size_t i = 0; sums != NULL && i < plan->file_count; i++) {
    size_t n = plan->files[i].tensor_count;
    sums[i].tensors = calloc(n > 0 ? n : 1, sizeof *sums[i].tensors);
    if (sums[i].tensors == NULL) {
      ckpt_sums_free(plan, sums);
      sums = NULL;
    }
  }
  if (sums == NULL) {
    cli_error(CLI_EXIT_SOFTWARE, "out of memory checksumming the outputs");
  }
  return sums;
}

void ckpt_sums_free(const ckpt_plan *plan, ckpt_file_sums *sums) {
  for (size_t i = 0; sums != NULL && i < plan->file_count; i++) {
    free(sums[i].tensors);
  }
  free(sums);
}

static int by_offset(const void *a, const void *b) {
  const ckpt_hash_range *x = a, *y = b;
  if (x->offset != y->offset) {
    return x->offset < y->offset ? -1 : 1;
  }
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The ranges of f's tensors in the file, in order of offset (an empty tensor may share its
 * offset with the next). */
static ckpt_hash_range *tensor_ranges(const ckpt_out_file *f) {
  size_t n = f->tensor_count;
  ckpt_hash_range *ranges = calloc(n > 0 ? n : 1, sizeof *ranges);
  if (ranges == NULL) {
    cli_error(CLI_EXIT_SOFTWARE, "out of memory checksumming the outputs");
    return NULL;
  }
  for (size_t k = 0; k < n; k++) {
    ranges[k].offset = f->prefix_size + f->tensors[k].begin;
    ranges[k].bytes = f->tensors[k].bytes;
    ranges[k].id = k;
  }
  qsort(ranges, n, sizeof *ranges, by_offset);
  return ranges;
}

static void take_sums(const ckpt_hash_range *ranges, size_t n, uint64_t whole,
                      ckpt_file_sums *sums) {
  for (size_t k = 0; k < n; k++) {
    sums->tensors[ranges[k].id] = ranges[k].hash;
  }
  sums->whole = whole;
  sums->known = 1;
}

int ckpt_flight_start(ckpt_flight *fl, const ckpt_out_file *f) {
  memset(fl, 0, sizeof *fl);
  fl->ranges = tensor_ranges(f);
  if (fl->ranges == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  tool_error err;
  int rc =
      ckpt_hash_stream_init(&fl->stream, fl->ranges, f->tensor_count, ckpt_out_file_size(f), &err);
  if (rc != 0) {
    ckpt_flight_free(fl);
    return tool_report(&err);
  }
  return 0;
}

void ckpt_flight_feed(ckpt_flight *fl, const void *data, size_t size, uint64_t at) {
  ckpt_hash_stream_feed(&fl->stream, data, size, at);
}

void ckpt_flight_end(ckpt_flight *fl, const ckpt_out_file *f, ckpt_file_sums *sums) {
  uint64_t whole;
  if (ckpt_hash_stream_end(&fl->stream, ckpt_out_file_size(f), &whole) == 0) {
    take_sums(fl->ranges, f->tensor_count, whole, sums);
  }
}

void ckpt_flight_free(ckpt_flight *fl) {
  ckpt_hash_stream_free(&fl->stream);
  free(fl->ranges);
  memset(fl, 0, sizeof *fl);
}

int ckpt_sums_read_back(const ckpt_out_file *f, const out_set *out, size_t i,
                        ckpt_file_sums *sums) {
  ckpt_hash_range *ranges = tensor_ranges(f);
  if (ranges == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  int fd;
  int rc = out_set_open_read(out, i, &fd);
  if (rc == 0) {
    char path[OUT_PATH_BUF];
    tool_error err;
    uint64_t whole;
    rc = ckpt_hash_file(fd, out_set_final(out, i, path, sizeof path), ckpt_out_file_size(f), ranges,
                        f->tensor_count, 1, &whole, &err);
    if (rc != 0) {
      tool_report(&err);
    } else {
      take_sums(ranges, f->tensor_count, whole, sums);
    }
    close(fd);
  }
  free(ranges);
  return rc;
}
