/* --outtype applied to a plan's files (ckpt_cast.h). */
#include "ckpt_cast.h"

#include <stdlib.h>
#include <string.h>

#include "ckpt_companion.h"

int ckpt_cast_float(cleave_dtype lib) {
  return lib == CLEAVE_F32 || lib == CLEAVE_F16 || lib == CLEAVE_BF16 || lib == CLEAVE_F64;
}

/* The scale of weight `w`: the tensor named as w with CKPT_SCALE_SUFFIX in w's file, or NULL. */
static const ckpt_tensor *scale_of(const ckpt_model *m, const ckpt_tensor *w) {
  size_t n = strlen(w->name);
  char *name = malloc(n + sizeof CKPT_SCALE_SUFFIX);
  if (name == NULL) {
    return NULL;
  }
  memcpy(name, w->name, n);
  memcpy(name + n, CKPT_SCALE_SUFFIX, sizeof CKPT_SCALE_SUFFIX);
  /* The first tensor of that name in by_name (sorted by name, then by file), then its copies
   * in the other files (a model of ranks) up to w's file. */
  size_t lo = 0, hi = m->tensor_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(m->by_name[mid]->name, name) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const ckpt_tensor *s = NULL;
  for (; lo < m->tensor_count && strcmp(m->by_name[lo]->name, name) == 0; lo++) {
    if (m->by_name[lo]->file == w->file) {
      s = m->by_name[lo];
      break;
    }
  }
  free(name);
  return s;
}

static int is_fp8_weight(const ckpt_tensor *t) {
  return t != NULL && t->dtype->movable && t->dtype->lib == CLEAVE_F8E4M3 && t->ndim >= 2;
}

int ckpt_cast_weight_at(const ckpt_model *model, size_t file, uint64_t offset,
                        const ckpt_tensor **weight, const ckpt_tensor **scale) {
  const ckpt_file *f = &model->files[file];
  size_t lo = 0, hi = f->tensor_count;
  while (lo < hi) { /* the last tensor starting at or before offset (tensors in data order) */
    size_t mid = lo + (hi - lo) / 2;
    if (f->tensors[mid].offset <= offset) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const ckpt_tensor *w = lo > 0 ? &f->tensors[lo - 1] : NULL;
  if (w == NULL || offset >= w->offset + w->bytes || !is_fp8_weight(w)) {
    return -1;
  }
  *weight = w;
  *scale = scale_of(model, w);
  return *scale != NULL ? 0 : -1;
}

/* What --outtype does to output tensor t: 0 keep, 1 convert, 2 dequantize, 3 drop (a scale). */
static int action(const ckpt_cast *cast, const ckpt_out_tensor *t) {
  const ckpt_model *m = cast->model;
  const ckpt_tensor *src = t->source;
  size_t at;
  const ckpt_tensor *w = src != NULL ? ckpt_companion_weight(m, src, &at) : NULL;
  if (is_fp8_weight(w)) {
    return 3;
  }
  if (t->dtype->movable && ckpt_cast_float(t->dtype->lib)) {
    return t->dtype->lib == cast->to->lib ? 0 : 1;
  }
  if (is_fp8_weight(src) && t->dtype == src->dtype && scale_of(m, src) != NULL) {
    return 2;
  }
  return 0;
}

int ckpt_cast_file(const ckpt_cast *cast, ckpt_out_file *f, tool_error *err) {
  if (cast == NULL || cast->to == NULL) {
    return 0;
  }
  size_t kept = 0;
  for (size_t k = 0; k < f->tensor_count; k++) {
    ckpt_out_tensor *t = &f->tensors[k];
    int what = t->cast_from != NULL ? 0 : action(cast, t);
    if (what == 3) {
      free(t->name);
      free(t->shape);
      continue;
    }
    if (what == 2 && !cast->model->quant.has_block) {
      const ckpt_tensor *s = scale_of(cast->model, t->source);
      int rc = tool_fail(err, CLI_EXIT_DATA,
                         "'%s': --outtype %s dequantizes the FP8 weight '%.200s' with its scale "
                         "'%.200s', but the block size of the scales is not known: give "
                         "--quant-block B0,B1 or a config.json with "
                         "quantization_config.weight_block_size",
                         cast->model->files[t->source->file].path, cast->to->name, t->source->name,
                         s != NULL ? s->name : "?");
      /* The tensors not yet visited stay; those removed are gone: free the rest as the plan
       * would. */
      for (size_t j = k; j < f->tensor_count; j++) {
        f->tensors[kept++] = f->tensors[j];
      }
      f->tensor_count = kept;
      return rc;
    }
    if (what == 1 || what == 2) {
      uint64_t in_size = t->dtype->block_bits / 8, out_size = cast->to->block_bits / 8;
      if (t->bytes / in_size > UINT64_MAX / out_size) {
        for (size_t j = k; j < f->tensor_count; j++) {
          f->tensors[kept++] = f->tensors[j];
        }
        f->tensor_count = kept;
        return tool_fail(err, CLI_EXIT_DATA,
                         "tensor '%.200s' as %s would take more than 2^64 bytes", t->name,
                         cast->to->name);
      }
      t->cast_from = t->dtype;
      t->dequantize = what == 2 ? CKPT_DEQUANTIZE_FP8 : 0;
      t->dtype = cast->to;
      t->bytes = t->bytes / in_size * out_size;
    }
    f->tensors[kept++] = *t;
  }
  f->tensor_count = kept;
  return 0;
}
