/* A command's helper thread, started with the asynchronous signals blocked. */
#include "thread_start.h"

#include <signal.h>

int thread_start(pthread_t *thread, void *(*fn)(void *), void *arg) {
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGFPE);
  sigdelset(&all, SIGILL);
  int rc = pthread_sigmask(SIG_SETMASK, &all, &old);
  if (rc != 0) {
    return rc;
  }
  rc = pthread_create(thread, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}
