/*
 * The GGUF writer of the checkpoint layer: the layout of one output file (tensor order, aligned
 * data offsets, the header's bytes), through ckpt_format. Outputs are laid out as llama.cpp's
 * writer lays out files (ggml/src/gguf.cpp, gguf_write_out): the header, the metadata, the
 * tensor infos, zeros to the alignment, then each tensor's data padded with zeros to the
 * alignment, the last one too.
 */
#ifndef CLEAVE_GGUF_WRITE_H
#define CLEAVE_GGUF_WRITE_H

#include "ckpt_format.h"
#include "gguf_model.h"

/**
 * Lays out `file` of a plan on model `m` (GGUF version of m's first file): tensors in the order
 * of their sources (input file, place in it, then the order the plan added them, so that parts
 * take their tensor's place), each at an offset aligned to the file's alignment (its
 * general.alignment, else 32); metadata in the order of the model's headers, entries the model
 * lacks after them in the order of file->meta. Renders file->prefix and sets data_size (every
 * tensor padded). Returns 0, or CLI_EXIT_DATA with the message in `err` when the output would
 * break a rule of the format (a tensor name of more than 63 bytes or not UTF-8, more than 4
 * dimensions, a row that is not whole blocks, too many tensors, a header over the limit), or
 * CLI_EXIT_SOFTWARE.
 */
int gguf_layout(const gguf_model *m, ckpt_out_file *file, tool_error *err);

/** The format for the checkpoint layer's planners: "gguf", suffix ".gguf", gguf_layout, no
 * index. `m` is borrowed. */
ckpt_format gguf_format(const gguf_model *m);

#endif /* CLEAVE_GGUF_WRITE_H */
