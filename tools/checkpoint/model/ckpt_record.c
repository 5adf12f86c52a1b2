/* Ranks that describe themselves (ckpt_record.h). */
#include "ckpt_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* The identity is XXH3-64 of Debian's libxxhash, as the manifest's checksums (ckpt_hash.h). */
#include <xxhash.h>

#include "io.h"
#include "io_source.h"

/* A decimal count of at most 9 digits, no sign, no leading zero: the value or -1. */
static int64_t decimal(const char *text) {
  size_t n = strlen(text);
  if (n == 0 || n > 9 || (n > 1 && text[0] == '0')) {
    return -1;
  }
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (text[i] < '0' || text[i] > '9') {
      return -1;
    }
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

/* 16 lowercase hex digits. */
static int identity(const char *text) {
  if (strlen(text) != 16) {
    return 0;
  }
  for (size_t i = 0; i < 16; i++) {
    if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) {
      return 0;
    }
  }
  return 1;
}

/* Sets one key of record `r` from entry `e` of file `f`. */
static int take_entry(const ckpt_file *f, const ckpt_meta *e, unsigned text_kind, ckpt_record *r,
                      tool_error *err) {
  if (e->kind != text_kind || strlen(e->value) != e->value_size) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: metadata '%.100s' is not text (cleave writes it as "
                     "text)",
                     f->name, e->key);
  }
  const char *v = e->value;
  char **text = NULL;
  int bad = 0;
  if (strcmp(e->key, CKPT_RECORD_RANK) == 0) {
    bad = (r->rank = decimal(v)) < 0;
  } else if (strcmp(e->key, CKPT_RECORD_RANKS) == 0) {
    bad = (r->ranks = decimal(v)) < 1;
  } else if (strcmp(e->key, CKPT_RECORD_RUN) == 0) {
    bad = !identity(v);
    text = &r->run;
  } else if (strcmp(e->key, CKPT_RECORD_SOURCE) == 0) {
    bad = !identity(v);
    text = &r->source;
  } else if (strcmp(e->key, CKPT_RECORD_RULES) == 0) {
    text = &r->rules;
  } else {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: metadata '%.100s' is not a key cleave writes (its keys are %s, %s, %s, "
                     "%s and %s)",
                     f->name, e->key, CKPT_RECORD_RANK, CKPT_RECORD_RANKS, CKPT_RECORD_RUN,
                     CKPT_RECORD_SOURCE, CKPT_RECORD_RULES);
  }
  if (bad) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: metadata '%s' is '%.100s', not %s", f->name, e->key,
                     v,
                     text != NULL                            ? "16 hex digits"
                     : strcmp(e->key, CKPT_RECORD_RANK) == 0 ? "a rank (0, 1, ...)"
                                                             : "a rank count (1, 2, ...)");
  }
  if (text != NULL) {
    *text = strdup(v);
    if (*text == NULL) {
      return tool_oom(err, "reading the ranks' records");
    }
  }
  r->present = 1;
  return 0;
}

int ckpt_records_take(ckpt_model *m, unsigned text_kind,
                      void (*forget)(ckpt_model *m, size_t file, size_t index),
                      ckpt_record **records, tool_error *err) {
  *records = calloc(m->file_count + 1, sizeof **records);
  if (*records == NULL) {
    return tool_oom(err, "reading the ranks' records");
  }
  size_t prefix = strlen(CKPT_RECORD_PREFIX);
  for (size_t i = 0; i < m->file_count; i++) {
    ckpt_file *f = &m->files[i];
    ckpt_record *r = &(*records)[i];
    r->rank = r->ranks = -1;
    for (size_t k = f->meta_count; k-- > 0;) {
      if (strncmp(f->meta[k].key, CKPT_RECORD_PREFIX, prefix) != 0) {
        continue;
      }
      int rc = take_entry(f, &f->meta[k], text_kind, r, err);
      if (rc != 0) {
        return rc;
      }
      (forget != NULL ? forget : ckpt_meta_remove)(m, i, k);
    }
    /* A file whose metadata was the record alone had none before cleave gave it one. */
    if (f->meta_count == 0 && r->present) {
      f->has_meta = 0;
    }
    int parts = (r->rank >= 0) + (r->ranks >= 1) + (r->run != NULL) + (r->rules != NULL);
    if (parts != 0 && parts != 4) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: its record is incomplete (%s, %s, %s and %s go together)", f->name,
                       CKPT_RECORD_RANK, CKPT_RECORD_RANKS, CKPT_RECORD_RUN, CKPT_RECORD_RULES);
    }
    r->rank_record = parts == 4;
    if (r->rank_record && r->rank >= r->ranks) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: it records rank %lld of %lld", f->name,
                       (long long)r->rank, (long long)r->ranks);
    }
  }
  return 0;
}

void ckpt_records_free(ckpt_record *records, size_t count) {
  for (size_t i = 0; records != NULL && i < count; i++) {
    free(records[i].run);
    free(records[i].source);
    free(records[i].rules);
  }
  free(records);
}

/* Whether two strings (either may be NULL) are equal. */
static int same(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int ckpt_records_order(const ckpt_model *m, const ckpt_record *records, size_t *order, int *ordered,
                       tool_error *err) {
  *ordered = 0;
  size_t with = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    with += records[i].rank_record != 0;
  }
  if (with == 0) {
    return 0;
  }
  for (size_t i = 0; i < m->file_count; i++) {
    if (!records[i].rank_record) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "'%s' records no rank, while the other ranks do: the ranks of one run "
                       "only (it was written by another tool, or is not a rank)",
                       m->files[i].path);
    }
  }
  const ckpt_record *first = &records[0];
  for (size_t i = 1; i < m->file_count; i++) {
    const ckpt_record *r = &records[i];
    if (!same(r->run, first->run) || r->ranks != first->ranks || !same(r->source, first->source) ||
        !same(r->rules, first->rules)) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "'%s' is rank %lld of another run than '%s' (run %s of %lld ranks, not "
                       "run %s of %lld): the ranks of one run only",
                       m->files[i].path, (long long)r->rank, m->files[0].path, r->run,
                       (long long)r->ranks, first->run, (long long)first->ranks);
    }
  }
  size_t n = (size_t)first->ranks;
  for (size_t rank = 0; rank < n; rank++) {
    size_t found = m->file_count;
    for (size_t i = 0; i < m->file_count; i++) {
      if ((size_t)records[i].rank != rank) {
        continue;
      }
      if (found != m->file_count) {
        return tool_fail(err, CLI_EXIT_DATA, "'%s' and '%s' are both rank %zu of %zu",
                         m->files[found].path, m->files[i].path, rank, n);
      }
      found = i;
    }
    if (found == m->file_count) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "rank %zu of %zu is missing (the ranks given record a run of %zu: give "
                       "every one, in any order)",
                       rank, n, n);
    }
    order[rank] = found;
  }
  if (m->file_count != n) {
    return tool_fail(err, CLI_EXIT_DATA, "%zu ranks given, but they record a run of %zu",
                     m->file_count, n);
  }
  *ordered = 1;
  return 0;
}

/* The bytes sampled of a tensor: its first and last (up to) 64. */
#define SAMPLE 128

static size_t sample_len(const ckpt_tensor *t, uint64_t *head, uint64_t *tail) {
  *head = t->bytes < 64 ? t->bytes : 64;
  *tail = t->bytes - *head < 64 ? t->bytes - *head : 64;
  return (size_t)(*head + *tail);
}

/* Reads tensor t's sample into buf. */
static int sample(const ckpt_tensor *t, io_source *in, unsigned char *buf, tool_error *err) {
  uint64_t head, tail;
  sample_len(t, &head, &tail);
  if (io_source_read(in, buf, (size_t)head, t->offset, CLI_EXIT_IOERR, err) != 0 ||
      io_source_read(in, buf + head, (size_t)tail, t->offset + t->bytes - tail, CLI_EXIT_IOERR,
                     err) != 0) {
    return err->status;
  }
  return 0;
}

/* A tensor and its place in by_name, ordered by file and offset. */
typedef struct placed {
  const ckpt_tensor *t;
  size_t k;
} placed;

static int by_place(const void *a, const void *b) {
  const ckpt_tensor *x = ((const placed *)a)->t, *y = ((const placed *)b)->t;
  return x->file != y->file       ? (x->file < y->file ? -1 : 1)
         : x->offset != y->offset ? (x->offset < y->offset ? -1 : 1)
                                  : 0;
}

/* The samples of every tensor (`out[k]` for by_name[k]), read in the files' order: over HTTP the
 * last bytes of a tensor and the first of the next then come in one request (io_source.h). */
static int read_samples(const ckpt_model *m, unsigned char *out, tool_error *err) {
  io_source *fds = calloc(m->file_count + 1, sizeof *fds);
  placed *order = calloc(m->tensor_count + 1, sizeof *order);
  if (fds == NULL || order == NULL) {
    free(fds);
    free(order);
    return tool_oom(err, "the source's identity");
  }
  for (size_t i = 0; i < m->file_count; i++) {
    fds[i].fd = -1;
  }
  for (size_t k = 0; k < m->tensor_count; k++) {
    order[k] = (placed){m->by_name[k], k};
  }
  qsort(order, m->tensor_count, sizeof *order, by_place);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < m->tensor_count; i++) {
    const ckpt_tensor *t = order[i].t;
    if (fds[t->file].fd < 0 && fds[t->file].http == NULL) {
      rc = io_source_open(&fds[t->file], m->files[t->file].path, NULL, err);
    }
    rc = rc != 0 ? rc : sample(t, &fds[t->file], out + order[i].k * SAMPLE, err);
  }
  for (size_t i = 0; i < m->file_count; i++) {
    io_source_close(&fds[i]);
  }
  free(fds);
  free(order);
  return rc;
}

int ckpt_model_identity(const ckpt_model *m, uint64_t *id, tool_error *err) {
  XXH3_state_t *state = XXH3_createState();
  unsigned char *samples = malloc((m->tensor_count + 1) * SAMPLE);
  int rc = state == NULL || samples == NULL ? tool_oom(err, "the source's identity")
                                            : read_samples(m, samples, err);
  if (rc == 0) {
    XXH3_64bits_reset(state);
    for (size_t k = 0; k < m->tensor_count; k++) {
      const ckpt_tensor *t = m->by_name[k];
      XXH3_64bits_update(state, t->name, strlen(t->name) + 1);
      XXH3_64bits_update(state, t->dtype->name, strlen(t->dtype->name) + 1);
      uint64_t dims = (uint64_t)t->ndim, head, tail;
      XXH3_64bits_update(state, &dims, sizeof dims);
      if (t->ndim > 0) {
        XXH3_64bits_update(state, t->shape, (size_t)t->ndim * sizeof *t->shape);
      }
      XXH3_64bits_update(state, samples + k * SAMPLE, sample_len(t, &head, &tail));
    }
    *id = XXH3_64bits_digest(state);
  }
  free(samples);
  XXH3_freeState(state);
  return rc;
}
