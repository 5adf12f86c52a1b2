/* OpenVINO's packed string layout: reading it into string handles, and writing it. */
#include "ir_strings.h"

#include <stdlib.h>
#include <string.h>

static int32_t read_i32(const unsigned char *p) {
  uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  return (int32_t)v;
}

int ir_strings_unpack(const unsigned char *data, uint64_t size, int64_t expected,
                      cleave_string *out, const char *label, const char *path, tool_error *err) {
  if (size < 4) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s': %s: the packed strings have no count", path, label);
  }
  int32_t count = read_i32(data);
  if (count < 0 || (int64_t)count != expected) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s': %s: the packed strings count %d %s but the shape holds %lld", path,
                     label, (int)count, tool_plural((uint64_t)count, "string", "strings"),
                     (long long)expected);
  }
  uint64_t header = count == 0 ? 4 : 4 * ((uint64_t)count + 2);
  if (header > size) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s': %s: the packed strings' offsets (%llu bytes) do not fit in %llu %s",
                     path, label, (unsigned long long)header, (unsigned long long)size,
                     tool_plural(size, "byte", "bytes"));
  }
  uint64_t region = size - header;
  const unsigned char *offsets = data + 4;
  for (int32_t i = 0; i < count; i++) {
    int32_t begin = read_i32(offsets + 4 * (size_t)i), end = read_i32(offsets + 4 * (size_t)i + 4);
    if (begin < 0 || end < begin || (uint64_t)end > region) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "'%s': %s: string %d spans bytes [%d, %d) of a %llu-byte region", path,
                       label, (int)i, (int)begin, (int)end, (unsigned long long)region);
    }
    out[i].data = (const char *)data + header + (uint64_t)begin;
    out[i].size = (size_t)(end - begin);
  }
  return 0;
}

int ir_strings_pack(const cleave_string *strings, uint64_t count, unsigned char **bytes,
                    uint64_t *size, tool_error *err) {
  *bytes = NULL;
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; i++) {
    total += strings[i].size;
  }
  if (count > INT32_MAX - 2 || total > INT32_MAX) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "a string output is too large for OpenVINO's packed layout");
  }
  uint64_t header = count == 0 ? 4 : 4 * (count + 2);
  unsigned char *out = malloc((size_t)(header + total) + 1);
  if (out == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  /* Little-endian int32s: the host is (ir_const.c checks it at compile time). */
  uint32_t v = (uint32_t)count, end = 0;
  memcpy(out, &v, 4);
  if (count > 0) {
    memcpy(out + 4, &end, 4);
  }
  for (uint64_t i = 0; i < count; i++) {
    memcpy(out + header + end, strings[i].data, strings[i].size);
    end += (uint32_t)strings[i].size;
    memcpy(out + 8 + 4 * i, &end, 4);
  }
  *bytes = out;
  *size = header + total;
  return 0;
}
