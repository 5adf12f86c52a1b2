/* A plan written into OUTDIR all-or-nothing. */
#include "ckpt_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_compare.h"
#include "ckpt_copy.h"
#include "ckpt_hash.h"
#include "ckpt_sums.h"
#include "cli_util.h"
#include "http.h"
#include "io.h"
#include "io_source.h"
#include "outputs.h"
#include "progress.h"

static int write_text_file(const out_set *out, size_t i, const char *text) {
  int fd;
  int rc = out_set_open(out, i, &fd);
  if (rc != 0) {
    return rc;
  }
  char pbuf[OUT_PATH_BUF];
  tool_error err;
  if (io_write_full(fd, out_set_final(out, i, pbuf, sizeof pbuf), text, strlen(text), 0, &err) !=
      0) {
    rc = tool_report(&err);
  }
  int close_rc = out_set_close(out, i, fd);
  return rc != 0 ? rc : close_rc;
}

static int same_dir(const char *a, const char *b) {
  struct stat x, y;
  return stat(a[0] != '\0' ? a : ".", &x) == 0 && stat(b[0] != '\0' ? b : ".", &y) == 0 &&
         x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int ckpt_write_sidecar(const ckpt_plan *plan, const ckpt_model *model, const char *outdir,
                       size_t i) {
  const char *name = model->sidecars[i];
  if (ckpt_manifest_named(name) || same_dir(model->dir, outdir)) {
    return 0;
  }
  if (model->sidecars_remote) {
    /* A Hub folder's usual file that the server turned out not to have. */
    char *url = NULL;
    int missing = asprintf(&url, "%s%s", model->dir, name) >= 0 && http_known_missing(url);
    free(url);
    if (missing) {
      return 0;
    }
  }
  for (size_t k = 0; k < plan->file_count; k++) {
    if (strcmp(plan->files[k].name, name) == 0) {
      return 0;
    }
  }
  for (size_t k = 0; k < plan->made_count; k++) {
    if (strcmp(plan->made[k].name, name) == 0) {
      return 0;
    }
  }
  return plan->index_name == NULL || strcmp(plan->index_name, name) != 0;
}

/* The sidecars copied, their source paths and permission bits, and their checksums once
 * copied. */
typedef struct sidecars {
  size_t count;
  ckpt_manifest_copy *copies;
  unsigned *modes;
} sidecars;

static void sidecars_free(sidecars *s) {
  for (size_t i = 0; i < s->count; i++) {
    free((char *)s->copies[i].source);
  }
  free(s->copies);
  free(s->modes);
  memset(s, 0, sizeof *s);
}

static int pick_sidecars(const ckpt_plan *plan, const ckpt_model *m, const ckpt_write_options *o,
                         sidecars *s) {
  memset(s, 0, sizeof *s);
  s->copies = calloc(m->sidecar_count + 1, sizeof *s->copies);
  s->modes = calloc(m->sidecar_count + 1, sizeof *s->modes);
  if (s->copies == NULL || s->modes == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (o->sidecars && m->sidecar_errno != 0 && !same_dir(m->dir, o->outdir)) {
    char reason[256];
    return cli_error(
        io_open_status(m->sidecar_errno),
        "cannot list the folder '%s' for the model's other files (config.json, "
        "tokenizer files...) to copy: %s; --no-sidecar writes the outputs without them",
        m->dir[0] != '\0' ? m->dir : "./", io_open_reason(m->sidecar_errno, reason, sizeof reason));
  }
  for (size_t i = 0; o->sidecars && i < m->sidecar_count; i++) {
    if (!ckpt_write_sidecar(plan, m, o->outdir, i)) {
      continue;
    }
    ckpt_manifest_copy *c = &s->copies[s->count];
    char *source = NULL;
    if (asprintf(&source, "%s%s", m->dir, m->sidecars[i]) < 0) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    if (m->sidecars_remote) {
      /* A Hub folder's usual files, those the server has. */
      tool_error err;
      int found = 0;
      if (http_probe(source, "the sidecar file", &found, &err) != 0) {
        free(source);
        tool_scrub(&err);
        return tool_report(&err);
      }
      if (!found) {
        free(source);
        continue;
      }
    }
    c->name = m->sidecars[i];
    c->source = source;
    /* A source that cannot be read now fails its copy (66); meanwhile the most private bits. */
    struct stat st;
    s->modes[s->count] = m->sidecars_remote       ? 0644u
                         : stat(source, &st) == 0 ? (unsigned)st.st_mode
                                                  : 0600u;
    s->count++;
  }
  return 0;
}

/* Where the plan's made files start among the outputs, and where the sidecars start. */
static size_t first_made(const ckpt_plan *plan) {
  return plan->file_count + (plan->index_name != NULL);
}

static size_t first_sidecar(const ckpt_plan *plan) {
  return first_made(plan) + plan->made_count;
}

/* The output set: the plan's files, then its index, its made files, the sidecars and the
 * manifest; the model's files, index and sidecars are inputs. */
static int prepare(const ckpt_plan *plan, const ckpt_model *m, const ckpt_write_options *o,
                   const sidecars *s, out_set *out) {
  size_t sidecar_at = first_sidecar(plan);
  size_t count = sidecar_at + s->count + (o->manifest != NULL);
  char **names = calloc(count + 1, sizeof *names);
  const char **inputs = calloc(m->file_count + s->count + 2, sizeof *inputs);
  if (names == NULL || inputs == NULL) {
    free(names);
    free(inputs);
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < plan->file_count; i++) {
    names[i] = plan->files[i].name;
  }
  if (plan->index_name != NULL) {
    names[plan->file_count] = plan->index_name;
  }
  for (size_t i = 0; i < plan->made_count; i++) {
    names[first_made(plan) + i] = plan->made[i].name;
  }
  for (size_t i = 0; i < s->count; i++) {
    names[sidecar_at + i] = (char *)s->copies[i].name;
  }
  if (o->manifest != NULL) {
    names[count - 1] = (char *)o->manifest->name;
  }
  size_t input_count = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    inputs[input_count++] = m->files[i].path;
  }
  if (m->index_path != NULL) {
    inputs[input_count++] = m->index_path;
  }
  for (size_t i = 0; i < s->count; i++) {
    inputs[input_count++] = s->copies[i].source;
  }
  /* A manifest named after a file (a merge into OUT.gguf) goes beside that file among the other
   * files of its folder: the outputs are files among others, staged under the file's name. */
  const char *mf = o->manifest != NULL ? o->manifest->name : NULL;
  size_t mf_len = mf != NULL ? strlen(mf) : 0, suffix_len = strlen(CKPT_MANIFEST_SUFFIX);
  char *file = mf != NULL && strcmp(mf, CKPT_MANIFEST_NAME) != 0 && mf_len > suffix_len
                   ? strndup(mf, mf_len - suffix_len)
                   : NULL;
  /* So does a rank of a run of one rank (--rank): its folder may hold the other ranks' files,
   * written meanwhile by other runs; it is staged under the rank file's name. */
  if (o->manifest != NULL && o->manifest->run != NULL && plan->file_count > 0) {
    free(file);
    file = strdup(plan->files[0].name);
  }
  int rc = file != NULL ? out_set_init_files(out, o->outdir, file, names, count, inputs,
                                             input_count, o->force, o->sync, 1)
                        : out_set_init_folder(out, o->outdir, names, count, inputs, input_count,
                                              o->force, o->sync, o->manifest != NULL);
  free(file);
  out_set_watch_stale(out, o->stale_suffixes);
  out_set_expect(out, o->expected);
  /* The files made from the model's data (and its index and manifest) are no more readable than
   * the most readable of the model's files; a sidecar keeps its own bits. */
  unsigned widest = 0;
  for (size_t i = 0; i < m->file_count + (m->index_path != NULL); i++) {
    struct stat st;
    if (stat(i < m->file_count ? m->files[i].path : m->index_path, &st) == 0) {
      widest |= (unsigned)st.st_mode;
    }
  }
  out_set_limit_mode(out, widest);
  for (size_t i = 0; rc == 0 && i < s->count; i++) {
    rc = out_set_copy_mode(out, sidecar_at + i, s->modes[i]);
  }
  free(inputs);
  free(names);
  return rc;
}

/* Copies the sidecars to outputs `first` on, checksumming them. */
static int copy_sidecars(sidecars *s, const out_set *out, size_t first) {
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < s->count; i++) {
    ckpt_manifest_copy *c = &s->copies[i];
    tool_error err;
    io_source in;
    rc = io_source_open(&in, c->source, "the sidecar file", &err);
    if (rc != 0) {
      tool_scrub(&err);
      return tool_report(&err);
    }
    int fd;
    rc = out_set_open(out, first + i, &fd);
    if (rc == 0) {
      char path[OUT_PATH_BUF];
      if (ckpt_hash_copy(&in, fd, out_set_final(out, first + i, path, sizeof path), &c->bytes,
                         &c->hash, &err) != 0) {
        tool_scrub(&err);
        rc = tool_report(&err);
      }
      int close_rc = out_set_close(out, first + i, fd);
      rc = rc != 0 ? rc : close_rc;
    }
    io_source_close(&in);
  }
  return rc;
}

int ckpt_write_plan(const ckpt_plan *plan, const ckpt_model *model, const ckpt_write_options *o,
                    ckpt_before_commit before_commit, void *ctx) {
  /* The ranks' copies first: an input that breaks a rule (65) is reported before an output
   * that exists (73), and with nothing created. */
  int rc = ckpt_compare_copies(plan, model);
  if (rc != 0) {
    return rc;
  }
  out_set out;
  memset(&out, 0, sizeof out);
  sidecars side;
  ckpt_file_sums *sums = NULL;
  rc = pick_sidecars(plan, model, o, &side);
  if (rc == 0 && o->manifest != NULL) {
    sums = ckpt_sums_new(plan);
    rc = sums == NULL ? CLI_EXIT_SOFTWARE : 0;
  }
  rc = rc != 0 ? rc : prepare(plan, model, o, &side, &out);
  if (rc == 0) {
    rc = out_set_create(&out);
  }
  if (rc == 0) {
    uint64_t total = 0;
    for (size_t i = 0; i < plan->file_count; i++) {
      total += ckpt_out_file_size(&plan->files[i]);
    }
    progress pr;
    progress_init(&pr, o->progress, total);
    rc = ckpt_copy_plan(plan, model, &out, &pr, sums);
    progress_finish(&pr);
  }
  if (rc == 0 && plan->index_text != NULL) {
    rc = write_text_file(&out, plan->file_count, plan->index_text);
  }
  for (size_t i = 0; rc == 0 && i < plan->made_count; i++) {
    rc = write_text_file(&out, first_made(plan) + i, plan->made[i].text);
  }
  if (rc == 0) {
    rc = copy_sidecars(&side, &out, first_sidecar(plan));
  }
  if (rc == 0 && o->manifest != NULL) {
    rc = ckpt_manifest_write(plan, model, o->manifest, sums, side.copies, side.count, &out,
                             first_sidecar(plan) + side.count);
  }
  if (rc == 0 && before_commit != NULL) {
    rc = before_commit(ctx);
  }
  if (rc == 0) {
    rc = out_set_commit(&out);
  } else {
    out_set_abort(&out);
  }
  out_set_free(&out);
  sidecars_free(&side);
  ckpt_sums_free(plan, sums);
  return rc;
}
