/*
 * Ranks that describe themselves: the record every rank file cleave writes carries in its own
 * metadata (safetensors' __metadata__, GGUF's key-values, as text values), so that ranks given in
 * any order, a rank missing or given twice, and a rank of another run are found from the files
 * alone, and merge and reshard need no rules on the command line:
 *
 *   cleave.rank    R, this file's rank (decimal)
 *   cleave.ranks   N, the rank count of the run (decimal)
 *   cleave.run     the run's identity: 16 hex digits, XXH3-64 of its source, its rules and N
 *   cleave.source  the source model's identity: 16 hex digits (ckpt_model_identity of the model
 *                  sharded; a reshard keeps its ranks' source)
 *   cleave.rules   the rules that cut it, as command-line options (--axis 'GLOB=AXIS' ...)
 *
 * The run's identity is a function of what it writes, so that the same run twice writes the same
 * bytes. A merge writes no record: it gives the source back byte for byte, whose identity is then
 * the one its ranks record, so that a reshard writes what a merge then a shard write. Keys of the
 * prefix are set aside when a model is read for writing (they describe the files, not the model).
 */
#ifndef CLEAVE_CKPT_RECORD_H
#define CLEAVE_CKPT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "error.h"

/** The prefix of the keys of a record, and the keys. */
#define CKPT_RECORD_PREFIX "cleave."
#define CKPT_RECORD_RANK "cleave.rank"
#define CKPT_RECORD_RANKS "cleave.ranks"
#define CKPT_RECORD_RUN "cleave.run"
#define CKPT_RECORD_SOURCE "cleave.source"
#define CKPT_RECORD_RULES "cleave.rules"

/** What one file records (all NULL and `present` 0 when nothing). Owned strings. */
typedef struct ckpt_record {
  /** The file has a key of the prefix; it has a whole rank record (rank, ranks, run, rules). */
  int present, rank_record;
  int64_t rank, ranks;
  char *run, *source, *rules;
} ckpt_record;

/**
 * Takes the entries of the prefix out of the metadata of every file of `m` (so that nothing
 * downstream writes or compares them as the model's; each removed by `forget`, the format's, or
 * ckpt_meta_remove when NULL) into `records` (m->file_count of them,
 * calloc'd here; free with ckpt_records_free). Their values must be text (`text_kind`, the
 * format's kind of text values) and well formed: a rank and a count in decimal, identities of 16
 * hex digits; a record with some of rank, ranks, run and rules but not all is incomplete. Returns
 * 0, or CLI_EXIT_DATA naming the file and the key, or CLI_EXIT_SOFTWARE, with the message in
 * `err`.
 */
int ckpt_records_take(ckpt_model *m, unsigned text_kind,
                      void (*forget)(ckpt_model *m, size_t file, size_t index),
                      ckpt_record **records, tool_error *err);

/** Releases `count` records and the array. */
void ckpt_records_free(ckpt_record *records, size_t count);

/**
 * The ranks of `m` (a model of ranks: file i is the i-th given) against their records: none has
 * one (written by another tool: 0 with `*ordered` 0, the ranks taken in the order given), or every
 * file has a whole one, of the same run (count, run, source, rules), each rank once, none
 * missing: then `order[R]` (m->file_count entries, the caller's) is the file holding rank R and
 * `*ordered` is 1. Returns 0, or CLI_EXIT_DATA with the message in `err` naming the file at fault:
 * "rank 1 of 2 is missing", "'a' and 'b' are both rank 0", "'b' is rank 1 of another run", a file
 * without a record among ranks that have one.
 */
int ckpt_records_order(const ckpt_model *m, const ckpt_record *records, size_t *order, int *ordered,
                       tool_error *err);

/**
 * The identity of model `m`'s content: XXH3-64 over every tensor's name, dtype and shape and
 * the first and last (up to) 64 bytes of its data, read from its file. Two models whose tensors
 * differ anywhere in what is sampled differ; it costs two small reads per tensor. Returns 0 with
 * `*identity`, or CLI_EXIT_NOINPUT / CLI_EXIT_IOERR with the message in `err`.
 */
int ckpt_model_identity(const ckpt_model *m, uint64_t *identity, tool_error *err);

#endif /* CLEAVE_CKPT_RECORD_H */
