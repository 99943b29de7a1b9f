/* fuzz_util.h - helpers shared by the libFuzzer harnesses: invariant checks, splitting an input into files, /dev/null. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

#include "trainlint.h"

const TSLanguage *tree_sitter_python(void);

/* An invariant of the library's API that must hold for every input: abort (a libFuzzer crash). */
#define FUZZ_CHECK(cond)                                                                             \
  do {                                                                                               \
    if (!(cond)) {                                                                                   \
      fprintf(stderr, "fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);           \
      abort();                                                                                       \
    }                                                                                                \
  } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every built-in rule, enabled and compiled into one query (harness set-up; kept for the process). */
static inline tl_ruleset *fuzz_all_rules(void) {
  tl_ruleset *rules = tl_ruleset_new();
  FUZZ_CHECK(tl_ruleset_add_builtin(rules));
  const char *all[] = {"ALL"};
  tl_ruleset_select(rules, all, 1, NULL, 0);
  FUZZ_CHECK(tl_ruleset_compile(rules));
  return rules;
}

/* A parser for Python (harness set-up: checking texts as tree-sitter alone sees them). */
static inline TSParser *fuzz_python_parser(void) {
  TSParser *p = ts_parser_new();
  FUZZ_CHECK(ts_parser_set_language(p, tree_sitter_python()));
  return p;
}

static inline FILE *fuzz_devnull(void) {
  static FILE *f;
  if (!f) f = fopen("/dev/null", "w");
  if (!f) abort();
  return f;
}

/* One input holding several files: a line "#@file NAME" starts the next file (the first file,
 * before any such line, is "main.py"). Each piece points into the input. */
typedef struct {
  char name[72];
  const char *text;
  size_t len;
} fuzz_piece;

#define FUZZ_MAX_PIECES 8

static inline size_t fuzz_split(const char *data, size_t size, fuzz_piece *out) {
  static const char mark[] = "#@file ";
  const size_t mlen = sizeof mark - 1;
  size_t n = 0, start = 0, i = 0;
  snprintf(out[0].name, sizeof out[0].name, "main.py");
  while (i < size) {
    const char *nl = memchr(data + i, '\n', size - i);
    size_t end = nl ? (size_t)(nl - data) + 1 : size;
    if (end - i > mlen && !memcmp(data + i, mark, mlen) && n + 1 < FUZZ_MAX_PIECES) {
      out[n].text = data + start;
      out[n].len = i - start;
      n++;
      size_t nlen = (nl ? (size_t)(nl - data) : size) - (i + mlen);
      if (nlen > sizeof out[n].name - 8) nlen = sizeof out[n].name - 8;
      /* printable names; an empty or repeated one becomes "f<N>.py" */
      size_t k = 0;
      for (size_t j = 0; j < nlen; j++) {
        char c = data[i + mlen + j];
        out[n].name[k++] = (c > ' ' && c < 127) ? c : '_';
      }
      out[n].name[k] = 0;
      bool dup = k == 0;
      for (size_t j = 0; j < n && !dup; j++) dup = !strcmp(out[j].name, out[n].name);
      if (dup) snprintf(out[n].name, sizeof out[n].name, "f%zu.py", n);
      start = end;
    }
    i = end;
  }
  out[n].text = data + start;
  out[n].len = size - start;
  return n + 1;
}

#endif
