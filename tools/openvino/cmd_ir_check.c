/* cleave ir-check MODEL.xml [--bin MODEL.bin] [--json] [-q]: are the Split, VariadicSplit and
 * Concat layers of an OpenVINO IR consistent with what their inputs imply? */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli_util.h"
#include "ir_check.h"
#include "ir_commands.h"
#include "ir_open.h"
#include "json_out.h"

/* The command line. */
typedef struct check_args {
  const char *bin;
  int json, quiet;
} check_args;

static const cli_opt check_options[] = {
    CLI_STRING(0, "bin", "FILE", check_args, bin,
               "the weights (default: MODEL with .xml replaced by .bin)"),
    CLI_FLAG(0, "json", check_args, json,
             "print one JSON object: {\"op\": \"ir-check\", \"layers\": [...], ...}"),
    CLI_FLAG('q', "quiet", check_args, quiet,
             "print only the layers that are not OK, and no summary"),
    CLI_END,
};

static const char check_about[] =
    "Reads an OpenVINO IR model (versions 10 and 11) and checks every Split, VariadicSplit and\n"
    "Concat layer: the input shapes as their producers declare them (a Parameter's shape,\n"
    "otherwise the producing port's <dim>s), the axis and split_lengths from Const layers\n"
    "(unknown when another layer computes them: the outputs are then checked against the hull\n"
    "of every possible value) or Concat's axis attribute, cleave's shape inference, and the\n"
    "layer's declared output <dim>s.\n"
    "Other layers are only traversed. One line per layer, then a summary:\n"
    "  OK             the declared outputs are what the inputs imply (or less precise)\n"
    "  MISMATCH       a declared output (or the data input port) contradicts the inference\n"
    "  RULE BROKEN    the inputs break a rule of the operator (the library's message)\n"
    "  NOT CHECKABLE  the file lacks what the check needs (the reason is printed)\n";

static const char check_notes[] =
    "Exit status: 0 every layer is OK; 1 some layer is not; 64 malformed command line; 65 the\n"
    "file is not valid IR (the message names the file, line and layer); 66 the .xml or .bin\n"
    "cannot be opened.\n";

static const cli_spec check_spec = {
    .name = "ir-check",
    .usage = "cleave ir-check MODEL.xml [--bin MODEL.bin] [--json] [-q]",
    .about = check_about,
    .options = check_options,
    .notes = check_notes,
};

static void print_list(char **items, size_t n) {
  for (size_t i = 0; i < n; i++) {
    printf("%s%s", i > 0 ? " " : "", items[i] != NULL ? items[i] : "?");
  }
}

static void print_text(const ir_check_row *r) {
  const ir_layer *l = r->layer;
  printf("%lld %s \"%s\":", (long long)l->id, l->type, l->name);
  if (r->data != NULL) {
    printf(" data %s%s%s", r->data, r->type != NULL ? " " : "", r->type != NULL ? r->type : "");
  }
  if (r->num_inputs > 0) {
    printf(" inputs ");
    print_list(r->inputs, r->num_inputs);
    printf("%s%s", r->type != NULL ? " " : "", r->type != NULL ? r->type : "");
  }
  if (r->axis != NULL) {
    printf("%saxis %s", r->data != NULL || r->num_inputs > 0 ? ", " : " ", r->axis);
  }
  if (r->lengths != NULL) {
    printf(", %s %s", strcmp(l->type, "Split") == 0 ? "num_splits" : "lengths", r->lengths);
  }
  if (r->source != NULL) {
    printf(" (unknown values from %s)", r->source);
  }
  if (r->num_inferred > 0) {
    printf("; inferred ");
    print_list(r->inferred, r->num_inferred);
    if (r->hull) {
      printf(" (hull)");
    }
  }
  if (r->num_declared > 0) {
    printf("; declared ");
    print_list(r->declared, r->num_declared);
  }
  printf(": %s", ir_verdict_name(r->verdict));
  if (r->reason != NULL) {
    printf(r->verdict == IR_VERDICT_OK ? " (%s)" : ": %s", r->reason);
  }
  putchar('\n');
}

static void json_list(json_out *j, const char *key, char **items, size_t n) {
  json_out_array(j, key);
  for (size_t i = 0; i < n; i++) {
    json_out_static_or_text(j, NULL, items[i] != NULL ? items[i] : "?");
  }
  json_out_end_array(j);
}

static void print_json(json_out *j, const ir_check_row *r) {
  const ir_layer *l = r->layer;
  json_out_object(j, NULL);
  json_out_int(j, "id", l->id);
  json_out_string(j, "name", l->name);
  json_out_string(j, "type", l->type);
  /* Values that are static are numbers and arrays of integers; partial ones stay text. */
  int concat = strcmp(l->type, "Concat") == 0;
  if (concat) {
    json_list(j, "inputs", r->inputs, r->num_inputs);
  } else {
    json_out_static_or_text(j, "data", r->data);
  }
  json_out_string(j, "element_type", r->type);
  json_out_static_or_text(j, "axis", r->axis);
  if (!concat) {
    json_out_static_or_text(j, strcmp(l->type, "Split") == 0 ? "num_splits" : "lengths",
                            r->lengths);
  }
  json_out_string(j, "unknown_from", r->source);
  json_out_bool(j, "hull", r->hull);
  json_list(j, "inferred", r->inferred, r->num_inferred);
  json_list(j, "declared", r->declared, r->num_declared);
  json_out_string(j, "status", ir_verdict_name(r->verdict));
  json_out_string(j, "reason", r->reason);
  json_out_end_object(j);
}

int cmd_ir_check(int argc, char **argv, int first) {
  check_args a = {NULL, 0, 0};
  cli_args args;
  int rc = cli_parse(&check_spec, &a, argc, argv, first, &args);
  const char *model_path = rc == 0 && args.positional_count > 0 ? args.positional[0] : NULL;
  if (rc == 0 && args.positional_count > 1) {
    rc = cli_error(CLI_EXIT_USAGE, "unexpected argument '%s' (one model only)", args.positional[1]);
  } else if (rc == 0 && model_path == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "the model is missing (usage: cleave ir-check MODEL.xml [--bin "
                                   "MODEL.bin] [--json] [-q])");
  }
  cli_args_free(&args);
  if (rc != 0) {
    return rc == CLI_HELP_SHOWN ? 0 : rc;
  }
  const char *bin_path = a.bin;
  int json = a.json, quiet = a.quiet;
  ir_model m;
  ir_bin bin;
  tool_error open_err;
  rc = ir_open(model_path, bin_path, &m, &bin, &open_err);
  if (rc != 0) {
    return tool_report(&open_err);
  }
  size_t counts[4] = {0, 0, 0, 0};
  size_t checked = 0;
  json_out j;
  if (json) {
    json_out_begin(&j, stdout);
    json_out_object(&j, NULL);
    json_out_string(&j, "op", "ir-check");
    json_out_string(&j, "model", model_path);
    json_out_int(&j, "version", m.version);
    json_out_uint(&j, "layer_count", m.num_layers);
    json_out_array(&j, "layers");
  }
  for (size_t i = 0; i < m.num_layers && rc == 0; i++) {
    const ir_layer *l = &m.layers[i];
    if (!ir_is_split_layer(l)) {
      continue;
    }
    ir_check_row row;
    tool_error err;
    rc = ir_check_layer(&m, &bin, l, &row, &err);
    if (rc != 0) {
      if (json) {
        /* What was printed stays one valid JSON object. */
        json_out_end_array(&j);
        json_out_end_object(&j);
        json_out_finish(&j);
      }
      fflush(stdout);
      ir_check_row_free(&row);
      tool_report(&err);
      break;
    }
    counts[row.verdict]++;
    if (json) {
      print_json(&j, &row);
    } else if (!quiet || row.verdict != IR_VERDICT_OK) {
      print_text(&row);
    }
    checked++;
    ir_check_row_free(&row);
  }
  if (rc == 0) {
    size_t bad = counts[1] + counts[2] + counts[3];
    if (json) {
      json_out_end_array(&j);
      json_out_uint(&j, "checked", checked);
      json_out_uint(&j, "ok", counts[0]);
      json_out_uint(&j, "mismatch", counts[1]);
      json_out_uint(&j, "rule_broken", counts[2]);
      json_out_uint(&j, "not_checkable", counts[3]);
      json_out_end_object(&j);
      rc = json_out_finish(&j);
    } else {
      if (!quiet) {
        printf("%s: IR v%d, %zu %s, %zu Split/VariadicSplit/Concat checked: %zu OK, %zu MISMATCH, "
               "%zu RULE BROKEN, %zu NOT CHECKABLE\n",
               model_path, m.version, m.num_layers, tool_plural(m.num_layers, "layer", "layers"),
               checked, counts[0], counts[1], counts[2], counts[3]);
      }
      if (fflush(stdout) != 0 || ferror(stdout)) {
        rc = cli_error(CLI_EXIT_IOERR, "writing to stdout failed");
      }
    }
    if (rc == 0 && bad > 0) {
      rc = CLI_EXIT_FAIL;
    }
  }
  ir_open_close(&m, &bin);
  return rc;
}
