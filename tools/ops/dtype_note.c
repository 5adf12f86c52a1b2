/* What a --dtype name means to NumPy, for the messages of a refused or contradicting --dtype. */
#include "dtype_note.h"

#include <stdio.h>
#include <string.h>

#include "npy.h"

/* The names that are both cleave's and NumPy's codes, with cleave's meaning. */
static const struct {
  const char *name;
  const char *here;
} both[] = {
    {"i8", "int8"},
    {"u8", "uint8"},
    {"f16", "float16"},
    {"i4", "the packed 4-bit signed type"},
    {"u4", "the packed 4-bit unsigned type"},
    {"u2", "the packed 2-bit type"},
    {"u1", "the packed 1-bit type"},
};

int dtype_numpy_note(const char *name, const char *descr, char *buf, size_t size) {
  if (size > 0) {
    buf[0] = '\0';
  }
  int order = name[0] != '\0' && strchr("<>|=", name[0]) != NULL;
  const char *code = name + order;
  if (code[0] == '\0' || strchr("biufc", code[0]) == NULL || code[1] < '1' || code[1] > '9' ||
      strlen(code) > 4 || strspn(code + 1, "0123456789") != strlen(code + 1)) {
    return 0;
  }
  /* NumPy's meaning, from the one table of descrs (tools/npy). */
  char probe[16], numpy[96];
  snprintf(probe, sizeof probe, "<%s", code);
  npy_dtype dt;
  tool_error ignored;
  if (npy_descr_to_dtype(probe, NULL, "", &dt, &ignored) == 0) {
    const char *named = cleave_dtype_name(dt.type.dtype);
    snprintf(numpy, sizeof numpy, "%s", named != NULL ? named : "?");
  } else if ((code[0] == 'f' && (strcmp(code, "f12") == 0 || strcmp(code, "f16") == 0)) ||
             (code[0] == 'c' && (strcmp(code, "c24") == 0 || strcmp(code, "c32") == 0))) {
    snprintf(numpy, sizeof numpy, "an extended-precision %s, which cleave does not read",
             code[0] == 'f' ? "float" : "complex number");
  } else {
    return 0; /* 'i3', 'f1': no NumPy type either */
  }
  const char *quoted = order ? name : code;
  if (!order && descr != NULL && descr[0] != '\0' && strchr("<>|=", descr[0]) != NULL &&
      strcmp(descr + 1, code) == 0) {
    quoted = descr;
  }
  for (size_t i = 0; !order && i < sizeof both / sizeof both[0]; i++) {
    if (strcmp(both[i].name, code) == 0) {
      snprintf(buf, size, "%s is %s here; NumPy's '%s' is %s", code, both[i].here, quoted, numpy);
      return 1;
    }
  }
  snprintf(buf, size, "NumPy's '%s' is %s here", quoted, numpy);
  return 1;
}
