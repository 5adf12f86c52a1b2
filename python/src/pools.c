/* Thread pools by thread count (see pools.h). */
#include "pools.h"

#include "errors.h"

#include <string.h>

int pcl_exec_for(int threads, cleave_exec *exec) {
  memset(exec, 0, sizeof *exec);
  if (threads <= 1) {
    return 0;
  }
  pcl_state *s = &pcl_module_state;
  int free_slot = -1;
  for (int i = 0; i < PCL_MAX_POOLS; i++) {
    if (s->pools[i].pool != NULL && s->pools[i].threads == (size_t)threads) {
      *exec = cleave_exec_threadpool(s->pools[i].pool);
      return 0;
    }
    if (s->pools[i].pool == NULL && free_slot < 0) {
      free_slot = i;
    }
  }
  if (free_slot < 0) {
    PyErr_Format(PyExc_ValueError,
                 "threads=%d: at most %d different thread counts can be used in one process",
                 threads, PCL_MAX_POOLS);
    return -1;
  }
  cleave_error err;
  cleave_threadpool *pool = NULL;
  if (pcl_check(cleave_threadpool_create((size_t)threads, &pool, &err), &err) < 0) {
    return -1;
  }
  s->pools[free_slot].threads = (size_t)threads;
  s->pools[free_slot].pool = pool;
  *exec = cleave_exec_threadpool(pool);
  return 0;
}

void pcl_pools_release(void) {
  pcl_state *s = &pcl_module_state;
  for (int i = 0; i < PCL_MAX_POOLS; i++) {
    cleave_threadpool_destroy(s->pools[i].pool);
    s->pools[i].pool = NULL;
  }
}
