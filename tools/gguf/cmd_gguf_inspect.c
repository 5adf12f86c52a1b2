/* cleave gguf ls and cleave gguf check: the headers alone. */
#include <stdio.h>
#include <string.h>

#include "ckpt_glob.h"
#include "cli_util.h"
#include "gguf_cli.h"
#include "gguf_print.h"
#include "help.h"
#include "json_out.h"

/* gguf check: the model is valid (loading it checked every rule). */
static int report_check(const gguf_model *m, const char *path, int json, int quiet) {
  size_t files = m->ckpt.file_count, meta = 0;
  for (size_t i = 0; i < files; i++) {
    meta += m->ckpt.files[i].meta_count;
  }
  if (json) {
    json_out j;
    json_out_begin(&j, stdout);
    json_out_object(&j, NULL);
    json_out_bool(&j, "ok", 1);
    json_out_uint(&j, "files", files);
    json_out_uint(&j, "tensors", m->ckpt.tensor_count);
    json_out_uint(&j, "bytes", ckpt_model_bytes(&m->ckpt));
    json_out_uint(&j, "metadata", meta);
    json_out_uint(&j, "version", m->info[0].version);
    json_out_uint(&j, "alignment", m->info[0].alignment);
    json_out_end_object(&j);
    return json_out_finish(&j);
  }
  if (!quiet) {
    uint64_t bytes = ckpt_model_bytes(&m->ckpt);
    printf("%s: ok: GGUF v%u, %zu %s, %zu %s, %llu %s of data, %zu metadata %s\n", path,
           (unsigned)m->info[0].version, files, tool_plural(files, "file", "files"),
           m->ckpt.tensor_count, tool_plural(m->ckpt.tensor_count, "tensor", "tensors"),
           (unsigned long long)bytes, tool_plural(bytes, "byte", "bytes"), meta,
           tool_plural(meta, "entry", "entries"));
  }
  return 0;
}

/* The metadata of every file, in header order. */
static void list_metadata(const gguf_model *m, json_out *j, int json) {
  for (size_t f = 0; f < m->ckpt.file_count; f++) {
    const ckpt_file *file = &m->ckpt.files[f];
    for (size_t k = 0; k < file->meta_count; k++) {
      const ckpt_meta *e = &file->meta[m->info[f].order[k]];
      char type[64];
      gguf_print_type(e, type, sizeof type);
      if (json) {
        json_out_object(j, NULL);
        json_out_string(j, "key", e->key);
        json_out_string(j, "type", type);
        gguf_json_value(j, "value", e);
        json_out_string(j, "file", file->name);
        json_out_end_object(j);
      } else {
        ckpt_print_text(e->key);
        printf("\t%s\t", type);
        gguf_print_value(e);
        printf("\t%s\n", file->name);
      }
    }
  }
}

/* gguf ls: the tensors (matching `glob`, when given), sorted by name; the metadata first with
 * --metadata. */
static int list(const gguf_model *m, const char *path, const char *glob, int metadata, int json,
                int quiet) {
  if (!ckpt_any_matches(&m->ckpt, glob)) {
    return cli_error(CLI_EXIT_DATA, "gguf ls: no tensor of '%s' matches '%s'%s", path, glob,
                     ckpt_glob_note(glob));
  }
  if (!json) {
    if (metadata && !quiet) {
      list_metadata(m, NULL, 0);
    }
    ckpt_list_tensors(&m->ckpt, glob, NULL, quiet, 1);
    return 0;
  }
  json_out j;
  json_out_begin(&j, stdout);
  json_out_object(&j, NULL);
  if (metadata) {
    json_out_array(&j, "metadata");
    list_metadata(m, &j, 1);
    json_out_end_array(&j);
  }
  json_out_array(&j, "tensors");
  ckpt_list_tensors(&m->ckpt, glob, &j, quiet, 1);
  json_out_end_array(&j);
  json_out_end_object(&j);
  return json_out_finish(&j);
}

int cmd_gguf_inspect(int argc, char **argv, int first, int is_check) {
  const char *name = is_check ? "gguf check" : "gguf ls";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, name);
  int json = 0, quiet = 0, metadata = 0;
  const char *path = NULL, *glob = NULL;
  for (;;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, gguf_inspect_options, gguf_inspect_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (path != NULL) {
        return cli_error(CLI_EXIT_USAGE, "%s: unexpected argument '%s'", name, value);
      }
      path = value;
    } else if (id == GOPT_HELP) {
      help_print(name, stdout);
      return 0;
    } else if (id == GOPT_JSON) {
      json = 1;
    } else if (id == GOPT_QUIET) {
      quiet = 1;
    } else if (id == GOPT_GLOB && !is_check) {
      glob = value;
    } else if (id == GOPT_METADATA && !is_check) {
      metadata = 1;
    } else {
      return cli_error(CLI_EXIT_USAGE, "%s: --glob and --metadata belong to 'gguf ls'", name);
    }
  }
  if (path == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the MODEL (a .gguf file, or the first of a split set) "
                     "is missing",
                     name);
  }
  gguf_model m;
  tool_error err;
  int rc = gguf_model_load(path, &m, &err);
  if (rc != 0) {
    /* Errors are never JSON (docs/cli.md): the message on stderr, nothing on stdout. */
    gguf_report(&err);
  } else {
    rc = is_check ? report_check(&m, path, json, quiet)
                  : list(&m, path, glob, metadata, json, quiet);
  }
  gguf_model_free(&m);
  return ckpt_finish_stdout(rc);
}
