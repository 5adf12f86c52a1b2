/* Loading the ranks of a tensor-parallel checkpoint as one model (tools/checkpoint/ckpt_ranks.h
 * with this format's reader). */
#include "st_ranks.h"

#include <string.h>

#include "ckpt_ranks.h"
#include "st_read.h"

static int read_rank(void *ctx, size_t r, const char *path, ckpt_file *out, tool_error *err) {
  (void)ctx;
  (void)r;
  return st_read_file(path, out, err);
}

int st_ranks_load(char *const *paths, size_t count, st_model *m, tool_error *err) {
  memset(m, 0, sizeof *m);
  ckpt_rank_source source = {".safetensors", "st shard", read_rank, NULL};
  int rc = ckpt_ranks_load(paths, count, &source, &m->ckpt, err);
  /* A folder of ranks has sidecars (the files shard copied beside the ranks); ranks named one
   * by one have none. */
  if (rc == 0 && m->ckpt.dir[0] != '\0') {
    static const char *const skip[] = {".safetensors", ".safetensors.index.json"};
    rc = ckpt_model_list_sidecars(&m->ckpt, skip, 2, err);
  }
  return rc;
}
