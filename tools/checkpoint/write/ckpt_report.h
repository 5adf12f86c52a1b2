/*
 * Running a plan from a checkpoint command, whatever the format: the options every writing
 * command takes (-o, -f, --sync, --dry-run, --json, -q, --no-progress), the report (the plan with
 * --dry-run; else the outputs written, printed before they are renamed into place, so that a
 * report that cannot be written fails the run with nothing written), and text made safe to print.
 */
#ifndef CLEAVE_CKPT_REPORT_H
#define CLEAVE_CKPT_REPORT_H

#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "json_out.h"

/** How a writing command runs its plan. */
typedef struct ckpt_run_options {
  const char *outdir;
  int json, quiet, force, sync, dry_run, progress;
  /** The name endings of the format's files (NULL-terminated; NULL: none): after a run, a
   * warning names the files of OUTDIR with such a name that the run did not write (an earlier
   * run's, which a loader of the folder would read with the new ones; ckpt_write.h). */
  const char *const *stale_suffixes;
  /** The command line (argv[0] on), recorded in the manifest (ckpt_manifest.h). */
  int argc;
  char *const *argv;
  /** Do not copy the model's sidecar files (config.json...) into OUTDIR (--no-sidecar). */
  int no_sidecar;
  /** The manifest's name in OUTDIR (NULL: CKPT_MANIFEST_NAME; ckpt_manifest.h). */
  const char *manifest_name;
  /** A run of one rank (--rank): the run's identity (NULL: a whole run), the rank and the count,
   * which its manifest records. */
  const char *manifest_run;
  int64_t manifest_rank, manifest_ranks;
  /** The files of OUTDIR other runs write (the other ranks of a run of one rank), which the
   * warning about an earlier run's files never names (NULL-terminated; NULL: none). */
  const char *const *expected;
} ckpt_run_options;

/** Prints `text` to stdout with each control character as \xNN and each backslash as two, so
 * that a hostile name can neither break a one-line-per-entry listing nor drive the terminal. */
void ckpt_print_text(const char *text);

/** Whether a tensor of `m` matches `glob` (NULL matches every tensor): a listing whose glob
 * matches nothing is an error, told before anything is printed. */
int ckpt_any_matches(const ckpt_model *m, const char *glob);

/** Lists the tensors of `m` that match `glob` (NULL: all), sorted by name: into the JSON array
 * open in `j` as objects {"name", "dtype", "shape", "bytes"[, "offset"], "file"}, or, with `j`
 * NULL and not `quiet`, as lines of name, dtype, shape, bytes and file separated by tabs.
 * `with_offset` adds each tensor's data offset in its file to the JSON objects (GGUF's listing
 * shows it; safetensors' offsets are implied by its header). */
void ckpt_list_tensors(const ckpt_model *m, const char *glob, json_out *j, int quiet,
                       int with_offset);

/** Flushes stdout; a failure turns a 0 status into CLI_EXIT_IOERR (reported). */
int ckpt_finish_stdout(int rc);

/**
 * Prints the plan (o->dry_run: every output file, its tensors, their sizes and sources), or
 * writes it all-or-nothing into o->outdir (tools/checkpoint/write/ckpt_write.h) with its manifest
 * (OUTDIR/cleave-manifest.json, ckpt_manifest.h) and reports the outputs. `cmd` ("gguf split")
 * names the command in the JSON report: {"command", "dry_run", "outputs": [{"path", "tensors",
 * "bytes"[, "plan"]}]} (an index: {"path", "kind": "index"}); each tensor of a plan lists its input
 * files in the order of its spans ("source_files"; in text "(FILE)", "(FILE, FILE)" or "(FIRST ..
 * LAST, N files)"). Returns an exit status.
 */
int ckpt_run_plan(const ckpt_plan *plan, const ckpt_model *m, const ckpt_run_options *o,
                  const char *cmd);

#endif /* CLEAVE_CKPT_REPORT_H */
