/* Static shape inference through the library. */
#include "split_infer.h"

#include <stdlib.h>

#include "cli_util.h"

int split_infer(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                split_result *result) {
  cleave_error err;
  result->lengths = NULL;
  cleave_status st = cleave_infer(op, type, shape, rank, &result->info, NULL, 0, &err);
  if (st != CLEAVE_OK) {
    return cli_library_error(&err, NULL);
  }
  size_t n = result->info.num_outputs;
  result->lengths = cli_calloc(n, sizeof *result->lengths);
  if (result->lengths == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  st = cleave_infer(op, type, shape, rank, &result->info, result->lengths, n, &err);
  if (st != CLEAVE_OK) {
    split_result_free(result);
    return cli_library_error(&err, NULL);
  }
  return 0;
}

void split_result_free(split_result *result) {
  free(result->lengths);
  result->lengths = NULL;
}

void split_output_dims(const split_result *result, const int64_t *shape, size_t rank, size_t i,
                       int64_t *dims) {
  size_t axis = result->info.axis;
  size_t k = 0;
  for (size_t d = 0; d < rank; d++) {
    if (d != axis) {
      dims[k++] = shape[d];
    } else if (!result->info.axis_removed) {
      dims[k++] = result->lengths[i];
    }
  }
}
