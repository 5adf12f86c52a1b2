/* The progress line. */
#include "progress.h"

#include <stdio.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(progress *p, int enabled, uint64_t total) {
  p->enabled = enabled;
  p->shown = 0;
  p->total = total;
  p->done = 0;
  p->start = enabled ? now_seconds() : 0.0;
  p->last = p->start;
}

void progress_add(progress *p, uint64_t bytes) {
  if (!p->enabled) {
    return;
  }
  p->done += bytes;
  double t = now_seconds();
  if (t - p->start < 1.0 || t - p->last < 0.2) {
    return;
  }
  p->last = t;
  p->shown = 1;
  double mib = 1024.0 * 1024.0;
  double percent = p->total > 0 ? 100.0 * (double)p->done / (double)p->total : 100.0;
  double rate = (double)p->done / mib / (t - p->start);
  fprintf(stderr, "\rcleave: %5.1f%%  %.0f / %.0f MiB  %.0f MiB/s ", percent, (double)p->done / mib,
          (double)p->total / mib, rate);
  fflush(stderr);
}

void progress_finish(progress *p) {
  if (p->enabled && p->shown) {
    /* Carriage return, then erase to the end of the line. */
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  p->shown = 0;
}
