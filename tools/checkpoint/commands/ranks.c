/* shard, merge and reshard, whatever the format: a model cut into tensor-parallel ranks, the
 * ranks joined back (or a split set's parts into one file), and ranks cut again into another
 * number, by the same rules (--axis, --view, --replicate, --unmatched, a preset's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_commands.h"
#include "ckpt_manifest.h"
#include "ckpt_planner.h"
#include "ckpt_record.h"
#include "cli_util.h"
#include "words.h"

/* Whether the command line gave a rule (or a preset, whose rules come from config.json). */
static int has_rules(const ckpt_command *c) {
  return c->args.ranks.spec.axis_count > 0 || c->args.preset.name != NULL;
}

/* The command line's checks, before any file is opened (64); those that depend on the format
 * come after it is found (check_for_format). */
static int check_command_line(const ckpt_command *c) {
  const ckpt_args *a = &c->args;
  const cli_args *p = &c->parsed;
  if (c->verb == CKPT_SHARD && p->positional_count > 1) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s'", p->positional[1]);
  }
  if (p->positional_count == 0) {
    if (c->verb == CKPT_SHARD) {
      return cli_error(CLI_EXIT_USAGE, "the MODEL is missing");
    }
    if (c->verb == CKPT_MERGE && c->driver != NULL && c->driver->read.load_parts != NULL) {
      return cli_error(CLI_EXIT_USAGE,
                       "the PARTs are missing (a split set's files, or with --axis rules the "
                       "RANKs)");
    }
    return cli_error(CLI_EXIT_USAGE,
                     "the RANK checkpoints are missing (the rank files in rank order, or one "
                     "folder of rank<R>%s)",
                     c->driver != NULL ? c->driver->suffix : " files");
  }
  if (a->run.outdir == NULL || a->run.outdir[0] == '\0') {
    int to_file = c->verb == CKPT_MERGE && c->driver != NULL &&
                  (c->driver->traits & CKPT_MERGES_TO_FILE) != 0;
    return cli_error(CLI_EXIT_USAGE, "-o %s%s is missing", to_file ? "OUT" : "OUTDIR",
                     to_file ? c->driver->suffix : "");
  }
  if (c->verb != CKPT_MERGE && a->ranks.spec.ranks == 0) {
    if (a->one_rank.given) {
      return cli_error(CLI_EXIT_USAGE, "-n RANKS is missing (--rank %lld is one rank of RANKS)",
                       (long long)a->one_rank.rank);
    }
    return cli_error(CLI_EXIT_USAGE, "-n RANKS is missing");
  }
  if (a->one_rank.given && a->one_rank.rank >= a->ranks.spec.ranks) {
    return cli_error(CLI_EXIT_USAGE, "--rank %lld is out of range: -n %lld makes ranks 0 to %lld",
                     (long long)a->one_rank.rank, (long long)a->ranks.spec.ranks,
                     (long long)a->ranks.spec.ranks - 1);
  }
  /* A shard needs rules; a merge or reshard of ranks that record theirs does not. */
  if (c->verb == CKPT_SHARD && !has_rules(c)) {
    return cli_error(CLI_EXIT_USAGE, "no --axis GLOB=AXIS rule%s",
                     c->driver == NULL || (c->driver->traits & CKPT_HF_CONFIG) ? " and no --preset"
                                                                               : "");
  }
  return ckpt_preset_args_check(c, 0);
}

/* The checks of a merge of a split set's parts (a merge without rules of files that are no
 * ranks): it takes no rank rule. */
static int check_parts(const ckpt_command *c) {
  const ckpt_shard_spec *spec = &c->args.ranks.spec;
  if (spec->view_count > 0 || spec->replicate_count > 0 || spec->unmatched_error) {
    return cli_error(CLI_EXIT_USAGE,
                     "--view, --replicate and --unmatched join ranks with --axis GLOB=AXIS "
                     "rules; a split set takes none");
  }
  return 0;
}

/* -o of a merge into one file: its folder is the output folder, its name the file's; `*base` is
 * the name without .gguf (a set of that size is named on it). */
static int output_file(ckpt_command *c, char **dir, char **name, char **base, char **manifest) {
  const char *output = c->args.run.outdir;
  const char *slash = strrchr(output, '/');
  const char *file = slash != NULL ? slash + 1 : output;
  *dir = slash == output ? strdup("/")
         : slash != NULL ? strndup(output, (size_t)(slash - output))
                         : strdup(".");
  *name = strdup(file);
  size_t n = strlen(file), k = strlen(c->driver->suffix);
  *base = strndup(file, n > k && strcmp(file + n - k, c->driver->suffix) == 0 ? n - k : n);
  /* The manifest goes beside the file, named after it: never over another run's. */
  if (*dir == NULL || *name == NULL || *base == NULL ||
      asprintf(manifest, "%s%s", file, CKPT_MANIFEST_SUFFIX) < 0) {
    *manifest = NULL;
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (file[0] == '\0' || strcmp(file, ".") == 0 || strcmp(file, "..") == 0) {
    return cli_error(CLI_EXIT_USAGE, "-o '%s' does not name a file", output);
  }
  c->args.run.outdir = *dir;
  c->args.run.manifest_name = *manifest;
  /* The file goes into a folder of other files (often the ranks): not a folder of outputs. */
  c->args.run.stale_suffixes = NULL;
  return 0;
}

/* One output file holding every tensor of the set, in the set's order, with the first file's
 * metadata. */
static int plan_set(const ckpt_model *m, const char *name, const ckpt_cast *cast, ckpt_plan *plan,
                    tool_error *err) {
  memset(plan, 0, sizeof *plan);
  int rc = ckpt_plan_files(plan, 1, err);
  ckpt_out_file *out = rc == 0 ? &plan->files[0] : NULL;
  if (rc == 0) {
    out->name = strdup(name);
    out->meta = m->files[0].meta;
    out->meta_count = m->files[0].meta_count;
    out->has_meta = 1;
    rc = out->name == NULL ? tool_oom(err, "planning the merge") : 0;
  }
  for (size_t f = 0; f < m->file_count && rc == 0; f++) {
    const ckpt_file *file = &m->files[f];
    for (size_t k = 0; k < file->tensor_count && rc == 0; k++) {
      ckpt_out_tensor t = ckpt_out_whole(&file->tensors[k]);
      ckpt_span span = ckpt_span_whole(&file->tensors[k]);
      if (ckpt_out_file_add(out, &t, &span, 1) != 0) {
        rc = tool_oom(err, "planning the merge");
      }
    }
  }
  return rc == 0 ? ckpt_cast_file(cast, out, err) : rc;
}

/* The plan of the verb on the loaded model (`name`: merge's one output file, or NULL). */
static int plan_verb(const ckpt_command *c, const ckpt_model *m, const char *name, ckpt_plan *plan,
                     tool_error *err) {
  const ckpt_shard_spec *spec = &c->args.ranks.spec;
  ckpt_format format = c->driver->write.format(m);
  ckpt_cast cast = ckpt_command_cast(c, m);
  format.cast = &cast;
  if (c->verb == CKPT_SHARD) {
    return ckpt_plan_shard(m, &format, spec, plan, err);
  }
  if (c->verb == CKPT_RESHARD) {
    return ckpt_plan_reshard(m, &format, spec, plan, err);
  }
  if (!has_rules(c)) {
    return plan_set(m, name, &cast, plan, err);
  }
  uint64_t planned = (c->driver->traits & CKPT_SIZED_BY_PLANNER) ? c->args.max_shard_size : 0;
  int rc = ckpt_plan_merge(m, &format, spec, planned, plan, err);
  if (rc == 0 && name != NULL && plan->file_count == 1) {
    char *copy = strdup(name);
    if (copy == NULL) {
      return tool_oom(err, "planning the merge");
    }
    free(plan->files[0].name);
    plan->files[0].name = copy;
  }
  return rc;
}

/* --axis, --view, --replicate, --unmatched and -n: the rank rules of the command line (or of a
 * ranks' record), each but -n also kept as given for the record the outputs carry. The target is
 * ckpt_args.ranks. */
static int rank_rule(void *target, const char *value, const cli_opt *opt, const char *place) {
  int rc = ckpt_rank_rules_apply(target, (ckpt_rank_option)opt->number, value, place);
  ckpt_args *a = (ckpt_args *)((char *)target - offsetof(ckpt_args, ranks));
  if (rc == 0 && opt->number != CKPT_RANK_NUM) {
    if (a->given_rule_count == a->given_rule_cap) {
      size_t cap = a->given_rule_cap > 0 ? 2 * a->given_rule_cap : 16;
      ckpt_rule_given *grown = realloc(a->given_rules, cap * sizeof *grown);
      if (grown == NULL) {
        return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      }
      a->given_rules = grown;
      a->given_rule_cap = cap;
    }
    a->given_rules[a->given_rule_count++] = (ckpt_rule_given){opt->number, value};
  }
  return rc;
}

static const cli_opt ranks_option[] = {
    CLI_CALL('n', "num-splits", "RANKS", ckpt_rank_rules, spec, rank_rule, CKPT_RANK_NUM,
             "the number of ranks (1 to 4096)"),
    CLI_END,
};

/* --rank R: a rank from 0 (checked against -n once both are known). */
static int one_rank(void *target, const char *value, const cli_opt *opt, const char *place) {
  ckpt_one_rank *r = target;
  char what[96];
  snprintf(what, sizeof what, "%s%s--%s", place != NULL ? place : "", place != NULL ? ": " : "",
           opt->long_name);
  int64_t v = 0;
  int rc = cli_parse_int64(value, what, &v);
  if (rc == 0 && v < 0) {
    rc = cli_error_at(place, CLI_EXIT_USAGE, "--%s is %lld: ranks are numbered from 0",
                      opt->long_name, (long long)v);
  }
  r->given = rc == 0;
  r->rank = rc == 0 ? v : 0;
  return rc;
}

/* shard's and reshard's --rank: one rank of the run, the others left to other runs. */
static const cli_opt one_rank_option[] = {
    CLI_CALL_ONCE(0, "rank", "R", ckpt_args, one_rank, one_rank, 0,
                  "write only rank R (0 to RANKS-1) of the run: the whole run is planned and "
                  "checked as without --rank, then only rank R's file is written, byte for byte "
                  "the whole run's, with its manifest cleave-manifest.rankR.json (the sidecars go "
                  "with rank 0), reading only the bytes rank R needs (and the copies the run "
                  "compares); RANKS such runs, on one host or many, make the whole run's "
                  "outputs, which verify and merge take as one"),
    CLI_END,
};

#define RANK_RULES(AXIS, VIEW, REPLICATE)                                                          \
  {                                                                                                \
    CLI_CALL(0, "axis", "GLOB=AXIS", ckpt_rank_rules, spec, rank_rule, CKPT_RANK_AXIS, AXIS),      \
        CLI_CALL(0, "view", "GLOB=SHAPE", ckpt_rank_rules, spec, rank_rule, CKPT_RANK_VIEW, VIEW), \
        CLI_CALL(0, "replicate", "GLOB", ckpt_rank_rules, spec, rank_rule, CKPT_RANK_REPLICATE,    \
                 REPLICATE),                                                                       \
        CLI_CALL(0, "unmatched", "replicate|error", ckpt_rank_rules, spec, rank_rule,              \
                 CKPT_RANK_UNMATCHED,                                                              \
                 "what happens to a tensor no --axis or --replicate rule matches (default: "       \
                 "replicate)"),                                                                    \
        CLI_END                                                                                    \
  }

static const cli_opt shard_rules[] = RANK_RULES(
    "split the tensors matching GLOB along AXIS (the first matching --axis rule applies)",
    "reshape matching tensors before their split (as in split)",
    "copy matching tensors whole to every rank");
static const cli_opt merge_rules[] = RANK_RULES(
    "concatenate the tensors matching GLOB along AXIS (the first matching --axis rule applies)",
    "join the parts as views of SHAPE, the view of the merged tensor (as shard cut it): each "
    "part holds its share of AXIS; the merged tensor is folded back to the parts' trailing "
    "dimensions when they divide it",
    "tensors every rank holds whole (compared, written once)");
static const cli_opt reshard_rules[] =
    RANK_RULES("the tensors matching GLOB are split along AXIS across the ranks",
               "... seen as SHAPE, the view of the whole tensor",
               "tensors every rank holds whole (compared, copied to each)");

/* merge's -o: a folder, or the one file a format that merges into a file writes. */
static const cli_opt merge_output[] = {
    CLI_STRING('o', "output", "OUT", ckpt_args, run.outdir,
               CKPT_ST_TEXT("the output folder (created if missing, its parent must exist; "
                            "removed again on failure).")
                   CKPT_GGUF_TEXT(" A GGUF merge writes one file, OUT.gguf (its folder is "
                                  "made if missing; a set of --max-shard-size is named on OUT).")),
    CLI_END,
};

static const cli_opt shard_options[] = {
    CLI_INCLUDE(ckpt_args, ranks, ranks_option),
    CLI_INCLUDE_SAME(one_rank_option),
    CLI_INCLUDE(ckpt_args, ranks, shard_rules),
    CLI_INCLUDE_SAME(ckpt_preset_options),
    CLI_INCLUDE_SAME(ckpt_quant_option),
    CLI_GROUP("Output options"),
    CLI_INCLUDE_SAME(ckpt_outdir_option),
    CLI_INCLUDE_SAME(ckpt_write_options),
    CLI_END,
};

static const cli_opt merge_options[] = {
    CLI_INCLUDE(ckpt_args, ranks, merge_rules),
    CLI_INCLUDE_SAME(ckpt_preset_options),
    CLI_INCLUDE_SAME(ckpt_quant_option),
    CLI_GROUP("Output options"),
    CLI_INCLUDE_SAME(merge_output),
    CLI_INCLUDE_SAME(ckpt_write_options),
    CLI_INCLUDE_SAME(ckpt_size_option),
    CLI_END,
};

/* What a ranks' record may say (cleave.rules): the rank rules and a preset. */
static const cli_opt record_options[] = {
    CLI_INCLUDE(ckpt_args, ranks, merge_rules),
    CLI_INCLUDE_SAME(ckpt_preset_options),
    CLI_END,
};

static const cli_opt reshard_options[] = {
    CLI_INCLUDE(ckpt_args, ranks, ranks_option),
    CLI_INCLUDE_SAME(one_rank_option),
    CLI_INCLUDE(ckpt_args, ranks, reshard_rules),
    CLI_INCLUDE_SAME(ckpt_preset_options),
    CLI_INCLUDE_SAME(ckpt_quant_option),
    CLI_GROUP("Output options"),
    CLI_INCLUDE_SAME(ckpt_outdir_option),
    CLI_INCLUDE_SAME(ckpt_write_options),
    CLI_END,
};

/* ---- the ranks' records -------------------------------------------------------------------- */

/* Whether a merge without rules reads ranks (a folder of ranks, or files that record a rank)
 * rather than the parts of a split set. */
static int merges_ranks(const ckpt_command *c, const char *first) {
  if (has_rules(c) || c->driver->read.load_parts == NULL) {
    return 1;
  }
  struct stat st;
  if (stat(first, &st) == 0 && S_ISDIR(st.st_mode)) {
    return 1;
  }
  ckpt_file f;
  memset(&f, 0, sizeof f);
  tool_error err;
  int ranks = 0;
  if (c->driver->read.header(first, &f, &err) == 0) {
    for (size_t k = 0; k < f.meta_count && !ranks; k++) {
      ranks = strcmp(f.meta[k].key, CKPT_RECORD_RANK) == 0;
    }
  }
  ckpt_file_free(&f);
  return ranks;
}

/* `text` quoted as a shell word: '...', each ' as '\''. Appended to `out` (malloc'd, grown). */
static int append_quoted(char **out, size_t *len, const char *text) {
  size_t need = 3;
  for (const char *t = text; *t != '\0'; t++) {
    need += *t == '\'' ? 4 : 1;
  }
  char *grown = realloc(*out, *len + need + 1);
  if (grown == NULL) {
    return -1;
  }
  *out = grown;
  char *p = grown + *len;
  *p++ = '\'';
  for (const char *t = text; *t != '\0'; t++) {
    if (*t == '\'') {
      memcpy(p, "'\\''", 4);
      p += 4;
    } else {
      *p++ = *t;
    }
  }
  *p++ = '\'';
  *p = '\0';
  *len = (size_t)(p - grown);
  return 0;
}

static int append(char **out, size_t *len, const char *text) {
  size_t n = strlen(text);
  char *grown = realloc(*out, *len + n + 1);
  if (grown == NULL) {
    return -1;
  }
  *out = grown;
  memcpy(grown + *len, text, n + 1);
  *len += n;
  return 0;
}

/* The rules of the run as command-line options in one canonical order (the record's
 * cleave.rules): --axis, --view, --replicate and --unmatched as given, in their order within each
 * kind; then the preset (its resolved name), --replicate-kv, --qkv-layout. (--quant-block is the
 * model's block size, not a rule: a merge finds it where the shard did.) NULL: out of memory. */
static char *rules_text(const ckpt_command *c, const ckpt_preset *preset) {
  static const struct {
    int kind;
    const char *option;
  } kinds[] = {{CKPT_RANK_AXIS, "--axis"},
               {CKPT_RANK_VIEW, "--view"},
               {CKPT_RANK_REPLICATE, "--replicate"},
               {CKPT_RANK_UNMATCHED, "--unmatched"}};
  const ckpt_args *a = &c->args;
  char *out = strdup("");
  size_t len = 0;
  int failed = out == NULL;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && !failed; k++) {
    for (size_t i = 0; i < a->given_rule_count && !failed; i++) {
      if (a->given_rules[i].kind == kinds[k].kind) {
        failed = append(&out, &len, len > 0 ? " " : "") != 0 ||
                 append(&out, &len, kinds[k].option) != 0 || append(&out, &len, " ") != 0 ||
                 append_quoted(&out, &len, a->given_rules[i].value) != 0;
      }
    }
  }
  char extra[128];
  if (!failed && preset->name != NULL) {
    snprintf(extra, sizeof extra, "%s--preset %s", len > 0 ? " " : "", preset->name);
    failed = append(&out, &len, extra) != 0;
  }
  if (!failed && a->preset.replicate_kv) {
    failed = append(&out, &len, len > 0 ? " --replicate-kv" : "--replicate-kv") != 0;
  }
  if (!failed && a->preset.override) {
    failed = append(&out, &len, len > 0 ? " --override-preset" : "--override-preset") != 0;
  }
  if (!failed && a->preset.qkv_layout >= 0) {
    snprintf(extra, sizeof extra, "%s--qkv-layout %s", len > 0 ? " " : "",
             a->preset.qkv_layout == CKPT_QKV_INTERLEAVED ? "interleaved" : "concat");
    failed = append(&out, &len, extra) != 0;
  }
  if (failed) {
    free(out);
    return NULL;
  }
  return out;
}

/* The rules a ranks' record gives, read as a command line gives them (its words stay with the
 * command: the rules borrow them). */
static int rules_from_record(ckpt_command *c, const char *rules) {
  words w;
  tool_error err;
  if (words_split(rules, strlen(rules), &w, &err) != 0) {
    tool_prefix(&err, "the ranks' %s", CKPT_RECORD_RULES);
    return ckpt_command_report(&err);
  }
  c->record_text = w.text;
  c->record_words = w.argv;
  /* The rules' room is sized by the command line's words: made anew for the record's. */
  int64_t ranks = c->args.ranks.spec.ranks;
  ckpt_rank_rules_free(&c->args.ranks);
  int rc = ckpt_rank_rules_init(&c->args.ranks, (int)w.count + 1);
  c->args.ranks.spec.ranks = ranks;
  char place[64];
  snprintf(place, sizeof place, "the ranks' %s", CKPT_RECORD_RULES);
  cli_spec spec = {.name = c->name,
                   .place = place,
                   .usage = "",
                   .options = record_options,
                   .tags = ckpt_command_tags(c),
                   .no_help = 1};
  cli_args parsed;
  if (rc == 0) {
    rc = cli_parse(&spec, &c->args, (int)w.count, w.argv, 0, &parsed);
    if (rc == 0 && parsed.positional_count > 0) {
      rc = cli_error_at(place, CLI_EXIT_DATA, "'%s' is not an option", parsed.positional[0]);
    }
    cli_args_free(&parsed);
  }
  return rc == CLI_EXIT_USAGE ? CLI_EXIT_DATA : rc;
}

/* The ranks of `*m` against their records (ckpt_record.h): taken in their recorded order (named
 * one by one, they are read again in it), their rules read from the record when the command line
 * gives none; `*record` the run's (its first rank's), or none. */
static int read_records(ckpt_command *c, char **inputs, size_t count, ckpt_model **m,
                        ckpt_record **records, int *ordered) {
  tool_error err;
  int rc = ckpt_records_take(*m, c->driver->text_kind, c->driver->read.forget, records, &err);
  size_t *order = rc == 0 ? calloc((*m)->file_count + 1, sizeof *order) : NULL;
  if (rc == 0 && order == NULL) {
    rc = tool_oom(&err, "ordering the ranks");
  }
  if (rc == 0) {
    rc = ckpt_records_order(*m, *records, order, ordered, &err);
  }
  size_t moved = (*m)->file_count;
  for (size_t r = 0; rc == 0 && *ordered && r < (*m)->file_count; r++) {
    moved = order[r] != r && moved == (*m)->file_count ? r : moved;
  }
  if (rc == 0 && moved < (*m)->file_count && (*m)->ranks_dir) {
    rc = tool_fail(&err, CLI_EXIT_DATA,
                   "'%s' records rank %lld, not %zu as its name says: the folder mixes ranks",
                   (*m)->files[order[moved]].path, (long long)moved, order[moved]);
  }
  if (rc == 0 && moved < (*m)->file_count) {
    /* The files in their recorded order, read again. */
    char **sorted = calloc(count + 1, sizeof *sorted);
    if (sorted == NULL) {
      rc = tool_oom(&err, "ordering the ranks");
    }
    for (size_t r = 0; rc == 0 && r < count; r++) {
      sorted[r] = strdup((*m)->files[order[r]].path);
      rc = sorted[r] == NULL ? tool_oom(&err, "ordering the ranks") : 0;
    }
    if (rc == 0) {
      c->driver->read.free_model(*m);
      *m = NULL;
      ckpt_records_free(*records, count);
      *records = NULL;
      rc = c->driver->read.load_ranks(sorted, count, m, &err);
      if (rc == 0) {
        rc = ckpt_records_take(*m, c->driver->text_kind, c->driver->read.forget, records, &err);
      }
    }
    for (size_t r = 0; sorted != NULL && r < count; r++) {
      free(sorted[r]);
    }
    free(sorted);
  }
  (void)inputs;
  free(order);
  if (rc != 0) {
    return ckpt_command_report(&err);
  }
  return 0;
}

/* The source's identity: the one recorded ranks record (a reshard), else the model's own
 * (ckpt_model_identity). A merge gives the model back byte for byte, so that its identity is
 * the one its ranks record, and a shard of it writes what a reshard of them writes. */
static int source_of(ckpt_command *c, const ckpt_model *m, const ckpt_record *records,
                     int ordered) {
  if (ordered) {
    snprintf(c->lineage.source, sizeof c->lineage.source, "%s", records[0].source);
    return 0;
  }
  uint64_t id;
  tool_error err;
  if (ckpt_model_identity(m, &id, &err) != 0) {
    return ckpt_command_report(&err);
  }
  snprintf(c->lineage.source, sizeof c->lineage.source, "%016llx", (unsigned long long)id);
  return 0;
}

int ckpt_run_ranks(ckpt_command *c) {
  int rc = check_command_line(c);
  char **inputs = c->parsed.positional;
  size_t count = c->parsed.positional_count;
  if (rc == 0) {
    rc = ckpt_command_find_format(c, inputs[0]);
  }
  int ranks =
      c->verb != CKPT_SHARD && rc == 0 && (c->verb == CKPT_RESHARD || merges_ranks(c, inputs[0]));
  if (rc == 0 && c->verb == CKPT_MERGE && !ranks) {
    rc = check_parts(c);
  }
  char *dir = NULL, *name = NULL, *base = NULL, *manifest = NULL;
  if (rc == 0 && c->verb == CKPT_MERGE && (c->driver->traits & CKPT_MERGES_TO_FILE)) {
    rc = output_file(c, &dir, &name, &base, &manifest);
  }
  ckpt_model *m = NULL;
  tool_error err;
  int given = has_rules(c) || c->args.given_rule_count > 0 || c->args.preset.replicate_kv ||
              c->args.preset.qkv_layout >= 0 || c->args.preset.override;
  if (rc == 0) {
    if (c->verb == CKPT_SHARD) {
      rc = c->driver->read.load(inputs[0], NULL, &m, &err);
    } else if (ranks) {
      rc = c->driver->read.load_ranks(inputs, count, &m, &err);
    } else {
      rc = c->driver->read.load_parts(inputs, count, &m, &err);
    }
    if (rc != 0) {
      ckpt_command_report(&err);
    }
  }
  ckpt_record *records = NULL;
  int ordered = 0;
  if (rc == 0 && c->verb == CKPT_SHARD) {
    rc = ckpt_records_take(m, c->driver->text_kind, c->driver->read.forget, &records, &err);
    rc = rc != 0 ? ckpt_command_report(&err) : 0;
  } else if (rc == 0 && ranks) {
    rc = read_records(c, inputs, count, &m, &records, &ordered);
  }
  if (rc == 0 && ordered && !given) {
    rc = rules_from_record(c, records[0].rules);
  }
  if (rc == 0 && ranks && !ordered && !has_rules(c)) {
    rc = cli_error(CLI_EXIT_USAGE, "no --axis GLOB=AXIS rule%s (the ranks record none)",
                   (c->driver->traits & CKPT_HF_CONFIG) ? " and no --preset" : "");
  }
  if (rc == 0 && (c->driver->traits & CKPT_HF_CONFIG)) {
    rc = ckpt_model_quant(c, m, inputs[0]);
  }
  ckpt_preset preset;
  memset(&preset, 0, sizeof preset);
  size_t command_axes = c->args.ranks.spec.axis_count;
  if (rc == 0) {
    rc = ckpt_preset_rank_rules(c, inputs[0], &preset, &command_axes);
  }
  if (rc == 0 && preset.name != NULL && ckpt_rules_preset_fits(&c->args.ranks.spec, m, &err) != 0) {
    rc = ckpt_command_report(&err);
  }
  if (rc == 0 && (c->verb != CKPT_MERGE || ordered)) {
    c->lineage.rules = rules_text(c, &preset);
    rc = c->lineage.rules == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  }
  if (rc == 0 && ordered && given && strcmp(c->lineage.rules, records[0].rules) != 0) {
    rc = cli_error(CLI_EXIT_USAGE,
                   "the rules given (%s) are not those the ranks record (%s): give none (the "
                   "record's are used) or the same",
                   c->lineage.rules, records[0].rules);
  }
  if (rc == 0 && c->verb != CKPT_MERGE) {
    c->lineage.what = CKPT_LINEAGE_RANKS;
    rc = source_of(c, m, records, ordered);
  }
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  if (rc == 0) {
    rc = plan_verb(c, m, name, &plan, &err);
    if (rc != 0) {
      ckpt_command_report(&err);
    }
  }
  if (rc == 0) {
    ckpt_finish_options finish = {0, NULL, 0, 0};
    if (c->verb == CKPT_MERGE && !(c->driver->traits & CKPT_SIZED_BY_PLANNER)) {
      finish.max_shard_bytes = c->args.max_shard_size;
      finish.max_tensors = c->args.max_tensors;
      finish.set_base = base;
    }
    rc = ckpt_command_write(c, m, &plan, &finish);
  }
  ckpt_plan_free(&plan);
  if (c->driver != NULL) {
    ckpt_records_free(records, m != NULL ? m->file_count : 0);
    c->driver->read.free_model(m);
  }
  /* The preset's globs are static; only the command line's were copied (freed with the rules). */
  if (preset.name != NULL) {
    c->args.ranks.spec.axis_count = command_axes;
  }
  ckpt_preset_free(&preset);
  free(dir);
  free(name);
  free(base);
  free(manifest);
  return rc;
}

#define RECORD_NOTES                                                                               \
  "Ranks cleave wrote record their rank, the count, the run, the source and the rules\n"           \
  "(cleave.rank, .ranks, .run, .source, .rules in their metadata): they are taken in their\n"      \
  "recorded order whatever the order given, a missing, repeated or foreign rank is an error\n"     \
  "naming it, and with no rule given the recorded ones are used (rules given must be those).\n"    \
  "Ranks another tool wrote are taken in the order given, with the rules given.\n"

#define RULE_NOTES                                                                                 \
  "A rule that matches no tensor is an error (status 65), named by its option and its number\n"    \
  "among them, from 1 (\"--axis rule 2\"). Globs are those of split: '*' and '?' are the only\n"   \
  "special characters.\n"                                                                          \
  "\n" CKPT_WRITE_NOTES

const cli_spec ckpt_rank_specs[3] = {
    {.usage = "cleave {cmd} MODEL -o OUTDIR -n RANKS --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
              "           [--replicate GLOB] [--unmatched replicate|error] [OPTIONS]",
     .about = "Writes one checkpoint per tensor-parallel rank, OUTDIR/rank<R> and the "
              "format's suffix (R\n"
              "from 0): every tensor matching an --axis rule is split into RANKS equal parts "
              "along AXIS\n"
              "(Split-1: uneven is an error) and rank R gets part R under the same name; other "
              "tensors are\n"
              "copied whole to every rank. Metadata is kept (the union of the input files'; a "
              "key with\n"
              "two values is an error). The input is read once for all ranks.\n",
     .options = shard_options,
     .notes = RULE_NOTES},
    /* Merge's usage is its formats': where -o goes differs. */
    {.usage = "",
     .about = "Joins the ranks of a tensor-parallel checkpoint into one model: the inverse of "
              "shard with\n"
              "the same rules. RANK... is the rank files in rank order, or one folder holding "
              "rank0 to\n"
              "rank<N-1> (other files are ignored). Every tensor must be in every rank. One that "
              "an --axis\n"
              "rule takes is concatenated from the ranks' parts in rank order along AXIS "
              "(Concat-1: the\n"
              "parts' other dimensions must agree); any other must have the same dtype, shape "
              "and bytes\n"
              "in every rank (the bytes are compared before anything is written) and is written "
              "once.\n"
              "The metadata is the union of the ranks'.\n",
     .options = merge_options,
     .notes = "A tensor missing from a rank, parts that cannot be joined, a tensor no rule "
              "joins that\n"
              "differs between the ranks, and a rule that matches no tensor are errors (status "
              "65, naming\n"
              "the tensor and the first rank at fault; nothing is written).\n"
              "\n" RECORD_NOTES "\n" CKPT_WRITE_NOTES},
    {.usage = "cleave {cmd} RANK... -o OUTDIR -n RANKS --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
              "           [--replicate GLOB] [--unmatched replicate|error] [OPTIONS]",
     .about = "Changes the number of ranks of a tensor-parallel checkpoint from N (RANK... as "
              "for merge)\n"
              "to RANKS, for any N and RANKS: the outputs are byte for byte what merge then "
              "shard -n RANKS\n"
              "with the same rules write, in one pass that never holds a whole tensor: each "
              "output byte\n"
              "range is read from the input ranges that hold it. The rules and their errors are "
              "those of\n"
              "merge (joining the parts) and shard (cutting them again: uneven is an error).\n",
     .options = reshard_options,
     .notes = RECORD_NOTES "\n" RULE_NOTES},
};
