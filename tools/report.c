/* Text and JSON reports on stdout. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "shape_text.h"

static void json_string(const char *s) {
  putchar('"');
  for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') {
      printf("\\%c", *c);
    } else if (*c < 0x20 || *c == 0x7f) {
      printf("\\u%04x", *c);
    } else {
      putchar(*c);
    }
  }
  putchar('"');
}

void report_begin(report *r, const char *op, int json, int quiet) {
  r->json = json;
  r->quiet = quiet;
  r->count = 0;
  if (json) {
    printf("{\"op\": ");
    json_string(op);
    printf(", \"outputs\": [");
  }
}

void report_output(report *r, const int64_t *dims, size_t rank, const char *path) {
  if (r->json) {
    printf("%s{\"shape\": \"", r->count > 0 ? ", " : "");
    cli_print_shape(stdout, dims, rank);
    putchar('"');
    if (path != NULL) {
      printf(", \"path\": ");
      json_string(path);
    }
    putchar('}');
  } else if (!r->quiet) {
    if (path != NULL) {
      printf("%s ", path);
    }
    cli_print_shape(stdout, dims, rank);
    putchar('\n');
  }
  r->count++;
}

int report_end(report *r) {
  if (r->json) {
    printf("]}\n");
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    return cli_error(CLI_EXIT_IOERR, "writing to stdout failed: %s", strerror(errno));
  }
  return 0;
}
