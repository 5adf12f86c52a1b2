/*
 * The pointer checks every execution entry point shares (one-shot runs, plan runs, allocated
 * outputs, views): one message per mistake, whichever call made it.
 */
#include "run/run.h"

#include <inttypes.h>

cleave_status cleave_check_in_memory(const cleave_geometry *geom, cleave_error *err) {
  if (!geom->bits_fit) {
    /* Such an input cannot be in memory; its bit offsets do not fit in int64 either. */
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                       "a packed input of more than 2^60 bytes cannot be in memory");
  }
  return CLEAVE_OK;
}

cleave_status cleave_check_input(const cleave_geometry *geom, const void *input,
                                 cleave_error *err) {
  cleave_status st = cleave_check_in_memory(geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (input == NULL && cleave_geometry_has_data(geom)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the input data is NULL but the input is not empty");
  }
  return CLEAVE_OK;
}

cleave_status cleave_check_array(const void *array, const char *name, const cleave_geometry *geom,
                                 cleave_error *err) {
  if (array == NULL && geom->info.num_outputs > 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the %s array is NULL but the operator has %" PRId64 " outputs", name,
                       geom->info.num_outputs);
  }
  return CLEAVE_OK;
}

cleave_status cleave_check_buffers(const cleave_geometry *geom, const void *input,
                                   void *const *outputs, cleave_error *err) {
  cleave_status st = cleave_check_input(geom, input, err);
  if (st == CLEAVE_OK) {
    st = cleave_check_array(outputs, "outputs", geom, err);
  }
  if (st != CLEAVE_OK || !cleave_geometry_has_data(geom)) {
    return st;
  }
  for (int64_t i = 0; i < geom->info.num_outputs; i++) {
    if (outputs[i] == NULL && cleave_geometry_length(geom, i) > 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                         "outputs[%" PRId64 "] is NULL but that output is not empty", i);
    }
  }
  return CLEAVE_OK;
}

cleave_status cleave_check_join_in_memory(const cleave_geometry *geom, cleave_error *err) {
  if (!geom->bits_fit) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                       "a packed output of more than 2^60 bytes cannot be in memory");
  }
  return CLEAVE_OK;
}

cleave_status cleave_check_join_buffers(const cleave_geometry *geom, cleave_parts inputs,
                                        const void *output, cleave_error *err) {
  cleave_status st = cleave_check_join_in_memory(geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (inputs.at == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the inputs array is NULL but the operator has %" PRId64 " inputs",
                       geom->info.num_outputs);
  }
  /* An empty output has only empty inputs (they share its dims off the axis, and their lengths
   * on it sum to its). */
  if (!cleave_geometry_has_data(geom)) {
    return CLEAVE_OK;
  }
  for (int64_t i = 0; i < geom->info.num_outputs; i++) {
    if (cleave_part(inputs, i) == NULL && cleave_geometry_length(geom, i) > 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                         "inputs[%" PRId64 "] is NULL but that input is not empty", i);
    }
  }
  if (output == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the output pointer is NULL but the output is not empty");
  }
  return CLEAVE_OK;
}
