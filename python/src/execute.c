/* The choice between views, fresh copies and out= copies (see execute.h). */
#include "execute.h"

#include "args.h"
#include "copies.h"
#include "out_check.h"
#include "views.h"

PyObject *pcl_execute(const pcl_op *op, pcl_entry *entry, pcl_input *in, const pcl_request *req) {
  int has_out = req->out != NULL && req->out != Py_None;
  if (has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError, "copy=False asks for views but out= asks for copies");
    return NULL;
  }
  if (in->is_object && pcl_check_strings(in->array) < 0) {
    return NULL;
  }
  if (!has_out && !in->packed && req->copy != PCL_COPY_ALWAYS) {
    return pcl_make_views(op, entry, in, req);
  }
  if (in->packed && !has_out && req->copy == PCL_COPY_NEVER) {
    PyErr_SetString(PyExc_ValueError,
                    "outputs of packed types are always copies in Python (a packed view is not a "
                    "NumPy array): use copy=None or copy=True (Plan.run, not Plan.views)");
    return NULL;
  }
  if (in->is_object && !has_out) {
    return pcl_copy_views(op, entry, in, req);
  }
  pcl_entry *e = entry;
  if (e == NULL) {
    e = pcl_entry_get(op, in->type, in->shape, in->rank);
    if (e == NULL) {
      return NULL;
    }
  } else {
    e->refs++;
  }
  PyObject *result = NULL;
  if (!in->packed || pcl_check_packed_size(in, e) == 0) {
    if (has_out) {
      result = in->is_object ? pcl_copy_objects_into(op, e, in, req) : pcl_copy_into(e, in, req);
    } else {
      result = pcl_copy_alloc(e, in, req);
    }
  }
  pcl_entry_decref(e);
  return result;
}
