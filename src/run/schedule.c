/* A plan's copy schedule, for both families: the segments of the geometry's parts, the engine
 * over them in the family's direction, and the words that describe it. */
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The description: the family, then each kind of copy used, "nt" when some copy streams. */
static void describe(const cleave_geometry *g, const cleave_kernels *kernels, bool join,
                     const cleave_seg *segs, int64_t count, const cleave_engine *engine,
                     char *description, size_t size) {
  static const char *const kind_names[CLEAVE_SEG_KINDS] = {"rows",       "transpose1", "transpose2",
                                                           "transpose4", "transpose8", "gather"};
  bool (*tiny_streams)(const cleave_seg *) =
      join ? kernels->join_tiny_streams : kernels->tiny_streams;
  bool used[CLEAVE_SEG_KINDS] = {false};
  bool streams = false;
  for (int64_t s = 0; s < count; s++) {
    used[segs[s].kind] = true;
    streams = streams || segs[s].kind == CLEAVE_SEG_ROWS ||
              (tiny_streams != NULL && tiny_streams(&segs[s]));
  }
  size_t at = (size_t)snprintf(description, size, "%s", kernels->name);
  for (int k = 0; k < CLEAVE_SEG_KINDS; k++) {
    if (used[k]) {
      at += (size_t)snprintf(description + at, size - at, " %s", kind_names[k]);
    }
  }
  if (!g->bytes_aligned) {
    snprintf(description, size, "bits");
  } else if (count == 0) {
    snprintf(description + at, size - at, " empty");
  } else if (engine->nontemporal && streams) {
    snprintf(description + at, size - at, " nt");
  }
}

cleave_status cleave_schedule(const cleave_geometry *g, const cleave_plan_options *options,
                              const cleave_kernels *kernels, bool join, cleave_seg *inline_segs,
                              int64_t inline_capacity, cleave_seg **heap, cleave_engine *engine,
                              char *description, size_t description_size, cleave_error *err) {
  int64_t n = g->info.num_outputs, count = 0, offset = 0;
  cleave_seg *segs = inline_segs;
  int64_t capacity = inline_capacity;
  /* Packed cuts that are not byte-aligned take the bit-stream copy: no schedule. */
  bool copies = cleave_geometry_has_data(g) && g->bytes_aligned;
  for (int64_t i = 0; copies && i < n; i++) {
    int64_t length = cleave_geometry_length(g, i);
    int64_t unit = cleave_geometry_bytes(g, length), col = cleave_geometry_bytes(g, offset);
    if (!cleave_seg_append(segs, &count, capacity, i, unit, col, g->outer, options)) {
      /* More segments than fit inline: at most one per part. The count is that of the
       * caller's lengths or inputs array, so the allocation is bounded by what the caller holds. */
      *heap = malloc((size_t)n * sizeof **heap);
      if (*heap == NULL) {
        return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                           "cannot allocate a copy schedule for %" PRId64 " %s", n,
                           join ? "inputs" : "outputs");
      }
      memcpy(*heap, segs, (size_t)count * sizeof *segs);
      segs = *heap;
      capacity = n;
      cleave_seg_append(segs, &count, capacity, i, unit, col, g->outer, options);
    }
    offset += length;
  }
  cleave_engine_init(engine, g, options, kernels, segs, count, join);
  describe(g, kernels, join, segs, count, engine, description, description_size);
  return CLEAVE_OK;
}
