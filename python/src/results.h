/*
 * What the ways of producing outputs share (views.c, objects.c, copies.c, out_check.c): the
 * request, the sequence outputs are returned in, handing them back as the caller's kind, the
 * bytes an array covers. Functions returning int return 0, or -1 with an exception set.
 */
#ifndef PCL_RESULTS_H
#define PCL_RESULTS_H

#include "input.h"
#include "op.h"

/* How a call wants its outputs. */
typedef struct pcl_request {
  int copy;      /* PCL_COPY_* (args.h); a split's choice */
  PyObject *out; /* borrowed; NULL or None when not given */
  int threads;
  pcl_returns returns; /* a tuple, a list (SplitToSequence), or the one output (the concats) */
} pcl_request;

/* A new tuple (or list, when req asks for one) of n items to be set; NULL on MemoryError. */
PyObject *pcl_new_sequence(const pcl_request *req, Py_ssize_t n);
/* Sets item i of a sequence from pcl_new_sequence, stealing `item`. */
void pcl_sequence_set(const pcl_request *req, PyObject *seq, Py_ssize_t i, PyObject *item);

/* Hands one output (a NumPy array, stolen) back as the kind of `in` (DLPack producers get their
 * own tensors; NumPy arrays and buffers get the array itself). Returns a new reference or NULL
 * with an exception set. */
PyObject *pcl_hand_back(const pcl_input *in, PyObject *array);

/* Hands the outputs in seq back as the kind of `in` (DLPack producers get their own tensors).
 * Steals seq (NULL passes through); returns a new reference or NULL with an exception set. */
PyObject *pcl_finish(const pcl_input *in, const pcl_request *req, PyObject *seq);

/* The bytes an array's elements may occupy, [*start, *end): for a strided array the extent its
 * bounds cover (empty for an array without elements). */
void pcl_byte_extent(PyArrayObject *a, char **start, char **end);

#endif
