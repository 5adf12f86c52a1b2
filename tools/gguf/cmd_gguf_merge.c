/*
 * cleave gguf merge: a split set (gguf-split's or cleave's) back into one file, or into a set of
 * another size. The inverse of `gguf shard` (ranks concatenated along --axis rules) joins here
 * when the checkpoint layer plans merges: this is the case without --axis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "gguf_cli.h"
#include "help.h"

/* One output file holding every tensor of the set, in the set's order, with the first file's
 * metadata. */
static int plan_merge(const gguf_model *m, const char *name, ckpt_plan *plan, tool_error *err) {
  memset(plan, 0, sizeof *plan);
  int rc = ckpt_plan_files(plan, 1, err);
  ckpt_out_file *out = rc == 0 ? &plan->files[0] : NULL;
  if (rc == 0) {
    out->name = strdup(name);
    out->meta = m->ckpt.files[0].meta;
    out->meta_count = m->ckpt.files[0].meta_count;
    out->has_meta = 1;
    rc = out->name == NULL ? tool_oom(err, "planning the merge") : 0;
  }
  for (size_t f = 0; f < m->ckpt.file_count && rc == 0; f++) {
    const ckpt_file *file = &m->ckpt.files[f];
    for (size_t k = 0; k < file->tensor_count && rc == 0; k++) {
      ckpt_out_tensor t = ckpt_out_whole(&file->tensors[k]);
      ckpt_span span = ckpt_span_whole(&file->tensors[k]);
      if (ckpt_out_file_add(out, &t, &span, 1) != 0) {
        rc = tool_oom(err, "planning the merge");
      }
    }
  }
  return rc;
}

int cmd_gguf_merge(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "gguf merge");
  gguf_write_opts o;
  memset(&o, 0, sizeof o);
  o.run.progress = 1;
  o.run.argc = argc;
  o.run.argv = argv;
  char **parts = calloc((size_t)argc + 1, sizeof *parts);
  size_t part_count = 0;
  const char *output = NULL;
  int rc = parts == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  for (; rc == 0;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, gguf_write_options, gguf_write_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
    } else if (kind == CLI_NEXT_POSITIONAL) {
      parts[part_count++] = (char *)value;
    } else if (id == GOPT_HELP) {
      free(parts);
      help_print("gguf merge", stdout);
      return 0;
    } else if (id == GOPT_OUTPUT) {
      output = value;
    } else if (!gguf_parse_write_option(id, value, &o, &rc)) {
      rc = cli_error(CLI_EXIT_USAGE, "gguf merge: takes PART... -o OUT.gguf and the output "
                                     "options, not rules");
    }
  }
  if (rc == 0 && part_count == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf merge: the PARTs are missing");
  }
  if (rc == 0 && (output == NULL || output[0] == '\0')) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf merge: -o OUT.gguf is missing");
  }
  /* -o names the file: its folder is the output folder, its name the file's. */
  char *dir = NULL, *base = NULL;
  const char *name = NULL;
  if (rc == 0) {
    const char *slash = strrchr(output, '/');
    name = slash != NULL ? slash + 1 : output;
    dir = slash == output ? strdup("/")
          : slash != NULL ? strndup(output, (size_t)(slash - output))
                          : strdup(".");
    size_t n = strlen(name);
    base = strndup(name, n > 5 && strcmp(name + n - 5, ".gguf") == 0 ? n - 5 : n);
    if (dir == NULL || base == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    } else if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
      rc = cli_error(CLI_EXIT_USAGE, "gguf merge: -o '%s' does not name a file", output);
    }
    o.run.outdir = dir;
  }
  gguf_model m;
  memset(&m, 0, sizeof m);
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  tool_error err;
  if (rc == 0) {
    rc = gguf_model_load_parts(parts, part_count, &m, &err);
    if (rc == 0) {
      rc = plan_merge(&m, name, &plan, &err);
    }
    if (rc != 0) {
      tool_prefix(&err, "gguf merge");
      gguf_report(&err);
    }
  }
  if (rc == 0) {
    gguf_output_options out = {o.max_size, base, 0};
    rc = gguf_run(&m, &plan, &o, &out, "gguf merge");
  }
  ckpt_plan_free(&plan);
  gguf_model_free(&m);
  free(dir);
  free(base);
  free(parts);
  return rc;
}
