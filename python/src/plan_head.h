/* What cleave.Plan and cleave.ConcatPlan share: the element type a plan is bound to (the head
 * both objects start with), the getters that read only it, the dtype as their reprs show it, and
 * the timing loop of their _c_seconds methods. */
#ifndef PCL_PLAN_HEAD_H
#define PCL_PLAN_HEAD_H

#include "state.h"

/* The first member of both plan objects, so that a getter written for it serves both. */
typedef struct pcl_plan_head {
  PyObject_HEAD PyArray_Descr *descr; /* the NumPy dtype of inputs (uint8 for packed types) */
  int packed;                         /* the type is packed: inputs are given as their bytes */
  /* For a type NumPy lacks, its cleave.ElementType constant (runs pass it as dtype=, as the
   * dtype of an array does not say it); NULL for NumPy's types. */
  PyObject *element_type;
} pcl_plan_head;

/* Binds `head` to type `t`, read by pcl_type_from_object with `descr` and `packed` (the head
 * takes over the reference to descr). */
void pcl_plan_head_set(pcl_plan_head *head, cleave_type t, PyArray_Descr *descr, int packed);

/* Releases the head's references (for the objects' tp_dealloc). */
void pcl_plan_head_clear(pcl_plan_head *head);

/* The `dtype` getter of both classes: a new reference to the inputs' NumPy dtype. */
PyObject *pcl_plan_get_dtype(PyObject *self, void *closure);

/* The dtype as a plan's repr shows it (as the constructor takes it): the ElementType constant's
 * repr, or the repr of the NumPy dtype's name. A new reference, or NULL with an exception. */
PyObject *pcl_plan_dtype_repr(const pcl_plan_head *head);

/* The `kernels` getters' value: the library's description of a plan (NULL: ""). */
PyObject *pcl_plan_kernels(const char *description);

/* The seconds per call of `calls` (>= 1) calls of run(ctx) in a row, as a float: the _c_seconds
 * methods' loop. NULL, with the exception run set, when a call fails (returns < 0). */
PyObject *pcl_plan_seconds(int (*run)(void *ctx), void *ctx, int64_t calls);

#endif
