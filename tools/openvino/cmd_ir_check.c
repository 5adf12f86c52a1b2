/* cleave ir-check MODEL.xml [--bin MODEL.bin] [--json] [-q]: are the Split, VariadicSplit and
 * Concat layers of an OpenVINO IR consistent with what their inputs imply? */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli_util.h"
#include "help.h"
#include "ir_check.h"
#include "ir_commands.h"
#include "ir_open.h"
#include "json_out.h"

enum { OPT_BIN = 1, OPT_JSON, OPT_QUIET, OPT_HELP };

static const cli_option check_options[] = {
    {"bin", 0, 1, OPT_BIN},
    {"json", 0, 0, OPT_JSON},
    {"quiet", 'q', 0, OPT_QUIET},
    {"help", 'h', 0, OPT_HELP},
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
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "ir-check");
  const char *model_path = NULL, *bin_path = NULL;
  int json = 0, quiet = 0;
  for (;;) {
    int id = 0;
    const char *value = NULL;
    int kind = cli_parser_next(&p, check_options, sizeof check_options / sizeof check_options[0],
                               &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (model_path != NULL) {
        return cli_error(CLI_EXIT_USAGE, "ir-check: unexpected argument '%s' (one model only)",
                         value);
      }
      model_path = value;
      continue;
    }
    switch (id) {
    case OPT_BIN:
      bin_path = value;
      break;
    case OPT_JSON:
      json = 1;
      break;
    case OPT_QUIET:
      quiet = 1;
      break;
    case OPT_HELP:
    default:
      help_print("ir-check", stdout);
      return 0;
    }
  }
  if (model_path == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "ir-check: the model is missing (usage: cleave ir-check MODEL.xml [--bin "
                     "MODEL.bin] [--json] [-q])");
  }
  ir_model m;
  ir_bin bin;
  tool_error open_err;
  int rc = ir_open(model_path, bin_path, &m, &bin, &open_err);
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
