/*
 * The CLI's type names (boolean, i8, u4, f64, ...; docs/operators.md section 7) are not NumPy's
 * type codes ('b1', '<i8', '<u4', '<f8', ...), and some names are both with different meanings:
 * cleave's i8 is int8 where NumPy's 'i8' is int64, cleave's u4 the packed 4-bit type where
 * NumPy's 'u4' is uint32. The names stay (they are the command line's contract); the messages
 * of a --dtype that is refused or contradicts a file say which is which.
 */
#ifndef CLEAVE_OPS_DTYPE_NOTE_H
#define CLEAVE_OPS_DTYPE_NOTE_H

#include <stddef.h>

/**
 * Writes to `buf` what `name` (a --dtype value) means to NumPy when it is a NumPy type code
 * ('f8', 'i8', '<u4', 'b1', 'c16', ...) that means another type in cleave or is no cleave name:
 * "i8 is int8 here; NumPy's 'i8' is i64", "NumPy's 'f8' is f64 here". When `descr` (the file's
 * descr, or NULL) is that code with a byte-order character, the note quotes it ("NumPy's '<i8'
 * is i64"). Returns 1 when it wrote a note, 0 (and an empty `buf`) when `name` is no NumPy code
 * or means the same in both.
 */
int dtype_numpy_note(const char *name, const char *descr, char *buf, size_t size);

#endif /* CLEAVE_OPS_DTYPE_NOTE_H */
