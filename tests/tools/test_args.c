/* tools/common/args.c: options declared in tables, the one parser, its errors and its --help. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "args.h"
#include "cli_util.h"

/* A shared group of options, included by the commands below at an offset of their own. */
typedef struct write_group {
  const char *output;
  int force, progress;
  uint64_t max_size;
} write_group;

static const cli_opt write_table[] = {
    CLI_GROUP("Output options"),
    CLI_STRING('o', "output", "OUTDIR", write_group, output, "the output folder"),
    CLI_FLAG('f', "force", write_group, force, "replace existing outputs"),
    CLI_CLEAR(0, "no-progress", write_group, progress, "no progress line"),
    CLI_SIZE(0, "max-shard-size", "SIZE", write_group, max_size, "files of at most SIZE bytes"),
    CLI_END,
};

typedef struct command {
  int64_t ranks;
  int mode;
  int calls;
  char seen[64];
  write_group write;
} command;

/* Records every value it is given, with the number of its option. */
static int record(void *target, const char *value, const cli_opt *opt, const char *place) {
  command *c = (command *)((char *)target - offsetof(command, calls));
  c->calls++;
  size_t n = strlen(c->seen);
  snprintf(c->seen + n, sizeof c->seen - n, "%d:%s;", opt->number, value ? value : "-");
  if (value != NULL && strcmp(value, "bad") == 0) {
    return cli_error_at(place, CLI_EXIT_USAGE, "--axis 'bad' is refused");
  }
  return 0;
}

static const cli_opt shard_table[] = {
    CLI_INT64('n', "num-splits", "RANKS", command, ranks, "the number of ranks"),
    CLI_CHOICE(0, "unmatched", "replicate|error|skip", command, mode, "what to do"),
    CLI_CALL('a', "axis", "GLOB=AXIS", command, calls, record, 7, "cut along AXIS"),
    CLI_CALL(0, "replicate-kv", NULL, command, calls, record, 9, "replicate the KV heads"),
    CLI_INCLUDE(command, write, write_table),
    CLI_END,
};

static const cli_opt merge_table[] = {
    CLI_INCLUDE(command, write, write_table),
    CLI_END,
};

static const cli_spec shard_spec;
static const cli_spec merge_spec;
static const cli_spec other_spec;
static const cli_spec *const family[] = {&shard_spec, &merge_spec, &other_spec, NULL};
static const cli_spec shard_spec = {.name = "st shard",
                                    .usage = "cleave {cmd} MODEL -o OUTDIR -n RANKS",
                                    .about = "Cuts MODEL for {cmd}.\n",
                                    .options = shard_table,
                                    .notes = "Notes.\n",
                                    .siblings = family};
static const cli_spec merge_spec = {.name = "st merge",
                                    .usage = "cleave {cmd} RANK...",
                                    .options = merge_table,
                                    .siblings = family};
static const cli_opt other_table[] = {
    CLI_INT64('n', "num-splits", "NUM", command, ranks, "parts"),
    CLI_END,
};
static const cli_spec other_spec = {
    .name = "st split", .usage = "cleave {cmd}", .options = other_table, .siblings = family};

/* Runs the parser over the words of `line` (NULL-terminated) with stderr captured into
 * `message` (may be NULL), the spec's name recorded as the running command's as the dispatcher
 * records it (the reporter puts it in front of every message; the parser does not repeat it). */
static int parse(const cli_spec *spec, command *c, const char *const *line, cli_args *args,
                 char *message, size_t size) {
  memset(c, 0, sizeof *c);
  c->write.progress = 1;
  char *argv[32];
  int argc = 0;
  argv[argc++] = (char *)"cleave";
  for (; line[argc - 1] != NULL; argc++) {
    argv[argc] = (char *)line[argc - 1];
  }
  FILE *saved = stderr;
  FILE *captured = tmpfile();
  assert_non_null(captured);
  stderr = captured;
  cli_command_set(spec->name);
  int rc = cli_parse(spec, c, argc, argv, 1, args);
  cli_command_set(NULL);
  stderr = saved;
  rewind(captured);
  size_t n = fread(message != NULL ? message : (char[256]){0}, 1, message != NULL ? size - 1 : 0,
                   captured);
  if (message != NULL) {
    message[n] = '\0';
  }
  fclose(captured);
  return rc;
}

static void expect_usage(const cli_spec *spec, const char *const *line, const char *message) {
  command c;
  cli_args args;
  char got[1024];
  assert_int_equal(parse(spec, &c, line, &args, got, sizeof got), CLI_EXIT_USAGE);
  cli_args_free(&args);
  if (strstr(got, message) == NULL) {
    fail_msg("'%s' lacks '%s'", got, message);
  }
}

static void test_values_and_targets(void **state) {
  (void)state;
  command c;
  cli_args args;
  const char *line[] = {"model",
                        "-n",
                        "4",
                        "--unmatched=error",
                        "-fo",
                        "out",
                        "--axis",
                        "a=0",
                        "-ab=1",
                        "--no-progress",
                        "--max-shard-size",
                        "1.5G",
                        "--",
                        "-x",
                        NULL};
  assert_int_equal(parse(&shard_spec, &c, line, &args, NULL, 0), 0);
  assert_int_equal(c.ranks, 4);
  assert_int_equal(c.mode, 1);
  assert_int_equal(c.write.force, 1);
  assert_string_equal(c.write.output, "out");
  assert_int_equal(c.write.progress, 0);
  assert_int_equal(c.write.max_size, 1500000000u);
  assert_int_equal(c.calls, 2);
  assert_string_equal(c.seen, "7:a=0;7:b=1;");
  assert_int_equal(args.positional_count, 2);
  assert_string_equal(args.positional[0], "model");
  assert_string_equal(args.positional[1], "-x");
  assert_int_equal(args.options_before[0], 0);
  assert_int_equal(args.options_before[1], 8);
  /* The options given, in order, and how they were spelled. */
  assert_int_equal(args.given_count, 8);
  char spelled[64];
  cli_args_spelling(&args, 0, spelled, sizeof spelled);
  assert_string_equal(spelled, "-n");
  cli_args_spelling(&args, 1, spelled, sizeof spelled);
  assert_string_equal(spelled, "--unmatched");
  cli_args_free(&args);

  /* A flag read by its parser gets NULL; "-" alone is an argument. */
  const char *flags[] = {"--replicate-kv", "-", NULL};
  assert_int_equal(parse(&shard_spec, &c, flags, &args, NULL, 0), 0);
  assert_string_equal(c.seen, "9:-;");
  assert_int_equal(args.positional_count, 1);
  assert_string_equal(args.positional[0], "-");
  cli_args_free(&args);
}

static void test_errors(void **state) {
  (void)state;
  /* The command's name once, from the reporter, then the message. */
  expect_usage(&shard_spec, (const char *const[]){"-n", NULL},
               "cleave: error: st shard: option -n/--num-splits needs a value\n");
  expect_usage(&shard_spec, (const char *const[]){"-n", "x", NULL},
               "cleave: error: st shard: -n/--num-splits: 'x' is not an integer\n");
  expect_usage(&shard_spec, (const char *const[]){"-n", "1", "--num-splits=2", NULL},
               "cleave: error: st shard: option -n/--num-splits is given twice\n");
  expect_usage(&shard_spec, (const char *const[]){"--force=yes", NULL},
               "st shard: option --force takes no value (got 'yes')");
  expect_usage(&shard_spec, (const char *const[]){"--unmatched", "x", NULL},
               "st shard: --unmatched is 'replicate', 'error' or 'skip', not 'x'");
  expect_usage(&shard_spec, (const char *const[]){"--max-shard-size", "5Q", NULL},
               "st shard: --max-shard-size '5Q' is not a size");
  expect_usage(&shard_spec, (const char *const[]){"--bogus", NULL},
               "cleave: error: st shard: unknown option '--bogus' (see 'cleave st shard --help')");
  expect_usage(&shard_spec, (const char *const[]){"-z", NULL}, "st shard: unknown option '-z'");
  /* An option of a sibling: the siblings that take it, in order of name. */
  expect_usage(&merge_spec, (const char *const[]){"-n", "2", NULL},
               "st merge: -n belongs to 'st shard' and 'st split', not to 'st merge'");
  expect_usage(&merge_spec, (const char *const[]){"--unmatched=x", NULL},
               "st merge: --unmatched belongs to 'st shard'");
  /* A parser's own refusal stops the parse with its status. */
  expect_usage(&shard_spec, (const char *const[]){"-a", "bad", NULL},
               "cleave: error: st shard: --axis 'bad' is refused\n");
}

/* Words that do not come from the command line (a rules file's line): their place follows the
 * command's name in the parser's messages and in its option parsers'; the pointer to the help
 * names the command alone. */
static const cli_spec line_spec = {
    .name = "st shard", .place = "rules.txt:3", .usage = "", .options = shard_table, .no_help = 1};

static void test_place(void **state) {
  (void)state;
  expect_usage(&line_spec, (const char *const[]){"-n", NULL},
               "cleave: error: st shard: rules.txt:3: option -n/--num-splits needs a value\n");
  expect_usage(&line_spec, (const char *const[]){"--bogus", NULL},
               "cleave: error: st shard: rules.txt:3: unknown option '--bogus' (see 'cleave st "
               "shard --help')\n");
  expect_usage(&line_spec, (const char *const[]){"--unmatched", "x", NULL},
               "cleave: error: st shard: rules.txt:3: --unmatched is 'replicate', 'error' or "
               "'skip', not 'x'\n");
  expect_usage(&line_spec, (const char *const[]){"-a", "bad", NULL},
               "cleave: error: st shard: rules.txt:3: --axis 'bad' is refused\n");
}

/* A table of a command's own options used by two of its tables (CLI_INCLUDE_SAME), and a parser
 * option that takes one value only (CLI_CALL_ONCE). */
static const cli_opt own_table[] = {
    CLI_CALL_ONCE('k', "keep", "0|1", command, calls, record, 3, "keep it"),
    CLI_END,
};
static const cli_opt here_table[] = {
    CLI_INCLUDE_SAME(own_table),
    CLI_INT64('n', "num-splits", "N", command, ranks, "parts"),
    CLI_END,
};
static const cli_spec here_spec = {.name = "here", .usage = "cleave {cmd}", .options = here_table};

static void test_once_and_here(void **state) {
  (void)state;
  command c;
  cli_args args;
  assert_int_equal(
      parse(&here_spec, &c, (const char *const[]){"-k", "1", "-n", "2", NULL}, &args, NULL, 0), 0);
  cli_args_free(&args);
  assert_int_equal(c.calls, 1);
  assert_string_equal(c.seen, "3:1;");
  assert_int_equal(c.ranks, 2);
  expect_usage(&here_spec, (const char *const[]){"-k", "1", "--keep=0", NULL},
               "cleave: error: here: option -k/--keep is given twice\n");
  /* Any number of options: a thousand values of a repeatable option. */
  char *argv[2002];
  argv[0] = (char *)"cleave";
  for (size_t i = 1; i < 2001; i += 2) {
    argv[i] = (char *)"-a";
    argv[i + 1] = (char *)"a=0";
  }
  argv[2001] = NULL;
  memset(&c, 0, sizeof c);
  assert_int_equal(cli_parse(&shard_spec, &c, 2001, argv, 1, &args), 0);
  assert_int_equal(c.calls, 1000);
  assert_int_equal(args.given_count, 1000);
  cli_args_free(&args);
  /* A repeatable parser option still takes any number of values. */
  assert_int_equal(
      parse(&shard_spec, &c, (const char *const[]){"-a", "a=0", "-a", "b=1", NULL}, &args, NULL, 0),
      0);
  cli_args_free(&args);
  assert_int_equal(c.calls, 2);
}

static void test_help(void **state) {
  (void)state;
  command c;
  cli_args args;
  /* --help wins over what follows it, and the help is printed on stdout. */
  FILE *saved = stdout;
  FILE *captured = tmpfile();
  assert_non_null(captured);
  stdout = captured;
  int rc = parse(&shard_spec, &c, (const char *const[]){"-n", "2", "--help", "--bogus", NULL},
                 &args, NULL, 0);
  stdout = saved;
  cli_args_free(&args);
  assert_int_equal(rc, CLI_HELP_SHOWN);
  char text[4096];
  rewind(captured);
  size_t n = fread(text, 1, sizeof text - 1, captured);
  text[n] = '\0';
  fclose(captured);
  const char *expected = "usage: cleave st shard MODEL -o OUTDIR -n RANKS\n"
                         "\n"
                         "Cuts MODEL for st shard.\n"
                         "\n"
                         "  -n, --num-splits RANKS  the number of ranks\n"
                         "      --unmatched replicate|error|skip  what to do\n"
                         "  -a, --axis GLOB=AXIS    cut along AXIS\n"
                         "      --replicate-kv      replicate the KV heads\n"
                         "\n"
                         "Output options:\n"
                         "  -o, --output OUTDIR     the output folder\n"
                         "  -f, --force             replace existing outputs\n"
                         "      --no-progress       no progress line\n"
                         "      --max-shard-size SIZE  files of at most SIZE bytes\n"
                         "  -h, --help              print this help\n"
                         "\n"
                         "Notes.\n";
  assert_string_equal(text, expected);
  /* -h in a bundle too. */
  stdout = fopen("/dev/null", "w");
  assert_non_null(stdout);
  assert_int_equal(parse(&shard_spec, &c, (const char *const[]){"-fh", NULL}, &args, NULL, 0),
                   CLI_HELP_SHOWN);
  fclose(stdout);
  stdout = saved;
  cli_args_free(&args);
}

static void test_help_wraps(void **state) {
  (void)state;
  static const cli_opt table[] = {
      CLI_FLAG(0, "long", command, mode,
               "a help line long enough to be wrapped at the width of the help, which is ninety "
               "two columns, so that it takes two lines\nand a line of its own"),
      CLI_END,
  };
  static const cli_spec spec = {.name = "x", .usage = "cleave x", .options = table};
  FILE *captured = tmpfile();
  assert_non_null(captured);
  cli_help_print(&spec, captured);
  char text[2048];
  rewind(captured);
  size_t n = fread(text, 1, sizeof text - 1, captured);
  text[n] = '\0';
  fclose(captured);
  const char *expected =
      "usage: cleave x\n"
      "\n"
      "      --long  a help line long enough to be wrapped at the width of the help, which is\n"
      "              ninety two columns, so that it takes two lines\n"
      "              and a line of its own\n"
      "  -h, --help  print this help\n";
  assert_string_equal(text, expected);
}

/* A table that starts with a group: its heading follows the usage's blank line. */
static void test_help_group_first(void **state) {
  (void)state;
  FILE *captured = tmpfile();
  assert_non_null(captured);
  cli_help_print(&merge_spec, captured);
  char text[2048];
  rewind(captured);
  size_t n = fread(text, 1, sizeof text - 1, captured);
  text[n] = '\0';
  fclose(captured);
  const char *expected = "usage: cleave st merge RANK...\n"
                         "\n"
                         "Output options:\n"
                         "  -o, --output OUTDIR  the output folder\n"
                         "  -f, --force          replace existing outputs\n"
                         "      --no-progress    no progress line\n"
                         "      --max-shard-size SIZE  files of at most SIZE bytes\n"
                         "  -h, --help           print this help\n";
  assert_string_equal(text, expected);
}

/* Options tagged for some commands only: taken and listed where the command's tags allow. */
static const cli_opt tag_table[] = {
    CLI_FLAG('x', "both", command, mode, "for all[[1:, and for a]][[2:, and for b]]."),
    {.kind = CLI_OPT_GROUP, .help = "Only for A", .tag = 1},
    {.kind = CLI_OPT_FLAG,
     .long_name = "only-a",
     .help = "a's",
     .number = 1,
     .offset = offsetof(command, mode),
     .tag = 1},
    {.kind = CLI_OPT_FLAG,
     .long_name = "only-b",
     .help = "b's",
     .number = 2,
     .offset = offsetof(command, mode),
     .tag = 2},
    CLI_INT64('n', "num", "N", command, ranks, "both"),
    CLI_END,
};
static const cli_spec b_spec;
static const cli_spec *const both[] = {&b_spec, NULL};
static const cli_spec a_spec = {.name = "a", .usage = "cleave a", .options = tag_table, .tags = 1};
static const cli_spec b_spec = {
    .name = "b", .usage = "cleave b", .options = tag_table, .siblings = both, .tags = 2};
static const cli_spec ab_spec = {
    .name = "ab", .usage = "cleave ab", .options = tag_table, .siblings = both, .tags = 3};

static const cli_spec *const family_a[] = {&a_spec, NULL};
static const cli_spec b_of_a = {
    .name = "b", .usage = "cleave b", .options = tag_table, .siblings = family_a, .tags = 2};

static void test_tags(void **state) {
  (void)state;
  command c;
  cli_args args;
  assert_int_equal(parse(&b_spec, &c, (const char *const[]){"--only-b", NULL}, &args, NULL, 0), 0);
  assert_int_equal(c.mode, 2);
  cli_args_free(&args);
  /* A tagged option another command takes is named with it. */
  expect_usage(&b_of_a, (const char *const[]){"--only-a", NULL}, "b: --only-a belongs to 'a'");
  /* The help lists what the command takes; an empty group has no heading. */
  FILE *captured = tmpfile();
  assert_non_null(captured);
  cli_help_print(&b_spec, captured);
  char text[1024];
  rewind(captured);
  size_t n = fread(text, 1, sizeof text - 1, captured);
  text[n] = '\0';
  fclose(captured);
  assert_string_equal(text, "usage: cleave b\n"
                            "\n"
                            "  -x, --both    for all, and for b.\n"
                            "      --only-b  b's\n"
                            "  -n, --num N   both\n"
                            "  -h, --help    print this help\n");
  /* The first option of a tag the command turned out not to take. */
  assert_int_equal(
      parse(&ab_spec, &c, (const char *const[]){"-n", "1", "--only-a", NULL}, &args, NULL, 0), 0);
  size_t at = 9;
  const cli_opt *foreign = cli_args_foreign(&args, 2, &at);
  assert_non_null(foreign);
  assert_string_equal(foreign->long_name, "only-a");
  assert_int_equal(at, 1);
  assert_null(cli_args_foreign(&args, 1, NULL));
  cli_args_free(&args);
}

static void expect_size(const char *text, uint64_t bytes) {
  uint64_t got = 0;
  if (cli_parse_size(text, &got) != 0) {
    fail_msg("'%s' was refused", text);
  }
  if (got != bytes) {
    fail_msg("'%s' is %llu, expected %llu", text, (unsigned long long)got,
             (unsigned long long)bytes);
  }
}

static void test_sizes(void **state) {
  (void)state;
  /* One syntax in every command: K = KB (powers of 1000), KiB (powers of 1024), decimals. */
  expect_size("1000000", 1000000);
  expect_size("100K", 100000);
  expect_size("100kb", 100000);
  expect_size("0.1MB", 100000);
  expect_size("2M", 2000000);
  expect_size("5GB", 5000000000u);
  expect_size("1.5G", 1500000000u);
  expect_size("1T", 1000000000000u);
  expect_size("2KiB", 2048);
  expect_size("3mib", 3145728);
  expect_size("1GiB", 1073741824u);
  expect_size("1TiB", 1099511627776u);
  expect_size("512B", 512);
  /* As Python's int(float(number) * factor). */
  expect_size("1.0000001", 1);
  uint64_t got;
  const char *bad[] = {"",    "K",     "0",   "0.4",           "-1", "1 GB", "1Ki",
                       "1e3", "1.5.1", "GB5", "10000000000TB", "1.", "x",    "1KB ",
                       NULL};
  for (size_t i = 0; bad[i] != NULL; i++) {
    if (strcmp(bad[i], "1.") == 0) {
      /* "1." is the number 1 (as float("1.") reads it). */
      assert_int_equal(cli_parse_size(bad[i], &got), 0);
      continue;
    }
    if (cli_parse_size(bad[i], &got) == 0) {
      fail_msg("'%s' was accepted as %llu", bad[i], (unsigned long long)got);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_and_targets),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_place),
      cmocka_unit_test(test_once_and_here),
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_help_wraps),
      cmocka_unit_test(test_help_group_first),
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_tags),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
