/*
 * Split-18 with num_outputs: ceil(d/n) chunks over an interval of d, in closed form.
 */
#include "rules/rules.h"

/*
 * Split-18 with num_outputs = n >= 2 on d: the first n-1 outputs get c = ceil(d/n), the last
 * gets d - c(n-1), and d is valid when that is >= 0. Write d = qn + r with 0 <= r < n: r = 0 gives
 * c = q and last = q; r >= 1 gives c = q+1 and last = q + r - (n-1), so r is valid when
 * r >= n-1-q. Within block q the valid residues r >= 1 form a run [max(1, n-1-q), n-1] on which
 * last rises to q, and r = 0 gives q too.
 *
 * Hence over d in [lo, hi]: c is monotone in d, so its bounds come from the first and last
 * valid d; the smallest last lies in the first two blocks (the minimum of a full block,
 * max(0, q-n+2), never falls as q grows), and the largest in the last block (from the second
 * block on it holds r = 0, whose last q is above every earlier block's). Everything is computed
 * from (q, r), never from d itself, so nothing overflows.
 */
typedef struct block_acc {
  bool any;
  int64_t c_lo, c_hi, last_lo, last_hi;
} block_acc;

/* Folds the valid residues [ra, rb] of block q into `acc`. */
static void fold_block(int64_t n, int64_t q, int64_t ra, int64_t rb, block_acc *acc) {
  int64_t first_pos = cleave_max64(cleave_max64(1, ra), n - 1 - q < 1 ? 1 : n - 1 - q);
  bool has_pos = first_pos <= rb, has_zero = ra == 0;
  if (!has_pos && !has_zero) {
    return;
  }
  int64_t c_lo = has_zero ? q : q + 1, c_hi = has_pos ? q + 1 : q;
  /* At a valid residue r >= 1, last = q - (n-1-r) >= 0, and last <= q. */
  int64_t last_lo = has_pos ? q - (n - 1 - first_pos) : q;
  int64_t last_hi = has_zero ? q : q - (n - 1 - rb);
  if (!acc->any) {
    *acc = (block_acc){true, c_lo, c_hi, last_lo, last_hi};
    return;
  }
  acc->c_lo = cleave_min64(acc->c_lo, c_lo);
  acc->c_hi = cleave_max64(acc->c_hi, c_hi);
  acc->last_lo = cleave_min64(acc->last_lo, last_lo);
  acc->last_hi = cleave_max64(acc->last_hi, last_hi);
}

/* Sets chunk (c) and last for Split-18 with num_outputs n. Returns false when no d is valid. */
bool cleave_ceil_parts(int64_t n, cleave_dim d, cleave_split_hull *hull) {
  if (n == 1) {
    cleave_hull_uniform(hull, cleave_dim_point(1), d, d);
    return true;
  }
  bool bounded = cleave_dim_bounded(d);
  int64_t q0 = d.lo / n, r0 = d.lo % n;
  int64_t q1 = bounded ? d.hi / n : INT64_MAX, r1 = bounded ? d.hi % n : n - 1;
  block_acc acc = {false, 0, 0, 0, 0};
  fold_block(n, q0, r0, q1 == q0 ? r1 : n - 1, &acc);
  /* n >= 2, so q <= INT64_MAX / 2 and q + 1, q + 2 do not overflow. */
  if (q1 >= q0 + 1) {
    fold_block(n, q0 + 1, 0, q1 == q0 + 1 ? r1 : n - 1, &acc);
  }
  if (bounded && q1 >= q0 + 2) {
    fold_block(n, q1, 0, r1, &acc);
  }
  if (!acc.any) {
    return false;
  }
  cleave_dim chunk = cleave_dim_range(acc.c_lo, bounded ? acc.c_hi : CLEAVE_DIM_UNBOUNDED);
  cleave_dim last = cleave_dim_range(acc.last_lo, bounded ? acc.last_hi : CLEAVE_DIM_UNBOUNDED);
  cleave_hull_uniform(hull, cleave_dim_point(n), chunk, last);
  return true;
}
