/* The checkpoint commands' dispatch: the verbs and their spellings (`cleave st VERB`, `cleave gguf
 * VERB`, `cleave VERB`), each spelling's option table and help, and the run of a verb
 * (ckpt_commands.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_commands.h"
#include "cli_util.h"

/* ---- the verbs -------------------------------------------------------------------------- */

typedef struct verb_entry {
  ckpt_verb verb;
  const cli_spec *spec;
  ckpt_verb_run run;
  /* Whether `cleave WORD` (without a format's word) is this verb: not split, which is the .npy
   * operator there; 2: only there (convert, which reads one format and writes another). */
  int detected;
  /* The formats whose options and help paragraphs the verb takes, when not the spelling's
   * (convert writes GGUF whatever it reads); 0: the spelling's. */
  unsigned tags;
} verb_entry;

static const verb_entry verbs[CKPT_VERB_COUNT] = {
    {CKPT_LS, &ckpt_inspect_specs[0], ckpt_run_inspect, 1, 0},
    {CKPT_CHECK, &ckpt_inspect_specs[1], ckpt_run_inspect, 1, 0},
    {CKPT_SPLIT, &ckpt_split_spec, ckpt_run_split, 0, 0},
    {CKPT_SHARD, &ckpt_rank_specs[0], ckpt_run_ranks, 1, 0},
    {CKPT_MERGE, &ckpt_rank_specs[1], ckpt_run_ranks, 1, 0},
    {CKPT_RESHARD, &ckpt_rank_specs[2], ckpt_run_ranks, 1, 0},
    {CKPT_VERIFY, &ckpt_verify_spec, ckpt_run_verify, 1, 0},
    {CKPT_CONVERT, &ckpt_convert_spec, ckpt_run_convert, 2, CKPT_FORMAT_GGUF},
};

/* Whether `cleave st|gguf WORD` has the verb. */
static int in_families(size_t v) {
  return verbs[v].detected != 2;
}

static const ckpt_verb_help *verb_help(const ckpt_driver *d, ckpt_verb verb) {
  const ckpt_driver_help *h = d->help;
  if (h == NULL) {
    return NULL;
  }
  const ckpt_verb_help *const texts[CKPT_VERB_COUNT] = {
      &h->ls, &h->check, &h->split, &h->shard, &h->merge, &h->reshard, &h->verify};
  return texts[verb];
}

static const char *driver_help(const ckpt_driver *d, ckpt_verb verb) {
  const ckpt_verb_help *h = verb_help(d, verb);
  return h != NULL ? h->notes : NULL;
}

/* The usage of a command: the verb's, then its format's lines (every format's when none is
 * pinned). malloc'd (NULL: out of memory). */
static char *help_usage(const ckpt_driver *pinned, ckpt_verb verb) {
  const char *own = verbs[verb].spec->usage;
  size_t size = strlen(own) + 1;
  for (size_t f = 0; ckpt_drivers[f] != NULL; f++) {
    const ckpt_verb_help *h = verb_help(ckpt_drivers[f], verb);
    size += h != NULL && h->usage != NULL ? strlen(h->usage) + 1 : 0;
  }
  char *usage = malloc(size);
  if (usage == NULL) {
    return NULL;
  }
  strcpy(usage, own);
  for (size_t f = 0; ckpt_drivers[f] != NULL; f++) {
    const ckpt_verb_help *h = verb_help(ckpt_drivers[f], verb);
    if (h != NULL && h->usage != NULL && (pinned == NULL || pinned == ckpt_drivers[f])) {
      strcat(usage, usage[0] != '\0' ? "\n" : "");
      strcat(usage, h->usage);
    }
  }
  /* A verb whose usage is all its formats' (merge) starts with a format's indented line. */
  size_t blanks = strspn(usage, " ");
  memmove(usage, usage + blanks, strlen(usage + blanks) + 1);
  return usage;
}

/* The spellings: one family per driver, then the detected one (no word). */
#define FAMILIES 3
static cli_spec specs[FAMILIES][CKPT_VERB_COUNT];
static const cli_spec *siblings[FAMILIES][CKPT_VERB_COUNT][FAMILIES * CKPT_VERB_COUNT + 1];
static char spec_names[FAMILIES][CKPT_VERB_COUNT][32];

/* The family of `driver` (NULL: the detected spelling). */
static size_t family_of(const ckpt_driver *driver) {
  for (size_t f = 0; ckpt_drivers[f] != NULL; f++) {
    if (ckpt_drivers[f] == driver) {
      return f;
    }
  }
  return FAMILIES - 1;
}

/* Every spelling's spec (names, options, tags), and each one's siblings for the parser's hints
 * about options: the verbs of its family, and its verb in the other formats' families (every
 * verb of every format for the spelling without a format's word). */
static void make_specs(void) {
  for (size_t f = 0; f < FAMILIES; f++) {
    const ckpt_driver *d = f + 1 < FAMILIES ? ckpt_drivers[f] : NULL;
    for (size_t v = 0; v < CKPT_VERB_COUNT; v++) {
      snprintf(spec_names[f][v], sizeof spec_names[f][v], "%s%s%s", d != NULL ? d->word : "",
               d != NULL ? " " : "", ckpt_verb_word(verbs[v].verb));
      specs[f][v] = *verbs[v].spec;
      specs[f][v].name = spec_names[f][v];
      specs[f][v].tags = verbs[v].tags != 0 ? verbs[v].tags : d != NULL ? d->tag : CKPT_ALL_FORMATS;
    }
  }
  for (size_t f = 0; f < FAMILIES; f++) {
    for (size_t v = 0; v < CKPT_VERB_COUNT; v++) {
      size_t n = 0;
      for (size_t w = 0; w < CKPT_VERB_COUNT; w++) {
        if ((f + 1 < FAMILIES && in_families(w)) || (f + 1 == FAMILIES && verbs[w].detected)) {
          siblings[f][v][n++] = &specs[f][w];
        }
      }
      /* A format's verb, or any verb of any format for the spelling without one. */
      for (size_t g = 0; g + 1 < FAMILIES; g++) {
        for (size_t w = 0; w < CKPT_VERB_COUNT && g != f; w++) {
          if ((w == v || f + 1 == FAMILIES) && in_families(w)) {
            siblings[f][v][n++] = &specs[g][w];
          }
        }
      }
      siblings[f][v][n] = NULL;
      specs[f][v].siblings = siblings[f][v];
    }
  }
}

/* The notes of a command's help: its format's paragraphs (every format's, each under its name,
 * when none is pinned), then the verb's own. malloc'd (NULL: out of memory). */
static char *help_notes(const ckpt_driver *pinned, ckpt_verb verb) {
  size_t size = 1;
  const char *own = verbs[verb].spec->notes;
  for (size_t f = 0; ckpt_drivers[f] != NULL; f++) {
    const char *t = driver_help(ckpt_drivers[f], verb);
    size += t != NULL ? strlen(t) + 64 : 0;
  }
  size += own != NULL ? strlen(own) + 1 : 0;
  char *notes = malloc(size);
  if (notes == NULL) {
    return NULL;
  }
  notes[0] = '\0';
  for (size_t f = 0; ckpt_drivers[f] != NULL; f++) {
    const ckpt_driver *d = ckpt_drivers[f];
    const char *t = driver_help(d, verb);
    if (t == NULL || (pinned != NULL && pinned != d)) {
      continue;
    }
    if (notes[0] != '\0') {
      strcat(notes, "\n");
    }
    if (pinned == NULL) {
      strcat(notes, d->name);
      strcat(notes, " models (cleave ");
      strcat(notes, d->word);
      strcat(notes, " ...):\n");
    }
    strcat(notes, t);
  }
  if (own != NULL) {
    if (notes[0] != '\0') {
      strcat(notes, "\n");
    }
    strcat(notes, own);
  }
  return notes;
}

static void free_args(ckpt_args *a) {
  ckpt_rank_rules_free(&a->ranks);
  ckpt_rule_set_free(&a->rules);
  free(a->against);
  free(a->given_rules);
}

/* Parses the command line of verb `v` and runs it. */
static int run_verb(const ckpt_driver *driver, ckpt_verb v, int argc, char **argv, int first) {
  make_specs();
  ckpt_command *c = calloc(1, sizeof *c);
  if (c == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  c->verb = v;
  c->driver = driver;
  c->argc = argc;
  c->argv = argv;
  c->first = first;
  ckpt_command_set_name(c);
  /* The command as typed ("st shard", or "shard" when the format is found from the model; it
   * stays so when c->name later takes the format found) names every error and warning. */
  cli_command_set(c->name);
  ckpt_args *a = &c->args;
  a->run.progress = 1;
  a->run.argc = argc;
  a->run.argv = argv;
  a->run.stale_suffixes = driver != NULL ? driver->stale_suffixes : NULL;
  a->preset.qkv_layout = -1;
  a->outtype = -1;
  a->rules.command = c->name;
  a->rules.experts = driver == NULL || (driver->traits & CKPT_SPLITS_EXPERTS) != 0;
  /* Every argument may be a rule or an input of --against: argc entries are always enough. */
  a->against = calloc((size_t)argc + 1, sizeof *a->against);
  int rc = a->against == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
                              : ckpt_rank_rules_init(&a->ranks, argc);
  cli_spec spec = specs[family_of(driver)][v];
  char *notes = help_notes(driver, v);
  char *usage = help_usage(driver, v);
  spec.notes = notes;
  spec.usage = usage;
  if (rc == 0 && (notes == NULL || usage == NULL)) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (rc == 0) {
    rc = cli_parse(&spec, a, argc, argv, first, &c->parsed);
  }
  if (rc == 0) {
    rc = verbs[v].run(c);
  } else if (rc == CLI_HELP_SHOWN) {
    rc = 0;
  }
  free(notes);
  free(usage);
  cli_args_free(&c->parsed);
  free_args(a);
  free(c->lineage.rules);
  free(c->record_text);
  free(c->record_words);
  free(c);
  return rc;
}

/* `cleave st --help`: the family's verbs and the format's description. */
static void family_help(const ckpt_driver *d, FILE *out) {
  make_specs();
  size_t f = family_of(d);
  fputs("usage: ", out);
  for (size_t v = 0; v < CKPT_VERB_COUNT; v++) {
    if (!in_families(v)) {
      continue;
    }
    char *all = help_usage(d, verbs[v].verb);
    const char *usage = all != NULL ? all : "";
    size_t line = strcspn(usage, "\n");
    fprintf(out, "%s", v == 0 ? "" : "       ");
    for (const char *u = usage; u < usage + line;) {
      const char *mark = strstr(u, "{cmd}");
      if (mark == NULL || mark >= usage + line) {
        fwrite(u, 1, (size_t)(usage + line - u), out);
        break;
      }
      fwrite(u, 1, (size_t)(mark - u), out);
      fputs(specs[f][v].name, out);
      u = mark + 5;
    }
    fputs("\n", out);
    free(all);
  }
  if (d->help != NULL && d->help->family != NULL) {
    fprintf(out, "\n%s", d->help->family);
  }
  fprintf(out,
          "\nRun 'cleave %s VERB --help' for each verb ('cleave VERB' finds the format by "
          "itself);\n"
          "the format rules cleave enforces are in 'man cleave'.\n"
          "\n"
          "Exit status: 0 success; 1 verify found a difference; 64 malformed command line; 65 a "
          "file\n"
          "breaks a format rule or a rule cannot apply; 66 MODEL cannot be opened; 73 an output "
          "exists\n"
          "or cannot be created; 74 a read or write failed.\n",
          d->word);
}

/* "ls, check, split, shard, merge, reshard, verify". */
static void verb_list(char *buf, size_t size, int detected) {
  buf[0] = '\0';
  for (size_t v = 0; v < CKPT_VERB_COUNT; v++) {
    if ((detected && !verbs[v].detected) || (!detected && !in_families(v))) {
      continue;
    }
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s", n > 0 ? ", " : "", ckpt_verb_word(verbs[v].verb));
  }
}

int ckpt_family_command(const ckpt_driver *driver, int argc, char **argv, int first) {
  char list[128];
  verb_list(list, sizeof list, 0);
  if (first >= argc) {
    family_help(driver, stderr);
    return cli_error(CLI_EXIT_USAGE, "a subcommand is missing (%s)", list);
  }
  const char *word = argv[first];
  if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0) {
    family_help(driver, stdout);
    return 0;
  }
  for (size_t v = 0; v < CKPT_VERB_COUNT; v++) {
    if (in_families(v) && strcmp(ckpt_verb_word(verbs[v].verb), word) == 0) {
      return run_verb(driver, verbs[v].verb, argc, argv, first + 1);
    }
  }
  return cli_error(CLI_EXIT_USAGE, "unknown subcommand '%s' (%s)", word, list);
}

int ckpt_detected_command(int argc, char **argv, int first) {
  const char *word = argv[first - 1];
  for (size_t v = 0; v < CKPT_VERB_COUNT; v++) {
    if (verbs[v].detected && strcmp(ckpt_verb_word(verbs[v].verb), word) == 0) {
      return run_verb(NULL, verbs[v].verb, argc, argv, first);
    }
  }
  return cli_error(CLI_EXIT_SOFTWARE, "'%s' is not a checkpoint command", word);
}
