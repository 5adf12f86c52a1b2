/*
 * cleave.ggml_dequantize and cleave.ggml_quantize: ggml's block formats (GGUF's element types)
 * to float32 and back, through the library's cleave_ggml_dequantize and cleave_ggml_quantize.
 */
#ifndef PCL_GGML_H
#define PCL_GGML_H

#include "state.h"

PyObject *pcl_ggml_dequantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *pcl_ggml_quantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
extern const char pcl_ggml_dequantize_doc[];
extern const char pcl_ggml_quantize_doc[];

#endif
