/* Fuzz target: the safetensors reader of `cleave st` (tools/safetensors/st_json.c, st_read.c)
 * and its canonical writer's layout (st_write.c), through the checkpoint layer's model and plan.
 *
 * The input is a whole file: an 8-byte size N, the header, the data section. When N does not fit
 * in the input, the rest of the input is parsed as a header with an empty data section. A
 * failure must be CLI_EXIT_DATA (or CLI_EXIT_SOFTWARE for an allocation failure) with a message
 * naming the file; an accepted header must tile its data section exactly, and the canonical
 * header the writer makes of its tensors must read back to the same tensors, strictly (it has
 * no departure from the canonical form). The input is read twice, leniently (departures
 * accepted, silently) and strictly: the strict reading accepts exactly the lenient readings that
 * accepted no departure, with the same tensors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_plan.h"
#include "st_read.h"
#include "st_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PATH "fuzz.safetensors"

/* The header the writer lays out from `f`'s tensors reads back to them. */
static void round_trip(const ckpt_file *f) {
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  tool_error err;
  if (ckpt_plan_files(&plan, 1, &err) != 0) {
    return;
  }
  ckpt_out_file *out = &plan.files[0];
  out->name = strdup("out.safetensors");
  out->meta = f->meta;
  out->meta_count = f->meta_count;
  out->has_meta = f->has_meta;
  for (size_t i = 0; i < f->tensor_count && out->name != NULL; i++) {
    ckpt_out_tensor t = ckpt_out_whole(&f->tensors[i]);
    ckpt_span span = ckpt_span_whole(&f->tensors[i]);
    if (ckpt_out_file_add(out, &t, &span, 1) != 0) {
      ckpt_plan_free(&plan);
      return; /* out of memory */
    }
  }
  if (out->name == NULL || st_layout(out, &err) != 0) {
    abort(); /* a valid input always has a valid canonical layout */
  }
  ckpt_file back;
  st_leniency strict = {1, 0, 0};
  if (out->prefix_size % 8 != 0 ||
      st_parse_header(PATH, (const char *)out->prefix + 8, (size_t)out->prefix_size - 8,
                      out->data_size, &strict, &back, &err) != 0 ||
      back.tensor_count != f->tensor_count || back.meta_count != f->meta_count) {
    abort();
  }
  for (size_t i = 0; i < back.tensor_count; i++) {
    const ckpt_tensor *t = &back.tensors[i];
    const ckpt_out_tensor *o = &out->tensors[i];
    if (strcmp(t->name, o->name) != 0 || t->dtype != o->dtype || t->ndim != o->ndim ||
        t->offset != o->begin || t->bytes != o->bytes ||
        (t->ndim > 0 && memcmp(t->shape, o->shape, (size_t)t->ndim * sizeof *t->shape) != 0)) {
      abort();
    }
  }
  ckpt_file_free(&back);
  ckpt_plan_free(&plan);
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
  ckpt_file f, g;
  tool_error err, strict_err;
  st_leniency lenient = {0, 1, 0}, strict = {1, 0, 0};
  int rc = st_parse_header(PATH, header, (size_t)n, data_size, &lenient, &f, &err);
  int strict_rc = st_parse_header(PATH, header, (size_t)n, data_size, &strict, &g, &strict_err);
  if (strict_rc != 0 && ((strict_rc != CLI_EXIT_DATA && strict_rc != CLI_EXIT_SOFTWARE) ||
                         strstr(strict_err.message, PATH) == NULL)) {
    abort();
  }
  /* Strict accepts what lenient accepts without a departure, and nothing else (an allocation
   * failure in one of the readings aside). */
  if (rc != CLI_EXIT_SOFTWARE && strict_rc != CLI_EXIT_SOFTWARE &&
      ((strict_rc == 0) != (rc == 0 && lenient.accepted == 0) ||
       (strict_rc == 0 && g.tensor_count != f.tensor_count))) {
    abort();
  }
  ckpt_file_free(&g);
  if (rc != 0) {
    if ((rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) || strstr(err.message, PATH) == NULL) {
      abort();
    }
  } else {
    uint64_t total = 0;
    for (size_t i = 0; i < f.tensor_count; i++) {
      total += f.tensors[i].bytes;
    }
    if (total != data_size) {
      abort();
    }
    round_trip(&f);
  }
  ckpt_file_free(&f);
  return 0;
}
