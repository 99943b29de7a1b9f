/* tl_rule_tests.h - testing rules on annotated fixtures, as `semgrep --test` and `ast-grep test`
 * do: the `# ruleid: CODE` / `# ok: CODE` / `# todoruleid: CODE` comments of each file against the
 * findings (Noisy: a finding of an annotated code that no `ruleid` expects; Missing: a `ruleid`
 * whose finding did not come), and each X.py's fixes against X.fixed.py beside it. Used by
 * `trainlint test-rules DIR` (user rules) and by the fixtures' own test (tests/unit/test_fixtures.c).
 *
 * A fixture project is a directory holding .py files directly (analysed together, as one project);
 * a directory without any is a group of projects (its subdirectories). X.fixed.py files and
 * directories named `snapshots` hold no fixtures. */
#ifndef TL_RULE_TESTS_H
#define TL_RULE_TESTS_H

#include <stdio.h>

#include "trainlint.h"
#include "tl_util.h"

/* What the checks found; every problem is also printed, one line (or a diff) each. */
typedef struct {
  int checks;  /* annotations and fixed files checked */
  int noisy;   /* findings nobody expected */
  int missing; /* expected findings that did not come */
  int fixed;   /* fixed texts that differ from X.fixed.py, fixes without one, fixes that fix again */
  int other;   /* unreadable directories */
} tl_rule_tests;

/* Checks the findings of the analysis `a` (over `files`, in order) against the files'
 * annotations; prints "Noisy: path:line: CODE message" and "Missing: path:line: CODE" to `out`. */
void tl_rule_tests_annotations(tl_rule_tests *st, FILE *out, const tl_analysis *a, const tl_strvec *files);
/* Applies every fix of `a` (unsafe ones too, round after round, as --fix --unsafe-fixes does) and
 * compares each file with its X.fixed.py; then analyses the fixed texts again with `rs`, and no fix
 * may apply. Prints "Fixed: ..." problems to `out`. Leaves `a` at the fixed texts. */
void tl_rule_tests_fixed(tl_rule_tests *st, FILE *out, const tl_ruleset *rs, tl_analysis *a, const tl_strvec *files);
/* The .py files of a project directory (walked as `check` walks, less X.fixed.py), sorted; NULL
 * problems in `d`. */
void tl_rule_tests_files(const char *dir, tl_strvec *files, tl_diags *d);
/* Calls fn(ctx, dir) for every fixture project under `root` (itself, when it holds .py files), in
 * name order, at most 8 levels down; an unreadable directory counts in st->other. */
void tl_rule_tests_projects(tl_rule_tests *st, FILE *out, const char *root, void (*fn)(void *ctx, const char *dir),
                            void *ctx);
/* A new analysis (one thread, no cache) of `files`, with in-memory texts where `texts` has one. */
tl_analysis *tl_rule_tests_analyse(const tl_ruleset *rs, const tl_strvec *files, const char *const *texts,
                                   const size_t *lens);

#endif
