/*
 * Starting a helper thread of a command: the asynchronous signals (SIGINT, SIGTERM, SIGHUP, ...)
 * blocked in it, so that the calling thread takes them and removes the outputs' temporaries
 * (outputs.h) as it does without threads; the synchronous ones (SIGBUS of a mapped file that
 * shrank, SIGSEGV, SIGFPE, SIGILL) left to the thread that causes them.
 */
#ifndef CLEAVE_TOOL_THREAD_START_H
#define CLEAVE_TOOL_THREAD_START_H

#include <pthread.h>

/** pthread_create(thread, NULL, fn, arg) with that signal mask. Returns 0 or its error. */
int thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif /* CLEAVE_TOOL_THREAD_START_H */
