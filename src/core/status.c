/* Statuses, messages and version information. */
#include "core/core.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CLEAVE_STR2(x) #x
#define CLEAVE_STR(x) CLEAVE_STR2(x)

unsigned cleave_version_number(void) {
  return CLEAVE_VERSION_NUMBER;
}

const char *cleave_version_string(void) {
  return CLEAVE_STR(CLEAVE_VERSION_MAJOR) "." CLEAVE_STR(CLEAVE_VERSION_MINOR) "." CLEAVE_STR(
      CLEAVE_VERSION_PATCH);
}

const char *cleave_status_name(cleave_status status) {
  switch (status) {
  case CLEAVE_OK:
    return "ok";
  case CLEAVE_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case CLEAVE_ERROR_INVALID_SHAPE:
    return "invalid shape";
  case CLEAVE_ERROR_INVALID_AXIS:
    return "invalid axis";
  case CLEAVE_ERROR_INVALID_SPLIT:
    return "invalid split";
  case CLEAVE_ERROR_INVALID_ATTRIBUTE:
    return "invalid attribute";
  case CLEAVE_ERROR_UNSUPPORTED_TYPE:
    return "unsupported type";
  case CLEAVE_ERROR_UNSUPPORTED_VERSION:
    return "unsupported version";
  case CLEAVE_ERROR_OVERFLOW:
    return "overflow";
  case CLEAVE_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case CLEAVE_ERROR_CAPACITY:
    return "capacity too small";
  case CLEAVE_ERROR_COPY_REQUIRED:
    return "copy required";
  }
  /* Never NULL: callers print the name of whatever status they were given. */
  return "unknown status";
}

cleave_status cleave_fail(cleave_error *err, cleave_status status, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    err->status = status;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}

cleave_status cleave_succeed(cleave_error *err) {
  if (err != NULL) {
    err->status = CLEAVE_OK;
    err->message[0] = '\0';
  }
  return CLEAVE_OK;
}

void cleave_format_shape(char *buf, size_t size, const int64_t *shape, size_t rank) {
  static const char ellipsis[] = "...]";
  size_t used = 0;
  if (size < sizeof ellipsis) {
    if (size > 0) {
      buf[0] = '\0';
    }
    return;
  }
  buf[used++] = '[';
  for (size_t i = 0; i < rank; i++) {
    char item[32];
    int n = snprintf(item, sizeof item, "%s%" PRId64, i > 0 ? "," : "", shape[i]);
    size_t len = (size_t)n;
    /* Keep room for the closing bracket or the ellipsis. */
    if (used + len + sizeof ellipsis > size) {
      memcpy(buf + used, ellipsis, sizeof ellipsis);
      return;
    }
    memcpy(buf + used, item, len);
    used += len;
  }
  buf[used++] = ']';
  buf[used] = '\0';
}
