/* fuzz_analyze.c - libFuzzer harness: Python sources through analysis, every output format, and fix application with its diff. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "fuzz_util.h"
#include "tl_fix.h"
#include "tl_fix_apply.h"
#include "tl_output.h"
#include "tl_source.h"
#include "trainlint.h"

static tl_ruleset *rules;
static TSParser *parser;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  rules = fuzz_all_rules();
  parser = fuzz_python_parser();
  return 0;
}

/* Does the text parse without a syntax error (the BOM blanked, lone CRs as LF, as the analyzer does)? */
static bool parses_cleanly(const char *text, size_t len) {
  char *copy = tl_strndup(text, len);
  if (len >= 3 && !memcmp(copy, "\xEF\xBB\xBF", 3)) memcpy(copy, "   ", 3);
  for (size_t i = 0; i < len; i++)
    if (copy[i] == '\r' && (i + 1 == len || copy[i + 1] != '\n')) copy[i] = '\n';
  ts_parser_reset(parser);
  TSTree *t = ts_parser_parse_string(parser, NULL, copy, (uint32_t)len);
  bool ok = t && !ts_node_has_error(ts_tree_root_node(t));
  if (t) ts_tree_delete(t);
  free(copy);
  return ok;
}

typedef struct {
  const tl_analysis *a;
  tl_buf diff;
  size_t calls;
} fix_ctx;

static void on_fixed(void *p, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen) {
  fix_ctx *c = p;
  size_t len;
  const char *text = tl_analysis_file_text(c->a, file, &len);
  FUZZ_CHECK(text == old && len == oldlen);
  FUZZ_CHECK(neu && strlen(neu) == newlen);     /* the fixed text holds no NUL (the original had none) */
  FUZZ_CHECK(tl_utf8_valid(neu, newlen, NULL)); /* edits never split a code point */
  /* a fix may not turn code that parses into code that does not */
  if (getenv("FUZZ_NO_SYNTAX_ORACLE") == NULL && parses_cleanly(old, oldlen)) FUZZ_CHECK(parses_cleanly(neu, newlen));
  tl_diff_unified(&c->diff, tl_analysis_file_path(c->a, file), old, oldlen, neu, newlen);
  FUZZ_CHECK((oldlen == newlen && !memcmp(old, neu, oldlen)) || c->diff.len > 0);
  c->calls++;
}

/* Positions, ranges and edits of every finding are inside its file and consistent. */
static void check_finding(const tl_analysis *a, const tl_finding *f) {
  FUZZ_CHECK(f->rule && f->message && f->path);
  FUZZ_CHECK(f->file < tl_analysis_file_count(a));
  FUZZ_CHECK(!strcmp(f->path, tl_analysis_file_path(a, f->file)));
  size_t len;
  const char *text = tl_analysis_file_text(a, f->file, &len);
  FUZZ_CHECK(text);
  FUZZ_CHECK(f->start_byte <= f->end_byte && f->end_byte <= len);
  FUZZ_CHECK(f->line >= 1 && f->col >= 1 &&
             (f->end_line > f->line || (f->end_line == f->line && f->end_col >= f->col)));
  FUZZ_CHECK(f->stmt_first_line >= 1 && f->stmt_first_line <= f->line && f->stmt_last_line >= f->line);
  FUZZ_CHECK(strlen(f->fingerprint) == 16);
  tl_lines lines;
  tl_lines_init(&lines, text, len);
  FUZZ_CHECK(f->line == tl_lines_line(&lines, f->start_byte));
  FUZZ_CHECK(f->col == tl_lines_col(&lines, text, f->start_byte));
  FUZZ_CHECK(f->stmt_last_line <= lines.count);
  tl_lines_free(&lines);
  for (size_t i = 0; i < f->nhot; i++) FUZZ_CHECK(f->hot[i].what && f->hot[i].path && f->hot[i].line >= 1);
  for (size_t i = 0; i < f->nfix; i++) {
    const tl_edit *e = &f->fix[i];
    FUZZ_CHECK(e->start <= e->end && e->end <= len);
    FUZZ_CHECK(e->start == len || ((unsigned char)text[e->start] & 0xC0) != 0x80);
    FUZZ_CHECK(e->end == len || ((unsigned char)text[e->end] & 0xC0) != 0x80);
  }
  if (f->nfix) {
    /* one finding's edits never overlap each other: its fix is applied whole */
    size_t nl, skipped = 0;
    char *neu = tl_edits_apply(text, len, f->fix, f->nfix, &nl, &skipped);
    FUZZ_CHECK(skipped == 0);
    tl_buf d = {0};
    tl_diff_unified(&d, f->path, text, len, neu, nl);
    tl_buf_free(&d);
    free(neu);
  }
  char *hot = tl_hot_text(f);
  free(hot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256 * 1024) return -1;
  fuzz_piece pieces[FUZZ_MAX_PIECES];
  size_t np = fuzz_split((const char *)data, size, pieces);
  tl_options opts = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rules, &opts);
  for (size_t i = 0; i < np; i++) tl_analysis_add_text(a, pieces[i].name, pieces[i].text, pieces[i].len);
  tl_analysis_run(a);

  size_t n = tl_analysis_finding_count(a);
  for (size_t i = 0; i < n; i++) {
    check_finding(a, tl_analysis_finding(a, i));
    if (i) { /* sorted by path, line, col */
      const tl_finding *p = tl_analysis_finding(a, i - 1), *f = tl_analysis_finding(a, i);
      FUZZ_CHECK(p->file != f->file || p->line < f->line || (p->line == f->line && p->col <= f->col));
    }
  }
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++)
    FUZZ_CHECK(tl_analysis_diag(a, i)->path && tl_analysis_diag(a, i)->message);

  FILE *out = fuzz_devnull();
  bool *skip = tl_calloc(n + 1, sizeof *skip);
  for (size_t i = 0; i < n; i++) skip[i] = (i % 3) == 2;
  const tl_format formats[] = {TL_FORMAT_TEXT,  TL_FORMAT_CONCISE, TL_FORMAT_JSON,
                               TL_FORMAT_SARIF, TL_FORMAT_GITHUB,  TL_FORMAT_GITLAB};
  for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
    tl_output_opts o = {formats[k], k % 2 == 0, true, true, true, false, rules};
    tl_output_findings(out, a, NULL, &o);
    o.color = !o.color;
    o.show_source = o.show_fixes = o.unsafe_fixes = false;
    o.quiet = true;
    tl_output_findings(out, a, skip, &o);
  }
  tl_output_opts so = {TL_FORMAT_TEXT, false, true, false, false, false, rules};
  tl_output_statistics(out, a, NULL, &so);
  so.format = TL_FORMAT_JSON;
  so.unsafe_fixes = false;
  tl_output_statistics(out, a, NULL, &so);
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    tl_output_diag(out, tl_analysis_diag(a, i), true);
    tl_output_diag(out, tl_analysis_diag(a, i), false);
  }

  /* fixes: safe ones, then safe and unsafe, as --diff and --fix do */
  for (int unsafe = 0; unsafe < 2; unsafe++) {
    fix_ctx c = {a, {0}, 0};
    bool *fixed = tl_calloc(n + 1, sizeof *fixed);
    size_t taken = tl_fixes_apply(a, unsafe, fixed, on_fixed, &c);
    size_t marked = 0;
    for (size_t i = 0; i < n; i++) marked += fixed[i];
    FUZZ_CHECK(taken == marked && taken <= n && (taken == 0) == (c.calls == 0));
    tl_output_opts o = {TL_FORMAT_TEXT, false, unsafe, true, true, false, rules};
    tl_output_findings(out, a, fixed, &o);
    tl_buf_free(&c.diff);
    free(fixed);
  }

  (void)tl_analysis_suppressed_count(a);
  free(skip);
  tl_analysis_delete(a);
  return 0;
}
