/*
 * The binding's only door into libcleave: every call into the C library goes through the thin
 * wrappers declared here (lib.c), so that a change of the library's API is ported in one file.
 *
 * The binding describes operators in its own struct (`pcl_op`), which lib.c translates into the
 * library's; a wrapper that fails sets the Python exception (cleave.Error carrying the library's
 * status and message) and returns -1. Wrappers returning int return 0 on success.
 */
#ifndef PCL_LIB_H
#define PCL_LIB_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cleave.h>

#include <stddef.h>
#include <stdint.h>

/* Operator kinds, as the binding names them. */
typedef enum pcl_kind {
  PCL_SPLIT = 1,
  PCL_VARIADIC_SPLIT = 2,
  PCL_SPLIT_TO_SEQUENCE = 3,
  PCL_ONNX_SPLIT = 4
} pcl_kind;

/* The largest rank the binding handles (at least NumPy's NPY_MAXDIMS: 32, 64 from NumPy 2). */
#define PCL_MAX_RANK 64

/* Inline room for split lengths; longer lists are allocated (pcl_op_clear frees them). */
#define PCL_INLINE_LENGTHS 16

/*
 * One operator as the caller described it. Values are plain integers; "absent" is a flag.
 * `lengths_rank` is 1 for a list, 0 for a scalar (SplitToSequence's scalar `split`).
 */
typedef struct pcl_op {
  pcl_kind kind;
  int64_t opset;
  int has_axis;
  int64_t axis;
  int has_lengths;
  int lengths_rank;
  int64_t count;
  int64_t *lengths; /* inline_lengths or an allocation of count entries */
  int64_t inline_lengths[PCL_INLINE_LENGTHS];
  int has_num_splits;
  int64_t num_splits;
  int64_t keepdims;
} pcl_op;

/* An element type: the library's dtype code and width (bytes/unicode only). */
typedef struct pcl_type {
  int dtype;
  int64_t width;
} pcl_type;

/* The static inference outcome the binding uses. */
typedef struct pcl_info {
  int64_t axis;
  int64_t num_outputs;
  int64_t output_rank;
  int axis_removed;
  int64_t element_bits; /* bits per element; 8 * byte size for byte-sized types */
} pcl_info;

/* Sets op to the defaults of `kind` (axis absent, lengths absent, keepdims 1). */
void pcl_op_init(pcl_op *op, pcl_kind kind, int64_t opset);
/* Makes room for `count` lengths in op->lengths (MemoryError on failure: -1). */
int pcl_op_reserve(pcl_op *op, int64_t count);
/* Frees what pcl_op_reserve allocated. */
void pcl_op_clear(pcl_op *op);

/* Raises cleave.Error with `status` and `message` (used for the binding's own checks too, so
 * that errors about the same rule look alike). Returns NULL. */
PyObject *pcl_raise(int status, const char *message);

/* The library's version string. */
const char *pcl_version(void);
/* Looks a dtype name up; -1 with cleave.Error for an unknown name. */
int pcl_dtype_from_name(const char *name, int *dtype);
/* Bits per element (1, 2, 4 for packed types) and whether the order is MSB-first. */
int pcl_type_bits(pcl_type type, int64_t *bits, int *msb_first);

/* Static inference; `lengths` (capacity entries, may be NULL) receives the lengths on the axis.
 * Returns 1 (no exception, info filled) when `lengths` holds fewer than info->num_outputs. */
int pcl_infer(const pcl_op *op, pcl_type type, const int64_t *shape, size_t rank, pcl_info *info,
              int64_t *lengths, size_t capacity);

/* Plans. */
typedef struct cleave_plan pcl_plan;
int pcl_plan_create(const pcl_op *op, pcl_type type, const int64_t *shape, size_t rank,
                    pcl_plan **plan);
void pcl_plan_destroy(pcl_plan *plan);
void pcl_plan_info(const pcl_plan *plan, pcl_info *info);
int64_t pcl_plan_output_length(const pcl_plan *plan, size_t i);
int64_t pcl_plan_output_bytes(const pcl_plan *plan, size_t i);
const char *pcl_plan_kernels(const pcl_plan *plan);

/*
 * Runs a plan into caller buffers on `threads` threads (0 or 1: the calling thread). The GIL is
 * released for the run when `release_gil` is set; the exception is set after retaking it.
 */
int pcl_plan_run(const pcl_plan *plan, const void *input, void *const *outputs, int threads,
                 int release_gil);
/* Runs a plan into one library-allocated block; outputs[i] receive the pointers. */
int pcl_plan_run_alloc(const pcl_plan *plan, const void *input, void **outputs, int threads,
                       int release_gil);
void pcl_outputs_free(void **outputs, size_t count);

/*
 * The output arena copy=True outputs come from (lib.c): keeps up to the limit of freed output
 * blocks for reuse (0: none; outputs then come straight from the system allocator). Guarded by
 * the GIL. Changing the limit replaces the arena; outputs of the old one stay valid.
 */
#define PCL_ARENA_DEFAULT_LIMIT ((size_t)512 << 20)
typedef struct pcl_arena_stats {
  size_t limit_bytes, kept_bytes, kept_blocks, used_bytes, used_blocks, reused, allocated;
} pcl_arena_stats;
size_t pcl_arena_limit(void);
void pcl_arena_set_limit(size_t limit_bytes);
size_t pcl_arena_trim(size_t keep_bytes);
void pcl_arena_get_stats(pcl_arena_stats *stats);
/* Module teardown: the arena is destroyed once no run uses it; live outputs stay valid. */
void pcl_arena_release(void);

/* Releases the module's thread pools (module teardown). */
void pcl_pools_release(void);

/* --- Partial shapes --- */
typedef struct pcl_dim {
  int64_t lo;
  int64_t hi; /* PCL_UNBOUNDED: no upper bound */
} pcl_dim;
#define PCL_UNBOUNDED ((int64_t)-1)
#define PCL_RANK_DYNAMIC ((int64_t)-1)

typedef struct pcl_partial_info {
  pcl_dim count;
  int count_varies;
  int64_t num_shapes;
  int64_t output_rank;
  int64_t axis;
  int axis_removed;
  int64_t dims_needed;
} pcl_partial_info;

/* Partial inference; dims (capacity entries) may be NULL to learn dims_needed first. */
int pcl_infer_partial(const pcl_op *op, int unknown_axis, int unknown_lengths, pcl_type type,
                      int64_t rank, const pcl_dim *dims_in, pcl_partial_info *info, pcl_dim *dims,
                      size_t capacity);
/* Parses a partial shape's text form; dims (capacity entries) may be NULL to learn the rank. */
int pcl_partial_shape_parse(const char *text, pcl_dim *dims, size_t capacity, int64_t *rank);
/* Formats a partial shape into a new str. */
PyObject *pcl_partial_shape_format(int64_t rank, const pcl_dim *dims);

#endif
