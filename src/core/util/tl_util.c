/* tl_util.c - checked allocation, buffers, writing, line tables, diagnostics and comment blanking. */
#include "tl_rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void tl_util__oom(size_t n) {
  fprintf(stderr, "trainlint: out of memory (%zu bytes)\n", n);
  abort();
}

void *tl_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) tl_util__oom(n);
  return p;
}

void *tl_calloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) tl_util__oom(n * size);
  return p;
}

void *tl_realloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) tl_util__oom(n);
  return q;
}

char *tl_strndup(const char *s, size_t n) {
  char *p = tl_malloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *tl_strdup(const char *s) { return tl_strndup(s, strlen(s)); }

char *tl_concat(const char *a, const char *sep, const char *b) {
  size_t na = strlen(a), ns = strlen(sep), nb = strlen(b);
  char *r = tl_malloc(na + ns + nb + 1);
  memcpy(r, a, na);
  memcpy(r + na, sep, ns);
  memcpy(r + na + ns, b, nb + 1);
  return r;
}

const char *tl_ifind(const char *s, size_t n, const char *needle) {
  size_t k = strlen(needle);
  if (k == 0) return s;
  unsigned char f = (unsigned char)needle[0];
  bool letter = f >= 'a' && f <= 'z'; /* then c | 0x20 is tolower(c) for every byte that could match */
  for (size_t i = 0; i + k <= n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((letter ? (unsigned char)(c | 0x20) : (unsigned char)tolower(c)) != f) continue;
    size_t j = 1;
    while (j < k && tolower((unsigned char)s[i + j]) == (unsigned char)needle[j]) j++;
    if (j == k) return s + i;
  }
  return NULL;
}

void tl_strerror(int err, char *dst, size_t cap) {
  if (strerror_r(err, dst, cap) != 0) snprintf(dst, cap, "error %d", err);
  if (dst[0] >= 'A' && dst[0] <= 'Z' && !(dst[1] >= 'A' && dst[1] <= 'Z')) dst[0] = (char)(dst[0] - 'A' + 'a');
}

char *tl_printf(const char *fmt, ...) {
  tl_buf b = {0};
  va_list ap;
  va_start(ap, fmt);
  tl_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  return tl_buf_take(&b);
}

static void tl_util__buf_reserve(tl_buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = tl_realloc(b->data, cap);
  b->cap = cap;
}

void tl_buf_put(tl_buf *b, const char *s, size_t n) {
  tl_util__buf_reserve(b, n);
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void tl_buf_puts(tl_buf *b, const char *s) { tl_buf_put(b, s, strlen(s)); }
void tl_buf_putc(tl_buf *b, char c) { tl_buf_put(b, &c, 1); }

void tl_buf_vprintf(tl_buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  tl_util__buf_reserve(b, (size_t)n);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void tl_buf_printf(tl_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tl_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *tl_buf_take(tl_buf *b) {
  char *p = b->data ? b->data : tl_strdup("");
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

void tl_buf_free(tl_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

void tl_lines_init(tl_lines *l, const char *text, size_t len) {
  size_t cap = 64, n = 0;
  uint32_t *s = tl_malloc(cap * sizeof *s);
  s[n++] = 0;
  if (len && !memchr(text, '\r', len)) { /* the usual case: lines end at \n only */
    for (const char *p = text, *e = text + len; (p = memchr(p, '\n', (size_t)(e - p))) != NULL;) {
      p++;
      if (n == cap) s = tl_realloc(s, (cap *= 2) * sizeof *s);
      s[n++] = (uint32_t)(p - text);
    }
    len = 0;
  }
  for (size_t i = 0; i < len; i++) {
    /* A line ends at \n, \r\n or a lone \r (as Python's tokenizer sees it). */
    bool end = text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n'));
    if (end) {
      if (n == cap) s = tl_realloc(s, (cap *= 2) * sizeof *s);
      s[n++] = (uint32_t)(i + 1);
    }
  }
  l->starts = s;
  l->count = (uint32_t)n;
}

void tl_lines_update(tl_lines *l, const tl_lines *old, const char *text, size_t len, uint32_t start, uint32_t end,
                     int64_t delta) {
  /* A line starts at s when text[s - 1] ends a line, which also depends on text[s] (\r\n): the
   * starts before `start` and those after `end` read only unchanged bytes. */
  if (start > len) start = (uint32_t)len;
  if (end > len) end = (uint32_t)len;
  if (end < start) end = start;
  size_t cap = old->count + 64, n = 0;
  uint32_t *s = tl_malloc(cap * sizeof *s);
  s[n++] = 0;
  uint32_t i = 1;
  while (i < old->count && old->starts[i] < start) s[n++] = old->starts[i++];
  for (size_t k = start ? start - 1 : 0; k < end && k < len; k++) {
    bool e = text[k] == '\n' || (text[k] == '\r' && (k + 1 >= len || text[k + 1] != '\n'));
    if (!e) continue;
    if (n == cap) s = tl_realloc(s, (cap *= 2) * sizeof *s);
    s[n++] = (uint32_t)(k + 1);
  }
  for (; i < old->count; i++) {
    int64_t ns = (int64_t)old->starts[i] + delta;
    if (ns <= (int64_t)end) continue;
    if (n == cap) s = tl_realloc(s, (cap *= 2) * sizeof *s);
    s[n++] = (uint32_t)ns;
  }
  l->starts = s;
  l->count = (uint32_t)n;
}

void tl_lines_free(tl_lines *l) {
  free(l->starts);
  l->starts = NULL;
  l->count = 0;
}

uint32_t tl_lines_line(const tl_lines *l, uint32_t off) {
  uint32_t lo = 0, hi = l->count;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (l->starts[mid] <= off) lo = mid;
    else hi = mid;
  }
  return lo + 1;
}

uint32_t tl_lines_col(const tl_lines *l, const char *text, uint32_t off) {
  uint32_t start = l->starts[tl_lines_line(l, off) - 1];
  uint32_t col = 1;
  for (uint32_t i = start; i < off; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80) col++;
  return col;
}

void tl_diags_add(tl_diags *d, tl_diag_level level, const char *path, uint32_t line, uint32_t col, const char *fmt,
                  ...) {
  tl_buf b = {0};
  va_list ap;
  va_start(ap, fmt);
  tl_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  tl_diag x = {level, tl_strdup(path ? path : ""), line, col, tl_buf_take(&b), 0};
  tl_vec_push(d, x);
}

uint64_t tl_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

bool tl_read_all(int fd, void *p, size_t n) {
  char *b = p;
  while (n > 0) {
    ssize_t r = read(fd, b, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    b += r;
    n -= (size_t)r;
  }
  return true;
}

bool tl_write_all(int fd, const void *p, size_t n) {
  const char *b = p;
  while (n > 0) {
    ssize_t w = write(fd, b, n);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    if (w == 0) {
      errno = EIO;
      return false;
    }
    b += w;
    n -= (size_t)w;
  }
  return true;
}

void tl_strvec_free(tl_strvec *v) {
  for (size_t i = 0; i < v->n; i++) free(v->v[i]);
  tl_vec_free(v);
}

void tl_diags_free(tl_diags *d) {
  for (size_t i = 0; i < d->n; i++) {
    free(d->v[i].path);
    free(d->v[i].message);
  }
  tl_vec_free(d);
}

char *tl_code_text(const char *src, size_t len, bool long_strings) {
  char *t = tl_malloc(len + 1);
  memcpy(t, src, len);
  t[len] = 0;
  /* Runs of ordinary characters are skipped with strcspn (the copy ends with a NUL; a NUL inside
   * it only stops a run early). */
  size_t i = 0;
  while (i < len) {
    i += strcspn(t + i, "#'\"");
    if (i >= len) break;
    char c = t[i];
    if (c == '#') {
      size_t e = i + strcspn(t + i, "\n\r");
      while (e < len && t[e] == 0) e += 1 + strcspn(t + e + 1, "\n\r"); /* a NUL: part of the comment */
      if (e > len) e = len;
      memset(t + i, ' ', e - i);
      i = e;
    } else if (c == '\'' || c == '"') {
      bool triple = i + 2 < len && t[i + 1] == c && t[i + 2] == c;
      bool blank = triple && long_strings;
      size_t q = triple ? 3 : 1;
      char stop[5] = {'\\', c, '\n', '\r', 0};
      i += q;
      while (i < len) {
        size_t e = i + strcspn(t + i, stop);
        if (e > len) e = len;
        if (blank) memset(t + i, ' ', e - i);
        i = e;
        if (i >= len) break;
        if (t[i] == 0) { /* a NUL: an ordinary character */
          if (blank) t[i] = ' ';
          i++;
          continue;
        }
        if (t[i] == '\\' && i + 1 < len) {
          if (triple && long_strings) {
            t[i] = ' ';
            if (t[i + 1] != '\n' && t[i + 1] != '\r') t[i + 1] = ' ';
          }
          i += 2;
          continue;
        }
        if (t[i] == c && (!triple || (i + 2 < len && t[i + 1] == c && t[i + 2] == c))) {
          i += q;
          break;
        }
        if (!triple && (t[i] == '\n' || t[i] == '\r')) break; /* unterminated: stop at the line end */
        if (triple && long_strings && t[i] != '\n' && t[i] != '\r') t[i] = ' ';
        i++;
      }
    } else {
      i++;
    }
  }
  return t;
}

bool tl_str_in(const char *s, size_t n, const char *const *list) {
  for (; *list; list++)
    if (strlen(*list) == n && !memcmp(*list, s, n)) return true;
  return false;
}

bool tl_name_has_word(const char *s, size_t n, const char *const *words) {
  const char *last = s + n;
  while (last > s && last[-1] != '.') last--;
  n = (size_t)(s + n - last);
  char low[64];
  for (size_t a = 0; a < n;) {
    while (a < n && last[a] == '_') a++;
    size_t b = a;
    while (b < n && last[b] != '_') b++;
    size_t wl = b - a;
    if (wl && wl < sizeof low) {
      for (size_t i = 0; i < wl; i++) low[i] = (char)tolower((unsigned char)last[a + i]);
      if (tl_str_in(low, wl, words) || (wl > 1 && low[wl - 1] == 's' && tl_str_in(low, wl - 1, words))) return true;
    }
    a = b;
  }
  return false;
}

bool tl_zero_literal(const char *s, size_t n) {
  bool digit = false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '0') digit = true;
    else if (s[i] != '.' && s[i] != '_') return false;
  }
  return digit;
}
