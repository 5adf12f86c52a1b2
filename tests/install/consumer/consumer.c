/* A minimal program built against an installed cleave, as a user would: VariadicSplit of a small
 * tensor, checked by value. Prints the library version on success; exits 1 on any failure. */
#include <cleave.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  const int64_t shape[2] = {3, 4};
  const int64_t axis = 1;
  const int64_t lengths[2] = {-1, 1};
  float data[12];
  for (int i = 0; i < 12; ++i) {
    data[i] = (float)i;
  }
  cleave_tensor input = {data, {CLEAVE_F32, 0}, 2, shape};
  float left[9];
  float right[3];
  void *outputs[2] = {left, right};
  cleave_error err;
  cleave_status st =
      cleave_variadic_split(&input, axis, cleave_values_list(lengths, 2), outputs, 2, &err);
  if (st != CLEAVE_OK) {
    fprintf(stderr, "consumer: cleave_variadic_split failed: %s: %s\n", cleave_status_name(st),
            err.message);
    return 1;
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      if (left[r * 3 + c] != (float)(r * 4 + c)) {
        fprintf(stderr, "consumer: left[%d][%d] is %g\n", r, c, (double)left[r * 3 + c]);
        return 1;
      }
    }
    if (right[r] != (float)(r * 4 + 3)) {
      fprintf(stderr, "consumer: right[%d] is %g\n", r, (double)right[r]);
      return 1;
    }
  }
  /* An error path through the installed library too. */
  st = cleave_split(&input, 5, 2, outputs, 2, &err);
  if (st != CLEAVE_ERROR_INVALID_AXIS || strstr(err.message, "axis") == NULL) {
    fprintf(stderr, "consumer: axis 5 on rank 2 gave %d (%s)\n", (int)st, err.message);
    return 1;
  }
  if (cleave_version_number() != CLEAVE_VERSION_NUMBER) {
    fprintf(stderr, "consumer: header version %d, library version %u\n", CLEAVE_VERSION_NUMBER,
            cleave_version_number());
    return 1;
  }
  printf("cleave consumer OK %s\n", cleave_version_string());
  return 0;
}
