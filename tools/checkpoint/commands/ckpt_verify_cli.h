/*
 * The command line of every format's `verify` (`cleave st verify`, `cleave gguf verify`):
 * OUTDIR [--against MODEL...] [--json] [-q]. The format gives its header reader; the rest is
 * the same for all (ckpt_verify.h).
 */
#ifndef CLEAVE_CKPT_VERIFY_CLI_H
#define CLEAVE_CKPT_VERIFY_CLI_H

#include "ckpt_verify.h"

/**
 * Runs the verify command of argv[first..argc) as `o->cmd` (the caller has set cmd,
 * read_header and header_suffix; the rest of `o` is filled here): -h/--help calls
 * `print_help(o->cmd)` and returns 0; otherwise ckpt_verify_outputs' status, or CLI_EXIT_USAGE
 * / CLI_EXIT_SOFTWARE after printing the error.
 */
int ckpt_verify_command(int argc, char **argv, int first, ckpt_verify_options *o,
                        void (*print_help)(const char *command));

#endif /* CLEAVE_CKPT_VERIFY_CLI_H */
