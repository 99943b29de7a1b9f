/* fuzz_edit.c - libFuzzer harness: incremental re-analysis after an edit (kept syntax trees) must equal a fresh analysis. */
/* When the new text has syntax errors, tree-sitter's incremental re-parse may recover differently
 * from a fresh parse (its error recovery depends on the old tree): a difference is then excused
 * when tree-sitter alone, given the same edit, also ends with a different tree. Without syntax
 * errors every difference is reported (FUZZ_EDIT_STRICT=1 in the environment: always). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "fuzz_util.h"
#include "tl_output.h"
#include "trainlint.h"

static tl_ruleset *rules;
static TSParser *parser;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  rules = fuzz_all_rules();
  parser = fuzz_python_parser();
  return 0;
}

/* Row and byte column of an offset in the parsed copy (a lone CR is a line end there). */
static TSPoint point_at(const char *text, size_t len, size_t off) {
  TSPoint p = {0, 0};
  size_t line_start = 0;
  for (size_t i = 0; i < off && i < len; i++)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))) p.row++, line_start = i + 1;
  p.column = (uint32_t)(off - line_start);
  return p;
}

/* Parses as the analyzer does (a UTF-8 BOM blanked, lone CRs as LF). */
static TSTree *parse(TSTree *old, const char *text, size_t len) {
  char *copy = tl_strndup(text, len);
  if (len >= 3 && !memcmp(copy, "\xEF\xBB\xBF", 3)) memcpy(copy, "   ", 3);
  for (size_t i = 0; i < len; i++)
    if (copy[i] == '\r' && (i + 1 == len || copy[i + 1] != '\n')) copy[i] = '\n';
  ts_parser_reset(parser);
  TSTree *t = ts_parser_parse_string(parser, old, copy, (uint32_t)len);
  free(copy);
  return t;
}

static bool same_tree(TSTree *a, TSTree *b) {
  char *x = ts_node_string(ts_tree_root_node(a)), *y = ts_node_string(ts_tree_root_node(b));
  bool same = !strcmp(x, y);
  free(x);
  free(y);
  return same;
}

/* Is a difference tree-sitter's error recovery? True when the final text has a syntax error and
 * tree-sitter alone, re-parsing after the same edit, ends with another tree than a fresh parse.
 * For the undo step the text is reached as the analysis reached it: parsed afresh, edited to
 * `neu`, re-parsed, edited back, re-parsed. */
static bool tree_sitter_differs(const char *old, size_t oldlen, const char *neu, size_t newlen, size_t start,
                                size_t old_end, size_t new_end, bool undo) {
  TSTree *t = parse(NULL, old, oldlen);
  const char *a = old, *b = neu;
  size_t alen = oldlen, blen = newlen, s = start, oe = old_end, ne = new_end;
  for (int step = 0; step < (undo ? 2 : 1); step++) {
    if (step == 1) { a = neu, alen = newlen, b = old, blen = oldlen, oe = new_end, ne = old_end; }
    TSInputEdit e = {(uint32_t)s,          (uint32_t)oe,          (uint32_t)ne,
                     point_at(a, alen, s), point_at(a, alen, oe), point_at(b, blen, ne)};
    ts_tree_edit(t, &e);
    TSTree *n = parse(t, b, blen);
    ts_tree_delete(t);
    t = n;
  }
  TSTree *fresh = parse(NULL, b, blen);
  bool excused = !getenv("FUZZ_EDIT_STRICT") && ts_node_has_error(ts_tree_root_node(fresh)) && !same_tree(t, fresh);
  ts_tree_delete(t);
  ts_tree_delete(fresh);
  return excused;
}

/* Everything a run reports, as JSON with unsafe fixes. Caller frees. */
static char *report(const tl_analysis *a) {
  char *s = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&s, &n);
  FUZZ_CHECK(f);
  tl_output_opts o = {TL_FORMAT_JSON, false, true, false, false, true, rules};
  tl_output_findings(f, a, NULL, &o);
  fclose(f);
  return s;
}

static void same(const char *incremental, const char *fresh, bool excused) {
  if (strcmp(incremental, fresh) && !excused) {
    fprintf(stderr, "fuzz: incremental analysis differs from a fresh one\n--- incremental\n%s\n--- fresh\n%s\n",
            incremental, fresh);
    abort();
  }
}

static char *fresh_report(fuzz_piece *pieces, size_t np, const char *text0, size_t len0) {
  tl_options opts = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rules, &opts);
  tl_analysis_add_text(a, pieces[0].name, text0, len0);
  for (size_t i = 1; i < np; i++) tl_analysis_add_text(a, pieces[i].name, pieces[i].text, pieces[i].len);
  tl_analysis_run(a);
  char *r = report(a);
  tl_analysis_delete(a);
  return r;
}

static const char *const snippets[] = {
    "",
    "x",
    " ",
    "\n",
    "\n    ",
    ".item()",
    "loss.item()",
    "(",
    ")",
    ":",
    "\"",
    "#",
    "\\\n",
    "for i in range(n):\n    ",
    "def f(x):\n",
    "class A:\n",
    "    ",
    "\t",
    "\r",
    "\xc3\xa9",
    "torch.cuda.synchronize()\n",
};

/* The last 4 bytes of the input describe an edit of the first file: position (2 bytes, scaled),
 * bytes deleted, text inserted. The rest is the text (split into files as fuzz_split does). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4 || size > 64 * 1024) return -1;
  const uint8_t *ctl = data + size - 4;
  size -= 4;
  fuzz_piece pieces[FUZZ_MAX_PIECES];
  size_t np = fuzz_split((const char *)data, size, pieces);
  const char *old = pieces[0].text;
  size_t oldlen = pieces[0].len;
  size_t start = oldlen ? ((size_t)ctl[0] << 8 | ctl[1]) % (oldlen + 1) : 0;
  size_t del = ctl[2] % 32;
  if (del > oldlen - start) del = oldlen - start;
  const char *ins = snippets[ctl[3] % (sizeof snippets / sizeof *snippets)];
  size_t inslen = strlen(ins);
  size_t newlen = oldlen - del + inslen;
  char *neu = tl_malloc(newlen + 1);
  memcpy(neu, old, start);
  memcpy(neu + start, ins, inslen);
  memcpy(neu + start + inslen, old + start + del, oldlen - start - del);
  neu[newlen] = 0;

  tl_options opts = {1, true, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rules, &opts);
  for (size_t i = 0; i < np; i++) tl_analysis_add_text(a, pieces[i].name, pieces[i].text, pieces[i].len);
  tl_analysis_run(a);
  char *before = report(a);
  /* the edit, then its undo: each incremental run must equal a fresh analysis of that text */
  tl_analysis_edit(a, pieces[0].name, (uint32_t)start, (uint32_t)(start + del), (uint32_t)(start + inslen), neu,
                   newlen);
  tl_analysis_run(a);
  char *inc = report(a), *fresh = fresh_report(pieces, np, neu, newlen);
  if (strcmp(inc, fresh))
    same(inc, fresh, tree_sitter_differs(old, oldlen, neu, newlen, start, start + del, start + inslen, false));
  free(inc);
  free(fresh);
  tl_analysis_edit(a, pieces[0].name, (uint32_t)start, (uint32_t)(start + inslen), (uint32_t)(start + del), old,
                   oldlen);
  tl_analysis_run(a);
  inc = report(a);
  if (strcmp(inc, before))
    same(inc, before, tree_sitter_differs(old, oldlen, neu, newlen, start, start + del, start + inslen, true));
  free(inc);
  free(before);
  free(neu);
  tl_analysis_delete(a);
  return 0;
}
