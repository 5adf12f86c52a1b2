/*
 * Plans of both families, shared by the one-shot functions and the plan types: a plan is created
 * once per operator, input type and input shapes and reused, so that a repeated call pays what
 * the C library's plan run costs. An entry also says what the plan's outputs are, so that the
 * code above it need not ask which family made it.
 */
#ifndef PCL_PLAN_CACHE_H
#define PCL_PLAN_CACHE_H

#include "op.h"

/* A plan with the key it was made for. Reference-counted under the GIL: a run that releases the
 * GIL holds a reference, so that the cache may drop the entry meanwhile. */
typedef struct pcl_entry {
  Py_ssize_t refs;
  union {
    cleave_plan *split;         /* op.row->family PCL_SPLIT */
    cleave_concat_plan *concat; /* PCL_CONCAT */
  } plan;
  union {
    cleave_split_info split; /* cleave_plan_info */
    cleave_concat_info concat;
  } info;
  int64_t output_shape[PCL_MAX_RANK + 1]; /* a concat's (stacking adds an axis) */
  /* The key: the operator (the entry's own copy), and the inputs, which all have one type and
   * rank since the plan exists (a split has one). */
  pcl_op op;
  cleave_type type;
  size_t num_inputs;
  size_t rank;
  int64_t shapes[]; /* num_inputs * rank dims */
} pcl_entry;

/* Returns a new reference to the plan of `op` on inputs[0..n) (their types and shapes; a
 * split's n is 1), creating and caching it when needed; NULL with the library's error set when
 * the operator is invalid on those inputs. */
pcl_entry *pcl_entry_get(const pcl_op *op, const cleave_tensor *inputs, size_t n);
/* Creates an uncached entry (the plan types): a new reference, or NULL with an exception set. */
pcl_entry *pcl_entry_new(const pcl_op *op, const cleave_tensor *inputs, size_t n);
/* Drops a reference (entry may be NULL); the last one destroys the plan. */
void pcl_entry_decref(pcl_entry *entry);
/* Drops every cached plan (module teardown). */
void pcl_plan_cache_clear(void);

/* What the plan says: its output count (a concat's is 1), the normalised axis (of the input for
 * a split, of the output for a concat), the bits per element, the library's description of its
 * copy schedule (never NULL). */
size_t pcl_entry_num_outputs(const pcl_entry *e);
size_t pcl_entry_axis(const pcl_entry *e);
int64_t pcl_entry_element_bits(const pcl_entry *e);
const char *pcl_entry_description(const pcl_entry *e);
/* The bytes of output i (packed types: rounded up to whole bytes). */
int64_t pcl_entry_output_bytes(const pcl_entry *e, size_t i);
/* The rank of the outputs (the stacked output's for a concat with new_axis). */
size_t pcl_entry_output_rank(const pcl_entry *e);

/* Output i's dims as NumPy takes them, into dims (PCL_MAX_RANK + 1 entries); returns their count.
 * With `packed`, the outputs are held as their bytes: one dim, the byte count. */
int pcl_entry_output_dims(const pcl_entry *e, size_t i, int packed, npy_intp *dims);

/* A split's output of `length` on info's axis: the input's dims (shape[0..rank)) with the axis'
 * length replaced, or removed when info says so. Returns the output's rank. For plans and for
 * views found without one. */
int pcl_split_output_dims(const int64_t *shape, size_t rank, const cleave_split_info *info,
                          int64_t length, npy_intp *dims);

#endif
