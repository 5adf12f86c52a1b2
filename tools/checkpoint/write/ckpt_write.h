/*
 * Writing a plan into OUTDIR all-or-nothing: every output file (then the index, the model's
 * sidecar files, and the manifest, last) to a
 * temporary in OUTDIR through tools/common/outputs.h (created when missing, removed on failure;
 * temporaries removed on a signal), then renamed into place only when all are complete. An
 * output that would replace one of the model's files is refused without `force`.
 */
#ifndef CLEAVE_CKPT_WRITE_H
#define CLEAVE_CKPT_WRITE_H

#include "ckpt_manifest.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"

/** How to write. */
typedef struct ckpt_write_options {
  const char *outdir;
  /** Replace existing files; make the outputs durable (fsync) before returning; show the
   * progress line (the caller checks that stderr is a terminal). */
  int force, sync, progress;
  /** The name endings of the format's files (NULL-terminated; NULL: none): after the commit, the
   * files of OUTDIR with such a name that this run did not write (an earlier run's shards) are
   * named in a warning (out_set_watch_stale in tools/common/outputs.h). */
  const char *const *stale_suffixes;
  /** Files other runs write beside the outputs (NULL-terminated; NULL: none), which that warning
   * never names: the other ranks of a run of one rank (--rank). */
  const char *const *expected;
  /** What the manifest (OUTDIR/cleave-manifest.json, ckpt_manifest.h) says of the run; NULL:
   * no manifest. */
  const ckpt_manifest_info *manifest;
  /** Copy the model's sidecar files (ckpt_write_sidecar says which) into OUTDIR with the
   * outputs, listed in the manifest. */
  int sidecars;
} ckpt_write_options;

/**
 * Whether sidecar i of `model` is copied into `outdir` with the outputs of `plan`: not when
 * `outdir` is the model's own folder (it is there already), nor a manifest (it described the
 * model's run, not this one), nor a file of the name of one of the plan's outputs (the output
 * is written).
 */
int ckpt_write_sidecar(const ckpt_plan *plan, const ckpt_model *model, const char *outdir,
                       size_t i);

/** Called once every output is complete and before any is renamed into place (the command
 * prints its report there: a report that cannot be written fails the run with nothing written).
 * Returns 0, or prints the error and returns an exit status. */
typedef int (*ckpt_before_commit)(void *ctx);

/**
 * Writes `plan` (laid out by its format, reading the files of `model`) into o->outdir, calling
 * `before_commit(ctx)` (may be NULL) before the commit. The plan's checks are compared first
 * (ckpt_compare.h). Returns 0, or prints the error and returns an exit status: CLI_EXIT_DATA (a
 * copy differs), CLI_EXIT_CANTCREAT (an output exists without force, or cannot be created),
 * CLI_EXIT_NOINPUT, CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE, or what before_commit returned. On
 * failure nothing is left behind.
 */
int ckpt_write_plan(const ckpt_plan *plan, const ckpt_model *model, const ckpt_write_options *o,
                    ckpt_before_commit before_commit, void *ctx);

#endif /* CLEAVE_CKPT_WRITE_H */
