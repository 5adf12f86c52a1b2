/* A manifest parsed by jansson and checked against its schema. */
#include "ckpt_manifest_read.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_hash.h"
#include "ckpt_manifest.h"
#include "ckpt_ranks.h"
#include "cli_util.h"
#include "io.h"

/* Where a value is, for messages: "files[2].tensors[0]". */
typedef struct place {
  const char *path;
  char at[96];
} place;

static int bad(const place *p, tool_error *err, const char *key, const char *what) {
  return tool_fail(err, CLI_EXIT_DATA, "%s: %s%s%s: %s", p->path, p->at,
                   p->at[0] != '\0' && key != NULL ? "." : "", key != NULL ? key : "", what);
}

static int get_string(const place *p, json_t *obj, const char *key, const char **out,
                      tool_error *err) {
  json_t *v = json_object_get(obj, key);
  if (!json_is_string(v)) {
    return bad(p, err, key, v == NULL ? "missing" : "not a string");
  }
  *out = json_string_value(v);
  if (strlen(*out) != json_string_length(v)) {
    return bad(p, err, key, "holds a NUL character");
  }
  return 0;
}

static int get_uint(const place *p, json_t *obj, const char *key, uint64_t *out, tool_error *err) {
  json_t *v = json_object_get(obj, key);
  if (!json_is_integer(v) || json_integer_value(v) < 0) {
    return bad(p, err, key, v == NULL ? "missing" : "not an integer of 0 or more");
  }
  *out = (uint64_t)json_integer_value(v);
  return 0;
}

static int get_hash(const place *p, json_t *obj, const char *key, uint64_t *out, tool_error *err) {
  const char *text;
  int rc = get_string(p, obj, key, &text, err);
  if (rc == 0 && ckpt_hash_parse(text, out) != 0) {
    rc = bad(p, err, key, "not 16 hex digits");
  }
  return rc;
}

static json_t *get_array(const place *p, json_t *obj, const char *key, tool_error *err) {
  json_t *v = json_object_get(obj, key);
  if (!json_is_array(v)) {
    bad(p, err, key, v == NULL ? "missing" : "not an array");
    return NULL;
  }
  return v;
}

/* a * b + c <= limit, without overflow. */
static int fits(uint64_t a, uint64_t b, uint64_t c, uint64_t limit) {
  if (c > limit) {
    return 0;
  }
  return a == 0 || b <= (limit - c) / a;
}

/* A piece's "scale" (a dequantized tensor's): the weight's and the scale's places in the input. */
static int read_scale(const place *p, json_t *v, uint64_t in_bytes, ckpt_mf_piece *out,
                      tool_error *err) {
  json_t *s = json_object_get(v, "scale");
  if (!json_is_object(s)) {
    return bad(p, err, "scale",
               s == NULL ? "missing (the tensor is dequantized)" : "not an object");
  }
  uint64_t rows, cols;
  const char *type;
  int rc = get_uint(p, s, "weight", &out->weight, err);
  rc = rc != 0 ? rc : get_uint(p, s, "rows", &rows, err);
  rc = rc != 0 ? rc : get_uint(p, s, "cols", &cols, err);
  rc = rc != 0 ? rc : get_uint(p, s, "offset", &out->scale_offset, err);
  rc = rc != 0 ? rc : get_uint(p, s, "bytes", &out->scale_bytes, err);
  rc = rc != 0 ? rc : get_string(p, s, "dtype", &type, err);
  if (rc != 0) {
    return rc;
  }
  if (rows < 1 || cols < 1 || rows > INT64_MAX / cols) {
    return bad(p, err, "scale", "has rows and cols that are not a weight's (1 or more each)");
  }
  if (cleave_dtype_from_name(type, &out->scale_type, NULL) != CLEAVE_OK ||
      (out->scale_type != CLEAVE_F32 && out->scale_type != CLEAVE_BF16)) {
    return bad(p, err, "scale.dtype", "is not \"f32\" or \"bf16\"");
  }
  if (out->scale_bytes > in_bytes || out->scale_offset > in_bytes - out->scale_bytes ||
      out->weight > in_bytes || out->weight > out->offset) {
    return bad(p, err, "scale", "names bytes outside its input, or a weight after the piece");
  }
  out->rows_of_weight = (int64_t)rows;
  out->cols_of_weight = (int64_t)cols;
  out->has_scale = 1;
  return 0;
}

/* A tensor's "cast": the library types, a dequantization's block size, the pieces' bytes. */
static int read_cast(const place *p, json_t *v, ckpt_mf_tensor *t, tool_error *err) {
  json_t *c = json_object_get(v, "cast");
  t->piece_bytes = t->bytes;
  if (c == NULL) {
    return 0;
  }
  if (!json_is_object(c)) {
    return bad(p, err, "cast", "not an object");
  }
  const char *from, *to;
  int rc = get_string(p, c, "from", &from, err);
  rc = rc != 0 ? rc : get_string(p, c, "to", &to, err);
  if (rc != 0) {
    return rc;
  }
  if (cleave_dtype_from_name(from, &t->cast_from, NULL) != CLEAVE_OK ||
      cleave_dtype_from_name(to, &t->cast_to, NULL) != CLEAVE_OK ||
      !cleave_cast_supported(t->cast_from, t->cast_to)) {
    return bad(p, err, "cast", "names types cleave does not cast between");
  }
  json_t *block = json_object_get(c, "block");
  if ((block != NULL) != (t->cast_from == CLEAVE_F8E4M3)) {
    return bad(p, err, "cast.block",
               block == NULL ? "missing (an f8e4m3 tensor is dequantized by blocks)"
                             : "given, but only a dequantized tensor has blocks");
  }
  for (size_t i = 0; block != NULL && i < 2; i++) {
    json_t *b = json_array_get(block, i);
    if (!json_is_array(block) || json_array_size(block) != 2 || !json_is_integer(b) ||
        json_integer_value(b) < 1) {
      return bad(p, err, "cast.block", "is not [B0, B1], each 1 or more");
    }
    t->block[i] = (int64_t)json_integer_value(b);
  }
  int64_t in_size = 0, out_size = 0;
  cleave_type_size(cleave_type_of(t->cast_from), &in_size, NULL);
  cleave_type_size(cleave_type_of(t->cast_to), &out_size, NULL);
  if (t->bytes % (uint64_t)out_size != 0) {
    return bad(p, err, "bytes", "is not a whole number of elements of the cast's type");
  }
  t->piece_bytes = t->bytes / (uint64_t)out_size * (uint64_t)in_size;
  return 0;
}

static int read_piece(const place *p, json_t *v, const ckpt_manifest *mf, uint64_t tensor_bytes,
                      ckpt_mf_piece *out, tool_error *err) {
  if (!json_is_object(v)) {
    return bad(p, err, NULL, "not an object");
  }
  uint64_t input;
  int rc = get_uint(p, v, "input", &input, err);
  rc = rc != 0 ? rc : get_uint(p, v, "offset", &out->offset, err);
  rc = rc != 0 ? rc : get_uint(p, v, "rows", &out->rows, err);
  rc = rc != 0 ? rc : get_uint(p, v, "take", &out->take, err);
  rc = rc != 0 ? rc : get_uint(p, v, "stride", &out->stride, err);
  rc = rc != 0 ? rc : get_uint(p, v, "to", &out->to, err);
  rc = rc != 0 ? rc : get_uint(p, v, "to_stride", &out->to_stride, err);
  if (rc != 0) {
    return rc;
  }
  if (input >= mf->input_count) {
    return bad(p, err, "input", "names no input");
  }
  out->input = (size_t)input;
  if (json_object_get(v, "scale") != NULL &&
      (rc = read_scale(p, v, mf->inputs[input].bytes, out, err)) != 0) {
    return rc;
  }
  if (out->rows == 0 || out->take == 0) {
    return 0;
  }
  /* The last row must end inside the tensor and inside the input. */
  uint64_t in_bytes = mf->inputs[input].bytes;
  if (!fits(out->rows - 1, out->to_stride, out->to, tensor_bytes) ||
      out->take > tensor_bytes - out->to - (out->rows - 1) * out->to_stride) {
    return bad(p, err, NULL, "its rows go past the end of the tensor");
  }
  if (!fits(out->rows - 1, out->stride, out->offset, in_bytes) ||
      out->take > in_bytes - out->offset - (out->rows - 1) * out->stride) {
    return bad(p, err, NULL, "its rows go past the end of its input");
  }
  return 0;
}

static int read_tensor(place *p, json_t *v, const ckpt_manifest *mf, uint64_t file_bytes,
                       uint64_t end_before, ckpt_mf_tensor *t, tool_error *err) {
  if (!json_is_object(v)) {
    return bad(p, err, NULL, "not an object");
  }
  int rc = get_string(p, v, "name", &t->name, err);
  rc = rc != 0 ? rc : get_string(p, v, "dtype", &t->dtype, err);
  rc = rc != 0 ? rc : get_uint(p, v, "offset", &t->offset, err);
  rc = rc != 0 ? rc : get_uint(p, v, "bytes", &t->bytes, err);
  rc = rc != 0 ? rc : get_hash(p, v, "xxh3", &t->hash, err);
  json_t *shape = rc == 0 ? get_array(p, v, "shape", err) : NULL;
  json_t *pieces = shape != NULL ? get_array(p, v, "pieces", err) : NULL;
  if (rc != 0 || pieces == NULL) {
    return rc != 0 ? rc : err->status;
  }
  if (json_array_size(shape) > CKPT_MAX_RANK) {
    return bad(p, err, "shape", "has more than 64 dimensions");
  }
  t->ndim = (int)json_array_size(shape);
  for (size_t d = 0; d < json_array_size(shape); d++) {
    json_t *dim = json_array_get(shape, d);
    if (!json_is_integer(dim) || json_integer_value(dim) < 0) {
      return bad(p, err, "shape", "holds a dimension that is not an integer of 0 or more");
    }
    t->shape[d] = (int64_t)json_integer_value(dim);
  }
  if (t->offset < end_before) {
    return bad(p, err, "offset", "overlaps the tensor before it (tensors are in file order)");
  }
  if (t->bytes > file_bytes || t->offset > file_bytes - t->bytes) {
    return bad(p, err, NULL, "ends past the end of its file");
  }
  rc = read_cast(p, v, t, err);
  if (rc != 0) {
    return rc;
  }
  t->piece_count = json_array_size(pieces);
  t->pieces = calloc(t->piece_count + 1, sizeof *t->pieces);
  if (t->pieces == NULL) {
    return tool_oom(err, "reading the manifest");
  }
  size_t n = strlen(p->at);
  for (size_t k = 0; rc == 0 && k < t->piece_count; k++) {
    snprintf(p->at + n, sizeof p->at - n, ".pieces[%zu]", k);
    rc = read_piece(p, json_array_get(pieces, k), mf, t->piece_bytes, &t->pieces[k], err);
    if (rc == 0 && t->cast_from == CLEAVE_F8E4M3 && !t->pieces[k].has_scale &&
        t->pieces[k].rows > 0 && t->pieces[k].take > 0) {
      rc = bad(p, err, "scale", "missing (the tensor is dequantized)");
    }
  }
  p->at[n] = '\0';
  return rc;
}

/* A file name that stays in OUTDIR and is not the manifest. */
static int plain_name(const char *name) {
  return name[0] != '\0' && strchr(name, '/') == NULL && strcmp(name, ".") != 0 &&
         strcmp(name, "..") != 0 && !ckpt_manifest_named(name);
}

static int read_file(place *p, json_t *v, const ckpt_manifest *mf, ckpt_mf_file *f,
                     tool_error *err) {
  if (!json_is_object(v)) {
    return bad(p, err, NULL, "not an object");
  }
  const char *kind;
  int rc = get_string(p, v, "name", &f->name, err);
  rc = rc != 0 ? rc : get_string(p, v, "kind", &kind, err);
  rc = rc != 0 ? rc : get_uint(p, v, "bytes", &f->bytes, err);
  rc = rc != 0 ? rc : get_hash(p, v, "xxh3", &f->hash, err);
  if (rc != 0) {
    return rc;
  }
  if (!plain_name(f->name)) {
    return bad(p, err, "name", "is not the name of a file in the output folder");
  }
  if (strcmp(kind, "data") == 0) {
    f->kind = CKPT_MF_DATA;
  } else if (strcmp(kind, "index") == 0) {
    f->kind = CKPT_MF_INDEX;
  } else if (strcmp(kind, "generated") == 0) {
    f->kind = CKPT_MF_GENERATED;
  } else if (strcmp(kind, "sidecar") == 0) {
    f->kind = CKPT_MF_SIDECAR;
  } else {
    return bad(p, err, "kind", "is not \"data\", \"index\", \"generated\" or \"sidecar\"");
  }
  if (f->kind != CKPT_MF_DATA) {
    return 0;
  }
  json_t *tensors = get_array(p, v, "tensors", err);
  if (tensors == NULL) {
    return err->status;
  }
  f->tensor_count = json_array_size(tensors);
  f->tensors = calloc(f->tensor_count + 1, sizeof *f->tensors);
  if (f->tensors == NULL) {
    return tool_oom(err, "reading the manifest");
  }
  size_t n = strlen(p->at);
  uint64_t end = 0;
  for (size_t k = 0; rc == 0 && k < f->tensor_count; k++) {
    snprintf(p->at + n, sizeof p->at - n, ".tensors[%zu]", k);
    rc = read_tensor(p, json_array_get(tensors, k), mf, f->bytes, end, &f->tensors[k], err);
    end = f->tensors[k].offset + f->tensors[k].bytes;
  }
  p->at[n] = '\0';
  return rc;
}

static int read_top(place *p, json_t *root, ckpt_manifest *mf, tool_error *err) {
  if (!json_is_object(root)) {
    return bad(p, err, NULL, "not a JSON object");
  }
  const char *kind, *hash;
  uint64_t version;
  int rc = get_string(p, root, "manifest", &kind, err);
  if (rc == 0 && strcmp(kind, "cleave") != 0) {
    rc = bad(p, err, "manifest", "is not \"cleave\"");
  }
  rc = rc != 0 ? rc : get_uint(p, root, "version", &version, err);
  if (rc == 0 && version != CKPT_MANIFEST_VERSION && version != 1) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s: version %llu is not supported (this cleave reads versions 1 and %d)",
                   p->path, (unsigned long long)version, CKPT_MANIFEST_VERSION);
  }
  rc = rc != 0 ? rc : get_string(p, root, "hash", &hash, err);
  if (rc == 0 && strcmp(hash, "xxh3-64") != 0) {
    rc = bad(p, err, "hash", "is not \"xxh3-64\"");
  }
  rc = rc != 0 ? rc : get_string(p, root, "command", &mf->command, err);
  json_t *rank = rc == 0 ? json_object_get(root, "rank") : NULL;
  if (rank != NULL) {
    /* A run of one rank (--rank): its run, its rank and the count. */
    uint64_t r = 0, n = 0;
    snprintf(p->at, sizeof p->at, "rank");
    rc = json_is_object(rank) ? 0 : bad(p, err, NULL, "not an object");
    rc = rc != 0 ? rc : get_string(p, rank, "run", &mf->run, err);
    rc = rc != 0 ? rc : get_uint(p, rank, "rank", &r, err);
    rc = rc != 0 ? rc : get_uint(p, rank, "ranks", &n, err);
    if (rc == 0 && (n < 1 || n > CKPT_MAX_RANKS || r >= n)) {
      rc = bad(p, err, NULL,
               "is not a rank R of RANKS ranks (R from 0 to RANKS - 1, RANKS from 1 "
               "to 4096)");
    }
    if (rc == 0 && (strlen(mf->run) != 16 || strspn(mf->run, "0123456789abcdef") != 16)) {
      rc = bad(p, err, "run", "is not 16 lowercase hex digits");
    }
    mf->rank = (int64_t)r;
    mf->ranks = (int64_t)n;
    p->at[0] = '\0';
  }
  json_t *inputs = rc == 0 ? get_array(p, root, "inputs", err) : NULL;
  json_t *files = inputs != NULL ? get_array(p, root, "files", err) : NULL;
  if (rc != 0 || files == NULL) {
    return rc != 0 ? rc : err->status;
  }
  mf->input_count = json_array_size(inputs);
  mf->file_count = json_array_size(files);
  mf->inputs = calloc(mf->input_count + 1, sizeof *mf->inputs);
  mf->files = calloc(mf->file_count + 1, sizeof *mf->files);
  if (mf->inputs == NULL || mf->files == NULL) {
    return tool_oom(err, "reading the manifest");
  }
  for (size_t i = 0; rc == 0 && i < mf->input_count; i++) {
    snprintf(p->at, sizeof p->at, "inputs[%zu]", i);
    json_t *v = json_array_get(inputs, i);
    ckpt_mf_input *in = &mf->inputs[i];
    if (!json_is_object(v)) {
      rc = bad(p, err, NULL, "not an object");
    }
    rc = rc != 0 ? rc : get_string(p, v, "name", &in->name, err);
    rc = rc != 0 ? rc : get_string(p, v, "path", &in->path, err);
    rc = rc != 0 ? rc : get_uint(p, v, "bytes", &in->bytes, err);
  }
  for (size_t i = 0; rc == 0 && i < mf->file_count; i++) {
    snprintf(p->at, sizeof p->at, "files[%zu]", i);
    rc = read_file(p, json_array_get(files, i), mf, &mf->files[i], err);
    for (size_t k = 0; rc == 0 && k < i; k++) {
      if (strcmp(mf->files[k].name, mf->files[i].name) == 0) {
        rc = bad(p, err, "name", "lists a file a second time");
      }
    }
  }
  return rc;
}

/* The manifest's bytes, read whole (malloc'd into `*text`). A manifest that cannot be opened or
 * read is 66 (70 for a resource limit), as any file verify reads. */
static int read_text(const char *path, char **text, size_t *size, tool_error *err) {
  int fd;
  uint64_t bytes;
  *text = NULL;
  if (io_open_regular(path, "the manifest", &fd, &bytes, err) != 0) {
    return err->status;
  }
  int rc = 0;
  if (bytes > CKPT_MANIFEST_MAX_BYTES) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: %llu bytes, more than a manifest may have (1 GiB)",
                   path, (unsigned long long)bytes);
  } else if ((*text = malloc((size_t)bytes + 1)) == NULL) {
    rc = tool_oom(err, "reading the manifest");
  } else if (io_read_full(fd, path, *text, (size_t)bytes, 0, CLI_EXIT_IOERR, err) != 0) {
    rc = err->status;
  }
  close(fd);
  *size = (size_t)bytes;
  return rc;
}

/* A manifest of version 2 (or any that holds the member) ends with its checksum of itself: exactly
 * CKPT_MANIFEST_SELF_HEAD, 16 lowercase hex digits and CKPT_MANIFEST_SELF_TAIL, the digits the
 * XXH3-64 of every byte before. Checked on the bytes, before the schema: an edited manifest is
 * named as such, whatever else the edit broke. */
static int check_self(const place *p, json_t *root, const char *text, size_t size,
                      tool_error *err) {
  static const char head[] = CKPT_MANIFEST_SELF_HEAD, tail[] = CKPT_MANIFEST_SELF_TAIL;
  size_t nh = sizeof head - 1, nt = sizeof tail - 1, n = nh + 16 + nt;
  json_t *v = json_object_get(root, CKPT_MANIFEST_SELF);
  if (v == NULL) {
    return bad(p, err, CKPT_MANIFEST_SELF,
               "missing: a manifest of version 2 ends with its checksum of itself");
  }
  const char *digits = size >= n ? text + size - n + nh : NULL;
  if (digits == NULL || memcmp(digits - nh, head, nh) != 0 || memcmp(digits + 16, tail, nt) != 0 ||
      !json_is_string(v) || json_string_length(v) != 16 ||
      memcmp(json_string_value(v), digits, 16) != 0) {
    return bad(p, err, CKPT_MANIFEST_SELF,
               "is not the manifest's last member as cleave writes it (16 hex digits, then the "
               "end of the object and a newline): the manifest was changed after it was written");
  }
  char hex[CKPT_HASH_HEX];
  ckpt_hash_hex(ckpt_hash_bytes(text, size - n), hex);
  if (memcmp(hex, digits, 16) != 0) {
    char msg[192];
    snprintf(msg, sizeof msg,
             "says %.16s, but the manifest's bytes before it have the checksum %s: the manifest "
             "was changed after it was written",
             digits, hex);
    return bad(p, err, CKPT_MANIFEST_SELF, msg);
  }
  return 0;
}

int ckpt_manifest_read(const char *path, ckpt_manifest *mf, tool_error *err) {
  memset(mf, 0, sizeof *mf);
  char *text = NULL;
  size_t size = 0;
  int rc = read_text(path, &text, &size, err);
  if (rc != 0) {
    free(text);
    return rc;
  }
  json_error_t jerr;
  json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL) {
    free(text);
    return tool_fail(err, CLI_EXIT_DATA, "%s: line %d, column %d: %s", path, jerr.line, jerr.column,
                     jerr.text);
  }
  mf->root = root;
  place p = {path, ""};
  /* A manifest of version 2 must check itself, any other one that holds the member too (a
   * version edited to 1 is an edit); the rest of the schema only after. */
  json_t *version = json_is_object(root) ? json_object_get(root, "version") : NULL;
  if ((json_is_integer(version) && json_integer_value(version) == CKPT_MANIFEST_VERSION) ||
      (json_is_object(root) && json_object_get(root, CKPT_MANIFEST_SELF) != NULL)) {
    rc = check_self(&p, root, text, size, err);
    mf->proved = rc == 0;
  }
  free(text);
  return rc != 0 ? rc : read_top(&p, root, mf, err);
}

void ckpt_manifest_free(ckpt_manifest *mf) {
  for (size_t i = 0; mf->files != NULL && i < mf->file_count; i++) {
    for (size_t k = 0; mf->files[i].tensors != NULL && k < mf->files[i].tensor_count; k++) {
      free(mf->files[i].tensors[k].pieces);
    }
    free(mf->files[i].tensors);
  }
  free(mf->files);
  free(mf->inputs);
  json_decref(mf->root);
  memset(mf, 0, sizeof *mf);
}

/* ---- the pieces of a tensor cover each of its bytes exactly once ------------------------- */

/* A piece as byte ranges of the tensor: `rows` ranges of `take` bytes, `stride` apart from
 * `to`. A piece whose rows follow each other is one range. */
typedef struct span {
  uint64_t to, rows, take, stride;
  size_t piece;
} span;

/* The next range of each piece not yet visited, by where it starts (a min-heap). */
typedef struct cursor {
  uint64_t start, row;
  size_t span;
} cursor;

static int cursor_before(const cursor *a, const cursor *b) {
  return a->start < b->start || (a->start == b->start && a->span < b->span);
}

static void sift_down(cursor *h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    m = l < n && cursor_before(&h[l], &h[m]) ? l : m;
    m = r < n && cursor_before(&h[r], &h[m]) ? r : m;
    if (m == i) {
      return;
    }
    cursor t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static int span_by_to(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->to < y->to ? -1 : x->to > y->to ? 1 : (x->piece > y->piece) - (x->piece < y->piece);
}

/* Bytes [from, to) of tensor t as a reader counts them: "rows 4:5 of 8" when they are whole rows
 * of its first dimension (elements of a vector), else "bytes 76:96 of the tensor (in rows 2:3 of
 * 3)". Returns 1 when that is one byte, to be said in the singular. */
static int describe(char *out, size_t size, const ckpt_mf_tensor *t, uint64_t from, uint64_t to) {
  uint64_t n = t->ndim > 0 && t->shape[0] > 0 ? (uint64_t)t->shape[0] : 0;
  uint64_t row = n > 0 && t->piece_bytes % n == 0 ? t->piece_bytes / n : 0;
  const char *rows = t->ndim == 1 ? "elements" : "rows", *one = t->ndim == 1 ? "element" : "row";
  int single = to - from == 1;
  if (row == 0) {
    snprintf(out, size, single ? "byte %llu of the tensor" : "bytes %llu:%llu of the tensor",
             (unsigned long long)from, (unsigned long long)to);
  } else if (from % row == 0 && to % row == 0) {
    snprintf(out, size, "%s %llu:%llu of %llu", rows, (unsigned long long)(from / row),
             (unsigned long long)(to / row), (unsigned long long)n);
    single = 0;
  } else {
    uint64_t last = to / row + (to % row != 0);
    char of[96];
    if (last - from / row == 1) {
      snprintf(of, sizeof of, "%s %llu of %llu", one, (unsigned long long)(from / row),
               (unsigned long long)n);
    } else {
      snprintf(of, sizeof of, "%s %llu:%llu of %llu", rows, (unsigned long long)(from / row),
               (unsigned long long)last, (unsigned long long)n);
    }
    if (single) {
      snprintf(out, size, "byte %llu of the tensor (in %s)", (unsigned long long)from, of);
    } else {
      snprintf(out, size, "bytes %llu:%llu of the tensor (in %s)", (unsigned long long)from,
               (unsigned long long)to, of);
    }
  }
  return single;
}

static int no_piece(const char *path, const char *where, const ckpt_mf_tensor *t, uint64_t from,
                    uint64_t to, tool_error *err) {
  char range[224];
  int single = describe(range, sizeof range, t, from, to);
  return tool_fail(err, CLI_EXIT_DATA,
                   "%s: %s: tensor '%s': %s %s in no piece (the manifest does not say where %s "
                   "came from, and --against would not compare %s)",
                   path, where, t->name, range, single ? "is" : "are", single ? "it" : "they",
                   single ? "it" : "them");
}

static int two_pieces(const char *path, const char *where, const ckpt_mf_tensor *t, uint64_t from,
                      uint64_t to, size_t a, size_t b, tool_error *err) {
  char range[224];
  int single = describe(range, sizeof range, t, from, to);
  return tool_fail(err, CLI_EXIT_DATA,
                   "%s: %s: tensor '%s': %s %s in two pieces, pieces[%zu] and pieces[%zu] (each "
                   "byte comes from one)",
                   path, where, t->name, range, single ? "is" : "are", a < b ? a : b,
                   a < b ? b : a);
}

/* Columns of the same rows (a tensor joined from ranks along an inner axis, reshard's parts,
 * stacked experts): every span has `rows` rows `stride` apart starting in the first row, and
 * their columns tile the first row. Then they tile the tensor, checked in O(k log k). */
static int columns_tile(const span *s, size_t k, uint64_t bytes) {
  uint64_t rows = s[0].rows, stride = s[0].stride, end = 0;
  for (size_t i = 0; i < k; i++) {
    if (s[i].rows != rows || s[i].stride != stride || s[i].to != end ||
        s[i].take > stride - s[i].to) {
      return 0;
    }
    end = s[i].to + s[i].take;
  }
  return end == stride && rows <= bytes / stride && rows * stride == bytes;
}

int ckpt_mf_tiling(const char *path, const char *where, const ckpt_mf_tensor *t, tool_error *err) {
  span *s = calloc(t->piece_count + 1, sizeof *s);
  cursor *h = calloc(t->piece_count + 1, sizeof *h);
  if (s == NULL || h == NULL) {
    free(s);
    free(h);
    return tool_oom(err, "checking the manifest's pieces");
  }
  size_t k = 0;
  int rc = 0;
  for (size_t i = 0; i < t->piece_count && rc == 0; i++) {
    const ckpt_mf_piece *p = &t->pieces[i];
    if (p->rows == 0 || p->take == 0) {
      continue; /* covers nothing */
    }
    if (p->rows > 1 && p->to_stride < p->take) {
      rc = tool_fail(err, CLI_EXIT_DATA,
                     "%s: %s.pieces[%zu]: tensor '%s': the piece's rows overlap each other "
                     "(%llu bytes each, %llu apart in the tensor)",
                     path, where, i, t->name, (unsigned long long)p->take,
                     (unsigned long long)p->to_stride);
      break;
    }
    /* Rows that follow each other are one range (the reader checked that they fit). */
    int one = p->rows == 1 || p->to_stride == p->take;
    s[k++] = (span){p->to, one ? 1 : p->rows, one ? p->rows * p->take : p->take,
                    one ? 0 : p->to_stride, i};
  }
  if (rc == 0) {
    qsort(s, k, sizeof *s, span_by_to);
  }
  if (rc == 0 && !(k > 0 && s[0].rows > 1 && columns_tile(s, k, t->piece_bytes))) {
    /* Every range in order of its start, each piece's next one on the heap: the ranges must
     * follow each other from byte 0 to the end. Each range visited covers at least one byte not
     * covered before, or is the fault: at most bytes + 1 of them. */
    for (size_t i = 0; i < k; i++) {
      h[i] = (cursor){s[i].to, 0, i};
    }
    for (size_t i = k / 2; i-- > 0;) {
      sift_down(h, k, i);
    }
    uint64_t expect = 0;
    size_t n = k, last = SIZE_MAX;
    while (n > 0 && rc == 0) {
      cursor c = h[0];
      const span *x = &s[c.span];
      if (c.start > expect) {
        rc = no_piece(path, where, t, expect, c.start, err);
      } else if (c.start < expect) {
        /* Every range before ends at `expect` at the latest, the last one visited there. */
        uint64_t end = c.start + x->take < expect ? c.start + x->take : expect;
        rc = two_pieces(path, where, t, c.start, end, x->piece, s[last].piece, err);
      } else {
        expect = c.start + x->take;
        last = c.span;
        if (++c.row < x->rows) {
          h[0] = (cursor){x->to + c.row * x->stride, c.row, c.span};
        } else {
          h[0] = h[--n];
        }
        sift_down(h, n, 0);
      }
    }
    if (rc == 0 && expect < t->piece_bytes) {
      rc = no_piece(path, where, t, expect, t->piece_bytes, err);
    }
  }
  free(s);
  free(h);
  return rc;
}
