/* Files read over HTTP(S) by ranges (http.h). */
#include "http.h"

#include <ctype.h>
/* Only the types and constants: the functions are libcurl's, loaded when a URL is first read. */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The first bytes of a file, read when it is opened: a safetensors header of up to this size
 * and its 8-byte length come from the one request that also gives the size and the ETag. */
#define HEAD_BYTES ((size_t)64 << 10)
/* A read of at most SMALL_READ bytes outside the block kept fetches a block of SMALL_BLOCK bytes
 * from it: the samples of the tensors (ckpt_record.c: the last bytes of one and the first of the
 * next) and tensors of a few bytes then cost a request per block, not per read. */
#define SMALL_READ 1024
#define SMALL_BLOCK ((size_t)4 << 10)
/* Retries of one request that makes no progress before it fails. */
#define RETRIES 5
/* The longest wait a Retry-After may ask for, in seconds. */
#define RETRY_AFTER_MAX 3600
/* A --header line at most, and an ETag kept at most (bytes). */
#define HEADER_MAX 8192
#define ETAG_MAX 256

struct http_file {
  char *url;
  uint64_t size;
  char etag[ETAG_MAX];
  unsigned char *head; /* head_len bytes at head_at, or NULL: the first bytes once opened, later
                          the block of the last small read */
  uint64_t head_at;
  size_t head_len;
};

/* What this run learned of a URL: later opens (the writer's, after the reader's) need no
 * request, and their reads are checked against it. */
typedef struct known_url {
  char *url;
  uint64_t size;
  char etag[ETAG_MAX];
  unsigned char *head; /* the file's first head_len bytes, for the next open, or NULL */
  size_t head_len;
  int missing; /* the server answered 404 or 410 */
} known_url;

/* The first bytes of this many files closed last are kept (the files are opened once by their
 * reader, then again by the writer). */
#define KEPT_HEADS 4

/* libcurl's functions, from dlopen when a URL is first read: a command on local files never
 * loads libcurl and the thirty libraries it needs (about 17 ms of a process's start). */
static struct {
  CURLcode (*global_init)(long);
  CURL *(*easy_init)(void);
  void (*easy_reset)(CURL *);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_perform)(CURL *);
  const char *(*easy_strerror)(CURLcode);
  time_t (*getdate)(const char *, const time_t *);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CURL *easy;
static int init_failed;
static char **user_headers;
static size_t user_header_count;
static int user_authorization;
static known_url *known;
static size_t known_count, known_cap;
static size_t kept[KEPT_HEADS], kept_count;

int http_is_url(const char *path) {
  return strncasecmp(path, "http://", 7) == 0 || strncasecmp(path, "https://", 8) == 0;
}

static void init(void) {
  void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  struct {
    const char *name;
    void **slot;
  } names[] = {{"curl_global_init", (void **)&api.global_init},
               {"curl_easy_init", (void **)&api.easy_init},
               {"curl_easy_reset", (void **)&api.easy_reset},
               {"curl_easy_setopt", (void **)&api.easy_setopt},
               {"curl_easy_perform", (void **)&api.easy_perform},
               {"curl_easy_strerror", (void **)&api.easy_strerror},
               {"curl_getdate", (void **)&api.getdate},
               {"curl_slist_append", (void **)&api.slist_append},
               {"curl_slist_free_all", (void **)&api.slist_free_all}};
  init_failed = lib == NULL;
  for (size_t i = 0; !init_failed && i < sizeof names / sizeof names[0]; i++) {
    *names[i].slot = dlsym(lib, names[i].name);
    init_failed = *names[i].slot == NULL;
  }
  init_failed = init_failed || api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK;
}

/* ---- the headers sent -------------------------------------------------------------------- */

static int token_char(unsigned char c) {
  return isalnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int http_add_header(const char *line, tool_error *err) {
  size_t n = strnlen(line, HEADER_MAX + 1), name = 0;
  while (name < n && token_char((unsigned char)line[name])) {
    name++;
  }
  int ok = n <= HEADER_MAX && name > 0 && line[name] == ':';
  for (size_t i = name + 1; ok && i < n; i++) {
    unsigned char c = (unsigned char)line[i];
    ok = c >= 0x20 ? c != 0x7f : c == '\t';
  }
  if (!ok) {
    /* The value is not repeated: it may be a secret. */
    return tool_fail(err, CLI_EXIT_USAGE,
                     "--header takes 'Name: value' (a name of letters, digits or !#$%%&'*+-.^_`|~, "
                     "a colon, then a value without control characters, %u bytes at most)",
                     (unsigned)HEADER_MAX);
  }
  pthread_mutex_lock(&lock);
  char **grown = realloc(user_headers, (user_header_count + 1) * sizeof *grown);
  char *copy = grown != NULL ? strdup(line) : NULL;
  if (grown != NULL) {
    user_headers = grown;
  }
  if (copy != NULL) {
    user_headers[user_header_count++] = copy;
    user_authorization |= name == 13 && strncasecmp(line, "authorization", 13) == 0;
  }
  pthread_mutex_unlock(&lock);
  return copy == NULL ? tool_oom(err, "adding a --header") : 0;
}

/* The headers of every request: the --header lines, then the token of HF_TOKEN unless a
 * --header gave an Authorization of its own (NULL when there are none, or out of memory). */
static struct curl_slist *request_headers(int *oom) {
  struct curl_slist *list = NULL;
  *oom = 0;
  for (size_t i = 0; i < user_header_count; i++) {
    struct curl_slist *grown = api.slist_append(list, user_headers[i]);
    if (grown == NULL) {
      *oom = 1;
      api.slist_free_all(list);
      return NULL;
    }
    list = grown;
  }
  const char *token = getenv("HF_TOKEN");
  if (!user_authorization && token != NULL && token[0] != '\0' && strlen(token) < HEADER_MAX &&
      strpbrk(token, "\r\n") == NULL) {
    char line[HEADER_MAX + 32];
    snprintf(line, sizeof line, "Authorization: Bearer %s", token);
    struct curl_slist *grown = api.slist_append(list, line);
    memset(line, 0, sizeof line);
    if (grown == NULL) {
      *oom = 1;
      api.slist_free_all(list);
      return NULL;
    }
    list = grown;
  }
  return list;
}

/* ---- delays ------------------------------------------------------------------------------ */

long http_parse_retry_after(const char *text, size_t len, long long now) {
  while (len > 0 && (*text == ' ' || *text == '\t')) {
    text++, len--;
  }
  while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r' ||
                     text[len - 1] == '\n')) {
    len--;
  }
  if (len == 0 || len > 64) {
    return -1;
  }
  if (isdigit((unsigned char)text[0])) {
    long s = 0;
    for (size_t i = 0; i < len; i++) {
      if (!isdigit((unsigned char)text[i])) {
        return -1;
      }
      s = s >= RETRY_AFTER_MAX ? RETRY_AFTER_MAX : s * 10 + (text[i] - '0');
    }
    return s > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : s;
  }
  char date[65];
  memcpy(date, text, len);
  date[len] = '\0';
  pthread_once(&once, init);
  time_t when = init_failed ? (time_t)-1 : api.getdate(date, NULL);
  if (when == (time_t)-1) {
    return -1;
  }
  long long left = (long long)when - now;
  return left <= 0 ? 0 : left > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : (long)left;
}

/* Milliseconds of a unit of delay: 1000, or the test knob's. */
static long delay_unit_ms(void) {
  const char *knob = getenv("CLEAVE_TEST_HTTP_DELAY_MS");
  if (knob != NULL && knob[0] != '\0') {
    char *end;
    long v = strtol(knob, &end, 10);
    if (*end == '\0' && v >= 0 && v <= 1000) {
      return v;
    }
  }
  return 1000;
}

long http_retry_delay_ms(unsigned attempt, long retry_after_s) {
  long unit = delay_unit_ms();
  if (retry_after_s >= 0) {
    return retry_after_s * unit;
  }
  return (1L << (attempt < 4 ? attempt : 4)) * unit;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

/* ---- one request --------------------------------------------------------------------------- */

/* One ranged GET of [start, start + want) into buf (`want` shortened to the file's end once its
 * size is known), and what its response said. */
typedef struct request {
  const http_file *f; /* size 0 and etag "" while being opened */
  int opening;
  unsigned char *buf;
  size_t want, got;
  uint64_t start;
  long status;
  int have_range;
  uint64_t range_start, range_total;
  int total_known;
  char etag[ETAG_MAX];
  long retry_after;
  int checked;    /* the 206's Content-Range and ETag were checked */
  int ignores;    /* a 200 to a ranged request */
  int changed;    /* the size or the ETag is not the file's */
  int overrun;    /* more bytes than the range */
  uint64_t total; /* the size the response gave */
} request;

static int parse_u64(const char **p, const char *end, uint64_t *v) {
  const char *s = *p;
  *v = 0;
  while (s < end && isdigit((unsigned char)*s)) {
    unsigned d = (unsigned)(*s - '0');
    if (*v > (UINT64_MAX - d) / 10) {
      return -1;
    }
    *v = *v * 10 + d;
    s++;
  }
  if (s == *p) {
    return -1;
  }
  *p = s;
  return 0;
}

/* "bytes A-B/T" or "bytes * /T" (without the space), untrusted. */
static void parse_content_range(request *r, const char *v, const char *end) {
  if (end - v < 6 || strncasecmp(v, "bytes ", 6) != 0) {
    return;
  }
  v += 6;
  uint64_t a = 0, b = 0, t = 0;
  if (v < end && *v == '*') {
    v++;
  } else if (parse_u64(&v, end, &a) != 0 || v >= end || *v++ != '-' ||
             parse_u64(&v, end, &b) != 0 || b < a) {
    return;
  } else {
    r->have_range = 1;
    r->range_start = a;
  }
  if (v < end && *v == '/' && (v++, parse_u64(&v, end, &t) == 0)) {
    r->total_known = 1;
    r->total = t;
  }
}

static size_t on_header(char *data, size_t size, size_t count, void *user) {
  request *r = user;
  size_t n = size * count;
  const char *end = data + n;
  while (end > data && (end[-1] == '\r' || end[-1] == '\n')) {
    end--;
  }
  if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
    /* A new response (after a redirect or a 100): forget the last one's fields. */
    r->have_range = r->total_known = 0;
    r->etag[0] = '\0';
    r->retry_after = -1;
    const char *sp = memchr(data, ' ', (size_t)(end - data));
    uint64_t code = 0;
    r->status =
        sp != NULL && (sp++, parse_u64(&sp, end, &code) == 0) && code < 1000 ? (long)code : 0;
    return n;
  }
  const char *colon = memchr(data, ':', (size_t)(end - data));
  if (colon == NULL) {
    return n;
  }
  size_t name = (size_t)(colon - data);
  const char *v = colon + 1;
  while (v < end && (*v == ' ' || *v == '\t')) {
    v++;
  }
  if (name == 13 && strncasecmp(data, "content-range", 13) == 0) {
    parse_content_range(r, v, end);
  } else if (name == 4 && strncasecmp(data, "etag", 4) == 0) {
    size_t len = (size_t)(end - v) < ETAG_MAX - 1 ? (size_t)(end - v) : ETAG_MAX - 1;
    memcpy(r->etag, v, len);
    r->etag[len] = '\0';
  } else if (name == 11 && strncasecmp(data, "retry-after", 11) == 0) {
    r->retry_after = http_parse_retry_after(v, (size_t)(end - v), (long long)time(NULL));
  }
  return n;
}

/* The first bytes of a 206: its range must start where asked, its size and ETag be the file's. */
static int check_partial(request *r) {
  if (!r->have_range || !r->total_known || r->range_start != r->start) {
    r->changed = 1;
    return -1;
  }
  if (r->opening) {
    if (r->total > r->start && r->total - r->start < r->want) {
      r->want = (size_t)(r->total - r->start);
    }
    return 0;
  }
  if (r->total != r->f->size || (r->f->etag[0] != '\0' && strcmp(r->etag, r->f->etag) != 0)) {
    r->changed = 1;
    return -1;
  }
  return 0;
}

static size_t on_body(char *data, size_t size, size_t count, void *user) {
  request *r = user;
  size_t n = size * count;
  if (r->status == 200) {
    r->ignores = 1;
    return 0;
  }
  if (r->status != 206) {
    return n; /* an error's body, dropped */
  }
  if (!r->checked) {
    if (check_partial(r) != 0) {
      return 0;
    }
    r->checked = 1;
  }
  if (n > r->want - r->got) {
    r->overrun = 1;
    return 0;
  }
  memcpy(r->buf + r->got, data, n);
  r->got += n;
  return n;
}

/* Whether a transfer's failure may pass when it is tried again. */
static int transient(CURLcode c) {
  switch (c) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_PARTIAL_FILE:
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
    return 1;
  default:
    return 0;
  }
}

/* The text of a status for messages. */
static const char *status_words(long status) {
  switch (status) {
  case 401:
    return " (Unauthorized: set HF_TOKEN or pass --header 'Authorization: ...')";
  case 403:
    return " (Forbidden)";
  case 404:
    return " (Not Found)";
  case 410:
    return " (Gone)";
  case 416:
    return " (Range Not Satisfiable)";
  case 429:
    return " (Too Many Requests)";
  default:
    return status >= 500 ? " (a server error)" : "";
  }
}

/* Reads [start, start + want) of `url` into buf with the retries; `what` names it. Call with
 * the lock held. */
static int fetch(const char *url, const char *what, request *r, tool_error *err) {
  const char *role = what != NULL ? what : "";
  const char *gap = what != NULL ? " " : "";
  int oom;
  struct curl_slist *headers = request_headers(&oom);
  if (oom) {
    return tool_oom(err, "preparing a request");
  }
  char errbuf[CURL_ERROR_SIZE];
  int rc = 0;
  unsigned attempt = 0;
  for (;;) {
    size_t before = r->got;
    r->status = 0;
    r->checked = r->ignores = r->changed = r->overrun = 0;
    r->retry_after = -1;
    uint64_t from = r->start + r->got;
    char range[64];
    snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)from,
             (unsigned long long)(r->start + r->want - 1));
    /* The request asks for the rest only; check_partial compares with the resumed start. */
    uint64_t start = r->start;
    size_t got = r->got, want = r->want;
    r->start = from;
    r->buf += got;
    r->want -= got;
    r->got = 0;
    errbuf[0] = '\0';
    api.easy_reset(easy);
    api.easy_setopt(easy, CURLOPT_URL, url);
    api.easy_setopt(easy, CURLOPT_RANGE, range);
    api.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    api.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    api.easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    api.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    api.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    api.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    api.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, 30L);
    api.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    api.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, 60L);
    api.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, NULL);
    api.easy_setopt(easy, CURLOPT_USERAGENT, "cleave");
    api.easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
    api.easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    api.easy_setopt(easy, CURLOPT_HEADERDATA, r);
    api.easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    api.easy_setopt(easy, CURLOPT_WRITEDATA, r);
    CURLcode c = api.easy_perform(easy);
    size_t fetched = r->got;
    size_t part_want = r->want;
    r->buf -= got;
    r->start = start;
    r->got = got + fetched;
    r->want = r->opening && r->checked ? got + part_want : want;
    if (r->ignores) {
      rc = tool_fail(err, CLI_EXIT_NOINPUT,
                     "cannot read %s%s'%s': the server ignores Range (it sent the whole file, "
                     "status 200, for bytes %s): cleave reads only ranges",
                     role, gap, url, range);
      break;
    }
    if (r->changed || r->overrun) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s%s'%s' changed while it was read: %s", role, gap, url,
                     r->overrun ? "the server sent more bytes than the range asked"
                     : !r->have_range || !r->total_known || r->range_start != from
                         ? "the server answered with another range than the one asked"
                     : r->total != r->f->size ? "its size is not the one it had"
                                              : "its ETag is not the one it had");
      break;
    }
    if (c == CURLE_OK && r->status == 206 && r->got == r->want) {
      break;
    }
    if (c == CURLE_OK && r->status == 416 && r->opening && r->total_known && r->total == 0) {
      r->want = 0; /* an empty file */
      break;
    }
    int again = r->status == 206 || r->status == 0 ? transient(c) || c == CURLE_OK
                                                   : r->status >= 500 || r->status == 429;
    if (r->got > before) {
      attempt = 0; /* progress: the count starts again */
    }
    if (again && attempt < RETRIES) {
      sleep_ms(http_retry_delay_ms(attempt, r->status >= 400 ? r->retry_after : -1));
      attempt++;
      continue;
    }
    if (r->status >= 400) {
      rc = tool_fail(err, r->status >= 500 || r->status == 429 ? CLI_EXIT_IOERR : CLI_EXIT_NOINPUT,
                     "cannot %s %s%s'%s': HTTP %ld%s%s", r->opening ? "open" : "read", role, gap,
                     url, r->status, status_words(r->status), again ? " (after 5 retries)" : "");
    } else if (c != CURLE_OK) {
      rc = tool_fail(err, r->opening ? CLI_EXIT_NOINPUT : CLI_EXIT_IOERR,
                     "cannot %s %s%s'%s' at byte %llu: %s%s", r->opening ? "open" : "read", role,
                     gap, url, (unsigned long long)(r->start + r->got),
                     errbuf[0] != '\0' ? errbuf : api.easy_strerror(c),
                     again ? " (after 5 retries)" : "");
    } else {
      rc = tool_fail(err, CLI_EXIT_IOERR,
                     "cannot read %s%s'%s': status %ld to a request for bytes %s", role, gap, url,
                     r->status, range);
    }
    break;
  }
  api.slist_free_all(headers);
  return rc;
}

/* Starts libcurl and the connection once. Call with the lock held. */
static int ready(tool_error *err) {
  pthread_once(&once, init);
  if (!init_failed && easy == NULL) {
    easy = api.easy_init();
  }
  return init_failed || easy == NULL
             ? tool_fail(err, CLI_EXIT_SOFTWARE,
                         "libcurl (libcurl.so.4, Debian: libcurl4) cannot be loaded or started: it "
                         "reads the models given as URLs")
             : 0;
}

/* ---- files --------------------------------------------------------------------------------- */

static known_url *find_known(const char *url) {
  for (size_t i = 0; i < known_count; i++) {
    if (strcmp(known[i].url, url) == 0) {
      return &known[i];
    }
  }
  return NULL;
}

static void remember(const http_file *f, int missing) {
  if (find_known(f->url) != NULL) {
    return;
  }
  if (known_count == known_cap) {
    size_t cap = known_cap != 0 ? known_cap * 2 : 16;
    known_url *grown = realloc(known, cap * sizeof *grown);
    if (grown == NULL) {
      return; /* the next open asks again */
    }
    known = grown;
    known_cap = cap;
  }
  known_url *k = &known[known_count];
  k->url = strdup(f->url);
  k->head = NULL;
  k->head_len = 0;
  k->missing = missing;
  if (k->url != NULL) {
    k->size = f->size;
    memcpy(k->etag, f->etag, sizeof k->etag);
    known_count++;
  }
}

int http_known_missing(const char *url) {
  pthread_mutex_lock(&lock);
  const known_url *k = find_known(url);
  int missing = k != NULL && k->missing;
  pthread_mutex_unlock(&lock);
  return missing;
}

const char *http_known_etag(const char *url) {
  pthread_mutex_lock(&lock);
  const known_url *k = find_known(url);
  const char *etag = k != NULL && k->etag[0] != '\0' ? k->etag : NULL;
  pthread_mutex_unlock(&lock);
  return etag;
}

/* http_open, and with `found` not NULL a 404 or 410 is *found 0 and no error. */
static int open_url(const char *url, const char *what, http_file **out, uint64_t *size, int *found,
                    tool_error *err) {
  *out = NULL;
  if (found != NULL) {
    *found = 1;
  }
  http_file *f = calloc(1, sizeof *f);
  if (f == NULL || (f->url = strdup(url)) == NULL) {
    free(f);
    return tool_oom(err, "opening a URL");
  }
  pthread_mutex_lock(&lock);
  int rc = ready(err);
  const known_url *k = rc == 0 ? find_known(url) : NULL;
  if (k != NULL && !k->missing) {
    f->size = k->size;
    memcpy(f->etag, k->etag, sizeof f->etag);
    if (k->head != NULL && (f->head = malloc(HEAD_BYTES)) != NULL) {
      memcpy(f->head, k->head, k->head_len);
      f->head_len = k->head_len;
      f->head_at = 0;
    }
  } else if (rc == 0) {
    f->head = malloc(HEAD_BYTES);
    request r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.opening = 1;
    r.buf = f->head;
    r.want = HEAD_BYTES;
    rc = f->head == NULL ? tool_oom(err, "opening a URL") : fetch(url, what, &r, err);
    if (rc != 0 && found != NULL && (r.status == 404 || r.status == 410)) {
      *found = 0;
      rc = 0;
      remember(f, 1);
      pthread_mutex_unlock(&lock);
      http_close(f);
      return 0;
    }
    if (rc == 0) {
      f->size = r.total;
      f->head_len = r.got;
      memcpy(f->etag, r.etag, sizeof f->etag);
      remember(f, 0);
    }
  }
  pthread_mutex_unlock(&lock);
  if (rc != 0) {
    http_close(f);
    return rc;
  }
  *out = f;
  *size = f->size;
  return 0;
}

int http_open(const char *url, const char *what, http_file **out, uint64_t *size, tool_error *err) {
  return open_url(url, what, out, size, NULL, err);
}

int http_probe(const char *url, const char *what, int *found, tool_error *err) {
  http_file *f = NULL;
  uint64_t size;
  int rc = open_url(url, what, &f, &size, found, err);
  http_close(f);
  return rc;
}

int http_read(http_file *f, void *buf, size_t size, uint64_t offset, tool_error *err) {
  if (size == 0) {
    return 0;
  }
  if (offset > f->size || size > f->size - offset) {
    return tool_fail(err, CLI_EXIT_IOERR, "'%s' ends at byte %llu, before the %zu bytes at %llu",
                     f->url, (unsigned long long)f->size, size, (unsigned long long)offset);
  }
  if (f->head != NULL && offset >= f->head_at && offset - f->head_at + size <= f->head_len) {
    memcpy(buf, f->head + (offset - f->head_at), size);
    return 0;
  }
  int small = size <= SMALL_READ;
  if (small && f->head == NULL) {
    f->head = malloc(HEAD_BYTES);
    small = f->head != NULL;
  }
  pthread_mutex_lock(&lock);
  int rc = ready(err);
  if (rc == 0) {
    request r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.buf = small ? f->head : buf;
    r.want =
        small ? (f->size - offset < SMALL_BLOCK ? (size_t)(f->size - offset) : SMALL_BLOCK) : size;
    r.start = offset;
    if (small) {
      f->head_len = 0;
    }
    rc = fetch(f->url, NULL, &r, err);
    if (rc == 0 && small) {
      f->head_at = offset;
      f->head_len = r.want;
      memcpy(buf, f->head, size);
    }
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

const char *http_etag(const http_file *f) {
  return f->etag;
}

/* Keeps the first bytes of `f` with what is known of its URL, the oldest kept head let go. */
static void keep_head(http_file *f) {
  if (f->head == NULL || f->head_at != 0 || f->head_len == 0) {
    return;
  }
  pthread_mutex_lock(&lock);
  known_url *k = find_known(f->url);
  if (k != NULL && k->head == NULL) {
    if (kept_count == KEPT_HEADS) {
      known_url *old = &known[kept[0]];
      free(old->head);
      old->head = NULL;
      memmove(kept, kept + 1, (KEPT_HEADS - 1) * sizeof *kept);
      kept_count--;
    }
    k->head = f->head;
    k->head_len = f->head_len;
    kept[kept_count++] = (size_t)(k - known);
    f->head = NULL;
  }
  pthread_mutex_unlock(&lock);
}

void http_close(http_file *f) {
  if (f != NULL) {
    keep_head(f);
    free(f->head);
    free(f->url);
    free(f);
  }
}
