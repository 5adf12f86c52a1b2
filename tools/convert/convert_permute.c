/* The Q/K row permutation as moves of rows (convert_permute.h). */
#include "convert_permute.h"

int convert_permute_check(int64_t rows, int64_t heads, size_t *moves, tool_error *err) {
  if (heads <= 0 || heads > INT64_MAX / 2) {
    return tool_fail(err, CLI_EXIT_DATA, "cannot permute for %lld heads", (long long)heads);
  }
  if (rows <= 0 || rows % (2 * heads) != 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%lld rows are not %lld heads of an even number of rows each, as the Q/K "
                     "permutation needs",
                     (long long)rows, (long long)heads);
  }
  *moves = (size_t)(2 * heads);
  return 0;
}

void convert_permute_moves(int64_t rows, int64_t heads, int inverse, convert_row_move *out) {
  int64_t head_rows = rows / heads;
  int64_t half = head_rows / 2;
  for (int64_t h = 0; h < heads; h++) {
    for (int64_t j = 0; j < 2; j++) {
      /* Half j of head h (its rows h*head_rows + j*half + i) <-> rows h*head_rows + 2i + j. */
      convert_row_move m = {.src = h * head_rows + j * half,
                            .src_step = 1,
                            .dst = h * head_rows + j,
                            .dst_step = 2,
                            .rows = half};
      if (inverse) {
        m = (convert_row_move){.src = m.dst,
                               .src_step = m.dst_step,
                               .dst = m.src,
                               .dst_step = m.src_step,
                               .rows = half};
      }
      out[2 * h + j] = m;
    }
  }
}
