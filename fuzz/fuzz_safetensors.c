/* Fuzz target: the safetensors header reader of `cleave st` (tools/safetensors/st_json.c,
 * st_header.c) and the canonical writer's layout (st_layout.c).
 *
 * The input is a whole file: an 8-byte size N, the header, the data section. When N does not fit
 * in the input, the rest of the input is parsed as a header with an empty data section. A
 * failure must be CLI_EXIT_DATA (or CLI_EXIT_SOFTWARE for an allocation failure) with a message
 * naming the file; an accepted header must tile its data section exactly, and the canonical
 * header the writer makes of its tensors must read back to the same tensors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "st_header.h"
#include "st_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PATH "fuzz.safetensors"

static void round_trip(const st_file *f) {
  st_out_file out;
  memset(&out, 0, sizeof out);
  out.name = (char *)"out.safetensors";
  out.meta = f->meta;
  out.meta_count = f->meta_count;
  out.has_meta = f->has_meta;
  for (size_t i = 0; i < f->count; i++) {
    const st_tensor *t = &f->tensors[i];
    st_piece p;
    memset(&p, 0, sizeof p);
    p.name = t->name;
    p.dtype = t->dtype;
    p.ndim = t->ndim;
    p.shape = t->shape;
    p.rows = 1;
    p.row_bytes = p.take = st_tensor_bytes(t);
    if (st_out_file_add(&out, &p) != 0) {
      abort();
    }
  }
  st_error err;
  if (st_layout(&out, &err) != 0) {
    abort(); /* a valid input always has a valid canonical layout */
  }
  st_file back;
  if (out.header_size % 8 != 0 ||
      st_header_parse(PATH, out.header, (size_t)out.header_size, out.data_size, &back, &err) != 0 ||
      back.count != f->count || back.meta_count != f->meta_count) {
    abort();
  }
  for (size_t i = 0; i < back.count; i++) {
    const st_tensor *t = &back.tensors[i];
    const st_piece *p = &out.pieces[i];
    if (strcmp(t->name, p->name) != 0 || t->dtype != p->dtype || t->ndim != p->ndim ||
        t->begin != p->begin || t->end != p->end ||
        (t->ndim > 0 && memcmp(t->shape, p->shape, (size_t)t->ndim * sizeof *t->shape) != 0)) {
      abort();
    }
  }
  st_file_free(&back);
  for (size_t i = 0; i < out.count; i++) {
    free(out.pieces[i].name);
    free(out.pieces[i].shape);
  }
  free(out.pieces);
  free(out.header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8) {
    return 0;
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; i--) {
    n = n << 8 | data[i];
  }
  const char *header = (const char *)data + 8;
  uint64_t data_size = 0;
  if (n <= size - 8) {
    data_size = size - 8 - n;
  } else {
    n = size - 8;
  }
  st_file f;
  st_error err;
  int rc = st_header_parse(PATH, header, (size_t)n, data_size, &f, &err);
  if (rc != 0) {
    if ((rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) || strstr(err.message, PATH) == NULL) {
      abort();
    }
  } else {
    uint64_t total = 0;
    for (size_t i = 0; i < f.count; i++) {
      total += st_tensor_bytes(&f.tensors[i]);
    }
    if (total != data_size) {
      abort();
    }
    round_trip(&f);
  }
  st_file_free(&f);
  return 0;
}
