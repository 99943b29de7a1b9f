/* test_budget.c - the budgets of one file's analysis (tl_options.file_budget_ms for its model and
 * rule matching, file_node_budget for its model; docs/limits.md): past one the file stops with a
 * warning located where it stopped, the other files are still analysed in full, and nothing of the
 * cut file is cached (a faster run would report more); within them, every finding is reported. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl_engine.h"
#include "tl_test.h"
#include "trainlint.h"

#define LINES 4000 /* per-step reads in big.py */

static void spit(const char *path, const char *text) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return;
  fputs(text, fp);
  fclose(fp);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(p);
}

typedef struct {
  size_t big, small;   /* TL101 findings in big.py and small.py */
  const tl_diag *stop; /* the warning of a stopped file, if any */
  bool results;        /* the run took its results from the cache */
  size_t hits;
} outcome;

static outcome run(const tl_ruleset *rs, unsigned budget_ms, unsigned nodes, const char *cache, tl_analysis **keep) {
  tl_options o = {1, false, 0, cache, budget_ms, nodes};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_path(a, "big.py");
  tl_analysis_add_path(a, "small.py");
  tl_analysis_run(a);
  outcome r = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    if (strcmp(tl_rule_code(f->rule), "TL101")) continue;
    if (!strcmp(f->path, "big.py")) r.big++;
    else r.small++;
  }
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    const tl_diag *d = tl_analysis_diag(a, i);
    if (strstr(d->message, "too complex to analyse")) r.stop = d;
  }
  r.results = a->results_cached;
  r.hits = a->cache_hits;
  *keep = a;
  return r;
}

int main(void) {
  char tmpl[] = "/tmp/tl_budget_test.XXXXXX";
  char *root = mkdtemp(tmpl);
  CHECK(root != NULL);
  if (!root || chdir(root)) TEST_DONE();
  tl_buf big = {0};
  tl_buf_puts(&big, "import torch\n\nfor x in train_loader:\n    x = x.cuda()\n");
  for (int i = 0; i < LINES; i++) tl_buf_printf(&big, "    v%d = x.sum().item()\n", i);
  spit("big.py", big.data);
  tl_buf_free(&big);
  spit("small.py", "import torch\n\nfor x in train_loader:\n    x = x.cuda()\n    print(x.sum().item())\n");

  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs));
  CHECK(tl_ruleset_compile(rs));

  /* within the default budget: everything */
  tl_analysis *a;
  outcome full = run(rs, 0, 0, NULL, &a);
  CHECK_INT(full.big, LINES);
  CHECK_INT(full.small, 1);
  CHECK(full.stop == NULL);
  tl_analysis_delete(a);

  /* a budget of 1 ms: big.py stops part of the way, located; small.py is whole */
  outcome cut = run(rs, 1, 0, "cache", &a);
  CHECK(cut.stop != NULL);
  CHECK(cut.big < LINES);
  CHECK_INT(cut.small, 1);
  if (cut.stop) {
    CHECK_STR(cut.stop->path, "big.py");
    CHECK(cut.stop->level == TL_DIAG_WARNING);
    CHECK(cut.stop->line > 4 && cut.stop->line <= LINES + 4);
    CHECK(cut.stop->col > 0);
  }
  tl_analysis_delete(a);

  /* nothing of the cut file was cached: the next run analyses it again (and whole, within the
   * default budget), and takes only small.py from the cache */
  outcome again = run(rs, 0, 0, "cache", &a);
  CHECK(!again.results);
  CHECK_INT(again.hits, 1);
  CHECK_INT(again.big, LINES);
  CHECK(again.stop == NULL);
  tl_analysis_delete(a);
  outcome warm = run(rs, 0, 0, "cache", &a);
  CHECK(warm.results);
  CHECK_INT(warm.big, LINES);
  tl_analysis_delete(a);

  /* a budget of 2,000 nodes for the model: big.py (about 10 per line) stops where its walk reached,
   * with none of its findings; small.py is whole; nothing of big.py is cached */
  outcome nodes = run(rs, 0, 2000, "nodes-cache", &a);
  CHECK(nodes.stop != NULL);
  CHECK_INT(nodes.big, 0);
  CHECK_INT(nodes.small, 1);
  if (nodes.stop) {
    CHECK_STR(nodes.stop->path, "big.py");
    CHECK(strstr(nodes.stop->message, "2000 syntax nodes") != NULL);
    CHECK(nodes.stop->line > 4 && nodes.stop->line <= LINES + 4);
  }
  tl_analysis_delete(a);
  outcome after = run(rs, 0, 0, "nodes-cache", &a);
  CHECK_INT(after.hits, 1);
  CHECK_INT(after.big, LINES);
  CHECK(after.stop == NULL);
  tl_analysis_delete(a);

  tl_ruleset_delete(rs);
  if (chdir("/") == 0) nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  TEST_DONE();
}
