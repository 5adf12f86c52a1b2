/*
 * Positioned writes handed to a second thread, so that the kernel's side of writing the outputs
 * (the copy into the page cache, the file system's block reservation: most of a re-layout's time
 * on a warm page cache) runs on another core while this one reads, gathers and hashes the next
 * bytes. Each write is copied into one of a few slots (the caller's buffer is free again on
 * return); when every slot is taken (the thread is behind, or the other CPUs are busy and it is
 * not running) the caller makes the write itself rather than wait. So writes are made in no
 * particular order: they must not overlap (the checkpoint writer writes each byte once).
 *
 * Why a copy into slots rather than lending the caller's buffers: the writer's buffers are reused
 * by the next read or gather as soon as a write returns, and the slots stay in the caches (a few
 * times the writer's window); measured in bench/RESULTS.md ("Writes on a second thread").
 */
#ifndef CLEAVE_CKPT_WRITEQ_H
#define CLEAVE_CKPT_WRITEQ_H

#include <stddef.h>
#include <stdint.h>

/** The queue and its thread (opaque). */
typedef struct ckpt_writeq ckpt_writeq;

/**
 * Starts a queue of `slots` slots of `slot_bytes` each and its writing thread (thread_start.h), in
 * `*q`. When the process may run on one CPU only, CLEAVE_WRITE_THREAD is 0 (any value other than 0
 * or 1 is warned about and taken as 1), or the thread cannot be made,
 * `*q` is NULL and the caller writes itself. Returns 0, or prints the error and returns
 * CLI_EXIT_SOFTWARE (out of memory). Stop with ckpt_writeq_stop.
 */
int ckpt_writeq_start(ckpt_writeq **q, size_t slot_bytes, size_t slots);

/**
 * Queues the write of the `size` bytes of `buf` at `offset` of `fd` (named `path` in messages;
 * both must stay valid until the next ckpt_writeq_drain), copying them into free slots; with
 * no slot free, writes them itself. Returns 0, or, once a write has failed, prints that failure
 * (the first time) and returns its status (CLI_EXIT_IOERR) without queueing.
 */
int ckpt_writeq_put(ckpt_writeq *q, int fd, const char *path, const void *buf, size_t size,
                    uint64_t offset);

/** Waits until every queued write is made. Returns 0, or prints the first failure (when not yet
 * printed) and returns its status. */
int ckpt_writeq_drain(ckpt_writeq *q);

/** Drains, stops the thread and releases `q` (NULL is ignored); a failure not yet printed is
 * dropped (the caller has drained and reported before). */
void ckpt_writeq_stop(ckpt_writeq *q);

#endif /* CLEAVE_CKPT_WRITEQ_H */
