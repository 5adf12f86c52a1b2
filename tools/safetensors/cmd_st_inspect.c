/* cleave st ls and cleave st check: the headers alone. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "help.h"
#include "st_cli.h"
#include "st_model.h"
#include "st_rules.h"

int cmd_st_inspect(int argc, char **argv, int first, int is_check) {
  const char *name = is_check ? "st check" : "st ls";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, name);
  int json = 0, quiet = 0;
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
    } else {
      return cli_error(CLI_EXIT_USAGE, "%s: --glob belongs to 'st ls'", name);
    }
  }
  if (model_path == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the MODEL (a .safetensors file, an index or a folder) "
                     "is missing",
                     name);
  }
  st_model m;
  st_error err;
  int rc = st_model_load(model_path, &m, &err);
  if (rc != 0) {
    cli_error(rc, "%s", err.message);
    if (is_check && json) {
      json_t *o = json_pack("{s:b,s:i,s:s}", "ok", 0, "status", rc, "error", err.message);
      st_print_json(o);
    }
    st_model_free(&m);
    return st_finish_stdout(rc);
  }
  if (is_check) {
    size_t files = m.file_count;
    if (json) {
      json_t *o = json_pack("{s:b,s:I,s:I,s:I}", "ok", 1, "files", (json_int_t)files, "tensors",
                            (json_int_t)m.tensor_count, "bytes", (json_int_t)st_model_bytes(&m));
      rc = st_print_json(o);
    } else if (!quiet) {
      printf("%s: ok: %zu file%s, %zu tensors, %llu bytes of data\n", model_path, files,
             files == 1 ? "" : "s", m.tensor_count, st_model_bytes(&m));
    }
    st_model_free(&m);
    return st_finish_stdout(rc);
  }
  json_t *list = json ? json_array() : NULL;
  size_t shown = 0;
  for (size_t i = 0; i < m.tensor_count && rc == 0; i++) {
    const st_tensor *t = st_model_tensor(&m, m.sorted[i]);
    if (glob != NULL && !st_glob_match(glob, t->name, NULL)) {
      continue;
    }
    shown++;
    const char *file = m.file_names[m.sorted[i].file];
    if (json) {
      json_t *o = json_pack("{s:s,s:s,s:o,s:I,s:s}", "name", t->name, "dtype", t->dtype->name,
                            "shape", st_shape_json(t->shape, t->ndim), "bytes",
                            (json_int_t)st_tensor_bytes(t), "file", file);
      if (o == NULL || json_array_append_new(list, o) != 0) {
        rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      }
    } else if (!quiet) {
      char shape[1024];
      st_shape_text(t->shape, t->ndim, shape, sizeof shape);
      st_print_text(t->name);
      printf("\t%s\t%s\t%llu\t%s\n", t->dtype->name, shape, (unsigned long long)st_tensor_bytes(t),
             file);
    }
  }
  if (rc == 0 && json) {
    rc = st_print_json(json_pack("{s:o}", "tensors", list));
  } else {
    json_decref(list);
  }
  if (rc == 0 && glob != NULL && shown == 0) {
    rc = cli_error(CLI_EXIT_DATA, "st ls: no tensor of '%s' matches '%s'", model_path, glob);
  }
  st_model_free(&m);
  return st_finish_stdout(rc);
}
