/* Helpers shared by the C benchmarks (see bench_util.h). */
/* clock_gettime is POSIX. */
#define _POSIX_C_SOURCE 200809L

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(const double *v, int n) {
  double *s = malloc((size_t)n * sizeof *s);
  if (s == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

void bench_check(cleave_status st, const cleave_error *err, const char *what) {
  if (st != CLEAVE_OK) {
    fprintf(stderr, "%s failed: %s\n", what, err->message);
    exit(1);
  }
}

void *bench_alloc_touched(size_t n) {
  void *p = aligned_alloc(64, (n + 63) / 64 * 64);
  if (p == NULL) {
    fprintf(stderr, "out of memory (%zu bytes)\n", n);
    exit(1);
  }
  memset(p, 0x11, n);
  return p;
}

unsigned char *bench_alloc_input(size_t n) {
  unsigned char *p = bench_alloc_touched(n);
  for (size_t i = 0; i < n; i++) {
    p[i] = (unsigned char)(i * 131u + (i >> 12));
  }
  return p;
}

void bench_fmt_time(char *buf, size_t size, double s, int ms_decimals) {
  if (s >= 1e-3) {
    snprintf(buf, size, "%.*f ms", ms_decimals, s * 1e3);
  } else {
    snprintf(buf, size, "%.2f us", s * 1e6);
  }
}
