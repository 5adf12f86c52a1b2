/*
 * cleave ir-run MODEL.xml --input NAME=FILE.npy ... [-o PREFIX]: executes an IR graph of
 * Parameter, Const, Split, VariadicSplit and Result layers (ir_run.c) and writes one .npy per
 * Result, all at once or not at all (tools/common/outputs.c).
 *
 * Everything is computed before the first output file is created. Output k is the k-th Result
 * layer in document order. Byte-sized outputs keep their input's dtype and byte order (Consts are
 * little-endian); packed sub-byte types and strings are written as 1-D uint8 arrays of their
 * bytes: packed types as OpenVINO packs them, strings in OpenVINO's packed string layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli_util.h"
#include "help.h"
#include "io.h"
#include "ir_commands.h"
#include "ir_open.h"
#include "ir_run.h"
#include "ir_strings.h"
#include "ir_types.h"
#include "outputs.h"
#include "report.h"
#include "stream.h"

enum { OPT_INPUT = 1, OPT_BIN, OPT_OUTPUT, OPT_FORCE, OPT_JSON, OPT_QUIET, OPT_SYNC, OPT_HELP };

static const cli_option run_options[] = {
    {"input", 'i', 1, OPT_INPUT}, {"bin", 0, 1, OPT_BIN},     {"output", 'o', 1, OPT_OUTPUT},
    {"force", 'f', 0, OPT_FORCE}, {"json", 0, 0, OPT_JSON},   {"quiet", 'q', 0, OPT_QUIET},
    {"sync", 0, 0, OPT_SYNC},     {"help", 'h', 0, OPT_HELP},
};

/* The command line. */
typedef struct run_args {
  const char *model, *bin, *prefix;
  int force, json, quiet, sync, help;
  ir_input *inputs; /* one per --input; the names are malloc'd */
  size_t num_inputs;
} run_args;

/* --input NAME=FILE. */
static int add_input(run_args *a, const char *value) {
  const char *eq = strchr(value, '=');
  if (eq == NULL || eq == value || eq[1] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "ir-run: --input '%s' is not NAME=FILE.npy", value);
  }
  char *name = strndup(value, (size_t)(eq - value));
  if (name == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  ir_input *in = &a->inputs[a->num_inputs++];
  in->name = name;
  in->path = eq + 1;
  in->fd = -1;
  for (size_t i = 0; i + 1 < a->num_inputs; i++) {
    if (strcmp(a->inputs[i].name, name) == 0) {
      return cli_error(CLI_EXIT_USAGE, "ir-run: --input %s is given twice", name);
    }
  }
  return 0;
}

static int parse_args(run_args *a, int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "ir-run");
  for (;;) {
    int id = 0;
    const char *value = NULL;
    int kind =
        cli_parser_next(&p, run_options, sizeof run_options / sizeof run_options[0], &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (a->model != NULL) {
        return cli_error(CLI_EXIT_USAGE, "ir-run: unexpected argument '%s' (one model only)",
                         value);
      }
      a->model = value;
      continue;
    }
    if (id == OPT_HELP) {
      a->help = 1;
      return 0;
    }
    if (id == OPT_INPUT) {
      int rc = add_input(a, value);
      if (rc != 0) {
        return rc;
      }
      continue;
    }
    a->bin = id == OPT_BIN ? value : a->bin;
    a->prefix = id == OPT_OUTPUT ? value : a->prefix;
    a->force |= id == OPT_FORCE;
    a->json |= id == OPT_JSON;
    a->quiet |= id == OPT_QUIET;
    a->sync |= id == OPT_SYNC;
  }
  if (a->model == NULL) {
    return cli_error(CLI_EXIT_USAGE, "ir-run: the model is missing (usage: cleave ir-run MODEL.xml "
                                     "--input NAME=FILE.npy ... [-o PREFIX])");
  }
  return 0;
}

/* Opens the model's inputs: a model that cannot be opened is reported first (66, as docs/cli.md
 * orders the checks), then each input that cannot be. */
static int open_inputs(const run_args *a) {
  tool_error err;
  FILE *probe = fopen(a->model, "rb");
  if (probe == NULL) {
    ir_model m;
    ir_model_load(a->model, &m, &err); /* says why, with status 66 */
    return tool_report(&err);
  }
  fclose(probe);
  for (size_t i = 0; i < a->num_inputs; i++) {
    ir_input *in = &a->inputs[i];
    if (io_open_regular(in->path, "input", &in->fd, &in->size, &err) != 0) {
      return tool_report(&err);
    }
  }
  return 0;
}

/* Writes Result k: a .npy of its type, or of its bytes (packed types, strings). */
static int write_output(out_set *set, size_t k, const ir_tensor *t) {
  tool_error err;
  unsigned char *packed = NULL;
  uint64_t size = (uint64_t)t->bytes;
  if (t->type.dtype == CLEAVE_STRING &&
      ir_strings_pack(t->data, (uint64_t)t->bytes / sizeof(cleave_string), &packed, &size, &err) !=
          0) {
    return tool_report(&err);
  }
  int raw = t->type.dtype == CLEAVE_STRING || ir_type_is_packed(t->type);
  int64_t byte_shape = (int64_t)size;
  unsigned char *header = NULL;
  size_t header_size = 0;
  int rc = raw ? npy_build_header("|u1", 0, &byte_shape, 1, &header, &header_size, &err)
               : npy_build_header(t->descr, 0, t->shape, t->rank, &header, &header_size, &err);
  if (rc != 0) {
    free(packed);
    return tool_report(&err);
  }
  int fd = -1;
  uint64_t pos = 0;
  rc = out_set_open(set, k, &fd);
  if (rc == 0) {
    rc = stream_write(set, k, fd, &pos, header, header_size);
  }
  if (rc == 0) {
    rc = stream_write(set, k, fd, &pos, packed != NULL ? packed : t->data, (size_t)size);
  }
  if (fd >= 0) {
    int close_rc = out_set_close(set, k, fd);
    rc = rc != 0 ? rc : close_rc;
  }
  free(header);
  free(packed);
  return rc;
}

/* Writes every Result and reports them, all-or-nothing. */
static int write_results(const run_args *a, const char *prefix, const ir_run *run) {
  out_set set;
  int rc = out_set_init(&set, prefix, run->num_results, a->force, a->sync);
  if (rc != 0) {
    return rc;
  }
  /* The Results come from the inputs and the weights: no more readable than the most readable
   * of them and the model. */
  struct stat st;
  unsigned widest = stat(a->model, &st) == 0 ? (unsigned)st.st_mode : 0;
  for (size_t i = 0; i < a->num_inputs; i++) {
    widest |= io_permissions(a->inputs[i].fd);
  }
  if (run->bin != NULL && run->bin->fd >= 0) {
    widest |= io_permissions(run->bin->fd);
  }
  out_set_limit_mode(&set, widest);
  rc = out_set_create(&set);
  for (size_t i = 0; i < run->num_results && rc == 0; i++) {
    rc = write_output(&set, i, run->results[i]);
  }
  if (rc == 0) {
    /* The report goes out before the commit: if stdout fails, nothing is left behind. */
    report r;
    char path[OUT_PATH_BUF];
    report_begin(&r, stdout, "ir-run", a->json, a->quiet);
    for (size_t i = 0; i < run->num_results; i++) {
      out_set_final_path(&set, i, path, sizeof path);
      report_output(&r, run->results[i]->shape, run->results[i]->rank, path);
    }
    rc = report_end(&r);
  }
  if (rc == 0) {
    rc = out_set_commit(&set);
  } else {
    out_set_abort(&set);
  }
  out_set_free(&set);
  return rc;
}

/* Runs the model on the opened inputs and writes the Results. */
static int run_model(const run_args *a, const char *prefix) {
  ir_model m;
  ir_bin bin;
  tool_error err;
  int rc = ir_open(a->model, a->bin, &m, &bin, &err);
  if (rc != 0) {
    return tool_report(&err);
  }
  ir_run run;
  memset(&run, 0, sizeof run);
  rc = ir_run_check_layers(&m, &err);
  if (rc == 0) {
    rc = ir_run_graph(&run, &m, &bin, a->inputs, a->num_inputs, &err);
  }
  if (rc != 0) {
    tool_report(&err);
  } else {
    rc = write_results(a, prefix, &run);
  }
  ir_run_free(&run);
  ir_open_close(&m, &bin);
  return rc;
}

int cmd_ir_run(int argc, char **argv, int first) {
  run_args a;
  memset(&a, 0, sizeof a);
  a.inputs = calloc((size_t)argc + 1, sizeof *a.inputs);
  if (a.inputs == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = parse_args(&a, argc, argv, first);
  char *own_prefix = NULL;
  if (rc == 0 && a.help) {
    help_print("ir-run", stdout);
  } else if (rc == 0) {
    own_prefix = out_resolve_prefix(a.prefix, a.model, ".xml");
    rc = own_prefix == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
    if (rc == 0) {
      rc = open_inputs(&a);
    }
    if (rc == 0) {
      rc = run_model(&a, own_prefix);
    }
  }
  for (size_t i = 0; i < a.num_inputs; i++) {
    free((char *)a.inputs[i].name);
    if (a.inputs[i].fd >= 0) {
      close(a.inputs[i].fd);
    }
  }
  free(a.inputs);
  free(own_prefix);
  return rc;
}
