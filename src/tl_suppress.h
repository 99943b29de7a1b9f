/* tl_suppress.h - suppression comments: `# noqa`, `# noqa: TL101, TL204`, `# trainlint: ignore[...]`,
 * and the file-level `# trainlint: ignore-file[...]`. */
#ifndef TL_SUPPRESS_H
#define TL_SUPPRESS_H

#include "tl_util.h"

typedef struct {
  uint32_t line, col;   /* 1-based position of the comment */
  uint32_t start, end;  /* byte range of the comment */
  bool file_level;      /* ignore-file */
  bool all;             /* no code list: every code */
  TL_VEC(char *) codes; /* codes or prefixes */
  TL_VEC(bool) used;    /* per code (or [0] for `all`): suppressed something */
} tl_suppression;

typedef TL_VEC(tl_suppression) tl_suppressions;

/* Parses one comment (text starting at '#'); adds it to `out` when it is a suppression. */
void tl_suppress_parse(tl_suppressions *out, const char *text, size_t len, uint32_t start, uint32_t line, uint32_t col);
/* Is `code` suppressed on any line in [first, last]? Marks the suppression used. */
bool tl_suppress_match(tl_suppressions *s, const char *code, uint32_t first, uint32_t last);
void tl_suppress_free(tl_suppressions *s);

#endif
