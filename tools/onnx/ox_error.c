/* Status and message helpers of the ONNX test runner. */
#include "ox_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ox_fail(ox_error *err, int status, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    err->status = status;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}

int ox_prefix(ox_error *err, const char *fmt, ...) {
  char prefix[OX_MESSAGE_SIZE];
  char old[OX_MESSAGE_SIZE];
  va_list ap;
  if (err == NULL) {
    return OX_INTERNAL;
  }
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->message, sizeof old);
  old[sizeof old - 1] = '\0';
  /* Concatenate by hand: the message is cut at the buffer's end when both are long. */
  size_t np = strlen(prefix);
  size_t no = strlen(old);
  if (np > sizeof err->message - 1) {
    np = sizeof err->message - 1;
  }
  if (no > sizeof err->message - 1 - np) {
    no = sizeof err->message - 1 - np;
  }
  memcpy(err->message, prefix, np);
  memcpy(err->message + np, old, no);
  err->message[np + no] = '\0';
  return err->status;
}

int ox_succeed(ox_error *err) {
  if (err != NULL) {
    err->status = OX_OK;
    err->message[0] = '\0';
  }
  return OX_OK;
}

int ox_oom(ox_error *err, const char *what) {
  return ox_fail(err, OX_INTERNAL, "out of memory (%s)", what);
}
