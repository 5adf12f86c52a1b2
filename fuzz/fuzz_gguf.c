/* Fuzz target: the GGUF reader of `cleave gguf` (tools/gguf: gguf_source.c, gguf_read_meta.c,
 * gguf_read.c), the split keys of a set's file (gguf_model.c) and the writer's layout
 * (gguf_write.c), through the checkpoint layer's model and plan.
 *
 * The input is a whole file, read from a memory file descriptor. A failure must be
 * CLI_EXIT_DATA (or CLI_EXIT_SOFTWARE for an allocation failure) with a message naming the file;
 * an accepted file's tensors must lie inside it, in order; its split keys are read (or refused
 * naming the file) and set aside as a set's are; and the file the writer lays out from its
 * metadata and tensors must read back to the same tensors and metadata. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ckpt_plan.h"
#include "gguf_model.h"
#include "gguf_read.h"
#include "gguf_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PATH "fuzz.gguf"

static int write_all(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n > 0) {
    ssize_t k = write(fd, b, n);
    if (k <= 0) {
      return -1;
    }
    b += k;
    n -= (size_t)k;
  }
  return 0;
}

/* The layout of `f`'s tensors and metadata, written out with zeroed data, reads back the same. */
static void round_trip(ckpt_file *f, gguf_info *info) {
  gguf_model m;
  memset(&m, 0, sizeof m);
  m.ckpt.files = f;
  m.ckpt.file_count = 1;
  m.info = info;
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  tool_error err;
  if (ckpt_plan_files(&plan, 1, &err) != 0) {
    return;
  }
  ckpt_out_file *out = &plan.files[0];
  out->name = strdup("out.gguf");
  out->meta = f->meta;
  out->meta_count = f->meta_count;
  out->has_meta = 1;
  for (size_t i = 0; i < f->tensor_count && out->name != NULL; i++) {
    ckpt_out_tensor t = ckpt_out_whole(&f->tensors[i]);
    ckpt_span span = ckpt_span_whole(&f->tensors[i]);
    if (ckpt_out_file_add(out, &t, &span, 1) != 0) {
      ckpt_plan_free(&plan);
      return; /* out of memory */
    }
  }
  int rc = out->name == NULL ? CLI_EXIT_SOFTWARE : gguf_layout(&m, out, &err);
  if (rc == CLI_EXIT_SOFTWARE ||
      (rc != 0 && strstr(err.message, "padded to the alignment") == NULL)) {
    abort(); /* a valid input has a valid layout, unless its alignment makes the header huge */
  }
  int fd = rc == 0 ? memfd_create("out", 0) : -1;
  if (fd >= 0) {
    uint64_t total = ckpt_out_file_size(out);
    if (write_all(fd, out->prefix, (size_t)out->prefix_size) != 0 ||
        ftruncate(fd, (off_t)total) != 0) {
      abort();
    }
    ckpt_file back;
    gguf_info back_info;
    if (gguf_read_fd(fd, "out.gguf", total, &back, &back_info, &err) != 0 ||
        back.tensor_count != f->tensor_count || back.meta_count != f->meta_count) {
      abort();
    }
    for (size_t i = 0; i < back.tensor_count; i++) {
      const ckpt_tensor *t = &back.tensors[i];
      const ckpt_out_tensor *o = &out->tensors[i];
      if (strcmp(t->name, o->name) != 0 || t->dtype != o->dtype || t->ndim != o->ndim ||
          t->bytes != o->bytes ||
          (t->ndim > 0 && memcmp(t->shape, o->shape, (size_t)t->ndim * sizeof *t->shape) != 0)) {
        abort();
      }
    }
    for (size_t i = 0; i < back.meta_count; i++) {
      const ckpt_meta *a = &back.meta[i], *b = &f->meta[i];
      if (strcmp(a->key, b->key) != 0 || a->kind != b->kind || a->value_size != b->value_size ||
          memcmp(a->value, b->value, a->value_size) != 0 || back_info.order[i] != info->order[i]) {
        abort();
      }
    }
    ckpt_file_free(&back);
    gguf_info_free(&back_info);
    close(fd);
  }
  ckpt_plan_free(&plan);
}

/* The split keys of an accepted file: all three or none, of their types, or an error naming the
 * file; when there, set aside (the metadata's order kept for the round trip). */
static void split_keys(ckpt_file *f, gguf_info *info) {
  gguf_split s;
  tool_error err;
  int rc = gguf_split_keys(f, info, &s, &err);
  if (rc != 0 && (rc != CLI_EXIT_DATA || strstr(err.message, PATH) == NULL)) {
    abort();
  }
  if (rc == 0 && s.keyed) {
    size_t before = f->meta_count;
    gguf_strip_split_keys(f, info);
    if (f->meta_count != before - 3 ||
        gguf_meta_lookup(f->meta, f->meta_count, GGUF_SPLIT_COUNT) != NULL) {
      abort();
    }
    for (size_t k = 0; k < f->meta_count; k++) {
      if (info->order[k] >= f->meta_count || info->pos[info->order[k]] != k) {
        abort();
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("in", 0);
  if (fd < 0 || write_all(fd, data, size) != 0) {
    abort();
  }
  ckpt_file f;
  gguf_info info;
  tool_error err;
  int rc = gguf_read_fd(fd, PATH, size, &f, &info, &err);
  if (rc != 0) {
    if ((rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) || strstr(err.message, PATH) == NULL) {
      abort();
    }
  } else {
    uint64_t end = f.data_start;
    for (size_t i = 0; i < f.tensor_count; i++) {
      const ckpt_tensor *t = &f.tensors[i];
      if (t->offset < end || t->offset > size || t->bytes > size - t->offset) {
        abort();
      }
      end = t->offset + t->bytes;
    }
    f.path = strdup(PATH);
    if (f.path == NULL) {
      abort();
    }
    split_keys(&f, &info);
    round_trip(&f, &info);
  }
  ckpt_file_free(&f);
  gguf_info_free(&info);
  close(fd);
  return 0;
}
