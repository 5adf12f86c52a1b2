/*
 * An operator as the binding holds it: the library's cleave_op together with the integers its
 * values point at (the axis, the split lengths, ONNX Split's output count), so that one struct
 * owns everything a call or a cached plan needs.
 *
 * `c` points into the struct itself: copy a pcl_op only with pcl_op_copy, and release it with
 * pcl_op_clear. Functions returning int return 0, or -1 with MemoryError set.
 */
#ifndef PCL_OP_H
#define PCL_OP_H

#include "state.h"

/* Lengths held inline; longer lists are allocated. */
#define PCL_INLINE_LENGTHS 16

typedef struct pcl_op {
  cleave_op c; /* the library's operator; its values point at the fields below */
  int64_t axis;
  int64_t num_outputs;
  int64_t *lengths; /* inline_lengths or an allocation of c.lengths.count entries */
  int64_t inline_lengths[PCL_INLINE_LENGTHS];
} pcl_op;

/* Sets op to `kind` at `opset` with the binding's defaults: axis 0 given (NumPy's default, and
 * the ONNX operators' default spelled out), no lengths, no output count, keepdims 1. */
void pcl_op_init(pcl_op *op, cleave_op_kind kind, int64_t opset);

/* Makes op's lengths `count` values of rank `rank` (0: a scalar, 1: a list) and returns where to
 * write them (NULL with MemoryError). */
int64_t *pcl_op_set_lengths(pcl_op *op, size_t count, size_t rank);

/* Gives ONNX Split its output count (the num_outputs attribute, or the node's output count). */
void pcl_op_set_num_outputs(pcl_op *op, int64_t num_outputs);

/* Makes dst (uninitialised) an independent copy of src. */
int pcl_op_copy(pcl_op *dst, const pcl_op *src);

/* Whether two operators are the same in every field the library reads. */
int pcl_op_equal(const pcl_op *a, const pcl_op *b);

/* Frees what op allocated; op stays valid, with no lengths. */
void pcl_op_clear(pcl_op *op);

#endif
