/* The lengths of a geometry's parts along the axis, in any of its forms, and its packed part. */
#include "core/geometry.h"

int64_t cleave_geometry_length(const cleave_geometry *geom, int64_t i) {
  if (geom->parts != NULL) {
    return geom->parts[i].shape[geom->parts_axis];
  }
  if (geom->uniform) {
    return i == geom->info.num_outputs - 1 ? geom->last : geom->chunk;
  }
  if (i == geom->minus_one) {
    return geom->resolved;
  }
  return cleave_values_get(geom->list, i).value;
}

/*
 * The bits are counted here, and may not fit in int64 for tensors of more than 2^60 bytes
 * (`bits_fit`). A cut is byte-aligned when a whole axis row and every part's share of it are whole
 * bytes: then every block starts and ends on a byte boundary and the byte engine copies it.
 */
void cleave_geometry_pack(cleave_geometry *geom, bool empty, int64_t outer, int64_t inner,
                          bool msb_first) {
  int64_t d = geom->info.axis_dim;
  geom->packed = true;
  geom->msb_first = msb_first;
  geom->inner_bytes = 0;
  if (empty) {
    geom->bits_fit = true;
    geom->inner_bits = geom->input_bits = 0;
    return;
  }
  int64_t total = 0;
  geom->bits_fit = !cleave_mul_overflows(inner, geom->info.element_bits, &geom->inner_bits) &&
                   !cleave_mul_overflows(outer, d, &total) &&
                   !cleave_mul_overflows(total, geom->inner_bits, &geom->input_bits);
  if (!geom->bits_fit) {
    return;
  }
  geom->bytes_aligned = d * geom->inner_bits % 8 == 0;
  for (int64_t i = 0; geom->bytes_aligned && i < geom->info.num_outputs; i++) {
    geom->bytes_aligned = cleave_geometry_length(geom, i) * geom->inner_bits % 8 == 0;
    /* A uniform cut has at most two distinct lengths. */
    if (geom->uniform && i == 0 && geom->info.num_outputs > 2) {
      i = geom->info.num_outputs - 2;
    }
  }
}
