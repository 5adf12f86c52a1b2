/* What the checkpoint verbs share: the drivers, finding the format, the option groups of the
 * writing verbs, and running a plan (ckpt_commands.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_commands.h"
#include "ckpt_hash.h"
#include "ckpt_manifest.h"
#include "ckpt_record.h"
#include "cli_util.h"
#include "gguf_driver.h"
#include "io.h"
#include "st_driver.h"

const ckpt_driver *const ckpt_drivers[] = {&gguf_driver, &st_driver, NULL};

const char *ckpt_verb_word(ckpt_verb verb) {
  static const char *const words[CKPT_VERB_COUNT] = {"ls",    "check",   "split",  "shard",
                                                     "merge", "reshard", "verify", "convert"};
  return words[verb];
}

unsigned ckpt_command_tags(const ckpt_command *c) {
  return c->driver != NULL ? c->driver->tag : CKPT_ALL_FORMATS;
}

void ckpt_command_set_name(ckpt_command *c) {
  snprintf(c->name, sizeof c->name, "%s%s%s", c->driver != NULL ? c->driver->word : "",
           c->driver != NULL ? " " : "", ckpt_verb_word(c->verb));
}

/* ---- finding the format ----------------------------------------------------------------- */

int ckpt_command_find_format(ckpt_command *c, const char *path) {
  if (c->driver == NULL) {
    struct stat st;
    /* A model that cannot be read (a file, or a folder that cannot be listed) is 66, not a model
     * of no format: the probes would find nothing in it. */
    int found = stat(path, &st) == 0, fd = -1;
    if (found && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
      fd = open(path, O_RDONLY | O_CLOEXEC | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
      found = fd >= 0;
    }
    if (!found) {
      tool_error err;
      io_open_fail(&err, errno, NULL, path);
      return ckpt_command_report(&err);
    }
    if (fd >= 0) {
      close(fd);
    }
    for (size_t f = 0; ckpt_drivers[f] != NULL; f++) {
      if (ckpt_drivers[f]->read.probe(path) && c->driver != NULL) {
        return cli_error(CLI_EXIT_USAGE,
                         "'%s' holds both %s and %s files: name the format ('cleave %s %s' "
                         "or 'cleave %s %s')",
                         path, c->driver->name, ckpt_drivers[f]->name, c->driver->word,
                         ckpt_verb_word(c->verb), ckpt_drivers[f]->word, ckpt_verb_word(c->verb));
      }
      if (ckpt_drivers[f]->read.probe(path)) {
        c->driver = ckpt_drivers[f];
      }
    }
    if (c->driver == NULL) {
      tool_error err;
      tool_fail(&err, CLI_EXIT_DATA,
                "'%s' is not a model cleave reads: neither a safetensors model (%s) nor a "
                "GGUF model (%s); 'cleave st %s' and 'cleave gguf %s' name the format",
                path, st_driver.model_noun, gguf_driver.model_noun, ckpt_verb_word(c->verb),
                ckpt_verb_word(c->verb));
      return ckpt_command_report(&err);
    }
    ckpt_command_set_name(c);
    c->args.run.stale_suffixes = c->driver->stale_suffixes;
    c->args.rules.experts = (c->driver->traits & CKPT_SPLITS_EXPERTS) != 0;
  }
  size_t at;
  const cli_opt *foreign = cli_args_foreign(&c->parsed, c->driver->tag, &at);
  if (foreign != NULL) {
    char spelled[96];
    cli_args_spelling(&c->parsed, at, spelled, sizeof spelled);
    const char *other = NULL;
    for (size_t f = 0; ckpt_drivers[f] != NULL; f++) {
      if ((ckpt_drivers[f]->tag & foreign->tag) != 0) {
        other = ckpt_drivers[f]->word;
        break;
      }
    }
    return cli_error(CLI_EXIT_USAGE, "%s belongs to '%s %s', not to %s models ('%s' is one)",
                     spelled, other != NULL ? other : "?", ckpt_verb_word(c->verb), c->driver->name,
                     path);
  }
  return 0;
}

int ckpt_command_report(tool_error *err) {
  tool_scrub(err);
  return tool_report(err);
}

/* ---- outputs never among the inputs ------------------------------------------------------ */

/* The real path of `path`, or, when it does not exist yet, its parent's joined with its last
 * name (malloc'd); NULL when neither resolves. */
static char *resolve(const char *path) {
  char *real = realpath(path[0] != '\0' ? path : ".", NULL);
  if (real != NULL) {
    return real;
  }
  char *copy = strdup(path);
  if (copy == NULL) {
    return NULL;
  }
  size_t n = strlen(copy);
  while (n > 1 && copy[n - 1] == '/') {
    copy[--n] = '\0';
  }
  char *slash = strrchr(copy, '/');
  const char *name = slash != NULL ? slash + 1 : copy;
  char *parent = slash == copy   ? realpath("/", NULL)
                 : slash != NULL ? (*slash = '\0', realpath(copy, NULL))
                                 : realpath(".", NULL);
  char *joined = NULL;
  if (parent != NULL &&
      asprintf(&joined, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, name) < 0) {
    joined = NULL;
  }
  free(parent);
  free(copy);
  return joined;
}

/* Whether the real path `inner` is `outer` or lies below it. */
static int within(const char *inner, const char *outer) {
  size_t n = strlen(outer);
  return strncmp(inner, outer, n) == 0 &&
         (inner[n] == '\0' || inner[n] == '/' || (n == 1 && outer[0] == '/'));
}

/* The folder of the file `path`, resolved (malloc'd), or NULL. */
static char *folder_of(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash == path   ? strdup("/")
              : slash != NULL ? strndup(path, (size_t)(slash - path))
                              : strdup(".");
  char *real = dir != NULL ? resolve(dir) : NULL;
  free(dir);
  return real;
}

/* An output folder that is the model's folder, holds one of its files, or lies in the folder of
 * ranks being read is refused, -f or not: the outputs would land among the inputs, where every
 * later command on the folder would take them for the model's (and the ranks' manifest would be
 * replaced). */
static int outdir_apart(const ckpt_command *c, const ckpt_model *m) {
  const char *outdir = c->args.run.outdir;
  char *out = resolve(outdir);
  if (out == NULL) {
    return 0; /* its parent does not exist: the writer says so (73) */
  }
  int rc = 0;
  if (m->owns_dir) {
    char *dir = resolve(m->dir);
    if (dir != NULL && (strcmp(out, dir) == 0 || (m->ranks_dir && within(out, dir)))) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "-o '%s' %s the folder of the %s, '%s': the outputs may not land among "
                     "the inputs (name a folder outside it)",
                     outdir, strcmp(out, dir) == 0 ? "is" : "lies in",
                     m->ranks_dir ? "ranks" : "model", m->dir);
    }
    free(dir);
  }
  for (size_t i = 0; rc == 0 && i <= m->file_count; i++) {
    const char *input = i < m->file_count ? m->files[i].path : m->index_path;
    char *dir = input != NULL ? folder_of(input) : NULL;
    if (dir != NULL && strcmp(dir, out) == 0) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "-o '%s' holds the input '%s': the outputs may not land among the "
                     "inputs (name a folder of their own)",
                     outdir, input);
    }
    free(dir);
  }
  free(out);
  return rc;
}

/* ---- what the outputs record ---------------------------------------------------------------- */

/* What the records' metadata owns: arrays and strings, freed after the run. */
typedef struct owned {
  void **items;
  size_t count, cap;
} owned;

static void *keep(owned *o, void *p) {
  if (p != NULL && o->count == o->cap) {
    size_t cap = o->cap > 0 ? 2 * o->cap : 16;
    void **grown = realloc(o->items, cap * sizeof *grown);
    if (grown == NULL) {
      free(p);
      return NULL;
    }
    o->items = grown;
    o->cap = cap;
  }
  if (p != NULL) {
    o->items[o->count++] = p;
  }
  return p;
}

static void owned_free(owned *o) {
  for (size_t i = 0; i < o->count; i++) {
    free(o->items[i]);
  }
  free(o->items);
  memset(o, 0, sizeof *o);
}

static int by_key(const void *a, const void *b) {
  return strcmp(((const ckpt_meta *)a)->key, ((const ckpt_meta *)b)->key);
}

/* One text entry of the record. */
static ckpt_meta text_entry(const ckpt_command *c, const char *key, char *value) {
  ckpt_meta e = {(char *)key, value, value != NULL ? strlen(value) : 0, c->driver->text_kind};
  return e;
}

/* Gives every output file of `plan` (the ranks of a shard or reshard) its record (ckpt_record.h):
 * its rank, the count, the run, the source and the rules. The files' metadata then point into
 * `store`; every file is laid out again. */
static int add_records(ckpt_command *c, const ckpt_model *m, ckpt_plan *plan, owned *store) {
  ckpt_lineage *l = &c->lineage;
  char run[CKPT_HASH_HEX], count[32];
  snprintf(count, sizeof count, "%zu", plan->file_count);
  /* The run is what it writes: the same run twice writes the same bytes. */
  char *what = NULL;
  if (asprintf(&what, "%s\n%s\n%s", l->source, l->rules, count) < 0) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  ckpt_hash_hex(ckpt_hash_bytes(what, strlen(what)), run);
  free(what);
  snprintf(l->run, sizeof l->run, "%s", run);
  char *source = keep(store, strdup(l->source));
  char *shared[3] = {source, keep(store, strdup(run)), keep(store, strdup(count))};
  char *rules = keep(store, strdup(l->rules));
  if (source == NULL || shared[1] == NULL || shared[2] == NULL || rules == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < plan->file_count; i++) {
    ckpt_out_file *f = &plan->files[i];
    size_t n = f->meta_count;
    ckpt_meta *meta = keep(store, calloc(n + 6, sizeof *meta));
    char rank[32];
    snprintf(rank, sizeof rank, "%zu", i);
    char *rank_text = keep(store, strdup(rank));
    if (meta == NULL || rank_text == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    if (n > 0) {
      memcpy(meta, f->meta, n * sizeof *meta);
    }
    meta[n++] = text_entry(c, CKPT_RECORD_SOURCE, source);
    meta[n++] = text_entry(c, CKPT_RECORD_RANK, rank_text);
    meta[n++] = text_entry(c, CKPT_RECORD_RANKS, shared[2]);
    meta[n++] = text_entry(c, CKPT_RECORD_RUN, shared[1]);
    meta[n++] = text_entry(c, CKPT_RECORD_RULES, rules);
    qsort(meta, n, sizeof *meta, by_key);
    f->meta = meta;
    f->meta_count = n;
    f->has_meta = 1;
  }
  ckpt_format format = c->driver->write.format(m);
  tool_error err;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < plan->file_count; i++) {
    rc = format.layout(format.ctx, &plan->files[i], &err);
  }
  if (rc == 0 && plan->index_name != NULL && format.index != NULL) {
    rc = format.index(format.ctx, plan, &err);
  }
  if (rc != 0) {
    return ckpt_command_report(&err);
  }
  return 0;
}

/* ---- running a plan --------------------------------------------------------------------- */

/* --rank R: the whole run planned (its rules checked, its records made, its files laid out as
 * the full run lays them out), then only rank R's file kept, so that it is byte for byte the
 * full run's rank R. Its manifest is named after the rank and says the run; the sidecars go with
 * rank 0 only, so that the union of the ranks' folders holds each once; the other ranks' files
 * and manifests beside it are expected (c->other_ranks), not an earlier run's leftovers. */
static int keep_one_rank(ckpt_command *c, ckpt_plan *plan) {
  int64_t r = c->args.one_rank.rank;
  size_t n = plan->file_count;
  if (n != (size_t)c->args.ranks.spec.ranks || plan->index_name != NULL) {
    return cli_error(CLI_EXIT_SOFTWARE,
                     "internal error: the plan of %zu files is not one file per rank of %lld", n,
                     (long long)c->args.ranks.spec.ranks);
  }
  c->other_ranks = calloc(2 * n + 1, sizeof *c->other_ranks);
  if (c->other_ranks == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (i != (size_t)r) {
      c->other_ranks[k++] = plan->files[i].name; /* taken from the file freed */
      plan->files[i].name = NULL;
      ckpt_out_file_free(&plan->files[i]);
      if (asprintf(&c->other_ranks[k++], CKPT_MANIFEST_RANK_FORMAT, (long long)i) < 0) {
        c->other_ranks[k - 1] = NULL;
        return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      }
    }
  }
  if (r != 0) {
    plan->files[0] = plan->files[r];
    memset(&plan->files[r], 0, sizeof plan->files[r]);
  }
  plan->file_count = 1;
  plan->one_rank = 1;
  ckpt_run_options *run = &c->args.run;
  snprintf(c->manifest_name, sizeof c->manifest_name, CKPT_MANIFEST_RANK_FORMAT, (long long)r);
  run->manifest_name = c->manifest_name;
  run->manifest_rank = r;
  run->manifest_ranks = c->args.ranks.spec.ranks;
  run->manifest_run = c->lineage.run;
  run->no_sidecar = run->no_sidecar || r != 0;
  run->expected = (const char *const *)c->other_ranks;
  return 0;
}

/* A dequantizing run copies config.json unchanged (docs/cli.md, "Casts"): its
 * quantization_config then describes weights the outputs no longer hold, which a loader that
 * reads it would misread; say so. */
static void warn_quantization_config(const ckpt_model *m, const ckpt_plan *plan) {
  int dequantized = 0;
  for (size_t i = 0; i < plan->file_count && !dequantized; i++) {
    for (size_t k = 0; k < plan->files[i].tensor_count && !dequantized; k++) {
      dequantized = plan->files[i].tensors[k].dequantize;
    }
  }
  for (size_t i = 0; dequantized && i < m->sidecar_count; i++) {
    if (strcmp(m->sidecars[i], "config.json") == 0) {
      cli_warning("config.json is copied unchanged: its quantization_config still describes the "
                  "FP8 weights --outtype dequantized (remove it before loading the outputs with "
                  "transformers)");
      return;
    }
  }
}

int ckpt_command_write(ckpt_command *c, const ckpt_model *m, ckpt_plan *plan,
                       const ckpt_finish_options *finish) {
  void *store = NULL;
  owned records = {0};
  /* A merge into one named file goes into a folder of other files (its parts, often): only a
   * folder of outputs must stand apart from the inputs. */
  int rc = c->args.run.manifest_name == NULL ? outdir_apart(c, m) : 0;
  if (rc == 0 && c->lineage.what != CKPT_LINEAGE_NONE) {
    rc = add_records(c, m, plan, &records);
  }
  if (rc == 0 && c->driver->write.finish != NULL) {
    tool_error err;
    rc = c->driver->write.finish(m, plan, finish, &store, &err);
    if (rc != 0) {
      ckpt_command_report(&err);
    }
  }
  if (rc == 0 && c->args.one_rank.given) {
    rc = keep_one_rank(c, plan);
  }
  if (rc == 0 && !c->args.run.no_sidecar && !c->args.run.quiet) {
    warn_quantization_config(m, plan);
  }
  if (rc == 0) {
    /* ckpt_run_plan also writes the manifest (OUTDIR/cleave-manifest.json) from the plan's
     * spans, the last output of the all-or-nothing set. */
    rc = ckpt_run_plan(plan, m, &c->args.run, c->name);
  }
  if (c->driver->write.free_store != NULL) {
    c->driver->write.free_store(store);
  }
  owned_free(&records);
  for (size_t i = 0; c->other_ranks != NULL && c->other_ranks[i] != NULL; i++) {
    free(c->other_ranks[i]);
  }
  free(c->other_ranks);
  c->other_ranks = NULL;
  c->args.run.expected = NULL;
  return rc;
}

/* ---- the option groups of the writing verbs ---------------------------------------------- */

const cli_opt ckpt_outdir_option[] = {
    CLI_STRING('o', "output", "OUTDIR", ckpt_args, run.outdir,
               "the output folder (created if missing, its parent must exist; removed again "
               "on failure)"),
    CLI_END,
};

ckpt_cast ckpt_command_cast(const ckpt_command *c, const ckpt_model *m) {
  static const cleave_dtype types[] = {CLEAVE_F32, CLEAVE_F16, CLEAVE_BF16};
  ckpt_cast cast = {NULL, m};
  if (c->args.outtype >= 0 && c->driver->write.dtype != NULL) {
    cast.to = c->driver->write.dtype(types[c->args.outtype]);
  }
  return cast;
}

/* --dtype on a checkpoint verb: always refused, naming the option that casts. */
static int refuse_dtype(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)target;
  (void)opt;
  return cli_error_at(place, CLI_EXIT_USAGE,
                      "--dtype '%s': --dtype describes the data of .npy files (the .npy "
                      "commands); to cast a checkpoint's tensors use --outtype " CKPT_OUTTYPES,
                      value);
}

const cli_opt ckpt_run_flags[] = {
    CLI_FLAG(0, "dry-run", ckpt_args, run.dry_run,
             "print the plan (every output file and tensor, its size and source, and of a part "
             "of a cut tensor the axis and the elements it holds: 'axis 0, 3:6 of 6') from the "
             "headers alone; write nothing"),
    CLI_FLAG('f', "force", ckpt_args, run.force,
             "replace existing outputs, each by a rename once the new one is complete (without "
             "-f: status 73); an output among the inputs is refused (64) all the same"),
    CLI_FLAG(0, "sync", ckpt_args, run.sync, "fsync the outputs and their folder before finishing"),
    CLI_FLAG(0, "json", ckpt_args, run.json,
             "print {\"command\", \"dry_run\", \"outputs\": [{\"path\", \"tensors\", "
             "\"bytes\"}]} (with --dry-run each output also has its \"plan\")"),
    CLI_FLAG('q', "quiet", ckpt_args, run.quiet, "print nothing on success"),
    CLI_CLEAR(0, "no-progress", ckpt_args, run.progress,
              "no progress line on stderr (shown only on a terminal)"),
    CLI_END,
};

const cli_opt ckpt_write_options[] = {
    CLI_CHOICE(0, "outtype", CKPT_OUTTYPES, ckpt_args, outtype,
               "write every F32, F16, BF16 and F64 tensor as this type (rounded to nearest even; "
               "overflow becomes infinity, NaN stays NaN), and every FP8 e4m3 weight that has a "
               "_scale_inv scale dequantized to it (e4m3 times its block's scale in float32, "
               "then rounded) with the scales left out; integer, block-quantized and other "
               "tensors are written as they are. The manifest records each conversion"),
    {.kind = CLI_OPT_CALL,
     .long_name = "dtype",
     .arg = "TYPE",
     .help = "refused (64): --dtype describes the data of .npy files; casting is --outtype",
     .call = refuse_dtype},
    CLI_INCLUDE_SAME(ckpt_run_flags),
    {.kind = CLI_OPT_FLAG,
     .long_name = "no-sidecar",
     .help = "do not copy the model folder's other files (config.json, tokenizer files...) "
             "into OUTDIR",
     .offset = offsetof(ckpt_args, run.no_sidecar),
     .number = 1,
     .tag = CKPT_FORMAT_ST},
    CLI_END,
};

/* --max-tensors N: a count from 1, given once. */
static int max_tensors(void *target, const char *value, const cli_opt *opt, const char *place) {
  uint64_t *n = target;
  int64_t v = 0;
  if (*n != 0) {
    return cli_error_at(place, CLI_EXIT_USAGE, "option --%s is given twice", opt->long_name);
  }
  char what[96];
  snprintf(what, sizeof what, "%s%s--%s", place != NULL ? place : "", place != NULL ? ": " : "",
           opt->long_name);
  int rc = cli_parse_int64(value, what, &v);
  if (rc == 0 && v < 1) {
    rc = cli_error_at(place, CLI_EXIT_USAGE, "--%s is %lld: a file holds 1 tensor at least",
                      opt->long_name, (long long)v);
  }
  *n = rc == 0 ? (uint64_t)v : 0;
  return rc;
}

const cli_opt ckpt_size_option[] = {
    CLI_SIZE(0, "max-shard-size", "SIZE", ckpt_args, max_shard_size,
             "write the outputs as one model in files of at most SIZE bytes of tensors each (a "
             "larger tensor gets a file of its own), named as the format's own tools name "
             "them" CKPT_ST_TEXT(
                 ": model-00001-of-0000N.safetensors and model.safetensors.index.json, as "
                 "Hugging Face's writer lays them out (tensors in natural name order: "
                 "layers.2 before layers.10)")
                 CKPT_GGUF_TEXT(": a split set, BASE-00001-of-0000N.gguf, as gguf-split writes "
                                "it") ". SIZE: 5GB, 1.5G, 500MiB (K/KB, M/MB, G/GB, T/TB: "
                                      "powers of 1000; KiB, MiB, "
                                      "GiB, TiB: of 1024; no unit: bytes)"),
    {.kind = CLI_OPT_CALL,
     .long_name = "max-tensors",
     .arg = "N",
     .help = "write the outputs as a split set of at most N tensors per file, as gguf-split's "
             "--split-max-tensors cuts it (a new file at every N-th tensor); with "
             "--max-shard-size a file also ends where the next tensor would pass SIZE",
     .offset = offsetof(ckpt_args, max_tensors),
     .call = max_tensors,
     .tag = CKPT_FORMAT_GGUF},
    CLI_END,
};

/* --quant-block B0,B1: two sizes from 1 to 2^31. */
static int quant_block(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)opt;
  ckpt_quant *q = target;
  const char *p = value;
  for (int i = 0; i < 2; i++) {
    char *end = NULL;
    long long v = *p >= '0' && *p <= '9' ? strtoll(p, &end, 10) : 0;
    if (end == NULL || v < 1 || v > (1LL << 31) || *end != (i == 0 ? ',' : '\0')) {
      return cli_error_at(place, CLI_EXIT_USAGE,
                          "--quant-block '%s' is not B0,B1 (the rows and columns of a "
                          "quantization block, each from 1 to 2147483648, e.g. 128,128)",
                          value);
    }
    q->block[i] = v;
    p = end + 1;
  }
  q->has_block = 1;
  return 0;
}

const cli_opt ckpt_quant_option[] = {
    {.kind = CLI_OPT_CALL,
     .long_name = "quant-block",
     .arg = "B0,B1",
     .help = "the block size of the model's FP8 block scales: B0 rows and B1 columns of a "
             "weight per scale (e.g. 128,128); default: the weight_block_size in config.json (in "
             "the MODEL folder, or beside the MODEL file or the first RANK)",
     .offset = offsetof(ckpt_args, quant),
     .call = quant_block,
     .tag = CKPT_FORMAT_ST},
    CLI_END,
};
