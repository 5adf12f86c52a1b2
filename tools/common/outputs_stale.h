/*
 * The warning an output set gives after its commit about files beside its outputs that this run
 * did not write but an earlier run may have (tools/common/outputs.h): a prefix set's
 * PREFIX_k.npy with k at or past its count, a folder set's files whose names end with one of its
 * watched suffixes (a checkpoint's other shards and indexes, which a loader of the folder reads
 * with the new ones). Such files are named, never touched. Private to outputs.c.
 */
#ifndef CLEAVE_CLI_OUTPUTS_STALE_H
#define CLEAVE_CLI_OUTPUTS_STALE_H

#include "outputs.h"

/** Prints one warning on stderr naming the files left beside the committed outputs of `set`
 * (the count, the first and the last when there are more than two), or nothing. Best effort: a
 * folder that cannot be read, or memory that runs out, shortens or skips the warning. */
void out_stale_warn(const out_set *set);

#endif /* CLEAVE_CLI_OUTPUTS_STALE_H */
