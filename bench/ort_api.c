/* ONNX Runtime's C API through its function table (see ort_api.h). */
#define _POSIX_C_SOURCE 200809L

#include "ort_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Positions in ONNX Runtime's OrtApi function table (API version 1 entries). */
enum {
  ORT_GET_ERROR_MESSAGE = 2,
  ORT_CREATE_ENV = 3,
  ORT_CREATE_SESSION = 7,
  ORT_RUN = 9,
  ORT_CREATE_SESSION_OPTIONS = 10,
  ORT_SET_INTRA_OP_THREADS = 24,
  ORT_SET_INTER_OP_THREADS = 25,
  ORT_CREATE_TENSOR_WITH_DATA = 49,
  ORT_GET_TENSOR_MUTABLE_DATA = 51,
  ORT_CREATE_CPU_MEMORY_INFO = 69,
  ORT_RELEASE_VALUE = 96
};
#define ORT_TENSOR_FLOAT 1
#define ORT_ARENA_ALLOCATOR 1
#define ORT_MEM_TYPE_DEFAULT 0
#define ORT_LOG_WARNING 2

typedef struct ort_api_base {
  void *(*get_api)(uint32_t version);
  const char *(*get_version_string)(void);
} ort_api_base;

typedef void *(*create_env_fn)(int level, const char *logid, void **env);
typedef void *(*create_session_fn)(const void *env, const char *path, const void *options,
                                   void **session);
typedef void *(*run_fn)(void *session, const void *run_options, const char *const *input_names,
                        const void *const *inputs, size_t num_inputs,
                        const char *const *output_names, size_t num_outputs, void **outputs);
typedef void *(*create_options_fn)(void **options);
typedef void *(*set_threads_fn)(void *options, int threads);
typedef void *(*create_tensor_fn)(const void *info, void *data, size_t bytes, const int64_t *shape,
                                  size_t rank, int type, void **value);
typedef void *(*tensor_data_fn)(void *value, void **data);
typedef void *(*cpu_info_fn)(int allocator_type, int mem_type, void **info);
typedef void (*release_fn)(void *object);
typedef const char *(*error_message_fn)(const void *status);

/* The function table: an array of function pointers, entry `i` called as its own type. */
typedef void (*ort_fn)(void);
static const ort_fn *g_api;
static void *g_info;
#define ORT_FN(type, i) ((type)g_api[i])

static void check(void *status, const char *what) {
  if (status != NULL) {
    fprintf(stderr, "ONNX Runtime %s failed: %s\n", what,
            ORT_FN(error_message_fn, ORT_GET_ERROR_MESSAGE)(status));
    exit(1);
  }
}

const char *ort_load(const char *path, void **env) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    exit(1);
  }
  const ort_api_base *(*get_api_base)(void) = NULL;
  void *sym = dlsym(lib, "OrtGetApiBase");
  memcpy(&get_api_base, &sym, sizeof sym);
  if (get_api_base == NULL) {
    fprintf(stderr, "%s has no OrtGetApiBase\n", path);
    exit(1);
  }
  const ort_api_base *base = get_api_base();
  g_api = (const ort_fn *)base->get_api(13);
  if (g_api == NULL) {
    fprintf(stderr, "ONNX Runtime %s does not offer API version 13\n", base->get_version_string());
    exit(1);
  }
  check(ORT_FN(create_env_fn, ORT_CREATE_ENV)(ORT_LOG_WARNING, "bench", env), "CreateEnv");
  check(ORT_FN(cpu_info_fn, ORT_CREATE_CPU_MEMORY_INFO)(ORT_ARENA_ALLOCATOR, ORT_MEM_TYPE_DEFAULT,
                                                        &g_info),
        "CreateCpuMemoryInfo");
  return base->get_version_string();
}

void *ort_session(void *env, const char *path, int intra_threads) {
  void *options = NULL, *session = NULL;
  check(ORT_FN(create_options_fn, ORT_CREATE_SESSION_OPTIONS)(&options), "options");
  check(ORT_FN(set_threads_fn, ORT_SET_INTRA_OP_THREADS)(options, intra_threads), "threads");
  check(ORT_FN(set_threads_fn, ORT_SET_INTER_OP_THREADS)(options, 1), "threads");
  check(ORT_FN(create_session_fn, ORT_CREATE_SESSION)(env, path, options, &session),
        "CreateSession");
  /* Sessions and options are left to the process's end (their release entries are not among the
   * few used here); each holds only the model and ONNX Runtime's arena. */
  return session;
}

void *ort_tensor(void *data, size_t bytes, const int64_t *shape, size_t rank) {
  void *value = NULL;
  check(ORT_FN(create_tensor_fn, ORT_CREATE_TENSOR_WITH_DATA)(g_info, data, bytes, shape, rank,
                                                              ORT_TENSOR_FLOAT, &value),
        "CreateTensorWithDataAsOrtValue");
  return value;
}

void ort_run(void *session, const char *const *input_names, void *const *inputs, size_t num_inputs,
             const char *const *output_names, void **outputs, size_t num_outputs) {
  check(ORT_FN(run_fn, ORT_RUN)(session, NULL, input_names, (const void *const *)inputs, num_inputs,
                                output_names, num_outputs, outputs),
        "Run");
}

void *ort_data(void *value) {
  void *data = NULL;
  check(ORT_FN(tensor_data_fn, ORT_GET_TENSOR_MUTABLE_DATA)(value, &data), "data");
  return data;
}

void ort_release(void **value) {
  ORT_FN(release_fn, ORT_RELEASE_VALUE)(*value);
  *value = NULL;
}
