/* tl_output.h - reporting findings: the output formats (one renderer each, tl_render_*.c, chosen
 * by name from one table), --statistics, and input diagnostics. */
#ifndef TL_OUTPUT_H
#define TL_OUTPUT_H

#include <stdio.h>

#include "tl_util.h"
#include "trainlint.h"

typedef enum {
  TL_FORMAT_TEXT,
  TL_FORMAT_CONCISE,
  TL_FORMAT_JSON,
  TL_FORMAT_SARIF,
  TL_FORMAT_GITHUB,
  TL_FORMAT_GITLAB
} tl_format;

typedef struct {
  tl_format format;
  bool color;
  bool unsafe_fixes;       /* count unsafe fixes as fixable ("[*]") */
  bool show_source;        /* text: the source line with a caret */
  bool show_fixes;         /* text: each finding's fix as a diff */
  bool quiet;              /* no summary line */
  const tl_ruleset *rules; /* sarif: the rules to describe (borrowed) */
} tl_output_opts;

/* The format called `name` ("text", "json", ...): true and *format set, or false. */
bool tl_format_parse(const char *name, tl_format *format);
/* The name of a format; NULL for a value past the last one (to list them all). */
const char *tl_format_name(tl_format format);

/* Writes the findings whose `skip[i]` is false (skip may be NULL) in o->format. Nothing is kept. */
void tl_output_findings(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o);
/* --statistics: the count of findings per rule, most frequent first, and the total; with
 * `json`, an object {"rules": [{"code", "name", "count", "fixable"}], "total"}. A rule's findings
 * are fixable ("[*]") as the reports mark them: with o->unsafe_fixes, unsafe fixes count too. */
void tl_output_statistics(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o);
/* `trainlint rules --format json`: each rule of `rs` as {"code", "name", "severity", "fix",
 * "default", "help"}. */
void tl_output_rules_json(FILE *out, const tl_ruleset *rs, bool all);
/* Writes an input diagnostic ("path:line:col: error: message") to `out`. */
void tl_output_diag(FILE *out, const tl_diag *d, bool color);
/* Writes each of `d` (tl_output_diag). */
void tl_output_diags(FILE *out, const tl_diags *d, bool color);
/* `path` as reports and diffs show it: without its leading "./" (a pointer into it). */
const char *tl_output_relpath(const char *path);
/* The one-line hot chain of a finding ("in `f` at a.py:3, called from ..."). Caller frees. */
char *tl_hot_text(const tl_finding *f);

#endif
