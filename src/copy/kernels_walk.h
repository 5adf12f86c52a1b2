/*
 * The row walker, instantiated once per kernel family (included by kernels.c and kernels_avx2.c).
 * The including file defines, before including it:
 *   CLEAVE_K(name)                 the family's name for a static function (e.g. name##_avx2);
 *   static inline void CLEAVE_K(copy_nt_seq)(unsigned char *dst, const unsigned char *src,
 *                                            size_t n)
 *                                  a copy front to back that streams whole 64-byte lines of dst;
 *   static inline void CLEAVE_K(stream_step)(unsigned char *dst, const unsigned char *src)
 *                                  streams 256 bytes to the line-aligned dst;
 *   static inline void CLEAVE_K(copy_cached)(unsigned char *dst, const unsigned char *src,
 *                                            size_t n)
 *                                  a copy through the caches (ordinary stores);
 *   static inline void CLEAVE_K(stream_join)(unsigned char *line, const unsigned char *a,
 *                                            size_t t, const unsigned char *b)
 *                                  writes the 64-byte aligned `line`: the t bytes at `a` (0 < t
 *                                  < 64), then the 64 - t bytes at `b`; it may read the 64 bytes
 *                                  from `a` and from `b - t`;
 *   NT_MIN                         the smallest copy that copy_nt streams.
 * Being compiled in each family's file lets the compiler inline that copy into the loop.
 */

/* Copies of at least this many bytes go as CLEAVE_NT_LANES interleaved streams. */
#define CLEAVE_NT_LANES_MIN 16384
#define CLEAVE_NT_LANES 4

/* A copy that streams whole 64-byte lines of dst. A large one is cut into 4 equal lanes that
 * advance together, 256 bytes each per step: one stream front to back keeps too few lines in
 * flight to saturate memory on some CPUs (Intel Xeon of 2026-11-24: 256 MiB in 30-34 ms one
 * stream, 25-27 ms four, glibc's memcpy 25-27 ms; measured with bench_split). */
static inline void CLEAVE_K(copy_nt)(unsigned char *dst, const unsigned char *src, size_t n) {
  if (n < CLEAVE_NT_LANES_MIN) {
    CLEAVE_K(copy_nt_seq)(dst, src, n);
    return;
  }
  size_t head = (size_t)(-(uintptr_t)dst) & 63;
  CLEAVE_K(copy_nt_seq)(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  size_t lane = n / CLEAVE_NT_LANES / 256 * 256;
  for (size_t at = 0; at < lane; at += 256) {
    for (size_t k = 0; k < CLEAVE_NT_LANES; k++) {
      CLEAVE_K(stream_step)(dst + k * lane + at, src + k * lane + at);
    }
  }
  size_t done = CLEAVE_NT_LANES * lane;
  CLEAVE_K(copy_nt_seq)(dst + done, src + done, n - done);
}

/* Streams one output's whole row piece of `unit` bytes (row o of the walk) to `dst`, which
 * need not be line-aligned. The piece's rows lie back to back in the output, so the line that
 * holds the end of row o and the start of row o + 1 is written whole, from both input rows, when
 * row o is copied (unless row o is the walk's last, `last`); row o + 1 then starts at a line
 * boundary (its first bytes skipped unless it is the walk's first row, `first`). Only the very
 * first and last lines of a walk get ordinary stores: otherwise every row would leave two part
 * lines that the caches must read from memory before writing them (measured on [64,1024,1024]
 * f32 split on axis 2 into 16-byte aligned outputs: 13-16 ms instead of 21-25). The reads stay
 * within the input: `src + stride` is row o + 1's piece, of at least NT_MIN bytes. */
static inline void CLEAVE_K(stream_row)(unsigned char *dst, const unsigned char *src, size_t unit,
                                        int64_t stride, bool first, bool last) {
  size_t skip = first ? 0 : (size_t)(-(uintptr_t)dst) & 63;
  size_t tail = last ? 0 : (size_t)((uintptr_t)dst + unit) & 63;
  CLEAVE_K(copy_nt)(dst + skip, src + skip, unit - skip - tail);
  if (tail != 0) {
    CLEAVE_K(stream_join)(dst + unit - tail, src + unit - tail, tail, src + stride);
  }
}

/* The tensors of a walk in either direction: a split reads the whole tensor `in` and writes the
 * parts `outs`; a join reads the parts `ins` and writes the whole tensor `out`. */
typedef struct CLEAVE_K(walk_io) {
  const unsigned char *in;
  void *const *outs;
  unsigned char *out;
  cleave_parts ins;
} CLEAVE_K(walk_io);

/* Copies columns [lo, hi) of rows o, o + gap, ..., o + (count - 1) * gap: piece by piece in
 * the whole tensor's order, each piece for all those rows before the next; from the whole tensor
 * to the parts, or back when `join` (a constant at every call, so each direction compiles to its
 * own loop). `first` and `last` say whether these rows are the first and last of their runs of
 * consecutive rows (see stream_row); the segment holding `lo` is `seg0`, with `lo` in its part j0
 * at byte off0. */
static inline void CLEAVE_K(walk_rows)(const cleave_engine *e, const CLEAVE_K(walk_io) * io,
                                       bool join, int64_t o, int64_t gap, int64_t count, int64_t lo,
                                       int64_t hi, const cleave_seg *seg0, int64_t j0, int64_t off0,
                                       bool first, bool last) {
  bool nt = e->nontemporal;
  const cleave_seg *seg = seg0;
  int64_t j = j0, off = off0, c = lo;
  while (c < hi) {
    int64_t n = seg->unit - off;
    n = n < hi - c ? n : hi - c;
    for (int64_t k = 0, r = o; k < count; k++, r += gap) {
      const unsigned char *src;
      unsigned char *dst;
      if (join) {
        src = cleave_part(io->ins, seg->first + j) + r * seg->unit + off;
        dst = io->out + r * e->stride + c;
      } else {
        src = io->in + r * e->stride + c;
        dst = (unsigned char *)io->outs[seg->first + j] + r * seg->unit + off;
      }
      if (!join && nt && n == seg->unit && n >= NT_MIN) {
        /* A whole piece: the same holds for this output in every row of the walk. (A join
         * writes each row's pieces back to back: its lines are whole but at the pieces' ends,
         * where ordinary stores meet.) */
        CLEAVE_K(stream_row)(dst, src, (size_t)n, e->stride, first, last);
      } else if (nt) {
        CLEAVE_K(copy_nt)(dst, src, (size_t)n);
      } else {
        CLEAVE_K(copy_cached)(dst, src, (size_t)n);
      }
    }
    c += n;
    off = 0;
    if (++j == seg->count) {
      seg++;
      j = 0;
    }
  }
}

/* Copies rows [o0, o1) of columns [lo, hi): each row's bytes go, in the whole tensor's order, to
 * the parts whose columns they are (or come from them, for a join). The segment holding `lo` is
 * found once for all rows.
 *
 * A streamed split whose pieces are too small for copy_nt's lanes gets lanes of rows instead:
 * the rows are cut into CLEAVE_NT_LANES runs that advance together, piece by piece, so that
 * several input streams are in flight ([64,1024,1024] f32 split on axis 2, 1 KiB pieces: 28 ms
 * instead of 35 ms on the Intel Xeon of 2026-11-24, one thread). A join does not: it writes its
 * rows back to back, one output stream fed by one stream per input, which lanes of rows would
 * multiply (the same tensor joined from 1 KiB pieces: 12.7-14.6 ms without, 24-26.5 ms with, on
 * the AMD EPYC host of 2026-11-28). */
static inline void CLEAVE_K(walk_either)(const cleave_engine *e, const CLEAVE_K(walk_io) * io,
                                         bool join, int64_t o0, int64_t o1, int64_t lo,
                                         int64_t hi) {
  if (o0 >= o1 || lo >= hi) {
    return;
  }
  const cleave_seg *seg0 = &e->segs[cleave_engine_find(e, lo)];
  int64_t rel = lo - seg0->col, j0 = 0, off0 = 0;
  if (rel != 0) {
    j0 = rel / seg0->unit;
    off0 = rel % seg0->unit;
  }
  int64_t lanes = 1;
  if (!join && e->nontemporal && o1 - o0 >= 2 * CLEAVE_NT_LANES) {
    int64_t widest = 0;
    for (const cleave_seg *seg = seg0; seg < e->segs + e->num_segs && seg->col < hi; seg++) {
      widest = seg->unit > widest ? seg->unit : widest;
    }
    lanes = widest < CLEAVE_NT_LANES_MIN ? CLEAVE_NT_LANES : 1;
  }
  int64_t per = (o1 - o0) / lanes;
  for (int64_t r = 0; r < per; r++) {
    CLEAVE_K(walk_rows)
    (e, io, join, o0 + r, per, lanes, lo, hi, seg0, j0, off0, r == 0, r + 1 == per);
  }
  /* The rows left over by the lanes, as one more run. */
  for (int64_t o = o0 + lanes * per; o < o1; o++) {
    CLEAVE_K(walk_rows)
    (e, io, join, o, 0, 1, lo, hi, seg0, j0, off0, o == o0 + lanes * per, o + 1 == o1);
  }
}

/* The split's walk: the input's rows into the outputs. */
static void CLEAVE_K(walk)(const cleave_engine *e, const unsigned char *in, void *const *outs,
                           int64_t o0, int64_t o1, int64_t lo, int64_t hi) {
  CLEAVE_K(walk_io) io = {in, outs, NULL, {NULL, 0}};
  CLEAVE_K(walk_either)(e, &io, false, o0, o1, lo, hi);
}

/* The join's walk (Concat): the inputs' rows into the output's, the same schedule the other way.
 */
static void CLEAVE_K(join_walk)(const cleave_engine *e, unsigned char *out, cleave_parts ins,
                                int64_t o0, int64_t o1, int64_t lo, int64_t hi) {
  CLEAVE_K(walk_io) io = {NULL, NULL, out, ins};
  CLEAVE_K(walk_either)(e, &io, true, o0, o1, lo, hi);
}

/* Copies the `unit`-byte element of every output of a tiny segment for rows [o0, o1), `rows` rows
 * at a time (rows * unit is a multiple of 64): for each output in turn, the units of those rows,
 * so that every output receives whole lines per step while the few input lines of the step stay
 * in L1 for the neighbouring outputs. A line is thus never left half-written in the cache,
 * where outputs at the same offset within their pages would evict it before it is complete.
 * The element copies use at most two overlapping fixed-size moves (plain loads and stores). */
#define CLEAVE_GATHER_LOOP(MOVE)                                                                   \
  for (int64_t b = o0; b < o1; b += rows) {                                                        \
    int64_t end = o1 - b > rows ? b + rows : o1;                                                   \
    for (int64_t j = 0; j < seg->count; j++) {                                                     \
      unsigned char *dst = (unsigned char *)out[j] + b * unit;                                     \
      const unsigned char *src = in + b * stride + seg->col + j * unit;                            \
      for (int64_t o = b; o < end; o++, dst += unit, src += stride) {                              \
        MOVE;                                                                                      \
      }                                                                                            \
    }                                                                                              \
  }

#define CLEAVE_MOVE_EXACT(W) memcpy(dst, src, W)
#define CLEAVE_MOVE_PAIR(W)                                                                        \
  do {                                                                                             \
    unsigned char a_[W], b_[W];                                                                    \
    memcpy(a_, src, W);                                                                            \
    memcpy(b_, src + unit - (W), W);                                                               \
    memcpy(dst, a_, W);                                                                            \
    memcpy(dst + unit - (W), b_, W);                                                               \
  } while (0)

/* The loop `LOOP` specialised by unit size: fixed-size moves the compiler turns into a load and
 * a store each. Units of 1, 2, 4 and 8 bytes go to the transpositions; above 64 only with a
 * raised tiny threshold (tests). */
#define CLEAVE_GATHER_SIZES(LOOP)                                                                  \
  do {                                                                                             \
    if (unit == 64) {                                                                              \
      LOOP(CLEAVE_MOVE_EXACT(64));                                                                 \
    } else if (unit > 32 && unit < 64) {                                                           \
      LOOP(CLEAVE_MOVE_PAIR(32));                                                                  \
    } else if (unit == 32) {                                                                       \
      LOOP(CLEAVE_MOVE_EXACT(32));                                                                 \
    } else if (unit > 16 && unit < 32) {                                                           \
      LOOP(CLEAVE_MOVE_PAIR(16));                                                                  \
    } else if (unit == 16) {                                                                       \
      LOOP(CLEAVE_MOVE_EXACT(16));                                                                 \
    } else if (unit > 8 && unit < 16) {                                                            \
      LOOP(CLEAVE_MOVE_PAIR(8));                                                                   \
    } else if (unit > 4 && unit < 8) {                                                             \
      LOOP(CLEAVE_MOVE_PAIR(4));                                                                   \
    } else if (unit == 3) {                                                                        \
      LOOP(CLEAVE_MOVE_PAIR(2));                                                                   \
    } else {                                                                                       \
      LOOP(memcpy(dst, src, (size_t)unit));                                                        \
    }                                                                                              \
  } while (0)

static void CLEAVE_K(gather)(const cleave_engine *e, const cleave_seg *seg, const unsigned char *in,
                             void *const *outs, int64_t o0, int64_t o1) {
  int64_t unit = seg->unit, stride = e->stride;
  void *const *out = outs + seg->first;
  /* 64 / gcd(unit, 64) rows make whole lines. */
  int64_t rows = 64;
  while (rows > 1 && (unit * (rows / 2)) % 64 == 0) {
    rows /= 2;
  }
  CLEAVE_GATHER_SIZES(CLEAVE_GATHER_LOOP);
}

#define CLEAVE_JOIN_GATHER_LOOP(MOVE)                                                              \
  for (int64_t b = o0; b < o1; b += rows) {                                                        \
    int64_t end = o1 - b > rows ? b + rows : o1;                                                   \
    for (int64_t j = 0; j < seg->count; j++) {                                                     \
      const unsigned char *src = cleave_part(ins, seg->first + j) + b * unit;                      \
      unsigned char *dst = out + b * stride + seg->col + j * unit;                                 \
      for (int64_t o = b; o < end; o++, src += unit, dst += stride) {                              \
        MOVE;                                                                                      \
      }                                                                                            \
    }                                                                                              \
  }

/* The join's gather: the same loop the other way, each input's units of `rows` rows (a whole
 * input line per step) into their places in the output's rows, whose lines stay in L1 while the
 * neighbouring inputs fill them. */
static void CLEAVE_K(join_gather)(const cleave_engine *e, const cleave_seg *seg, unsigned char *out,
                                  cleave_parts ins, int64_t o0, int64_t o1) {
  int64_t unit = seg->unit, stride = e->stride;
  int64_t rows = 64;
  while (rows > 1 && (unit * (rows / 2)) % 64 == 0) {
    rows /= 2;
  }
  CLEAVE_GATHER_SIZES(CLEAVE_JOIN_GATHER_LOOP);
}

#undef CLEAVE_GATHER_SIZES
#undef CLEAVE_JOIN_GATHER_LOOP
#undef CLEAVE_GATHER_LOOP
#undef CLEAVE_MOVE_EXACT
#undef CLEAVE_MOVE_PAIR
