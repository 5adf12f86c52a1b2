/*
 * The checksums of the plan's output files for the manifest (ckpt_manifest.h): computed in
 * flight, from the bytes the writer holds as it writes them (ckpt_copy.h), or, for a file not
 * written in order of offset, read back from the complete file.
 *
 * Why in flight: every byte the writer writes passes through its buffers, hot in the CPU's
 * caches, where XXH3 hashes it at tens of GB/s; reading a written file back costs a pass over
 * the page cache (mappings and their page faults) after the write (bench/RESULTS.md has the
 * figures). The writer then copies no range inside the kernel (copy_file_range), whose bytes
 * would never reach the process.
 */
#ifndef CLEAVE_CKPT_SUMS_H
#define CLEAVE_CKPT_SUMS_H

#include "ckpt_hash.h"
#include "ckpt_plan.h"
#include "outputs.h"

/** The checksums of one output file being written: its tensors' ranges, in order of offset
 * (each range's `id` is the tensor's index in the file), and the stream they are fed to. */
typedef struct ckpt_flight {
  ckpt_hash_range *ranges;
  ckpt_hash_stream stream;
} ckpt_flight;

/** An array of `plan->file_count` sums, none known yet, each with room for its file's tensors.
 * Returns NULL (after printing the error) when out of memory. Release with ckpt_sums_free. */
ckpt_file_sums *ckpt_sums_new(const ckpt_plan *plan);

/** Releases `sums` (made by ckpt_sums_new for `plan`; NULL is ignored). */
void ckpt_sums_free(const ckpt_plan *plan, ckpt_file_sums *sums);

/** Starts hashing output file `f` in flight. Returns 0, or prints the error and returns
 * CLI_EXIT_SOFTWARE (out of memory). Release with ckpt_flight_free. */
int ckpt_flight_start(ckpt_flight *fl, const ckpt_out_file *f);

/** Feeds the `size` bytes at `data`, written at offset `at` of the file. */
void ckpt_flight_feed(ckpt_flight *fl, const void *data, size_t size, uint64_t at);

/** Ends the hash of output file `f` once all of it is written: its checksums into `sums` (known)
 * when it was written in order of offset; else `sums` stays unknown. */
void ckpt_flight_end(ckpt_flight *fl, const ckpt_out_file *f, ckpt_file_sums *sums);

/** Releases what ckpt_flight_start made. */
void ckpt_flight_free(ckpt_flight *fl);

/**
 * Checksums output file `f`, output `i` of `out`, complete, by reading its temporary back
 * through mapped windows (ckpt_hash_file): sets `sums` known. Returns 0, or prints the error and
 * returns CLI_EXIT_IOERR, CLI_EXIT_DATA (the file is shorter than planned) or CLI_EXIT_SOFTWARE.
 */
int ckpt_sums_read_back(const ckpt_out_file *f, const out_set *out, size_t i, ckpt_file_sums *sums);

#endif /* CLEAVE_CKPT_SUMS_H */
