/*
 * A progress line on stderr for long runs: shown only when enabled (stderr is a terminal and
 * neither --quiet nor --no-progress was given), only once a run has lasted a second, and
 * refreshed at most five times a second.
 */
#ifndef CLEAVE_CLI_PROGRESS_H
#define CLEAVE_CLI_PROGRESS_H

#include <stdint.h>

/** Progress state; plain data, initialised by progress_init. */
typedef struct progress {
  int enabled;
  int shown;
  uint64_t total;
  uint64_t done;
  double start;
  double last;
} progress;

/** Starts tracking `total` bytes of work. `enabled` 0 makes every call a no-op. */
void progress_init(progress *p, int enabled, uint64_t total);

/** Records `bytes` more done and refreshes the line when due. */
void progress_add(progress *p, uint64_t bytes);

/** Erases the line if it was shown. */
void progress_finish(progress *p);

#endif /* CLEAVE_CLI_PROGRESS_H */
