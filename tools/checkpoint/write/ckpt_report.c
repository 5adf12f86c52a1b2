/* Running a plan: the dry run's plan, or the outputs written, in text or JSON. */
#include "ckpt_report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_glob.h"
#include "ckpt_write.h"
#include "cli_util.h"
#include "json_out.h"
#include "shape_format.h"

void ckpt_print_text(const char *text) {
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

int ckpt_any_matches(const ckpt_model *m, const char *glob) {
  if (glob == NULL) {
    return 1;
  }
  for (size_t i = 0; i < m->tensor_count; i++) {
    if (ckpt_glob_match(glob, m->by_name[i]->name, NULL)) {
      return 1;
    }
  }
  return 0;
}

/* What ls and the plan say first of a tensor, in JSON (an object opened) or as text columns
 * ("NAME\tDTYPE\tSHAPE\tBYTES\t"). */
static void tensor_head(json_out *j, const char *name, const char *dtype, const int64_t *shape,
                        int ndim, uint64_t bytes) {
  if (j != NULL) {
    json_out_object(j, NULL);
    json_out_string(j, "name", name);
    json_out_string(j, "dtype", dtype);
    json_out_dims(j, "shape", shape, (size_t)ndim);
    json_out_uint(j, "bytes", bytes);
    return;
  }
  ckpt_print_text(name);
  printf("\t%s\t", dtype);
  shape_print(stdout, shape, (size_t)ndim);
  printf("\t%llu\t", (unsigned long long)bytes);
}

void ckpt_list_tensors(const ckpt_model *m, const char *glob, json_out *j, int quiet,
                       int with_offset) {
  for (size_t i = 0; i < m->tensor_count; i++) {
    const ckpt_tensor *t = m->by_name[i];
    if (glob != NULL && !ckpt_glob_match(glob, t->name, NULL)) {
      continue;
    }
    const char *file = m->files[t->file].name;
    if (j == NULL && quiet) {
      continue;
    }
    tensor_head(j, t->name, t->dtype->name, t->shape, t->ndim, t->bytes);
    if (j != NULL) {
      if (with_offset) {
        json_out_uint(j, "offset", t->offset);
      }
      json_out_string(j, "file", file);
      json_out_end_object(j);
    } else {
      printf("%s\n", file);
    }
  }
}

int ckpt_finish_stdout(int rc) {
  if (fflush(stdout) != 0 && rc == 0) {
    rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
  }
  return rc;
}

typedef struct report_ctx {
  const ckpt_plan *plan;
  const ckpt_model *m;
  const ckpt_run_options *o;
  const char *cmd;
} report_ctx;

static void output_path(const ckpt_run_options *o, const char *name, char *buf, size_t size) {
  size_t n = strlen(o->outdir);
  snprintf(buf, size, "%s%s%s", o->outdir, n > 0 && o->outdir[n - 1] == '/' ? "" : "/", name);
}

/* The input files output tensor t reads (merge and reshard: several ranks), in the order of its
 * spans: the "source_files" array, or "(FILE)", "(FILE, FILE)", "(FIRST .. LAST, N files)". */
static void report_sources(const report_ctx *r, const ckpt_out_file *f, const ckpt_out_tensor *t,
                           json_out *j) {
  const ckpt_span *spans = ckpt_out_spans(f, t);
  const ckpt_file *files = r->m->files;
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

/* Where output tensor t lies in the whole tensor (ckpt_slice): in JSON "cut": {"axis", "dim",
 * "ranges": [[BEGIN, END], ...], "view" (when the cut has one)}; in text ", axis A, B:E of D"
 * (after "viewed as [SHAPE]"), several ranges separated by spaces. Nothing for a whole tensor. */
static void report_slice(const ckpt_out_tensor *t, json_out *j) {
  const ckpt_slice *s = &t->slice;
  if (s->count == 0) {
    return;
  }
  if (j != NULL) {
    json_out_object(j, "cut");
    json_out_int(j, "axis", s->axis);
    json_out_int(j, "dim", s->dim);
    json_out_array(j, "ranges");
    for (int i = 0; i < s->count; i++) {
      json_out_array(j, NULL);
      json_out_int(j, NULL, s->begin[i]);
      json_out_int(j, NULL, s->end[i]);
      json_out_end_array(j);
    }
    json_out_end_array(j);
    if (s->view_ndim > 0) {
      json_out_dims(j, "view", s->view, (size_t)s->view_ndim);
    }
    json_out_end_object(j);
    return;
  }
  if (s->view_ndim > 0) {
    fputs(" viewed as ", stdout);
    shape_print(stdout, s->view, (size_t)s->view_ndim);
  }
  printf(", axis %d,", s->axis);
  for (int i = 0; i < s->count; i++) {
    printf(" %lld:%lld", (long long)s->begin[i], (long long)s->end[i]);
  }
  printf(" of %lld", (long long)s->dim);
}

/* --outtype's conversion of t: ", F32 as BF16" (", F8_E4M3 dequantized to BF16"), or "cast":
 * {"from", "to", "dequantize"}; nothing for a tensor written as it is. */
static void report_cast(const ckpt_out_tensor *t, json_out *j) {
  if (t->cast_from == NULL) {
    return;
  }
  if (j != NULL) {
    json_out_object(j, "cast");
    json_out_string(j, "from", t->cast_from->name);
    json_out_string(j, "to", t->dtype->name);
    json_out_bool(j, "dequantize", t->dequantize);
    json_out_end_object(j);
    return;
  }
  printf(", %s %s %s", t->cast_from->name, t->dequantize ? "dequantized to" : "as", t->dtype->name);
}

static void report_tensors(const report_ctx *r, const ckpt_out_file *f, json_out *j) {
  for (size_t k = 0; k < f->tensor_count; k++) {
    const ckpt_out_tensor *t = &f->tensors[k];
    const char *source_file = r->m->files[t->source->file].name;
    if (j == NULL) {
      fputs("  ", stdout);
    }
    tensor_head(j, t->name, t->dtype->name, t->shape, t->ndim, t->bytes);
    if (j != NULL) {
      json_out_string(j, "source", t->source->name);
      json_out_string(j, "source_file", source_file);
      report_slice(t, j);
      report_cast(t, j);
      report_sources(r, f, t, j);
      json_out_end_object(j);
    } else {
      fputs("<- ", stdout);
      ckpt_print_text(t->source->name);
      report_slice(t, NULL);
      report_cast(t, NULL);
      report_sources(r, f, t, NULL);
    }
  }
}

/* A file of OUTDIR written whole (the index, a sidecar). */
static void report_whole(const ckpt_run_options *o, const char *name, const char *kind,
                         json_out *j) {
  char path[4096];
  output_path(o, name, path, sizeof path);
  if (o->json) {
    json_out_object(j, NULL);
    json_out_string(j, "path", path);
    json_out_string(j, "kind", kind);
    json_out_end_object(j);
  } else {
    ckpt_print_text(path);
    printf("\t%s\n", kind);
  }
}

static int report(const report_ctx *r, int detailed) {
  const ckpt_run_options *o = r->o;
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
    report_whole(o, r->plan->index_name, "index", &j);
  }
  for (size_t i = 0; i < r->plan->made_count; i++) {
    report_whole(o, r->plan->made[i].name, "generated", &j);
  }
  for (size_t i = 0; !o->no_sidecar && i < r->m->sidecar_count; i++) {
    if (ckpt_write_sidecar(r->plan, r->m, o->outdir, i)) {
      report_whole(o, r->m->sidecars[i], "sidecar", &j);
    }
  }
  if (o->json) {
    json_out_end_array(&j);
    json_out_end_object(&j);
    return json_out_finish(&j);
  }
  return 0;
}

/* The report goes out before the commit: a closed stdout fails the run with nothing written. */
static int report_before_commit(void *ctx) {
  int rc = report(ctx, 0);
  if (rc == 0 && fflush(stdout) != 0) {
    rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
  }
  return rc;
}

int ckpt_run_plan(const ckpt_plan *plan, const ckpt_model *m, const ckpt_run_options *o,
                  const char *cmd) {
  report_ctx r = {plan, m, o, cmd};
  if (o->dry_run) {
    return ckpt_finish_stdout(report(&r, 1));
  }
  ckpt_manifest_info info = {cmd,
                             o->argc,
                             o->argv,
                             o->manifest_name != NULL ? o->manifest_name : CKPT_MANIFEST_NAME,
                             o->manifest_run,
                             o->manifest_rank,
                             o->manifest_ranks};
  ckpt_write_options w = {.outdir = o->outdir,
                          .force = o->force,
                          .sync = o->sync,
                          .progress = o->progress && !o->quiet && isatty(2),
                          .stale_suffixes = o->stale_suffixes,
                          .expected = o->expected,
                          .manifest = &info,
                          .sidecars = !o->no_sidecar};
  return ckpt_write_plan(plan, m, &w, report_before_commit, &r);
}
