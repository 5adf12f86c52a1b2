/* Tensors of other libraries (anything with __dlpack__, such as PyTorch's), as inputs and as
 * out= arrays, and how outputs go back to their kind. */
#ifndef PCL_FOREIGN_H
#define PCL_FOREIGN_H

#include "input.h"

/*
 * Wraps obj's memory as in->array (a new reference) without a copy: through DLPack, or, when the
 * producer refuses DLPack (PyTorch 1.13 refuses bool tensors), through NumPy's array protocol if
 * that gives a view of obj's own memory (an array that does not own its data; for objects with
 * data_ptr(), as PyTorch's, at that address). Sets in->type, dl_code and dl_bits for DLPack
 * (dl_code stays -1 otherwise, and the type is the array's). Returns 0, or -1 with the producer's
 * DLPack error (or TypeError) set.
 */
int pcl_foreign_wrap(PyObject *obj, pcl_input *in);

/* Finds how outputs go back to obj's kind (sets in->from_dlpack or in->from_numpy: the function
 * of obj's top-level module, e.g. torch.from_dlpack), after pcl_foreign_wrap. Without one the
 * outputs stay NumPy arrays. */
void pcl_foreign_hand_back(PyObject *obj, pcl_input *in);

#endif
