/*
 * A checkpoint format as a driver: everything the commands (ls, check, split, shard, merge,
 * reshard, verify: tools/checkpoint/commands) ask of a file format, behind one interface, so
 * that each command is written once for every format and a new format costs a driver, not a
 * copy of the commands. A driver finds its files by their magic, loads a model or a set of ranks
 * into the format-neutral ckpt_model, reads one file's header strictly, describes a model for
 * `check` and `ls`, and lays out and finishes the files the planners make (ckpt_format.h). The
 * formats fill one each: tools/safetensors (st_driver) and tools/gguf (gguf_driver).
 */
#ifndef CLEAVE_CKPT_DRIVER_H
#define CLEAVE_CKPT_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_format.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "error.h"
#include "json_out.h"

/** The formats, as bits: the tags of the options only some formats take (args.h). */
enum { CKPT_FORMAT_ST = 1u, CKPT_FORMAT_GGUF = 2u };

/** Help text that only one format's commands print (args.h's "[[N:TEXT]]", N the format's bit
 * above), so that `cleave st VERB --help` says nothing of GGUF; `cleave VERB --help` prints
 * both. */
#define CKPT_ST_TEXT(TEXT) "[[1:" TEXT "]]"
#define CKPT_GGUF_TEXT(TEXT) "[[2:" TEXT "]]"

/** How `load` treats what departs from the format's canonical form without harming the data. */
typedef struct ckpt_load_options {
  /** Refuse it (CLI_EXIT_DATA) instead of warning. */
  int strict;
  /** Out: how many departures were accepted with a warning. */
  size_t accepted;
  /** MODEL may be any file of a model of several files (ls, check): the format loads the whole
   * model when it finds it from that file, else that file alone with a warning saying why. A
   * format that has no such files ignores it. */
  int any_part;
} ckpt_load_options;

/** What a writing command asks of the files it writes, beyond the planners' layout. */
typedef struct ckpt_finish_options {
  /** --max-shard-size in bytes (0: not given). */
  uint64_t max_shard_bytes;
  /** The name the files of a set are named on ("model": model-00001-of-00003.gguf). */
  const char *set_base;
  /** The plan's files mirror the input's and the input was a set: they stay one. */
  int mirror_set;
  /** --max-tensors: at most this many tensors in a file of the set (0: not given). */
  uint64_t max_tensors;
} ckpt_finish_options;

/** What a format adds to the help of one command: usage lines after the command's own (each
 * "       cleave {cmd} ..."), and paragraphs after its notes (NULL: nothing). */
typedef struct ckpt_verb_help {
  const char *usage, *notes;
} ckpt_verb_help;

/** What a format adds to the help of its commands; `family` is `cleave WORD --help`'s
 * description. */
typedef struct ckpt_driver_help {
  const char *family;
  ckpt_verb_help ls, check, split, shard, merge, reshard, verify;
} ckpt_driver_help;

/** What a format is like (ckpt_driver.traits). */
enum {
  /** merge writes one named file (-o OUT.gguf) rather than a folder. */
  CKPT_MERGES_TO_FILE = 1u << 0,
  /** --max-shard-size is applied by the planners, which then lay the tensors out as Hugging
   * Face's writer does (ckpt_by_size.h), rather than by the format's finish. */
  CKPT_SIZED_BY_PLANNER = 1u << 1,
  /** `ls` lists each tensor's data offset in JSON. */
  CKPT_LISTS_OFFSETS = 1u << 2,
  /** split's rules may unstack and stack experts ({e} in a name or a glob). */
  CKPT_SPLITS_EXPERTS = 1u << 3,
  /** The model folder's config.json (Hugging Face's) describes the model: the presets and the
   * block size of FP8 scales read it. */
  CKPT_HF_CONFIG = 1u << 4,
};

/** Reading a format's files. */
typedef struct ckpt_driver_read {
  /** 1 when the file or folder at `path` is this format's (by magic; a folder by what it
   * holds), else 0. Reads a few bytes; never fails. */
  int (*probe)(const char *path);
  /** Loads MODEL: a model of this format (a file, or what the format finds from it: an index
   * and its shards, a folder, a split set from its first file) into a new model `*out` (free it
   * with `free_model`, also after a failure). Returns 0 or an exit status with the message in
   * `err`: CLI_EXIT_NOINPUT, CLI_EXIT_DATA, CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE. */
  int (*load)(const char *path, ckpt_load_options *o, ckpt_model **out, tool_error *err);
  /** Loads the parts of one model named one by one (a split set's files, in any order), or
   * NULL when the format has no such sets. Returns as `load`. */
  int (*load_parts)(char *const *paths, size_t count, ckpt_model **out, tool_error *err);
  /** Loads the ranks of a tensor-parallel checkpoint as one model whose file R is rank R
   * (ckpt_ranks.h): the rank files, or a folder of rank<R> + suffix. Returns as `load`. */
  int (*load_ranks)(char *const *paths, size_t count, ckpt_model **out, tool_error *err);
  /** Releases a model `load`, `load_parts` or `load_ranks` made (NULL: nothing). */
  void (*free_model)(ckpt_model *m);
  /** Reads one data file's header as `check --strict` does (verify's reading of an output).
   * Returns 0 or an exit status with the message in `err`. */
  int (*header)(const char *path, ckpt_file *out, tool_error *err);
  /** Removes metadata entry `index` of file `file` of a loaded model (freeing it), keeping what
   * the format knows of the others (GGUF: their order in the header); NULL: the entry is simply
   * removed (ckpt_meta_remove). */
  void (*forget)(ckpt_model *m, size_t file, size_t index);
} ckpt_driver_read;

/** What `check` and `ls` say of a model beyond what every format has. */
typedef struct ckpt_driver_report {
  /** `check`'s report of model `m` given as `path`: its line, given the counts every format has
   * (`common`: "1 file, 4 tensors, 130 bytes of data") and the departures `load` accepted; and
   * the JSON members after those counts. */
  void (*check_text)(const ckpt_model *m, const char *path, const char *common, size_t accepted);
  void (*check_json)(const ckpt_model *m, json_out *j, size_t accepted);
  /** `ls --metadata`: the metadata of every file, as lines or into the open JSON array `j`
   * (NULL: lines). NULL when the format has no listing of its own. */
  void (*metadata)(const ckpt_model *m, json_out *j);
} ckpt_driver_report;

/** Writing a format's files. */
typedef struct ckpt_driver_write {
  /** The writer interface for plans made on model `m` (which must outlive it). */
  ckpt_format (*format)(const ckpt_model *m);
  /** What the format adds to a plan once the planners made it (a set's files and keys, counts
   * in the metadata the rules changed), then every file laid out again; `*store` receives what
   * the plan's metadata then points into (free it with `free_store` after the plan). NULL: the
   * planners' layout is final. Returns 0 or an exit status with the message in `err`. */
  int (*finish)(const ckpt_model *m, ckpt_plan *plan, const ckpt_finish_options *o, void **store,
                tool_error *err);
  void (*free_store)(void *store);
  /** The name a model's outputs derive theirs from ("model" for model.gguf). */
  const char *(*base_name)(const ckpt_model *m);
  /** Whether `m` was loaded from a set of files that a split mirrors as a set. */
  int (*is_set)(const ckpt_model *m);
  /** The format's dtype of library type `lib` (CLEAVE_F32, CLEAVE_F16, CLEAVE_BF16, the
   * --outtype types), or NULL when the format has none. */
  const ckpt_dtype *(*dtype)(cleave_dtype lib);
} ckpt_driver_write;

typedef struct ckpt_driver {
  /** The format's name in messages ("safetensors", "GGUF"), and its command family's word
   * ("st", "gguf": `cleave st shard` pins the format). */
  const char *name, *word;
  /** Its bit among the CKPT_FORMAT_* (the tag of its own options). */
  unsigned tag;
  /** The ending of its data files (".safetensors", ".gguf"): rank<R> + suffix, and the files
   * `verify` reads back; and what MODEL may be, for messages ("a .safetensors file, an index or
   * a folder"). */
  const char *suffix, *model_noun;
  /** The name endings of the files a run's folder may hold (NULL-terminated): those an earlier
   * run left and this one did not replace are named in a warning. */
  const char *const *stale_suffixes;
  /** CKPT_MERGES_TO_FILE, CKPT_SIZED_BY_PLANNER, ... */
  unsigned traits;
  /** The ckpt_meta kind of its metadata values that are text (the ranks' records are text). */
  unsigned text_kind;
  /** The format's paragraphs of the commands' help. */
  const ckpt_driver_help *help;
  ckpt_driver_read read;
  ckpt_driver_report report;
  ckpt_driver_write write;
} ckpt_driver;

#endif /* CLEAVE_CKPT_DRIVER_H */
