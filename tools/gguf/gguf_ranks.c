/* Loading the ranks of a tensor-parallel GGUF checkpoint as one model (see gguf_ranks.h). */
#include "gguf_ranks.h"

#include <stdlib.h>
#include <string.h>

#include "ckpt_ranks.h"
#include "gguf_read.h"

/* Reads rank r, growing the model's info array by one first so that gguf_model_free always
 * finds an entry for every file counted, also after a failure. */
static int read_rank(void *ctx, size_t r, const char *path, ckpt_file *out, tool_error *err) {
  gguf_model *m = ctx;
  gguf_info *grown = realloc(m->info, (r + 1) * sizeof *grown);
  if (grown == NULL) {
    return tool_oom(err, "loading the ranks");
  }
  m->info = grown;
  memset(&m->info[r], 0, sizeof m->info[r]);
  int rc = gguf_read_file(path, out, &m->info[r], err);
  if (rc == 0 && gguf_meta_lookup(out->meta, out->meta_count, GGUF_SPLIT_COUNT) != NULL) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "rank %zu, '%s', is a file of a split set (it has %s): merge the set into one "
                   "file first (gguf merge PART... -o FILE)",
                   r, path, GGUF_SPLIT_COUNT);
  }
  return rc;
}

int gguf_ranks_load(char *const *paths, size_t count, gguf_model *m, tool_error *err) {
  memset(m, 0, sizeof *m);
  m->base = strdup("model");
  if (m->base == NULL) {
    return tool_oom(err, "loading the ranks");
  }
  ckpt_rank_source source = {".gguf", "gguf shard", read_rank, m};
  return ckpt_ranks_load(paths, count, &source, &m->ckpt, err);
}
