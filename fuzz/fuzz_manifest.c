/* Fuzz target: the manifest reader of `cleave st verify`
 * (tools/checkpoint/verify/ckpt_manifest_read.c).
 *
 * The input is a whole cleave-manifest.json, read from a memory file descriptor. A failure must
 * be CLI_EXIT_DATA (or CLI_EXIT_SOFTWARE for an allocation failure) with a message naming the
 * file; an accepted manifest's tensors must lie inside their files in order, and every row of
 * every piece inside its tensor and its input (what verify then reads relies on it). For each
 * tensor of at most TILING_MAX bytes, ckpt_mf_tiling must say that its pieces cover it exactly
 * once when, and only when, counting the bytes each piece covers says so. A manifest accepted
 * as proved ends with its checksum of itself, the XXH3-64 of the bytes before it; a version-2
 * manifest is never accepted unproved. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ckpt_hash.h"
#include "ckpt_manifest.h"
#include "ckpt_manifest_read.h"
#include "cli_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_piece(const ckpt_manifest *mf, const ckpt_mf_tensor *t, const ckpt_mf_piece *p) {
  if (p->input >= mf->input_count) {
    abort();
  }
  if (p->rows == 0 || p->take == 0) {
    return;
  }
  /* The last row's end, in 128 bits so that the check cannot overflow itself. */
  unsigned __int128 out_end =
      (unsigned __int128)(p->rows - 1) * p->to_stride + p->to + (unsigned __int128)p->take;
  unsigned __int128 in_end =
      (unsigned __int128)(p->rows - 1) * p->stride + p->offset + (unsigned __int128)p->take;
  if (out_end > t->bytes || in_end > mf->inputs[p->input].bytes) {
    abort();
  }
}

/* Tensors whose coverage is counted byte by byte. */
#define TILING_MAX 4096

static void check_tiling(const char *path, const ckpt_mf_tensor *t) {
  static unsigned char count[TILING_MAX];
  if (t->bytes > TILING_MAX) {
    return;
  }
  memset(count, 0, (size_t)t->bytes);
  int once = 1;
  for (size_t s = 0; s < t->piece_count; s++) {
    const ckpt_mf_piece *p = &t->pieces[s];
    for (uint64_t r = 0; p->take > 0 && r < p->rows && once; r++) {
      for (uint64_t b = 0; b < p->take && once; b++) {
        once = ++count[p->to + r * p->to_stride + b] == 1;
      }
    }
  }
  for (uint64_t b = 0; b < t->bytes && once; b++) {
    once = count[b] == 1;
  }
  tool_error err;
  int rc = ckpt_mf_tiling(path, "files[0].tensors[0]", t, &err);
  if (rc == CLI_EXIT_SOFTWARE) {
    return;
  }
  if ((rc == 0) != once ||
      (rc != 0 && (rc != CLI_EXIT_DATA || strstr(err.message, path) == NULL))) {
    abort();
  }
}

/* The checksum of itself of a manifest accepted as proved, checked again on the input. */
static void check_proof(const ckpt_manifest *mf, const uint8_t *data, size_t size) {
  static const char head[] = CKPT_MANIFEST_SELF_HEAD, tail[] = CKPT_MANIFEST_SELF_TAIL;
  size_t nh = sizeof head - 1, nt = sizeof tail - 1, n = nh + 16 + nt;
  if (!mf->proved) {
    /* Unproved only as a version-1 manifest without the member. */
    json_t *root = mf->root;
    if (json_integer_value(json_object_get(root, "version")) != 1 ||
        json_object_get(root, CKPT_MANIFEST_SELF) != NULL) {
      abort();
    }
    return;
  }
  char hex[CKPT_HASH_HEX];
  if (size < n || memcmp(data + size - n, head, nh) != 0 || memcmp(data + size - nt, tail, nt)) {
    abort();
  }
  ckpt_hash_hex(ckpt_hash_bytes(data, size - n), hex);
  if (memcmp(hex, data + size - n + nh, 16) != 0) {
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("manifest", 0);
  if (fd < 0) {
    return 0;
  }
  size_t done = 0;
  while (done < size) {
    ssize_t k = write(fd, data + done, size - done);
    if (k <= 0) {
      close(fd);
      return 0;
    }
    done += (size_t)k;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ckpt_manifest mf;
  tool_error err;
  int rc = ckpt_manifest_read(path, &mf, &err);
  if (rc != 0) {
    if ((rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) || strstr(err.message, path) == NULL) {
      abort();
    }
  } else {
    check_proof(&mf, data, size);
    for (size_t i = 0; i < mf.file_count; i++) {
      const ckpt_mf_file *f = &mf.files[i];
      uint64_t end = 0;
      for (size_t k = 0; k < f->tensor_count; k++) {
        const ckpt_mf_tensor *t = &f->tensors[k];
        if (t->offset < end || t->bytes > f->bytes || t->offset > f->bytes - t->bytes) {
          abort();
        }
        end = t->offset + t->bytes;
        for (size_t s = 0; s < t->piece_count; s++) {
          check_piece(&mf, t, &t->pieces[s]);
        }
        check_tiling(path, t);
      }
    }
  }
  ckpt_manifest_free(&mf);
  close(fd);
  return 0;
}
