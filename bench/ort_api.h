/*
 * The few entries of ONNX Runtime's C API the benchmarks use, loaded at run time (nothing of ONNX
 * Runtime is needed to build them): the library that `npm install --ignore-scripts
 * onnxruntime-node` puts under node_modules/onnxruntime-node/bin/napi-v6/linux/x64/ serves. The
 * entries are called through the API's function table by position: the table only ever grows at
 * its end, so the positions of these version-1 entries hold in every release.
 */
#ifndef CLEAVE_ORT_API_H
#define CLEAVE_ORT_API_H

#include <stddef.h>
#include <stdint.h>

/** Loads ONNX Runtime from `path` and creates its environment; exits on failure. Returns the
 * runtime's version string. */
const char *ort_load(const char *path, void **env);

/** A session of the model at `path` with `intra_threads` intra-op threads (1 inter-op thread);
 * exits on failure. */
void *ort_session(void *env, const char *path, int intra_threads);

/** An f32 tensor over the caller's `data` (`bytes` bytes, shape[0..rank)), in CPU memory. */
void *ort_tensor(void *data, size_t bytes, const int64_t *shape, size_t rank);

/** Runs `session` on the named inputs; `outputs[i]` NULL lets ONNX Runtime allocate output i
 * (from its arena), otherwise it is a tensor of the caller's (`ort_tensor`) to write into. */
void ort_run(void *session, const char *const *input_names, void *const *inputs, size_t num_inputs,
             const char *const *output_names, void **outputs, size_t num_outputs);

/** The data of a tensor. */
void *ort_data(void *value);

/** Releases a value (a tensor) and sets the pointer to NULL. */
void ort_release(void **value);

#endif /* CLEAVE_ORT_API_H */
