/*
 * JSON strings in the commands' --json reports (docs/cli.md, "--json"): one printer, so that every
 * command escapes a path or a name the same way.
 */
#ifndef CLEAVE_CLI_JSON_STRING_H
#define CLEAVE_CLI_JSON_STRING_H

#include <stdio.h>

/**
 * Writes `s` (NUL-terminated, not NULL) to `out` as a JSON string, quotes included: '"' and '\'
 * get a backslash, the other control characters and DEL are written as \u00XX, every other byte
 * as is (UTF-8 passes through unchanged). Not thread-safe with respect to other writers of `out`.
 */
void cli_json_string(FILE *out, const char *s);

#endif /* CLEAVE_CLI_JSON_STRING_H */
