/* Text and JSON reports of the outputs. */
#include "report.h"

#include <errno.h>
#include <string.h>

#include "cli_util.h"
#include "shape_format.h"

void report_begin(report *r, FILE *out, const char *op, int json, int quiet) {
  r->out = out;
  r->json = json;
  r->quiet = quiet;
  r->count = 0;
  r->sequence = 0;
  if (json) {
    json_out_begin(&r->writer, out);
    json_out_object(&r->writer, NULL);
    json_out_string(&r->writer, "op", op);
  }
}

/* Opens one JSON output object ({"shape": SHAPE) and returns 1, or returns whether a text line is
 * printed. */
static int begin_item(report *r, const char *shape) {
  if (r->json) {
    if (r->count == 0) {
      json_out_array(&r->writer, "outputs");
    }
    json_out_object(&r->writer, NULL);
    json_out_string(&r->writer, "shape", shape);
  }
  r->count++;
  return r->json || !r->quiet;
}

void report_output(report *r, const int64_t *dims, size_t rank, const char *path) {
  char shape[SHAPE_TEXT_MAX];
  shape_format(dims, rank, shape, sizeof shape);
  if (!begin_item(r, shape)) {
    return;
  }
  if (r->json) {
    if (path != NULL) {
      json_out_string(&r->writer, "path", path);
    }
    json_out_dims(&r->writer, "dims", dims, rank);
    json_out_end_object(&r->writer);
  } else if (path != NULL) {
    fprintf(r->out, "%s %s\n", path, shape);
  } else {
    fprintf(r->out, "%s\n", shape);
  }
}

/* A shape in text form that is static (a partial inference may find one) as its "dims" member. */
static void static_dims(report *r, const char *key, const char *shape) {
  int64_t dims[64];
  size_t rank = 0;
  if (shape_parse_static(shape, dims, sizeof dims / sizeof dims[0], &rank)) {
    json_out_dims(&r->writer, key, dims, rank);
  }
}

void report_output_text(report *r, const char *shape) {
  if (!begin_item(r, shape)) {
    return;
  }
  if (r->json) {
    static_dims(r, "dims", shape);
    json_out_end_object(&r->writer);
  } else {
    fprintf(r->out, "%s\n", shape);
  }
}

void report_sequence(report *r, const char *count, const char *element) {
  r->sequence = 1;
  if (r->json) {
    json_out_string(&r->writer, "count", count);
    json_out_string(&r->writer, "element", element);
    static_dims(r, "element_dims", element);
  } else if (!r->quiet) {
    fprintf(r->out, "%s x %s\n", count, element);
  }
}

int report_end(report *r) {
  if (r->json) {
    if (!r->sequence) {
      /* No output at all (an empty sequence) is still an "outputs" array. */
      if (r->count == 0) {
        json_out_array(&r->writer, "outputs");
      }
      json_out_end_array(&r->writer);
    }
    json_out_end_object(&r->writer);
    return json_out_finish(&r->writer);
  }
  if (fflush(r->out) != 0 || ferror(r->out)) {
    return cli_error(CLI_EXIT_IOERR, "writing to stdout failed: %s", strerror(errno));
  }
  return 0;
}
