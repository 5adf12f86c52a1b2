/* One backend test directory: load, check, run, compare. */
#include "ox_runner.h"

#include "ox_dataset.h"
#include "ox_exec.h"
#include "ox_model.h"

#include <stdio.h>
#include <stdlib.h>

static int ox_run_data_set(const ox_model *m, const ox_data_set *ds, tool_error *err) {
  const Onnx__GraphProto *g = m->graph;
  ox_value *results = calloc(g->n_output + 1, sizeof *results);
  int st;
  if (results == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", ds->name);
  }
  st = ox_run_graph(m, ds, results, err);
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_output; i++) {
    st = ox_value_compare(&ds->outputs[i], &results[i], err);
    if (st != CLI_EXIT_OK) {
      tool_prefix(err, "output '%s'", g->output[i]->name != NULL ? g->output[i]->name : "");
    }
  }
  for (size_t i = 0; i < g->n_output; i++) {
    ox_value_free(&results[i]);
  }
  free(results);
  if (st != CLI_EXIT_OK) {
    tool_prefix(err, "%s", ds->name);
  }
  return st;
}

int ox_run_test_dir(const char *dir, tool_error *err) {
  char path[4096];
  ox_model m;
  ox_data_set *sets = NULL;
  size_t n_sets = 0;
  int n = snprintf(path, sizeof path, "%s/model.onnx", dir);
  if (n < 0 || (size_t)n >= sizeof path) {
    return tool_fail(err, CLI_EXIT_NOINPUT, "path too long: %s/model.onnx", dir);
  }
  int st = ox_model_load(path, &m, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  st = ox_data_sets_load(dir, &m, &sets, &n_sets, err);
  if (st == CLI_EXIT_OK) {
    st = ox_check_operators(&m, err);
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < n_sets; i++) {
    st = ox_run_data_set(&m, &sets[i], err);
  }
  ox_data_sets_free(sets, n_sets);
  ox_model_free(&m);
  if (st == CLI_EXIT_OK) {
    err->status = CLI_EXIT_OK;
    err->message[0] = '\0';
  }
  return st;
}
