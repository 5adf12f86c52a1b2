/*
 * The command line of every cleave command: options declared once, in a table per command (long
 * and short name, kind, where the value goes, its help line, its group), as git's parse-options
 * and llama.cpp's common/arg.cpp declare theirs. One parser runs the loop over argv (short
 * options, bundled flags, long options with "=VALUE" or a separate value, "--"), every usage
 * error (an unknown option, with the sibling commands that take it; a missing or unwanted value;
 * a value given twice; a malformed number, size or choice) and `--help`, whose option part it
 * prints from the same table. Also the strict parsers of the values the commands take: integers,
 * comma-separated integer lists, and sizes.
 */
#ifndef CLEAVE_CLI_ARGS_H
#define CLEAVE_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** What an option does with its value. */
typedef enum cli_opt_kind {
  /** The end of a table. */
  CLI_OPT_END = 0,
  /** Not an option: a heading in --help ("Output options"), starting a group. */
  CLI_OPT_GROUP,
  /** The options of the table `include` (a shared group), their targets `offset` bytes into
   * this table's target. */
  CLI_OPT_INCLUDE,
  /** A flag: the int at `offset` becomes `number` (1 for most flags; 0 for --no-progress). */
  CLI_OPT_FLAG,
  /** A value kept as given: the `const char *` at `offset` points into argv. */
  CLI_OPT_STRING,
  /** A decimal int64 (cli_parse_int64) into the int64_t at `offset`. */
  CLI_OPT_INT64,
  /** A size (cli_parse_size) into the uint64_t at `offset`. */
  CLI_OPT_SIZE,
  /** One of the words of `choices` ("replicate|error"): its index into the int at `offset`. */
  CLI_OPT_CHOICE,
  /** The option's own parser, `call`, given the target at `offset`; it may be given any number of
   * times (each call sees one value), or once when `once` is set. */
  CLI_OPT_CALL,
} cli_opt_kind;

typedef struct cli_opt cli_opt;

/** A CLI_OPT_CALL option's parser: `target` is the table's target plus the option's offset,
 * `value` the option's value (NULL for a flag: `arg` NULL), `place` the spec's (where the words
 * come from when not from the command line, for cli_error_at; NULL on the command line). Returns
 * 0, or an exit status after printing the error. */
typedef int (*cli_opt_call)(void *target, const char *value, const cli_opt *opt, const char *place);

/** One entry of a command's option table (a table ends with a zeroed entry). */
struct cli_opt {
  cli_opt_kind kind;
  /** The short name ('o' for -o), or 0. */
  char short_name;
  /** The long name without "--" ("output"); NULL only for GROUP, INCLUDE and END. */
  const char *long_name;
  /** The value's name in --help and messages ("OUTDIR"); NULL for a flag. */
  const char *arg;
  /** One paragraph for --help, wrapped by the printer; for GROUP, the heading. */
  const char *help;
  /** Where the value goes: bytes into the table's target. */
  size_t offset;
  /** FLAG: the value stored; CALL: passed on in `opt` (which of a family of options this is). */
  int number;
  cli_opt_call call;
  /** CHOICE: the allowed words, separated by '|'. */
  const char *choices;
  /** INCLUDE: the included table. */
  const cli_opt *include;
  /** The caller's mark (0 for most; a format's options carry the format's), recorded for every
   * option given (cli_args.given). */
  unsigned tag;
  /** CALL: a second value is a usage error ("option -a/--axis is given twice"), as for the
   * other kinds that take a value. */
  unsigned char once;
};

/* Declaring tables: T is the target's struct type, F the field. */
#define CLI_GROUP(H)                                                                               \
  { .kind = CLI_OPT_GROUP, .help = (H) }
#define CLI_INCLUDE(T, F, TABLE)                                                                   \
  { .kind = CLI_OPT_INCLUDE, .offset = offsetof(T, F), .include = (TABLE) }
/* A shared group whose targets are fields of this table's own struct (also a table of a
 * command's own options shared by two of its tables, e.g. on files and under `infer`). */
#define CLI_INCLUDE_SAME(TABLE)                                                                    \
  { .kind = CLI_OPT_INCLUDE, .include = (TABLE) }
#define CLI_FLAG(S, L, T, F, H)                                                                    \
  {                                                                                                \
    .kind = CLI_OPT_FLAG, .short_name = (S), .long_name = (L), .help = (H),                        \
    .offset = offsetof(T, F), .number = 1                                                          \
  }
/* A flag that clears the int at F (--no-progress). */
#define CLI_CLEAR(S, L, T, F, H)                                                                   \
  {                                                                                                \
    .kind = CLI_OPT_FLAG, .short_name = (S), .long_name = (L), .help = (H),                        \
    .offset = offsetof(T, F), .number = 0                                                          \
  }
#define CLI_STRING(S, L, A, T, F, H)                                                               \
  {                                                                                                \
    .kind = CLI_OPT_STRING, .short_name = (S), .long_name = (L), .arg = (A), .help = (H),          \
    .offset = offsetof(T, F)                                                                       \
  }
#define CLI_INT64(S, L, A, T, F, H)                                                                \
  {                                                                                                \
    .kind = CLI_OPT_INT64, .short_name = (S), .long_name = (L), .arg = (A), .help = (H),           \
    .offset = offsetof(T, F)                                                                       \
  }
#define CLI_SIZE(S, L, A, T, F, H)                                                                 \
  {                                                                                                \
    .kind = CLI_OPT_SIZE, .short_name = (S), .long_name = (L), .arg = (A), .help = (H),            \
    .offset = offsetof(T, F)                                                                       \
  }
#define CLI_CHOICE(S, L, CHOICES, T, F, H)                                                         \
  {                                                                                                \
    .kind = CLI_OPT_CHOICE, .short_name = (S), .long_name = (L), .arg = (CHOICES), .help = (H),    \
    .offset = offsetof(T, F), .choices = (CHOICES)                                                 \
  }
/* A value (A not NULL) or a flag (A NULL) read by FN, with NUMBER passed on. */
#define CLI_CALL(S, L, A, T, F, FN, NUMBER, H)                                                     \
  {                                                                                                \
    .kind = CLI_OPT_CALL, .short_name = (S), .long_name = (L), .arg = (A), .help = (H),            \
    .offset = offsetof(T, F), .call = (FN), .number = (NUMBER)                                     \
  }
/* CLI_CALL for a value that may be given once. */
#define CLI_CALL_ONCE(S, L, A, T, F, FN, NUMBER, H)                                                \
  {                                                                                                \
    .kind = CLI_OPT_CALL, .short_name = (S), .long_name = (L), .arg = (A), .help = (H),            \
    .offset = offsetof(T, F), .call = (FN), .number = (NUMBER), .once = 1                          \
  }
#define CLI_END                                                                                    \
  { .kind = CLI_OPT_END }

/** A command as its help and the parser see it. */
typedef struct cli_spec {
  /** What the user types after "cleave": "split", "st shard". */
  const char *name;
  /** The lines after "usage: " ("cleave st shard MODEL -o OUTDIR ..."; more lines start with
   * "       cleave" or continue indented). In every text of the help (these and the options'),
   * "{cmd}" stands for `name`, and "[[N:TEXT]]" for TEXT when `tags` shares a bit with the
   * decimal mask N, else for nothing (what only some commands of a family say). */
  const char *usage;
  /** What the command does: the paragraphs between the usage and the options. */
  const char *about;
  /** The options (NULL: none but -h/--help, which every command takes). */
  const cli_opt *options;
  /** What follows the options (examples, notes), or NULL. */
  const char *notes;
  /** The commands near this one (NULL-terminated, NULL: none): an unknown option that one of
   * them takes is named with them ("--max-shard-size belongs to 'st merge' and 'st split'"). */
  const struct cli_spec *const *siblings;
  /** The tags of the options this command takes beside the untagged ones: an option whose tag
   * is not 0 is taken (and listed in --help) only when it shares a bit with `tags`. */
  unsigned tags;
  /** 1: -h and --help are not options here (a line of a rules file), else they print the help. */
  int no_help;
  /** Where the words come from when they are not the command line ("rules.txt:3", "the ranks'
   * cleave.rules"): put after the command's name in the parser's messages (cli_error_at); NULL
   * for the command line. */
  const char *place;
} cli_spec;

/** What cli_parse found beside the targets it filled. Free with cli_args_free. */
typedef struct cli_args {
  /** The arguments that are not options, in order (argv's strings), and for each how many
   * options were given before it. */
  char **positional;
  size_t *options_before;
  size_t positional_count;
  /** The options given, in order (their table entries), and whether each was given by its
   * short name ("-o", not "--output"): as many as the command line gives (a join of a thousand
   * packed inputs gives a thousand --shape). */
  const cli_opt **given;
  unsigned char *short_form;
  size_t given_count;
  size_t given_room; /* private: the room of `given` and `short_form` */
} cli_args;

/** What cli_parse returns when -h/--help was given and the help printed. */
#define CLI_HELP_SHOWN (-1)

/**
 * Parses argv[first..argc) as `spec` says, into `target` (the struct the table's offsets are in;
 * the caller has set its defaults) and `args` (zeroed here). Stops at -h/--help (anywhere before
 * an error): prints the help on stdout and returns CLI_HELP_SHOWN. Returns 0, or prints a usage
 * error and returns CLI_EXIT_USAGE (a value parser's error), or CLI_EXIT_SOFTWARE. Free `args`
 * in every case.
 */
int cli_parse(const cli_spec *spec, void *target, int argc, char **argv, int first, cli_args *args);

/** Releases what cli_parse allocated in `args`. */
void cli_args_free(cli_args *args);

/** The first option of `args` whose tag is neither 0 nor among `tags` (a mask), with its
 * index in args->given, or NULL: an option of a format the command did not turn out to read. */
const cli_opt *cli_args_foreign(const cli_args *args, unsigned tags, size_t *index);

/** Prints the help of `spec` to `out`: usage, about, the options of its table in groups (and
 * -h/--help), notes. */
void cli_help_print(const cli_spec *spec, FILE *out);

/** Writes the option's label for messages to buf: "-a/--axis" or "--opset". */
void cli_opt_label(const cli_opt *opt, char *buf, size_t size);

/** Writes option i of `args` as it was given to buf: "-n" or "--num-splits". */
void cli_args_spelling(const cli_args *args, size_t i, char *buf, size_t size);

/** Calls `fn(ctx, opt)` for every option of `table` (included tables followed), in order; GROUP
 * entries too. */
void cli_opt_each(const cli_opt *table, void (*fn)(void *ctx, const cli_opt *opt), void *ctx);

/**
 * Parses a decimal int64 (optional sign, no spaces, no trailing text). On failure prints
 * "<what>: '<text>' is not an integer" (or "is out of range") and returns CLI_EXIT_USAGE;
 * returns 0 on success.
 */
int cli_parse_int64(const char *text, const char *what, int64_t *out);

/**
 * Parses a comma-separated list of int64 values, or of "?" entries (values unknown). Stores a
 * malloc'd array in `*values` (NULL when unknown), the entry count in `*count` and whether the
 * entries are "?" in `*unknown`. An empty list or entry, a malformed number or a mix of numbers
 * and "?" prints a usage error and returns CLI_EXIT_USAGE; returns 0 on success.
 */
int cli_parse_int64_list(const char *text, const char *what, int64_t **values, int64_t *count,
                         int *unknown);

/**
 * Parses a size, the one syntax of every command: a decimal number as Python's float() reads one
 * without an exponent (digits with at most one '.', "1.5", ".5" and "1." included) and a unit,
 * in any case: none or B (bytes); K or KB, M or MB, G or GB, T or TB
 * (10^3 to 10^12 bytes, as llama.cpp's gguf-split and Hugging Face's writer read them); KiB,
 * MiB, GiB, TiB (2^10 to 2^40). As Hugging Face's writer reads it, the number is a double and
 * the product is truncated ("1.5GB" is 1500000000 bytes). Returns 0 with `*bytes` from 1 to
 * 2^63-1, or -1 (nothing printed).
 */
int cli_parse_size(const char *text, uint64_t *bytes);

/** --header 'NAME: VALUE' (http.h), repeatable: what every command that reads a model over
 * HTTP takes, included by their tables (CLI_INCLUDE_SAME). */
extern const cli_opt cli_remote_options[];

#endif /* CLEAVE_CLI_ARGS_H */
