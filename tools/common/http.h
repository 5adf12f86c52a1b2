/*
 * Files read over HTTP(S) by ranges (libcurl): a model location that is a URL is read as a local
 * file is, by positioned reads of known ranges, each one ranged GET of only those bytes
 * (docs/remote.md). Redirects are followed; the headers of --header and `Authorization: Bearer
 * $HF_TOKEN` are sent and never printed. A request that fails on the way (a 5xx, a 429, a
 * dropped connection) is retried after a growing delay (a 429's or 503's Retry-After honoured),
 * resuming at the byte where the transfer stopped. A server that answers a ranged request with
 * the whole file, or a file whose size or ETag changes between requests, is an error naming the
 * URL. Thread-safe: requests are made one at a time on one connection.
 */
#ifndef CLEAVE_TOOL_HTTP_H
#define CLEAVE_TOOL_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** Whether `path` is a URL cleave reads over HTTP: it starts with http:// or https://
 * (letters of the scheme in any case). */
int http_is_url(const char *path);

/** A file read by ranges. */
typedef struct http_file http_file;

/**
 * Opens `url`: its size and ETag from one ranged GET of its first bytes (kept for the reads that
 * follow, so that a header needs no request of its own when it fits), or from what an earlier
 * open of the same URL in this run learned. `what` names it in messages as io_open_regular's.
 * Returns 0, or CLI_EXIT_NOINPUT (the server refuses it: 404, 401...; it cannot be reached after
 * the retries; it ignores Range), CLI_EXIT_DATA (its size or ETag is not the one an earlier open
 * found), CLI_EXIT_SOFTWARE (out of memory), with `*out` NULL.
 */
int http_open(const char *url, const char *what, http_file **out, uint64_t *size, tool_error *err);

/** Whether `url` exists: http_open's request, then *found 0 for a 404 or 410 (and 0 returned),
 * 1 for a file; any other failure is http_open's. */
int http_probe(const char *url, const char *what, int *found, tool_error *err);

/**
 * Reads exactly `size` bytes at `offset` (within the size http_open found) into `buf`. Returns 0,
 * CLI_EXIT_IOERR (a transfer that still fails after the retries), CLI_EXIT_NOINPUT (the server
 * refuses the URL now, or ignores Range), CLI_EXIT_DATA (the file's size or ETag changed since it
 * was opened), each naming the URL.
 */
int http_read(http_file *f, void *buf, size_t size, uint64_t offset, tool_error *err);

/** The ETag the server gave for the file ("" for none): the manifest records it. */
const char *http_etag(const http_file *f);

/** Closes `f` (NULL is allowed). What was learned of the URL is kept for a later open. */
void http_close(http_file *f);

/** The ETag an earlier open of `url` in this run found, or NULL when it was never opened or
 * gave none. */
const char *http_known_etag(const char *url);

/** Whether an earlier http_probe of `url` in this run found nothing there (404, 410). */
int http_known_missing(const char *url);

/**
 * Adds a header sent with every request, "Name: value" (--header): a name of token characters,
 * a colon, a value without control characters, at most 8 KiB in all. Returns 0 or CLI_EXIT_USAGE
 * naming the option but not the value (it may hold a secret).
 */
int http_add_header(const char *line, tool_error *err);

/**
 * The delay before retry `attempt` (from 0) of a request, in milliseconds: `retry_after_ms` when
 * the server said (>= 0), else 1, 2, 4, 8, 16 units of a second (the test knob
 * CLEAVE_TEST_HTTP_DELAY_MS makes a unit and a second of Retry-After that many milliseconds).
 */
long http_retry_delay_ms(unsigned attempt, long retry_after_ms);

/**
 * Parses a Retry-After value (`text`, `len` bytes, untrusted): delay-seconds (digits, capped at
 * an hour) or an HTTP date (the seconds from `now` until it, 0 when past). Returns the seconds,
 * or -1 when the value is neither.
 */
long http_parse_retry_after(const char *text, size_t len, long long now);

#endif /* CLEAVE_TOOL_HTTP_H */
