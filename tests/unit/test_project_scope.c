/* test_project_scope.c - rules with `scope: project` and project predicates (#project-match?,
 * #program-match?, #training-loop?): one finding per program (files connected by imports), chosen
 * by path whatever the order of files or the number of threads, and recomputed when the editor API
 * changes or removes a file. */
#include <string.h>

#include "tl_test.h"
#include "tl_util.h"
#include "trainlint.h"

static char *render(tl_analysis *a) {
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    tl_buf_printf(&b, "%s:%u:%u %s\n", f->path, f->line, f->col, tl_rule_code(f->rule));
  }
  return tl_buf_take(&b);
}

static const char *loop_b = /* a CUDA training loop, in the same program (it imports steps.py) */
    "import steps\n"
    "def train(model, loader, opt):\n"
    "    model = model.cuda()\n"
    "    for x in loader:\n"
    "        loss = model(x.cuda())\n"
    "        loss.backward()\n"
    "        opt.step()\n";
static const char *loop_a = /* its step runs in another file */
    "from steps import step_fn\n"
    "def fit(model, loader, opt, epochs):\n"
    "    model.cuda()\n"
    "    for epoch in range(epochs):\n"
    "        for i, batch in enumerate(loader):\n"
    "            step_fn(model, batch, opt)\n";
static const char *steps_v1 = "def step_fn(model, batch, opt):\n"
                              "    loss = model(batch)\n"
                              "    loss.backward()\n"
                              "    opt.step()\n";
static const char *steps_amp = /* mixed precision in another file silences the rule */
    "import torch\n"
    "def step_fn(model, batch, opt):\n"
    "    with torch.autocast('cuda'):\n"
    "        loss = model(batch)\n"
    "    loss.backward()\n"
    "    opt.step()\n";

static char *run(tl_ruleset *rs, unsigned threads, bool reversed) {
  tl_options o = {threads, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  const char *paths[] = {"b_train.py", "a_fit.py", "steps.py"};
  const char *texts[] = {loop_b, loop_a, steps_v1};
  for (int k = 0; k < 3; k++) {
    int i = reversed ? 2 - k : k;
    tl_analysis_add_text(a, paths[i], texts[i], strlen(texts[i]));
  }
  tl_analysis_run(a);
  char *r = render(a);
  tl_analysis_delete(a);
  return r;
}

int main(void) {
  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs));
  const char *sel[] = {"TL601"};
  tl_ruleset_select(rs, sel, 1, NULL, 0);
  CHECK(tl_ruleset_compile(rs));

  /* One finding, at the program's first training loop by path: the inner loop of a_fit.py (its
   * step is in steps.py), not the epoch loop around it, not b_train.py; the same for any order or -j. */
  char *r1 = run(rs, 1, false), *r2 = run(rs, 4, false), *r3 = run(rs, 1, true), *r4 = run(rs, 3, true);
  CHECK_STR(r1, "a_fit.py:5:9 TL601\n");
  CHECK_STR(r2, r1);
  CHECK_STR(r3, r1);
  CHECK_STR(r4, r1);
  free(r1);
  free(r2);
  free(r3);
  free(r4);

  /* The editor path: mixed precision appears in steps.py, goes away, a file is removed. */
  tl_options o = {2, true, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, "b_train.py", loop_b, strlen(loop_b));
  tl_analysis_add_text(a, "a_fit.py", loop_a, strlen(loop_a));
  tl_analysis_add_text(a, "steps.py", steps_v1, strlen(steps_v1));
  tl_analysis_run(a);
  char *s = render(a);
  CHECK_STR(s, "a_fit.py:5:9 TL601\n");
  free(s);
  tl_analysis_set_text(a, "steps.py", steps_amp, strlen(steps_amp));
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 0);
  tl_analysis_set_text(a, "steps.py", steps_v1, strlen(steps_v1));
  tl_analysis_run(a);
  s = render(a);
  CHECK_STR(s, "a_fit.py:5:9 TL601\n");
  free(s);
  tl_analysis_remove(a, "a_fit.py");
  tl_analysis_run(a);
  s = render(a);
  CHECK_STR(s, "b_train.py:4:5 TL601\n");
  free(s);
  /* without the step function's file, a_fit.py's loop is no training loop */
  tl_analysis_add_text(a, "a_fit.py", loop_a, strlen(loop_a));
  tl_analysis_remove(a, "steps.py");
  tl_analysis_run(a);
  s = render(a);
  CHECK_STR(s, "b_train.py:4:5 TL601\n");
  free(s);
  /* a script that imports nothing of the others is a program of its own: its own finding, and
   * mixed precision in the other program does not silence it */
  static const char *loop_c = "def main(model, loader, opt):\n"
                              "    for x in loader:\n"
                              "        loss = model(x.cuda())\n"
                              "        loss.backward()\n"
                              "        opt.step()\n";
  tl_analysis_add_text(a, "c_script.py", loop_c, strlen(loop_c));
  tl_analysis_run(a);
  s = render(a);
  CHECK_STR(s, "b_train.py:4:5 TL601\nc_script.py:2:5 TL601\n");
  free(s);
  static const char *b_amp = "import steps\n"
                             "import torch\n"
                             "def train(model, loader, opt):\n"
                             "    model = model.cuda()\n"
                             "    for x in loader:\n"
                             "        with torch.autocast('cuda'):\n"
                             "            loss = model(x.cuda())\n"
                             "        loss.backward()\n"
                             "        opt.step()\n";
  tl_analysis_set_text(a, "b_train.py", b_amp, strlen(b_amp));
  tl_analysis_run(a);
  s = render(a);
  CHECK_STR(s, "c_script.py:2:5 TL601\n");
  free(s);
  tl_analysis_delete(a);

  /* A user rule: scope must be file or project; a project rule with a project predicate. */
  tl_ruleset *bad = tl_ruleset_new();
  const char *bad_rule = "---\ncode: TL991\nname: x\nscope: module\nmessage: m\n---\n```query\n(call) @finding\n```\n";
  CHECK(!tl_ruleset_add_text(bad, "TL991.md", bad_rule, strlen(bad_rule)));
  CHECK(tl_ruleset_diag_count(bad) == 1 && strstr(tl_ruleset_diag(bad, 0)->message, "scope must be file or project"));
  tl_ruleset_delete(bad);

  tl_ruleset *user = tl_ruleset_new();
  const char *rule =
      "---\ncode: TL992\nname: first-print\nscope: project\nmessage: m\n---\n"
      "```query\n((call function: (identifier) @f) @finding (#eq? @f \"print\") (#not-project-match? \"logging\"))\n```\n";
  CHECK(tl_ruleset_add_text(user, "TL992.md", rule, strlen(rule)));
  CHECK(tl_ruleset_compile(user));
  tl_options o1 = {1, false, 0, NULL, 0, 0};
  a = tl_analysis_new(user, &o1);
  const char *z = "print(1)\nprint(2)\n", *y = "x = 1\nprint(3)\n";
  tl_analysis_add_text(a, "z.py", z, strlen(z));
  tl_analysis_add_text(a, "y.py", y, strlen(y));
  tl_analysis_run(a);
  s = render(a);
  CHECK_STR(s, "y.py:2:1 TL992\nz.py:1:1 TL992\n"); /* two programs: neither imports the other */
  free(s);
  const char *y2 = "import logging\nprint(3)\n";
  tl_analysis_set_text(a, "y.py", y2, strlen(y2));
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 0);
  tl_analysis_delete(a);
  tl_ruleset_delete(user);

  /* supersedes: the project rule's one finding hides the other rule's finding at the same place
   * only; the project rule's other matches (not reported) hide nothing. */
  tl_ruleset *sup = tl_ruleset_new();
  const char *outer = "---\ncode: TL993\nname: first-print\nscope: project\nsupersedes: TL994\nmessage: m\n---\n"
                      "```query\n((call function: (identifier) @f) @finding (#eq? @f \"print\"))\n```\n";
  const char *inner = "---\ncode: TL994\nname: any-print\nmessage: m\n---\n"
                      "```query\n((call function: (identifier) @f) @finding (#eq? @f \"print\"))\n```\n";
  CHECK(tl_ruleset_add_text(sup, "TL993.md", outer, strlen(outer)));
  CHECK(tl_ruleset_add_text(sup, "TL994.md", inner, strlen(inner)));
  CHECK(tl_ruleset_compile(sup));
  a = tl_analysis_new(sup, &o1);
  tl_analysis_add_text(a, "z.py", z, strlen(z));
  tl_analysis_add_text(a, "y.py", y, strlen(y));
  tl_analysis_run(a);
  s = render(a);
  CHECK_STR(s, "y.py:2:1 TL993\nz.py:1:1 TL993\nz.py:2:1 TL994\n");
  free(s);
  tl_analysis_delete(a);
  tl_ruleset_delete(sup);

  tl_ruleset_delete(rs);
  TEST_DONE();
}
