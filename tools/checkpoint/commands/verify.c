/* verify OUTDIR [--against MODEL...]: a run's outputs against its manifest, each data file read
 * back by its format's driver (ckpt_verify.h), whatever the format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_manifest.h"

#include "ckpt_commands.h"
#include "ckpt_verify.h"
#include "cli_util.h"

/* --against MODEL: one input; the arguments after it are inputs too. */
static int against(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)opt;
  (void)place;
  ckpt_args *a = target;
  a->against[a->against_count++] = value;
  return 0;
}

int ckpt_run_verify(ckpt_command *c) {
  const cli_args *p = &c->parsed;
  ckpt_args *a = &c->args;
  if (p->positional_count == 0) {
    return cli_error(CLI_EXIT_USAGE, "the OUTDIR (a folder a writing command wrote) is missing");
  }
  /* The first option that is --against, if any: the arguments after it are inputs. */
  size_t first_against = p->given_count;
  for (size_t i = 0; i < p->given_count && first_against == p->given_count; i++) {
    first_against = p->given[i]->call == against ? i : first_against;
  }
  for (size_t k = 1; k < p->positional_count; k++) {
    if (p->options_before[k] <= first_against) {
      return cli_error(CLI_EXIT_USAGE,
                       "unexpected argument '%s' (the models to compare with follow "
                       "--against)",
                       p->positional[k]);
    }
    a->against[a->against_count++] = p->positional[k];
  }
  /* `cleave verify` takes the format of the files OUTDIR holds, as `cleave st verify` or `cleave
   * gguf verify` would; a folder of neither reads back every format's, each file by its name. */
  for (size_t f = 0; c->driver == NULL && ckpt_drivers[f] != NULL; f++) {
    if (ckpt_drivers[f]->read.probe(p->positional[0])) {
      c->driver = ckpt_drivers[f];
      ckpt_command_set_name(c);
    }
  }
  const ckpt_driver *pinned[] = {c->driver, NULL};
  /* OUTDIR, or the file a merge wrote among others (its manifest beside it), or that manifest. */
  const char *target = p->positional[0];
  char *outdir = NULL, *manifest = NULL;
  struct stat st;
  if (stat(target, &st) != 0 || !S_ISDIR(st.st_mode)) {
    size_t n = strlen(target), k = strlen(CKPT_MANIFEST_SUFFIX);
    const char *slash = strrchr(target, '/');
    outdir = slash == NULL ? strdup(".") : strndup(target, (size_t)(slash - target + 1));
    if (n >= k && strcmp(target + n - k, CKPT_MANIFEST_SUFFIX) == 0) {
      manifest = strdup(target);
    } else if (asprintf(&manifest, "%s%s", target, CKPT_MANIFEST_SUFFIX) < 0) {
      manifest = NULL;
    }
    if (outdir == NULL || manifest == NULL) {
      free(outdir);
      free(manifest);
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  ckpt_verify_options o = {.outdir = outdir != NULL ? outdir : target,
                           .manifest = manifest,
                           .cmd = c->name,
                           .drivers = c->driver != NULL ? pinned : ckpt_drivers,
                           .against = a->against,
                           .against_count = a->against_count,
                           .json = a->run.json,
                           .quiet = a->run.quiet};
  int rc = ckpt_verify_outputs(&o);
  free(outdir);
  free(manifest);
  return rc;
}

/* --against's target is the whole ckpt_args (`run` is its first member: offset 0). */
static const cli_opt verify_options[] = {
    CLI_CALL(0, "against", "MODEL...", ckpt_args, run, against, 0,
             "the inputs of the run (files, or folders holding them); every argument after it "
             "is one too"),
    CLI_FLAG(0, "json", ckpt_args, run.json,
             "print {\"command\", \"outdir\", \"ok\", \"files\", \"tensors\", \"bytes\", "
             "\"against\", \"differences\": [{\"file\", \"tensor\", \"file_offset\", "
             "\"tensor_offset\", \"problem\"}]}"),
    CLI_FLAG('q', "quiet", ckpt_args, run.quiet, "print only the differences"),
    CLI_INCLUDE_SAME(cli_remote_options),
    CLI_END,
};

const cli_spec ckpt_verify_spec = {
    .usage = "cleave {cmd} OUTDIR [--against MODEL...] [--json] [-q]\n"
             "       cleave {cmd} FILE [--against MODEL...] [--json] [-q]",
    .about = "Re-reads what a writing command (split, shard, merge, reshard) wrote into OUTDIR "
             "against\n"
             "OUTDIR/cleave-manifest.json: every file it lists is present with its size and "
             "XXH3-64\n"
             "checksums (the whole file, each tensor), no other file is there (hidden files "
             "aside, but\n"
             "cleave's temporaries in it or beside OUTDIR are reported), each data file passes "
             "its\n"
             "format's strict check and its header says what the manifest says. With\n"
             "--against, each tensor is also compared byte for byte with the input bytes the "
             "manifest says\n"
             "it was copied from; the inputs are found by file name among the MODEL files and "
             "folders\n"
             "given.\n"
             "\n"
             "Each difference is a line on stdout naming the file, the tensor and, where known, "
             "the\n"
             "first differing byte (in the file and in the tensor; a checksum tells only which "
             "tensor\n"
             "differs, --against tells the byte). Exit 0 (no difference), 1 (differences), 65 "
             "(the\n"
             "manifest is malformed, or does not match an output whose checksum it matches: the "
             "place\n"
             "is named), 66 (no manifest, or an input of --against missing).\n"
             "\n"
             "A run that wrote one file among others (a GGUF merge into OUT.gguf) left its "
             "manifest\n"
             "beside it, OUT.gguf.cleave-manifest.json: 'cleave {cmd} OUT.gguf' (or the "
             "manifest's path)\n"
             "checks what it lists, and the folder's other files are none of its business.\n",
    .options = verify_options,
};
