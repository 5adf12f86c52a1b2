/* Shared helpers of the `cleave st` commands: reports and all-or-nothing writing of a plan. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "outputs.h"
#include "progress.h"
#include "st_cli.h"
#include "st_copy.h"

const cli_option st_common_options[] = {
    {"help", 'h', 0, OPT_HELP},
    {"json", 0, 0, OPT_JSON},
    {"quiet", 'q', 0, OPT_QUIET},
    {"glob", 0, 1, OPT_GLOB},
};

const cli_option st_write_options[] = {
    {"help", 'h', 0, OPT_HELP},         {"json", 0, 0, OPT_JSON},
    {"quiet", 'q', 0, OPT_QUIET},       {"output", 'o', 1, OPT_OUTPUT},
    {"force", 'f', 0, OPT_FORCE},       {"sync", 0, 0, OPT_SYNC},
    {"dry-run", 0, 0, OPT_DRY_RUN},     {"no-progress", 0, 0, OPT_NO_PROGRESS},
    {"tensor", 0, 1, OPT_TENSOR},       {"view", 0, 1, OPT_VIEW},
    {"axis", 'a', 1, OPT_AXIS},         {"num-splits", 'n', 1, OPT_NUM},
    {"lengths", 'l', 1, OPT_LENGTHS},   {"into", 0, 1, OPT_INTO},
    {"rules", 0, 1, OPT_RULES},         {"replicate", 0, 1, OPT_REPLICATE},
    {"unmatched", 0, 1, OPT_UNMATCHED},
};
const size_t st_common_option_count = sizeof st_common_options / sizeof st_common_options[0];
const size_t st_write_option_count = sizeof st_write_options / sizeof st_write_options[0];

void st_print_text(const char *text) {
  for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
    if (*c == '\\') {
      fputs("\\\\", stdout);
    } else if (*c < 0x20 || *c == 0x7f) {
      printf("\\x%02x", *c);
    } else {
      putchar(*c);
    }
  }
}

int st_print_json(json_t *root) {
  int rc = 0;
  if (root == NULL || json_dumpf(root, stdout, JSON_COMPACT) != 0) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the JSON report");
  }
  json_decref(root);
  fputc('\n', stdout);
  return rc;
}

int st_finish_stdout(int rc) {
  if (fflush(stdout) != 0 && rc == 0) {
    rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
  }
  return rc;
}

json_t *st_shape_json(const int64_t *shape, int ndim) {
  json_t *a = json_array();
  for (int d = 0; d < ndim && a != NULL; d++) {
    json_array_append_new(a, json_integer((json_int_t)shape[d]));
  }
  return a;
}

int st_load(const char *path, st_model *m) {
  st_error err;
  int rc = st_model_load(path, m, &err);
  if (rc != 0) {
    cli_error(rc, "%s", err.message);
  }
  return rc;
}

int st_parse_write_common(int id, const char *value, write_opts *o) {
  switch (id) {
  case OPT_OUTPUT:
    o->outdir = value;
    return 1;
  case OPT_FORCE:
    o->force = 1;
    return 1;
  case OPT_SYNC:
    o->sync = 1;
    return 1;
  case OPT_DRY_RUN:
    o->dry_run = 1;
    return 1;
  case OPT_JSON:
    o->json = 1;
    return 1;
  case OPT_QUIET:
    o->quiet = 1;
    return 1;
  case OPT_NO_PROGRESS:
    o->progress = 0;
    return 1;
  default:
    return 0;
  }
}

/* Prints the plan (dry run) or the outputs written. */
static int report(const st_plan *plan, const st_model *m, const write_opts *o, const char *cmd,
                  int detailed) {
  if (o->quiet && !o->json) {
    return 0;
  }
  json_t *outs = o->json ? json_array() : NULL;
  size_t n = strlen(o->outdir);
  const char *sep = n > 0 && o->outdir[n - 1] == '/' ? "" : "/";
  for (size_t i = 0; i < plan->file_count; i++) {
    const st_out_file *f = &plan->files[i];
    unsigned long long size = 8 + f->header_size + f->data_size;
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", o->outdir, sep, f->name);
    if (!o->json) {
      printf("%s\t%zu tensors\t%llu bytes\n", path, f->count, size);
    }
    json_t *tensors = o->json && detailed ? json_array() : NULL;
    for (size_t k = 0; detailed && k < f->count; k++) {
      const st_piece *p = &f->pieces[k];
      if (o->json) {
        json_array_append_new(tensors,
                              json_pack("{s:s,s:s,s:o,s:I,s:s,s:s}", "name", p->name, "dtype",
                                        p->dtype->name, "shape", st_shape_json(p->shape, p->ndim),
                                        "bytes", (json_int_t)(p->end - p->begin), "source",
                                        p->source, "source_file", m->file_names[p->src_file]));
      } else {
        char shape[1024];
        st_shape_text(p->shape, p->ndim, shape, sizeof shape);
        fputs("  ", stdout);
        st_print_text(p->name);
        printf("\t%s\t%s\t%llu\t<- ", p->dtype->name, shape,
               (unsigned long long)(p->end - p->begin));
        st_print_text(p->source);
        printf(" (%s)\n", m->file_names[p->src_file]);
      }
    }
    if (o->json) {
      json_t *e = json_pack("{s:s,s:I,s:I}", "path", path, "tensors", (json_int_t)f->count, "bytes",
                            (json_int_t)size);
      if (tensors != NULL) {
        json_object_set_new(e, "plan", tensors);
      }
      json_array_append_new(outs, e);
    }
  }
  if (plan->index_name != NULL) {
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", o->outdir, sep, plan->index_name);
    if (o->json) {
      json_array_append_new(outs, json_pack("{s:s,s:s}", "path", path, "kind", "index"));
    } else {
      printf("%s\tindex\n", path);
    }
  }
  if (o->json) {
    return st_print_json(
        json_pack("{s:s,s:b,s:o}", "command", cmd, "dry_run", o->dry_run, "outputs", outs));
  }
  return 0;
}

static int write_text_file(const out_set *out, size_t i, const char *text) {
  int fd;
  int rc = out_set_open(out, i, &fd);
  if (rc != 0) {
    return rc;
  }
  size_t n = strlen(text), done = 0;
  while (done < n) {
    ssize_t w = write(fd, text + done, n - done);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      int e = w == 0 ? ENOSPC : errno;
      char pbuf[OUT_PATH_BUF];
      const char *path = out_set_final(out, i, pbuf, sizeof pbuf);
      rc = cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", path, strerror(e));
      break;
    }
    done += (size_t)w;
  }
  int close_rc = out_set_close(out, i, fd);
  return rc != 0 ? rc : close_rc;
}

/* Writes the plan's files (and index, last) to OUTDIR all-or-nothing. */
int st_execute(const st_plan *plan, const st_model *m, const write_opts *o, const char *cmd) {
  if (o->dry_run) {
    return st_finish_stdout(report(plan, m, o, cmd, 1));
  }
  size_t count = plan->file_count + (plan->index_name != NULL);
  char **names = calloc(count + 1, sizeof *names);
  if (names == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < plan->file_count; i++) {
    names[i] = plan->files[i].name;
  }
  if (plan->index_name != NULL) {
    names[plan->file_count] = plan->index_name;
  }
  /* An output that is one of the inputs (the model's files and index) is refused without -f. */
  const char **inputs = calloc(m->file_count + 1, sizeof *inputs);
  if (inputs == NULL) {
    free(names);
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t input_count = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    inputs[input_count++] = m->files[i].path;
  }
  if (m->index_path != NULL) {
    inputs[input_count++] = m->index_path;
  }
  out_set out;
  int rc =
      out_set_init_folder(&out, o->outdir, names, count, inputs, input_count, o->force, o->sync);
  free(inputs);
  free(names);
  if (rc == 0) {
    rc = out_set_create(&out);
  }
  if (rc == 0) {
    unsigned long long total = 0;
    for (size_t i = 0; i < plan->file_count; i++) {
      total += plan->files[i].data_size + plan->files[i].header_size + 8;
    }
    progress pr;
    progress_init(&pr, o->progress && !o->quiet && isatty(2), total);
    rc = st_copy_plan(plan, m, &out, &pr);
    progress_finish(&pr);
  }
  if (rc == 0 && plan->index_text != NULL) {
    rc = write_text_file(&out, plan->file_count, plan->index_text);
  }
  if (rc == 0) {
    /* The report goes out before the commit: a closed stdout fails the run with nothing
     * written, like the .npy commands. */
    rc = report(plan, m, o, cmd, 0);
    if (rc == 0 && fflush(stdout) != 0) {
      rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
    }
  }
  if (rc == 0) {
    rc = out_set_commit(&out);
  } else {
    out_set_abort(&out);
  }
  out_set_free(&out);
  return rc;
}
