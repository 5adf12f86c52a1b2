/* Files an earlier run left beside an output set's outputs, named in one warning. */
#include "outputs_stale.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "error.h"

typedef struct stale_file {
  uint64_t index; /* a prefix set's k; 0 in a folder set */
  char *name;
} stale_file;

/* Whether `name` is BASE, a decimal index without leading zeros, then ".npy"; stores the index. */
static int prefix_index(const char *name, const char *base, uint64_t *index) {
  size_t n = strlen(base);
  if (strncmp(name, base, n) != 0) {
    return 0;
  }
  const char *c = name + n;
  uint64_t k = 0;
  size_t digits = 0;
  for (; *c >= '0' && *c <= '9'; c++, digits++) {
    if (digits == 19 || (digits > 0 && k == 0)) {
      return 0; /* too long for an index, or a leading zero */
    }
    k = k * 10 + (uint64_t)(*c - '0');
  }
  if (digits == 0 || strcmp(c, ".npy") != 0) {
    return 0;
  }
  *index = k;
  return 1;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether folder entry `name` is a watched file that is not one of the set's outputs. Hidden
 * names (this run's temporaries among them) are never counted. */
static int folder_stale(const out_set *set, const char *name) {
  if (name[0] == '.') {
    return 0;
  }
  int watched = 0;
  for (size_t i = 0; set->stale_suffixes[i] != NULL && !watched; i++) {
    watched = ends_with(name, set->stale_suffixes[i]);
  }
  size_t dir_length = strlen(set->dir);
  for (size_t i = 0; i < set->count && watched; i++) {
    watched = strcmp(set->finals[i] + dir_length, name) != 0;
  }
  for (size_t i = 0; set->expected != NULL && set->expected[i] != NULL && watched; i++) {
    watched = strcmp(set->expected[i], name) != 0;
  }
  return watched;
}

/* Prefix sets in index order (x_3 before x_11), folder sets by name. */
static int compare_stale(const void *a, const void *b) {
  const stale_file *x = a, *y = b;
  if (x->index != y->index) {
    return x->index < y->index ? -1 : 1;
  }
  return strcmp(x->name, y->name);
}

/* PREFIX_k.npy, composed here as outputs.c composes it (this file only reads the set). */
static void prefix_path(const out_set *set, uint64_t k, char *buf, size_t size) {
  snprintf(buf, size, "%s%llu.npy", set->final_head, (unsigned long long)k);
}

static void stale_path(const out_set *set, const stale_file *f, char *buf, size_t size) {
  if (set->folder) {
    snprintf(buf, size, "%s%s", set->dir, f->name);
  } else {
    prefix_path(set, f->index, buf, size);
  }
}

/* What the run wrote, for the message: "it wrote x_0.npy to x_3.npy", "it wrote 3 files". */
static void describe_outputs(const out_set *set, char *buf, size_t size) {
  if (set->count == 0) {
    snprintf(buf, size, "it wrote none");
    return;
  }
  if (set->folder) {
    snprintf(buf, size, "it wrote %zu %s", set->count, tool_plural(set->count, "file", "files"));
    return;
  }
  char a[OUT_PATH_BUF], b[OUT_PATH_BUF];
  prefix_path(set, 0, a, sizeof a);
  prefix_path(set, set->count - 1, b, sizeof b);
  snprintf(buf, size, "it wrote %s%s%s", a, set->count > 1 ? " to " : "", set->count > 1 ? b : "");
}

static void warn(const out_set *set, const stale_file *found, size_t count) {
  char first[OUT_PATH_BUF], last[OUT_PATH_BUF], wrote[2 * OUT_PATH_BUF + 64];
  stale_path(set, &found[0], first, sizeof first);
  stale_path(set, &found[count - 1], last, sizeof last);
  describe_outputs(set, wrote, sizeof wrote);
  /* A folder set's leftovers are files a loader of the folder would take for the model's. */
  const char *why = !set->folder ? ""
                    : count == 1 ? " (a loader of the folder would read it with the new files)"
                                 : " (a loader of the folder would read them with the new files)";
  tool_error text;
  if (count == 1) {
    tool_fail(&text, 0,
              "'%s' is not one of this run's outputs (%s) and was left as it was; delete it if an "
              "earlier run left it%s",
              first, wrote, why);
  } else if (count == 2) {
    tool_fail(&text, 0,
              "'%s' and '%s' are not among this run's outputs (%s) and were left as they were; "
              "delete them if an earlier run left them%s",
              first, last, wrote, why);
  } else {
    tool_fail(&text, 0,
              "%zu files from '%s' to '%s' are not among this run's outputs (%s) and were left as "
              "they were; delete them if an earlier run left them%s",
              count, first, last, wrote, why);
  }
  tool_scrub(&text); /* a folder's names are anyone's */
  cli_warning("%s", text.message);
}

void out_stale_warn(const out_set *set) {
  if (set->folder && set->stale_suffixes == NULL) {
    return;
  }
  const char *base = NULL;
  if (!set->folder) {
    base = strrchr(set->final_head, '/');
    base = base != NULL ? base + 1 : set->final_head;
  }
  DIR *dir = opendir(set->dir);
  if (dir == NULL) {
    return;
  }
  stale_file *found = NULL;
  size_t count = 0, capacity = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    uint64_t k = 0;
    if (set->folder ? !folder_stale(set, entry->d_name)
                    : !prefix_index(entry->d_name, base, &k) || k < set->count) {
      continue;
    }
    if (count == capacity) {
      size_t grown = capacity == 0 ? 16 : capacity * 2;
      stale_file *more = realloc(found, grown * sizeof *found);
      if (more == NULL) {
        break;
      }
      found = more;
      capacity = grown;
    }
    found[count].index = k;
    found[count].name = strdup(entry->d_name);
    if (found[count].name == NULL) {
      break;
    }
    count++;
  }
  closedir(dir);
  if (count > 0) {
    qsort(found, count, sizeof *found, compare_stale);
    warn(set, found, count);
  }
  for (size_t i = 0; i < count; i++) {
    free(found[i].name);
  }
  free(found);
}
