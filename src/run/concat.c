/* One-shot concat: validate through cleave_concat_resolve, then copy with no allocation, the
 * inputs' data read straight from their tensors. */
#include "run/run.h"

cleave_status cleave_concat_run(const cleave_concat_op *op, const cleave_tensor *inputs,
                                size_t num_inputs, void *output, cleave_error *err) {
  cleave_geometry geom;
  cleave_concat_info info;
  cleave_status st = cleave_concat_resolve(op, inputs, num_inputs, &geom, &info, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  cleave_parts parts = cleave_parts_of_tensors(inputs);
  st = cleave_check_join_buffers(&geom, parts, output, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  /* The same engine as plans, with the default tuning, on this thread. */
  if (!geom.bytes_aligned) {
    cleave_join_packed(&geom, parts, output, NULL, 0);
    return cleave_succeed(err);
  }
  cleave_plan_options options = cleave_plan_options_default();
  const cleave_kernels *kernels = &cleave_kernels_portable;
  cleave_kernels_pick(CLEAVE_KERNELS_AUTO, &kernels, NULL);
  cleave_engine_join_geometry(&geom, &options, kernels, parts, output, NULL);
  return cleave_succeed(err);
}
