/* Finding and loading the test_data_set_* directories of an ONNX backend test. */
#include "ox_dataset.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OX_PATH_SIZE 4096

static const char *ox_str(const char *s) {
  return s != NULL ? s : "";
}

/* Parses `name` as PREFIX + decimal digits + SUFFIX; returns the number or -1. */
static long ox_numbered(const char *name, const char *prefix, const char *suffix) {
  size_t np = strlen(prefix);
  size_t ns = strlen(suffix);
  size_t n = strlen(name);
  long v = 0;
  if (n <= np + ns || strncmp(name, prefix, np) != 0 || strcmp(name + n - ns, suffix) != 0) {
    return -1;
  }
  for (size_t i = np; i < n - ns; i++) {
    if (name[i] < '0' || name[i] > '9' || v > 100000000) {
      return -1;
    }
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

static int ox_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int ox_is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int ox_path(char *buf, const char *a, const char *b, tool_error *err) {
  int n = snprintf(buf, OX_PATH_SIZE, "%s/%s", a, b);
  if (n < 0 || n >= OX_PATH_SIZE) {
    return tool_fail(err, CLI_EXIT_NOINPUT, "path too long: %s/%s", a, b);
  }
  return CLI_EXIT_OK;
}

static int ox_compare_long(const void *a, const void *b) {
  long x = *(const long *)a;
  long y = *(const long *)b;
  return (x > y) - (x < y);
}

/* Lists the numbers N of the entries PREFIX<N>SUFFIX of `dir` (directories when `want_dir`,
 * regular files otherwise), sorted. */
static int ox_list_numbered(const char *dir, const char *prefix, const char *suffix, int want_dir,
                            long **numbers, size_t *count, tool_error *err) {
  DIR *d = opendir(dir);
  size_t cap = 0;
  *numbers = NULL;
  *count = 0;
  if (d == NULL) {
    return tool_fail(err, CLI_EXIT_NOINPUT, "cannot open directory %s: %s", dir, strerror(errno));
  }
  for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
    char path[OX_PATH_SIZE];
    long v = ox_numbered(e->d_name, prefix, suffix);
    if (v < 0 || ox_path(path, dir, e->d_name, NULL) != CLI_EXIT_OK) {
      continue;
    }
    if (want_dir ? !ox_is_dir(path) : !ox_is_file(path)) {
      continue;
    }
    if (*count == cap) {
      size_t ncap = cap == 0 ? 8 : cap * 2;
      long *n = realloc(*numbers, ncap * sizeof *n);
      if (n == NULL) {
        closedir(d);
        free(*numbers);
        *numbers = NULL;
        return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", dir);
      }
      *numbers = n;
      cap = ncap;
    }
    (*numbers)[(*count)++] = v;
  }
  closedir(d);
  if (*count > 1) {
    qsort(*numbers, *count, sizeof **numbers, ox_compare_long);
  }
  return CLI_EXIT_OK;
}

static int ox_keep_message(ox_data_set *s, ProtobufCMessage *msg, tool_error *err) {
  ProtobufCMessage **n = realloc(s->messages, (s->n_messages + 1) * sizeof *n);
  if (n == NULL) {
    protobuf_c_message_free_unpacked(msg, NULL);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", "messages");
  }
  s->messages = n;
  s->messages[s->n_messages++] = msg;
  return CLI_EXIT_OK;
}

/* Loads one .pb file as the value of graph input/output `vi`. */
static int ox_load_value(ox_data_set *s, const char *path, const Onnx__ValueInfoProto *vi,
                         const char *role, ox_value *out, tool_error *err) {
  ox_kind kind;
  int32_t elem_type;
  ProtobufCMessage *msg = NULL;
  const char *file_name;
  int st = ox_declared_type(vi, role, &kind, &elem_type, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  st = ox_unpack_file(path,
                      kind == OX_KIND_TENSOR ? &onnx__tensor_proto__descriptor
                                             : &onnx__sequence_proto__descriptor,
                      &msg, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  st = ox_keep_message(s, msg, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  if (kind == OX_KIND_TENSOR) {
    const Onnx__TensorProto *tp = (const Onnx__TensorProto *)msg;
    file_name = ox_str(tp->name);
    out->kind = OX_KIND_TENSOR;
    st = ox_decode_tensor(tp, path, &out->tensor, err);
  } else {
    const Onnx__SequenceProto *sp = (const Onnx__SequenceProto *)msg;
    file_name = ox_str(sp->name);
    st = ox_decode_sequence(sp, path, out, err);
  }
  if (st != CLI_EXIT_OK) {
    return st;
  }
  if (file_name[0] != '\0' && strcmp(file_name, ox_str(vi->name)) != 0) {
    ox_value_free(out);
    return tool_fail(err, CLI_EXIT_DATA,
                     "malformed test data: %s holds '%s' but the graph %s at its position is '%s'",
                     path, file_name, role, ox_str(vi->name));
  }
  for (size_t i = 0; elem_type != 0 && i < (kind == OX_KIND_TENSOR ? 1 : out->length); i++) {
    const ox_tensor *t = kind == OX_KIND_TENSOR ? &out->tensor : &out->items[i];
    if (t->onnx_type != elem_type) {
      st = tool_fail(err, CLI_EXIT_DATA,
                     "malformed test data: %s holds %s data but graph %s '%s' is declared %s", path,
                     ox_type_name(t->onnx_type), role, ox_str(vi->name), ox_type_name(elem_type));
      ox_value_free(out);
      return st;
    }
  }
  return CLI_EXIT_OK;
}

static void ox_data_set_free(ox_data_set *s) {
  for (size_t i = 0; i < s->n_inputs; i++) {
    ox_value_free(&s->inputs[i]);
  }
  for (size_t i = 0; i < s->n_outputs; i++) {
    ox_value_free(&s->outputs[i]);
  }
  for (size_t i = 0; i < s->n_messages; i++) {
    protobuf_c_message_free_unpacked(s->messages[i], NULL);
  }
  free(s->inputs);
  free(s->fed);
  free(s->outputs);
  free(s->messages);
  free(s->name);
  memset(s, 0, sizeof *s);
}

/* Counts the files PREFIX<N>.pb of set_dir and checks that they are numbered 0..count-1. */
static int ox_count_files(const char *set_dir, const char *prefix, size_t *count, tool_error *err) {
  long *numbers = NULL;
  int st = ox_list_numbered(set_dir, prefix, ".pb", 0, &numbers, count, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  for (size_t k = 0; k < *count; k++) {
    if (numbers[k] != (long)k) {
      st = tool_fail(err, CLI_EXIT_DATA,
                     "malformed test data: %s has %zu %s*.pb files but no %s%zu.pb", set_dir,
                     *count, prefix, prefix, k);
      break;
    }
  }
  free(numbers);
  return st;
}

static int ox_data_set_load(const char *dir, long number, const ox_model *m, ox_data_set *s,
                            tool_error *err) {
  const Onnx__GraphProto *g = m->graph;
  char name[64];
  char set_dir[OX_PATH_SIZE];
  char path[OX_PATH_SIZE];
  size_t n_in_files = 0;
  size_t n_out_files = 0;
  size_t n_fed = 0;
  memset(s, 0, sizeof *s);
  snprintf(name, sizeof name, "test_data_set_%ld", number);
  int st = ox_path(set_dir, dir, name, err);
  if (st == CLI_EXIT_OK) {
    s->name = malloc(strlen(name) + 1);
    s->inputs = calloc(g->n_input + 1, sizeof *s->inputs);
    s->fed = calloc(g->n_input + 1, sizeof *s->fed);
    s->outputs = calloc(g->n_output + 1, sizeof *s->outputs);
    if (s->name == NULL || s->inputs == NULL || s->fed == NULL || s->outputs == NULL) {
      st = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", set_dir);
    } else {
      memcpy(s->name, name, strlen(name) + 1);
      s->n_inputs = g->n_input;
      s->n_outputs = g->n_output;
    }
  }
  if (st == CLI_EXIT_OK) {
    st = ox_count_files(set_dir, "input_", &n_in_files, err);
  }
  if (st == CLI_EXIT_OK) {
    st = ox_count_files(set_dir, "output_", &n_out_files, err);
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_input; i++) {
    n_fed += ox_model_input_is_fed(m, i) ? 1u : 0u;
  }
  if (st == CLI_EXIT_OK && n_in_files != n_fed) {
    st = tool_fail(err, CLI_EXIT_DATA,
                   "malformed test data: %s has %zu input %s but the graph has %zu %s "
                   "without an initializer",
                   set_dir, n_in_files, tool_plural(n_in_files, "file", "files"), n_fed,
                   tool_plural(n_fed, "input", "inputs"));
  }
  if (st == CLI_EXIT_OK && n_out_files != g->n_output) {
    st = tool_fail(err, CLI_EXIT_DATA,
                   "malformed test data: %s has %zu output %s but the graph has %zu %s", set_dir,
                   n_out_files, tool_plural(n_out_files, "file", "files"), g->n_output,
                   tool_plural(g->n_output, "output", "outputs"));
  }
  size_t k = 0;
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_input; i++) {
    char file[32];
    if (!ox_model_input_is_fed(m, i)) {
      continue;
    }
    snprintf(file, sizeof file, "input_%zu.pb", k++);
    st = ox_path(path, set_dir, file, err);
    if (st == CLI_EXIT_OK) {
      st = ox_load_value(s, path, g->input[i], "input", &s->inputs[i], err);
    }
    s->fed[i] = st == CLI_EXIT_OK;
  }
  for (size_t i = 0; st == CLI_EXIT_OK && i < g->n_output; i++) {
    char file[32];
    snprintf(file, sizeof file, "output_%zu.pb", i);
    st = ox_path(path, set_dir, file, err);
    if (st == CLI_EXIT_OK) {
      st = ox_load_value(s, path, g->output[i], "output", &s->outputs[i], err);
    }
  }
  if (st != CLI_EXIT_OK) {
    ox_data_set_free(s);
  }
  return st;
}

int ox_data_sets_load(const char *dir, const ox_model *m, ox_data_set **sets, size_t *count,
                      tool_error *err) {
  long *numbers = NULL;
  size_t n = 0;
  *sets = NULL;
  *count = 0;
  int st = ox_list_numbered(dir, "test_data_set_", "", 1, &numbers, &n, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  if (n == 0) {
    free(numbers);
    return tool_fail(err, CLI_EXIT_DATA, "malformed test: %s has no test_data_set_* directory",
                     dir);
  }
  *sets = calloc(n, sizeof **sets);
  if (*sets == NULL) {
    free(numbers);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", dir);
  }
  for (size_t i = 0; i < n; i++) {
    st = ox_data_set_load(dir, numbers[i], m, &(*sets)[i], err);
    if (st != CLI_EXIT_OK) {
      break;
    }
    *count = i + 1;
  }
  free(numbers);
  if (st != CLI_EXIT_OK) {
    ox_data_sets_free(*sets, *count);
    *sets = NULL;
    *count = 0;
  }
  return st;
}

void ox_data_sets_free(ox_data_set *sets, size_t count) {
  for (size_t i = 0; sets != NULL && i < count; i++) {
    ox_data_set_free(&sets[i]);
  }
  free(sets);
}
