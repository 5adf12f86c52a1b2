/* Opening a model and its weights for the ir-* commands. */
#include "ir_open.h"

#include <stdio.h>
#include <string.h>

#include "cli_util.h"

int ir_report_error(const ir_error *err) {
  return cli_error(err->status, "%s", err->message);
}

void ir_json_string(const char *s) {
  putchar('"');
  for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') {
      printf("\\%c", *c);
    } else if (*c < 0x20 || *c == 0x7f) {
      printf("\\u%04x", *c);
    } else {
      putchar(*c);
    }
  }
  putchar('"');
}

static int has_consts(const ir_model *m) {
  for (size_t i = 0; i < m->num_layers; i++) {
    if (strcmp(m->layers[i].type, "Const") == 0) {
      return 1;
    }
  }
  return 0;
}

int ir_open(const char *xml_path, const char *bin_path, ir_model *model, ir_bin *bin) {
  ir_error err;
  memset(model, 0, sizeof *model);
  memset(bin, 0, sizeof *bin);
  bin->fd = -1;
  /* The .xml must open before anything else is reported. */
  FILE *probe = fopen(xml_path, "rb");
  if (probe == NULL) {
    ir_model_load(xml_path, model, &err); /* says why, with status 66 */
    return ir_report_error(&err);
  }
  fclose(probe);
  ir_error bin_err;
  int bin_rc = ir_bin_open(xml_path, bin_path, bin, &bin_err);
  if (bin_rc != 0 && bin_path != NULL) {
    return ir_report_error(&bin_err);
  }
  int rc = ir_model_load(xml_path, model, &err);
  if (rc != 0) {
    ir_bin_close(bin);
    return ir_report_error(&err);
  }
  if (has_consts(model)) {
    if (bin_rc != 0) {
      ir_model_free(model);
      return ir_report_error(&bin_err);
    }
    rc = ir_const_check_all(model, bin, &err);
    if (rc != 0) {
      ir_open_close(model, bin);
      return ir_report_error(&err);
    }
  }
  return 0;
}

void ir_open_close(ir_model *model, ir_bin *bin) {
  ir_model_free(model);
  ir_bin_close(bin);
}
