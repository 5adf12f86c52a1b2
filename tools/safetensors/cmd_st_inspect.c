/* cleave st ls and cleave st check: the headers alone. */
#include <stdio.h>
#include <string.h>

#include "ckpt_glob.h"
#include "ckpt_report.h"
#include "cli_util.h"
#include "help.h"
#include "json_out.h"
#include "st_cli.h"
#include "st_model.h"

/* st check: the model is valid (loading it checked every rule). */
static int report_check(const st_model *m, const char *model_path, size_t warnings, int json,
                        int quiet) {
  size_t files = m->ckpt.file_count;
  if (json) {
    json_out j;
    json_out_begin(&j, stdout);
    json_out_object(&j, NULL);
    json_out_bool(&j, "ok", 1);
    json_out_uint(&j, "files", files);
    json_out_uint(&j, "tensors", m->ckpt.tensor_count);
    json_out_uint(&j, "bytes", ckpt_model_bytes(&m->ckpt));
    json_out_uint(&j, "warnings", warnings);
    json_out_end_object(&j);
    return json_out_finish(&j);
  }
  if (!quiet) {
    uint64_t bytes = ckpt_model_bytes(&m->ckpt);
    printf("%s: ok: %zu %s, %zu %s, %llu %s of data", model_path, files,
           tool_plural(files, "file", "files"), m->ckpt.tensor_count,
           tool_plural(m->ckpt.tensor_count, "tensor", "tensors"), (unsigned long long)bytes,
           tool_plural(bytes, "byte", "bytes"));
    if (warnings > 0) {
      printf("; %zu %s from the canonical form accepted (the warnings above; --strict refuses "
             "them)",
             warnings, tool_plural(warnings, "departure", "departures"));
    }
    putchar('\n');
  }
  return 0;
}

/* st ls: the tensors (matching `glob`, when given), sorted by name. */
static int list_tensors(const st_model *m, const char *model_path, const char *glob, int json,
                        int quiet) {
  if (!ckpt_any_matches(&m->ckpt, glob)) {
    return cli_error(CLI_EXIT_DATA, "st ls: no tensor of '%s' matches '%s'%s", model_path, glob,
                     ckpt_glob_note(glob));
  }
  if (!json) {
    ckpt_list_tensors(&m->ckpt, glob, NULL, quiet, 0);
    return 0;
  }
  json_out j;
  json_out_begin(&j, stdout);
  json_out_object(&j, NULL);
  json_out_array(&j, "tensors");
  ckpt_list_tensors(&m->ckpt, glob, &j, quiet, 0);
  json_out_end_array(&j);
  json_out_end_object(&j);
  return json_out_finish(&j);
}

int cmd_st_inspect(int argc, char **argv, int first, int is_check) {
  const char *name = is_check ? "st check" : "st ls";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, name);
  int json = 0, quiet = 0;
  st_leniency lenient = {0, 0, 0};
  const char *model_path = NULL, *glob = NULL;
  for (;;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, st_common_options, st_common_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (model_path != NULL) {
        return cli_error(CLI_EXIT_USAGE, "%s: unexpected argument '%s'", name, value);
      }
      model_path = value;
    } else if (id == OPT_HELP) {
      help_print(name, stdout);
      return 0;
    } else if (id == OPT_JSON) {
      json = 1;
    } else if (id == OPT_QUIET) {
      quiet = 1;
    } else if (id == OPT_GLOB && !is_check) {
      glob = value;
    } else if (id == OPT_STRICT && is_check) {
      lenient.strict = 1;
    } else {
      return cli_error(CLI_EXIT_USAGE, "%s: %s belongs to 'st %s'", name,
                       id == OPT_GLOB ? "--glob" : "--strict", id == OPT_GLOB ? "ls" : "check");
    }
  }
  if (model_path == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the MODEL (a .safetensors file, an index or a folder) "
                     "is missing",
                     name);
  }
  st_model m;
  tool_error err;
  int rc = st_model_load_with(model_path, &lenient, &m, &err);
  if (rc != 0) {
    /* Errors are never JSON (docs/cli.md): the message on stderr, nothing on stdout. */
    st_report(&err);
    st_model_free(&m);
    return ckpt_finish_stdout(rc);
  }
  rc = is_check ? report_check(&m, model_path, lenient.accepted, json, quiet)
                : list_tensors(&m, model_path, glob, json, quiet);
  st_model_free(&m);
  return ckpt_finish_stdout(rc);
}
