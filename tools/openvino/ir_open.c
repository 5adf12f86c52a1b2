/* Opening a model and its weights for the ir-* commands. */
#include "ir_open.h"

#include <stdio.h>
#include <string.h>

#include "ir_types.h"

/* Every Parameter's element_type and shape must be readable. */
static int check_parameters(const ir_model *m, tool_error *err) {
  for (size_t i = 0; i < m->num_layers; i++) {
    const ir_layer *l = &m->layers[i];
    if (strcmp(l->type, "Parameter") != 0) {
      continue;
    }
    char label[400], why[200];
    ir_layer_label(l, label, sizeof label);
    const char *type = ir_layer_attr(l, "element_type");
    const char *shape = ir_layer_attr(l, "shape");
    cleave_type t;
    if (type != NULL && ir_type_from_name(type, &t) == IR_TYPE_UNKNOWN_NAME) {
      return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: unknown element_type '%.64s'",
                       m->path, l->line, label, type);
    }
    cleave_dim dims[IR_MAX_RANK];
    size_t rank = 0;
    if (shape != NULL && ir_shape_parse(shape, dims, IR_MAX_RANK, &rank, why, sizeof why) != 0) {
      return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: %s", m->path, l->line, label, why);
    }
    if (ir_layer_count(l, 1) != 1) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "'%s' line %lu: %s: a Parameter has exactly one output "
                       "port",
                       m->path, l->line, label);
    }
  }
  return 0;
}

static int has_consts(const ir_model *m) {
  for (size_t i = 0; i < m->num_layers; i++) {
    if (strcmp(m->layers[i].type, "Const") == 0) {
      return 1;
    }
  }
  return 0;
}

int ir_open(const char *xml_path, const char *bin_path, ir_model *model, ir_bin *bin,
            tool_error *err) {
  memset(model, 0, sizeof *model);
  memset(bin, 0, sizeof *bin);
  bin->fd = -1;
  /* The .xml must open before anything else is reported. */
  FILE *probe = fopen(xml_path, "rb");
  if (probe == NULL) {
    return ir_model_load(xml_path, model, err); /* says why, with status 66 */
  }
  fclose(probe);
  tool_error bin_err;
  int bin_rc = ir_bin_open(xml_path, bin_path, bin, &bin_err);
  if (bin_rc != 0 && bin_path != NULL) {
    *err = bin_err;
    return bin_rc;
  }
  int rc = ir_model_load(xml_path, model, err);
  if (rc != 0) {
    ir_bin_close(bin);
    return rc;
  }
  rc = check_parameters(model, err);
  if (rc == 0 && has_consts(model)) {
    /* The default .bin is needed only now. */
    if (bin_rc != 0) {
      *err = bin_err;
      rc = bin_rc;
    } else {
      rc = ir_const_check_all(model, bin, err);
    }
  }
  if (rc != 0) {
    ir_open_close(model, bin);
  }
  return rc;
}

void ir_open_close(ir_model *model, ir_bin *bin) {
  ir_model_free(model);
  ir_bin_close(bin);
}
