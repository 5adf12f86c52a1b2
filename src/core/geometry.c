/* The lengths of a geometry's parts along the axis, in either of its two forms. */
#include "core/geometry.h"

int64_t cleave_geometry_length(const cleave_geometry *geom, int64_t i) {
  if (geom->uniform) {
    return i == geom->info.num_outputs - 1 ? geom->last : geom->chunk;
  }
  if (i == geom->minus_one) {
    return geom->resolved;
  }
  return cleave_values_get(geom->list, i).value;
}
