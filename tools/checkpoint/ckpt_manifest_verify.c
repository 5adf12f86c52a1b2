/* verify: the outputs against their manifest. */
#include "ckpt_manifest_verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_against.h"
#include "ckpt_hash.h"
#include "ckpt_manifest.h"
#include "ckpt_manifest_read.h"
#include "ckpt_verify_report.h"
#include "cli_util.h"

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir);
  char *path = NULL;
  if (asprintf(&path, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name) < 0) {
    return NULL;
  }
  return path;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The entries of OUTDIR the manifest does not list (hidden files aside: temporaries). */
static int extra_files(const char *outdir, const ckpt_manifest *mf, ckpt_differences *d) {
  DIR *dir = opendir(outdir);
  if (dir == NULL) {
    return cli_error(CLI_EXIT_NOINPUT, "cannot read the folder '%s': %s", outdir, strerror(errno));
  }
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, CKPT_MANIFEST_NAME) == 0) {
      continue;
    }
    size_t i = 0;
    while (i < mf->file_count && strcmp(mf->files[i].name, e->d_name) != 0) {
      i++;
    }
    if (i == mf->file_count) {
      ckpt_diff_add(d, e->d_name, NULL, -1, -1,
                    "is in the output folder but not in the manifest (an extra file)");
    }
  }
  closedir(dir);
  return 0;
}

/* The tensor that holds file byte `at` (or the first after it), or NULL. */
static const ckpt_mf_tensor *tensor_at(const ckpt_mf_file *f, uint64_t at) {
  for (size_t k = 0; k < f->tensor_count; k++) {
    const ckpt_mf_tensor *t = &f->tensors[k];
    if (t->bytes > 0 && t->offset + t->bytes > at) {
      return t;
    }
  }
  return NULL;
}

/* A file of another size than the manifest says. */
static void wrong_size(const ckpt_mf_file *f, uint64_t size, ckpt_differences *d) {
  if (size > f->bytes) {
    ckpt_diff_add(d, f->name, NULL, (int64_t)f->bytes, -1,
                  "has %llu bytes, %llu more than the manifest says", (unsigned long long)size,
                  (unsigned long long)(size - f->bytes));
    return;
  }
  const ckpt_mf_tensor *t = tensor_at(f, size);
  if (t == NULL) {
    ckpt_diff_add(d, f->name, NULL, (int64_t)size, -1,
                  "is cut short: %llu bytes, the manifest says %llu", (unsigned long long)size,
                  (unsigned long long)f->bytes);
    return;
  }
  uint64_t at = size > t->offset ? size : t->offset;
  ckpt_diff_add(d, f->name, t->name, (int64_t)at, (int64_t)(at - t->offset),
                "the file is cut short: %llu bytes, the manifest says %llu",
                (unsigned long long)size, (unsigned long long)f->bytes);
}

/* The header of a data file whose bytes are what was written must say what the manifest says. */
static int compare_header(const ckpt_mf_file *f, const char *path, const ckpt_file *h) {
  const char *problem = NULL;
  size_t k = 0;
  if (h->tensor_count != f->tensor_count) {
    return cli_error(CLI_EXIT_DATA,
                     "the manifest does not match '%s': it lists %zu tensors, the file's header "
                     "has %zu",
                     path, f->tensor_count, h->tensor_count);
  }
  for (; k < f->tensor_count && problem == NULL; k++) {
    const ckpt_mf_tensor *m = &f->tensors[k];
    const ckpt_tensor *t = &h->tensors[k];
    if (strcmp(m->name, t->name) != 0) {
      problem = "name";
    } else if (strcmp(m->dtype, t->dtype->name) != 0) {
      problem = "dtype";
    } else if (m->ndim != t->ndim ||
               (m->ndim > 0 && memcmp(m->shape, t->shape, (size_t)m->ndim * sizeof *m->shape))) {
      problem = "shape";
    } else if (m->offset != t->offset || m->bytes != t->bytes) {
      problem = "byte range";
    }
  }
  if (problem != NULL) {
    tool_error err;
    tool_fail(&err, CLI_EXIT_DATA,
              "the manifest does not match '%s': tensors[%zu] ('%s') has another %s in the "
              "file's header ('%s')",
              path, k - 1, f->tensors[k - 1].name, problem, h->tensors[k - 1].name);
    tool_scrub(&err);
    return tool_report(&err);
  }
  return 0;
}

/* Checks output f: its size, its checksums, and a data file's header. */
static int verify_file(const ckpt_verify_options *o, const ckpt_mf_file *f, ckpt_differences *d,
                       int *same) {
  *same = 0;
  char *path = join(o->outdir, f->name);
  if (path == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 && errno == ENOENT) {
    ckpt_diff_add(d, f->name, NULL, -1, -1, "is missing (the manifest lists it)");
  } else if (fd < 0 || fstat(fd, &st) != 0) {
    rc = cli_error(CLI_EXIT_IOERR, "cannot open '%s': %s", path, strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    ckpt_diff_add(d, f->name, NULL, -1, -1, "is not a regular file");
  } else {
    uint64_t size = (uint64_t)st.st_size;
    if (size != f->bytes) {
      wrong_size(f, size, d);
    }
    uint64_t hashed = size < f->bytes ? size : f->bytes;
    /* The tensors that are whole in the file, in order of offset. */
    size_t n = 0;
    while (n < f->tensor_count && f->tensors[n].offset + f->tensors[n].bytes <= hashed) {
      n++;
    }
    ckpt_hash_range *ranges = calloc(n + 1, sizeof *ranges);
    if (ranges == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    for (size_t k = 0; ranges != NULL && k < n; k++) {
      ranges[k].offset = f->tensors[k].offset;
      ranges[k].bytes = f->tensors[k].bytes;
    }
    uint64_t whole = 0;
    tool_error err;
    if (rc == 0 && ckpt_hash_file(fd, path, hashed, ranges, n, 1, &whole, &err) != 0) {
      tool_scrub(&err);
      rc = tool_report(&err);
    }
    size_t differ = 0;
    for (size_t k = 0; rc == 0 && k < n; k++) {
      const ckpt_mf_tensor *t = &f->tensors[k];
      if (ranges[k].hash != t->hash) {
        differ++;
        ckpt_diff_add(d, f->name, t->name, -1, -1,
                      "its bytes differ from their checksum (bytes %llu to %llu of the file)",
                      (unsigned long long)t->offset, (unsigned long long)(t->offset + t->bytes));
      }
    }
    free(ranges);
    *same = rc == 0 && size == f->bytes && whole == f->hash;
    if (rc == 0 && size == f->bytes && whole != f->hash && differ == 0) {
      ckpt_diff_add(d, f->name, NULL, -1, -1,
                    f->kind == CKPT_MF_DATA
                        ? "bytes outside its tensors (the header or padding) differ from the "
                          "manifest's checksum"
                        : "its bytes differ from their checksum");
    }
  }
  if (rc == 0 && fd >= 0 && f->kind == CKPT_MF_DATA && o->read_header != NULL &&
      ends_with(f->name, o->header_suffix)) {
    ckpt_file h;
    memset(&h, 0, sizeof h);
    tool_error err;
    if (o->read_header(path, &h, &err) != 0) {
      tool_scrub(&err);
      ckpt_diff_add(d, f->name, NULL, -1, -1, "fails its check: %s", err.message);
    } else if (*same) {
      rc = compare_header(f, path, &h);
    }
    ckpt_file_free(&h);
  }
  if (fd >= 0) {
    close(fd);
  }
  free(path);
  return rc;
}

int ckpt_verify_outputs(const ckpt_verify_options *o) {
  char *path = join(o->outdir, CKPT_MANIFEST_NAME);
  if (path == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  ckpt_manifest mf;
  tool_error err;
  int rc = ckpt_manifest_read(path, &mf, &err);
  if (rc != 0) {
    tool_scrub(&err);
    tool_report(&err);
  }
  ckpt_differences d;
  memset(&d, 0, sizeof d);
  ckpt_verify_totals totals = {o->cmd, o->outdir, 0, 0, o->against_count, 0};
  ckpt_against_run *against = NULL;
  if (rc == 0 && o->against_count > 0) {
    rc = ckpt_against_start(o, &mf, &against);
  }
  if (rc == 0) {
    rc = extra_files(o->outdir, &mf, &d);
  }
  for (size_t i = 0; rc == 0 && i < mf.file_count; i++) {
    int same;
    rc = verify_file(o, &mf.files[i], &d, &same);
    totals.files++;
    totals.tensors += mf.files[i].tensor_count;
    totals.bytes += mf.files[i].bytes;
  }
  if (against != NULL) { /* its differences after the checksums', as they are found */
    int compared = ckpt_against_finish(against, &d);
    rc = rc == 0 ? compared : rc;
  }
  if (rc == 0 && d.oom) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (rc == 0) {
    rc = ckpt_diff_print(&d, &totals, o->json, o->quiet);
  }
  ckpt_diff_free(&d);
  ckpt_manifest_free(&mf);
  free(path);
  return rc;
}
