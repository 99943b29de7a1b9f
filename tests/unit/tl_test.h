/* tl_test.h - a tiny assertion harness for the unit tests (CTest runs each executable). */
#ifndef TL_TEST_H
#define TL_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tl_test_failures = 0;
static int tl_test_checks = 0;

#define CHECK(cond) \
  do { \
    tl_test_checks++; \
    if (!(cond)) { \
      tl_test_failures++; \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    } \
  } while (0)
#define CHECK_STR(a, b) \
  do { \
    const char *a_ = (a), *b_ = (b); \
    tl_test_checks++; \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
      tl_test_failures++; \
      fprintf(stderr, "%s:%d: CHECK_STR failed:\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, a_ ? a_ : "(null)", \
              b_ ? b_ : "(null)"); \
    } \
  } while (0)
#define CHECK_INT(a, b) \
  do { \
    long long a_ = (long long)(a), b_ = (long long)(b); \
    tl_test_checks++; \
    if (a_ != b_) { \
      tl_test_failures++; \
      fprintf(stderr, "%s:%d: CHECK_INT failed: %s = %lld, want %lld\n", __FILE__, __LINE__, #a, a_, b_); \
    } \
  } while (0)
/* The whole of a regular file, NUL-terminated (the caller frees it), its length in *len when len is
 * not NULL; NULL when it cannot be opened. */
static inline char *tl_test_read_file(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  rewind(fp);
  char *t = malloc(n > 0 ? (size_t)n + 1 : 1);
  size_t got = n > 0 ? fread(t, 1, (size_t)n, fp) : 0;
  t[got] = 0;
  fclose(fp);
  if (len) *len = got;
  return t;
}

#define TEST_DONE() \
  do { \
    printf("%d passed, %d failed\n", tl_test_checks - tl_test_failures, tl_test_failures); \
    return tl_test_failures ? 1 : 0; \
  } while (0)
#endif
