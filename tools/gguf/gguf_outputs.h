/*
 * Finishing the plan of a gguf command: what the checkpoint layer's planners leave to the
 * format. The outputs may become a split set as gguf-split writes it (--max-shard-size: the
 * tensors in order, a new file when the next tensor would take a file's data past SIZE;
 * --max-tensors: a new file at every N-th tensor); the files of a set get split.no, split.count
 * and split.tensors.count; an expert count the rules changed is updated; then every file is laid
 * out (gguf_write.h).
 *
 * Metadata keys written or updated:
 * - split.no (u16), split.tensors.count (i32), split.count (u16), in that order (gguf-split's:
 *   it sets split.count last, once it knows it): in every file of an output set (the tensors of
 *   all its files), appended after the metadata; the first file holds the model's metadata, the
 *   others the split keys, after general.alignment when the model's is not gguf's default of 32
 *   (gguf-split writes none there, so a file of that alignment is byte for byte gguf-split's);
 * - ARCH.expert_count (ARCH: general.architecture), in its own type: when the tensors named
 *   *_exps* whose axis 0 held the experts (expert_count of them) all hold N of them in an output
 *   model, its expert_count becomes N (a shard rank is a model; a set is one model).
 */
#ifndef CLEAVE_GGUF_OUTPUTS_H
#define CLEAVE_GGUF_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_plan.h"
#include "gguf_model.h"

/** What the finish does. */
typedef struct gguf_output_options {
  /** Split the outputs into a set whose files hold at most this many bytes of tensor data
   * (padding included; one larger tensor gets a file of its own). 0: no. */
  uint64_t max_shard_bytes;
  /** At most this many tensors in a file of the set. 0: no limit. */
  uint64_t max_tensors;
  /** The name of the set's files: BASE-00001-of-0000N.gguf (with max_shard_bytes or
   * max_tensors). */
  const char *set_base;
  /** The plan's files are a set already (a split of a set mirrors its files). */
  int mirror_set;
} gguf_output_options;

/** The metadata the outputs own. Zero it before use; free with gguf_outputs_free after the plan
 * is written. */
typedef struct gguf_outputs {
  ckpt_meta **arrays;
  size_t array_count;
  char **strings;
  size_t string_count, string_cap;
} gguf_outputs;

/**
 * Finishes `plan` (made by a planner with gguf_format(m)): the set, the metadata, the layouts.
 * The files' metadata then point into `store`. Returns 0, or CLI_EXIT_DATA (more than 65535 files
 * in a set, an expert count the outputs disagree on, a layout's error) or CLI_EXIT_SOFTWARE with
 * the message in `err`.
 */
int gguf_finish_plan(const gguf_model *m, ckpt_plan *plan, const gguf_output_options *o,
                     gguf_outputs *store, tool_error *err);

/** Releases what `store` holds. */
void gguf_outputs_free(gguf_outputs *store);

#endif /* CLEAVE_GGUF_OUTPUTS_H */
