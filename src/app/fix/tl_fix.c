/* tl_fix.c - applying text edits, line-based unified diffs (Myers) and atomic, checked file rewriting. */
#include "tl_fix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------
 * Edits
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  uint32_t start, end;
  size_t index; /* position in the caller's vector: makes the sort stable */
} edit_key;

static int tl_fix__cmp_edit_key(const void *pa, const void *pb) {
  const edit_key *a = pa, *b = pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

bool tl_edits_clash(const tl_edit *a, const tl_edit *b) {
  if (a->start < b->end && b->start < a->end) return true;
  if (a->start == a->end && b->start < b->end) return b->start <= a->start && a->start <= b->end;
  if (b->start == b->end && a->start < a->end) return a->start <= b->start && b->start <= a->end;
  return false;
}

char *tl_edits_apply(const char *src, size_t len, const tl_edit *edits, size_t n, size_t *out_len, size_t *skipped) {
  if (!src) src = "", len = 0;
  size_t nskip = 0;
  /* The caller's vector is left as it is; the order is taken from a sorted copy of the keys. */
  edit_key *keys = tl_malloc(n * sizeof *keys);
  for (size_t i = 0; i < n; i++) keys[i] = (edit_key){edits[i].start, edits[i].end, i};
  if (n > 1) qsort(keys, n, sizeof *keys, tl_fix__cmp_edit_key);
  tl_buf b = {0};
  tl_buf_put(&b, "", 0);
  size_t pos = 0; /* end of the last edit kept */
  for (size_t i = 0; i < n; i++) {
    size_t s = keys[i].start, e = keys[i].end;
    if (s > e || e > len || s < pos) {
      nskip++;
      continue;
    }
    tl_buf_put(&b, src + pos, s - pos);
    const char *t = edits[keys[i].index].text;
    if (t) tl_buf_puts(&b, t);
    pos = e;
  }
  if (pos < len) tl_buf_put(&b, src + pos, len - pos);
  free(keys);
  if (skipped) *skipped = nskip;
  if (out_len) *out_len = b.len;
  return tl_buf_take(&b);
}

/* ------------------------------------------------------------------------------------------------
 * Unified diff: lines are numbered by content, diffed with Myers' bisection (linear space, as in
 * diff-match-patch), and grouped into hunks with 3 lines of context.
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  const char *s;
  size_t n; /* including the '\n' when there is one: "a\n" and "a" differ, "\r\n" is kept */
} dline;

static size_t tl_fix__split_lines(const char *t, size_t len, dline **out) {
  size_t count = 0;
  for (size_t i = 0; i < len; i++)
    if (t[i] == '\n') count++;
  if (len && t[len - 1] != '\n') count++;
  dline *v = tl_malloc(count * sizeof *v);
  size_t k = 0, start = 0;
  for (size_t i = 0; i < len; i++) {
    if (t[i] == '\n') {
      v[k++] = (dline){t + start, i + 1 - start};
      start = i + 1;
    }
  }
  if (start < len) v[k++] = (dline){t + start, len - start};
  *out = v;
  return count;
}

static uint64_t tl_fix__hash_bytes(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* Gives every distinct line one number, so the diff compares integers. */
static void tl_fix__number_lines(const dline *a, size_t na, const dline *b, size_t nb, uint32_t *ida, uint32_t *idb) {
  size_t cap = 16;
  while (cap < (na + nb) * 2) cap *= 2;
  typedef struct {
    const dline *line;
    uint64_t hash;
    uint32_t id;
  } slot;
  slot *tab = tl_calloc(cap, sizeof *tab);
  uint32_t next = 0;
  for (size_t side = 0; side < 2; side++) {
    const dline *v = side ? b : a;
    size_t n = side ? nb : na;
    uint32_t *ids = side ? idb : ida;
    for (size_t i = 0; i < n; i++) {
      uint64_t h = tl_fix__hash_bytes(v[i].s, v[i].n);
      size_t j = (size_t)(h ^ (h >> 32)) & (cap - 1);
      for (;;) {
        if (!tab[j].line) {
          tab[j] = (slot){&v[i], h, next++};
          break;
        }
        if (tab[j].hash == h && tab[j].line->n == v[i].n && memcmp(tab[j].line->s, v[i].s, v[i].n) == 0) break;
        j = (j + 1) & (cap - 1);
      }
      ids[i] = tab[j].id;
    }
  }
  free(tab);
}

typedef struct {
  const uint32_t *a, *b;
  char *del, *ins; /* per line: deleted from a / inserted in b */
} differ;

static void tl_fix__mark_all(differ *df, size_t a0, size_t a1, size_t b0, size_t b1) {
  for (size_t i = a0; i < a1; i++) df->del[i] = 1;
  for (size_t j = b0; j < b1; j++) df->ins[j] = 1;
}

/* Finds a point (*sx, *sy) on an optimal path through the box (both relative to a0, b0). Returns
 * false when no point was found within the cost limit (the caller then replaces the whole box). */
static bool tl_fix__bisect(const differ *df, size_t a0, size_t a1, size_t b0, size_t b1, ptrdiff_t *sx, ptrdiff_t *sy) {
  const uint32_t *A = df->a + a0, *B = df->b + b0;
  ptrdiff_t N = (ptrdiff_t)(a1 - a0), M = (ptrdiff_t)(b1 - b0);
  ptrdiff_t max_d = (N + M + 1) / 2;
  /* Past this many edits on each side, give up on minimality for this box (huge, unrelated texts). */
  ptrdiff_t limit = (ptrdiff_t)(50000000 / (N + M));
  if (limit < 256) limit = 256;
  if (limit > max_d) limit = max_d;
  ptrdiff_t voff = limit, vlen = 2 * limit + 2; /* diagonals -limit-1 .. limit+1 */
  ptrdiff_t *v1 = tl_malloc((size_t)vlen * sizeof *v1), *v2 = tl_malloc((size_t)vlen * sizeof *v2);
  for (ptrdiff_t i = 0; i < vlen; i++) v1[i] = v2[i] = -1;
  v1[voff + 1] = 0;
  v2[voff + 1] = 0;
  ptrdiff_t delta = N - M;
  bool front = (delta % 2) != 0;
  ptrdiff_t k1start = 0, k1end = 0, k2start = 0, k2end = 0;
  bool found = false;
  for (ptrdiff_t d = 0; d < limit && !found; d++) {
    for (ptrdiff_t k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      ptrdiff_t k1o = voff + k1, x1;
      if (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1])) x1 = v1[k1o + 1];
      else x1 = v1[k1o - 1] + 1;
      ptrdiff_t y1 = x1 - k1;
      while (x1 < N && y1 < M && A[x1] == B[y1]) x1++, y1++;
      v1[k1o] = x1;
      if (x1 > N) {
        k1end += 2;
      } else if (y1 > M) {
        k1start += 2;
      } else if (front) {
        ptrdiff_t k2o = voff + delta - k1;
        if (k2o >= 0 && k2o < vlen && v2[k2o] != -1 && x1 >= N - v2[k2o]) {
          *sx = x1;
          *sy = y1;
          found = true;
          break;
        }
      }
    }
    if (found) break;
    for (ptrdiff_t k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      ptrdiff_t k2o = voff + k2, x2;
      if (k2 == -d || (k2 != d && v2[k2o - 1] < v2[k2o + 1])) x2 = v2[k2o + 1];
      else x2 = v2[k2o - 1] + 1;
      ptrdiff_t y2 = x2 - k2;
      while (x2 < N && y2 < M && A[N - x2 - 1] == B[M - y2 - 1]) x2++, y2++;
      v2[k2o] = x2;
      if (x2 > N) {
        k2end += 2;
      } else if (y2 > M) {
        k2start += 2;
      } else if (!front) {
        ptrdiff_t k1o = voff + delta - k2;
        if (k1o >= 0 && k1o < vlen && v1[k1o] != -1) {
          ptrdiff_t x1 = v1[k1o], y1 = voff + x1 - k1o;
          if (x1 >= N - x2) {
            *sx = x1;
            *sy = y1;
            found = true;
            break;
          }
        }
      }
    }
  }
  if (!found && limit < max_d) {
    /* Over the cost limit: split at the forward point that got furthest (as xdiff's heuristic
     * does). The diff stays correct, maybe not minimal, and the time stays O((N+M) * limit). */
    ptrdiff_t d = limit - 1, best = -1;
    for (ptrdiff_t k1 = -d; k1 <= d; k1 += 2) {
      ptrdiff_t x1 = v1[voff + k1], y1 = x1 - k1;
      if (x1 < 0 || x1 > N || y1 < 0 || y1 > M || x1 + y1 <= best) continue;
      best = x1 + y1;
      *sx = x1;
      *sy = y1;
    }
    /* x + y == d means not one line matched on the way: the texts are unrelated here. */
    found = best > d;
  }
  free(v1);
  free(v2);
  /* A split must make progress; anything else means "replace the box". */
  if (found && (*sx + *sy == 0 || (*sx == N && *sy == M) || *sx < 0 || *sy < 0 || *sx > N || *sy > M)) found = false;
  return found;
}

static void tl_fix__diff_box(differ *df, size_t a0, size_t a1, size_t b0, size_t b1) {
  for (;;) {
    while (a0 < a1 && b0 < b1 && df->a[a0] == df->b[b0]) a0++, b0++;
    while (a0 < a1 && b0 < b1 && df->a[a1 - 1] == df->b[b1 - 1]) a1--, b1--;
    if (a0 == a1 || b0 == b1) {
      tl_fix__mark_all(df, a0, a1, b0, b1);
      return;
    }
    ptrdiff_t x = 0, y = 0;
    if (!tl_fix__bisect(df, a0, a1, b0, b1, &x, &y)) {
      tl_fix__mark_all(df, a0, a1, b0, b1);
      return;
    }
    /* Recurse on the smaller half, loop on the other: bounded stack depth. */
    size_t ax = a0 + (size_t)x, by = b0 + (size_t)y;
    if ((ax - a0) + (by - b0) <= (a1 - ax) + (b1 - by)) {
      tl_fix__diff_box(df, a0, ax, b0, by);
      a0 = ax;
      b0 = by;
    } else {
      tl_fix__diff_box(df, ax, a1, by, b1);
      a1 = ax;
      b1 = by;
    }
  }
}

typedef struct {
  char op;       /* ' ', '-', '+' */
  size_t ai, bi; /* line indices before this op */
} diff_op;

static void tl_fix__put_quoted_name(tl_buf *out, const char *prefix, const char *path) {
  bool quote = false;
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\') quote = true;
  if (!quote) {
    tl_buf_puts(out, prefix);
    tl_buf_puts(out, path);
    /* GNU patch reads a name up to white space unless a tab ends it: git writes one after a name
     * with a space, and so do we */
    if (strchr(path, ' ')) tl_buf_putc(out, '\t');
    return;
  }
  /* Git-style C quoting, also understood by GNU patch. */
  tl_buf_putc(out, '"');
  tl_buf_puts(out, prefix);
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    switch (*p) {
    case '"': tl_buf_puts(out, "\\\""); break;
    case '\\': tl_buf_puts(out, "\\\\"); break;
    case '\t': tl_buf_puts(out, "\\t"); break;
    case '\n': tl_buf_puts(out, "\\n"); break;
    case '\r': tl_buf_puts(out, "\\r"); break;
    default:
      if (*p < 0x20 || *p == 0x7f) tl_buf_printf(out, "\\%03o", *p);
      else tl_buf_putc(out, (char)*p);
    }
  }
  tl_buf_putc(out, '"');
}

static void tl_fix__put_line(tl_buf *out, char op, const dline *l) {
  tl_buf_putc(out, op);
  tl_buf_put(out, l->s, l->n);
  if (l->n == 0 || l->s[l->n - 1] != '\n') tl_buf_puts(out, "\n\\ No newline at end of file\n");
}

#define TL_DIFF_CONTEXT 3

void tl_diff_unified(tl_buf *out, const char *path, const char *a, size_t alen, const char *b, size_t blen) {
  if (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0)) return;
  dline *la, *lb;
  size_t na = tl_fix__split_lines(a, alen, &la), nb = tl_fix__split_lines(b, blen, &lb);
  uint32_t *ida = tl_malloc(na * sizeof *ida), *idb = tl_malloc(nb * sizeof *idb);
  tl_fix__number_lines(la, na, lb, nb, ida, idb);
  differ df = {ida, idb, tl_calloc(na + 1, 1), tl_calloc(nb + 1, 1)};
  tl_fix__diff_box(&df, 0, na, 0, nb);

  diff_op *ops = tl_malloc((na + nb) * sizeof *ops);
  size_t nops = 0, i = 0, j = 0;
  while (i < na || j < nb) {
    if (i < na && df.del[i]) ops[nops++] = (diff_op){'-', i++, j};
    else if (j < nb && df.ins[j]) ops[nops++] = (diff_op){'+', i, j++};
    else ops[nops++] = (diff_op){' ', i++, j++};
  }

  while (path[0] == '.' && path[1] == '/') path += 2; /* "./x.py" -> "x.py" for -p1 */
  bool header = false;
  size_t k = 0;
  while (k < nops) {
    if (ops[k].op == ' ') {
      k++;
      continue;
    }
    size_t start = k >= TL_DIFF_CONTEXT ? k - TL_DIFF_CONTEXT : 0;
    size_t last = k, m = k;
    while (m < nops) {
      if (ops[m].op != ' ') {
        last = m++;
        continue;
      }
      size_t r = m;
      while (r < nops && ops[r].op == ' ') r++;
      if (r == nops || r - m > 2 * TL_DIFF_CONTEXT) break; /* contexts do not touch: new hunk */
      m = r;
    }
    size_t end = last + 1 + TL_DIFF_CONTEXT;
    if (end > nops) end = nops;
    size_t sa = 0, sb = 0;
    for (size_t q = start; q < end; q++) {
      if (ops[q].op != '+') sa++;
      if (ops[q].op != '-') sb++;
    }
    if (!header) {
      tl_buf_puts(out, "--- ");
      tl_fix__put_quoted_name(out, "a/", path);
      tl_buf_puts(out, "\n+++ ");
      tl_fix__put_quoted_name(out, "b/", path);
      tl_buf_putc(out, '\n');
      header = true;
    }
    /* A side with no lines in the hunk is numbered by the line before it (0 at the top). */
    tl_buf_printf(out, "@@ -%zu,%zu +%zu,%zu @@\n", sa ? ops[start].ai + 1 : ops[start].ai, sa,
                  sb ? ops[start].bi + 1 : ops[start].bi, sb);
    for (size_t q = start; q < end; q++)
      tl_fix__put_line(out, ops[q].op, ops[q].op == '+' ? &lb[ops[q].bi] : &la[ops[q].ai]);
    k = end;
  }
  free(ops);
  free(df.del);
  free(df.ins);
  free(ida);
  free(idb);
  free(la);
  free(lb);
}

/* ------------------------------------------------------------------------------------------------
 * Atomic, checked rewriting
 * ---------------------------------------------------------------------------------------------- */

static tl_write_status tl_fix__fail(tl_write_status st, char **message, char *msg) {
  if (message) *message = msg;
  else free(msg);
  return st;
}

/* Reads at most `limit` bytes of fd into a new buffer; returns false (errno set) on error. */
static bool tl_fix__read_upto(int fd, size_t limit, char **out, size_t *out_len) {
  size_t cap = limit + 1, len = 0;
  char *buf = tl_malloc(cap);
  while (len < cap) {
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      int e = errno;
      free(buf);
      errno = e;
      return false;
    }
    if (n == 0) break;
    len += (size_t)n;
  }
  *out = buf;
  *out_len = len;
  return true;
}

static bool tl_fix__same_file_state(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

#define TL_CHANGED_MSG "the file changed on disk since it was analysed; not rewritten"

tl_write_status tl_file_replace(const char *path, const char *expect, size_t expect_len, const char *data, size_t len,
                                char **message) {
  char err[256];
  if (message) *message = NULL;

  /* A symbolic link is kept: its target is what gets rewritten. */
  struct stat lst;
  if (lstat(path, &lst) != 0) {
    int e = errno;
    tl_strerror(e, err, sizeof err);
    return tl_fix__fail(TL_WRITE_IO, message, tl_printf("cannot stat: %s", err));
  }
  char *target;
  if (S_ISLNK(lst.st_mode)) {
    target = realpath(path, NULL);
    if (!target) {
      int e = errno;
      tl_strerror(e, err, sizeof err);
      return tl_fix__fail(TL_WRITE_IO, message, tl_printf("cannot resolve the symbolic link: %s", err));
    }
  } else {
    target = tl_strdup(path);
  }

  /* 1. The file must still hold exactly what the analysis saw. */
  int fd;
  do fd = open(target, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int e = errno;
    free(target);
    tl_strerror(e, err, sizeof err);
    return tl_fix__fail(TL_WRITE_IO, message, tl_printf("cannot open: %s", err));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    free(target);
    tl_strerror(e, err, sizeof err);
    return tl_fix__fail(TL_WRITE_IO, message, tl_printf("cannot stat: %s", err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    free(target);
    return tl_fix__fail(TL_WRITE_IO, message, tl_strdup("not a regular file; not rewritten"));
  }
  char *cur = NULL;
  size_t cur_len = 0;
  if (!tl_fix__read_upto(fd, expect_len, &cur, &cur_len)) {
    int e = errno;
    close(fd);
    free(target);
    tl_strerror(e, err, sizeof err);
    return tl_fix__fail(TL_WRITE_IO, message, tl_printf("cannot read: %s", err));
  }
  close(fd);
  bool same = cur_len == expect_len && (expect_len == 0 || memcmp(cur, expect, expect_len) == 0);
  free(cur);
  if (!same) {
    free(target);
    return tl_fix__fail(TL_WRITE_CHANGED, message, tl_strdup(TL_CHANGED_MSG));
  }

  /* 2. A temporary file in the same directory: ".<base>.trainlint-XXXXXX". */
  const char *slash = strrchr(target, '/');
  const char *base = slash ? slash + 1 : target;
  size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0; /* keeps the '/' */
  size_t base_len = strlen(base);
  if (base_len > 200) base_len = 200; /* stay under NAME_MAX */
  char *tmp = tl_printf("%.*s.%.*s.trainlint-XXXXXX", (int)dir_len, target, (int)base_len, base);
  int tfd = mkstemp(tmp);
  if (tfd < 0) {
    int e = errno;
    char *dir = dir_len ? tl_strndup(target, dir_len) : tl_strdup(".");
    tl_strerror(e, err, sizeof err);
    char *msg = tl_printf("cannot create a temporary file in %s: %s", dir, err);
    free(dir);
    free(tmp);
    free(target);
    return tl_fix__fail(TL_WRITE_IO, message, msg);
  }
  (void)fcntl(tfd, F_SETFD, FD_CLOEXEC);

  const char *what = NULL;
  int e = 0;
  if (!tl_write_all(tfd, data, len)) {
    what = "cannot write the temporary file";
    e = errno;
  }
  /* Owner first (chown may clear set-id bits), then the mode. */
  if (!what) {
    if (geteuid() == 0) {
      if (fchown(tfd, st.st_uid, st.st_gid) != 0 && errno != EPERM) {
        what = "cannot set the owner of the temporary file";
        e = errno;
      }
    } else if (st.st_gid != getegid()) {
      (void)!fchown(tfd, (uid_t)-1, st.st_gid); /* best effort: keep a shared group */
    }
  }
  if (!what && fchmod(tfd, st.st_mode & 07777) != 0) {
    what = "cannot set the mode of the temporary file";
    e = errno;
  }
  if (!what && fsync(tfd) != 0) {
    what = "cannot flush the temporary file to disk";
    e = errno;
  }
  if (close(tfd) != 0 && !what) {
    what = "cannot close the temporary file";
    e = errno;
  }
  if (!what) {
    /* 3. Last look before the rename: the original must not have changed meanwhile. */
    struct stat now;
    if (stat(target, &now) != 0 || !tl_fix__same_file_state(&now, &st)) {
      unlink(tmp);
      free(tmp);
      free(target);
      return tl_fix__fail(TL_WRITE_CHANGED, message, tl_strdup(TL_CHANGED_MSG));
    }
    if (rename(tmp, target) != 0) {
      what = "cannot rename the temporary file over the original";
      e = errno;
    }
  }
  if (what) {
    unlink(tmp);
    free(tmp);
    free(target);
    tl_strerror(e, err, sizeof err);
    return tl_fix__fail(TL_WRITE_IO, message, tl_printf("%s: %s", what, err));
  }
  /* Make the rename itself durable (best effort). */
  char *dir = dir_len ? tl_strndup(target, dir_len) : tl_strdup(".");
  int dfd = open(dir, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
  free(dir);
  free(tmp);
  free(target);
  return TL_WRITE_OK;
}
