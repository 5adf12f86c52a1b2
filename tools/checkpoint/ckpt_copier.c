/* The writer's primitives: positioned reads, writes and range copies that report their errors. */
#include "ckpt_copier.h"

#include "io.h"

int ckpt_write_at(ckpt_copier *c, ckpt_member *m, const void *buf, size_t size, uint64_t at) {
  tool_error err;
  if (io_write_full(m->fd, m->path, buf, size, at, &err) != 0) {
    return tool_report(&err);
  }
  m->written += size;
  progress_add(c->progress, size);
  return 0;
}

int ckpt_read_at(ckpt_copier *c, size_t src, void *buf, size_t size, uint64_t from) {
  tool_error err;
  if (io_read_full(c->in_fds[src], c->model->files[src].path, buf, size, from, CLI_EXIT_IOERR,
                   &err) != 0) {
    return tool_report(&err);
  }
  return 0;
}

int ckpt_copy_at(ckpt_copier *c, ckpt_member *m, size_t src, uint64_t from, uint64_t size,
                 uint64_t at) {
  tool_error err;
  if (io_copy_range(&c->io, c->in_fds[src], c->model->files[src].path, from, m->fd, m->path, at,
                    size, &err) != 0) {
    return tool_report(&err);
  }
  m->written += size;
  return 0;
}

uint64_t ckpt_tensor_start(const ckpt_copier *c, const ckpt_member *m, const ckpt_out_tensor *t) {
  return c->plan->files[m->file].prefix_size + t->begin;
}
