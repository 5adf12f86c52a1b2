/*
 * verify --against: every piece of every tensor of the outputs compared byte for byte with the
 * input bytes the manifest says it was copied from (the inputs found by their file names among
 * the files and folders given). Part of ckpt_manifest_verify.
 */
#ifndef CLEAVE_CKPT_AGAINST_H
#define CLEAVE_CKPT_AGAINST_H

#include "ckpt_manifest_read.h"
#include "ckpt_manifest_verify.h"
#include "ckpt_verify_report.h"

/** A comparison under way (opaque). */
typedef struct ckpt_against_run ckpt_against_run;

/**
 * Opens the inputs o->against gives for the manifest `mf` (both must outlive the run) and starts
 * comparing the data files of o->outdir listed in `mf` with them on a second thread (on this one,
 * in ckpt_against_finish, when the thread cannot be made), so that the verify of the outputs'
 * checksums runs meanwhile. Stores the run in `*run` and returns 0, or prints the error and
 * returns CLI_EXIT_NOINPUT (an input is not found or cannot be opened) or CLI_EXIT_SOFTWARE with
 * `*run` NULL.
 */
int ckpt_against_start(const ckpt_verify_options *o, const ckpt_manifest *mf,
                       ckpt_against_run **run);

/**
 * Waits for the comparison, adds to `d` what it found (an input whose size changed, the first
 * differing byte of each tensor that differs), and releases `run`. Returns 0, or the status of
 * an error it printed (CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE; `d` then unchanged).
 */
int ckpt_against_finish(ckpt_against_run *run, ckpt_differences *d);

#endif /* CLEAVE_CKPT_AGAINST_H */
