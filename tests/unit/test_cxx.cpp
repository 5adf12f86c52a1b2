// The public header included from C++: it must compile as C++ (extern "C", no C-only syntax) and
// its functions must link from a C++ translation unit.
#include "cleave.h"

#include <cstdio>
#include <cstring>

int main() {
  const int64_t shape[2] = {4, 3};
  const int64_t axis = 0;
  int16_t data[12];
  for (int i = 0; i < 12; ++i) {
    data[i] = static_cast<int16_t>(i * 3);
  }
  cleave_tensor input;
  input.data = data;
  input.type = cleave_type_of(CLEAVE_I16);
  input.rank = 2;
  input.shape = shape;

  const int64_t lens[2] = {1, -1};
  cleave_op op = cleave_op_variadic_split(&axis, lens, 2);
  int16_t a[3] = {0, 0, 0};
  int16_t b[9] = {0};
  void *outs[2] = {a, b};
  cleave_error err;
  cleave_status st = cleave_run(&op, &input, outs, 2, &err);
  if (st != CLEAVE_OK) {
    std::fprintf(stderr, "cleave_run failed: %s (%s)\n", cleave_status_name(st), err.message);
    return 1;
  }
  if (a[0] != 0 || a[2] != 6 || b[0] != 9 || b[8] != 33) {
    std::fprintf(stderr, "wrong values\n");
    return 1;
  }
  const char *name = cleave_dtype_name(CLEAVE_I16);
  if (name == nullptr || std::strcmp(name, "i16") != 0) {
    std::fprintf(stderr, "wrong dtype name\n");
    return 1;
  }
  if (cleave_version_number() != CLEAVE_VERSION_NUMBER) {
    std::fprintf(stderr, "version mismatch\n");
    return 1;
  }
  // The 0.2 vocabulary from C++: size_t counts, absent values, a typed kernels enum.
  cleave_op onnx = cleave_op_onnx_split(13);
  const int64_t two = 2;
  onnx.num_outputs = cleave_values_scalar(&two);
  const int32_t lens32[2] = {1, 1};
  cleave_values typed = cleave_values_of(CLEAVE_I32, 1, 2, lens32);
  if (typed.dtype != CLEAVE_I32 || typed.rank != 1 || typed.count != 2 || typed.data != lens32) {
    std::fprintf(stderr, "cleave_values_of\n");
    return 1;
  }
  if (onnx.lengths.rank != CLEAVE_ABSENT || cleave_values_none().rank != CLEAVE_ABSENT) {
    std::fprintf(stderr, "absent values are not CLEAVE_ABSENT\n");
    return 1;
  }
  cleave_plan_options options = cleave_plan_options_default();
  options.kernels = CLEAVE_KERNELS_PORTABLE;
  cleave_plan *plan = nullptr;
  const int64_t shape2[1] = {4};
  st = cleave_plan_create_with(&onnx, cleave_type_of(CLEAVE_I16), shape2, 1, &options, &plan, &err);
  if (st != CLEAVE_OK || cleave_plan_info(plan)->num_outputs != 2 ||
      std::strncmp(cleave_plan_description(plan), "portable", 8) != 0) {
    std::fprintf(stderr, "ONNX Split plan: %s\n", err.message);
    cleave_plan_destroy(plan);
    return 1;
  }
  cleave_plan_destroy(plan);
  cleave_dim dims[2];
  size_t rank = 0;
  if (cleave_partial_shape_parse("[...]", dims, 2, &rank, &err) != CLEAVE_OK ||
      rank != CLEAVE_RANK_DYNAMIC) {
    std::fprintf(stderr, "dynamic rank\n");
    return 1;
  }
  std::printf("C++ consumer OK: %s\n", cleave_version_string());
  return 0;
}
