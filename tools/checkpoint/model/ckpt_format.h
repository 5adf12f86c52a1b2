/*
 * The writer interface of a checkpoint format: what the planner and the streaming writer of this
 * folder ask of a format, as function pointers, so that nothing here names a format (a format
 * plugs in by filling this struct; see README.md, "A second format").
 */
#ifndef CLEAVE_CKPT_FORMAT_H
#define CLEAVE_CKPT_FORMAT_H

#include "ckpt_cast.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "error.h"

typedef struct ckpt_format {
  /** The format's name, for messages ("safetensors"). */
  const char *name;
  /** The name of a file's metadata section, for messages ("__metadata__"). */
  const char *metadata_name;
  /** The suffix of its files, for the names the planner makes ("rank0" + ".safetensors"). */
  const char *suffix;
  /** The format's state, passed to every call (the model's index metadata, for example). */
  void *ctx;
  /**
   * Puts the tensors of `file` in the order the format's writer puts them, sets each tensor's
   * `begin` (offset in the data section, aligned as the format wants) and file->data_size, and
   * renders file->prefix (malloc'd: every byte before the data section) and file->prefix_size.
   * Returns 0, or an exit status with the message in `err` (CLI_EXIT_DATA: the output would
   * break a limit of the format).
   */
  int (*layout)(void *ctx, ckpt_out_file *file, tool_error *err);
  /**
   * Renders plan->index_text, the index of a plan whose files are the shards of one model
   * (plan->index_name is set; every file is laid out). NULL when the format has no index files.
   * Returns 0 or an exit status with the message in `err`.
   */
  int (*index)(void *ctx, ckpt_plan *plan, tool_error *err);
  /** --outtype: the conversion the planners apply to every file before it is sized or laid out
   * (ckpt_cast_file), set by the command; NULL: none. */
  const ckpt_cast *cast;
} ckpt_format;

#endif /* CLEAVE_CKPT_FORMAT_H */
