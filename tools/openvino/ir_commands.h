/*
 * The OpenVINO IR commands of the cleave executable (built when expat is available). Each takes
 * the whole argv and the index of its first own argument, and returns the exit status.
 */
#ifndef CLEAVE_IR_COMMANDS_H
#define CLEAVE_IR_COMMANDS_H

/** ir-check MODEL.xml [--bin MODEL.bin] [--json] [-q]. */
int cmd_ir_check(int argc, char **argv, int first);

/** ir-run MODEL.xml --input NAME=FILE.npy ... [-o PREFIX] [-f] [--json] [-q] [--sync]. */
int cmd_ir_run(int argc, char **argv, int first);

#endif /* CLEAVE_IR_COMMANDS_H */
