/* main.c - the trainlint command line: parses options and calls the library. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl_baseline.h"
#include "tl_config.h"
#include "tl_costs.h"
#include "tl_fix_apply.h"
#include "tl_output.h"
#include "tl_lsp.h"
#include "tl_suppress.h"
#include "tl_walk.h"
#include "trainlint.h"

static void usage(FILE *out) {
  fputs("usage: trainlint check [options] PATH...   analyse Python files and directories\n"
        "       trainlint config [PATH]             the effective settings for PATH (default .)\n"
        "       trainlint rules [--all]             list the rules\n"
        "       trainlint explain CODE              show a rule's documentation\n"
        "       trainlint server [--stdio]          run the language server (LSP on stdio; docs/editors.md)\n"
        "       trainlint version\n"
        "\n"
        "check options:\n"
        "  --format FORMAT              text (default), concise, json, sarif, github, gitlab\n"
        "  --output FILE                write the findings to FILE instead of standard output\n"
        "  --statistics                 print the number of findings per rule instead\n"
        "  --quiet                      no summary line, no warnings about inputs (errors still)\n"
        "  --report-unused-suppressions also report `# noqa` comments that suppress nothing\n"
        "  --add-noqa                   add `# noqa: CODE` comments for the current findings\n"
        "  --baseline FILE              report only findings not recorded in FILE\n"
        "  --write-baseline FILE        record the current findings in FILE (JSON) and exit 0\n"
        "  --diff-base REV              report only findings on lines changed since git revision REV\n"
        "  --diff                       print the fixes as a unified diff instead of findings\n"
        "  --fix                        apply safe fixes in place (atomic, refuses changed files)\n"
        "  --unsafe-fixes               also apply/show fixes marked unsafe\n"
        "  --select CODES               enable only these codes or prefixes (comma-separated; ALL)\n"
        "  --ignore CODES               disable these codes or prefixes\n"
        "  --rules DIR                  also load the rule files (*.md) of DIR\n"
        "  --config FILE                use this pyproject.toml for every file (default: the nearest\n"
        "                               pyproject.toml with a [tool.trainlint] table above each file)\n"
        "  --exclude GLOB               skip paths matching GLOB (repeatable)\n"
        "  -j, --jobs N                 threads (default: all cores)\n"
        "  --exit-zero                  exit 0 even when there are findings\n"
        "  --no-source                  text format: do not print source lines\n"
        "  --show-fixes                 text format: print each finding's fix as a diff\n"
        "  --color auto|always|never    colour (default auto: only on a terminal, not with NO_COLOR)\n"
        "\n"
        "exit status: 0 no findings, 1 findings, 2 usage error, bad rule file, or an input that\n"
        "could not be analysed (unreadable, binary, invalid UTF-8).\n",
        out);
}

typedef struct {
  TL_VEC(char *) select, ignore, excludes, paths, rule_dirs;
  tl_format format;
  bool diff, fix, unsafe, exit_zero, no_source, show_fixes, statistics, quiet, unused_supp, add_noqa;
  char *output, *baseline, *write_baseline, *diff_base, *config;
  int color; /* -1 auto, 0 never, 1 always */
  unsigned jobs;
} tl_cli;

static void split_codes(const char *s, void *vec) {
  TL_VEC(char *) *v = vec;
  char *copy = tl_strdup(s), *save = NULL;
  for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) tl_vec_push(v, tl_strdup(t));
  free(copy);
}

static void cli_free(tl_cli *c) {
  free(c->output);
  free(c->baseline);
  free(c->write_baseline);
  free(c->diff_base);
  free(c->config);
  void *vs[] = {&c->select, &c->ignore, &c->excludes, &c->paths, &c->rule_dirs};
  for (size_t i = 0; i < 5; i++) {
    TL_VEC(char *) *v = vs[i];
    for (size_t k = 0; k < v->n; k++) free(v->v[k]);
    tl_vec_free(v);
  }
}

/* Input diagnostics to stderr; --quiet keeps only errors. */
static void print_diags(const tl_cli *c, const tl_diags *d, bool color) {
  if (!c->quiet) {
    tl_output_diags(stderr, d, color);
    return;
  }
  tl_diags errs = {0};
  for (size_t i = 0; i < d->n; i++)
    if (d->v[i].level == TL_DIAG_ERROR) tl_vec_push(&errs, d->v[i]);
  tl_output_diags(stderr, &errs, color);
  tl_vec_free(&errs);
}

/* --add-noqa: the codes of each statement's findings added to the suppression comment of its last
 * line (tl_suppress_add: merged into `# noqa: ...` or `# trainlint: ignore[...]`, or a new
 * `  # noqa: CODES`). Returns the number of files that could not be written. */
static size_t add_noqa(const tl_analysis *a, size_t *added) {
  size_t n = tl_analysis_finding_count(a), failed = 0, i = 0;
  *added = 0;
  while (i < n) {
    size_t file = tl_analysis_finding(a, i)->file, j = i;
    while (j < n && tl_analysis_finding(a, j)->file == file) j++;
    size_t len;
    const char *text = tl_analysis_file_text(a, file, &len);
    tl_lines lines;
    tl_lines_init(&lines, text, len);
    tl_edits edits = {0};
    for (size_t k = i; k < j; k++) {
      const tl_finding *fk = tl_analysis_finding(a, k);
      uint32_t line = fk->stmt_last_line ? fk->stmt_last_line : fk->line;
      bool seen = false;
      for (size_t m = i; m < k && !seen; m++) {
        const tl_finding *fm = tl_analysis_finding(a, m);
        seen = (fm->stmt_last_line ? fm->stmt_last_line : fm->line) == line;
      }
      if (seen) continue;
      /* the codes of the findings whose statement ends on this line, each once, in order */
      tl_buf codes = {0};
      for (size_t m = k; m < j; m++) {
        const tl_finding *f = tl_analysis_finding(a, m);
        if ((f->stmt_last_line ? f->stmt_last_line : f->line) != line) continue;
        bool dup = false;
        for (size_t q = k; q < m && !dup; q++) {
          const tl_finding *fq = tl_analysis_finding(a, q);
          dup = (fq->stmt_last_line ? fq->stmt_last_line : fq->line) == line && !strcmp(tl_rule_code(fq->rule), tl_rule_code(f->rule));
        }
        if (dup) continue;
        if (codes.len) tl_buf_puts(&codes, ", ");
        tl_buf_puts(&codes, tl_rule_code(f->rule));
      }
      tl_edit ed;
      if (tl_suppress_add(text, len, &lines, line, codes.data, &ed)) {
        tl_vec_push(&edits, ed);
        (*added)++;
      }
      tl_buf_free(&codes);
    }
    if (edits.n) {
      size_t nl;
      char *neu = tl_edits_apply(text, len, &edits, &nl, NULL);
      char *msg = NULL;
      if (tl_file_replace(tl_analysis_file_path(a, file), text, len, neu, nl, &msg) != TL_WRITE_OK) {
        fprintf(stderr, "%s: error: suppressions not written: %s\n", tl_analysis_file_path(a, file), msg ? msg : "");
        failed++;
      }
      free(msg);
      free(neu);
    }
    for (size_t k = 0; k < edits.n; k++) free(edits.v[k].text);
    tl_vec_free(&edits);
    tl_lines_free(&lines);
    i = j;
  }
  return failed;
}

/* Configurations: --config for everything, or the nearest one per path. */
typedef struct {
  tl_config *explicit_cfg;
  tl_config_cache cache;
  bool failed;
} cfg_state;

static tl_config *cfg_for(cfg_state *st, const char *path, tl_diags *d) {
  return st->explicit_cfg ? st->explicit_cfg : tl_config_for(&st->cache, path, d, &st->failed);
}

static bool cfg_init(cfg_state *st, const tl_cli *c, tl_diags *d) {
  memset(st, 0, sizeof *st);
  if (!c->config) return true;
  bool found;
  st->explicit_cfg = tl_config_load(c->config, &found, d);
  return st->explicit_cfg != NULL;
}

static void cfg_free(cfg_state *st) {
  tl_config_delete(st->explicit_cfg);
  tl_config_cache_free(&st->cache);
}

/* Loads the built-in and --rules rules; compiles the selection unless `compile` is false. */
static tl_ruleset *load_rules_ex(const tl_cli *c, tl_diags *d, bool compile) {
  tl_ruleset *rs = tl_ruleset_new();
  bool ok = tl_ruleset_add_builtin(rs, d);
  for (size_t i = 0; i < c->rule_dirs.n; i++) ok = tl_ruleset_add_dir(rs, c->rule_dirs.v[i], d) && ok;
  tl_ruleset_select(rs, (const char *const *)c->select.v, c->select.n, (const char *const *)c->ignore.v, c->ignore.n);
  if (ok && compile) ok = tl_ruleset_compile(rs, d);
  if (!ok) {
    tl_ruleset_delete(rs);
    return NULL;
  }
  return rs;
}

static tl_ruleset *load_rules(const tl_cli *c, tl_diags *d) { return load_rules_ex(c, d, true); }

/* A file whose fixes were not written, with its text as read. */
typedef struct {
  char *path, *text;
  size_t len;
} tl_refused;

typedef struct {
  const tl_analysis *a;
  tl_buf diff;
  bool write;
  size_t written, refused;
  TL_VEC(tl_refused) refused_files;
} fix_ctx;

static void on_fixed(void *p, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen) {
  fix_ctx *c = p;
  const char *path = tl_analysis_file_path(c->a, file);
  if (!c->write) {
    const char *rel = path;
    while (rel[0] == '.' && rel[1] == '/') rel += 2;
    tl_diff_unified(&c->diff, rel, old, oldlen, neu, newlen);
    return;
  }
  char *msg = NULL;
  tl_write_status st = tl_file_replace(path, old, oldlen, neu, newlen, &msg);
  if (st == TL_WRITE_OK) c->written++;
  else {
    fprintf(stderr, "%s: error: fixes not written: %s\n", path, msg ? msg : "write failed");
    c->refused++;
    tl_refused r = {tl_strdup(path), tl_strndup(old, oldlen), oldlen};
    tl_vec_push(&c->refused_files, r);
  }
  free(msg);
}

typedef struct {
  const tl_cli *c;
  cfg_state *cfg;
  tl_diags *d;
  bool color;
  bool errors; /* a configuration, the baseline or --diff-base failed (reported once) */
} hide_ctx;

/* Marks the findings the report leaves out: disabled for their file by the command line or its
 * configuration, known in the baseline, or on lines the change did not touch. */
static void hide_findings(void *p, const tl_analysis *a, bool *hidden) {
  hide_ctx *h = p;
  const tl_cli *c = h->c;
  bool quiet = h->errors; /* problems were reported by an earlier call */
  size_t n = tl_analysis_finding_count(a);
  for (size_t i = 0; i < n; i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    tl_config *fc = cfg_for(h->cfg, f->path, h->d);
    hidden[i] = !tl_config_enabled(fc, f->rule, f->path, (const char *const *)c->select.v, c->select.n,
                                   (const char *const *)c->ignore.v, c->ignore.n);
  }
  if (h->cfg->failed) {
    if (!quiet) print_diags(c, h->d, h->color);
    h->errors = true;
  }
  if (c->baseline) {
    char *msg = NULL;
    if (!tl_baseline_filter(a, c->baseline, hidden, &msg)) {
      if (!quiet) fprintf(stderr, "trainlint: %s\n", msg);
      h->errors = true;
    }
    free(msg);
  }
  if (c->diff_base) {
    char *msg = NULL;
    if (!tl_diff_base_filter(a, c->diff_base, hidden, &msg)) {
      if (!quiet) fprintf(stderr, "trainlint: %s\n", msg);
      h->errors = true;
    }
    free(msg);
  }
}

static int cmd_check(tl_cli *c) {
  tl_diags d = {0};
  bool color = c->color == 1 || (c->color == -1 && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
  bool ecolor = c->color == 1 || (c->color == -1 && isatty(STDERR_FILENO) && !getenv("NO_COLOR"));
  cfg_state cfg;
  if (!cfg_init(&cfg, c, &d)) {
    tl_output_diags(stderr, &d, ecolor);
    tl_diags_free(&d);
    cfg_free(&cfg);
    return 2;
  }
  /* The configuration of each path argument: its excludes, and the severity overrides and
   * extra names of the first one. */
  TL_VEC(char *) excludes = {0};
  for (size_t i = 0; i < c->excludes.n; i++) tl_vec_push(&excludes, c->excludes.v[i]);
  tl_config *primary = NULL;
  for (size_t i = 0; i < c->paths.n; i++) {
    tl_config *pc = cfg_for(&cfg, c->paths.v[i], &d);
    if (!primary) primary = pc;
    for (size_t k = 0; pc && k < pc->exclude.n; k++) tl_vec_push(&excludes, pc->exclude.v[k]);
    for (size_t k = 0; pc && k < pc->extend_exclude.n; k++) tl_vec_push(&excludes, pc->extend_exclude.v[k]);
  }
  tl_paths files = {0};
  size_t walk_errors = cfg.failed ? 0 : tl_walk((const char *const *)c->paths.v, c->paths.n, (const char *const *)excludes.v,
                                                excludes.n, &files, &d);
  tl_vec_free(&excludes);
  /* Only the rules some file may want are compiled (each file's configuration filters the
   * findings afterwards): the configurations of all files, or the defaults where a file has none. */
  tl_cli all = *c;
  char *all_codes[] = {"ALL"};
  all.select.v = all_codes;
  all.select.n = 1;
  all.ignore.n = 0;
  tl_ruleset *rs = cfg.failed ? NULL : load_rules_ex(&all, &d, false);
  if (rs) {
    TL_VEC(tl_config *) seen = {0}; /* each file's configuration (NULL: none, the defaults) */
    for (size_t i = 0; i < files.n; i++) tl_vec_push(&seen, cfg_for(&cfg, files.v[i], &d));
    tl_config_select_wanted(rs, seen.v, seen.n, (const char *const *)c->select.v, c->select.n,
                            (const char *const *)c->ignore.v, c->ignore.n);
    if (!tl_ruleset_compile(rs, &d)) {
      tl_ruleset_delete(rs);
      rs = NULL;
    }
    tl_vec_free(&seen);
  }
  if (!rs) {
    tl_output_diags(stderr, &d, ecolor);
    tl_diags_free(&d);
    tl_paths_free(&files);
    cfg_free(&cfg);
    return 2;
  }
  for (size_t k = 0; primary && k < primary->severity.n; k++)
    tl_ruleset_set_severity(rs, primary->severity.v[k].code, primary->severity.v[k].severity);
  print_diags(c, &d, ecolor);
  tl_options opts = {c->jobs, false};
  tl_analysis *a = tl_analysis_new(rs, &opts);
  if (primary) {
    tl_analysis_set_hot_names(a, (const char *const *)primary->hot_functions.v, primary->hot_functions.n,
                              (const char *const *)primary->step_iterables.v, primary->step_iterables.n);
    tl_analysis_set_frameworks(a, (const char *const *)primary->frameworks.v, primary->frameworks.n);
  }
  for (size_t i = 0; i < files.n; i++) {
    const char *p = files.v[i];
    while (p[0] == '.' && p[1] == '/' && p[2]) p += 2; /* "./train.py" is shown as "train.py" */
    tl_analysis_add_path(a, p);
  }
  tl_analysis_run(a);
  const tl_diags *ad = tl_analysis_diags(a);
  print_diags(c, ad, ecolor);
  bool input_errors = walk_errors > 0;
  for (size_t i = 0; i < ad->n; i++) input_errors = input_errors || ad->v[i].level == TL_DIAG_ERROR;

  if (c->write_baseline) {
    size_t n = tl_analysis_finding_count(a);
    char *msg = NULL;
    int wrc = tl_baseline_write(a, c->write_baseline, &msg) ? 0 : 2;
    if (wrc) fprintf(stderr, "trainlint: %s\n", msg);
    else if (!c->quiet) fprintf(stderr, "Wrote %zu finding%s to %s.\n", n, n == 1 ? "" : "s", c->write_baseline);
    free(msg);
    tl_analysis_delete(a);
    tl_paths_free(&files);
    tl_ruleset_delete(rs);
    tl_diags_free(&d);
    cfg_free(&cfg);
    return wrc ? wrc : input_errors ? 2 : 0;
  }
  /* Findings left out of the report: disabled for their file, known in the baseline, or on lines
   * the change did not touch. */
  hide_ctx hc = {c, &cfg, &d, ecolor, false};
  bool *hidden = NULL;
  size_t n = 0, hidden_n = 0;
  FILE *out = stdout;
  if (c->output && !(out = fopen(c->output, "w"))) {
    fprintf(stderr, "trainlint: cannot write %s: %s\n", c->output, strerror(errno));
    out = stdout;
    input_errors = true;
  }
  if (c->output) color = false;
  tl_output_opts oo = {c->format, color, c->unsafe, !c->no_source, c->show_fixes, c->quiet, rs};
  int rc = 0;
  if (c->diff || c->fix) {
    fix_ctx fc = {a, {0}, c->fix, 0, 0, {0}};
    /* fixes are made, the files analysed again and fixed again until nothing changes */
    size_t taken = tl_fixes_apply_all(a, c->unsafe, hide_findings, &hc, on_fixed, &fc);
    if (c->diff) {
      if (fc.diff.len) fwrite(fc.diff.data, 1, fc.diff.len, stdout);
      /* --diff: exit 1 when there is something to change, as `ruff --diff` does */
      rc = taken ? 1 : 0;
      fprintf(stderr, "%zu fix%s available%s.\n", taken, taken == 1 ? "" : "es", c->unsafe ? "" : " (add --unsafe-fixes for more)");
    } else {
      if (fc.refused) rc = 2;
      /* the report is of the texts on disk now: files whose fixes were refused are analysed as
       * they were read */
      for (size_t k = 0; k < fc.refused_files.n; k++) {
        tl_refused *r = &fc.refused_files.v[k];
        tl_analysis_set_text(a, r->path, r->text, r->len);
      }
      if (fc.refused_files.n) tl_analysis_run(a);
      n = tl_analysis_finding_count(a);
      hidden = tl_calloc(n + 1, sizeof *hidden);
      hide_findings(&hc, a, hidden);
      for (size_t i = 0; i < n; i++) hidden_n += hidden[i];
      if (taken && !fc.refused) fprintf(stderr, "Fixed %zu finding%s in %zu file%s.\n", taken, taken == 1 ? "" : "s",
                                        fc.written, fc.written == 1 ? "" : "s");
      if (c->statistics) tl_output_statistics(out, a, hidden);
      else tl_output_findings(out, a, hidden, &oo);
      if (rc == 0) rc = n - hidden_n ? 1 : 0;
    }
    tl_buf_free(&fc.diff);
    for (size_t k = 0; k < fc.refused_files.n; k++) {
      free(fc.refused_files.v[k].path);
      free(fc.refused_files.v[k].text);
    }
    tl_vec_free(&fc.refused_files);
  } else {
    n = tl_analysis_finding_count(a);
    hidden = tl_calloc(n + 1, sizeof *hidden);
    hide_findings(&hc, a, hidden);
    for (size_t i = 0; i < n; i++) hidden_n += hidden[i];
    if (c->add_noqa && hidden_n) {
      fprintf(stderr, "trainlint: --add-noqa cannot be combined with --baseline or --diff-base\n");
      rc = 2;
    } else if (c->add_noqa) {
      size_t added = 0;
      if (add_noqa(a, &added)) rc = 2;
      fprintf(stderr, "Added %zu noqa comment%s.\n", added, added == 1 ? "" : "s");
    } else {
      if (c->statistics) tl_output_statistics(out, a, hidden);
      else tl_output_findings(out, a, hidden, &oo);
      rc = n - hidden_n ? 1 : 0;
    }
  }
  if (hc.errors) input_errors = true;
  if (c->unused_supp) {
    size_t nu;
    tl_unused_suppression *u = tl_analysis_unused_suppressions(a, &nu);
    for (size_t i = 0; i < nu; i++) {
      if (u[i].code) fprintf(out, "%s:%u:%u: unused suppression: no %s finding here\n", u[i].path, u[i].line, u[i].col, u[i].code);
      else fprintf(out, "%s:%u:%u: unused suppression: no finding here\n", u[i].path, u[i].line, u[i].col);
    }
    free(u);
    if (nu && rc == 0) rc = 1;
  }
  if (out != stdout) fclose(out);
  if (c->exit_zero && rc == 1) rc = 0;
  if (input_errors) rc = 2;
  free(hidden);
  tl_analysis_delete(a);
  tl_paths_free(&files);
  tl_ruleset_delete(rs);
  tl_diags_free(&d);
  cfg_free(&cfg);
  return rc;
}

static int cmd_rules(tl_cli *c, bool all) {
  tl_diags d = {0};
  tl_ruleset *rs = load_rules(c, &d);
  tl_output_diags(stderr, &d, false);
  tl_diags_free(&d);
  if (!rs) return 2;
  for (size_t i = 0; i < tl_ruleset_count(rs); i++) {
    const tl_rule *r = tl_ruleset_rule(rs, i);
    if (!all && !tl_rule_enabled(r) && tl_rule_default_enabled(r)) continue;
    const char *fix = tl_rule_fix_safety(r) == TL_FIXSAFE_SAFE ? "fix" : tl_rule_fix_safety(r) == TL_FIXSAFE_UNSAFE ? "unsafe-fix" : "-";
    printf("%-6s %-36s %-8s %-10s %s\n", tl_rule_code(r), tl_rule_name(r), tl_severity_name(tl_rule_severity(r)), fix,
           tl_rule_default_enabled(r) ? "on" : "off (opt-in)");
  }
  tl_ruleset_delete(rs);
  return 0;
}

static void print_list(const char *key, const tl_strs *v) {
  printf("%s = [", key);
  for (size_t i = 0; i < v->n; i++) printf("%s\"%s\"", i ? ", " : "", v->v[i]);
  printf("]\n");
}

static int cmd_config(tl_cli *c) {
  tl_diags d = {0};
  cfg_state cfg;
  const char *path = c->paths.n ? c->paths.v[0] : ".";
  int rc = 0;
  if (!cfg_init(&cfg, c, &d)) rc = 2;
  tl_config *fc = rc ? NULL : cfg_for(&cfg, path, &d);
  if (cfg.failed) rc = 2;
  tl_cli all = *c;
  char *all_codes[] = {"ALL"};
  all.select.v = all_codes;
  all.select.n = 1;
  all.ignore.n = 0;
  tl_ruleset *rs = rc ? NULL : load_rules(&all, &d);
  tl_output_diags(stderr, &d, false);
  if (rs) {
    printf("# effective trainlint settings for %s\n", path);
    printf("config = \"%s\"\n", fc ? fc->path : "(none: defaults)");
    tl_strs empty = {0};
    print_list("select", c->select.n ? (tl_strs *)&c->select : fc && fc->has_select ? &fc->select : &empty);
    print_list("extend-select", fc ? &fc->extend_select : &empty);
    print_list("ignore", fc ? &fc->ignore : &empty);
    print_list("cli-ignore", (tl_strs *)&c->ignore);
    print_list("exclude", fc ? &fc->exclude : &empty);
    print_list("extend-exclude", fc ? &fc->extend_exclude : &empty);
    print_list("hot-functions", fc ? &fc->hot_functions : &empty);
    print_list("step-loop-iterables", fc ? &fc->step_iterables : &empty);
    print_list("frameworks", fc ? &fc->frameworks : &empty);
    for (size_t i = 0; fc && i < fc->per_file_ignores.n; i++) {
      printf("per-file-ignores.\"%s\" = ", fc->per_file_ignores.v[i].glob);
      print_list("", &fc->per_file_ignores.v[i].codes);
    }
    for (size_t i = 0; fc && i < fc->severity.n; i++)
      tl_ruleset_set_severity(rs, fc->severity.v[i].code, fc->severity.v[i].severity);
    printf("# rules for %s\n", path);
    for (size_t i = 0; i < tl_ruleset_count(rs); i++) {
      const tl_rule *r = tl_ruleset_rule(rs, i);
      bool on = tl_config_enabled(fc, r, path, (const char *const *)c->select.v, c->select.n,
                                  (const char *const *)c->ignore.v, c->ignore.n);
      printf("%-6s %-36s %-8s %s\n", tl_rule_code(r), tl_rule_name(r), tl_severity_name(tl_rule_severity(r)), on ? "on" : "off");
    }
    tl_ruleset_delete(rs);
  } else {
    rc = 2;
  }
  cfg_free(&cfg);
  tl_diags_free(&d);
  return rc;
}

static int cmd_explain(tl_cli *c, const char *code) {
  tl_diags d = {0};
  tl_ruleset *rs = load_rules(c, &d);
  tl_output_diags(stderr, &d, false);
  tl_diags_free(&d);
  if (!rs) return 2;
  const tl_rule *r = tl_ruleset_find(rs, code);
  int rc = 0;
  if (!r) {
    fprintf(stderr, "trainlint: no rule '%s' (see `trainlint rules`)\n", code);
    rc = 2;
  } else {
    printf("%s (%s): severity %s, fix %s, %s\n\n%s\n", tl_rule_code(r), tl_rule_name(r),
           tl_severity_name(tl_rule_severity(r)),
           tl_rule_fix_safety(r) == TL_FIXSAFE_SAFE ? "safe" : tl_rule_fix_safety(r) == TL_FIXSAFE_UNSAFE ? "unsafe" : "none",
           tl_rule_default_enabled(r) ? "on by default" : "off by default (enable with --select)", tl_rule_doc(r));
    printf("\n## Measured cost\n");
    bool any = false;
    for (const tl_cost *k = tl_costs; k->code; k++)
      if (!strcmp(k->code, tl_rule_code(r))) { printf("- %s\n", k->text); any = true; }
    if (!any)
      printf("Not yet measured on a GPU%s (bench/run writes the results; see bench/README.md).\n",
             strcmp(tl_costs_source, "none") ? " for this rule" : "");
  }
  tl_ruleset_delete(rs);
  return rc;
}

int main(int argc, char **argv) {
  tl_cli c = {0};
  c.color = -1;
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "server")) return tl_lsp_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("trainlint %s\n", TL_VERSION);
    return 0;
  }
  bool all = false;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (fprintf(stderr, "trainlint: %s needs a value\n", a), cli_free(&c), exit(2), ""))
    if (!strcmp(a, "--format")) {
      const char *v = NEXT();
      if (!tl_format_parse(v, &c.format)) {
        fprintf(stderr, "trainlint: unknown format '%s' (", v);
        for (int f = 0; tl_format_name((tl_format)f); f++) fprintf(stderr, "%s%s", f ? ", " : "", tl_format_name((tl_format)f));
        fprintf(stderr, ")\n");
        cli_free(&c);
        return 2;
      }
    } else if (!strcmp(a, "--diff")) c.diff = true;
    else if (!strcmp(a, "--fix")) c.fix = true;
    else if (!strcmp(a, "--unsafe-fixes")) c.unsafe = true;
    else if (!strcmp(a, "--exit-zero")) c.exit_zero = true;
    else if (!strcmp(a, "--no-source")) c.no_source = true;
    else if (!strcmp(a, "--show-fixes")) c.show_fixes = true;
    else if (!strcmp(a, "--statistics")) c.statistics = true;
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) c.quiet = true;
    else if (!strcmp(a, "--report-unused-suppressions")) c.unused_supp = true;
    else if (!strcmp(a, "--add-noqa")) c.add_noqa = true;
    else if (!strcmp(a, "--output") || !strcmp(a, "-o")) { free(c.output); c.output = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--baseline")) { free(c.baseline); c.baseline = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--write-baseline")) { free(c.write_baseline); c.write_baseline = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--diff-base")) { free(c.diff_base); c.diff_base = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--config")) { free(c.config); c.config = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--all")) all = true;
    else if (!strcmp(a, "--select")) split_codes(NEXT(), &c.select);
    else if (!strcmp(a, "--ignore")) split_codes(NEXT(), &c.ignore);
    else if (!strcmp(a, "--exclude")) tl_vec_push(&c.excludes, tl_strdup(NEXT()));
    else if (!strcmp(a, "--rules")) tl_vec_push(&c.rule_dirs, tl_strdup(NEXT()));
    else if (!strcmp(a, "-j") || !strcmp(a, "--jobs") || (!strncmp(a, "-j", 2) && a[2] >= '0' && a[2] <= '9')) {
      const char *v = a[1] == 'j' && a[2] ? a + 2 : NEXT(); /* -j4, or -j 4 and --jobs 4 */
      char *end;
      long j = strtol(v, &end, 10);
      if (*end || j < 0 || j > 1024) { fprintf(stderr, "trainlint: bad --jobs value '%s'\n", v); cli_free(&c); return 2; }
      c.jobs = (unsigned)j;
    } else if (!strcmp(a, "--color")) {
      const char *v = NEXT();
      c.color = !strcmp(v, "always") ? 1 : !strcmp(v, "never") ? 0 : !strcmp(v, "auto") ? -1 : -2;
      if (c.color == -2) { fprintf(stderr, "trainlint: --color takes auto, always or never\n"); cli_free(&c); return 2; }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "trainlint: unknown option '%s'\n", a);
      usage(stderr);
      cli_free(&c);
      return 2;
    } else {
      tl_vec_push(&c.paths, tl_strdup(a));
    }
#undef NEXT
  }
  int rc;
  if (!strcmp(cmd, "check")) {
    if (!c.paths.n) tl_vec_push(&c.paths, tl_strdup("."));
    if ((c.diff + c.fix + c.add_noqa) > 1) { fprintf(stderr, "trainlint: --diff, --fix and --add-noqa exclude each other\n"); cli_free(&c); return 2; }
    rc = cmd_check(&c);
  } else if (!strcmp(cmd, "config")) {
    rc = cmd_config(&c);
  } else if (!strcmp(cmd, "rules")) {
    rc = cmd_rules(&c, all);
  } else if (!strcmp(cmd, "explain")) {
    if (c.paths.n != 1) { fprintf(stderr, "usage: trainlint explain CODE\n"); cli_free(&c); return 2; }
    rc = cmd_explain(&c, c.paths.v[0]);
  } else {
    fprintf(stderr, "trainlint: unknown command '%s'\n", cmd);
    usage(stderr);
    rc = 2;
  }
  cli_free(&c);
  return rc;
}
