/* Text and JSON reports on stdout. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "json_out.h"
#include "shape_text.h"

void report_begin(report *r, const char *op, int json, int quiet) {
  r->json = json;
  r->quiet = quiet;
  r->count = 0;
  r->sequence = 0;
  if (json) {
    printf("{\"op\": ");
    json_out_escaped(stdout, op);
  }
}

/* Opens one JSON output object, or starts a text line; returns 0 when nothing is printed. */
static int begin_item(report *r) {
  if (r->json) {
    printf("%s{\"shape\": \"", r->count == 0 ? ", \"outputs\": [" : ", ");
  }
  r->count++;
  return r->json || !r->quiet;
}

void report_output(report *r, const int64_t *dims, size_t rank, const char *path) {
  if (!begin_item(r)) {
    return;
  }
  if (r->json) {
    cli_print_shape(stdout, dims, rank);
    putchar('"');
    if (path != NULL) {
      printf(", \"path\": ");
      json_out_escaped(stdout, path);
    }
    putchar('}');
    return;
  }
  if (path != NULL) {
    printf("%s ", path);
  }
  cli_print_shape(stdout, dims, rank);
  putchar('\n');
}

void report_output_text(report *r, const char *shape) {
  if (begin_item(r)) {
    printf(r->json ? "%s\"}" : "%s\n", shape);
  }
}

void report_sequence(report *r, const char *count, const char *element) {
  r->sequence = 1;
  if (r->json) {
    printf(", \"count\": \"%s\", \"element\": \"%s\"", count, element);
  } else if (!r->quiet) {
    printf("%s x %s\n", count, element);
  }
}

int report_end(report *r) {
  if (r->json) {
    printf("%s}\n", r->sequence ? "" : r->count == 0 ? ", \"outputs\": []" : "]");
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    return cli_error(CLI_EXIT_IOERR, "writing to stdout failed: %s", strerror(errno));
  }
  return 0;
}
