/*
 * The output files of one cleave run, written all-or-nothing. One machinery serves three kinds of
 * output set:
 *
 * - from a PREFIX (the .npy commands, `cleave ir-run`): output i goes to PREFIX_i.npy, among the
 *   other files of its folder, which must exist;
 * - a folder of the run's own (`cleave st split|shard|merge|reshard`, OUTDIR): output i goes to
 *   OUTDIR/NAME_i for a list of file names (renamed in that order, so the caller puts an index and
 *   a manifest last); OUTDIR is created when missing (its parent must exist), and an existing one
 *   keeps its other files;
 * - named files among others (`cleave concat -o OUT.npy`, a GGUF `merge -o OUT.gguf` with its
 *   manifest): their folder must exist.
 *
 * An output that would replace one of the given input files is refused without --force; with it
 * the input is replaced by a rename, never written in place.
 *
 * Every output is first written into the run's staging folder, ".NAME.cleave-tmp-PID-RANDOM",
 * which the run locks (outputs_staging.h): beside OUTDIR (NAME its name), or in the folder of the
 * files (NAME the prefix's or the file's name; inside OUTDIR when OUTDIR cannot be made beside
 * it). Only when every output is complete are they put in place (outputs_commit.h): OUTDIR by one
 * rename (renameat2 RENAME_EXCHANGE with an existing one), files among others one by one, each
 * exchanged with the file it replaces so that a failure takes them all back. The commit runs with
 * the signals below blocked, and under a lock of the folder it renames in (flock), so that two
 * runs into one place commit one after the other, each complete. Until then SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT and SIGPIPE remove the staging folder before the process dies of the signal, and
 * SIGXFSZ is ignored so that exceeding the file-size limit is an ordinary write error. Without
 * --force an existing output is never replaced, even one that appears while the outputs are being
 * written.
 *
 * Before anything else a set removes the temporaries of dead runs in its folder (OUTDIR's own
 * staging folders beside it, every temporary inside it; every temporary in the folder of the
 * files), finishing or undoing a commit a run died in, and names each in a warning with its size.
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

/** The outputs of one run. Fields are private to outputs.c (outputs_stale.c reads them). */
typedef struct out_set {
  size_t count;
  int force;
  int sync;
  int folder;       /* named files: out_set_init_folder, out_set_init_files, out_set_init_file */
  int file;         /* one named file: out_set_init_file */
  char *final_head; /* PREFIX "_" (prefix sets) */
  char **finals;    /* the final paths (named files) */
  char **names;     /* every output's file name in its folder */
  char *dir;        /* the folder of the outputs as given: "." or ending in '/' */
  int replace_last; /* the last output may replace a file without force */
  const char *const *stale_suffixes; /* out_set_watch_stale */
  const char *const *expected;       /* out_set_expect */
  unsigned limit;   /* out_set_limit_mode: the bits group and others may have (0: 0066) */
  unsigned *modes;  /* out_set_copy_mode, per output: OUT_MODE_SET | the bits; then OUT_MODE_FIX
                       when out_set_close must set them (they lack the owner's read or write) */
  char *stage_for;  /* NAME, what the staging folder is named after */
  char *stage_in;   /* the folder it is made in, as a path: "" (the current one) or ending in '/' */
  char *own;        /* a folder of the run's own staged beside it: its name in stage_in */
  char *stage_name; /* the staging folder's name in stage_in */
  int stage_dir_fd; /* stage_in, open (-1: not yet) */
  int stage_fd;     /* the staging folder, locked (-1: none) */
  int cleared;      /* the dead runs' temporaries were looked for */
  int active;       /* the staging folder exists */
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
 * Prepares `count` outputs `names` (file names, in rename order) in `dir`, a folder of the run's
 * own (created when missing; an existing one keeps its other files). First removes the dead runs'
 * temporaries (see above). Refuses (prints an error, returns CLI_EXIT_CANTCREAT) an output that
 * exists as a directory, and without `force` one that exists, naming it "one of the inputs" when
 * it is the same file as one of the `input_count` paths `inputs`. With `replace_last` the last
 * output replaces a file of its name even without `force` (a file that describes the set, such as
 * a checkpoint's manifest). Returns 0 or an exit status; call out_set_free in either case.
 */
int out_set_init_folder(out_set *set, const char *dir, char *const *names, size_t count,
                        const char *const *inputs, size_t input_count, int force, int sync,
                        int replace_last);

/**
 * As out_set_init_folder, for outputs that go among the other files of `dir`: the staging folder
 * is named after `name` (the file the user named), and the dead runs' temporaries removed are all
 * those of `dir`. A `dir` that does not exist is the run's own, as with out_set_init_folder.
 */
int out_set_init_files(out_set *set, const char *dir, const char *name, char *const *names,
                       size_t count, const char *const *inputs, size_t input_count, int force,
                       int sync, int replace_last);

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
 * Names files of a folder set's folder that other runs write beside its outputs (`names`,
 * NULL-terminated, kept by the caller until the commit): the other ranks of a run of one rank.
 * The warning of out_set_watch_stale never names them.
 */
void out_set_expect(out_set *set, const char *const *names);

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
 * Prefix sets: removes the dead runs' temporaries, then refuses existing outputs (without --force)
 * and outputs that are directories. Then makes the staging folder, installs the signal handlers
 * and creates every output in it (empty). Returns 0 or prints an error and returns
 * CLI_EXIT_CANTCREAT; on failure nothing is left behind.
 */
int out_set_create(out_set *set);

/**
 * Opens output i in the staging folder for writing and stores the descriptor in `*fd`. Returns 0
 * or prints an error and returns CLI_EXIT_IOERR.
 */
int out_set_open(const out_set *set, size_t i, int *fd);

/** Opens output i in the staging folder for reading (a complete output read back, e.g. to
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
 * Puts every output in place in one step (outputs_commit.h), with the signals blocked and under
 * the lock of the folder it renames in. The set then warns on stderr about the files beside its
 * outputs that an earlier run may have left (outputs_stale.h: a prefix set's PREFIX_k.npy with
 * k >= count, a folder set's watched files; they are not touched). Returns 0; or, when a rename
 * fails, takes back every rename it made (the files it replaced are restored, also on a file
 * system without RENAME_EXCHANGE, where each is kept aside before it is replaced), removes the
 * staging folder, prints an error and returns CLI_EXIT_CANTCREAT (an output appeared meanwhile, or
 * another run held the folder's lock for a minute) or CLI_EXIT_IOERR.
 */
int out_set_commit(out_set *set);

/** Removes the staging folder and every output in it after a failure. Safe to call more than
 * once. */
void out_set_abort(out_set *set);

/** Releases the memory of the set (after commit or abort). */
void out_set_free(out_set *set);

#endif /* CLEAVE_CLI_OUTPUTS_H */
