/*
 * The checksums of the manifest (ckpt_manifest.h): XXH3-64 of Debian's libxxhash, over a whole
 * file and over byte ranges of it (its tensors), all in one sequential read of the file.
 *
 * Why XXH3-64: a checksum here catches accidents (a short copy, a flipped bit, a shard read as
 * zeros), not an attacker, who could rewrite the manifest with the outputs. XXH3 hashes at
 * tens of GB/s on one core with SSE2 or AVX2, well above what the page cache delivers, so the
 * hash costs little beside the read; 64 bits let an accidental change pass with probability
 * 2^-64. XXH3-128 runs at the same speed but doubles every checksum in the manifest for no gain
 * against accidents; cryptographic hashes (SHA-256: about 1-2 GB/s) would run slower than the
 * disk. A checksum is written as 16 lowercase hex digits (a JSON number cannot hold 64 bits in
 * many readers).
 */
#ifndef CLEAVE_CKPT_HASH_H
#define CLEAVE_CKPT_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "io_source.h"

/** Characters of a checksum in hex, with the terminating NUL. */
#define CKPT_HASH_HEX 17

/** One byte range of a file, and its checksum once hashed. */
typedef struct ckpt_hash_range {
  uint64_t offset, bytes;
  uint64_t hash;
  /** The caller's (what the range is: a tensor's index). */
  size_t id;
} ckpt_hash_range;

/** The checksum of `size` bytes at `data`. */
uint64_t ckpt_hash_bytes(const void *data, size_t size);

/** Writes `hash` as 16 lowercase hex digits and a NUL into `out`. */
void ckpt_hash_hex(uint64_t hash, char out[CKPT_HASH_HEX]);

/** Parses 16 hex digits (either case) into `*hash`. Returns 0, or -1 when `text` is not that. */
int ckpt_hash_parse(const char *text, uint64_t *hash);

/** The checksums of one output file, the whole file and each of its tensors (`tensors[k]` of
 * its k-th tensor, caller-allocated), once `known`. */
typedef struct ckpt_file_sums {
  int known;
  uint64_t whole;
  uint64_t *tensors;
} ckpt_file_sums;

/**
 * The checksums of a file and its ranges from its bytes fed in order of offset, as a writer
 * writes them. Bytes never fed between those fed are zeros (the padding a writer leaves as a
 * hole) and must be in no range. A feed below what was fed already, or a gap over a range's
 * bytes, breaks the stream: its checksums are then unknown (the file must be read back).
 */
typedef struct ckpt_hash_stream {
  /** The caller's ranges (in order of offset, not overlapping), set as they are completed. */
  ckpt_hash_range *ranges;
  size_t count, next;
  /** The bytes fed so far (the file's offset the next feed continues from). */
  uint64_t at;
  int broken;
  struct XXH3_state_s *file_state, *range_state;
} ckpt_hash_stream;

/** Starts `h` over a file of `size` bytes and its `count` ranges (kept by `h`, not copied; in
 * order of offset, not overlapping, inside `size`). Returns 0, or CLI_EXIT_SOFTWARE (ranges
 * out of order, out of memory) with the message in `err`. Release with ckpt_hash_stream_free. */
int ckpt_hash_stream_init(ckpt_hash_stream *h, ckpt_hash_range *ranges, size_t count, uint64_t size,
                          tool_error *err);

/** Feeds the `size` bytes at `data`, which the file holds at offset `at` (see ckpt_hash_stream:
 * the stream breaks when they do not come in order). */
void ckpt_hash_stream_feed(ckpt_hash_stream *h, const void *data, size_t size, uint64_t at);

/** Ends the stream at the file's `size` (the bytes after the last fed are zeros): sets `*whole`
 * and every range's `hash` and returns 0, or returns -1 when the stream is broken or was fed
 * past `size` (the checksums are unknown). */
int ckpt_hash_stream_end(ckpt_hash_stream *h, uint64_t size, uint64_t *whole);

/** Releases the hash states of `h` (not its ranges). */
void ckpt_hash_stream_free(ckpt_hash_stream *h);

/**
 * Reads the `size` bytes of file `fd` (named `path` in messages) from offset 0, in order, once,
 * and sets `*whole` to their checksum and each of the `count` ranges' `hash` to the checksum of
 * its bytes. `mapped`: through mappings of the file (faster from the page cache), with a SIGBUS
 * handler installed meanwhile so that a file shortened while it is read is an error, not a
 * crash (not thread-safe: one hash at a time in a process), and, for a file of two windows or
 * more, a second thread that takes the whole file's checksum while the caller's takes the
 * ranges'; else through reads. The ranges must be
 * in order of offset, not overlapping, and inside `size`. Returns 0, or CLI_EXIT_IOERR (a read
 * failed), CLI_EXIT_DATA (the file ends early: "PATH: the file ends at byte N, before byte M",
 * or "PATH: the file ends before byte M (it was shortened while being read)"), CLI_EXIT_SOFTWARE
 * (ranges out of order, out of memory), with the message in `err`.
 */
int ckpt_hash_file(int fd, const char *path, uint64_t size, ckpt_hash_range *ranges, size_t count,
                   int mapped, uint64_t *whole, tool_error *err);

/**
 * Copies the input `in` (a local file or a URL) from offset 0 to its end into `out` (named
 * `out_path`) from offset 0, through a buffer of 1 MiB, and sets `*bytes` to the bytes copied
 * and `*hash` to their checksum. Returns 0, or CLI_EXIT_IOERR or CLI_EXIT_SOFTWARE with the
 * message in `err`.
 */
int ckpt_hash_copy(io_source *in, int out, const char *out_path, uint64_t *bytes, uint64_t *hash,
                   tool_error *err);

#endif /* CLEAVE_CKPT_HASH_H */
