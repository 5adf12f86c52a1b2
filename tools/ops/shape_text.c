/* Parsing the text form of shapes through the library. */
#include "shape_text.h"

#include <stdlib.h>

#include "cli_util.h"

int cli_shape_parse(const char *text, const char *what, cli_shape *shape) {
  shape->rank = 0;
  shape->dims = NULL;
  cleave_error err;
  cleave_status st = cleave_partial_shape_parse(text, NULL, 0, &shape->rank, &err);
  if (st == CLEAVE_OK && shape->rank > 0 && shape->rank != CLEAVE_RANK_DYNAMIC) {
    shape->dims = cli_calloc(shape->rank, sizeof *shape->dims);
    if (shape->dims == NULL) {
      return CLI_EXIT_SOFTWARE;
    }
    st = cleave_partial_shape_parse(text, shape->dims, shape->rank, &shape->rank, &err);
  }
  if (st != CLEAVE_OK) {
    cli_shape_free(shape);
    /* A shape that does not parse is a malformed command line, whatever the library calls it. */
    return cli_error(st == CLEAVE_ERROR_INVALID_SHAPE ? CLI_EXIT_USAGE : cli_exit_for_status(st),
                     "%s: '%s' is not a valid shape: %s", what, text, err.message);
  }
  return 0;
}

void cli_shape_free(cli_shape *shape) {
  free(shape->dims);
  shape->dims = NULL;
  shape->rank = 0;
}

int cli_shape_is_static(const cli_shape *shape) {
  if (shape->rank == CLEAVE_RANK_DYNAMIC) {
    return 0;
  }
  for (size_t i = 0; i < shape->rank; i++) {
    if (shape->dims[i].lo != shape->dims[i].hi) {
      return 0;
    }
  }
  return 1;
}
