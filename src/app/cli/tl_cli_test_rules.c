/* tl_cli_test_rules.c - `trainlint test-rules DIR`: the rule files (*.md) of DIR with the built-in
 * rules, every rule enabled, run over the annotated fixtures (*.py) under DIR, as `semgrep --test`
 * does (tl_rule_tests.h; docs/rules.md, "Testing a rule"). */
#include "tl_cli.h"

#include <stdio.h>

#include "tl_rule_tests.h"

typedef struct {
  tl_rule_tests t;
  const tl_ruleset *rs;
  int projects;
} tl_cli_test_rules__run;

/* One fixture project: its annotations, then its fixed files. */
static void tl_cli_test_rules__project(void *ctx, const char *dir) {
  tl_cli_test_rules__run *r = ctx;
  tl_strvec files = {0};
  tl_diags d = {0};
  tl_rule_tests_files(dir, &files, &d);
  tl_output_diags(stdout, &d, false);
  r->t.other += (int)d.n;
  tl_analysis *a = tl_rule_tests_analyse(r->rs, &files, NULL, NULL);
  int before = r->t.noisy + r->t.missing + r->t.fixed;
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) { /* a fixture that does not parse tests nothing */
    const tl_diag *x = tl_analysis_diag(a, i);
    if (x->level != TL_DIAG_ERROR) continue;
    printf("%s:%u:%u: %s\n", x->path, x->line, x->col, x->message);
    r->t.other++;
  }
  tl_rule_tests_annotations(&r->t, stdout, a, &files);
  tl_rule_tests_fixed(&r->t, stdout, r->rs, a, &files);
  if (r->t.noisy + r->t.missing + r->t.fixed == before) printf("ok: %s (%zu files)\n", dir, files.n);
  r->projects++;
  tl_analysis_delete(a);
  tl_strvec_free(&files);
  tl_diags_free(&d);
}

int tl_cli_test_rules(tl_cli *c) {
  if (c->paths.n != 1) {
    fprintf(stderr, "usage: trainlint test-rules DIR (the rules, *.md, and their fixtures, *.py)\n");
    return 2;
  }
  const char *dir = c->paths.v[0];
  tl_diags d = {0};
  tl_cli cc = *c; /* the built-in rules, those of --rules and DIR's, all enabled */
  tl_strvec dirs = {0};
  for (size_t i = 0; i < c->rule_dirs.n; i++) tl_vec_push(&dirs, c->rule_dirs.v[i]);
  tl_vec_push(&dirs, (char *)dir);
  cc.rule_dirs = dirs;
  tl_ruleset *rs = tl_cli_load_rules(&cc, true, true, &d);
  tl_vec_free(&dirs);
  tl_output_diags(stderr, &d, false);
  tl_diags_free(&d);
  if (!rs) return 2;
  tl_cli_test_rules__run r = {{0}, rs, 0};
  tl_rule_tests_projects(&r.t, stdout, dir, tl_cli_test_rules__project, &r);
  tl_ruleset_delete(rs);
  printf("test-rules: %d projects, %d annotations and fixed files checked: %d noisy, %d missing, %d fix mismatches, "
         "%d other problems\n",
         r.projects, r.t.checks, r.t.noisy, r.t.missing, r.t.fixed, r.t.other);
  if (!r.t.checks) {
    fprintf(stderr, "trainlint: no `# ruleid:` or `# ok:` annotation under %s\n", dir);
    return 1;
  }
  return r.t.noisy + r.t.missing + r.t.fixed + r.t.other ? 1 : 0;
}
