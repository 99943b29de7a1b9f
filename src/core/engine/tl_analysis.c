/* tl_analysis.c - the analysis object: its files (from disk or an editor, with their edits), and
 * the run driver: phase 1 on every changed file in parallel (tl_file.c), phase 2, the project pass
 * (tl_project.c), then phase 3, the findings (tl_findings.c). */
#include "tl_match.h"

#include <string.h>

#include "tl_cache.h"
#include "tl_notebook.h"
#include "tl_pool.h"
#include "tl_results.h"
#include "tl_source.h"

tl_analysis *tl_analysis_new(const tl_ruleset *rules, const tl_options *opts) {
  tl_analysis *a = tl_calloc(1, sizeof *a);
  a->rules = rules;
  if (opts) a->opts = *opts;
  if (a->opts.cache_dir) a->opts.cache_dir = tl_strdup(a->opts.cache_dir);
  return a;
}

void tl_analysis_delete(tl_analysis *a) {
  if (!a) return;
  tl_project_free(&a->project);
  tl_findings_clear(a);
  tl_cache_delete(a->cache);
  free((char *)a->opts.cache_dir);
  for (size_t i = 0; i < a->files.n; i++) tl_file_free(&a->files.v[i]);
  tl_vec_free(&a->files);
  tl_diags_free(&a->diags);
  for (size_t i = 0; i < a->hot_functions.n; i++) free(a->hot_functions.v[i]);
  tl_vec_free(&a->hot_functions);
  for (size_t i = 0; i < a->step_iterables.n; i++) free(a->step_iterables.v[i]);
  tl_vec_free(&a->step_iterables);
  for (size_t i = 0; i < a->frameworks.n; i++) free(a->frameworks.v[i]);
  tl_vec_free(&a->frameworks);
  free(a);
}

void tl_analysis_add_path(tl_analysis *a, const char *path) {
  tl_file f = {0};
  f.path = tl_strdup(path);
  f.dirty = true;
  tl_vec_push(&a->files, f);
}

void tl_analysis_add_text(tl_analysis *a, const char *path, const char *text, size_t len) {
  tl_file f = {0};
  f.path = tl_strdup(path);
  f.mem = tl_strndup(text, len);
  f.len = len;
  f.dirty = f.in_memory = true;
  tl_vec_push(&a->files, f);
}

void tl_analysis_set_hot_names(tl_analysis *a, const char *const *hot_functions, size_t nhot,
                               const char *const *step_iterables, size_t nsteps) {
  for (size_t i = 0; i < nhot; i++) tl_vec_push(&a->hot_functions, tl_strdup(hot_functions[i]));
  for (size_t i = 0; i < nsteps; i++) tl_vec_push(&a->step_iterables, tl_strdup(step_iterables[i]));
}

void tl_analysis_set_frameworks(tl_analysis *a, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++) tl_vec_push(&a->frameworks, tl_strdup(names[i]));
}

static tl_file *tl_find_file(tl_analysis *a, const char *path) {
  for (size_t i = 0; i < a->files.n; i++)
    if (!strcmp(a->files.v[i].path, path)) return &a->files.v[i];
  return NULL;
}

void tl_analysis_set_text(tl_analysis *a, const char *path, const char *text, size_t len) {
  tl_file *f = tl_find_file(a, path);
  if (!f) {
    tl_analysis_add_text(a, path, text, len);
    return;
  }
  free(f->mem);
  f->mem = tl_strndup(text, len);
  f->len = len;
  f->dirty = f->in_memory = true;
  f->edited = f->reusable = false; /* no edit description: analyse afresh */
  if (f->tree) {
    ts_tree_delete(f->tree);
    f->tree = NULL;
  }
}

/* Row and byte column of an offset. */
static TSPoint tl_point_at(const char *text, size_t len, uint32_t off) {
  TSPoint p = {0, 0};
  uint32_t line_start = 0;
  for (uint32_t i = 0; i < off && i < len; i++) /* rows end where the parsed copy has LF (a lone CR too) */
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))) {
      p.row++;
      line_start = i + 1;
    }
  p.column = off - line_start;
  return p;
}

void tl_analysis_edit(tl_analysis *a, const char *path, uint32_t start, uint32_t old_end, uint32_t new_end,
                      const char *text, size_t len) {
  tl_file *f = tl_find_file(a, path);
  if (!f) {
    tl_analysis_add_text(a, path, text, len);
    return;
  }
  const char *old = f->mem ? f->mem : f->text;
  size_t oldlen = f->len;
  /* the incremental path trusts the edit: it must describe the change (the text outside it unchanged) */
  if (f->tree && old && start <= old_end && old_end <= oldlen && start <= new_end && new_end <= len &&
      (int64_t)len - (int64_t)oldlen == (int64_t)new_end - (int64_t)old_end && !memcmp(old, text, start) &&
      !memcmp(old + old_end, text + new_end, oldlen - old_end)) {
    TSInputEdit e = {start,
                     old_end,
                     new_end,
                     tl_point_at(old, oldlen, start),
                     tl_point_at(old, oldlen, old_end),
                     tl_point_at(text, len, new_end)};
    ts_tree_edit(f->tree, &e);
    /* The hull of every change since the last run, in the new text's offsets: the text before
     * edit_start is unchanged, the text from edit_end on is the old text from edit_end - delta. */
    if (!f->edited) {
      f->edit_start = start;
      f->edit_end = new_end;
      f->edit_delta = 0;
      f->edited = true;
    } else {
      uint32_t e0 = f->edit_end;
      uint32_t moved = e0 >= old_end ? e0 - old_end + new_end : (e0 > start ? new_end : e0);
      if (start < f->edit_start) f->edit_start = start;
      f->edit_end = moved > new_end ? moved : new_end;
    }
    f->edit_delta += (int64_t)new_end - (int64_t)old_end;
  } else {
    if (f->tree) ts_tree_delete(f->tree);
    f->tree = NULL;
    f->edited = f->reusable = false;
  }
  free(f->mem);
  f->mem = tl_strndup(text, len);
  f->len = len;
  f->dirty = f->in_memory = true;
}

void tl_analysis_remove(tl_analysis *a, const char *path) {
  tl_file *f = tl_find_file(a, path);
  if (!f) return;
  tl_project_free(&a->project); /* indexed by file: rebuilt by the next run */
  tl_findings_clear(a);
  for (size_t k = 0; k < a->files.n; k++) { /* they name files by index */
    free(a->files.v[k].targets);
    a->files.v[k].targets = NULL;
  }
  size_t i = (size_t)(f - a->files.v);
  tl_file_free(f);
  memmove(&a->files.v[i], &a->files.v[i + 1], (a->files.n - i - 1) * sizeof *a->files.v);
  a->files.n--;
}

/* ---- the run ---- */

typedef struct {
  tl_analysis *a;
  tl_worker *workers;
  size_t *todo; /* file indexes to analyse */
} tl_run_ctx;

/* A job of the pool: phase 1 of one file, on the calling thread's worker. */
static void tl_analysis__phase1(void *ctxp, unsigned worker, size_t idx) {
  tl_run_ctx *ctx = ctxp;
  tl_file_analyze(ctx->a, &ctx->a->files.v[ctx->todo[idx]], &ctx->workers[worker]);
}

typedef struct {
  tl_analysis *a;
  bool *failed; /* per file: it could not be read */
} tl_read_ctx;

/* A job of the pool: read one file for the look-up of the run's results, and hash it. */
static void tl_analysis__read(void *ctxp, unsigned worker, size_t idx) {
  (void)worker;
  tl_read_ctx *ctx = ctxp;
  tl_file *f = &ctx->a->files.v[idx];
  if (f->preread) return;
  tl_source s = {0};
  size_t off;
  char *msg = NULL;
  if (tl_source_read_max(f->path, ctx->a->opts.max_file_bytes, &s, &off, &msg) != TL_SOURCE_OK) {
    free(msg);
    ctx->failed[idx] = true; /* phase 1 reads it again, and says what is wrong */
    return;
  }
  tl_file_take_source(f, &s);
  f->hashed = false;
  tl_cache_text_hash(f);
  f->preread = true;
}

/* A run whose every file is read from disk takes the results of an earlier run over the same
 * files with the same texts, when the cache has them (tl_results.h). The texts read stay for
 * phase 1 when it has none. */
static bool tl_analysis__cached_results(tl_analysis *a) {
  if (!a->cache || a->opts.keep_trees || !a->files.n) return false;
  for (size_t i = 0; i < a->files.n; i++) {
    const tl_file *f = &a->files.v[i];
    if (!f->dirty || f->in_memory || f->mem || tl_notebook_path(f->path) || !tl_cache_has(a->cache, f->path))
      return false;
  }
  bool *failed = tl_calloc(a->files.n, sizeof *failed);
  tl_read_ctx ctx = {a, failed};
  tl_pool_run(tl_pool_threads(a->opts.threads, a->files.n), a->files.n, tl_analysis__read, &ctx);
  bool all = true;
  for (size_t i = 0; i < a->files.n; i++) all = all && !failed[i];
  free(failed);
  if (!all || !tl_results_load(a->cache, a)) return false;
  for (size_t i = 0; i < a->files.n; i++) { /* a later run reads and analyses them again */
    a->files.v[i].preread = false;
    a->files.v[i].rerun = false;
  }
  a->cache_hits = a->files.n;
  return a->results_cached = true;
}

void tl_analysis_cancel(tl_analysis *a, bool on) { __atomic_store_n(&a->cancel, (size_t)on, __ATOMIC_RELAXED); }

bool tl_analysis_cancelled(const tl_analysis *a) { return a->cancelled; }

/* The end of a cancelled run: no findings, no diagnostics. The files its phase 1 analysed again no
 * longer hold call targets that the next project pass could take over (tl_callgraph_build keeps
 * the last pass's targets only when every file is unchanged since, or re-queried in part). */
static void tl_analysis__stopped(tl_analysis *a) {
  for (size_t i = 0; i < a->files.n; i++) {
    tl_file *f = &a->files.v[i];
    if (!f->rerun) continue;
    free(f->targets);
    f->targets = NULL;
    f->ntargets = 0;
  }
  tl_project_free(&a->project);
  tl_findings_clear(a);
  tl_diags_free(&a->diags);
  a->cancelled = true;
}

void tl_analysis_run(tl_analysis *a) {
  tl_project_free(&a->project);
  tl_findings_clear(a);
  tl_diags_free(&a->diags);
  a->suppressed = 0;
  a->results_cached = false;
  a->cancelled = false;
  if (a->opts.cache_dir && !a->cache) a->cache = tl_cache_open(a->opts.cache_dir, a);
  if (tl_analysis__cached_results(a)) return;
  size_t *todo = tl_calloc(a->files.n + 1, sizeof *todo), ntodo = 0;
  for (size_t i = 0; i < a->files.n; i++) {
    a->files.v[i].rerun = false;
    if (a->files.v[i].dirty) todo[ntodo++] = i;
  }
  if (ntodo && !tl_ruleset_ready(a->rules))
    tl_diags_add(&a->diags, TL_DIAG_ERROR, "<rules>", 0, 0, "the rules' query does not compile: no file is matched");
  unsigned nt = tl_pool_threads(a->opts.threads, ntodo);
  tl_worker *ws = tl_calloc(nt, sizeof *ws);
  for (unsigned i = 0; i < nt; i++) {
    tl_worker_init(&ws[i], a->rules);
    ts_parser_set_cancellation_flag(ws[i].parser, &a->cancel); /* a parse stops too */
  }
  tl_run_ctx ctx = {a, ws, todo};
  tl_pool_run(nt, ntodo, tl_analysis__phase1, &ctx);
  tl_cache_flush(a->cache);
  a->cache_hits = 0;
  for (size_t i = 0; i < ntodo; i++) {
    a->cache_hits += a->files.v[todo[i]].cached;
    a->partial_runs += a->files.v[todo[i]].partial;
    a->model_copied += a->files.v[todo[i]].model_copied;
  }
  free(todo);
  for (unsigned i = 0; i < nt; i++) tl_worker_free(&ws[i]);
  free(ws);
  if (tl_analysis_stopping(a)) {
    tl_analysis__stopped(a);
    return;
  }
  for (size_t i = 0; i < a->files.n; i++) {
    const tl_diags *d = &a->files.v[i].diags;
    for (size_t j = 0; j < d->n; j++) {
      tl_diag x = d->v[j];
      x.path = tl_strdup(x.path);
      x.message = tl_strdup(x.message);
      if (a->files.v[i].nb && x.line) tl_notebook_locate(a->files.v[i].nb, x.line, &x.cell, &x.line);
      tl_vec_push(&a->diags, x);
    }
    tl_suppressions *sp = &a->files.v[i].model.suppressions;
    for (size_t j = 0; j < sp->n; j++)
      for (size_t k = 0; k < sp->v[j].used.n; k++) sp->v[j].used.v[k] = false;
  }
  a->project.keep_mentions = a->opts.keep_trees; /* an editor's next run reuses unchanged files' */
  a->project.cancel = &a->cancel;
  tl_project_analyze(&a->project, a->files.v, a->files.n, &a->hot_functions);
  a->targets_kept += a->project.targets_kept;
  if (tl_analysis_stopping(a)) {
    tl_analysis__stopped(a);
    return;
  }
  tl_findings_make(a);
  tl_results_store(a->cache, a);
  for (size_t i = 0; i < a->files.n; i++) { /* made again when the file changes */
    free(a->files.v[i].code);
    a->files.v[i].code = NULL;
  }
}

size_t tl_analysis_finding_count(const tl_analysis *a) { return a->findings.n; }
size_t tl_analysis_suppressed_count(const tl_analysis *a) { return a->suppressed; }

const tl_finding *tl_analysis_finding(const tl_analysis *a, size_t i) {
  return i < a->findings.n ? &a->findings.v[i] : NULL;
}
size_t tl_analysis_diag_count(const tl_analysis *a) { return a->diags.n; }
const tl_diag *tl_analysis_diag(const tl_analysis *a, size_t i) { return i < a->diags.n ? &a->diags.v[i] : NULL; }
size_t tl_analysis_file_count(const tl_analysis *a) { return a->files.n; }
const char *tl_analysis_file_path(const tl_analysis *a, size_t i) { return i < a->files.n ? a->files.v[i].path : NULL; }
const struct tl_notebook *tl_analysis_file_notebook(const tl_analysis *a, size_t i) {
  return i < a->files.n ? a->files.v[i].nb : NULL;
}

const char *tl_analysis_file_text(const tl_analysis *a, size_t i, size_t *len) {
  if (i >= a->files.n || !a->files.v[i].text) return NULL;
  if (len) *len = a->files.v[i].len;
  return a->files.v[i].text;
}
