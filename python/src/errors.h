/*
 * Python exceptions from the library's statuses. Which exception a status raises is decided by
 * the status alone (errors.c's table): CLEAVE_ERROR_OUT_OF_MEMORY raises MemoryError, every other
 * status cleave.Error (a ValueError). Either carries .status, .status_name and .message.
 */
#ifndef PCL_ERRORS_H
#define PCL_ERRORS_H

#include "state.h"

/* Raises the exception of `status` with `message` (also for the binding's own checks, so that
 * errors about the same rule look alike). Returns NULL, for `return pcl_raise(...)`. */
PyObject *pcl_raise(cleave_status status, const char *message);

/* 0 when `status` is CLEAVE_OK; otherwise raises the exception of err's status and message and
 * returns -1. `err` is the cleave_error the failing call filled. */
int pcl_check(cleave_status status, const cleave_error *err);

#endif
