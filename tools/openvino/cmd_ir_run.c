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
#include "io.h"
#include "ir_commands.h"
#include "ir_open.h"
#include "ir_run.h"
#include "ir_strings.h"
#include "ir_types.h"
#include "outputs.h"
#include "report.h"
#include "stream.h"

/* The --input options: one per Parameter. */
typedef struct run_inputs {
  ir_input *items; /* room for every argument; the names are malloc'd */
  size_t count;
} run_inputs;

/* The command line. */
typedef struct run_args {
  const char *model, *bin, *prefix;
  int force, json, quiet, sync;
  run_inputs in;
} run_args;

/* --input NAME=FILE. */
static int take_input(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)opt;
  (void)place;
  run_inputs *a = target;
  const char *eq = strchr(value, '=');
  if (eq == NULL || eq == value || eq[1] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "--input '%s' is not NAME=FILE.npy", value);
  }
  char *name = strndup(value, (size_t)(eq - value));
  if (name == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  ir_input *in = &a->items[a->count++];
  in->name = name;
  in->path = eq + 1;
  in->fd = -1;
  for (size_t i = 0; i + 1 < a->count; i++) {
    if (strcmp(a->items[i].name, name) == 0) {
      return cli_error(CLI_EXIT_USAGE, "--input %s is given twice", name);
    }
  }
  return 0;
}

static const cli_opt run_options[] = {
    CLI_CALL('i', "input", "NAME=FILE", run_args, in, take_input, 0,
             "the data of the Parameter layer named NAME (one per Parameter)"),
    CLI_STRING(0, "bin", "FILE", run_args, bin,
               "the weights (default: MODEL with .xml replaced by .bin)"),
    CLI_STRING('o', "output", "PREFIX", run_args, prefix,
               "write Result k to PREFIX_k.npy (default: MODEL without .xml); an existing "
               "directory or a PREFIX ending in '/' holds the outputs: DIR/STEM_k.npy, STEM being "
               "MODEL's file name without .xml"),
    CLI_FLAG('f', "force", run_args, force,
             "replace outputs that already exist (otherwise: status 73)"),
    CLI_FLAG(0, "json", run_args, json,
             "print {\"op\": \"ir-run\", \"outputs\": [{\"shape\", \"path\", \"dims\"}]}"),
    CLI_FLAG('q', "quiet", run_args, quiet, "print nothing on success"),
    CLI_FLAG(0, "sync", run_args, sync, "make the outputs durable (fsync) before exiting"),
    CLI_END,
};

static const char run_about[] =
    "Executes an OpenVINO IR graph made of Parameter, Const, Split, VariadicSplit, Concat and\n"
    "Result layers (chained to any depth) with the library, and writes Result k (in document\n"
    "order) to PREFIX_k.npy. Any other layer type is refused before anything runs. Each\n"
    "Parameter takes a .npy file of its element type (C order) and of a shape its shape allows;\n"
    "packed sub-byte and string Parameters (static shape) take a 1-D uint8 .npy of their bytes.\n"
    "Outputs keep their input's dtype and byte order; packed sub-byte types and strings are\n"
    "written as 1-D uint8 arrays of their bytes (strings in OpenVINO's packed string layout).\n"
    "All tensors are held in memory.\n";

static const char run_notes[] =
    "Exit status as for the split commands; 65 also for a model that is not valid IR or holds a\n"
    "layer ir-run does not run. On any failure no output is left behind.\n"
    "\n"
    "Example (the Split-1 example of the OpenVINO specification):\n"
    "  cleave ir-run docs/examples/split-1.xml --input data=x.npy -o out/\n";

static const cli_spec run_spec = {
    .name = "ir-run",
    .usage = "cleave ir-run MODEL.xml --input NAME=FILE.npy ... [-o PREFIX] [OPTIONS]",
    .about = run_about,
    .options = run_options,
    .notes = run_notes,
};

static int parse_args(run_args *a, int argc, char **argv, int first) {
  cli_args args;
  int rc = cli_parse(&run_spec, a, argc, argv, first, &args);
  if (rc == 0 && args.positional_count > 1) {
    rc = cli_error(CLI_EXIT_USAGE, "unexpected argument '%s' (one model only)", args.positional[1]);
  } else if (rc == 0 && args.positional_count == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "the model is missing (usage: cleave ir-run MODEL.xml "
                                   "--input NAME=FILE.npy ... [-o PREFIX])");
  } else if (rc == 0) {
    a->model = args.positional[0];
  }
  cli_args_free(&args);
  return rc;
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
  for (size_t i = 0; i < a->in.count; i++) {
    ir_input *in = &a->in.items[i];
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
  for (size_t i = 0; i < a->in.count; i++) {
    widest |= io_permissions(a->in.items[i].fd);
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
    rc = ir_run_graph(&run, &m, &bin, a->in.items, a->in.count, &err);
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
  a.in.items = calloc((size_t)argc + 1, sizeof *a.in.items);
  if (a.in.items == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = parse_args(&a, argc, argv, first);
  char *own_prefix = NULL;
  if (rc == 0) {
    own_prefix = out_resolve_prefix(a.prefix, a.model, ".xml");
    rc = own_prefix == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
    if (rc == 0) {
      rc = open_inputs(&a);
    }
    if (rc == 0) {
      rc = run_model(&a, own_prefix);
    }
  }
  for (size_t i = 0; i < a.in.count; i++) {
    free((char *)a.in.items[i].name);
    if (a.in.items[i].fd >= 0) {
      close(a.in.items[i].fd);
    }
  }
  free(a.in.items);
  free(own_prefix);
  return rc == CLI_HELP_SHOWN ? 0 : rc;
}
