/* Fuzz target: the OpenVINO IR reader (tools/openvino: expat parsing, graph checks, Const
 * attributes and .bin bounds, the per-layer check of ir-check) on arbitrary files.
 *
 * The input is an .xml file, optionally followed by the marker "\0BIN\0" and the bytes of its .bin
 * (the seeds in fuzz/corpus/ir are built that way by fuzz/make_ir_corpus.py). A rejected model must
 * come with status 65 (70 only for memory) and a message naming the file; an accepted one must
 * satisfy the graph invariants the commands rely on (every edge resolved to an output and an input
 * port, ids sorted and unique, a topological order that is a permutation with producers first),
 * and every Split/VariadicSplit layer must get a verdict without any memory error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli_util.h"
#include "ir_check.h"
#include "ir_const.h"
#include "ir_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static int g_bin_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  g_bin_fd = memfd_create("fuzz_ir_bin", MFD_CLOEXEC);
  if (g_bin_fd < 0) {
    abort();
  }
  return 0;
}

static void check_message(const tool_error *err, int rc) {
  if ((rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) || err->status != rc ||
      strncmp(err->message, "'fuzz.xml'", 10) != 0) {
    abort();
  }
}

static void check_invariants(const ir_model *m) {
  if (m->version != 10 && m->version != 11) {
    abort();
  }
  for (size_t i = 1; i < m->num_layers; i++) {
    if (m->layers[m->by_id[i - 1]].id >= m->layers[m->by_id[i]].id) {
      abort();
    }
  }
  size_t *position = calloc(m->num_layers + 1, sizeof *position);
  if (position == NULL) {
    abort();
  }
  for (size_t k = 0; k < m->num_layers; k++) {
    if (m->order[k] >= m->num_layers || position[m->order[k]] != 0) {
      abort();
    }
    position[m->order[k]] = k + 1;
  }
  for (size_t k = 0; k < m->num_edges; k++) {
    const ir_edge *e = &m->edges[k];
    const ir_layer *from = &m->layers[e->from_index], *to = &m->layers[e->to_index];
    if (from->id != e->from_layer || to->id != e->to_layer ||
        !from->ports[e->from_port_index].is_output || to->ports[e->to_port_index].is_output ||
        to->ports[e->to_port_index].edge != k || position[e->from_index] >= position[e->to_index]) {
      abort();
    }
  }
  free(position);
  for (size_t i = 0; i < m->num_layers; i++) {
    const ir_layer *l = &m->layers[i];
    if (ir_model_layer(m, l->id) != l) {
      abort();
    }
    for (size_t p = 0; p < l->num_ports; p++) {
      if (!l->ports[p].is_output && l->ports[p].edge == IR_NO_EDGE) {
        abort();
      }
      if (l->ports[p].rank > IR_MAX_RANK) {
        abort();
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char marker[] = {'\0', 'B', 'I', 'N', '\0'};
  size_t xml_size = size;
  const uint8_t *bin = NULL;
  size_t bin_size = 0;
  for (size_t i = 0; i + sizeof marker <= size; i++) {
    if (memcmp(data + i, marker, sizeof marker) == 0) {
      xml_size = i;
      bin = data + i + sizeof marker;
      bin_size = size - i - sizeof marker;
      break;
    }
  }
  /* The XML in a buffer of its exact size, so that a read past it is seen. */
  char *xml = malloc(xml_size > 0 ? xml_size : 1);
  if (xml == NULL) {
    abort();
  }
  memcpy(xml, data, xml_size);
  ir_model m;
  tool_error err;
  int rc = ir_model_parse(xml, xml_size, "fuzz.xml", &m, &err);
  free(xml);
  if (rc != 0) {
    check_message(&err, rc);
    return 0;
  }
  check_invariants(&m);
  if (ftruncate(g_bin_fd, 0) != 0 ||
      (bin_size > 0 && pwrite(g_bin_fd, bin, bin_size, 0) != (ssize_t)bin_size)) {
    abort();
  }
  ir_bin b = {g_bin_fd, bin_size, (char *)"fuzz.bin"};
  rc = ir_const_check_all(&m, &b, &err);
  if (rc != 0) {
    check_message(&err, rc);
  } else {
    for (size_t i = 0; i < m.num_layers; i++) {
      if (!ir_is_split_layer(&m.layers[i])) {
        continue;
      }
      ir_check_row row;
      rc = ir_check_layer(&m, &b, &m.layers[i], &row, &err);
      if (rc == 0 && row.verdict != IR_VERDICT_OK && row.reason == NULL) {
        abort();
      }
      if (rc == 0 && row.verdict == IR_VERDICT_OK && row.num_inferred != row.num_declared) {
        abort();
      }
      ir_check_row_free(&row);
    }
  }
  ir_model_free(&m);
  return 0;
}
