/* tl_output.h - reporting findings: the output formats (one renderer each, tl_render_*.c, chosen
 * by name from one table), --statistics, and input diagnostics. */
#ifndef TL_OUTPUT_H
#define TL_OUTPUT_H

#include <stdio.h>

#include "trainlint.h"

typedef enum { TL_FORMAT_TEXT, TL_FORMAT_CONCISE, TL_FORMAT_JSON, TL_FORMAT_SARIF, TL_FORMAT_GITHUB, TL_FORMAT_GITLAB } tl_format;

typedef struct {
  tl_format format;
  bool color;
  bool unsafe_fixes;   /* count unsafe fixes as fixable ("[*]") */
  bool show_source;    /* text: the source line with a caret */
  bool show_fixes;     /* text: each finding's fix as a diff */
  bool quiet;          /* no summary line */
  const tl_ruleset *rules; /* sarif: the rules to describe (borrowed) */
} tl_output_opts;

/* The format called `name` ("text", "json", ...): true and *format set, or false. */
bool tl_format_parse(const char *name, tl_format *format);
/* The name of a format; NULL for a value past the last one (to list them all). */
const char *tl_format_name(tl_format format);

/* Writes the findings whose `skip[i]` is false (skip may be NULL) in o->format. Nothing is kept. */
void tl_output_findings(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o);
/* --statistics: the count of findings per rule, most frequent first. */
void tl_output_statistics(FILE *out, const tl_analysis *a, const bool *skip);
/* Writes input diagnostics ("path:line:col: error: message") to `out`. */
void tl_output_diags(FILE *out, const tl_diags *d, bool color);
/* The one-line hot chain of a finding ("in `f` at a.py:3, called from ..."). Caller frees. */
char *tl_hot_text(const tl_finding *f);

/* Builds each file's fixed text from its findings' fixes (safe ones, plus unsafe when asked).
 * `fixed[i]` is set for findings whose fix was taken. For every file with edits calls
 * cb(ctx, file, old, oldlen, new, newlen). Returns the number of fixes taken; overlapping
 * fixes are resolved deterministically (the earlier finding wins; the other stays reported). */
size_t tl_fixes_apply(const tl_analysis *a, bool unsafe, bool *fixed,
                      void (*cb)(void *ctx, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen),
                      void *ctx);

/* What `--fix` does: tl_fixes_apply, then the changed files are analysed again and fixed again,
 * until no fix applies or TL_FIX_ROUNDS rounds have run, so that a fix which clashed with another
 * one (two rules on one call) is made on the other's result. Before each round skip(skip_ctx, a,
 * flags) may set flags[i] for findings not to fix (disabled, in a baseline); flags has one entry
 * per finding and starts false. cb gets each changed file's text as first read and its final
 * text. The analysis is left at the final texts. Returns the number of fixes taken. */
#define TL_FIX_ROUNDS 8
size_t tl_fixes_apply_all(tl_analysis *a, bool unsafe, void (*skip)(void *skip_ctx, const tl_analysis *a, bool *flags),
                          void *skip_ctx,
                          void (*cb)(void *ctx, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen),
                          void *ctx);

#endif
