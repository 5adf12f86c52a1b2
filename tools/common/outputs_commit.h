/*
 * The commit of an output set: its staged outputs (outputs_staging.h) put in place in one step,
 * a failed commit taken back, and the commit of a run that died finished or undone by a later
 * run.
 *
 * - A folder of the run's own (OUTDIR), staged beside it: when OUTDIR does not exist, the staging
 *   folder is renamed to it. When it exists, the staging folder first gets a hard link of each of
 *   OUTDIR's entries that is not an output of the run (an earlier run's files, a user's), OUTDIR's
 *   mode, owner and extended attributes, and is then exchanged with OUTDIR (renameat2
 *   RENAME_EXCHANGE): at every instant the name OUTDIR is the old folder or the new one, each
 *   complete. Then the old folder's entries that are not outputs of the run (its folders, files
 *   that could not be linked, files that appeared meanwhile) are moved into the new folder, and
 *   what is left of the old folder (the replaced outputs) is removed.
 * - Files among others (a prefix set, one named file, a GGUF merge's file and its manifest; and
 *   OUTDIR when it cannot be exchanged: a mount point, the current folder's ancestor, an owner or
 *   attributes this process cannot give a new folder, a file system without RENAME_EXCHANGE): each
 *   output is moved into place in order, exchanged with the file it replaces (which lands in the
 *   staging folder), so that a failure at any point takes every one back and leaves the old files
 *   as they were. On a file system without RENAME_EXCHANGE (EINVAL) a file to be replaced is first
 *   kept in the staging folder's ".cleave-replaced" (a hard link, or the file moved there when it
 *   cannot be linked), then renamed over; a failure puts it back.
 *
 * Before its first rename a commit writes a journal beside the staging folder
 * (".NAME.cleave-tmp-PID-RANDOM.commit": what it is about to do and the inode of each new file),
 * removed when the commit is over. A run that finds the staging folder of a dead run with its
 * journal (outputs_staging.h) finishes the exchange (gives the old folder's entries back) or
 * undoes the moves (the old files back, the new ones removed), so that the files the dead run
 * left are the old outputs or the new ones, never a mix.
 *
 * CLEAVE_TEST_FAULT, a test hook (tests/README.md): "rename:N" makes the Nth rename of the commits
 * of the process fail (EIO), "kill:N" kills the process (SIGKILL) just before it, "nowait" makes a
 * commit lock another run holds refused at once instead of after a minute. Not for use.
 *
 * Not thread-safe; the caller blocks the signals it handles while a commit runs.
 */
#ifndef CLEAVE_CLI_OUTPUTS_COMMIT_H
#define CLEAVE_CLI_OUTPUTS_COMMIT_H

#include <stddef.h>

#include "error.h"
#include "outputs_staging.h"

/** What a commit puts where. */
typedef struct out_commit {
  int dir_fd;              /* the folder that holds the staging folder, locked (out_commit_lock) */
  const char *dir_path;    /* its path for messages: "" (the current folder) or ending in '/' */
  const char *stage_name;  /* the staging folder's name in it */
  int stage_fd;            /* the staging folder, locked by this run */
  const char *folder;      /* a folder of the run's own: its name in dir_fd and */
  const char *folder_path; /* its path for messages; NULL: files put into `target_fd` */
  int target_fd;           /* files among others: the folder they go into */
  char *const *names;      /* every output's file name, in order */
  size_t count;
  /* The final path of output i, for messages. */
  const char *(*final)(const void *ctx, size_t i, char *buf, size_t size);
  const void *final_ctx;
  int force;        /* outputs may replace files */
  int replace_last; /* the last output (a manifest) may replace a file without force */
  int sync;         /* fsync the folders and the journal */
  /* Asked before each rename of files placed one by one after the first: nonzero (a clean-up
   * signal is pending) takes back the renames made, as a failed one is. NULL: never. */
  int (*interrupted)(void);
} out_commit;

/**
 * Locks the folder open as `fd` against the commits of other runs (flock), waiting up to a minute
 * for another run's commit to end. Returns 0 (locked, or a file system without locks), or -1
 * when another run held it the whole minute.
 */
int out_commit_lock(int fd);

/**
 * The PID of the run committing into the folder `dir_fd`, read from the name of its journal
 * there, or 0 when there is none.
 */
long out_commit_holder(int dir_fd);

/**
 * Puts the outputs staged in c->stage_name in place. Returns 0; or fills `err` (the message
 * names the rename that failed and what was taken back) and returns CLI_EXIT_CANTCREAT (an output
 * appeared meanwhile, without force), CLI_EXIT_SOFTWARE (c->interrupted said so between two
 * renames) or CLI_EXIT_IOERR, after taking back every rename it made:
 * the staging folder then holds the new outputs not yet in place, for the caller to remove. On
 * success the staging folder is gone (renamed, or the old folder it became removed); a step after
 * the commit that fails (an entry of the old folder that cannot be put back) is a warning, and the
 * journal stays for the next run.
 */
int out_commit_run(const out_commit *c, tool_error *err);

/**
 * Finishes or undoes the commit of the dead run whose temporary `t` (from out_temps_dead, locked)
 * is in the folder `dir_fd`, as its journal says, then removes the temporary and its journal,
 * adding what was removed to t->bytes and t->files. Writes what was done to the files it had put
 * in place (or "" when nothing) to `note`, for the warning. Returns 0, or -1 when something could
 * not be undone or removed (the temporary stays, with its journal, for the next run; `note` says
 * why).
 */
int out_commit_recover(int dir_fd, out_temp *t, char *note, size_t size);

#endif /* CLEAVE_CLI_OUTPUTS_COMMIT_H */
