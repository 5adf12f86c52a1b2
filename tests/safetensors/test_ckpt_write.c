/* tools/checkpoint's streaming writer on plans that no safetensors command makes yet: tensors
 * assembled from spans of several input files (merge's concatenation of ranks), spans that do
 * not share their rows, a format that pads between tensors, and lockstep files; every output
 * byte compared with the inputs' bytes placed by hand. The checksums the writer computes in
 * flight (ckpt_sums.h): known exactly for the files written in order of offset, equal to
 * libxxhash's one-shot XXH3-64 of the expected bytes (padding included) and to the checksums
 * read back from the file; a file written out of order is left to the read back. Also io_copy_range
 * (tools/common) and the sidecar files of a model folder (tools/safetensors' loader). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <xxhash.h>

#include "ckpt_copy.h"
#include "ckpt_sums.h"
#include "ckpt_write.h"
#include "io_copy.h"
#include "st_model.h"

#define PREFIX 16
#define ALIGN 16

static const ckpt_dtype u8 = {"U8", 4, 1, 8, 1, CLEAVE_U8};

typedef struct fixture {
  char dir[64];
  char paths[3][96];
  unsigned char data[3][4096];
  size_t sizes[3];
  ckpt_tensor tensors[3];
  ckpt_model model;
} fixture;

static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
}

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  unsigned char *buf = malloc(1 << 16);
  assert_non_null(buf);
  *size = fread(buf, 1, 1 << 16, f);
  fclose(f);
  return buf;
}

/* Three inputs of `sizes` bytes (a pattern of their own each), one tensor each (their whole
 * data, at offset 0: the writer needs no header). */
static fixture *make_fixture(const size_t *sizes) {
  fixture *x = calloc(1, sizeof *x);
  assert_non_null(x);
  snprintf(x->dir, sizeof x->dir, "/tmp/cleave-test-ckpt-XXXXXX");
  assert_non_null(mkdtemp(x->dir));
  x->model.files = calloc(3, sizeof *x->model.files);
  assert_non_null(x->model.files);
  x->model.file_count = 3;
  for (size_t i = 0; i < 3; i++) {
    snprintf(x->paths[i], sizeof x->paths[i], "%s/in%zu.bin", x->dir, i);
    x->sizes[i] = sizes[i];
    for (size_t k = 0; k < sizes[i]; k++) {
      x->data[i][k] = (unsigned char)(k * (2 * i + 3) + 17 * i + 1);
    }
    write_file(x->paths[i], x->data[i], sizes[i]);
    ckpt_tensor *t = &x->tensors[i];
    t->name = (char *)(i == 0 ? "a" : i == 1 ? "b" : "c");
    t->dtype = &u8;
    t->file = i;
    t->bytes = sizes[i];
    x->model.files[i].path = x->paths[i];
    x->model.files[i].tensor_count = 1;
    x->model.files[i].tensors = t;
  }
  return x;
}

static void free_fixture(fixture *x) {
  char path[160];
  for (size_t i = 0; i < 3; i++) {
    unlink(x->paths[i]);
  }
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/out/f%d.bin", x->dir, i);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/out", x->dir);
  rmdir(path);
  rmdir(x->dir);
  free(x->model.files);
  free(x);
}

/* The test's format: a prefix of 16 bytes naming the file, tensors in the order added, each
 * aligned to 16 bytes, and the data section padded to 16. */
static int test_layout(void *ctx, ckpt_out_file *file, tool_error *err) {
  (void)ctx;
  (void)err;
  uint64_t at = 0;
  for (size_t i = 0; i < file->tensor_count; i++) {
    file->tensors[i].begin = at;
    at = (at + file->tensors[i].bytes + ALIGN - 1) / ALIGN * ALIGN;
  }
  file->data_size = at;
  file->prefix = calloc(PREFIX, 1);
  assert_non_null(file->prefix);
  snprintf((char *)file->prefix, PREFIX, "HEAD:%s", file->name);
  file->prefix_size = PREFIX;
  return 0;
}

/* A span of `rows` rows of `take` bytes from input i. */
static ckpt_span span(size_t i, uint64_t src_col, uint64_t src_stride, uint64_t dst_offset,
                      uint64_t dst_stride, uint64_t rows, uint64_t take) {
  ckpt_span s = {i, 0, src_stride, src_col, dst_offset, dst_stride, rows, take, 0};
  return s;
}

static void add(ckpt_out_file *f, fixture *x, const char *name, uint64_t bytes,
                const ckpt_span *spans, size_t n) {
  int64_t shape[1] = {(int64_t)bytes};
  ckpt_out_tensor t = {.name = (char *)name,
                       .dtype = &u8,
                       .ndim = 1,
                       .shape = shape,
                       .bytes = bytes,
                       .source = &x->tensors[spans[0].src_file]};
  assert_int_equal(ckpt_out_file_add(f, &t, spans, n), 0);
}

/* The bytes of output tensor t of file f, built from the inputs by its spans (independently of
 * the writer: byte by byte). */
static void expected_tensor(const fixture *x, const ckpt_out_file *f, const ckpt_out_tensor *t,
                            unsigned char *out) {
  const ckpt_span *s = ckpt_out_spans(f, t);
  for (size_t i = 0; i < t->span_count; i++) {
    for (uint64_t r = 0; r < s[i].rows; r++) {
      for (uint64_t k = 0; k < s[i].take; k++) {
        out[s[i].dst_offset + r * s[i].dst_stride + k] =
            x->data[s[i].src_file][s[i].src_row + r * s[i].src_stride + s[i].src_col + k];
      }
    }
  }
}

/* The expected bytes of output file f (its padding zeros). */
static unsigned char *expected_file(const fixture *x, const ckpt_out_file *f) {
  unsigned char *want = calloc(1, (size_t)ckpt_out_file_size(f));
  assert_non_null(want);
  memcpy(want, f->prefix, PREFIX);
  for (size_t k = 0; k < f->tensor_count; k++) {
    expected_tensor(x, f, &f->tensors[k], want + PREFIX + f->tensors[k].begin);
  }
  return want;
}

/* Checks the checksums of every file of `plan` (laid out) against the expected bytes. */
static void check_file_sums(const fixture *x, const ckpt_plan *plan, const ckpt_file_sums *sums) {
  for (size_t i = 0; i < plan->file_count; i++) {
    const ckpt_out_file *f = &plan->files[i];
    unsigned char *want = expected_file(x, f);
    assert_true(sums[i].whole == XXH3_64bits(want, (size_t)ckpt_out_file_size(f)));
    for (size_t k = 0; k < f->tensor_count; k++) {
      const ckpt_out_tensor *t = &f->tensors[k];
      assert_true(sums[i].tensors[k] == XXH3_64bits(want + PREFIX + t->begin, (size_t)t->bytes));
    }
    free(want);
  }
}

/* Writes the plan (laid out) into temporaries with the checksums in flight: file i's are known
 * exactly when known[i], and right; then every file read back gives the same checksums. */
static void check_sums(fixture *x, ckpt_plan *plan, const int *known) {
  char outdir[96];
  snprintf(outdir, sizeof outdir, "%s/out", x->dir);
  char *names[4];
  for (size_t i = 0; i < plan->file_count; i++) {
    names[i] = plan->files[i].name;
  }
  out_set out;
  assert_int_equal(out_set_init_folder(&out, outdir, names, plan->file_count, NULL, 0, 1, 0, 0), 0);
  assert_int_equal(out_set_create(&out), 0);
  ckpt_file_sums *sums = ckpt_sums_new(plan), *back = ckpt_sums_new(plan);
  assert_true(sums != NULL && back != NULL);
  progress pr;
  progress_init(&pr, 0, 0);
  assert_int_equal(ckpt_copy_plan(plan, &x->model, &out, &pr, sums), 0);
  for (size_t i = 0; i < plan->file_count; i++) {
    assert_int_equal(sums[i].known, known[i]);
    assert_int_equal(ckpt_sums_read_back(&plan->files[i], &out, i, &back[i]), 0);
    assert_int_equal(back[i].known, 1);
    if (!known[i]) {
      sums[i].whole = back[i].whole;
      memcpy(sums[i].tensors, back[i].tensors, plan->files[i].tensor_count * sizeof(uint64_t));
    }
  }
  check_file_sums(x, plan, sums);
  check_file_sums(x, plan, back);
  out_set_abort(&out);
  out_set_free(&out);
  ckpt_sums_free(plan, sums);
  ckpt_sums_free(plan, back);
}

/* Writes the plan and compares every output file with the expected bytes. */
static void write_and_check(fixture *x, ckpt_plan *plan) {
  char outdir[96], path[160];
  snprintf(outdir, sizeof outdir, "%s/out", x->dir);
  for (size_t i = 0; i < plan->file_count; i++) {
    assert_int_equal(test_layout(NULL, &plan->files[i], NULL), 0);
  }
  ckpt_write_options o = {.outdir = outdir, .force = 1};
  assert_int_equal(ckpt_write_plan(plan, &x->model, &o, NULL, NULL), 0);
  for (size_t i = 0; i < plan->file_count; i++) {
    const ckpt_out_file *f = &plan->files[i];
    unsigned char *want = expected_file(x, f);
    snprintf(path, sizeof path, "%s/%s", outdir, f->name);
    size_t size = 0;
    unsigned char *got = read_file(path, &size);
    assert_int_equal(size, ckpt_out_file_size(f));
    assert_memory_equal(got, want, size);
    free(got);
    free(want);
  }
}

/* An empty plan of `count` files named f0.bin, f1.bin... */
static void new_plan(ckpt_plan *plan, size_t count) {
  memset(plan, 0, sizeof *plan);
  tool_error err;
  assert_int_equal(ckpt_plan_files(plan, count, &err), 0);
  for (size_t i = 0; i < count; i++) {
    char name[32];
    snprintf(name, sizeof name, "f%zu.bin", i);
    plan->files[i].name = strdup(name);
    assert_non_null(plan->files[i].name);
  }
}

/* Merge's concatenation along an inner axis: rows of input 0 (3 bytes) and input 1 (2 bytes)
 * side by side; input 2 whole after a gap; a tensor whose spans do not share their rows; long
 * rows of 100 bytes (60 + 40) that a 64-byte chunk cannot hold; a range of 295 bytes. */
static void check_assembly(size_t chunk) {
  const size_t sizes[] = {300, 200, 13};
  fixture *x = make_fixture(sizes);
  char value[32];
  snprintf(value, sizeof value, "%zu", chunk);
  setenv("CLEAVE_CHUNK_BYTES", value, 1);
  ckpt_plan plan;
  new_plan(&plan, 1);
  ckpt_out_file *f = &plan.files[0];
  ckpt_span concat[] = {span(0, 0, 3, 0, 5, 40, 3), span(1, 0, 2, 3, 5, 40, 2)};
  add(f, x, "concat", 200, concat, 2);
  ckpt_span whole[] = {span(2, 0, 13, 0, 13, 1, 13)};
  add(f, x, "whole", 13, whole, 1);
  /* Row 0 of input 1 first (one row), then two strided rows of input 0. */
  ckpt_span mixed[] = {span(0, 1, 10, 4, 4, 2, 4), span(1, 100, 4, 0, 4, 1, 4)};
  add(f, x, "mixed", 12, mixed, 2);
  ckpt_span wide[] = {span(0, 0, 60, 0, 100, 3, 60), span(1, 0, 40, 60, 100, 3, 40)};
  add(f, x, "wide", 300, wide, 2);
  /* A column of input 0's rows alone, without a group. */
  ckpt_span column[] = {span(0, 2, 10, 0, 3, 7, 3)};
  add(f, x, "column", 21, column, 1);
  /* A range of input 0 longer than a small chunk, starting inside a window. */
  ckpt_span range[] = {span(0, 5, 300, 0, 295, 1, 295)};
  add(f, x, "range", 295, range, 1);
  write_and_check(x, &plan);
  /* "mixed" writes its bytes 4 to 12 before 0 to 4: out of order, read back. */
  static const int unknown[] = {0};
  check_sums(x, &plan, unknown);
  ckpt_plan_free(&plan);
  /* The same without "mixed": in order, padding between the tensors. */
  new_plan(&plan, 1);
  f = &plan.files[0];
  add(f, x, "concat", 200, concat, 2);
  add(f, x, "whole", 13, whole, 1);
  add(f, x, "wide", 300, wide, 2);
  add(f, x, "column", 21, column, 1);
  add(f, x, "range", 295, range, 1);
  assert_int_equal(test_layout(NULL, f, NULL), 0);
  static const int in_order[] = {1};
  check_sums(x, &plan, in_order);
  ckpt_plan_free(&plan);
  free_fixture(x);
  unsetenv("CLEAVE_CHUNK_BYTES");
}

static void test_assembly_in_blocks(void **state) {
  (void)state;
  check_assembly(1 << 20);
}

static void test_assembly_small_chunks(void **state) {
  (void)state;
  check_assembly(64);
}

/* Two lockstep files: at each position the same sources, a part of one cut per file (gathered),
 * a whole tensor (copied to each), and a tensor assembled in each. */
static void test_lockstep(void **state) {
  (void)state;
  const size_t sizes[] = {240, 120, 7};
  fixture *x = make_fixture(sizes);
  ckpt_plan plan;
  new_plan(&plan, 2);
  plan.lockstep = 1;
  for (size_t r = 0; r < 2; r++) {
    ckpt_out_file *f = &plan.files[r];
    ckpt_span part[] = {span(0, r * 4, 8, 0, 4, 30, 4)};
    part[0].group = 1;
    add(f, x, "part", 120, part, 1);
    ckpt_span whole[] = {span(2, 0, 7, 0, 7, 1, 7)};
    add(f, x, "whole", 7, whole, 1);
    ckpt_span both[] = {span(1, r * 2, 4, 0, 3, 30, 2), span(0, r, 8, 2, 3, 30, 1)};
    add(f, x, "both", 90, both, 2);
  }
  write_and_check(x, &plan);
  static const int in_order[] = {1, 1};
  check_sums(x, &plan, in_order);
  ckpt_plan_free(&plan);
  free_fixture(x);
}

/* An input that disappeared before the copy: 66, and OUTDIR (made by this run) removed. */
static void test_missing_input(void **state) {
  (void)state;
  const size_t sizes[] = {16, 16, 16};
  fixture *x = make_fixture(sizes);
  ckpt_plan plan;
  new_plan(&plan, 1);
  ckpt_span whole[] = {span(1, 0, 16, 0, 16, 1, 16)};
  add(&plan.files[0], x, "whole", 16, whole, 1);
  assert_int_equal(test_layout(NULL, &plan.files[0], NULL), 0);
  unlink(x->paths[1]);
  char outdir[96];
  snprintf(outdir, sizeof outdir, "%s/out", x->dir);
  ckpt_write_options o = {.outdir = outdir};
  assert_int_equal(ckpt_write_plan(&plan, &x->model, &o, NULL, NULL), CLI_EXIT_NOINPUT);
  struct stat st;
  assert_int_equal(stat(outdir, &st), -1);
  ckpt_plan_free(&plan);
  free_fixture(x);
}

static void test_io_copy(void **state) {
  (void)state;
  const size_t sizes[] = {1000, 10, 10};
  fixture *x = make_fixture(sizes);
  char out_path[96];
  snprintf(out_path, sizeof out_path, "%s/out.bin", x->dir);
  int in = open(x->paths[0], O_RDONLY);
  int out = open(out_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  assert_true(in >= 0 && out >= 0);
  unsigned char buf[7], got[600];
  for (int kernel = 1; kernel >= 0; kernel--) {
    io_copier c = {kernel, buf, sizeof buf, NULL};
    tool_error err = {0};
    assert_int_equal(io_copy_range(&c, in, x->paths[0], 100, out, out_path, 50, 600, &err), 0);
    assert_int_equal(pread(out, got, 600, 50), 600);
    assert_memory_equal(got, x->data[0] + 100, 600);
    /* The input ends first: 74, naming the input and the offset. */
    assert_int_equal(io_copy_range(&c, in, x->paths[0], 900, out, out_path, 0, 200, &err),
                     CLI_EXIT_IOERR);
    char want[256];
    snprintf(want, sizeof want, "'%s' ends at byte 1000, before the", x->paths[0]);
    assert_non_null(strstr(err.message, want));
  }
  close(in);
  close(out);
  unlink(out_path);
  free_fixture(x);
}

/* A model folder: its other regular files are sidecars, sorted; hidden files, folders and other
 * safetensors files are not. A model given by its file's path has none. */
static void test_sidecars(void **state) {
  (void)state;
  char dir[64], path[160];
  snprintf(dir, sizeof dir, "/tmp/cleave-test-side-XXXXXX");
  assert_non_null(mkdtemp(dir));
  static const char header[] = "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}";
  unsigned char file[8 + 64] = {0};
  size_t n = (sizeof header - 1 + 7) / 8 * 8;
  file[0] = (unsigned char)n;
  memset(file + 8, ' ', n);
  memcpy(file + 8, header, sizeof header - 1);
  const char *names[] = {"model.safetensors",      "config.json", "tokenizer.json", ".hidden",
                         "other.safetensors.part", "README.md"};
  for (size_t i = 0; i < 6; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    write_file(path, file, i == 0 ? 8 + n + 2 : 3);
  }
  snprintf(path, sizeof path, "%s/sub", dir);
  assert_int_equal(mkdir(path, 0700), 0);
  st_model m;
  tool_error err;
  assert_int_equal(st_model_load(dir, &m, &err), 0);
  assert_int_equal(m.ckpt.sidecar_count, 4);
  assert_string_equal(m.ckpt.sidecars[0], "README.md");
  assert_string_equal(m.ckpt.sidecars[1], "config.json");
  assert_string_equal(m.ckpt.sidecars[2], "other.safetensors.part");
  assert_string_equal(m.ckpt.sidecars[3], "tokenizer.json");
  st_model_free(&m);
  snprintf(path, sizeof path, "%s/model.safetensors", dir);
  assert_int_equal(st_model_load(path, &m, &err), 0);
  assert_int_equal(m.ckpt.sidecar_count, 0);
  assert_int_equal(m.ckpt.tensor_count, 1);
  assert_int_equal(m.ckpt.by_name[0]->offset, 8 + n);
  st_model_free(&m);
  for (size_t i = 0; i < 6; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/sub", dir);
  rmdir(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_assembly_in_blocks),
      cmocka_unit_test(test_assembly_small_chunks),
      cmocka_unit_test(test_lockstep),
      cmocka_unit_test(test_missing_input),
      cmocka_unit_test(test_io_copy),
      cmocka_unit_test(test_sidecars),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
