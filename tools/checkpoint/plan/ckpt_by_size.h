/*
 * Outputs laid out in files of a bounded size, as Hugging Face's writer shards a model
 * (huggingface_hub's split_state_dict_into_shards, which transformers' save_pretrained uses):
 * the tensors in a stable order, the files and the index named as it names them (the size limit
 * is read as it reads one by cli_parse_size, tools/common/args.h).
 */
#ifndef CLEAVE_CKPT_BY_SIZE_H
#define CLEAVE_CKPT_BY_SIZE_H

#include <stdint.h>

#include "ckpt_plan.h"
#include "error.h"

/**
 * Compares tensor names in natural order: each name as alternating runs of non-digits and of
 * digits, runs compared in turn (non-digits byte-wise, digits as numbers, a name that runs out
 * first is smaller), then byte-wise; so "layers.2" comes before "layers.10". Returns <0, 0, >0.
 */
int ckpt_natural_cmp(const char *a, const char *b);

/**
 * Moves the tensors of `all` (with their spans) into new files of `plan`, as Hugging Face's
 * writer shards a model given its tensors in natural order: a tensor of more than `max_size`
 * bytes gets a file of its own (numbered when it is met, so before the file being filled), a
 * tensor that would take the current file past `max_size` closes it, and a file is numbered when
 * it is closed. `max_size` 0: one file. With one file it is named `base` + `suffix`
 * ("model.safetensors"); with n > 1, file i is `base`-%05d-of-%05d + `suffix`
 * ("model-00001-of-00003.safetensors") and plan->index_name is `base` + `suffix` +
 * `index_suffix` ("model.safetensors.index.json"), unless `index_suffix` is NULL. Empties `all`.
 * Returns 0 or CLI_EXIT_SOFTWARE with the message in `err`.
 */
int ckpt_plan_by_size(ckpt_plan *plan, ckpt_out_file *all, uint64_t max_size, const char *base,
                      const char *suffix, const char *index_suffix, tool_error *err);

#endif /* CLEAVE_CKPT_BY_SIZE_H */
