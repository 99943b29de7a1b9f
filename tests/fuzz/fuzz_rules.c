/* fuzz_rules.c - libFuzzer harness: one rule file (Markdown) loaded, compiled, and run on the Python code blocks it holds. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tl_fix.h"
#include "tl_fix_apply.h"
#include "tl_output.h"
#include "trainlint.h"

/* tree-sitter 0.20.7's ts_query_new leaks a few bytes when it rejects a pattern with an unknown
 * field that holds captures (`d: (_) @e`), and returns NULL: nothing for trainlint to free.
 * Suppressed by name, which needs the slow unwinder (libtree-sitter has no frame pointers). */
const char *__asan_default_options(void);
const char *__lsan_default_suppressions(void);
const char *__asan_default_options(void) { return "fast_unwind_on_malloc=0"; }
const char *__lsan_default_suppressions(void) { return "leak:ts_query_new\n"; }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

static void on_fixed(void *p, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen) {
  (void)file;
  tl_diff_unified(p, "example.py", old, oldlen, neu, newlen);
}

/* The ```python blocks of the rule file, concatenated: the code the rule is run on. */
static char *python_blocks(const char *text, size_t len, size_t *outlen) {
  tl_buf b = {0};
  tl_buf_put(&b, "", 0);
  const char *p = text, *end = text + len;
  static const char open[] = "```python\n";
  while (p < end) {
    const char *q = memmem(p, (size_t)(end - p), open, sizeof open - 1);
    if (!q) break;
    q += sizeof open - 1;
    const char *close = memmem(q, (size_t)(end - q), "\n```", 4);
    const char *stop = close ? close + 1 : end;
    tl_buf_put(&b, q, (size_t)(stop - q));
    p = close ? close + 4 : end;
  }
  *outlen = b.len;
  return tl_buf_take(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 64 * 1024) return -1;
  const char *text = (const char *)data;
  tl_ruleset *rs = tl_ruleset_new();
  bool ok = tl_ruleset_add_text(rs, "fuzz.md", text, size);
  if (!ok) FUZZ_CHECK(tl_ruleset_diag_count(rs) > 0); /* a refusal is always explained */
  for (size_t i = 0; i < tl_ruleset_diag_count(rs); i++)
    FUZZ_CHECK(tl_ruleset_diag(rs, i)->path && tl_ruleset_diag(rs, i)->message);
  for (size_t i = 0; i < tl_ruleset_count(rs); i++) {
    const tl_rule *r = tl_ruleset_rule(rs, i);
    FUZZ_CHECK(tl_rule_code(r) && tl_rule_name(r) && tl_rule_summary(r) && tl_rule_doc(r) && tl_rule_fix_title(r) &&
               tl_rule_help(r));
    FUZZ_CHECK(tl_ruleset_find(rs, tl_rule_code(r)) != NULL);
    (void)tl_severity_name(tl_rule_severity(r));
  }
  if (ok) {
    const char *all[] = {"ALL"};
    tl_ruleset_select(rs, all, 1, NULL, 0);
    size_t before = tl_ruleset_diag_count(rs);
    ok = tl_ruleset_compile(rs);
    if (!ok) FUZZ_CHECK(tl_ruleset_diag_count(rs) > before);
  }
  if (ok && tl_ruleset_count(rs)) {
    size_t len;
    char *code = python_blocks(text, size, &len);
    tl_options opts = {1, false, 0, NULL, 0, 0};
    tl_analysis *a = tl_analysis_new(rs, &opts);
    tl_analysis_add_text(a, "example.py", code, len);
    tl_analysis_run(a);
    tl_output_opts o = {TL_FORMAT_TEXT, false, true, true, true, false, rs};
    tl_output_findings(fuzz_devnull(), a, NULL, &o);
    o.format = TL_FORMAT_SARIF;
    tl_output_findings(fuzz_devnull(), a, NULL, &o);
    tl_buf diff = {0};
    tl_fixes_apply(a, true, NULL, on_fixed, &diff);
    tl_buf_free(&diff);
    tl_analysis_delete(a);
    free(code);
  }
  for (size_t i = 0; i < tl_ruleset_diag_count(rs); i++) tl_output_diag(fuzz_devnull(), tl_ruleset_diag(rs, i), false);
  tl_ruleset_delete(rs);
  return 0;
}
