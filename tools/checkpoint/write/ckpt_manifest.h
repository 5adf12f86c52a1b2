/*
 * The manifest of a writing command, OUTDIR/cleave-manifest.json (docs/manifest.md has its
 * schema): every output file with its size and checksum, every output tensor with its place,
 * its checksum and the pieces of the inputs it was assembled from (the plan's spans), the
 * inputs with their sizes, the tool's version and the command line. It is the last output of
 * the all-or-nothing set (ckpt_write.h), so it exists exactly when the outputs it describes do.
 *
 * The checksums are computed by the writer as it writes each file (ckpt_sums.h), or, for a file
 * it did not write in order of offset, from the complete temporary read back through mapped
 * windows (ckpt_hash.h).
 */
#ifndef CLEAVE_CKPT_MANIFEST_H
#define CLEAVE_CKPT_MANIFEST_H

#include <stddef.h>

#include "ckpt_hash.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "outputs.h"

/** The manifest's file name in OUTDIR; and the ending of the manifest of a run that wrote one
 * named file among others (FILE.cleave-manifest.json, beside FILE). */
#define CKPT_MANIFEST_NAME "cleave-manifest.json"
#define CKPT_MANIFEST_SUFFIX ".cleave-manifest.json"
/** The manifest of a run of one rank (--rank R): cleave-manifest.rankR.json, so that the ranks'
 * runs into one folder (or folders copied together) never replace each other's; and how verify
 * finds them. */
#define CKPT_MANIFEST_RANK_FORMAT "cleave-manifest.rank%lld.json"
#define CKPT_MANIFEST_RANK_HEAD "cleave-manifest.rank"
#define CKPT_MANIFEST_RANK_TAIL ".json"

/** The schema version written in "version": 2 since the manifest ends with its checksum of
 * itself (CKPT_MANIFEST_SELF); version 1 had none. */
#define CKPT_MANIFEST_VERSION 2

/** The member that ends a manifest: the XXH3-64 of every byte before it (docs/manifest.md, "A
 * checksum of itself"). A manifest of version 2 ends with exactly CKPT_MANIFEST_SELF_HEAD, the
 * 16 digits and CKPT_MANIFEST_SELF_TAIL. */
#define CKPT_MANIFEST_SELF "self_xxh3"
#define CKPT_MANIFEST_SELF_HEAD ", \"" CKPT_MANIFEST_SELF "\": \""
#define CKPT_MANIFEST_SELF_TAIL "\"}\n"

/** Whether file `name` is named as a manifest of a folder of outputs: CKPT_MANIFEST_NAME, or a
 * rank's (CKPT_MANIFEST_RANK_FORMAT: the head, a rank in decimal, the tail). With `rank`
 * (may be NULL) the rank of a rank's manifest, else -1. */
int ckpt_manifest_named_rank(const char *name, int64_t *rank);
#define ckpt_manifest_named(name) ckpt_manifest_named_rank((name), NULL)

/** What the manifest says of the run beside the plan. */
typedef struct ckpt_manifest_info {
  /** The command ("st split"), and the whole command line (argv[0] on). */
  const char *command;
  int argc;
  char *const *argv;
  /** Its file name in OUTDIR: CKPT_MANIFEST_NAME, or, for a run that writes one named file into
   * a folder of other files (a merge into OUT.gguf), OUT.gguf + CKPT_MANIFEST_SUFFIX. */
  const char *name;
  /** A run of one rank (--rank): the run's identity (cleave.run; NULL: a whole run), the rank
   * and the count, recorded as "rank": {"run", "rank", "ranks"}. */
  const char *run;
  int64_t rank, ranks;
} ckpt_manifest_info;

/** An output that is copied from a file whole (a sidecar: config.json...): its checksum and the
 * input file it copies, as the manifest lists them. */
typedef struct ckpt_manifest_copy {
  const char *name;
  const char *source;
  uint64_t bytes, hash;
} ckpt_manifest_copy;

/**
 * Writes the manifest of `plan` (read from `model`) as output `index` of `out`: the plan's files
 * are outputs 0 to file_count - 1 of `out` and its index the next when it has one, all complete;
 * the `copy_count` whole copies `copies` follow them. `sums` (ckpt_sums_new, one per plan file)
 * holds the checksums computed in flight; a file whose checksums are not known is read back
 * and its `sums` set. Returns 0, or prints the error and returns CLI_EXIT_IOERR, CLI_EXIT_DATA
 * (an output is shorter than planned) or CLI_EXIT_SOFTWARE.
 */
int ckpt_manifest_write(const ckpt_plan *plan, const ckpt_model *model,
                        const ckpt_manifest_info *info, ckpt_file_sums *sums,
                        const ckpt_manifest_copy *copies, size_t copy_count, const out_set *out,
                        size_t index);

#endif /* CLEAVE_CKPT_MANIFEST_H */
