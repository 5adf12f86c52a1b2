/* ls and check: a model's headers alone, whatever its format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_commands.h"
#include "ckpt_glob.h"
#include "ckpt_record.h"
#include "cli_util.h"
#include "json_out.h"

/* check: the model is valid (loading it checked every rule). */
static int report_check(const ckpt_command *c, const ckpt_model *m, const char *path,
                        size_t accepted) {
  const ckpt_run_options *o = &c->args.run;
  size_t files = m->file_count;
  uint64_t bytes = ckpt_model_bytes(m);
  if (o->json) {
    json_out j;
    json_out_begin(&j, stdout);
    json_out_object(&j, NULL);
    json_out_bool(&j, "ok", 1);
    json_out_uint(&j, "files", files);
    json_out_uint(&j, "tensors", m->tensor_count);
    json_out_uint(&j, "bytes", bytes);
    c->driver->report.check_json(m, &j, accepted);
    json_out_end_object(&j);
    return json_out_finish(&j);
  }
  if (!o->quiet) {
    char common[256];
    snprintf(common, sizeof common, "%zu %s, %zu %s, %llu %s of data", files,
             tool_plural(files, "file", "files"), m->tensor_count,
             tool_plural(m->tensor_count, "tensor", "tensors"), (unsigned long long)bytes,
             tool_plural(bytes, "byte", "bytes"));
    c->driver->report.check_text(m, path, common, accepted);
  }
  return 0;
}

/* ls: the tensors (matching --glob, when given), sorted by name; the metadata first with
 * --metadata. */
static int list(const ckpt_command *c, const ckpt_model *m, const char *path) {
  const ckpt_args *a = &c->args;
  int offsets = (c->driver->traits & CKPT_LISTS_OFFSETS) != 0;
  if (!ckpt_any_matches(m, a->glob)) {
    return cli_error(CLI_EXIT_DATA, "no tensor of '%s' matches '%s'%s", path, a->glob,
                     ckpt_glob_note(a->glob));
  }
  if (!a->run.json) {
    if (a->metadata && !a->run.quiet) {
      c->driver->report.metadata(m, NULL);
    }
    ckpt_list_tensors(m, a->glob, NULL, a->run.quiet, offsets);
    return 0;
  }
  json_out j;
  json_out_begin(&j, stdout);
  json_out_object(&j, NULL);
  if (a->metadata) {
    json_out_array(&j, "metadata");
    c->driver->report.metadata(m, &j);
    json_out_end_array(&j);
  }
  json_out_array(&j, "tensors");
  ckpt_list_tensors(m, a->glob, &j, a->run.quiet, offsets);
  json_out_end_array(&j);
  json_out_end_object(&j);
  return json_out_finish(&j);
}

int ckpt_run_inspect(ckpt_command *c) {
  const cli_args *p = &c->parsed;
  if (p->positional_count > 1) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s'", p->positional[1]);
  }
  if (p->positional_count == 0) {
    return cli_error(CLI_EXIT_USAGE, "the MODEL (%s) is missing",
                     c->driver != NULL ? c->driver->model_noun
                                       : "a safetensors or GGUF model: a file or a folder");
  }
  const char *path = p->positional[0];
  int rc = ckpt_command_find_format(c, path);
  if (rc != 0) {
    return rc;
  }
  ckpt_load_options load = {.strict = c->args.strict, .any_part = 1};
  ckpt_model *m = NULL;
  tool_error err;
  /* A folder of ranks (rank0 and on, as shard writes them) is read as its ranks; `check` also
   * checks their records: every rank of one run there (ckpt_record.h). */
  char *rank0 = NULL;
  struct stat st;
  int ranks = stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
              asprintf(&rank0, "%s/rank0%s", path, c->driver->suffix) >= 0 && stat(rank0, &st) == 0;
  free(rank0);
  char *paths[] = {(char *)path, NULL};
  rc = ranks ? c->driver->read.load_ranks(paths, 1, &m, &err)
             : c->driver->read.load(path, &load, &m, &err);
  if (rc == 0 && ranks && c->verb == CKPT_CHECK) {
    ckpt_record *records = NULL;
    size_t *order = calloc(m->file_count + 1, sizeof *order);
    int ordered = 0;
    rc = order == NULL
             ? tool_oom(&err, "checking the ranks")
             : ckpt_records_take(m, c->driver->text_kind, c->driver->read.forget, &records, &err);
    if (rc == 0) {
      rc = ckpt_records_order(m, records, order, &ordered, &err);
    }
    for (size_t r = 0; rc == 0 && ordered && r < m->file_count; r++) {
      if (order[r] != r) {
        rc = tool_fail(&err, CLI_EXIT_DATA,
                       "'%s' records rank %zu, not %zu as its name says: the folder mixes ranks",
                       m->files[order[r]].path, r, order[r]);
      }
    }
    ckpt_records_free(records, m->file_count);
    free(order);
  }
  if (rc != 0) {
    /* Errors are never JSON (docs/cli.md): the message on stderr, nothing on stdout. As a
     * warning of the reader names its file first, so does its error (--strict). */
    ckpt_command_report(&err);
  } else {
    rc = c->verb == CKPT_CHECK ? report_check(c, m, path, load.accepted) : list(c, m, path);
  }
  c->driver->read.free_model(m);
  return ckpt_finish_stdout(rc);
}

static const cli_opt ls_options[] = {
    CLI_STRING(0, "glob", "PAT", ckpt_args, glob,
               "only tensors matching PAT ('*' any run of characters, '?' one, any other "
               "character itself); no match is an error (status 65)"),
    {.kind = CLI_OPT_FLAG,
     .long_name = "metadata",
     .help = "first list the metadata in header order: KEY<TAB>TYPE<TAB>VALUE<TAB>FILE (TYPE "
             "u8 ... f64, str, arr[TYPE,COUNT]; arrays show 8 elements)",
     .offset = offsetof(ckpt_args, metadata),
     .number = 1,
     .tag = CKPT_FORMAT_GGUF},
    CLI_FLAG(0, "json", ckpt_args, run.json,
             "print {" CKPT_GGUF_TEXT(
                 "\"metadata\": [{\"key\", \"type\", \"value\", \"file\"}] (with "
                 "--metadata), ") "\"tensors\": [{\"name\", \"dtype\", \"shape\", "
                                  "\"bytes\", " CKPT_GGUF_TEXT("\"offset\", ") "\"file\"}]}"),
    CLI_FLAG('q', "quiet", ckpt_args, run.quiet,
             "print nothing (the status says whether the model is valid)"),
    CLI_INCLUDE_SAME(cli_remote_options),
    CLI_END,
};

static const cli_opt check_options[] = {
    {.kind = CLI_OPT_FLAG,
     .long_name = "strict",
     .help = "make the warnings about departures from the canonical form errors (status 65, the "
             "same message)",
     .offset = offsetof(ckpt_args, strict),
     .number = 1,
     .tag = CKPT_FORMAT_ST},
    CLI_FLAG(0, "json", ckpt_args, run.json,
             "print {\"ok\": true, \"files\": N, \"tensors\": N, \"bytes\": N" CKPT_ST_TEXT(
                 ", \"warnings\": N")
                 CKPT_GGUF_TEXT(", \"metadata\": N, \"version\": N, "
                                "\"alignment\": N") "} (an error goes to stderr "
                                                    "as text, as for every "
                                                    "command)"),
    CLI_FLAG('q', "quiet", ckpt_args, run.quiet, "print nothing on success"),
    CLI_INCLUDE_SAME(cli_remote_options),
    CLI_END,
};

const cli_spec ckpt_inspect_specs[2] = {
    {.usage = "cleave {cmd} MODEL [--glob PAT] [--json] [-q]",
     .about = "Lists every tensor from the headers alone (of every rank, for a folder of ranks), "
              "sorted\n"
              "by name, one per line:\n"
              "NAME<TAB>DTYPE<TAB>[SHAPE]<TAB>BYTES<TAB>FILE (control characters of a name are "
              "shown as\n"
              "\\xNN, a backslash as two). The model is fully checked first.\n",
     .options = ls_options},
    {.usage = "cleave {cmd} MODEL [--json] [-q]",
     .about = "Checks every format rule of every file of MODEL, and that its files agree with "
              "each other\n"
              "(an index with its shards, a split set's parts; a folder of ranks: every rank of "
              "one run,\n"
              "as their records say). Exit 0 (valid) or 65 with the file, the byte offset and the "
              "tensor\n"
              "or field; 66 when MODEL cannot be opened. Reads headers only.\n",
     .options = check_options},
};
