/* tl_render.h - what the output formats share: the renderer's signature, one renderer per
 * format (tl_render_<format>.c), and the helpers of tl_output.c they call. */
#ifndef TL_RENDER_H
#define TL_RENDER_H

#include <cjson/cJSON.h>

#include "tl_output.h"

#define TL_C_RESET "\033[0m"
#define TL_C_BOLD "\033[1m"
#define TL_C_RED "\033[31m"
#define TL_C_YELLOW "\033[33m"
#define TL_C_CYAN "\033[36m"

/* Writes the findings of `a` whose skip[i] is false (skip may be NULL) to `out`. */
typedef void tl_render_fn(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o);

tl_render_fn tl_render_text;    /* tl_render_text.c: findings with source, hot chain, help, fixes */
tl_render_fn tl_render_concise; /* tl_render_concise.c: one line per finding */
tl_render_fn tl_render_json;    /* tl_render_json.c: trainlint's own JSON document */
tl_render_fn tl_render_sarif;   /* tl_render_sarif.c: SARIF 2.1.0 */
tl_render_fn tl_render_github;  /* tl_render_github.c: GitHub Actions workflow commands */
tl_render_fn tl_render_gitlab;  /* tl_render_gitlab.c: GitLab Code Quality report */

/* The colour of a severity (an ANSI escape). */
const char *tl_output_severity_color(tl_severity s);
/* Is the finding's fix one the report calls fixable ("[*]")? */
bool tl_output_fixable(const tl_finding *f, const tl_output_opts *o);
/* A finding's first line: "path:line:col: CODE message [*]". */
void tl_output_headline(FILE *out, const tl_finding *f, const tl_output_opts *o);
/* Prints a JSON document and a newline, and deletes it (takes ownership of `doc`). */
void tl_output_json_doc(FILE *out, cJSON *doc);
/* The edits a finding's fix makes to its file as read (not as analysed): the finding's own, or in
 * a notebook one edit of the notebook's JSON (the code cells' sources it rewrites), made into
 * `*one` whose text the caller frees (tl_output_edits_free). NULL and *n = 0 when there are none. */
const tl_edit *tl_output_file_edits(const tl_analysis *a, const tl_finding *f, tl_edit *one, size_t *n);
void tl_output_edits_free(const tl_edit *edits, tl_edit *one);

#endif
