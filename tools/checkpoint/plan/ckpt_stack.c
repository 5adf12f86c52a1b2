/* Stacked experts: the experts of each name found, checked and stacked along a new axis. */
#include "ckpt_stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_companion.h"
#include "shape_format.h"

int ckpt_stack_match(const ckpt_split_rule *rule, const char *name, ckpt_match *m, int64_t *index) {
  ckpt_match all;
  if (!ckpt_glob_match(rule->stack_glob, name, &all)) {
    return 0;
  }
  int c = rule->expert_capture;
  const char *digits = all.start[c];
  size_t len = all.len[c];
  /* One spelling per number, so that no two tensors are the same expert. */
  if (len == 0 || len > 10 || (digits[0] == '0' && len > 1)) {
    return 0;
  }
  int64_t value = 0;
  for (size_t i = 0; i < len; i++) {
    if (digits[i] < '0' || digits[i] > '9') {
      return 0;
    }
    value = value * 10 + (digits[i] - '0');
  }
  if (value > INT32_MAX) {
    return 0;
  }
  *index = value;
  if (m != NULL) {
    m->count = 0;
    for (int i = 0; i < all.count; i++) {
      if (i != c) {
        m->start[m->count] = all.start[i];
        m->len[m->count++] = all.len[i];
      }
    }
  }
  return 1;
}

char *ckpt_expert_name(const char *pattern, const ckpt_match *m, int64_t index,
                       const char *suffix) {
  /* The number first, so that a capture that holds the mark is left as it is. */
  char number[24] = "";
  const char *mark = index >= 0 ? strstr(pattern, CKPT_EXPERT_MARK) : NULL;
  size_t before = mark != NULL ? (size_t)(mark - pattern) : strlen(pattern);
  const char *after = mark != NULL ? mark + strlen(CKPT_EXPERT_MARK) : "";
  if (mark != NULL) {
    snprintf(number, sizeof number, "%lld", (long long)index);
  }
  size_t size = before + strlen(number) + strlen(after) + strlen(suffix) + 1;
  char *numbered = malloc(size);
  if (numbered == NULL) {
    return NULL;
  }
  snprintf(numbered, size, "%.*s%s%s%s", (int)before, pattern, number, after, suffix);
  if (m == NULL) {
    return numbered;
  }
  char *out = ckpt_glob_fill(numbered, m);
  free(numbered);
  return out;
}

/* One expert of a rule: its tensor, the name of its stack, its number and the captures. */
typedef struct member {
  const ckpt_tensor *t;
  char *name;
  int64_t index;
  ckpt_match match;
} member;

static int by_stack(const void *a, const void *b) {
  const member *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Tensors `ts` (expert j is ts[j]) stacked along the rule's new axis into `out`. */
static int stack_tensors(const ckpt_split_rule *rule, const ckpt_tensor *const *ts, size_t n,
                         const char *out, ckpt_out_file *files, int one_file, tool_error *err) {
  const ckpt_tensor *t0 = ts[0];
  char s0[SHAPE_TEXT_MAX], sj[SHAPE_TEXT_MAX];
  shape_format(t0->shape, (size_t)t0->ndim, s0, sizeof s0);
  for (size_t j = 1; j < n; j++) {
    const ckpt_tensor *t = ts[j];
    if (t->dtype != t0->dtype || t->ndim != t0->ndim ||
        (t->ndim > 0 && memcmp(t->shape, t0->shape, (size_t)t->ndim * sizeof *t->shape) != 0)) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: tensor '%.200s' (expert %zu of '%.200s') is %s %.300s but expert 0 "
                       "'%.200s' is %s %.300s: the experts of one stack must have one dtype and "
                       "one shape",
                       rule->origin, t->name, j, out, t->dtype->name,
                       shape_format(t->shape, (size_t)t->ndim, sj, sizeof sj), t0->name,
                       t0->dtype->name, s0);
    }
  }
  /* The stacking rule is the library's ConcatFromSequence-11 with new_axis 1 (the axis in
   * [-r-1, r], the sizes); the element type does not enter it, so bytes stand for every type. */
  cleave_tensor *in = calloc(n, sizeof *in);
  if (in == NULL) {
    return tool_oom(err, "stacking experts");
  }
  for (size_t j = 0; j < n; j++) {
    in[j].type = cleave_type_of(CLEAVE_U8);
    in[j].rank = (size_t)t0->ndim;
    in[j].shape = t0->shape;
  }
  cleave_concat_op op = cleave_op_concat_from_sequence(11, &rule->cut.axis, 1);
  cleave_concat_info info;
  cleave_error e;
  int64_t shape[CKPT_MAX_RANK + 1];
  cleave_status st = cleave_concat_infer(&op, in, n, &info, shape, CKPT_MAX_RANK + 1, &e);
  free(in);
  if (st != CLEAVE_OK) {
    return tool_fail(err, cli_exit_for_status(st),
                     "%s: the %zu experts of '%.200s' (%s %.300s): %s", rule->origin, n, out,
                     t0->dtype->name, s0, e.message);
  }
  if (info.output_rank > CKPT_MAX_RANK) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: the stack '%.200s' would have %zu dimensions, over %d", rule->origin, out,
                     info.output_rank, CKPT_MAX_RANK);
  }
  /* Expert j's rows of the dimensions from the axis on go to every n-th row of the stack. */
  uint64_t outer = 1, inner = 1, bits = 0, bytes = 0;
  for (size_t d = 0; d < (size_t)t0->ndim; d++) {
    *(d < info.axis ? &outer : &inner) *= (uint64_t)t0->shape[d];
  }
  if (ckpt_dtype_bits(t0->dtype, inner, &bits) != 0 || bits % 8 != 0 ||
      __builtin_mul_overflow(t0->bytes, (uint64_t)n, &bytes)) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: the experts of '%.200s' (%s %.300s) stacked on axis %zu: each expert's "
                     "rows of %llu %s would not start on byte or block boundaries",
                     rule->origin, out, t0->dtype->name, s0, info.axis, (unsigned long long)inner,
                     tool_plural(inner, "element", "elements"));
  }
  ckpt_span *spans = calloc(n, sizeof *spans);
  if (spans == NULL) {
    return tool_oom(err, "stacking experts");
  }
  uint64_t row = bits / 8;
  for (size_t j = 0; j < n; j++) {
    ckpt_span span = {ts[j]->file, ts[j]->offset, row, 0, j * row, n * row, outer, row, 0};
    spans[j] = t0->bytes != 0 ? span : ckpt_span_whole(ts[j]);
  }
  ckpt_out_tensor o = ckpt_out_whole(t0);
  o.name = (char *)out;
  o.ndim = (int)info.output_rank;
  o.shape = shape;
  o.bytes = bytes;
  int rc = ckpt_out_file_add(&files[one_file ? 0 : t0->file], &o, spans, n) != 0
               ? tool_oom(err, "stacking experts")
               : 0;
  free(spans);
  return rc;
}

/* The scales of the experts `ms` (each named as its weight with the scale suffix): none, or one
 * for every expert, stacked as the weights are. */
static int stack_scales(const ckpt_model *m, const ckpt_split_rule *rule, const member *ms,
                        size_t n, ckpt_out_file *files, int one_file, tool_error *err) {
  const ckpt_tensor **scales = calloc(n + 1, sizeof *scales);
  if (scales == NULL) {
    return tool_oom(err, "stacking experts");
  }
  size_t found = 0, with = 0, without = 0;
  int rc = 0;
  for (size_t j = 0; j < n && rc == 0; j++) {
    char *name = ckpt_expert_name(ms[j].t->name, NULL, -1, CKPT_SCALE_SUFFIX);
    scales[j] = name != NULL ? ckpt_model_find(m, name) : NULL;
    rc = name == NULL ? tool_oom(err, "stacking experts") : 0;
    free(name);
    *(scales[j] != NULL ? &with : &without) = j;
    found += scales[j] != NULL;
    if (rc == 0 && scales[j] != NULL) {
      rc = ckpt_companion_check(&m->quant, ms[j].t, scales[j], rule->origin, err);
    }
  }
  if (rc == 0 && found != 0 && found != n) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s: expert %zu of '%.200s' ('%.200s') has a scale but expert %zu ('%.200s') "
                   "has none: the scales of a stack are stacked with it",
                   rule->origin, with, ms[0].name, ms[with].t->name, without, ms[without].t->name);
  }
  /* A scale's blocks tile the weight's last two dims: a new axis among them (at or past rank - 1
   * of the stacked tensor, counting from the front) would leave a scale that no longer fits. */
  int64_t rank = ms[0].t->ndim,
          axis = rule->cut.axis < 0 ? rule->cut.axis + rank + 1 : rule->cut.axis;
  if (rc == 0 && found != 0 && axis > rank - 2) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s: '%.200s' has block scales over its last two dims, and a new axis %lld "
                   "would stack the experts among them: stack along an axis from 0 to %lld",
                   rule->origin, ms[0].name, (long long)rule->cut.axis, (long long)(rank - 2));
  }
  char *out =
      rc == 0 && found != 0 ? ckpt_expert_name(ms[0].name, NULL, -1, CKPT_SCALE_SUFFIX) : NULL;
  if (rc == 0 && found != 0) {
    rc = out == NULL ? tool_oom(err, "stacking experts")
                     : stack_tensors(rule, scales, n, out, files, one_file, err);
  }
  free(out);
  free(scales);
  return rc;
}

/* One stack: experts 0..n-1, every one present, then the weights and their scales. */
static int plan_group(const ckpt_model *m, const ckpt_split_rule *rule, const member *ms, size_t n,
                      ckpt_out_file *files, int one_file, tool_error *err) {
  for (size_t j = 0; j < n; j++) {
    if (ms[j].index == (int64_t)j) {
      continue;
    }
    char *missing = ckpt_expert_name(rule->glob, &ms[0].match, (int64_t)j, "");
    int rc = tool_fail(err, CLI_EXIT_DATA,
                       "%s: expert %zu of '%.200s' is missing: no tensor '%.200s' (the experts "
                       "of a stack are numbered from 0 without a gap; the highest here is %lld)",
                       rule->origin, j, ms[0].name, missing != NULL ? missing : "?",
                       (long long)ms[n - 1].index);
    free(missing);
    return rc;
  }
  const ckpt_tensor **ts = calloc(n + 1, sizeof *ts);
  if (ts == NULL) {
    return tool_oom(err, "stacking experts");
  }
  for (size_t j = 0; j < n; j++) {
    ts[j] = ms[j].t;
  }
  int rc = stack_tensors(rule, ts, n, ms[0].name, files, one_file, err);
  free(ts);
  return rc == 0 ? stack_scales(m, rule, ms, n, files, one_file, err) : rc;
}

/* Every stack of one rule. */
static int plan_rule(const ckpt_model *m, const ckpt_split_rule *rule, ckpt_out_file *files,
                     int one_file, tool_error *err) {
  member *ms = calloc(m->tensor_count + 1, sizeof *ms);
  size_t n = 0;
  int rc = ms == NULL ? tool_oom(err, "stacking experts") : 0;
  for (size_t k = 0; k < m->tensor_count && rc == 0; k++) {
    const ckpt_tensor *t = m->by_name[k];
    member *x = &ms[n];
    size_t at;
    /* A scale is stacked with its weight. */
    if (!ckpt_stack_match(rule, t->name, &x->match, &x->index) ||
        ckpt_companion_weight(m, t, &at) != NULL) {
      continue;
    }
    x->t = t;
    x->name = ckpt_glob_fill(rule->names[0], &x->match);
    rc = x->name == NULL ? tool_oom(err, "stacking experts") : 0;
    n++;
  }
  if (rc == 0) {
    qsort(ms, n, sizeof *ms, by_stack);
  }
  for (size_t g = 0, end; g < n && rc == 0; g = end) {
    for (end = g + 1; end < n && strcmp(ms[end].name, ms[g].name) == 0; end++) {
    }
    rc = plan_group(m, rule, ms + g, end - g, files, one_file, err);
  }
  for (size_t i = 0; i < n; i++) {
    free(ms[i].name);
  }
  free(ms);
  return rc;
}

int ckpt_plan_stacks(const ckpt_model *m, const ckpt_split_rule *rules, size_t rule_count,
                     ckpt_out_file *files, int one_file, tool_error *err) {
  int rc = 0;
  for (size_t i = 0; i < rule_count && rc == 0; i++) {
    if (rules[i].experts == CKPT_STACK) {
      rc = plan_rule(m, &rules[i], files, one_file, err);
    }
  }
  return rc;
}
