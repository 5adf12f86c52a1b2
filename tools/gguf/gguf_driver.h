/*
 * The GGUF format as a checkpoint driver (tools/checkpoint/model/ckpt_driver.h): a model is a
 * .gguf file or a split set as llama.cpp's gguf-split writes it (found from its first file, or
 * its files named one by one); ranks are rank<R>.gguf; outputs are laid out as llama.cpp's
 * writer lays them out (gguf_write.h), a set's files and keys and an expert count the rules
 * changed added by gguf_outputs.h.
 */
#ifndef CLEAVE_GGUF_DRIVER_H
#define CLEAVE_GGUF_DRIVER_H

#include "ckpt_driver.h"

/** The driver (static, read-only). */
extern const ckpt_driver gguf_driver;

#endif /* CLEAVE_GGUF_DRIVER_H */
