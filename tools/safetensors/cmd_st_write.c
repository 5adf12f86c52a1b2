/* What the `cleave st` commands share: option tables, reports, and writing a plan. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_write.h"
#include "cli_util.h"
#include "json_out.h"
#include "shape_format.h"
#include "st_cli.h"

const cli_option st_common_options[] = {
    {"help", 'h', 0, OPT_HELP}, {"json", 0, 0, OPT_JSON},     {"quiet", 'q', 0, OPT_QUIET},
    {"glob", 0, 1, OPT_GLOB},   {"strict", 0, 0, OPT_STRICT},
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
    {"unmatched", 0, 1, OPT_UNMATCHED}, {"max-shard-size", 0, 1, OPT_MAX_SHARD_SIZE},
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

int st_finish_stdout(int rc) {
  if (fflush(stdout) != 0 && rc == 0) {
    rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
  }
  return rc;
}

int st_report(tool_error *err) {
  tool_scrub(err);
  return tool_report(err);
}

int st_load(const char *path, st_model *m) {
  tool_error err;
  int rc = st_model_load(path, m, &err);
  return rc != 0 ? st_report(&err) : 0;
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

/* The report of a run. */
typedef struct report_ctx {
  const ckpt_plan *plan;
  const st_model *m;
  const write_opts *o;
  const char *cmd;
} report_ctx;

/* Output i's path in OUTDIR, as the report shows it. */
static void output_path(const write_opts *o, const char *name, char *buf, size_t size) {
  size_t n = strlen(o->outdir);
  snprintf(buf, size, "%s%s%s", o->outdir, n > 0 && o->outdir[n - 1] == '/' ? "" : "/", name);
}

/* The tensors of output file f and where they come from (--dry-run). */
/* The input files output tensor t reads (merge and reshard: several ranks), in the order of its
 * spans: the "source_files" array, or "(FILE)", "(FILE, FILE)", "(FIRST .. LAST, N files)". */
static void report_sources(const report_ctx *r, const ckpt_out_file *f, const ckpt_out_tensor *t,
                           json_out *j) {
  const ckpt_span *spans = ckpt_out_spans(f, t);
  const ckpt_file *files = r->m->ckpt.files;
  size_t n = t->span_count, count = 0, first = 0, last = 0;
  if (j != NULL) {
    json_out_array(j, "source_files");
  }
  /* A tensor of no bytes may have no span: its source's file. */
  for (size_t i = 0; i < (n > 0 ? n : 1); i++) {
    size_t file = n > 0 ? spans[i].src_file : t->source->file;
    if (count > 0 && file == last) {
      continue;
    }
    if (j != NULL) {
      json_out_string(j, NULL, files[file].name);
    }
    first = count == 0 ? file : first;
    last = file;
    count++;
  }
  if (j != NULL) {
    json_out_end_array(j);
  } else if (count == 1) {
    printf(" (%s)\n", files[first].name);
  } else if (count == 2) {
    printf(" (%s, %s)\n", files[first].name, files[last].name);
  } else {
    printf(" (%s .. %s, %zu files)\n", files[first].name, files[last].name, count);
  }
}

static void report_tensors(const report_ctx *r, const ckpt_out_file *f, json_out *j) {
  for (size_t k = 0; k < f->tensor_count; k++) {
    const ckpt_out_tensor *t = &f->tensors[k];
    const char *source_file = r->m->ckpt.files[t->source->file].name;
    if (j != NULL) {
      json_out_object(j, NULL);
      json_out_string(j, "name", t->name);
      json_out_string(j, "dtype", t->dtype->name);
      json_out_dims(j, "shape", t->shape, (size_t)t->ndim);
      json_out_uint(j, "bytes", t->bytes);
      json_out_string(j, "source", t->source->name);
      json_out_string(j, "source_file", source_file);
      report_sources(r, f, t, j);
      json_out_end_object(j);
    } else {
      fputs("  ", stdout);
      st_print_text(t->name);
      printf("\t%s\t", t->dtype->name);
      shape_print(stdout, t->shape, (size_t)t->ndim);
      printf("\t%llu\t<- ", (unsigned long long)t->bytes);
      st_print_text(t->source->name);
      report_sources(r, f, t, NULL);
    }
  }
}

/* Prints the plan (dry run, `detailed`) or the outputs written. */
static int report(const report_ctx *r, int detailed) {
  const write_opts *o = r->o;
  if (o->quiet && !o->json) {
    return 0;
  }
  json_out j;
  if (o->json) {
    json_out_begin(&j, stdout);
    json_out_object(&j, NULL);
    json_out_string(&j, "command", r->cmd);
    json_out_bool(&j, "dry_run", o->dry_run);
    json_out_array(&j, "outputs");
  }
  char path[4096];
  for (size_t i = 0; i < r->plan->file_count; i++) {
    const ckpt_out_file *f = &r->plan->files[i];
    unsigned long long size = ckpt_out_file_size(f);
    output_path(o, f->name, path, sizeof path);
    if (o->json) {
      json_out_object(&j, NULL);
      json_out_string(&j, "path", path);
      json_out_uint(&j, "tensors", f->tensor_count);
      json_out_uint(&j, "bytes", size);
      if (detailed) {
        json_out_array(&j, "plan");
        report_tensors(r, f, &j);
        json_out_end_array(&j);
      }
      json_out_end_object(&j);
    } else {
      printf("%s\t%zu %s\t%llu %s\n", path, f->tensor_count,
             tool_plural(f->tensor_count, "tensor", "tensors"), size,
             tool_plural(size, "byte", "bytes"));
      if (detailed) {
        report_tensors(r, f, NULL);
      }
    }
  }
  if (r->plan->index_name != NULL) {
    output_path(o, r->plan->index_name, path, sizeof path);
    if (o->json) {
      json_out_object(&j, NULL);
      json_out_string(&j, "path", path);
      json_out_string(&j, "kind", "index");
      json_out_end_object(&j);
    } else {
      printf("%s\tindex\n", path);
    }
  }
  if (o->json) {
    json_out_end_array(&j);
    json_out_end_object(&j);
    return json_out_finish(&j);
  }
  return 0;
}

/* The report goes out before the commit: a closed stdout fails the run with nothing written,
 * like the .npy commands. */
static int report_before_commit(void *ctx) {
  int rc = report(ctx, 0);
  if (rc == 0 && fflush(stdout) != 0) {
    rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
  }
  return rc;
}

/* A safetensors checkpoint's files: an earlier run's that this one did not replace are named
 * after the commit, as a loader of the folder would read them with the new ones. */
static const char *const checkpoint_files[] = {".safetensors", ".safetensors.index.json", NULL};

int st_execute(const ckpt_plan *plan, const st_model *m, const write_opts *o, const char *cmd) {
  report_ctx r = {plan, m, o, cmd};
  if (o->dry_run) {
    return st_finish_stdout(report(&r, 1));
  }
  ckpt_write_options w = {o->outdir, o->force, o->sync, o->progress && !o->quiet && isatty(2),
                          checkpoint_files};
  return ckpt_write_plan(plan, &m->ckpt, &w, report_before_commit, &r);
}
