/* tl_cli_check.c - `trainlint check`: builds the analysis of the paths, then reports, fixes,
 * suppresses (--add-noqa) or records (--write-baseline) the findings that are not hidden. */
#include "tl_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl_baseline.h"
#include "tl_fix.h"
#include "tl_fix_apply.h"
#include "tl_map.h"
#include "tl_suppress.h"
#include "tl_walk.h"

/* What the steps of one check share. */
typedef struct {
  const tl_cli *c;
  tl_cli_configs cfg;
  tl_diags d;
  bool ecolor;    /* colour on stderr */
  bool errors;    /* a configuration, the baseline or --diff-base failed (reported once) */
  tl_map context; /* files analysed only for their project's context: never reported (as walked) */
} tl_cli_check__state;

/* A path as the report names it: "./train.py" is "train.py". */
static const char *tl_cli_check__shown(const char *p) {
  while (p[0] == '.' && p[1] == '/' && p[2]) p += 2;
  return p;
}

static bool tl_cli_check__is_context(const tl_cli_check__state *st, const char *path) {
  intptr_t v;
  return st->context.count && path && tl_map_get(&st->context, path, &v);
}

/* An input diagnostic to stderr; --quiet keeps only errors. */
static void tl_cli_check__print_diag(const tl_cli_check__state *st, const tl_diag *d) {
  if (!st->c->quiet || d->level == TL_DIAG_ERROR) tl_output_diag(stderr, d, st->ecolor);
}

static void tl_cli_check__print_diags(const tl_cli_check__state *st, const tl_diags *d) {
  for (size_t i = 0; i < d->n; i++) tl_cli_check__print_diag(st, &d->v[i]);
}

/* The most files of context (tl_cli_check__add_context) a run takes. */
#define TL_CLI_CONTEXT_MAX 20000

/* The project a file belongs to: the nearest directory above it holding a pyproject.toml or a
 * .git, as an absolute path (caller frees), or NULL; never the file system's root. */
static char *tl_cli_check__project_root(const char *file) {
  char *abs = realpath(file, NULL);
  if (!abs) return NULL;
  for (char *slash = strrchr(abs, '/'); slash; slash = strrchr(abs, '/')) {
    *slash = 0;
    if (!abs[0]) break; /* `/` itself: no project */
    const char *dir = abs;
    char *py = tl_printf("%s/pyproject.toml", dir), *git = tl_printf("%s/.git", dir);
    bool found = access(py, F_OK) == 0 || access(git, F_OK) == 0;
    free(py);
    free(git);
    if (found) {
      char *root = tl_strdup(dir);
      free(abs);
      return root;
    }
  }
  free(abs);
  return NULL;
}

/* Explicit files only (a pre-commit hook passes the staged files): the other files of their
 * projects are analysed too, for what they tell (a train.py that uses autocast, the callers of a
 * staged helper), and their findings are not reported (st->context). */
static void tl_cli_check__add_context(tl_cli_check__state *st, tl_strvec *files, const char *const *excludes,
                                      size_t nexcludes) {
  tl_strvec roots = {0}, given = {0}, ctx = {0};
  for (size_t i = 0; i < files->n; i++) {
    char *r = tl_cli_check__project_root(files->v[i]);
    bool have = false;
    for (size_t k = 0; r && k < roots.n && !have; k++) have = !strcmp(roots.v[k], r);
    if (r && !have) tl_vec_push(&roots, r);
    else free(r);
    char *real = realpath(files->v[i], NULL);
    if (real) tl_vec_push(&given, real);
  }
  if (roots.n) {
    tl_diags quiet = {0}; /* the context's own problems are not the user's files' */
    tl_walk((const char *const *)roots.v, roots.n, excludes, nexcludes, &ctx, &quiet);
    tl_diags_free(&quiet);
  }
  if (ctx.n > TL_CLI_CONTEXT_MAX) { /* a home directory under git, not a project: the files alone */
    tl_diags_add(&st->d, TL_DIAG_WARNING, "trainlint", 0, 0,
                 "the project around the given files holds %zu Python files (over %d): analysed without it", ctx.n,
                 TL_CLI_CONTEXT_MAX);
    tl_strvec_free(&ctx);
  }
  /* Spelled relative to the current directory when they are below it, as the given files usually
   * are (a hook runs from the repository's root): `from pkg.util import f` in the context's
   * train.py then finds the given pkg/util.py by its module name, and a chain through the context
   * shows a path like the finding's. */
  char *cwd = getcwd(NULL, 0);
  size_t cl = cwd ? strlen(cwd) : 0;
  for (size_t i = 0; i < ctx.n; i++) {
    char *real = realpath(ctx.v[i], NULL);
    bool is_given = false;
    for (size_t k = 0; real && k < given.n && !is_given; k++) is_given = !strcmp(given.v[k], real);
    free(real);
    if (is_given) continue;
    const char *path = ctx.v[i];
    if (cl > 1 && !strncmp(path, cwd, cl) && path[cl] == '/') path += cl + 1;
    tl_map_set(&st->context, path, 1);
    tl_vec_push(files, tl_strdup(path));
  }
  free(cwd);
  tl_strvec_free(&roots);
  tl_strvec_free(&given);
  tl_strvec_free(&ctx);
}

/* The Python files of the path arguments, less the excludes of the command line and of each
 * argument's configuration; *primary gets the first argument's configuration (its severities and
 * names apply to the whole analysis). Returns false when the walk met an error. */
static bool tl_cli_check__files(tl_cli_check__state *st, tl_strvec *files, tl_config **primary) {
  const tl_cli *c = st->c;
  if (c->paths.n == 1 && !strcmp(c->paths.v[0], "-")) { /* standard input: no walk, no context */
    *primary = tl_cli_configs_for(&st->cfg, c->stdin_filename ? c->stdin_filename : ".", &st->d);
    tl_vec_push(files, tl_strdup("-"));
    return true;
  }
  TL_VEC(char *) excludes = {0};
  for (size_t i = 0; i < c->excludes.n; i++) tl_vec_push(&excludes, c->excludes.v[i]);
  *primary = NULL;
  for (size_t i = 0; i < c->paths.n; i++) {
    tl_config *pc = tl_cli_configs_for(&st->cfg, c->paths.v[i], &st->d);
    if (!*primary) *primary = pc;
    for (size_t k = 0; pc && k < pc->exclude.n; k++) tl_vec_push(&excludes, pc->exclude.v[k]);
    for (size_t k = 0; pc && k < pc->extend_exclude.n; k++) tl_vec_push(&excludes, pc->extend_exclude.v[k]);
  }
  bool ok = st->cfg.failed || tl_walk((const char *const *)c->paths.v, c->paths.n, (const char *const *)excludes.v,
                                      excludes.n, files, &st->d);
  /* only files given (no directory): their projects are the context (not for the modes that
   * write what they find: --add-noqa, --write-baseline) */
  bool only_files = ok && files->n && !c->add_noqa && !c->write_baseline;
  for (size_t i = 0; i < c->paths.n && only_files; i++) {
    struct stat sb;
    only_files = stat(c->paths.v[i], &sb) == 0 && S_ISREG(sb.st_mode);
  }
  if (only_files) tl_cli_check__add_context(st, files, (const char *const *)excludes.v, excludes.n);
  tl_vec_free(&excludes);
  return ok;
}

/* The compiled rule set, or NULL (errors in st->d). Only the rules some file may want are
 * compiled (each file's configuration filters the findings afterwards): the configurations of all
 * files, or the defaults where a file has none. */
static tl_ruleset *tl_cli_check__rules(tl_cli_check__state *st, const tl_strvec *files) {
  const tl_cli *c = st->c;
  tl_ruleset *rs = st->cfg.failed ? NULL : tl_cli_load_rules(c, true, false, &st->d);
  if (!rs) return NULL;
  size_t reported = tl_ruleset_diag_count(rs); /* tl_cli_load_rules passed them on */
  TL_VEC(tl_config *) seen = {0};              /* each file's configuration (NULL: none, the defaults) */
  for (size_t i = 0; i < files->n; i++) tl_vec_push(&seen, tl_cli_configs_for(&st->cfg, files->v[i], &st->d));
  /* a code that names no rule selects or ignores nothing: an error, not a silent pass */
  bool known = true;
  const tl_strvec *lists[] = {&c->select, &c->extend_select, &c->ignore};
  const char *names[] = {"--select", "--extend-select", "--ignore"};
  for (size_t l = 0; l < 3; l++)
    for (size_t i = 0; i < lists[l]->n; i++)
      if (!tl_config_code_known(rs, lists[l]->v[i])) {
        tl_diags_add(&st->d, TL_DIAG_ERROR, "trainlint", 0, 0,
                     "%s: no rule has the code or prefix '%s' (`trainlint rules` lists them)", names[l],
                     lists[l]->v[i]);
        known = false;
      }
  for (size_t i = 0; i < seen.n; i++) {
    bool first = true;
    for (size_t k = 0; k < i && first; k++) first = seen.v[k] != seen.v[i];
    if (first && !tl_config_check_codes(seen.v[i], rs, &st->d)) known = false;
  }
  if (!known) {
    tl_vec_free(&seen);
    tl_ruleset_delete(rs);
    return NULL;
  }
  tl_selection sel = tl_cli_selection(c);
  tl_config_select_wanted(rs, seen.v, seen.n, &sel);
  bool ok = tl_ruleset_compile_lazy(rs);
  tl_cli_rule_diags(rs, reported, &st->d);
  if (!ok) {
    tl_ruleset_delete(rs);
    rs = NULL;
  }
  tl_vec_free(&seen);
  return rs;
}

/* The cache directory of a run (docs/cache.md), or NULL for none (the caller frees it): --no-cache
 * or TRAINLINT_NO_CACHE (any value but "", "0" and "false") turn it off; --cache-dir, else
 * TRAINLINT_CACHE_DIR, else .trainlint_cache beside the project's configuration (the first path's
 * pyproject.toml, or --config's), else in the current directory. */
static char *tl_cli_check__cache_dir(const tl_cli *c, const tl_config *primary) {
  const char *off = getenv("TRAINLINT_NO_CACHE");
  if (c->no_cache || (off && *off && strcmp(off, "0") && strcasecmp(off, "false"))) return NULL;
  const char *env = getenv("TRAINLINT_CACHE_DIR");
  if (c->cache_dir || (env && *env)) return tl_strdup(c->cache_dir ? c->cache_dir : env);
  return primary && primary->dir ? tl_concat(primary->dir, "/", ".trainlint_cache") : tl_strdup(".trainlint_cache");
}

/* The analysis of `files`, run once. The caller deletes it (before `rs`). */
static tl_analysis *tl_cli_check__analyse(const tl_cli *c, const tl_ruleset *rs, const tl_config *primary,
                                          const tl_strvec *files) {
  char *cache = tl_cli_check__cache_dir(c, primary);
  tl_options opts = {c->jobs, false, c->max_file_bytes, cache, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &opts);
  free(cache);
  if (primary) {
    tl_analysis_set_hot_names(a, (const char *const *)primary->hot_functions.v, primary->hot_functions.n,
                              (const char *const *)primary->step_iterables.v, primary->step_iterables.n);
    tl_analysis_set_frameworks(a, (const char *const *)primary->frameworks.v, primary->frameworks.n);
  }
  for (size_t i = 0; i < files->n; i++) {
    const char *p = tl_cli_check__shown(files->v[i]);
    if (!strcmp(files->v[i], "-")) { /* the source on standard input, under --stdin-filename's name */
      tl_buf in = {0};
      char chunk[65536];
      size_t n;
      while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) tl_buf_put(&in, chunk, n);
      tl_analysis_add_text(a, c->stdin_filename ? c->stdin_filename : "-", in.data ? in.data : "", in.len);
      tl_buf_free(&in);
    } else {
      tl_analysis_add_path(a, p);
    }
  }
  tl_analysis_run(a);
  return a;
}

/* Marks the findings the report leaves out: disabled for their file by the command line or its
 * configuration, known in the baseline, or on lines the change did not touch. The first call
 * reports the problems met on the way; later ones (the rounds of --fix) do not repeat them. */
static void tl_cli_check__hide(void *p, const tl_analysis *a, bool *hidden) {
  tl_cli_check__state *st = p;
  const tl_cli *c = st->c;
  bool quiet = st->errors; /* problems were reported by an earlier call */
  tl_selection sel = tl_cli_selection(c);
  size_t n = tl_analysis_finding_count(a);
  for (size_t i = 0; i < n; i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    tl_config *fc = tl_cli_configs_for(&st->cfg, f->path, &st->d);
    hidden[i] = !tl_config_enabled(fc, f->rule, f->path, &sel) || tl_cli_check__is_context(st, f->path) ||
                (c->min_severity && (int)f->severity < c->min_severity - 1); /* --min-severity */
  }
  if (st->cfg.failed) {
    if (!quiet) tl_cli_check__print_diags(st, &st->d);
    st->errors = true;
  }
  if (c->baseline) {
    char *msg = NULL;
    if (!tl_baseline_filter(a, c->baseline, hidden, &msg)) {
      if (!quiet) fprintf(stderr, "trainlint: %s\n", msg);
      st->errors = true;
    }
    free(msg);
  }
  if (c->diff_base) {
    char *msg = NULL;
    if (!tl_diff_base_filter(a, c->diff_base, hidden, &msg)) {
      if (!quiet) fprintf(stderr, "trainlint: %s\n", msg);
      st->errors = true;
    }
    free(msg);
  }
}

/* The findings not hidden: a calloc'd flag per finding (the caller frees) and their count. */
static bool *tl_cli_check__hidden(tl_cli_check__state *st, const tl_analysis *a, size_t *shown) {
  size_t n = tl_analysis_finding_count(a), hidden_n = 0;
  bool *hidden = tl_calloc(n + 1, sizeof *hidden);
  tl_cli_check__hide(st, a, hidden);
  for (size_t i = 0; i < n; i++) hidden_n += hidden[i];
  *shown = n - hidden_n;
  return hidden;
}

/* --add-noqa: the codes of each statement's findings added to the suppression comment of its last
 * line (tl_suppress_add: merged into `# noqa: ...` or `# trainlint: ignore[...]`, or a new
 * `  # noqa: CODES`). Returns the number of files that could not be written. */
static size_t tl_cli_check__add_noqa(const tl_analysis *a, size_t *added) {
  size_t n = tl_analysis_finding_count(a), failed = 0, i = 0;
  *added = 0;
  while (i < n) {
    size_t file = tl_analysis_finding(a, i)->file, j = i;
    while (j < n && tl_analysis_finding(a, j)->file == file) j++;
    if (tl_analysis_file_notebook(a, file)) { /* its text is the joined cells, not the file */
      fprintf(stderr, "%s: warning: --add-noqa does not write into notebooks; add the comments in the cells\n",
              tl_analysis_file_path(a, file));
      i = j;
      continue;
    }
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
          dup = (fq->stmt_last_line ? fq->stmt_last_line : fq->line) == line &&
                !strcmp(tl_rule_code(fq->rule), tl_rule_code(f->rule));
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
      char *neu = tl_edits_apply(text, len, edits.v, edits.n, &nl, NULL);
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

/* A file whose fixes were not written, with its text as read (both owned). */
typedef struct {
  char *path, *text;
  size_t len;
} tl_cli_check__refused;

/* Where the fixed texts go: a unified diff (--diff), or the files themselves (--fix). */
typedef struct {
  const tl_analysis *a;
  tl_buf diff;
  bool write;
  size_t written, refused;
  TL_VEC(tl_cli_check__refused) refused_files;
} tl_cli_check__fixes;

static void tl_cli_check__on_fixed(void *p, size_t file, const char *old, size_t oldlen, const char *neu,
                                   size_t newlen) {
  tl_cli_check__fixes *fx = p;
  const char *path = tl_analysis_file_path(fx->a, file);
  if (!fx->write) {
    tl_diff_unified(&fx->diff, tl_output_relpath(path), old, oldlen, neu, newlen);
    return;
  }
  char *msg = NULL;
  tl_write_status ws = tl_file_replace(path, old, oldlen, neu, newlen, &msg);
  if (ws == TL_WRITE_OK) fx->written++;
  else {
    fprintf(stderr, "%s: error: fixes not written: %s\n", path, msg ? msg : "write failed");
    fx->refused++;
    tl_cli_check__refused r = {tl_strdup(path), tl_strndup(old, oldlen), oldlen};
    tl_vec_push(&fx->refused_files, r);
  }
  free(msg);
}

/* Prints the findings not hidden: the statistics or the report. Returns 1 when there are some. */
static int tl_cli_check__report(FILE *out, const tl_analysis *a, const bool *hidden, size_t shown, const tl_cli *c,
                                const tl_output_opts *oo) {
  if (c->statistics) tl_output_statistics(out, a, hidden, oo);
  else tl_output_findings(out, a, hidden, oo);
  if (!c->fail_severity) return shown ? 1 : 0;
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) /* --fail-on: a finding at that level or above */
    if (!(hidden && hidden[i]) && (int)tl_analysis_finding(a, i)->severity >= c->fail_severity - 1) return 1;
  return 0;
}

/* --diff and --fix: fixes are made, the files analysed again and fixed again until nothing
 * changes; --diff prints the change, --fix writes it and reports what is left. */
static int tl_cli_check__fix(tl_cli_check__state *st, tl_analysis *a, FILE *out, const tl_output_opts *oo,
                             bool **hidden) {
  const tl_cli *c = st->c;
  tl_cli_check__fixes fx = {a, {0}, c->fix, 0, 0, {0}};
  size_t taken = tl_fixes_apply_all(a, c->unsafe, tl_cli_check__hide, st, tl_cli_check__on_fixed, &fx);
  int rc = 0;
  if (c->diff) {
    if (fx.diff.len) fwrite(fx.diff.data, 1, fx.diff.len, stdout);
    /* --diff: exit 1 when there is something to change, as `ruff --diff` does */
    rc = taken ? 1 : 0;
    fprintf(stderr, "%zu fix%s available%s.\n", taken, taken == 1 ? "" : "es",
            c->unsafe ? "" : " (add --unsafe-fixes for more)");
  } else {
    if (fx.refused) rc = 2;
    /* the report is of the texts on disk now: files whose fixes were refused are analysed as
     * they were read */
    for (size_t k = 0; k < fx.refused_files.n; k++) {
      tl_cli_check__refused *r = &fx.refused_files.v[k];
      tl_analysis_set_text(a, r->path, r->text, r->len);
    }
    if (fx.refused_files.n) tl_analysis_run(a);
    size_t shown;
    *hidden = tl_cli_check__hidden(st, a, &shown);
    if (taken && !fx.refused)
      fprintf(stderr, "Fixed %zu finding%s in %zu file%s.\n", taken, taken == 1 ? "" : "s", fx.written,
              fx.written == 1 ? "" : "s");
    int found = tl_cli_check__report(out, a, *hidden, shown, c, oo);
    if (rc == 0) rc = found;
  }
  tl_buf_free(&fx.diff);
  for (size_t k = 0; k < fx.refused_files.n; k++) {
    free(fx.refused_files.v[k].path);
    free(fx.refused_files.v[k].text);
  }
  tl_vec_free(&fx.refused_files);
  return rc;
}

/* --write-baseline: records the findings. Returns the exit status. */
static int tl_cli_check__write_baseline(const tl_cli *c, const tl_analysis *a, bool input_errors) {
  size_t n = tl_analysis_finding_count(a);
  char *msg = NULL;
  int rc = tl_baseline_write(a, c->write_baseline, &msg) ? 0 : 2;
  if (rc) fprintf(stderr, "trainlint: %s\n", msg);
  else if (!c->quiet) fprintf(stderr, "Wrote %zu finding%s to %s.\n", n, n == 1 ? "" : "s", c->write_baseline);
  free(msg);
  return rc ? rc : input_errors ? 2 : 0;
}

/* Analyses the files, then writes the baseline or reports; returns the exit status. */
static int tl_cli_check__run(tl_cli_check__state *st, const tl_ruleset *rs, const tl_config *primary,
                             const tl_strvec *files, bool input_errors) {
  const tl_cli *c = st->c;
  tl_analysis *a = tl_cli_check__analyse(c, rs, primary, files);
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    const tl_diag *d = tl_analysis_diag(a, i);
    if (tl_cli_check__is_context(st, d->path)) continue; /* not a file the user gave */
    tl_cli_check__print_diag(st, d);
    input_errors = input_errors || d->level == TL_DIAG_ERROR;
  }
  if (c->write_baseline) {
    int rc = tl_cli_check__write_baseline(c, a, input_errors);
    tl_analysis_delete(a);
    return rc;
  }
  bool color = c->color == 1 || (c->color == -1 && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
  FILE *out = stdout;
  if (c->output && !(out = fopen(c->output, "w"))) {
    fprintf(stderr, "trainlint: cannot write %s: %s\n", c->output, strerror(errno));
    out = stdout;
    input_errors = true;
  }
  if (c->output) color = false;
  tl_output_opts oo = {c->format, color, c->unsafe, !c->no_source, c->show_fixes, c->quiet, rs};
  bool *hidden = NULL;
  int rc = 0;
  if (c->diff || c->fix) {
    rc = tl_cli_check__fix(st, a, out, &oo, &hidden);
  } else {
    size_t shown;
    hidden = tl_cli_check__hidden(st, a, &shown);
    if (c->add_noqa && shown < tl_analysis_finding_count(a)) {
      fprintf(stderr, "trainlint: --add-noqa cannot be combined with --baseline or --diff-base\n");
      rc = 2;
    } else if (c->add_noqa) {
      size_t added = 0;
      if (tl_cli_check__add_noqa(a, &added)) rc = 2;
      fprintf(stderr, "Added %zu noqa comment%s.\n", added, added == 1 ? "" : "s");
    } else {
      rc = tl_cli_check__report(out, a, hidden, shown, c, &oo);
    }
  }
  if (st->errors) input_errors = true;
  if (out != stdout) fclose(out);
  if (c->exit_zero && rc == 1) rc = 0;
  if (input_errors) rc = 2;
  free(hidden);
  tl_analysis_delete(a);
  return rc;
}

int tl_cli_check(tl_cli *c) {
  if (!c->paths.n) tl_vec_push(&c->paths, tl_strdup("."));
  /* the unused suppressions are TL001's findings (ruff's RUF100), opt-in: the flag selects it */
  if (c->unused_supp) tl_vec_push(&c->extend_select, tl_strdup("TL001"));
  if (c->show_settings) return tl_cli_config(c); /* ruff's spelling of `trainlint config PATH` */
  if ((c->diff + c->fix + c->add_noqa) > 1) {
    fprintf(stderr, "trainlint: --diff, --fix and --add-noqa exclude each other\n");
    return 2;
  }
  bool from_stdin = false;
  for (size_t i = 0; i < c->paths.n; i++) from_stdin = from_stdin || !strcmp(c->paths.v[i], "-");
  if (from_stdin && (c->paths.n > 1 || c->diff || c->fix || c->add_noqa || c->write_baseline)) {
    fprintf(stderr, "trainlint: the path - (standard input) stands alone, without --diff, --fix, --add-noqa "
                    "or --write-baseline\n");
    return 2;
  }
  if (!from_stdin && c->stdin_filename) {
    fprintf(stderr, "trainlint: --stdin-filename goes with the path - (standard input)\n");
    return 2;
  }
  if (c->output) { /* an output that cannot be written is an error before minutes of analysis, not after */
    const char *slash = strrchr(c->output, '/');
    char *dir = slash ? (slash == c->output ? tl_strdup("/") : tl_strndup(c->output, (size_t)(slash - c->output)))
                      : tl_strdup(".");
    bool exists = access(c->output, F_OK) == 0;
    int bad = exists ? (access(c->output, W_OK) ? errno : 0) : (access(dir, W_OK) ? errno : 0);
    free(dir);
    if (bad) {
      fprintf(stderr, "trainlint: cannot write %s: %s\n", c->output, strerror(bad));
      return 2;
    }
  }
  if (c->diff_base) { /* a revision git does not know is an error before the analysis, not after */
    char *msg = NULL;
    if (!tl_diff_base_check(c->diff_base, &msg)) {
      fprintf(stderr, "trainlint: %s\n", msg);
      free(msg);
      return 2;
    }
  }
  tl_cli_check__state st = {c, {0}, {0}, false, false, {0}};
  st.ecolor = c->color == 1 || (c->color == -1 && isatty(STDERR_FILENO) && !getenv("NO_COLOR"));
  int rc = 2;
  tl_strvec files = {0};
  tl_ruleset *rs = NULL;
  if (tl_cli_configs_init(&st.cfg, c, &st.d)) {
    tl_config *primary;
    bool walked = tl_cli_check__files(&st, &files, &primary);
    if (c->show_files) { /* the files a check would report on, one a line, in its order */
      tl_cli_check__print_diags(&st, &st.d);
      tl_diags_free(&st.d); /* printed */
      st.d = (tl_diags){0};
      for (size_t i = 0; i < files.n; i++)
        if (!tl_cli_check__is_context(&st, files.v[i])) printf("%s\n", tl_cli_check__shown(files.v[i]));
      rc = walked ? 0 : 2;
    } else if ((rs = tl_cli_check__rules(&st, &files))) {
      for (size_t k = 0; primary && k < primary->severity.n; k++)
        tl_ruleset_set_severity(rs, primary->severity.v[k].code, primary->severity.v[k].severity);
      tl_cli_check__print_diags(&st, &st.d);
      size_t given = 0; /* the files the report is about (not the context of given files) */
      for (size_t i = 0; i < files.n; i++) given += !tl_cli_check__is_context(&st, files.v[i]);
      if (!given && walked && !c->quiet) /* a typo'd directory or an empty tree is no success to report */
        fprintf(stderr, "trainlint: warning: No Python files found under the given paths\n");
      rc = tl_cli_check__run(&st, rs, primary, &files, !walked);
    }
  }
  if (!rs) tl_output_diags(stderr, &st.d, st.ecolor);
  tl_strvec_free(&files);
  tl_ruleset_delete(rs);
  tl_diags_free(&st.d);
  tl_cli_configs_free(&st.cfg);
  tl_map_free(&st.context);
  return rc;
}
