/* tools/checkpoint's write queue (ckpt_writeq.h): writes land where and as they were put,
 * whether the second thread or the caller made them (the caller's buffer free again on return,
 * writes longer than a slot cut), a failed write is reported once with its file and
 * offset and stops the queue, and the queue is not made with one CPU or CLEAVE_WRITE_THREAD=0.
 * Also run under ThreadSanitizer in CI (.ci/run). */
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ckpt_writeq.h"

#define FILE_BYTES 65536

static char tmpdir[64];

static int make_dir(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "/tmp/cleave-writeq-XXXXXX");
  return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int remove_dir(void **state) {
  (void)state;
  char cmd[96];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

static int two_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

/* A queue, or the test skipped on a machine of one CPU (the queue is not made there). */
static ckpt_writeq *start(size_t slot_bytes, size_t slots) {
  ckpt_writeq *q = NULL;
  assert_int_equal(ckpt_writeq_start(&q, slot_bytes, slots), 0);
  if (q == NULL) {
    assert_false(two_cpus());
    skip();
  }
  return q;
}

static void read_back(const char *path, unsigned char *buf, size_t size) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fread(buf, 1, size, f), size);
  fclose(f);
}

/* Hundreds of writes of 1 or 2 slots each, at places in a shuffled order, from one buffer
 * overwritten as soon as each put returns (three slots: most puts find them taken and write
 * themselves), then one write of many slots: every byte lands where it was put. */
static void test_writes_land(void **state) {
  (void)state;
  char path[96];
  snprintf(path, sizeof path, "%s/land", tmpdir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  ckpt_writeq *q = start(64, 3);
  static unsigned char want[FILE_BYTES + 200], got[FILE_BYTES + 200];
  unsigned char buf[200];
  size_t starts[FILE_BYTES / 100 + 1], count = 0;
  for (size_t at = 0; at < FILE_BYTES; at += 100) {
    starts[count++] = at;
  }
  srand(7);
  for (size_t i = count - 1; i > 0; i--) {
    size_t j = (size_t)rand() % (i + 1), t = starts[i];
    starts[i] = starts[j];
    starts[j] = t;
  }
  for (size_t i = 0; i < count; i++) {
    size_t n = FILE_BYTES - starts[i] < 100 ? FILE_BYTES - starts[i] : 100;
    for (size_t k = 0; k < n; k++) {
      buf[k] = (unsigned char)(starts[i] * 7 + k * 13);
    }
    memcpy(want + starts[i], buf, n);
    assert_int_equal(ckpt_writeq_put(q, fd, path, buf, n, starts[i]), 0);
    memset(buf, 0xAA, sizeof buf); /* the queue holds its own copy */
  }
  /* One write of many slots at once. */
  for (size_t k = 0; k < sizeof buf; k++) {
    buf[k] = (unsigned char)(255 - k);
  }
  memcpy(want + FILE_BYTES, buf, sizeof buf);
  assert_int_equal(ckpt_writeq_put(q, fd, path, buf, sizeof buf, FILE_BYTES), 0);
  assert_int_equal(ckpt_writeq_drain(q), 0);
  read_back(path, got, sizeof got);
  assert_memory_equal(got, want, sizeof want);
  ckpt_writeq_stop(q);
  close(fd);
}

/* ckpt_writeq_stop makes the writes still queued. */
static void test_stop_writes_all(void **state) {
  (void)state;
  char path[96];
  snprintf(path, sizeof path, "%s/stop", tmpdir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  ckpt_writeq *q = start(1024, 4);
  static unsigned char want[4096], got[4096];
  for (size_t i = 0; i < sizeof want; i++) {
    want[i] = (unsigned char)(i * 31);
  }
  assert_int_equal(ckpt_writeq_put(q, fd, path, want, sizeof want, 0), 0);
  ckpt_writeq_stop(q);
  read_back(path, got, sizeof got);
  assert_memory_equal(got, want, sizeof want);
  close(fd);
}

/* Runs `fn` with stderr going to a file; returns what was printed (malloc'd). */
static char *captured(int (*fn)(void *), void *arg, int *status) {
  char path[96];
  snprintf(path, sizeof path, "%s/stderr", tmpdir);
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  assert_true(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  *status = fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  static char text[4096];
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  return strdup(text);
}

typedef struct failing {
  ckpt_writeq *q;
  int fd;
  const char *path;
  int statuses[4];
} failing;

/* Puts three writes to a descriptor open read-only, then drains twice. */
static int put_and_drain(void *arg) {
  failing *f = arg;
  unsigned char buf[128] = {1}; /* one slot: the first put is queued before anything fails */
  f->statuses[0] = ckpt_writeq_put(f->q, f->fd, f->path, buf, sizeof buf, 512);
  ckpt_writeq_drain(f->q);
  f->statuses[1] = ckpt_writeq_put(f->q, f->fd, f->path, buf, sizeof buf, 1024);
  f->statuses[2] = ckpt_writeq_drain(f->q);
  f->statuses[3] = ckpt_writeq_drain(f->q);
  return 0;
}

/* A failed write: reported once, naming the file and the offset; every later put and drain
 * returns its status (74) and queues nothing. */
static void test_failure(void **state) {
  (void)state;
  char path[96];
  snprintf(path, sizeof path, "%s/readonly", tmpdir);
  FILE *touch = fopen(path, "w");
  assert_non_null(touch);
  fclose(touch);
  failing f = {start(128, 2), open(path, O_RDONLY), path, {0}};
  assert_true(f.fd >= 0);
  int status = 0;
  char *text = captured(put_and_drain, &f, &status);
  assert_int_equal(f.statuses[0], 0); /* queued: the failure comes later */
  assert_int_equal(f.statuses[1], 74);
  assert_int_equal(f.statuses[2], 74);
  assert_int_equal(f.statuses[3], 74);
  char want[160];
  snprintf(want, sizeof want, "writing '%s' failed at offset 512", path);
  char *first = strstr(text, want);
  assert_non_null(first);
  assert_null(strstr(first + strlen(want), "failed")); /* printed once */
  free(text);
  ckpt_writeq_stop(f.q);
  close(f.fd);
}

/* No queue with CLEAVE_WRITE_THREAD=0 or on one CPU; a value other than 0 or 1 is warned about. */
static void test_when_made(void **state) {
  (void)state;
  ckpt_writeq *q = NULL;
  setenv("CLEAVE_WRITE_THREAD", "0", 1);
  assert_int_equal(ckpt_writeq_start(&q, 64, 2), 0);
  assert_null(q);
  setenv("CLEAVE_WRITE_THREAD", "1", 1);
  assert_int_equal(ckpt_writeq_start(&q, 64, 2), 0);
  assert_true(q != NULL || !two_cpus());
  ckpt_writeq_stop(q);
  unsetenv("CLEAVE_WRITE_THREAD");
  cpu_set_t all, one;
  assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&one);
  for (size_t c = 0; c < CPU_SETSIZE; c++) {
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  }
  assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
  assert_int_equal(ckpt_writeq_start(&q, 64, 2), 0);
  assert_null(q);
  assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
}

static int start_with_bad_value(void *arg) {
  ckpt_writeq **q = arg;
  setenv("CLEAVE_WRITE_THREAD", "yes", 1);
  int rc = ckpt_writeq_start(q, 64, 2);
  unsetenv("CLEAVE_WRITE_THREAD");
  return rc;
}

static void test_bad_value(void **state) {
  (void)state;
  ckpt_writeq *q = NULL;
  int status = -1;
  char *text = captured(start_with_bad_value, &q, &status);
  assert_int_equal(status, 0);
  assert_non_null(strstr(text, "CLEAVE_WRITE_THREAD='yes' is not 0 or 1: using 1"));
  assert_true(q != NULL || !two_cpus());
  ckpt_writeq_stop(q);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_writes_land), cmocka_unit_test(test_stop_writes_all),
      cmocka_unit_test(test_failure),     cmocka_unit_test(test_when_made),
      cmocka_unit_test(test_bad_value),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
