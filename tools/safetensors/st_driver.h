/*
 * The safetensors format as a checkpoint driver (tools/checkpoint/model/ckpt_driver.h): a model is
 * a .safetensors file, a *.safetensors.index.json with its shards, or a folder holding either;
 * ranks are rank<R>.safetensors; outputs are written canonical (st_write.h) and sized as Hugging
 * Face's writer sizes them; `check` warns of what departs from the canonical form without harming
 * the data (st_lenient.h) and `--strict` refuses it.
 */
#ifndef CLEAVE_ST_DRIVER_H
#define CLEAVE_ST_DRIVER_H

#include "ckpt_driver.h"

/** The driver (static, read-only). */
extern const ckpt_driver st_driver;

#endif /* CLEAVE_ST_DRIVER_H */
