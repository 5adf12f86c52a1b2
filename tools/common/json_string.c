/* JSON strings for the --json reports. */
#include "json_string.h"

void cli_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') {
      fprintf(out, "\\%c", *c);
    } else if (*c < 0x20 || *c == 0x7f) {
      fprintf(out, "\\u%04x", *c);
    } else {
      fputc(*c, out);
    }
  }
  fputc('"', out);
}
