/*
 * The output files of one cleave run, written all-or-nothing. One machinery serves two kinds of
 * output set:
 *
 * - from a PREFIX (the .npy commands, `cleave ir-run`): output i goes to PREFIX_i.npy, its
 *   temporary is ".BASE_i.npy.cleave-tmp-PID-RANDOM" in the same directory;
 * - in a folder (`cleave st split|shard`): output i goes to OUTDIR/NAME_i for a list of file names
 *   (renamed in that order, so the caller puts an index last), its temporary is
 *   "OUTDIR/.cleave-tmp-PID-RANDOM-i". OUTDIR is created when missing, and removed again on
 *   failure when this run created it. An output that would replace one of the given input files
 *   is refused without --force; with it the input is replaced by a rename, never written in place;
 * - one named file (`cleave concat -o OUT.npy`): the output is PATH itself, its temporary
 *   "DIR/.NAME.cleave-tmp-PID-RANDOM-0" beside it; its directory must exist (it is not created),
 *   and an output that is one of the inputs is treated as in a folder set.
 *
 * Each output is first written to its temporary file; only when every output is complete are they
 * renamed into place (with signals blocked, so that an interrupt cannot leave half of them
 * renamed). Until then SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove every temporary file
 * (and a folder this run created) before the process dies of the signal, and SIGXFSZ is ignored so
 * that exceeding the file-size limit is an ordinary write error. Without --force an existing output
 * is never replaced, even one that appears while the outputs are being written.
 *
 * Only one output set may be active in a process at a time (the signal handler needs static
 * state). Not thread-safe.
 */
#ifndef CLEAVE_CLI_OUTPUTS_H
#define CLEAVE_CLI_OUTPUTS_H

#include <limits.h>
#include <stddef.h>

/** A buffer that holds any path of a prefix set (and any path the system can open). */
#define OUT_PATH_BUF (PATH_MAX + 96)

/** The outputs of one run. Fields are private to outputs.c. */
typedef struct out_set {
  size_t count;
  int force;
  int sync;
  int folder;       /* made by out_set_init_folder (or out_set_init_file) */
  int file;         /* made by out_set_init_file: one named file */
  char *final_head; /* PREFIX "_" (prefix sets) */
  char **finals;    /* the final paths (folder sets) */
  char *temp_head;  /* temporary i: temp_head, i in decimal, temp_tail */
  char *temp_tail;
  char *dir;        /* the directory of the outputs, for fsync (folder sets: with a trailing '/') */
  int made_dir;     /* this run created the folder */
  int active;       /* temporaries may exist */
  int replace_last; /* the last output may replace a file without force (folder sets) */
  const char *const *stale_suffixes; /* out_set_watch_stale */
  unsigned limit;  /* out_set_limit_mode: the bits group and others may have (0: 0066) */
  unsigned *modes; /* out_set_copy_mode, per output: OUT_MODE_SET | the bits; then OUT_MODE_FIX
                      when out_set_close must set them (they lack the owner's read or write) */
} out_set;

/** Flags of out_set.modes (private to outputs.c). */
#define OUT_MODE_SET 0x10000u
#define OUT_MODE_FIX 0x20000u

/**
 * Prepares `count` outputs named from `prefix`. `force` allows replacing existing outputs;
 * `sync` makes the files and the directory durable (fsync) before returning from commit.
 * Returns 0, or prints an error and returns CLI_EXIT_CANTCREAT (prefix too long) or
 * CLI_EXIT_SOFTWARE.
 */
int out_set_init(out_set *set, const char *prefix, size_t count, int force, int sync);

/**
 * Prepares `count` outputs `names` (file names, in rename order) in folder `dir`. Refuses (prints
 * an error, returns CLI_EXIT_CANTCREAT) an output that exists as a directory, and without `force`
 * one that exists, naming it "one of the inputs" when it is the same file as one of the
 * `input_count` paths `inputs`. With `replace_last` the last output replaces a file of its name
 * even without `force` (a file that describes the set, such as a checkpoint's manifest: it is
 * renamed last, so a failed commit never removed the old one). Returns 0 or an exit status; call
 * out_set_free in either case.
 */
int out_set_init_folder(out_set *set, const char *dir, char *const *names, size_t count,
                        const char *const *inputs, size_t input_count, int force, int sync,
                        int replace_last);

/**
 * Prepares one output, the file `path` (as given: its directory, "." when it has none, must
 * exist). Refuses (prints an error, returns CLI_EXIT_CANTCREAT) a path ending in '/', an output
 * that exists as a directory, and without `force` one that exists, naming it "one of the inputs"
 * when it is the same file as one of the `input_count` paths `inputs`. Returns 0 or an exit
 * status; call out_set_free in either case.
 */
int out_set_init_file(out_set *set, const char *path, const char *const *inputs, size_t input_count,
                      int force, int sync);

/**
 * The PREFIX of a run on `input` given `-o output` (NULL when -o was not given): `output` itself;
 * or, when `output` ends with '/' or names an existing directory, the outputs go inside it:
 * "output/STEM" with STEM the input's file name without `suffix` (as out_default_prefix cuts
 * it); without -o, out_default_prefix(input, suffix). Returns a malloc'd string (the caller
 * frees it), or NULL when out of memory.
 */
char *out_resolve_prefix(const char *output, const char *input, const char *suffix);

/**
 * The default PREFIX of a run on `input`: its path without `suffix` (".npy", ".xml") when it ends
 * with it after at least one other character, otherwise the whole path. Returns a malloc'd string
 * (the caller frees it), or NULL when out of memory.
 */
char *out_default_prefix(const char *input, const char *suffix);

/**
 * Makes a folder set's commit warn about the files of its folder whose names end with one of
 * `suffixes` (a NULL-terminated list the caller keeps until the commit) and that are not among
 * its outputs: an earlier run's other shards, which a loader of the folder would read with the
 * new files. Without it a folder set gives no such warning.
 */
void out_set_watch_stale(out_set *set, const char *const *suffixes);

/**
 * The permission bits of outputs made from input data: created with 0666 less the umask, as
 * always, and then with no bit for the group or others that `widest` (the union of the inputs'
 * permission bits) lacks, so that a private input never gives a readable output. The owner's
 * read and write stay. Call before out_set_create; without it the outputs are 0666 less the
 * umask.
 */
void out_set_limit_mode(out_set *set, unsigned widest);

/**
 * Output i is a copy of a file whose permission bits are `mode` (st_mode): it is created with
 * those bits (setuid, setgid and sticky dropped) less the umask, as `cp` does, so never wider
 * than its source. Bits that deny the owner reading or writing are set when out_set_close
 * closes it (until then the run must write it). Call before out_set_create. Returns 0, or prints
 * an error and returns CLI_EXIT_SOFTWARE (out of memory).
 */
int out_set_copy_mode(out_set *set, size_t i, unsigned mode);

/** Writes the final path of output i (e.g. "PREFIX_i.npy") to buf. */
void out_set_final_path(const out_set *set, size_t i, char *buf, size_t size);

/** The final path of output i, whole: a folder set's stored path, or a prefix set's composed in
 * buf (of OUT_PATH_BUF bytes). For messages. */
const char *out_set_final(const out_set *set, size_t i, char *buf, size_t size);

/**
 * Prefix sets: refuses existing outputs (without --force) and outputs that are directories.
 * Folder sets: creates the folder when missing. Then creates every temporary file (empty) and
 * installs the signal handlers. Returns 0 or prints an error and returns CLI_EXIT_CANTCREAT; on
 * failure nothing is left behind.
 */
int out_set_create(out_set *set);

/**
 * Opens the temporary file of output i for writing and stores the descriptor in `*fd`. Returns 0
 * or prints an error and returns CLI_EXIT_IOERR.
 */
int out_set_open(const out_set *set, size_t i, int *fd);

/** Opens the temporary file of output i for reading (a complete output read back, e.g. to
 * checksum it) and stores the descriptor in `*fd` (close it with close). Returns 0 or prints an
 * error and returns CLI_EXIT_IOERR. */
int out_set_open_read(const out_set *set, size_t i, int *fd);

/**
 * Closes a descriptor from out_set_open, after an fsync when the set was made with `sync` (and
 * after setting the bits of a copy that denies its owner reading or writing, out_set_copy_mode).
 * Returns 0 or prints an error naming output i and returns CLI_EXIT_IOERR.
 */
int out_set_close(const out_set *set, size_t i, int fd);

/**
 * Renames every temporary file to its final name, in order. The set then warns on stderr about
 * the files beside its outputs that an earlier run may have left (outputs_stale.h: a prefix
 * set's PREFIX_k.npy with k >= count, a folder set's watched files; they are not touched). Returns
 * 0; or, when a rename fails, undoes the renames it can (an output that replaced an existing file
 * under --force cannot be undone: the message says so), removes the temporaries (and a folder this
 * run created), prints an error and returns CLI_EXIT_CANTCREAT (an output appeared meanwhile) or
 * CLI_EXIT_IOERR.
 */
int out_set_commit(out_set *set);

/** Removes every temporary file (and a folder this run created) after a failure. Safe to call
 * more than once. */
void out_set_abort(out_set *set);

/** Releases the memory of the set (after commit or abort). */
void out_set_free(out_set *set);

#endif /* CLEAVE_CLI_OUTPUTS_H */
