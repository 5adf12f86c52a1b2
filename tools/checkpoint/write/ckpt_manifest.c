/* The manifest: the outputs' checksums (in flight, or read back from the complete temporaries),
 * and its JSON. */
#include "ckpt_manifest.h"
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_cast.h"
#include "ckpt_hash.h"
#include "ckpt_ranks.h"
#include "ckpt_sums.h"
#include "cli_util.h"
#include "io.h"
#include "json_out.h"

#ifndef CLEAVE_CLI_VERSION
#define CLEAVE_CLI_VERSION "unknown"
#endif

static void json_hash(json_out *j, const char *key, uint64_t hash) {
  char hex[CKPT_HASH_HEX];
  ckpt_hash_hex(hash, hex);
  json_out_string(j, key, hex);
}

/* A dequantized piece's weight and scale (docs/manifest.md, "Converted tensors"): where the
 * FP8 weight it reads starts, its last two dimensions, and its scale's place, size and type. */
static void render_scale(json_out *j, const ckpt_model *model, const ckpt_span *p) {
  const ckpt_tensor *w = NULL, *s = NULL;
  if (ckpt_cast_weight_at(model, p->src_file, p->src_row + p->src_col, &w, &s) != 0) {
    return; /* the writer refused it already */
  }
  json_out_object(j, "scale");
  json_out_uint(j, "weight", w->offset);
  json_out_int(j, "rows", w->shape[w->ndim - 2]);
  json_out_int(j, "cols", w->shape[w->ndim - 1]);
  json_out_uint(j, "offset", s->offset);
  json_out_uint(j, "bytes", s->bytes);
  json_out_string(j, "dtype", cleave_dtype_name(s->dtype->lib));
  json_out_end_object(j);
}

static void render_cast(json_out *j, const ckpt_model *model, const ckpt_out_tensor *t) {
  json_out_object(j, "cast");
  json_out_string(j, "from", cleave_dtype_name(t->cast_from->lib));
  json_out_string(j, "to", cleave_dtype_name(t->dtype->lib));
  if (t->dequantize) {
    json_out_array(j, "block");
    json_out_int(j, NULL, model->quant.block[0]);
    json_out_int(j, NULL, model->quant.block[1]);
    json_out_end_array(j);
  }
  json_out_end_object(j);
}

static void render_pieces(json_out *j, const ckpt_model *model, const ckpt_out_file *f,
                          const ckpt_out_tensor *t) {
  const ckpt_span *spans = ckpt_out_spans(f, t);
  json_out_array(j, "pieces");
  for (size_t s = 0; s < t->span_count; s++) {
    const ckpt_span *p = &spans[s];
    json_out_object(j, NULL);
    json_out_uint(j, "input", p->src_file);
    json_out_uint(j, "offset", p->src_row + p->src_col);
    json_out_uint(j, "rows", p->rows);
    json_out_uint(j, "take", p->take);
    json_out_uint(j, "stride", p->src_stride);
    json_out_uint(j, "to", p->dst_offset);
    json_out_uint(j, "to_stride", p->dst_stride);
    if (t->dequantize) {
      render_scale(j, model, p);
    }
    json_out_end_object(j);
  }
  json_out_end_array(j);
}

static void render_file(json_out *j, const ckpt_model *model, const ckpt_out_file *f,
                        const ckpt_file_sums *sums) {
  json_out_object(j, NULL);
  json_out_string(j, "name", f->name);
  json_out_string(j, "kind", "data");
  json_out_uint(j, "bytes", ckpt_out_file_size(f));
  json_hash(j, "xxh3", sums->whole);
  json_out_array(j, "tensors");
  for (size_t k = 0; k < f->tensor_count; k++) {
    const ckpt_out_tensor *t = &f->tensors[k];
    json_out_object(j, NULL);
    json_out_string(j, "name", t->name);
    json_out_string(j, "dtype", t->dtype->name);
    json_out_dims(j, "shape", t->shape, (size_t)t->ndim);
    json_out_uint(j, "offset", f->prefix_size + t->begin);
    json_out_uint(j, "bytes", t->bytes);
    json_hash(j, "xxh3", sums->tensors[k]);
    if (t->cast_from != NULL) {
      render_cast(j, model, t);
    }
    render_pieces(j, model, f, t);
    json_out_end_object(j);
  }
  json_out_end_array(j);
  json_out_end_object(j);
}

static void render_whole(json_out *j, const char *name, const char *kind, uint64_t bytes,
                         uint64_t hash, const char *source) {
  json_out_object(j, NULL);
  json_out_string(j, "name", name);
  json_out_string(j, "kind", kind);
  json_out_uint(j, "bytes", bytes);
  json_hash(j, "xxh3", hash);
  if (source != NULL) {
    json_out_string(j, "source", source);
  }
  json_out_end_object(j);
}

/* Renders the manifest into `out`, an open_memstream of `*written` and `*size`: every member, then
 * its checksum of itself over the bytes written so far, last. */
static int render(FILE *out, char *const *written, const size_t *size, const ckpt_plan *plan,
                  const ckpt_model *model, const ckpt_manifest_info *info,
                  const ckpt_file_sums *sums, const ckpt_manifest_copy *copies, size_t copy_count) {
  json_out j;
  json_out_begin(&j, out);
  json_out_object(&j, NULL);
  json_out_string(&j, "manifest", "cleave");
  json_out_uint(&j, "version", CKPT_MANIFEST_VERSION);
  json_out_string(&j, "tool", "cleave " CLEAVE_CLI_VERSION);
  json_out_string(&j, "command", info->command);
  json_out_array(&j, "argv");
  for (int a = 0; a < info->argc; a++) {
    json_out_string(&j, NULL, info->argv[a]);
  }
  json_out_end_array(&j);
  if (info->run != NULL) {
    json_out_object(&j, "rank");
    json_out_string(&j, "run", info->run);
    json_out_uint(&j, "rank", (uint64_t)info->rank);
    json_out_uint(&j, "ranks", (uint64_t)info->ranks);
    json_out_end_object(&j);
  }
  json_out_string(&j, "hash", "xxh3-64");
  json_out_array(&j, "inputs");
  for (size_t i = 0; i < model->file_count; i++) {
    json_out_object(&j, NULL);
    json_out_string(&j, "name", model->files[i].name);
    json_out_string(&j, "path", model->files[i].path);
    json_out_uint(&j, "bytes", model->files[i].size);
    /* A URL's ETag when its server gave one: the version of the file the run read. */
    const char *etag =
        http_is_url(model->files[i].path) ? http_known_etag(model->files[i].path) : NULL;
    if (etag != NULL) {
      json_out_string(&j, "etag", etag);
    }
    json_out_end_object(&j);
  }
  json_out_end_array(&j);
  json_out_array(&j, "files");
  for (size_t i = 0; i < plan->file_count; i++) {
    render_file(&j, model, &plan->files[i], &sums[i]);
  }
  if (plan->index_name != NULL) {
    const char *text = plan->index_text;
    render_whole(&j, plan->index_name, "index", strlen(text), ckpt_hash_bytes(text, strlen(text)),
                 NULL);
  }
  for (size_t i = 0; i < plan->made_count; i++) {
    const char *text = plan->made[i].text;
    render_whole(&j, plan->made[i].name, "generated", strlen(text),
                 ckpt_hash_bytes(text, strlen(text)), NULL);
  }
  for (size_t c = 0; c < copy_count; c++) {
    render_whole(&j, copies[c].name, "sidecar", copies[c].bytes, copies[c].hash, copies[c].source);
  }
  json_out_end_array(&j);
  /* Every byte so far, up to the ", " before the member json_out writes next. */
  if (fflush(out) != 0) {
    return CLI_EXIT_SOFTWARE;
  }
  json_hash(&j, CKPT_MANIFEST_SELF, ckpt_hash_bytes(*written, *size));
  json_out_end_object(&j);
  return json_out_finish(&j);
}

int ckpt_manifest_named_rank(const char *name, int64_t *rank) {
  if (rank != NULL) {
    *rank = -1;
  }
  if (strcmp(name, CKPT_MANIFEST_NAME) == 0) {
    return 1;
  }
  size_t head = strlen(CKPT_MANIFEST_RANK_HEAD);
  if (strncmp(name, CKPT_MANIFEST_RANK_HEAD, head) != 0) {
    return 0;
  }
  const char *p = name + head;
  int64_t r = 0;
  size_t digits = 0;
  /* Decimal as the writer prints it: no sign, no leading zero, a rank of CKPT_MAX_RANKS. */
  while (p[digits] >= '0' && p[digits] <= '9' && digits < 5) {
    r = r * 10 + (p[digits] - '0');
    digits++;
  }
  if (digits == 0 || (digits > 1 && p[0] == '0') || r >= CKPT_MAX_RANKS ||
      strcmp(p + digits, CKPT_MANIFEST_RANK_TAIL) != 0) {
    return 0;
  }
  if (rank != NULL) {
    *rank = r;
  }
  return 1;
}

int ckpt_manifest_write(const ckpt_plan *plan, const ckpt_model *model,
                        const ckpt_manifest_info *info, ckpt_file_sums *sums,
                        const ckpt_manifest_copy *copies, size_t copy_count, const out_set *out,
                        size_t index) {
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < plan->file_count; i++) {
    if (!sums[i].known) {
      rc = ckpt_sums_read_back(&plan->files[i], out, i, &sums[i]);
    }
  }
  char *text = NULL;
  size_t size = 0;
  FILE *mem = rc == 0 ? open_memstream(&text, &size) : NULL;
  if (rc == 0 && mem == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the manifest");
  }
  if (mem != NULL) {
    int failed = render(mem, &text, &size, plan, model, info, sums, copies, copy_count) != 0;
    if (fclose(mem) != 0 || failed) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the manifest");
    }
  }
  if (rc == 0) {
    int fd;
    rc = out_set_open(out, index, &fd);
    if (rc == 0) {
      char path[OUT_PATH_BUF];
      tool_error err;
      if (io_write_full(fd, out_set_final(out, index, path, sizeof path), text, size, 0, &err) !=
          0) {
        rc = tool_report(&err);
      }
      int close_rc = out_set_close(out, index, fd);
      rc = rc != 0 ? rc : close_rc;
    }
  }
  free(text);
  return rc;
}
