/* tl_util.h - small shared helpers: checked allocation, growable buffers and arrays, diagnostics.
 * Allocation failure aborts in one place (tl_util__oom); no function here returns NULL for lack of memory. */
#ifndef TL_UTIL_H
#define TL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>

#include "trainlint.h"

void *tl_malloc(size_t n);
void *tl_calloc(size_t n, size_t size);
void *tl_realloc(void *p, size_t n);
char *tl_strdup(const char *s);
char *tl_strndup(const char *s, size_t n);
char *tl_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a + sep + b as a new string (sep may be ""): tl_printf("%s%s%s", ...) without the formatter's cost. */
char *tl_concat(const char *a, const char *sep, const char *b);
/* The first place where `needle` (ASCII, in lower case) occurs in s[0, n) in any case, or NULL. */
const char *tl_ifind(const char *s, size_t n, const char *needle);
/* Does s[0, n) contain `needle` (ASCII, in lower case) in any case? */
static inline bool tl_icontains(const char *s, size_t n, const char *needle) { return tl_ifind(s, n, needle) != NULL; }

/* strerror(err) into dst[0, cap), lower-cased at its first letter to read as part of a sentence
 * ("cannot open: no such file or directory"); thread-safe. */
void tl_strerror(int err, char *dst, size_t cap);

/* Is one of the words of the last component of a dotted name s[0, n) (split at `_`, in any case, a
 * plural as its singular: "num_text_encoders" has num, text, encoder) in `words` (lower case)? */
bool tl_name_has_word(const char *s, size_t n, const char *const *words);
/* Is s[0, n) the text of a number literal equal to zero: 0, 0.0, 0., .0, 0_0 (not 0x10, 0e0)? */
bool tl_zero_literal(const char *s, size_t n);
/* Is s[0, n) one of the words of `list` (NULL-terminated)? */
bool tl_str_in(const char *s, size_t n, const char *const *list);

/* A growable byte buffer, always NUL-terminated when data != NULL. */
typedef struct {
  char *data;
  size_t len, cap;
} tl_buf;

void tl_buf_put(tl_buf *b, const char *s, size_t n);
void tl_buf_puts(tl_buf *b, const char *s);
void tl_buf_putc(tl_buf *b, char c);
void tl_buf_printf(tl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_buf_vprintf(tl_buf *b, const char *fmt, va_list ap);
/* Transfers ownership of the data to the caller (never NULL) and empties the buffer. */
char *tl_buf_take(tl_buf *b);
void tl_buf_free(tl_buf *b);

/* Growable arrays: TL_VEC(T) declares {T *v; size_t n, cap;}. */
#define TL_VEC(T) \
  struct { \
    T *v; \
    size_t n, cap; \
  }
#define tl_vec_push(a, x) \
  do { \
    if ((a)->n == (a)->cap) { \
      (a)->cap = (a)->cap ? (a)->cap * 2 : 8; \
      (a)->v = tl_realloc((a)->v, (a)->cap * sizeof(*(a)->v)); \
    } \
    (a)->v[(a)->n++] = (x); \
  } while (0)
#define tl_vec_free(a) \
  do { \
    free((a)->v); \
    (a)->v = NULL; \
    (a)->n = (a)->cap = 0; \
  } while (0)
/* Gives back the room past n (doubling leaves up to half of it unused). */
#define tl_vec_shrink(a) \
  do { \
    if ((a)->n && (a)->n < (a)->cap) { \
      (a)->v = tl_realloc((a)->v, (a)->n * sizeof(*(a)->v)); \
      (a)->cap = (a)->n; \
    } \
  } while (0)

/* Writes all n bytes of p to fd, again after an interruption (EINTR, EAGAIN) or a short write.
 * False, with errno set (EIO when write wrote nothing), on an error. */
bool tl_write_all(int fd, const void *p, size_t n);
/* Reads exactly n bytes from fd into p, again after an interruption or a short read. False on an
 * error or an early end of file. */
bool tl_read_all(int fd, void *p, size_t n);

/* Nanoseconds of CLOCK_MONOTONIC (for budgets and timings). */
uint64_t tl_now_ns(void);

/* A growable array of strings, each malloc'd and owned by the array (tl_strvec_free frees them). */
typedef TL_VEC(char *) tl_strvec;
void tl_strvec_free(tl_strvec *v);

/* Line starts of a text, for byte offset -> (line, column) conversions. Lines and columns are
 * 1-based; columns count Unicode code points (as ruff does), not bytes. */
typedef struct {
  uint32_t *starts; /* byte offset of each line's first byte */
  uint32_t count;
} tl_lines;

void tl_lines_init(tl_lines *l, const char *text, size_t len);
/* The same for `text` after edits: it equals the text `old` was made from except for the bytes in
 * [start, end) (of `text`), and its length changed by `delta`. */
void tl_lines_update(tl_lines *l, const tl_lines *old, const char *text, size_t len, uint32_t start, uint32_t end,
                     int64_t delta);
void tl_lines_free(tl_lines *l);
/* 1-based line containing byte offset `off`. */
uint32_t tl_lines_line(const tl_lines *l, uint32_t off);
/* 1-based column (code points) of byte offset `off`. */
uint32_t tl_lines_col(const tl_lines *l, const char *text, uint32_t off);

/* A copy of Python source (NUL-terminated, same length and offsets) with every comment blanked
 * to spaces; with `long_strings`, the contents of triple-quoted strings (docstrings) too. Quotes
 * and newlines stay, so lines and columns do not move. Caller frees. */
char *tl_code_text(const char *src, size_t len, bool long_strings);

/* A growable array of diagnostics (tl_diag: trainlint.h), owning their paths and messages. */
typedef TL_VEC(tl_diag) tl_diags;

/* A growable array of edits (tl_edit: trainlint.h); whether it owns their texts is up to its user. */
typedef TL_VEC(tl_edit) tl_edits;

void tl_diags_add(tl_diags *d, tl_diag_level level, const char *path, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void tl_diags_free(tl_diags *d);

#endif
