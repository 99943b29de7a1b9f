/* test_incremental.c - re-running an analysis after edits (the editor path): incremental
 * re-parsing, buffers that replace files, hotness that changes across files, UTF-8 broken and
 * mended and line ends changed by edits, removal; every result must equal a fresh analysis of the
 * same texts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_output.h"
#include "tl_test.h"
#include "trainlint.h"

static char *render(tl_analysis *a) {
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    char *hot = tl_hot_text(f);
    tl_buf_printf(&b, "%s:%u:%u %s %s | %s | stmt %u-%u\n", f->path, f->line, f->col, tl_rule_code(f->rule), f->message,
                  hot, f->stmt_first_line, f->stmt_last_line);
    free(hot);
  }
  return tl_buf_take(&b);
}

static char *fresh(tl_ruleset *rs, const char *p1, const char *t1, const char *p2, const char *t2) {
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, p1, t1, strlen(t1));
  if (p2) tl_analysis_add_text(a, p2, t2, strlen(t2));
  tl_analysis_run(a);
  char *r = render(a);
  tl_analysis_delete(a);
  return r;
}

/* Findings with their positions, then the diagnostics. */
static char *render_all(tl_analysis *a) {
  char *r = render(a);
  tl_buf b = {0};
  tl_buf_puts(&b, r);
  free(r);
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    const tl_diag *d = tl_analysis_diag(a, i);
    tl_buf_printf(&b, "diag %s:%u:%u %s\n", d->path, d->line, d->col, d->message);
  }
  return tl_buf_take(&b);
}

/* Applies the change from `old` to `new` to `path` as one edit (the differing middle), runs, and
 * compares with a fresh analysis of both files. */
static void edit_to(tl_analysis *a, tl_ruleset *rs, const char *path, const char *old, const char *new,
                    const char *other_path, const char *other) {
  size_t ol = strlen(old), nl = strlen(new), p = 0, q = 0;
  while (p < ol && p < nl && old[p] == new[p]) p++;
  while (q < ol - p && q < nl - p && old[ol - 1 - q] == new[nl - 1 - q]) q++;
  tl_analysis_edit(a, path, (uint32_t)p, (uint32_t)(ol - q), (uint32_t)(nl - q), new, nl);
  tl_analysis_run(a);
  char *got = render_all(a);
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *f = tl_analysis_new(rs, &o);
  tl_analysis_add_text(f, other_path, other, strlen(other));
  tl_analysis_add_text(f, path, new, nl);
  tl_analysis_run(f);
  char *want = render_all(f);
  tl_analysis_delete(f);
  CHECK_STR(got, want);
  free(got);
  free(want);
}

static const char *train_v1 = "from model import helper\n"
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
static const char *model_v1 = "def helper(t):\n"
                              "    return t.sum().item()\n";

int main(void) {
  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs) && tl_ruleset_compile(rs));
  tl_options o = {1, true, 0, NULL, 0, 0};
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
    tl_analysis_edit(a, "train.py", (uint32_t)(base + k - 1), (uint32_t)(base + k - 1), (uint32_t)(base + k), text,
                     strlen(text));
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
  tl_analysis_edit(a, "train.py", (uint32_t)base, (uint32_t)(base + strlen(tail)), (uint32_t)base, train_v1,
                   strlen(train_v1));
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

  /* Edits that break UTF-8 and mend it (the check reads only the characters around them), and
   * line ends changed to \r\n or a lone \r (the line starts are updated around them). */
  {
    const char *steps[] = {
        "def helper(t):\n    # gr\xC3\xB6\xC3\x9F"
        "e\n    return t.sum().item()\n",
        "def helper(t):\n    # gr\xC3\xC3\x9F"
        "e\n    return t.sum().item()\n", /* a lead byte without its continuation */
        "def helper(t):\n    # gr\xC3\xB6\xC3\x9F"
        "e\n    return t.sum().item()\n",
        "def helper(t):\n    # gr\xB6\xC3\x9F"
        "e\n    return t.sum().item()\n", /* a continuation byte alone */
        "def helper(t):\n    # gr\xC3\xB6\xC3\x9F"
        "e\n    return t.sum().item()\n",
        "def helper(t):\r\n    # gr\xC3\xB6\xC3\x9F"
        "e\r\n    return t.sum().item()\n",
        "def helper(t):\r    # gr\xC3\xB6\xC3\x9F"
        "e\r\n    return t.sum().item()\n",
        "def helper(t):\r\n\r\n    return t.sum().item()\r",
        "def helper(t):\n    return t.sum().item()\n",
    };
    const char *cur = model_v2;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
      edit_to(a, rs, "model.py", cur, steps[i], "train.py", train_v2);
      cur = steps[i];
    }
    got = render_all(a);
    CHECK(strstr(got, "model.py:2:12 TL101") != NULL);
    free(got);
    edit_to(a, rs, "model.py", cur, steps[1], "train.py", train_v2);
    got = render_all(a);
    CHECK(strstr(got, "diag model.py:2:9 invalid UTF-8") != NULL);
    free(got);
    edit_to(a, rs, "model.py", steps[1], model_v2, "train.py", train_v2);
  }

  /* A syntax error whose ERROR node holds findings and reaches into an edit's region (found by
   * test_incremental_random with more edits): the findings' statement lines must follow the new
   * tree (the whole file is queried again when a kept finding's statement reaches into the region).
   * The texts (tests/unit/data/error_stmt_*.txt) are what random edits had made of fixtures/TL405. */
  {
    char *before = tl_test_read_file(TL_SOURCE_DIR "/tests/unit/data/error_stmt_before.txt", NULL);
    char *after = tl_test_read_file(TL_SOURCE_DIR "/tests/unit/data/error_stmt_after.txt", NULL);
    CHECK(before && after);
    if (before && after) {
      tl_options eo = {1, true, 0, NULL, 0, 0};
      tl_analysis *e = tl_analysis_new(rs, &eo);
      tl_analysis_add_text(e, "train.py", before, strlen(before));
      tl_analysis_run(e);
      tl_analysis_edit(e, "train.py", 248, 248, 279, after, strlen(after));
      tl_analysis_run(e);
      got = render_all(e);
      tl_analysis *f = tl_analysis_new(rs, &o);
      tl_analysis_add_text(f, "train.py", after, strlen(after));
      tl_analysis_run(f);
      want = render_all(f);
      CHECK_STR(got, want);
      free(got);
      free(want);
      tl_analysis_delete(f);
      tl_analysis_delete(e);
    }
    free(before);
    free(after);
  }

  /* Edits that change how the statements after them parse without touching them: a bracket or a
   * triple-quoted string opened and closed, a statement joined to the next by a backslash, an
   * `else:` that joins the `if` before it. Which statements are re-queried is decided from their
   * ranges against the last run's (tl_find_region); every step must equal a fresh analysis. */
  {
    const char *base_text = "import torch\n"
                            "def a(model, loader, opt):\n"
                            "    for batch in loader:\n"
                            "        loss = model(batch)\n"
                            "        loss.backward()\n"
                            "        opt.step()\n"
                            "        print(loss.item())\n"
                            "x = 1\n"
                            "if x:\n"
                            "    y = 2\n"
                            "z = 3\n"
                            "def b(model, loader, opt):\n"
                            "    for batch in loader:\n"
                            "        loss = model(batch)\n"
                            "        loss.backward()\n"
                            "        opt.step()\n"
                            "        v = loss.item()\n";
    char *steps[6];
    steps[0] = tl_strdup(base_text);
    char *at = strstr(steps[0], "x = 1");
    steps[1] = tl_printf("%.*sx = (1\n%s", (int)(at - steps[0]), steps[0], at + 6);      /* an open bracket */
    steps[2] = tl_printf("%.*s\"\"\"x = 1\n%s", (int)(at - steps[0]), steps[0], at + 6); /* an open string */
    steps[3] = tl_printf("%.*sx = 1 + \\\n%s", (int)(at - steps[0]), steps[0], at + 6);  /* a line joined */
    char *z = strstr(steps[0], "z = 3");
    steps[4] = tl_printf("%.*selse:\n    z = 3\n%s", (int)(z - steps[0]), steps[0], z + 6); /* the `if` grows */
    steps[5] = tl_strdup(base_text);
    tl_options io = {1, true, 0, NULL, 0, 0};
    tl_analysis *e = tl_analysis_new(rs, &io);
    tl_analysis_add_text(e, "train.py", base_text, strlen(base_text));
    tl_analysis_add_text(e, "model.py", model_v1, strlen(model_v1));
    tl_analysis_run(e);
    const char *cur = base_text;
    for (size_t i = 1; i < 6; i++) {
      edit_to(e, rs, "train.py", cur, steps[i], "model.py", model_v1);
      cur = steps[i];
      if (i < 5) edit_to(e, rs, "train.py", cur, base_text, "model.py", model_v1), cur = base_text;
    }
    got = render_all(e);
    CHECK(strstr(got, "train.py:17:13 TL101") != NULL); /* b()'s finding, after all of it */
    free(got);
    tl_analysis_delete(e);
    for (size_t i = 0; i < 6; i++) free(steps[i]);
  }

  /* The mentions tl_usage.c keeps per file for the editor's runs follow the text: a function of a
   * script that nothing calls is info until another file names it (a callback), then hot again
   * when the name goes; each step equals a fresh analysis, which scans every text anew. */
  {
    const char *lib = "import torch\n"
                      "def helper(model, loader):\n"
                      "    for x in loader:\n"
                      "        print(model(x.cuda()).sum().item())\n"
                      "if __name__ == '__main__':\n"
                      "    pass\n";
    const char *user0 = "import lib\nhooks = []\n";
    const char *user1 = "import lib\nhooks = [lib.helper]\n";
    tl_options uo = {1, true, 0, NULL, 0, 0};
    tl_analysis *u = tl_analysis_new(rs, &uo);
    tl_analysis_add_text(u, "lib.py", lib, strlen(lib));
    tl_analysis_add_text(u, "user.py", user0, strlen(user0));
    tl_analysis_run(u);
    char *info = render_all(u);
    edit_to(u, rs, "user.py", user0, user1, "lib.py", lib);
    char *named = render_all(u);
    CHECK(strcmp(info, named) != 0); /* the finding's severity moved with the mention */
    edit_to(u, rs, "user.py", user1, user0, "lib.py", lib);
    char *back = render_all(u);
    CHECK_STR(back, info);
    free(info);
    free(named);
    free(back);
    tl_analysis_delete(u);
  }

  /* Removing model.py: nothing left to report. */
  tl_analysis_remove(a, "model.py");
  tl_analysis_run(a);
  CHECK_INT(tl_analysis_finding_count(a), 0);
  CHECK_INT(tl_analysis_file_count(a), 1);

  tl_analysis_delete(a);
  tl_ruleset_delete(rs);
  TEST_DONE();
}
