/* Shared by the checks of ir-check: declared input shapes, comparisons, verdicts. */
#include "ir_check_shapes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "ir_types.h"

/* A malloc'd printf; NULL when out of memory. */
char *ir_text_printf(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (n < 0) {
    return NULL;
  }
  char *s = malloc((size_t)n + 1);
  if (s != NULL) {
    va_start(args, format);
    vsnprintf(s, (size_t)n + 1, format, args);
    va_end(args);
  }
  return s;
}

/* The canonical text of a partial shape (malloc'd), or NULL. */
char *ir_shape_text(size_t rank, const cleave_dim *dims) {
  cleave_partial_shape s = {rank, dims};
  size_t length = 0;
  cleave_status st = cleave_partial_shape_format(&s, NULL, 0, &length, NULL);
  if (st != CLEAVE_OK && st != CLEAVE_ERROR_CAPACITY) {
    return ir_text_printf("(malformed shape)");
  }
  char *buf = malloc(length + 1);
  if (buf != NULL && cleave_partial_shape_format(&s, buf, length + 1, NULL, NULL) != CLEAVE_OK) {
    free(buf);
    return NULL;
  }
  return buf;
}

ir_source ir_producer(const ir_model *m, const ir_port *input) {
  ir_source s = {NULL, NULL};
  const ir_edge *e = ir_port_edge(m, input);
  if (e != NULL) {
    s.layer = &m->layers[e->from_index];
    s.port = &s.layer->ports[e->from_port_index];
  }
  return s;
}

/* 1 when every declared dim lies in the inferred interval; 0 when some pair is disjoint (its
 * index in *bad_dim) or the ranks differ (*bad_dim = IR_RANKS_DIFFER); 2 when they overlap but the
 * declared interval is wider. */
int ir_declared_input(const ir_model *m, const ir_port *input, cleave_dim *dims, size_t *rank,
                      const char **type_name, char *label, size_t label_size, char **why) {
  ir_source s = ir_producer(m, input);
  ir_layer_label(s.layer, label, label_size);
  *type_name = s.port->precision;
  *why = NULL;
  const char *shape = ir_layer_attr(s.layer, "shape");
  if (strcmp(s.layer->type, "Parameter") == 0 && shape != NULL) {
    char text[200];
    if (ir_shape_parse(shape, dims, IR_MAX_RANK, rank, text, sizeof text) != 0) {
      *why = ir_text_printf("%s", text);
      return 1;
    }
    if (ir_layer_attr(s.layer, "element_type") != NULL) {
      *type_name = ir_layer_attr(s.layer, "element_type");
    }
    return 0;
  }
  *rank = s.port->rank;
  for (size_t i = 0; i < s.port->rank; i++) {
    dims[i] = s.port->dims[i];
  }
  return 0;
}

int ir_compare_shapes(size_t rank, const cleave_dim *inferred, const ir_port *declared,
                      size_t *bad_dim) {
  *bad_dim = IR_RANKS_DIFFER;
  if (rank == CLEAVE_RANK_DYNAMIC) {
    return 1;
  }
  if (declared->rank != rank) {
    return 0;
  }
  int wider = 0;
  for (size_t i = 0; i < rank; i++) {
    cleave_dim a = inferred[i], d = declared->dims[i];
    uint64_t ahi = a.hi == CLEAVE_DIM_UNBOUNDED ? UINT64_MAX : (uint64_t)a.hi;
    uint64_t dhi = d.hi == CLEAVE_DIM_UNBOUNDED ? UINT64_MAX : (uint64_t)d.hi;
    if ((uint64_t)d.lo > ahi || (uint64_t)a.lo > dhi) {
      *bad_dim = i;
      return 0;
    }
    if (d.lo < a.lo || dhi > ahi) {
      wider = 1;
    }
  }
  return wider ? 2 : 1;
}

/* 1 when two declared shapes can describe the same tensor (every dim pair overlaps). */
int ir_shapes_overlap(size_t rank_a, const cleave_dim *a, size_t rank_b, const cleave_dim *b) {
  if (rank_a == CLEAVE_RANK_DYNAMIC || rank_b == CLEAVE_RANK_DYNAMIC) {
    return 1;
  }
  if (rank_a != rank_b) {
    return 0;
  }
  for (size_t i = 0; i < rank_a; i++) {
    uint64_t ahi = a[i].hi == CLEAVE_DIM_UNBOUNDED ? UINT64_MAX : (uint64_t)a[i].hi;
    uint64_t bhi = b[i].hi == CLEAVE_DIM_UNBOUNDED ? UINT64_MAX : (uint64_t)b[i].hi;
    if ((uint64_t)a[i].lo > bhi || (uint64_t)b[i].lo > ahi) {
      return 0;
    }
  }
  return 1;
}

int ir_set_verdict(ir_check_row *row, ir_verdict verdict, char *reason, tool_error *err) {
  row->verdict = verdict;
  free(row->reason);
  row->reason = reason;
  return reason == NULL ? tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : 0;
}
