/* api.c - a program that uses the library through include/trainlint.h alone, built with -Wall
 * -Wextra -Werror -pedantic (tests/CMakeLists.txt): it loads the rules, analyses texts in memory
 * and prints the findings, their fixes and the diagnostics; it fails when one of them is not
 * what the API promises. */
#include <stdio.h>
#include <string.h>

#include <trainlint.h>

static int failures;

#define EXPECT(cond) \
  do { \
    if (!(cond)) { \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      failures++; \
    } \
  } while (0)

static const char train_py[] = "import torch\n"
                               "from torch.utils.data import DataLoader\n"
                               "\n"
                               "\n"
                               "def train(model, dataset, opt):\n"
                               "    loader = DataLoader(dataset, batch_size=32, num_workers=4, pin_memory=True)\n"
                               "    for x, y in loader:\n"
                               "        x, y = x.cuda(), y.cuda()\n"
                               "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
                               "        opt.zero_grad()\n"
                               "        loss.backward()\n"
                               "        opt.step()\n"
                               "        print(loss.item())\n";

static void print_diag(const tl_diag *d) {
  const char *level = d->level == TL_DIAG_ERROR ? "error" : d->level == TL_DIAG_WARNING ? "warning" : "note";
  printf("%s:%u:%u: %s: %s\n", d->path, (unsigned)d->line, (unsigned)d->col, level, d->message);
}

/* A rule file with an error in its front matter: refused, with the line in a diagnostic. */
static void bad_rule(void) {
  static const char text[] = "---\ncode: TL999\nname: bad\nseverity: loud\nmessage: m\n---\n"
                             "```query\n(call) @finding\n```\n";
  tl_ruleset *rs = tl_ruleset_new();
  EXPECT(!tl_ruleset_add_text(rs, "TL999.md", text, strlen(text)));
  EXPECT(tl_ruleset_diag_count(rs) == 1);
  for (size_t i = 0; i < tl_ruleset_diag_count(rs); i++) print_diag(tl_ruleset_diag(rs, i));
  const tl_diag *d = tl_ruleset_diag(rs, 0);
  EXPECT(d && d->level == TL_DIAG_ERROR && !strcmp(d->path, "TL999.md") && d->line == 4);
  EXPECT(tl_ruleset_diag(rs, 1) == NULL);
  tl_ruleset_delete(rs);
}

int main(void) {
  bad_rule();

  tl_ruleset *rs = tl_ruleset_new();
  EXPECT(tl_ruleset_add_builtin(rs));
  EXPECT(tl_ruleset_compile(rs));
  EXPECT(tl_ruleset_diag_count(rs) == 0);
  const tl_rule *tl101 = tl_ruleset_find(rs, "TL101");
  EXPECT(tl101 && !strcmp(tl_rule_code(tl101), "TL101") && tl_rule_enabled(tl101));

  tl_options opts = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &opts);
  tl_analysis_add_text(a, "train.py", train_py, strlen(train_py));
  tl_analysis_add_text(a, "data.py", "x = 1\n\0\n", 8); /* a NUL byte: not analysed */
  /* a run asked to stop before it starts reports nothing, and leaves the files for the next */
  tl_analysis_cancel(a, true);
  tl_analysis_run(a);
  EXPECT(tl_analysis_cancelled(a));
  EXPECT(tl_analysis_finding_count(a) == 0 && tl_analysis_diag_count(a) == 0);
  tl_analysis_cancel(a, false);
  tl_analysis_run(a);
  EXPECT(!tl_analysis_cancelled(a));

  size_t n = tl_analysis_finding_count(a), fixes = 0;
  bool item = false;
  for (size_t i = 0; i < n; i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    printf("%s:%u:%u: %s [%s] %s\n", f->path, (unsigned)f->line, (unsigned)f->col, tl_rule_code(f->rule),
           tl_severity_name(f->severity), f->message);
    for (size_t k = 0; k < f->nhot; k++)
      printf("  why hot: %s at %s:%u\n", f->hot[k].what, f->hot[k].path, (unsigned)f->hot[k].line);
    size_t len;
    const char *text = tl_analysis_file_text(a, f->file, &len);
    EXPECT(text && !strcmp(tl_analysis_file_path(a, f->file), f->path));
    for (size_t k = 0; k < f->nfix; k++) {
      const tl_edit *e = &f->fix[k];
      EXPECT(e->start <= e->end && e->end <= len);
      printf("  fix: [%u, %u) `%.*s` -> `%s`\n", (unsigned)e->start, (unsigned)e->end, (int)(e->end - e->start),
             text + e->start, e->text);
    }
    fixes += f->nfix;
    item = item || (f->rule == tl101 && f->line == 13 && f->col == 15);
  }
  EXPECT(item);      /* `loss.item()` in the step loop */
  EXPECT(fixes > 0); /* `x.cuda()` without non_blocking has one */
  EXPECT(tl_analysis_finding(a, n) == NULL);

  EXPECT(tl_analysis_diag_count(a) == 1);
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) print_diag(tl_analysis_diag(a, i));
  const tl_diag *d = tl_analysis_diag(a, 0);
  EXPECT(d && d->level == TL_DIAG_ERROR && !strcmp(d->path, "data.py"));

  tl_analysis_delete(a);
  tl_ruleset_delete(rs);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
