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

/* The edit that suppresses `codes` ("TL101", or "TL101, TL204") on line `line` (1-based) of
 * `text`, whose line index is `lines`: the codes are merged into the line's `# noqa: ...` or
 * `# trainlint: ignore[...]` comment, or a new `  # noqa: CODES` ends the line (replacing its
 * trailing blanks). A `#` inside a string literal on the line is no comment. False, and *edit
 * untouched, when the line's comment already suppresses every code (`# noqa`, `# trainlint:
 * ignore`) or the line does not exist. On true, edit->text is malloc'd: the caller frees it. */
bool tl_suppress_add(const char *text, size_t len, const tl_lines *lines, uint32_t line, const char *codes,
                     tl_edit *edit);

/* The edit that takes the unused codes out of suppression `sp` of `text` (its comment at
 * [sp->start, sp->end)): unused[k] for sp->codes.v[k], or unused[0] for a comment without codes.
 * The codes that stay are written back as `# noqa: A, B` or `ignore[A, B]`; when none stays, the
 * directive goes with the blanks around it, and so does the line when the comment was all it held.
 * Other comments and prose on the line stay. *range_start and *range_end receive the directive's
 * bytes (for the report). False, and *edit untouched, when no code is unused or the comment is
 * not one tl_suppress_parse read there; else edit->text is malloc'd: the caller frees it. */
bool tl_suppress_unused_edit(const char *text, size_t len, const tl_suppression *sp, const bool *unused, tl_edit *edit,
                             uint32_t *range_start, uint32_t *range_end);

#endif
