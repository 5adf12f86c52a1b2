/* The choice of how one run produces its outputs (see execute.h). */
#include "execute.h"

#include "args.h"
#include "copies.h"
#include "objects.h"
#include "out_check.h"
#include "views.h"

/* A split's outputs that need no plan: views (copy=None or False), and NumPy's copies of them for
 * object arrays. Returns the outputs, or NULL with *done 0 when the run needs the plan (or with
 * *done 1 and an exception set). */
static PyObject *without_plan(const pcl_op *op, pcl_entry *entry, pcl_inputs *in,
                              const pcl_request *req, int has_out, int *done) {
  *done = 1;
  if (has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError, "copy=False asks for views but out= asks for copies");
    return NULL;
  }
  if (in->is_object && pcl_check_strings(in->first.array) < 0) {
    return NULL;
  }
  if (!has_out && !in->packed && req->copy != PCL_COPY_ALWAYS) {
    return pcl_make_views(op, entry, &in->first, req);
  }
  if (in->packed && !has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError,
                    "outputs of packed types are always copies in Python (a packed view is not a "
                    "NumPy array): use copy=None or copy=True (Plan.run, not Plan.views)");
    return NULL;
  }
  if (in->is_object && !has_out) {
    return pcl_copy_views(op, entry, &in->first, req);
  }
  *done = 0;
  return NULL;
}

/* The binding's own rules after the plan's, before anything is written. */
static int check_inputs(const pcl_entry *e, const pcl_inputs *in) {
  if ((in->n > 1 && pcl_inputs_check_dtypes(in) < 0) ||
      (in->packed && pcl_inputs_check_packed_sizes(in, pcl_entry_element_bits(e)) < 0)) {
    return -1;
  }
  size_t rank = pcl_entry_output_rank(e);
  if (!in->packed && rank > NPY_MAXDIMS) {
    PyErr_Format(PyExc_ValueError, "the output has rank %zu, above the %d NumPy supports", rank,
                 NPY_MAXDIMS);
    return -1;
  }
  return 0;
}

PyObject *pcl_execute(const pcl_op *op, pcl_entry *entry, pcl_inputs *in, const pcl_request *req) {
  int has_out = req->out != NULL && req->out != Py_None;
  if (op->row->family == PCL_SPLIT) {
    int done;
    PyObject *result = without_plan(op, entry, in, req, has_out, &done);
    if (done) {
      return result;
    }
  }
  pcl_entry *e = entry;
  if (e == NULL) {
    e = pcl_entry_get(op, in->tensors, (size_t)in->n);
    if (e == NULL) {
      return NULL;
    }
  } else {
    e->refs++;
  }
  PyObject *result = NULL;
  if (check_inputs(e, in) == 0) {
    if (has_out) {
      result = pcl_copy_into(e, in, req);
    } else if (in->is_object) {
      result = pcl_objects_joined(e, in); /* a concat's: a split's are copies of its views */
    } else {
      result = pcl_copy_alloc(e, in, req);
    }
  }
  pcl_entry_decref(e);
  return result;
}
