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

/**
 * Reads the `size` bytes of file `fd` (named `path` in messages) from offset 0, in order, once,
 * and sets `*whole` to their checksum and each of the `count` ranges' `hash` to the checksum of
 * its bytes. `mapped`: through mappings of the file (faster from the page cache), with a SIGBUS
 * handler installed meanwhile so that a file shortened while it is read is an error, not a
 * crash (not thread-safe: one hash at a time in a process); else through reads. The ranges must be
 * in order of offset, not overlapping, and inside `size`. Returns 0, or CLI_EXIT_IOERR (a read
 * failed), CLI_EXIT_DATA (the file ends early: "PATH: the file ends at byte N, before byte M",
 * or "PATH: the file ends before byte M (it was shortened while being read)"), CLI_EXIT_SOFTWARE
 * (ranges out of order, out of memory), with the message in `err`.
 */
int ckpt_hash_file(int fd, const char *path, uint64_t size, ckpt_hash_range *ranges, size_t count,
                   int mapped, uint64_t *whole, tool_error *err);

/**
 * Copies file `in` (named `in_path` in messages) from offset 0 to its end into `out` (named
 * `out_path`) from offset 0, through a buffer of 1 MiB, and sets `*bytes` to the bytes copied
 * and `*hash` to their checksum. Returns 0, or CLI_EXIT_IOERR or CLI_EXIT_SOFTWARE with the
 * message in `err`.
 */
int ckpt_hash_copy(int in, const char *in_path, int out, const char *out_path, uint64_t *bytes,
                   uint64_t *hash, tool_error *err);

#endif /* CLEAVE_CKPT_HASH_H */
