/* The module's built-in thread pools, one per thread count asked for (threads=). */
#ifndef PCL_POOLS_H
#define PCL_POOLS_H

#include "state.h"

/* Fills *exec for a run on `threads` threads: the calling thread alone for 0 or 1, otherwise the
 * pool of that many threads, created on first use and kept. Returns 0, or -1 with an exception
 * (ValueError when PCL_MAX_POOLS different counts are in use, or the library's error). */
int pcl_exec_for(int threads, cleave_exec *exec);

/* Destroys every pool (module teardown). */
void pcl_pools_release(void);

#endif
