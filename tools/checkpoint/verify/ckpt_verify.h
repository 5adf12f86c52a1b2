/*
 * `verify`: the outputs of a run re-read against their manifest (ckpt_manifest_read.h). Every
 * file listed must be present with its size and checksums (the whole file, each tensor), no
 * other file may be in OUTDIR (hidden files aside), each data file must pass the format's check
 * and its header must say what the manifest says; with `against`, every piece of every tensor is
 * compared byte for byte with the input bytes it was copied from. Memory: the manifest, and
 * buffers of 1 MiB.
 */
#ifndef CLEAVE_CKPT_VERIFY_H
#define CLEAVE_CKPT_VERIFY_H

#include <stddef.h>

#include "ckpt_driver.h"
#include "ckpt_model.h"
#include "error.h"

/** What to verify and how to report it. */
typedef struct ckpt_verify_options {
  const char *outdir;
  /** The manifest: NULL for OUTDIR/cleave-manifest.json, whose OUTDIR holds no other file; or
   * the manifest a run that wrote one file among others left beside it
   * (FILE.cleave-manifest.json), whose folder may hold other files. */
  const char *manifest;
  /** The command, for messages and the JSON report ("st verify"). */
  const char *cmd;
  /** The formats whose data files are read back (NULL-terminated): a data file whose name ends
   * with a driver's suffix is checked by its read_header (as `check --strict` checks) and its
   * header compared with the manifest; the others by their checksums only. */
  const ckpt_driver *const *drivers;
  /** The inputs to compare with (--against): files, or folders holding them; each input of the
   * manifest is found by its file name. None: the checksums only. */
  const char *const *against;
  size_t against_count;
  int json, quiet;
} ckpt_verify_options;

/**
 * Verifies o->outdir and prints the report on stdout: in text, one line per difference
 * ("FILE: tensor 'T': ... (byte B of the file, byte K of the tensor)") and a summary line; with
 * `json` one object {"command", "outdir", "ok", "files", "tensors", "bytes", "against",
 * "differences": [{"file"[, "tensor"][, "file_offset", "tensor_offset"], "problem"}]}.
 * The manifest is checked first: its checksum of itself (a manifest of version 1, which has
 * none, gives a warning on stderr), its schema, and the pieces of each tensor of a data file whose
 * size is the manifest's, which must cover the tensor exactly once.
 * Returns 0 (no difference), 1 (differences, reported), or prints an error on stderr (nothing
 * on stdout) and returns CLI_EXIT_NOINPUT (a file it must read cannot be opened: the manifest, an
 * output, an input of --against; or an input of --against missing), CLI_EXIT_DATA (the manifest
 * is malformed, was changed since it was written, has pieces that do not cover a tensor exactly
 * once, or contradicts an output whose checksum it matches), CLI_EXIT_IOERR or CLI_EXIT_SOFTWARE
 * (a resource limit among them).
 */
int ckpt_verify_outputs(const ckpt_verify_options *o);

#endif /* CLEAVE_CKPT_VERIFY_H */
