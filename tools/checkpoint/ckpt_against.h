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

/**
 * Compares the data files of o->outdir listed in `mf` with the inputs o->against gives, adding
 * the first differing byte of each tensor that differs (and an input whose size changed) to
 * `d`. Returns 0, or prints the error and returns CLI_EXIT_NOINPUT (an input is not found or
 * cannot be opened), CLI_EXIT_IOERR or CLI_EXIT_SOFTWARE.
 */
int ckpt_against(const ckpt_verify_options *o, const ckpt_manifest *mf, ckpt_differences *d);

#endif /* CLEAVE_CKPT_AGAINST_H */
