/* Decoding of ONNX tensors and sequences from protobuf messages. */
#include "ox_decode.h"
#include "io.h"
#include "shape_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ONNX TensorProto.DataLocation and SequenceProto.DataType values used here. */
#define OX_LOCATION_EXTERNAL 1
#define OX_SEQ_UNDEFINED 0
#define OX_SEQ_TENSOR 1

int ox_unpack_file(const char *path, const ProtobufCMessageDescriptor *desc, ProtobufCMessage **out,
                   tool_error *err) {
  *out = NULL;
  int fd = -1;
  uint64_t size = 0;
  int st = io_open_regular(path, NULL, &fd, &size, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  /* A file is read whole; one that does not fit in memory cannot be a message to unpack. */
  unsigned char *bytes = size < SIZE_MAX ? malloc(size > 0 ? (size_t)size : 1) : NULL;
  if (bytes == NULL) {
    close(fd);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", path);
  }
  st = io_read_full(fd, path, bytes, (size_t)size, 0, CLI_EXIT_NOINPUT, err);
  close(fd);
  if (st != CLI_EXIT_OK) {
    free(bytes);
    /* onnx-test's statuses put a file that cannot be read with those that cannot be opened. */
    err->status = CLI_EXIT_NOINPUT;
    return CLI_EXIT_NOINPUT;
  }
  *out = protobuf_c_message_unpack(desc, NULL, (size_t)size, bytes);
  free(bytes);
  if (*out == NULL) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "malformed protobuf: %s is not a valid %s message (%llu %s could not be "
                     "parsed)",
                     path, desc->name, (unsigned long long)size,
                     tool_plural((uint64_t)size, "byte", "bytes"));
  }
  return CLI_EXIT_OK;
}

static int ox_host_is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* Reverses the bytes of every `width`-byte unit of buf (little-endian to native on a big-endian
 * host). */
static void ox_swap_units(unsigned char *buf, size_t nbytes, size_t width) {
  for (size_t off = 0; width > 1 && off + width <= nbytes; off += width) {
    for (size_t i = 0; i < width / 2; i++) {
      unsigned char t = buf[off + i];
      buf[off + i] = buf[off + width - 1 - i];
      buf[off + width - 1 - i] = t;
    }
  }
}

/* The typed field a data type stores its values in when raw_data is not used. */
typedef enum ox_field {
  OX_FIELD_FLOAT,
  OX_FIELD_INT32,
  OX_FIELD_STRING,
  OX_FIELD_INT64,
  OX_FIELD_DOUBLE,
  OX_FIELD_UINT64
} ox_field;

static const char *const ox_field_names[] = {"float_data", "int32_data",  "string_data",
                                             "int64_data", "double_data", "uint64_data"};

static ox_field ox_field_of(int32_t onnx_type) {
  switch (onnx_type) {
  case OX_FLOAT:
  case OX_COMPLEX64:
    return OX_FIELD_FLOAT;
  case OX_STRING:
    return OX_FIELD_STRING;
  case OX_INT64:
    return OX_FIELD_INT64;
  case OX_DOUBLE:
  case OX_COMPLEX128:
    return OX_FIELD_DOUBLE;
  case OX_UINT32:
  case OX_UINT64:
    return OX_FIELD_UINT64;
  default:
    return OX_FIELD_INT32;
  }
}

static size_t ox_field_count(const Onnx__TensorProto *tp, ox_field field) {
  switch (field) {
  case OX_FIELD_FLOAT:
    return tp->n_float_data;
  case OX_FIELD_INT32:
    return tp->n_int32_data;
  case OX_FIELD_STRING:
    return tp->n_string_data;
  case OX_FIELD_INT64:
    return tp->n_int64_data;
  case OX_FIELD_DOUBLE:
    return tp->n_double_data;
  case OX_FIELD_UINT64:
    return tp->n_uint64_data;
  }
  return 0;
}

/* The range an int32_data entry must lie in for a narrower type: signed types their signed
 * range, the others (unsigned, bool, and the bit patterns of the small floats) [0, 2^bits). */
static void ox_int32_range(int32_t onnx_type, size_t width, int64_t *lo, int64_t *hi) {
  int64_t span = (int64_t)1 << (8 * width);
  if (onnx_type == OX_BOOL) {
    *lo = 0;
    *hi = 1;
  } else if (onnx_type == OX_INT8 || onnx_type == OX_INT16 || onnx_type == OX_INT32) {
    *lo = -span / 2;
    *hi = span / 2 - 1;
  } else {
    *lo = 0;
    *hi = span - 1;
  }
}

/* Fills t (allocated for tp's dims) from the typed field; the value count was checked. */
static int ox_decode_typed(const Onnx__TensorProto *tp, const char *what, ox_tensor *t,
                           ox_field field, tool_error *err) {
  size_t elem = t->count > 0 ? t->nbytes / (size_t)t->count : 0;
  size_t n = ox_field_count(tp, field);
  unsigned char *out = (unsigned char *)t->data;
  switch (field) {
  case OX_FIELD_FLOAT:
    memcpy(out, tp->float_data, n * sizeof(float));
    break;
  case OX_FIELD_DOUBLE:
    memcpy(out, tp->double_data, n * sizeof(double));
    break;
  case OX_FIELD_INT64:
    memcpy(out, tp->int64_data, n * sizeof(int64_t));
    break;
  case OX_FIELD_STRING: {
    cleave_string *s = (cleave_string *)t->data;
    for (size_t i = 0; i < n; i++) {
      s[i].data = (const char *)tp->string_data[i].data;
      s[i].size = tp->string_data[i].len;
    }
    break;
  }
  case OX_FIELD_UINT64:
    for (size_t i = 0; i < n; i++) {
      uint64_t v = tp->uint64_data[i];
      if (elem == 4) {
        if (v > UINT32_MAX) {
          return tool_fail(err, CLI_EXIT_DATA,
                           "malformed tensor %s: uint64_data[%zu] = %" PRIu64 " does not fit %s",
                           what, i, v, ox_type_name(t->onnx_type));
        }
        uint32_t v32 = (uint32_t)v;
        memcpy(out + i * 4, &v32, 4);
      } else {
        memcpy(out + i * 8, &v, 8);
      }
    }
    break;
  case OX_FIELD_INT32: {
    int64_t lo;
    int64_t hi;
    ox_int32_range(t->onnx_type, elem, &lo, &hi);
    for (size_t i = 0; i < n; i++) {
      int32_t v = tp->int32_data[i];
      if (v < lo || v > hi) {
        return tool_fail(err, CLI_EXIT_DATA,
                         "malformed tensor %s: int32_data[%zu] = %" PRId32 " does not fit %s", what,
                         i, v, ox_type_name(t->onnx_type));
      }
      /* Keep the low `elem` bytes: the value (or bit pattern) in the element's width. */
      if (elem == 1) {
        uint8_t b = (uint8_t)(v & 0xff);
        out[i] = b;
      } else if (elem == 2) {
        uint16_t h = (uint16_t)(v & 0xffff);
        memcpy(out + i * 2, &h, 2);
      } else {
        memcpy(out + i * 4, &v, 4);
      }
    }
    break;
  }
  }
  return CLI_EXIT_OK;
}

/* Names the first typed field other than `allowed` that holds values, or NULL. */
static const char *ox_stray_field(const Onnx__TensorProto *tp, int allowed) {
  for (int f = OX_FIELD_FLOAT; f <= OX_FIELD_UINT64; f++) {
    if (f != allowed && ox_field_count(tp, (ox_field)f) > 0) {
      return ox_field_names[f];
    }
  }
  return NULL;
}

int ox_decode_tensor(const Onnx__TensorProto *tp, const char *what, ox_tensor *out,
                     tool_error *err) {
  int64_t count = 0;
  size_t nbytes = 0;
  memset(out, 0, sizeof *out);
  if (tp->has_data_location && tp->data_location == OX_LOCATION_EXTERNAL) {
    return tool_fail(err, CLI_EXIT_FAIL, "%s: tensors with external data are not supported", what);
  }
  if (tp->segment != NULL) {
    return tool_fail(err, CLI_EXIT_FAIL, "%s: segmented tensors are not supported", what);
  }
  if (!tp->has_data_type || tp->data_type == OX_UNDEFINED) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed tensor %s: it has no data_type", what);
  }
  int st = ox_tensor_measure(tp->data_type, tp->n_dims, tp->dims, what, &count, &nbytes, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  /* Check the data against the dims before allocating: a file may claim any dims. */
  ox_field field = ox_field_of(tp->data_type);
  const char *stray = ox_stray_field(tp, tp->has_raw_data ? -1 : (int)field);
  const char *type_name = ox_type_name(tp->data_type);
  if (tp->has_raw_data && field == OX_FIELD_STRING) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed tensor %s: a STRING tensor cannot use raw_data",
                     what);
  }
  if (tp->has_raw_data && stray != NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed tensor %s: it has both raw_data and %s", what,
                     stray);
  }
  if (tp->has_raw_data && tp->raw_data.len != nbytes) {
    char dims[128];
    shape_format(tp->dims, tp->n_dims, dims, sizeof dims);
    return tool_fail(
        err, CLI_EXIT_DATA,
        "malformed tensor %s: raw_data has %zu %s but a %s tensor of shape %s needs %zu", what,
        tp->raw_data.len, tool_plural(tp->raw_data.len, "byte", "bytes"), type_name, dims, nbytes);
  }
  if (!tp->has_raw_data && stray != NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "malformed tensor %s: a %s tensor cannot carry %s", what,
                     type_name, stray);
  }
  if (!tp->has_raw_data) {
    int complex = tp->data_type == OX_COMPLEX64 || tp->data_type == OX_COMPLEX128;
    size_t want = (size_t)count * (complex ? 2u : 1u);
    size_t n = ox_field_count(tp, field);
    if (n != want) {
      return tool_fail(err, CLI_EXIT_DATA, "malformed tensor %s: %zu %s %s for %" PRId64 " %s %s",
                       what, n, ox_field_names[field], tool_plural(n, "value", "values"), count,
                       type_name, tool_plural((uint64_t)count, "element", "elements"));
    }
  }
  st = ox_tensor_init(out, tp->data_type, tp->n_dims, tp->dims, what, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  if (!tp->has_raw_data) {
    st = ox_decode_typed(tp, what, out, field, err);
  } else if (out->nbytes > 0) {
    memcpy(out->data, tp->raw_data.data, out->nbytes);
    if (!ox_host_is_little_endian()) {
      int complex = out->onnx_type == OX_COMPLEX64 || out->onnx_type == OX_COMPLEX128;
      size_t elem = out->nbytes / (size_t)out->count;
      ox_swap_units((unsigned char *)out->data, out->nbytes, complex ? elem / 2 : elem);
    }
  }
  if (st != CLI_EXIT_OK) {
    ox_tensor_free(out);
  }
  return st;
}

int ox_decode_sequence(const Onnx__SequenceProto *sp, const char *what, ox_value *out,
                       tool_error *err) {
  memset(out, 0, sizeof *out);
  out->kind = OX_KIND_SEQUENCE;
  if (sp->n_sparse_tensor_values > 0 || sp->n_sequence_values > 0 || sp->n_map_values > 0 ||
      sp->n_optional_values > 0 ||
      (sp->has_elem_type && sp->elem_type != OX_SEQ_TENSOR && sp->elem_type != OX_SEQ_UNDEFINED)) {
    return tool_fail(err, CLI_EXIT_FAIL, "%s: only sequences of tensors are supported", what);
  }
  if (sp->n_tensor_values > 0 && (!sp->has_elem_type || sp->elem_type != OX_SEQ_TENSOR)) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "malformed sequence %s: it holds tensors but its elem_type "
                     "is not TENSOR",
                     what);
  }
  if (sp->n_tensor_values > 0) {
    out->items = calloc(sp->n_tensor_values, sizeof *out->items);
    if (out->items == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", what);
    }
  }
  for (size_t i = 0; i < sp->n_tensor_values; i++) {
    char item[512];
    snprintf(item, sizeof item, "%s, tensor_values[%zu]", what, i);
    int st = ox_decode_tensor(sp->tensor_values[i], item, &out->items[i], err);
    if (st != CLI_EXIT_OK) {
      ox_value_free(out);
      return st;
    }
    out->length = i + 1;
  }
  return CLI_EXIT_OK;
}
