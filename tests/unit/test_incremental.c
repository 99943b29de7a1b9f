/* test_incremental.c - re-running an analysis after edits (the editor path): incremental
 * re-parsing, buffers that replace files, hotness that changes across files, removal; every
 * result must equal a fresh analysis of the same texts. */
#include <string.h>

#include "tl_output.h"
#include "tl_test.h"
#include "trainlint.h"

static char *render(tl_analysis *a) {
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    char *hot = tl_hot_text(f);
    tl_buf_printf(&b, "%s:%u:%u %s %s | %s\n", f->path, f->line, f->col, tl_rule_code(f->rule), f->message, hot);
    free(hot);
  }
  return tl_buf_take(&b);
}

static char *fresh(tl_ruleset *rs, const char *p1, const char *t1, const char *p2, const char *t2) {
  tl_options o = {1, false};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, p1, t1, strlen(t1));
  if (p2) tl_analysis_add_text(a, p2, t2, strlen(t2));
  tl_analysis_run(a);
  char *r = render(a);
  tl_analysis_delete(a);
  return r;
}

static const char *train_v1 =
  "from model import helper\n"
  "def train(model, loader, opt):\n"
  "    for batch in loader:\n"
  "        loss = model(batch)\n"
  "        loss.backward()\n"
  "        opt.step()\n";
static const char *train_v2 = /* now calls helper() every step */
  "from model import helper\n"
  "def train(model, loader, opt):\n"
  "    for batch in loader:\n"
  "        loss = model(batch)\n"
  "        loss.backward()\n"
  "        opt.step()\n"
  "        helper(loss)\n";
static const char *model_v1 =
  "def helper(t):\n"
  "    return t.sum().item()\n";

int main(void) {
  tl_diags d = {0};
  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs, &d) && tl_ruleset_compile(rs, &d));
  tl_options o = {1, true};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, "train.py", train_v1, strlen(train_v1));
  tl_analysis_add_text(a, "model.py", model_v1, strlen(model_v1));
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 0); /* helper is not called from the step loop yet */

  /* Typing the call in train.py, one character at a time, makes model.py's helper hot. */
  const char *tail = "        helper(loss)\n";
  size_t base = strlen(train_v1);
  for (size_t k = 1; k <= strlen(tail); k++) {
    char *text = tl_printf("%s%.*s", train_v1, (int)k, tail);
    tl_analysis_edit(a, "train.py", (uint32_t)(base + k - 1), (uint32_t)(base + k - 1), (uint32_t)(base + k), text, strlen(text));
    tl_analysis_run(a);
    free(text);
  }
  char *got = render(a), *want = fresh(rs, "train.py", train_v2, "model.py", model_v1);
  CHECK_STR(got, want);
  CHECK(strstr(got, "model.py:2:12 TL101") != NULL);
  CHECK(strstr(got, "called from the step loop at train.py:3") != NULL);
  free(got);
  free(want);

  /* Deleting the call (one edit removing the line) makes it cold again. */
  tl_analysis_edit(a, "train.py", (uint32_t)base, (uint32_t)(base + strlen(tail)), (uint32_t)base, train_v1, strlen(train_v1));
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 0);

  /* A whole-buffer replacement (no edit description) and a second run without changes. */
  tl_analysis_set_text(a, "train.py", train_v2, strlen(train_v2));
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 1);
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 1);

  /* An edit in the middle of model.py: insert a line before the return. */
  const char *model_v2 = "def helper(t):\n    t = t * 2\n    return t.sum().item()\n";
  tl_analysis_edit(a, "model.py", 15, 15, 25, model_v2, strlen(model_v2));
  tl_analysis_run(a);
  got = render(a);
  want = fresh(rs, "train.py", train_v2, "model.py", model_v2);
  CHECK_STR(got, want);
  free(got);
  free(want);

  /* Removing model.py: nothing left to report. */
  tl_analysis_remove(a, "model.py");
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 0);
  CHECK_INT(tl_analysis_file_count(a), 1);

  tl_analysis_delete(a);
  tl_ruleset_delete(rs);
  tl_diags_free(&d);
  TEST_DONE();
}
