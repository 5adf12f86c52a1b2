/*
 * The output files of one cleave run, written all-or-nothing.
 *
 * Output i goes to PREFIX_i.npy. Each is first written to a temporary file in the same directory,
 * named ".BASE_i.npy.cleave-tmp-PID-RANDOM"; only when every output is complete are they renamed
 * into place (with signals blocked, so that an interrupt cannot leave half of them renamed).
 * Until then SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove every temporary file before the
 * process dies of the signal, and SIGXFSZ is ignored so that exceeding the file-size limit is an
 * ordinary write error. Without --force an existing output is never replaced, even one that appears
 * while the outputs are being written.
 *
 * Only one output set may be active in a process at a time (the signal handler needs static
 * state). Not thread-safe.
 */
#ifndef CLEAVE_CLI_OUTPUTS_H
#define CLEAVE_CLI_OUTPUTS_H

#include <stddef.h>

/** The outputs of one run. Fields are private to outputs.c. */
typedef struct out_set {
  size_t count;
  int force;
  int sync;
  char *final_head; /* PREFIX "_" */
  char *dir;        /* the directory of the outputs, for fsync */
  int active;       /* temporaries may exist */
} out_set;

/**
 * Prepares `count` outputs named from `prefix`. `force` allows replacing existing outputs;
 * `sync` makes the files and the directory durable (fsync) before returning from commit.
 * Returns 0, or prints an error and returns CLI_EXIT_CANTCREAT (prefix too long) or
 * CLI_EXIT_SOFTWARE.
 */
int out_set_init(out_set *set, const char *prefix, size_t count, int force, int sync);

/** Writes the final path of output i ("PREFIX_i.npy") to buf. */
void out_set_final_path(const out_set *set, size_t i, char *buf, size_t size);

/**
 * Refuses existing outputs (without --force) and outputs that are directories, then creates every
 * temporary file (empty) and installs the signal handlers. Returns 0 or prints an error and
 * returns CLI_EXIT_CANTCREAT; on failure nothing is left behind.
 */
int out_set_create(out_set *set);

/**
 * Opens the temporary file of output i for writing and stores the descriptor in `*fd`. Returns 0
 * or prints an error and returns CLI_EXIT_IOERR.
 */
int out_set_open(const out_set *set, size_t i, int *fd);

/**
 * Closes a descriptor from out_set_open, after an fsync when the set was made with `sync`.
 * Returns 0 or prints an error naming output i and returns CLI_EXIT_IOERR.
 */
int out_set_close(const out_set *set, size_t i, int fd);

/**
 * Renames every temporary file to its final name. Returns 0; or, when a rename fails, undoes the
 * renames it can (an output that replaced an existing file under --force cannot be undone: the
 * message says so), removes the temporaries, prints an error and returns CLI_EXIT_CANTCREAT (an
 * output appeared meanwhile) or CLI_EXIT_IOERR.
 */
int out_set_commit(out_set *set);

/** Removes every temporary file (after a failure). Safe to call more than once. */
void out_set_abort(out_set *set);

/** Releases the memory of the set (after commit or abort). */
void out_set_free(out_set *set);

#endif /* CLEAVE_CLI_OUTPUTS_H */
