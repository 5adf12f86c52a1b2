/*
 * The Q/K row permutation of llama.cpp's converter for llama and mistral (LlamaModel.permute:
 * `w.reshape(heads, 2, rows / heads / 2, ...).swapaxes(1, 2).reshape(w.shape)`), which turns
 * Hugging Face's rotary layout (each head's first half of rows, then its second half) into
 * GGUF's (the two halves interleaved). It is a permutation of whole rows (of the dimensions
 * after the first; a bias's rows are single elements), so it is planned as moves of rows: for
 * head h of `head_rows` rows, the first half (rows h*head_rows + i) goes to the even rows
 * h*head_rows + 2i, the second half (h*head_rows + head_rows/2 + i) to the odd rows
 * h*head_rows + 2i + 1, i from 0 to head_rows/2 - 1. No value is computed; the inverse (GGUF ->
 * Hugging Face) is the same moves with source and destination exchanged. Thread-safe.
 */
#ifndef CLEAVE_CONVERT_PERMUTE_H
#define CLEAVE_CONVERT_PERMUTE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** `rows` rows read from row `src` on, every `src_step` rows, written from row `dst` on, every
 * `dst_step` rows. */
typedef struct convert_row_move {
  int64_t src, src_step;
  int64_t dst, dst_step;
  int64_t rows;
} convert_row_move;

/**
 * Checks that a tensor of `rows` rows (its first dimension) can be permuted for `heads` heads
 * (the converter's: the attention heads for Q; for K the KV heads, when given and different) and
 * gives the number of moves, 2 * heads. Returns 0, or CLI_EXIT_DATA when `heads` is not positive
 * or `rows` is not a multiple of 2 * heads (the converter's reshape would fail), with a message
 * naming the rows and heads (the caller puts the tensor in front).
 */
int convert_permute_check(int64_t rows, int64_t heads, size_t *moves, tool_error *err);

/**
 * Fills `out` (convert_permute_check's count of entries) with the moves of the permutation
 * (`inverse` 0: Hugging Face -> GGUF) or of its inverse (1: GGUF -> Hugging Face), for a tensor
 * that passed convert_permute_check.
 */
void convert_permute_moves(int64_t rows, int64_t heads, int inverse, convert_row_move *out);

#endif /* CLEAVE_CONVERT_PERMUTE_H */
