/*
 * A folder of named output files written all-or-nothing (the sibling of tools/common/outputs.c,
 * whose outputs are PREFIX_i.npy).
 *
 * Output i is first written to OUTDIR/.cleave-tmp-PID-RANDOM-i; when every output is complete
 * they are renamed to their names in order (the caller puts an index last), with the cleanup
 * signals blocked. Until then SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove the
 * temporaries (and OUTDIR if this run created it) before the process dies of the signal; SIGXFSZ
 * is ignored. Without --force an existing file is never replaced; an output that would replace
 * one of the inputs is refused without --force, and even with it the input is replaced by a
 * rename, never written in place. One set per process at a time; not thread-safe.
 */
#ifndef CLEAVE_ST_OUTDIR_H
#define CLEAVE_ST_OUTDIR_H

#include <stddef.h>

#include "st_model.h"

typedef struct st_outdir {
  char *dir; /* with a trailing '/' */
  size_t count;
  char **finals; /* full final paths */
  char **temps;  /* full temporary paths */
  int force, sync;
  int made_dir; /* this run created OUTDIR */
  int active;
} st_outdir;

/**
 * Prepares outputs `names` (file names) in folder `dir`. Refuses (CLI_EXIT_CANTCREAT, message
 * printed) a name that exists (without `force`), is a directory, or is one of `model`'s input
 * files (without `force`). Returns 0 or an exit status.
 */
int st_outdir_init(st_outdir *o, const char *dir, char *const *names, size_t count,
                   const st_model *model, int force, int sync);

/** Creates OUTDIR when missing, installs the signal handlers and creates every temporary. */
int st_outdir_create(st_outdir *o);

/** Opens temporary i for writing. */
int st_outdir_open(const st_outdir *o, size_t i, int *fd);

/** Closes (after fsync with --sync) output i's descriptor. */
int st_outdir_close(const st_outdir *o, size_t i, int fd);

/** Renames every temporary into place, in order. */
int st_outdir_commit(st_outdir *o);

/** Removes the temporaries (and OUTDIR if this run made it). Safe to call twice. */
void st_outdir_abort(st_outdir *o);

void st_outdir_free(st_outdir *o);

#endif /* CLEAVE_ST_OUTDIR_H */
