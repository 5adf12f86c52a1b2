/*
 * The one pattern of a run's temporaries, and what a run (or `verify`) does with those of the
 * runs that died before cleaning up.
 *
 * Every run that writes outputs writes them into one staging folder, ".NAME.cleave-tmp-PID-RANDOM"
 * (NAME: what the outputs are named after: the output folder, the prefix's file name, the output
 * file), and holds a lock on it (flock, LOCK_EX) until it ends; while it commits, a journal
 * ".NAME.cleave-tmp-PID-RANDOM.commit" sits beside it (outputs_commit.h). A staging folder that no
 * process holds a lock on belongs to a run that died (kill -9, a power loss): the lock, not the
 * PID, tells, so a PID used again by another process does not keep debris alive. Any hidden entry
 * whose name holds ".cleave-tmp-" is a temporary of some cleave run (also the per-file temporaries
 * of earlier versions, which held no lock: they count as dead).
 *
 * Not thread-safe (one output set per process).
 */
#ifndef CLEAVE_CLI_OUTPUTS_STAGING_H
#define CLEAVE_CLI_OUTPUTS_STAGING_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

/** What every temporary's name holds. */
#define OUT_TEMP_MARK ".cleave-tmp-"
/** What a commit's journal's name adds to its staging folder's. */
#define OUT_JOURNAL_SUFFIX ".commit"

/**
 * Makes the staging folder ".NAME.cleave-tmp-PID-RANDOM" of `name` in the folder `dir_fd` (mode
 * 0777 less the umask, as any folder), opens it and locks it for the rest of the process (the
 * descriptor is close-on-exec). A NAME too long for a file name is cut (out_stage_prefix). Stores
 * the folder's name (malloc'd) and descriptor. Returns 0, or -1 with errno set.
 */
int out_stage_make(int dir_fd, const char *name, char **stage_name, int *stage_fd);

/**
 * The start every temporary of `name` has, ".NAME.cleave-tmp-" (NAME cut as out_stage_make cuts
 * it), written to buf. Returns buf.
 */
char *out_stage_prefix(const char *name, char *buf, size_t size);

/**
 * The entries of the folder `fd` from the first, read through a descriptor of their own (`fd`
 * stays open; closedir releases the stream). NULL with errno set on failure.
 */
DIR *out_dir_entries(int fd);

/** Whether a folder entry's name is a cleave temporary: hidden and holding OUT_TEMP_MARK. */
int out_temp_name(const char *entry);

/** One temporary of a dead run, found by out_temps_dead: its name in the folder, and (for a
 * staging folder) its descriptor, locked until out_temps_free. */
typedef struct out_temp {
  char *name;
  int fd;     /* -1 for a file */
  int is_dir; /* a staging folder (with its journal, if any, handled with it) */
  uint64_t bytes;
  size_t files;
} out_temp;

/**
 * The temporaries in the folder `dir_fd` that no run holds (dead runs'): every hidden entry whose
 * name holds OUT_TEMP_MARK when `prefix` is NULL, else those starting with `prefix` (from
 * out_stage_prefix). A journal is listed only without its staging folder. Each one found is
 * locked (`lock`: for removal, exclusive) or only probed (0: the lock is released at once, for
 * `verify`, which removes nothing). Their sizes are counted (the bytes of the files they hold).
 * Stores a malloc'd array (free with out_temps_free) and its length. Returns 0, or -1 when the
 * folder cannot be read (errno set).
 */
int out_temps_dead(int dir_fd, const char *prefix, int lock, out_temp **found, size_t *count);

/** Releases what out_temps_dead returned (closing the locks it holds). */
void out_temps_free(out_temp *found, size_t count);

/**
 * Removes the entry `name` of `dir_fd` and, when it is a folder, everything in it, adding the bytes
 * and files removed to `*bytes` and `*files` (either may be NULL). Symbolic links are removed,
 * never followed. Returns 0, or -1 with errno of the first failure (the rest is still tried).
 */
int out_remove_tree(int dir_fd, const char *name, uint64_t *bytes, size_t *files);

#endif /* CLEAVE_CLI_OUTPUTS_STAGING_H */
