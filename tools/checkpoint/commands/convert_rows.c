/* The rows of a tensor as `convert` moves them, in both directions (convert.c, convert_to_hf.c):
 * whole, or the Q/K rows permuted for llama.cpp's rotary layout and back (convert_permute.h). */
#include <stdlib.h>

#include "ckpt_commands.h"
#include "convert_permute.h"

int ckpt_convert_row_spans(const ckpt_tensor *t, int64_t heads, int inverse, ckpt_span **spans,
                           size_t *count, tool_error *err) {
  if (heads == 0) {
    *spans = malloc(sizeof **spans);
    if (*spans == NULL) {
      return tool_oom(err, "planning the conversion");
    }
    (*spans)[0] = ckpt_span_whole(t);
    *count = 1;
    return 0;
  }
  int64_t rows = t->ndim > 0 ? t->shape[0] : 0;
  size_t moves;
  int rc = convert_permute_check(rows, heads, &moves, err);
  if (rc != 0) {
    return rc;
  }
  convert_row_move *m = calloc(moves, sizeof *m);
  *spans = calloc(moves, sizeof **spans);
  if (m == NULL || *spans == NULL) {
    free(m);
    free(*spans);
    *spans = NULL;
    return tool_oom(err, "planning the conversion");
  }
  convert_permute_moves(rows, heads, inverse, m);
  uint64_t row = t->bytes / (uint64_t)rows;
  for (size_t i = 0; i < moves; i++) {
    (*spans)[i] = (ckpt_span){.src_file = t->file,
                              .src_row = t->offset + (uint64_t)m[i].src * row,
                              .src_stride = (uint64_t)m[i].src_step * row,
                              .src_col = 0,
                              .dst_offset = (uint64_t)m[i].dst * row,
                              .dst_stride = (uint64_t)m[i].dst_step * row,
                              .rows = (uint64_t)m[i].rows,
                              .take = row,
                              .group = 0};
  }
  free(m);
  *count = moves;
  return 0;
}
