/* The input files of the operator commands: opening, checking, naming them in messages. */
#include "op_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "dtype_note.h"
#include "io.h"

static char native_order(void) {
  const uint16_t probe = 1;
  unsigned char first;
  memcpy(&first, &probe, 1);
  return first == 1 ? '<' : '>';
}

/* The byte order of a byte-sized input's data, 0 when its units are single bytes. */
static char data_order(const op_input *c) {
  char kind = c->h.descr[1];
  if (c->dt.item_size <= 1 || kind == 'S' || kind == 'V' || kind == 'b') {
    return 0;
  }
  char order = c->h.descr[0];
  return order == '<' || order == '>' ? order : native_order();
}

static int layout_matters(const int64_t *shape, size_t rank) {
  size_t above_one = 0;
  for (size_t i = 0; i < rank; i++) {
    if (shape[i] == 0) {
      return 0;
    }
    above_one += shape[i] > 1;
  }
  return above_one >= 2;
}

size_t op_input_swap(const op_inputs *in, size_t i) {
  const op_input *c = &in->items[i];
  char first = in->items[0].order;
  if (c->order == 0 || first == 0 || c->order == first) {
    return 0;
  }
  char kind = c->h.descr[1];
  if (kind == 'c') {
    return (size_t)c->dt.item_size / 2; /* two floats */
  }
  if (kind == 'U') {
    return 4; /* UCS-4 code units */
  }
  return (size_t)c->dt.item_size;
}

/* A --dtype refused by a file: when its name is also a NumPy code that means another type, the
 * message says so. */
static void note_numpy_name(const char *name, const char *descr, tool_error *err) {
  char note[160];
  if (name != NULL && dtype_numpy_note(name, descr, note, sizeof note)) {
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, "; %s", note);
  }
}

/* The header, type and data size of one opened input. */
static int check_input(op_input *c, const op_options *o, int packed, tool_error *err) {
  int rc = npy_read_header(c->fd, c->file_size, c->path, &c->h, err);
  if (rc == 0 && !packed) {
    rc = npy_descr_to_dtype(c->h.descr, o->flags.has_dtype ? &o->flags.dtype : NULL, c->path,
                            &c->dt, err);
    if (rc != 0 && o->flags.has_dtype) {
      note_numpy_name(o->flags.dtype_text, c->h.descr, err);
    }
    if (rc == 0) {
      rc = npy_check_data_size(&c->h, c->dt.item_size, c->file_size, c->path, &c->data_bytes, err);
    }
    c->shape = c->h.shape;
    c->rank = c->h.rank;
    c->order = data_order(c);
    c->layout_matters = layout_matters(c->shape, c->rank);
  } else if (rc == 0) {
    rc = packed_check_input(&c->packed, &c->h, c->file_size, c->path, err);
    if (rc == CLI_EXIT_DATA && strcmp(c->h.descr, "|u1") != 0) {
      note_numpy_name(o->flags.dtype_text, c->h.descr, err);
    }
    c->data_bytes = c->packed.data_bytes;
    c->shape = c->packed.shape;
    c->rank = c->packed.rank;
  }
  return rc;
}

int op_inputs_open(op_inputs *in, const op_options *o) {
  memset(in, 0, sizeof *in);
  in->count = o->inputs.count;
  in->packed = packed_dtype(o->flags.dtype.dtype);
  in->items = calloc(in->count + 1, sizeof *in->items);
  in->tensors = calloc(in->count + 1, sizeof *in->tensors);
  if (in->items == NULL || in->tensors == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < in->count; i++) {
    in->items[i].path = o->inputs.items[i];
    in->items[i].fd = -1;
  }
  /* A malformed --shape is a command-line error: it comes before opening any input. */
  for (size_t i = 0; i < in->count && in->packed; i++) {
    int rc = packed_parse_shape(o->flags.shapes.items[i], o->flags.dtype, o->flags.dtype_text,
                                &in->items[i].packed);
    if (rc != 0) {
      return rc;
    }
  }
  io_raise_open_limit(in->count + 64);
  tool_error err;
  for (size_t i = 0; i < in->count; i++) {
    op_input *c = &in->items[i];
    if (io_open_regular(c->path, "input", &c->fd, &c->file_size, &err) != 0) {
      return tool_report(&err);
    }
  }
  for (size_t i = 0; i < in->count; i++) {
    op_input *c = &in->items[i];
    if (check_input(c, o, in->packed, &err) != 0) {
      return tool_report(&err);
    }
    in->tensors[i].data = NULL;
    in->tensors[i].type = in->packed ? c->packed.type : c->dt.type;
    in->tensors[i].rank = c->rank;
    in->tensors[i].shape = c->shape;
  }
  return 0;
}

void op_inputs_close(op_inputs *in) {
  for (size_t i = 0; in->items != NULL && i < in->count; i++) {
    if (in->items[i].fd >= 0) {
      close(in->items[i].fd);
    }
  }
  free(in->items);
  free(in->tensors);
  memset(in, 0, sizeof *in);
}

/* Whether `index` was already named in the legend. */
static int listed(const size_t *indices, size_t count, size_t index) {
  for (size_t i = 0; i < count; i++) {
    if (indices[i] == index) {
      return 1;
    }
  }
  return 0;
}

/* Reads "N" or "N..M" after "inputs[" and before "]"; stores the first and last index. */
static int read_reference(const char *at, size_t *first, size_t *last) {
  char *end = NULL;
  unsigned long long a = strtoull(at, &end, 10);
  if (end == at || *at < '0' || *at > '9') {
    return 0;
  }
  unsigned long long b = a;
  if (end[0] == '.' && end[1] == '.') {
    const char *next = end + 2;
    b = strtoull(next, &end, 10);
    if (end == next) {
      return 0;
    }
  }
  if (*end != ']') {
    return 0;
  }
  *first = (size_t)a;
  *last = (size_t)b;
  return 1;
}

int op_inputs_error(const op_inputs *in, const cleave_error *err) {
  /* At most a few names: a message mentions two or three inputs. */
  enum { MAX_NAMED = 8 };
  size_t named[MAX_NAMED];
  size_t count = 0;
  for (const char *at = strstr(err->message, "inputs["); at != NULL && count < MAX_NAMED;
       at = strstr(at + 1, "inputs[")) {
    size_t first = 0, last = 0;
    if (!read_reference(at + 7, &first, &last)) {
      continue;
    }
    size_t ends[2] = {first, last};
    for (size_t k = 0; k < 2 && count < MAX_NAMED; k++) {
      if (ends[k] < in->count && !listed(named, count, ends[k])) {
        named[count++] = ends[k];
      }
    }
  }
  if (count == 0 && in->count == 1) {
    named[count++] = 0; /* one input: whatever the message says is about it */
  }
  if (count == 0) {
    return cli_library_error(err, NULL);
  }
  for (size_t i = 1; i < count; i++) { /* in input order */
    for (size_t k = i; k > 0 && named[k - 1] > named[k]; k--) {
      size_t t = named[k];
      named[k] = named[k - 1];
      named[k - 1] = t;
    }
  }
  size_t size = strlen(err->message) + 16;
  for (size_t i = 0; i < count; i++) {
    size += strlen(in->items[named[i]].path) + 40;
  }
  char *text = malloc(size);
  if (text == NULL) {
    return cli_library_error(err, NULL);
  }
  size_t len = (size_t)snprintf(text, size, "%s (", err->message);
  for (size_t i = 0; i < count; i++) {
    len += (size_t)snprintf(text + len, size - len, "%sinputs[%zu] is '%s'", i > 0 ? ", " : "",
                            named[i], in->items[named[i]].path);
  }
  snprintf(text + len, size - len, ")");
  int status = cli_error(cli_exit_for_status(err->status), "%s", text);
  free(text);
  return status;
}
