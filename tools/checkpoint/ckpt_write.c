/* A plan written into OUTDIR all-or-nothing. */
#include "ckpt_write.h"

#include <stdlib.h>
#include <string.h>

#include "ckpt_copy.h"
#include "ckpt_verify.h"
#include "cli_util.h"
#include "io.h"
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

/* The output set: the plan's files, then its index, then the manifest; the model's files and
 * index are inputs. */
static int prepare(const ckpt_plan *plan, const ckpt_model *m, const ckpt_write_options *o,
                   out_set *out) {
  size_t count = plan->file_count + (plan->index_name != NULL) + (o->manifest != NULL);
  char **names = calloc(count + 1, sizeof *names);
  const char **inputs = calloc(m->file_count + 2, sizeof *inputs);
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
  if (o->manifest != NULL) {
    names[count - 1] = (char *)CKPT_MANIFEST_NAME;
  }
  size_t input_count = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    inputs[input_count++] = m->files[i].path;
  }
  if (m->index_path != NULL) {
    inputs[input_count++] = m->index_path;
  }
  int rc = out_set_init_folder(out, o->outdir, names, count, inputs, input_count, o->force, o->sync,
                               o->manifest != NULL);
  free(inputs);
  free(names);
  return rc;
}

int ckpt_write_plan(const ckpt_plan *plan, const ckpt_model *model, const ckpt_write_options *o,
                    ckpt_before_commit before_commit, void *ctx) {
  /* The ranks' copies first: an input that breaks a rule (65) is reported before an output
   * that exists (73), and with nothing created. */
  int rc = ckpt_verify_plan(plan, model);
  if (rc != 0) {
    return rc;
  }
  out_set out;
  memset(&out, 0, sizeof out);
  rc = prepare(plan, model, o, &out);
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
    rc = ckpt_copy_plan(plan, model, &out, &pr);
    progress_finish(&pr);
  }
  if (rc == 0 && plan->index_text != NULL) {
    rc = write_text_file(&out, plan->file_count, plan->index_text);
  }
  if (rc == 0 && o->manifest != NULL) {
    size_t index = plan->file_count + (plan->index_name != NULL);
    rc = ckpt_manifest_write(plan, model, o->manifest, NULL, 0, &out, index);
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
  return rc;
}
