/*
 * The canonical safetensors writer, as the checkpoint layer's writer interface (ckpt_format.h):
 * each output file laid out as the reference writer lays it out (tensor order, data offsets,
 * header text), and the index of a sharded output as Hugging Face's tools write it.
 */
#ifndef CLEAVE_ST_WRITE_H
#define CLEAVE_ST_WRITE_H

#include "ckpt_format.h"
#include "ckpt_plan.h"
#include "error.h"
#include "st_model.h"

/**
 * Orders the tensors of `file` as the reference writer does (dtype code descending, then name
 * byte-wise), assigns their data offsets (back to back) and renders file->prefix: the 8-byte
 * header size and the compact JSON header (__metadata__ first), padded with spaces to a multiple
 * of 8. Returns 0, or CLI_EXIT_DATA (the data size overflows, or the header would pass the
 * format's limit of ST_MAX_HEADER bytes) or CLI_EXIT_SOFTWARE, with the message in `err`.
 */
int st_layout(ckpt_out_file *file, tool_error *err);

/**
 * The writer interface for plans made from model `m` (which must outlive it): st_layout, the
 * index (keeping m's index metadata), names ending in ".safetensors".
 */
ckpt_format st_format(const st_model *m);

#endif /* CLEAVE_ST_WRITE_H */
