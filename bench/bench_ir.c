/*
 * bench_ir MODEL.xml [--reps N] [--bin MODEL.bin]: how long `cleave ir-check` takes to read an
 * OpenVINO IR model and check its split layers, next to two baselines measured in the same run:
 *   - read:  reading the .xml's bytes into memory (pread), nothing else;
 *   - expat: read + expat parsing the bytes with no handlers (the XML parser's own floor);
 *   - check: what ir-check does: read, parse into the model, graph checks, every Const's bounds
 *            in the .bin, and every Split/VariadicSplit layer checked (Const values read).
 * The three are interleaved rep by rep; medians in milliseconds and the ratios to the baselines
 * are printed. Not a test: the tests never time anything.
 */
#include <expat.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "ir_check.h"
#include "ir_const.h"
#include "ir_model.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Reads the file into a malloc'd buffer; exits on failure. */
static char *read_file(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    perror(path);
    exit(66);
  }
  char *buf = malloc((size_t)st.st_size + 1);
  size_t done = 0;
  while (buf != NULL && done < (size_t)st.st_size) {
    ssize_t n = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);
    if (n <= 0) {
      perror(path);
      exit(74);
    }
    done += (size_t)n;
  }
  close(fd);
  if (buf == NULL) {
    exit(70);
  }
  *size = done;
  return buf;
}

static size_t run_check(const char *xml, const char *bin_path, size_t *layers) {
  ir_model m;
  ir_bin bin;
  tool_error err;
  if (ir_model_load(xml, &m, &err) != 0 || ir_bin_open(xml, bin_path, &bin, &err) != 0 ||
      ir_const_check_all(&m, &bin, &err) != 0) {
    fprintf(stderr, "bench_ir: %s\n", err.message);
    exit(65);
  }
  size_t ok = 0;
  *layers = 0;
  for (size_t i = 0; i < m.num_layers; i++) {
    if (!ir_is_split_layer(&m.layers[i])) {
      continue;
    }
    ir_check_row row;
    if (ir_check_layer(&m, &bin, &m.layers[i], &row, &err) != 0) {
      fprintf(stderr, "bench_ir: %s\n", err.message);
      exit(70);
    }
    ok += row.verdict == IR_VERDICT_OK;
    (*layers)++;
    ir_check_row_free(&row);
  }
  ir_bin_close(&bin);
  ir_model_free(&m);
  return ok;
}

int main(int argc, char **argv) {
  const char *xml = NULL, *bin_path = NULL;
  int reps = 21;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--bin") == 0 && i + 1 < argc) {
      bin_path = argv[++i];
    } else if (xml == NULL && argv[i][0] != '-') {
      xml = argv[i];
    } else {
      fprintf(stderr, "usage: bench_ir MODEL.xml [--reps N] [--bin MODEL.bin]\n");
      return 64;
    }
  }
  if (xml == NULL || reps < 1) {
    fprintf(stderr, "usage: bench_ir MODEL.xml [--reps N] [--bin MODEL.bin]\n");
    return 64;
  }
  double *t_read = calloc((size_t)reps, sizeof *t_read);
  double *t_expat = calloc((size_t)reps, sizeof *t_expat);
  double *t_check = calloc((size_t)reps, sizeof *t_check);
  if (t_read == NULL || t_expat == NULL || t_check == NULL) {
    return 70;
  }
  size_t layers = 0, ok = 0, bytes = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now_ms();
    char *text = read_file(xml, &bytes);
    double t1 = now_ms();
    free(text);
    t_read[r] = t1 - t0;

    t0 = now_ms();
    text = read_file(xml, &bytes);
    XML_Parser p = XML_ParserCreate(NULL);
    if (p == NULL || XML_Parse(p, text, (int)bytes, 1) != XML_STATUS_OK) {
      fprintf(stderr, "bench_ir: expat cannot parse %s\n", xml);
      return 65;
    }
    XML_ParserFree(p);
    free(text);
    t_expat[r] = now_ms() - t0;

    t0 = now_ms();
    ok = run_check(xml, bin_path, &layers);
    t_check[r] = now_ms() - t0;
  }
  double read = bench_median(t_read, reps), expat = bench_median(t_expat, reps);
  double check = bench_median(t_check, reps);
  printf("model: %s (%zu bytes of XML), %zu split layers, %zu OK; %d reps, medians:\n", xml, bytes,
         layers, ok, reps);
  printf("  read the .xml          %8.3f ms\n", read);
  printf("  read + bare expat      %8.3f ms\n", expat);
  printf("  ir-check (load+check)  %8.3f ms  = %.2fx bare expat, %.1fx read\n", check,
         check / expat, check / read);
  free(t_read);
  free(t_expat);
  free(t_check);
  return 0;
}
