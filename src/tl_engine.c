/* tl_engine.c - running an analysis: reading and parsing files in parallel, one query pass per
 * file with the rules' predicates, then the project pass and the final list of findings. */
#include "tl_match.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tl_pool.h"
#include "tl_source.h"
#include "tl_vocab.h"


tl_analysis *tl_analysis_new(const tl_ruleset *rules, const tl_options *opts) {
  tl_analysis *a = tl_calloc(1, sizeof *a);
  a->rules = rules;
  if (opts) a->opts = *opts;
  return a;
}

/* Drops what phase 1 computed for a file (its text and path stay). */
static void tl_file_reset(tl_file *f) {
  tl_lines_free(&f->lines);
  tl_model_free(&f->model);
  memset(&f->model, 0, sizeof f->model);
  for (size_t i = 0; i < f->cands.n; i++) {
    free(f->cands.v[i].message);
    for (size_t j = 0; j < f->cands.v[i].edits.n; j++) free(f->cands.v[i].edits.v[j].text);
    tl_vec_free(&f->cands.v[i].edits);
    tl_vec_free(&f->cands.v[i].deferred);
  }
  tl_vec_free(&f->cands);
  tl_diags_free(&f->diags);
  tl_vec_free(&f->vals);
  tl_vec_free(&f->fmatch);
  tl_vec_free(&f->pfmatch);
  free(f->code);
  f->code = NULL;
  free(f->call_map);
  f->call_map = NULL;
  f->ok = false;
}

static void tl_file_free(tl_file *f) {
  free(f->path);
  free(f->text);
  free(f->mem);
  if (f->tree) ts_tree_delete(f->tree);
  tl_file_reset(f);
  free(f->targets);
}

static void tl_findings_clear(tl_analysis *a) {
  for (size_t i = 0; i < a->findings.n; i++) {
    tl_finding *f = &a->findings.v[i];
    free(f->message);
    for (size_t j = 0; j < f->nhot; j++) free(f->hot[j].what);
    free(f->hot);
    for (size_t j = 0; j < f->fix.n; j++) free(f->fix.v[j].text);
    tl_vec_free(&f->fix);
  }
  tl_vec_free(&a->findings);
}

void tl_analysis_delete(tl_analysis *a) {
  if (!a) return;
  tl_project_free(a);
  tl_findings_clear(a);
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
  if (!f) { tl_analysis_add_text(a, path, text, len); return; }
  free(f->mem);
  f->mem = tl_strndup(text, len);
  f->len = len;
  f->dirty = f->in_memory = true;
  f->edited = f->reusable = false; /* no edit description: analyse afresh */
  if (f->tree) { ts_tree_delete(f->tree); f->tree = NULL; }
}

/* Row and byte column of an offset. */
static TSPoint tl_point_at(const char *text, size_t len, uint32_t off) {
  TSPoint p = {0, 0};
  uint32_t line_start = 0;
  for (uint32_t i = 0; i < off && i < len; i++) /* rows end where the parsed copy has LF (a lone CR too) */
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))) { p.row++; line_start = i + 1; }
  p.column = off - line_start;
  return p;
}

void tl_analysis_edit(tl_analysis *a, const char *path, uint32_t start, uint32_t old_end, uint32_t new_end,
                      const char *text, size_t len) {
  tl_file *f = tl_find_file(a, path);
  if (!f) { tl_analysis_add_text(a, path, text, len); return; }
  const char *old = f->mem ? f->mem : f->text;
  size_t oldlen = f->len;
  /* the incremental path trusts the edit: it must describe the change (the text outside it unchanged) */
  if (f->tree && old && start <= old_end && old_end <= oldlen && start <= new_end && new_end <= len &&
      (int64_t)len - (int64_t)oldlen == (int64_t)new_end - (int64_t)old_end && !memcmp(old, text, start) &&
      !memcmp(old + old_end, text + new_end, oldlen - old_end)) {
    TSInputEdit e = {start, old_end, new_end, tl_point_at(old, oldlen, start), tl_point_at(old, oldlen, old_end),
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
  tl_project_free(a); /* indexed by file: rebuilt by the next run */
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


typedef struct {
  tl_analysis *a;
  tl_worker *workers;
  size_t *todo; /* file indexes to analyse */
} tl_run_ctx;

/* ---- phase 1: one file ---- */

static char *tl_module_name(const char *path, bool *is_package) {
  const char *p = path;
  while (p[0] == '.' && p[1] == '/') p += 2;
  while (*p == '/') p++;
  size_t n = strlen(p);
  if (n > 3 && !strcmp(p + n - 3, ".py")) n -= 3;
  else if (n > 4 && !strcmp(p + n - 4, ".pyi")) n -= 4;
  char *m = tl_strndup(p, n);
  for (char *c = m; *c; c++)
    if (*c == '/') *c = '.';
  *is_package = false;
  size_t ml = strlen(m);
  if (ml >= 8 && !strcmp(m + ml - 8, "__init__")) {
    *is_package = true;
    m[ml >= 9 ? ml - 9 : 0] = 0;
  }
  return m;
}

static void tl_report_syntax(tl_file *f, TSNode root) {
  /* The first ERROR or MISSING node, found without recursion. */
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool found = false;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    if (!strcmp(ts_node_type(n), "ERROR") || ts_node_is_missing(n)) {
      TSPoint p = ts_node_start_point(n);
      uint32_t line = p.row + 1, col = tl_lines_col(&f->lines, f->text, ts_node_start_byte(n));
      if (ts_node_is_missing(n))
        tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, line, col, "syntax error: missing '%s'; findings elsewhere in the file are still reported", ts_node_type(n));
      else
        tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, line, col, "syntax error; findings elsewhere in the file are still reported");
      found = true;
      break;
    }
    if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cur)) continue;
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cur)) moved = true;
      else if (!ts_tree_cursor_goto_parent(&cur)) break;
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cur);
  if (!found) tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, 1, 1, "syntax error");
}

/* Line and column (in code points) of a byte offset of a file, read in chunks. */
static void tl_offset_position(const char *path, size_t off, uint32_t *line, uint32_t *col) {
  FILE *fp = fopen(path, "rb");
  *line = 1;
  *col = 1;
  if (!fp) return;
  for (size_t i = 0; i < off; i++) {
    int ch = fgetc(fp);
    if (ch == EOF) break;
    if (ch == '\n') { (*line)++; *col = 1; }
    else if ((ch & 0xC0) != 0x80) (*col)++;
  }
  fclose(fp);
}

/* ---- phase 1, incremental: re-query only the changed top-level statements ----
 *
 * After an edit the whole file is re-parsed (incrementally) and its model rebuilt, but the rule
 * query with its predicates (most of the time of a run) runs only over the region of the changed
 * top-level statements, widened by one statement (not counting comments) on each side
 * (#next-statement-match? looks at the statement after a match: predicates must not look
 * further outside their own top-level statement). Candidates outside the region are kept, their offsets shifted.
 * That is right only while a candidate outside the region would get the same verdict from every
 * predicate, so the region is used only when the new model equals the old one except for what
 * is local to functions inside the region (their bindings and calls; both models' entries are
 * compared with offsets mapped across the region), every #file-match? gives the same verdict
 * on the new text and no kept candidate's statement reaches into the region; otherwise the whole
 * file is queried. tl_model_same_outside lists what is
 * compared: a new field of tl_file_model that predicates read must be compared there too.
 * tests/unit/test_incremental_random.c checks the result against fresh analyses. */

typedef struct {
  uint32_t rs, re_old, re_new; /* the region: [rs, re_old) of the old text is [rs, re_new) of the new */
  int64_t delta;               /* re_new - re_old: the shift of everything after the region */
  const char *old_text, *new_text;
} tl_region;

static bool tl_in_old(const tl_region *g, uint32_t o) { return o >= g->rs && o < g->re_old; }
static bool tl_in_new(const tl_region *g, uint32_t n) { return n >= g->rs && n < g->re_new; }

/* Old offset `o` and new offset `n` are the same place: unchanged before the region, shifted after
 * it; inside it, both must be inside. */
static bool tl_pos_eq(const tl_region *g, uint32_t o, uint32_t n) {
  if (o < g->rs) return n == o;
  if (o >= g->re_old) return (int64_t)n == (int64_t)o + g->delta;
  return n >= g->rs && n < g->re_new;
}

static bool tl_str_eq0(const char *x, const char *y) { return x == y || (x && y && !strcmp(x, y)); }

static bool tl_text_eq(const tl_region *g, tl_range o, tl_range n) {
  return o.end - o.start == n.end - n.start && !memcmp(g->old_text + o.start, g->new_text + n.start, o.end - o.start);
}

/* A function inside the region: its bindings and calls are seen only by matches inside it. */
static bool tl_func_local(const tl_file_model *m, int32_t func, uint32_t lo, uint32_t hi) {
  return func > 0 && (size_t)func < m->funcs.n && m->funcs.v[func].start >= lo && m->funcs.v[func].start < hi;
}

static bool tl_binding_eq(const tl_region *g, const tl_binding *x, tl_range xv, const tl_binding *y, tl_range yv) {
  return !strcmp(x->name, y->name) && x->func == y->func && x->kind == y->kind && tl_str_eq0(x->ctor, y->ctor) &&
         x->from_loop == y->from_loop && tl_pos_eq(g, x->byte, y->byte) && tl_text_eq(g, xv, yv) &&
         (xv.end == xv.start) == (yv.end == yv.start) && (xv.end == xv.start || tl_pos_eq(g, xv.start, yv.start));
}

static bool tl_names_eq(char *const *x, size_t nx, char *const *y, size_t ny) {
  if (nx != ny) return false;
  for (size_t i = 0; i < nx; i++)
    if (!tl_str_eq0(x[i], y[i])) return false;
  return true;
}

/* Does the new model `b` equal the old model `a` for every match outside the region? */
static bool tl_model_same_outside(const tl_region *g, const tl_file_model *a, const tl_range *av,
                                  const tl_file_model *b, const tl_range *bv) {
  if (!tl_str_eq0(a->module, b->module) || a->is_package != b->is_package) return false;
  /* imports: the same aliases for the same names */
  if (a->imports.count != b->imports.count) return false;
  for (size_t i = 0; i < b->imports.cap; i++) {
    const tl_map_entry *e = &b->imports.slots[i];
    intptr_t v;
    if (e->key && (!tl_map_get(&a->imports, e->key, &v) || !tl_str_eq0((const char *)v, (const char *)e->value)))
      return false;
  }
  /* functions: the same list (indexes are kept in candidates), the same places */
  if (a->funcs.n != b->funcs.n) return false;
  for (size_t i = 0; i < a->funcs.n; i++) {
    const tl_func *x = &a->funcs.v[i], *y = &b->funcs.v[i];
    if (!tl_str_eq0(x->name, y->name) || !tl_str_eq0(x->qual, y->qual) || !tl_str_eq0(x->display, y->display) ||
        x->cls != y->cls || x->is_collate != y->is_collate || !tl_pos_eq(g, x->start, y->start) ||
        (x->end > 0 ? !tl_pos_eq(g, x->end - 1, y->end - 1) : y->end != 0))
      return false;
  }
  /* classes, with every attribute assignment (read from any method, and by other classes) */
  if (a->classes.n != b->classes.n) return false;
  size_t ai = a->bindings.n, bi = b->bindings.n; /* attribute values follow the bindings' in vals */
  for (size_t i = 0; i < a->classes.n; i++) {
    const tl_class *x = &a->classes.v[i], *y = &b->classes.v[i];
    if (!tl_str_eq0(x->name, y->name) || !tl_str_eq0(x->qual, y->qual) ||
        !tl_names_eq(x->bases.v, x->bases.n, y->bases.v, y->bases.n) || x->attrs.n != y->attrs.n)
      return false;
    for (size_t j = 0; j < x->attrs.n; j++)
      if (!tl_binding_eq(g, &x->attrs.v[j], av[ai + j], &y->attrs.v[j], bv[bi + j])) return false;
    ai += x->attrs.n;
    bi += y->attrs.n;
  }
  /* loops: the same list (bindings and calls name them by index) */
  if (a->loops.n != b->loops.n) return false;
  for (size_t i = 0; i < a->loops.n; i++) {
    const tl_loop *x = &a->loops.v[i], *y = &b->loops.v[i];
    if (!tl_pos_eq(g, x->start, y->start)) return false;
    if (tl_in_old(g, x->start)) continue;
    if (x->func != y->func || x->parent != y->parent || x->is_while != y->is_while ||
        x->iterates_loader != y->iterates_loader || x->work != y->work || !tl_pos_eq(g, x->end - 1, y->end - 1))
      return false;
  }
  /* bindings and calls, except those of functions inside the region */
  size_t i = 0, j = 0;
  for (;;) {
    while (i < a->bindings.n && tl_func_local(a, a->bindings.v[i].func, g->rs, g->re_old)) i++;
    while (j < b->bindings.n && tl_func_local(b, b->bindings.v[j].func, g->rs, g->re_new)) j++;
    if (i == a->bindings.n || j == b->bindings.n) break;
    if (!tl_binding_eq(g, &a->bindings.v[i], av[i], &b->bindings.v[j], bv[j])) return false;
    i++, j++;
  }
  if (i != a->bindings.n || j != b->bindings.n) return false;
  for (i = 0, j = 0;;) {
    while (i < a->calls.n && tl_func_local(a, a->calls.v[i].func, g->rs, g->re_old)) i++;
    while (j < b->calls.n && tl_func_local(b, b->calls.v[j].func, g->rs, g->re_new)) j++;
    if (i == a->calls.n || j == b->calls.n) break;
    const tl_call *x = &a->calls.v[i], *y = &b->calls.v[j];
    if (!tl_str_eq0(x->callee, y->callee) || x->func != y->func || x->loop != y->loop || x->top != y->top ||
        x->guarded != y->guarded || x->work != y->work || !tl_pos_eq(g, x->byte, y->byte))
      return false;
    i++, j++;
  }
  if (i != a->calls.n || j != b->calls.n) return false;
  /* frequency guards: by place; those inside the region hold only places inside it */
  for (i = 0, j = 0;;) {
    while (i < a->guards.n && tl_in_old(g, a->guards.v[i].start)) i++;
    while (j < b->guards.n && tl_in_new(g, b->guards.v[j].start)) j++;
    if (i == a->guards.n || j == b->guards.n) break;
    if (!tl_pos_eq(g, a->guards.v[i].start, b->guards.v[j].start) ||
        !tl_pos_eq(g, a->guards.v[i].end - 1, b->guards.v[j].end - 1) ||
        (a->guards.v[i].scope == 0) != (b->guards.v[j].scope == 0) ||
        (a->guards.v[i].scope && !tl_pos_eq(g, a->guards.v[i].scope, b->guards.v[j].scope)))
      return false;
    i++, j++;
  }
  if (i != a->guards.n || j != b->guards.n) return false;
  return tl_names_eq(a->loader_names.v, a->loader_names.n, b->loader_names.v, b->loader_names.n) &&
         tl_names_eq(a->collate_names.v, a->collate_names.n, b->collate_names.v, b->collate_names.n);
}

/* The byte ranges of the model's value nodes, kept after the tree is gone (a binding has a value
 * node exactly when it has a symbol, and the node's range is the one recorded). */
static void tl_snapshot_values(tl_file *f) {
  f->vals.n = 0;
  for (size_t i = 0; i < f->model.bindings.n; i++) {
    const tl_binding *x = &f->model.bindings.v[i];
    tl_range r = {x->vsym ? x->vstart : 0, x->vsym ? x->vend : 0, 0};
    tl_vec_push(&f->vals, r);
  }
  for (size_t i = 0; i < f->model.classes.n; i++)
    for (size_t j = 0; j < f->model.classes.v[i].attrs.n; j++) {
      const tl_binding *x = &f->model.classes.v[i].attrs.v[j];
      tl_range r = {x->vsym ? x->vstart : 0, x->vsym ? x->vend : 0, 0};
      tl_vec_push(&f->vals, r);
    }
}

/* The region: the top-level statements that the edits touched or whose parse changed, and one more
 * on each side. A statement before the edits whose range is the same as in the last run's model,
 * or one after them whose range is the same shifted, with no syntax error then or now, has the
 * same text and the same start state (the module level: tree-sitter-python's scanner holds no
 * indentation or open bracket there), so it parsed the same: what tree-sitter's changed ranges
 * would find, found without comparing the two trees. Returns false when the file has no
 * statements. */
static bool tl_find_region(const tl_file *f, const tl_file_model *old, TSTree *tree, uint32_t *rs, uint32_t *re) {
  uint32_t lo = f->edit_start, hi = f->edit_end;
  TSNode root = ts_tree_root_node(tree);
  /* the top-level statements, with a cursor: ts_node_child(root, i) walks i siblings each time */
  TL_VEC(TSNode) kids = {0};
  TSTreeCursor cur = ts_tree_cursor_new(root);
  if (ts_tree_cursor_goto_first_child(&cur)) do tl_vec_push(&kids, ts_tree_cursor_current_node(&cur));
    while (ts_tree_cursor_goto_next_sibling(&cur));
  ts_tree_cursor_delete(&cur);
  uint32_t n = (uint32_t)kids.n;
  if (!n) {
    tl_vec_free(&kids);
    return false;
  }
  /* the model's segments are the named statements: compare those (comments included) */
  TL_VEC(uint32_t) named = {0};
  for (uint32_t i = 0; i < n; i++)
    if (ts_node_is_named(kids.v[i])) tl_vec_push(&named, i);
  size_t nn = named.n, no = old ? old->segs.n : 0, p = 0, q = 0;
  while (p < nn && p < no) {
    TSNode c = kids.v[named.v[p]];
    const tl_segment *os = &old->segs.v[p];
    if (ts_node_end_byte(c) > lo || os->start != ts_node_start_byte(c) || os->end != ts_node_end_byte(c) ||
        os->error || ts_node_has_error(c))
      break;
    p++;
  }
  while (q < nn - p && q < no - p) {
    TSNode c = kids.v[named.v[nn - 1 - q]];
    const tl_segment *os = &old->segs.v[no - 1 - q];
    if (ts_node_start_byte(c) < hi || (int64_t)os->start + f->edit_delta != (int64_t)ts_node_start_byte(c) ||
        (int64_t)os->end + f->edit_delta != (int64_t)ts_node_end_byte(c) || os->error || ts_node_has_error(c))
      break;
    q++;
  }
  if (p < nn - q) { /* the statements between the kept ones changed */
    uint32_t cs = ts_node_start_byte(kids.v[named.v[p]]), ce = ts_node_end_byte(kids.v[named.v[nn - 1 - q]]);
    if (cs < lo) lo = cs;
    if (ce > hi) hi = ce;
  }
  /* (statements removed with none in their place: the edit's own range marks the spot) */
  tl_vec_free(&named);
  uint32_t first = n, last = 0;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = kids.v[i];
    if (ts_node_end_byte(c) >= lo && first == n) first = i;
    if (ts_node_start_byte(c) <= hi) { last = i; any = true; }
  }
  if (first == n) first = n - 1;
  if (!any) last = 0;
  /* one statement more on each side, comments skipped (#next-statement-match? skips them) */
  if (first > 0) do first--; while (first > 0 && tl_node_is(kids.v[first], "comment"));
  if (last + 1 < n) do last++; while (last + 1 < n && tl_node_is(kids.v[last], "comment"));
  uint32_t s = ts_node_start_byte(kids.v[first]), e = ts_node_end_byte(kids.v[last]);
  tl_vec_free(&kids);
  *rs = s < lo ? s : lo;
  *re = e > hi ? e : hi;
  if (*re > f->len) *re = (uint32_t)f->len;
  if (*rs > *re) *rs = *re;
  return true;
}

static void tl_cand_free(tl_candidate *c) {
  free(c->message);
  for (size_t j = 0; j < c->edits.n; j++) free(c->edits.v[j].text);
  tl_vec_free(&c->edits);
  tl_vec_free(&c->deferred);
}

static void tl_cand_shift(tl_candidate *c, int64_t d) {
  c->start = (uint32_t)(c->start + d);
  c->end = (uint32_t)(c->end + d);
  if (c->report_end) c->report_end = (uint32_t)(c->report_end + d);
  c->stmt_start = (uint32_t)(c->stmt_start + d);
  c->stmt_end = (uint32_t)(c->stmt_end + d);
  for (size_t j = 0; j < c->edits.n; j++) {
    c->edits.v[j].start = (uint32_t)(c->edits.v[j].start + d);
    c->edits.v[j].end = (uint32_t)(c->edits.v[j].end + d);
  }
  for (size_t j = 0; j < c->deferred.n; j++) {
    c->deferred.v[j].start = (uint32_t)(c->deferred.v[j].start + d);
    c->deferred.v[j].end = (uint32_t)(c->deferred.v[j].end + d);
  }
}

/* What the previous run of a file left for the incremental path. */
typedef struct {
  bool valid;
  tl_file_model model;
  tl_candidate *cands;
  size_t ncands;
  tl_range *vals;
  tl_filematches fmatch;
  char *text;
  size_t len;
  tl_lines lines;         /* of `text` */
} tl_prev;

/* After a partial run: per call of the new model `b`, the index of the same call in the old model
 * `a`, or UINT32_MAX for the calls inside the region or of a function inside it. The others are
 * the calls tl_model_same_outside found equal, in the same order: they resolve as before (the
 * bindings of their functions, the classes and the functions are the same). */
static uint32_t *tl_map_calls(const tl_region *g, const tl_file_model *a, const tl_file_model *b) {
  uint32_t *map = tl_malloc((b->calls.n + 1) * sizeof *map);
  size_t i = 0;
  for (size_t j = 0; j < b->calls.n; j++) {
    const tl_call *y = &b->calls.v[j];
    map[j] = UINT32_MAX;
    if (tl_func_local(b, y->func, g->rs, g->re_new) || tl_in_new(g, y->byte)) continue;
    while (i < a->calls.n && (tl_func_local(a, a->calls.v[i].func, g->rs, g->re_old) || tl_in_old(g, a->calls.v[i].byte))) i++;
    if (i < a->calls.n) map[j] = (uint32_t)i++;
  }
  return map;
}

/* Candidates: the old ones before the region, the new ones inside it, the old ones after it
 * (shifted): the order a query over the whole file gives. */
static void tl_splice_cands(tl_file *f, tl_prev *p, const tl_region *g) {
  tl_candidate *nv = f->cands.v;
  size_t nn = f->cands.n;
  memset(&f->cands, 0, sizeof f->cands);
  for (size_t i = 0; i < p->ncands; i++)
    if (p->cands[i].start < g->rs) tl_vec_push(&f->cands, p->cands[i]);
  for (size_t i = 0; i < nn; i++) {
    if (tl_in_new(g, nv[i].start)) tl_vec_push(&f->cands, nv[i]);
    else tl_cand_free(&nv[i]);
  }
  free(nv);
  for (size_t i = 0; i < p->ncands; i++) {
    tl_candidate *c = &p->cands[i];
    if (c->start < g->rs) continue;
    if (c->start >= g->re_old) {
      tl_cand_shift(c, g->delta);
      tl_vec_push(&f->cands, *c);
    } else {
      tl_cand_free(c);
    }
  }
  p->ncands = 0;
}

static void tl_file_phase1_run(tl_run_ctx *ctx, tl_worker *w, tl_file *f, tl_prev *prev);

/* tl_utf8_valid for a text that was valid before the edits in [edit_start, edit_end): only the
 * characters around the changed bytes are read. The unchanged text before them ends, and the one
 * after them starts, at a character boundary of the old text: the window starts at the character
 * holding the byte before the edits and ends before the first non-continuation byte after them. */
static bool tl_utf8_valid_edited(const tl_file *f, size_t *bad) {
  const unsigned char *t = (const unsigned char *)f->text;
  size_t s = f->edit_start < f->len ? f->edit_start : f->len, e = f->edit_end < f->len ? f->edit_end : f->len;
  if (e < s) e = s;
  if (s > 0) {
    s--;
    while (s > 0 && (t[s] & 0xC0) == 0x80) s--;
  }
  while (e < f->len && (t[e] & 0xC0) == 0x80) e++;
  size_t b = 0;
  if (tl_utf8_valid(f->text + s, e - s, &b)) return true;
  *bad = s + b;
  return false;
}

static void tl_file_phase1(void *ctxp, unsigned worker, size_t idx) {
  tl_run_ctx *ctx = ctxp;
  tl_analysis *a = ctx->a;
  tl_file *f = &a->files.v[ctx->todo[idx]];
  tl_worker *w = &ctx->workers[worker];
  tl_prev prev = {0};
  if (a->opts.keep_trees && f->tree && f->edited && f->reusable && f->mem && f->text) {
    prev.valid = true;
    prev.model = f->model;
    memset(&f->model, 0, sizeof f->model);
    prev.cands = f->cands.v;
    prev.ncands = f->cands.n;
    memset(&f->cands, 0, sizeof f->cands);
    prev.vals = f->vals.v;
    memset(&f->vals, 0, sizeof f->vals);
    prev.fmatch = f->fmatch;
    memset(&f->fmatch, 0, sizeof f->fmatch);
    prev.text = f->text;
    prev.lines = f->lines; /* valid for prev.text */
    memset(&f->lines, 0, sizeof f->lines);
    prev.len = (size_t)((int64_t)f->len - f->edit_delta);
    f->text = NULL;
  }
  tl_file_reset(f);
  f->rerun = true;
  f->dirty = false;
  f->reusable = f->partial = false;
  f->model_copied = 0;
  tl_file_phase1_run(ctx, w, f, &prev);
  f->edited = false;
  if (prev.valid) {
    tl_model_disown(&prev.model, &f->model); /* the strings the new model took over */
    tl_model_free(&prev.model);
    for (size_t i = 0; i < prev.ncands; i++) tl_cand_free(&prev.cands[i]);
    free(prev.cands);
    free(prev.vals);
    tl_vec_free(&prev.fmatch);
    free(prev.text);
    tl_lines_free(&prev.lines);
  }
}

static void tl_file_phase1_run(tl_run_ctx *ctx, tl_worker *w, tl_file *f, tl_prev *prev) {
  tl_analysis *a = ctx->a;
  if (f->mem || f->in_memory) {
    if (f->mem) {
      free(f->text);
      f->text = f->mem;
      f->mem = NULL;
    }
    if (!f->text) f->text = tl_strdup("");
    size_t bad;
    if (memchr(f->text, 0, f->len)) {
      tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, 0, 0, "binary file (contains NUL bytes): not analysed");
      return;
    }
    if (!(prev->valid ? tl_utf8_valid_edited(f, &bad) : tl_utf8_valid(f->text, f->len, &bad))) {
      tl_lines_init(&f->lines, f->text, f->len);
      uint32_t off = (uint32_t)bad;
      tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, tl_lines_line(&f->lines, off), tl_lines_col(&f->lines, f->text, off),
                   "invalid UTF-8 (byte 0x%02x): not analysed", (unsigned char)f->text[bad]);
      return;
    }
  } else {
    tl_source s;
    size_t off = 0;
    char *msg = NULL;
    tl_source_status st = tl_source_read(f->path, &s, &off, &msg);
    if (st != TL_SOURCE_OK) {
      uint32_t line = 0, col = 0;
      if (st == TL_SOURCE_BAD_UTF8 || st == TL_SOURCE_BINARY) {
        tl_offset_position(f->path, off, &line, &col);
        tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, line, col, "%s: not analysed", msg ? msg : "bad text");
      } else {
        tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, line, col, "%s: not analysed", msg ? msg : "cannot read");
      }
      free(msg);
      return;
    }
    free(f->text);
    f->text = s.text;
    f->len = s.len;
    s.text = NULL;
    tl_source_free(&s);
  }
  if (!f->lines.starts && prev->valid && prev->lines.starts)
    tl_lines_update(&f->lines, &prev->lines, f->text, f->len, f->edit_start, f->edit_end, f->edit_delta);
  if (!f->lines.starts) tl_lines_init(&f->lines, f->text, f->len);
  /* A UTF-8 BOM is not Python syntax to the grammar: parse a copy with it blanked. A lone CR (an
   * old Mac line end) ends a line for Python but not for the grammar: the copy has LF there. */
  char *parse_text = f->text;
  bool bom = f->len >= 3 && !memcmp(f->text, "\xEF\xBB\xBF", 3);
  if (bom || memchr(f->text, '\r', f->len)) {
    parse_text = tl_malloc(f->len + 1);
    memcpy(parse_text, f->text, f->len + 1);
    if (bom) memcpy(parse_text, "   ", 3);
    for (size_t i = 0; i < f->len; i++)
      if (parse_text[i] == '\r' && (i + 1 == f->len || parse_text[i + 1] != '\n')) parse_text[i] = '\n';
  }
  ts_parser_reset(w->parser);
  TSTree *tree = ts_parser_parse_string(w->parser, f->tree, parse_text, (uint32_t)f->len);
  tl_region g = {0};
  bool partial = false;
  if (tree && prev->valid && tl_find_region(f, &prev->model, tree, &g.rs, &g.re_new)) {
    int64_t re_old = (int64_t)g.re_new - f->edit_delta;
    if (re_old >= g.rs && re_old <= (int64_t)prev->len) {
      g.re_old = (uint32_t)re_old;
      g.delta = f->edit_delta;
      g.old_text = prev->text;
      g.new_text = f->text;
      partial = true;
    }
  }
  if (f->tree) { ts_tree_delete(f->tree); f->tree = NULL; }
  if (!tree) {
    tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, 0, 0, "parsing took longer than %u s: not analysed",
                 TL_PARSE_TIMEOUT_US / 1000000u);
    if (parse_text != f->text) free(parse_text);
    return;
  }
  TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) tl_report_syntax(f, root);
  bool is_pkg;
  char *module = tl_module_name(f->path, &is_pkg);
  for (size_t i = 0; i < a->step_iterables.n; i++) tl_vec_push(&f->model.step_iterables, a->step_iterables.v[i]);
  free(f->code);
  /* the code without comments and docstrings, made once for the model, #file-match? and #project-match? */
  f->code = tl_code_text(parse_text, f->len, true);
  f->code_is_text = parse_text == f->text;
  const char *code = ts_node_end_byte(root) == f->len ? f->code : NULL;
  /* the model: the top-level statements outside the region copied from the last run's */
  long copied = partial ? tl_model_rebuild(&f->model, &prev->model, root, parse_text, code, module, is_pkg,
                                           &f->diags, f->path, g.rs, g.re_old, g.re_new)
                        : -1;
  if (copied < 0) tl_model_rebuild(&f->model, NULL, root, parse_text, code, module, is_pkg, &f->diags, f->path, 0, 0, 0);
  f->model_copied = copied > 0 ? (size_t)copied : 0;
  free(module);
  f->ok = true;

  const tl_ruleset *rs = a->rules;
  if (a->opts.keep_trees) tl_snapshot_values(f); /* for the next run's tl_model_same_outside: editors only */
  if (partial) partial = tl_model_same_outside(&g, &prev->model, prev->vals, &f->model, f->vals.v);
  /* #file-match? reads the whole text: every verdict the last run used must stand */
  for (size_t i = 0; partial && i < prev->fmatch.n; i++) {
    tl_filematch fm = {prev->fmatch.v[i].pred, tl_match_code(w, f, prev->fmatch.v[i].pred->re)};
    tl_vec_push(&f->fmatch, fm);
    if (fm.result != prev->fmatch.v[i].result) partial = false;
  }
  /* A kept candidate's statement (its first and last lines are reported) must lie outside the
   * region: an ERROR node of a syntax error can hold a kept candidate and grow or shrink with the
   * edit. */
  for (size_t i = 0; partial && i < prev->ncands; i++) {
    const tl_candidate *c = &prev->cands[i];
    if (c->start >= g.rs && c->start < g.re_old) continue; /* dropped: queried again */
    if (c->stmt_start < g.re_old && c->stmt_end >= g.rs) partial = false;
  }
  bool exceeded = false;
  if (rs->query) {
    if (partial && tl_match_file(a, f, w, root, parse_text, g.rs, g.re_new)) { /* redo it all, as a fresh run would */
      partial = false;
      for (size_t i = 0; i < f->cands.n; i++) tl_cand_free(&f->cands.v[i]);
      tl_vec_free(&f->cands);
    }
    if (!partial) exceeded = tl_match_file(a, f, w, root, parse_text, 0, UINT32_MAX);
    if (exceeded)
      tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, 0, 0, "query match limit (%u) exceeded: some findings may be missing",
                   TL_QUERY_MATCH_LIMIT);
  }
  if (partial) {
    tl_splice_cands(f, prev, &g);
    f->call_map = tl_map_calls(&g, &prev->model, &f->model);
  }
  f->partial = partial;
  f->reusable = a->opts.keep_trees && !exceeded;
  /* The tree is gone after this: drop the model's node references. */
  for (size_t i = 0; i < f->model.bindings.n; i++) f->model.bindings.v[i].value_ = (TSNode){0};
  for (size_t i = 0; i < f->model.classes.n; i++)
    for (size_t j = 0; j < f->model.classes.v[i].attrs.n; j++) f->model.classes.v[i].attrs.v[j].value_ = (TSNode){0};
  f->model.lazy_root = (TSNode){0}; /* lazy bindings now have no value node either */
  if (a->opts.keep_trees) {
    f->tree = tree;
  } else {
    ts_tree_delete(tree);
    /* Past phase 1 only #project-match? reads the code text, and it makes it again when missing
     * (tl_project_deferred_hold): not keeping it saves a copy of every file (peak memory, and the
     * page faults that fill it). An editor keeps it, for its next run's #file-match? checks. */
    free(f->code);
    f->code = NULL;
    tl_model_compact(&f->model);
    tl_vec_shrink(&f->cands);
  }
  if (parse_text != f->text) free(parse_text);
}

/* ---- phase 3: findings ---- */

static int tl_finding_cmp(const void *x, const void *y) {
  const tl_finding *a = x, *b = y;
  int c = strcmp(a->path, b->path);
  if (c) return c;
  if (a->file != b->file) return a->file < b->file ? -1 : 1;
  if (a->start_byte != b->start_byte) return a->start_byte < b->start_byte ? -1 : 1;
  c = strcmp(a->rule->code, b->rule->code);
  if (c) return c;
  return a->end_byte < b->end_byte ? -1 : a->end_byte > b->end_byte;
}

/* FNV-1a over the rule, the path, the scope and the finding's line with spaces removed: survives
 * edits elsewhere in the file (line numbers are not part of it). Duplicates are told apart later. */
static void tl_fingerprint(tl_finding *fd, const tl_file *f) {
  uint64_t h = 1469598103934665603ull;
  const char *parts[] = {fd->rule->code, fd->path, fd->scope};
  for (size_t i = 0; i < 3; i++) {
    for (const char *p = parts[i]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  }
  uint32_t s = f->lines.starts[fd->line - 1];
  uint32_t e = fd->line < f->lines.count ? f->lines.starts[fd->line] : (uint32_t)f->len;
  for (uint32_t i = s; i < e; i++) {
    unsigned char ch = (unsigned char)f->text[i];
    if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') h = (h ^ ch) * 1099511628211ull;
  }
  snprintf(fd->fingerprint, sizeof fd->fingerprint, "%016llx", (unsigned long long)h);
}

static bool tl_supersedes(const tl_rule *outer, const tl_rule *inner) {
  for (size_t i = 0; i < outer->supersedes.n; i++)
    if (!strcmp(outer->supersedes.v[i], inner->code)) return true;
  return false;
}

/* Does a candidate hold once the project is known: its project predicates and its hotness? */
static bool tl_candidate_holds(tl_analysis *a, size_t fi, const tl_candidate *c, pcre2_match_data *md) {
  const tl_rule *rule = a->rules->rules.v[c->rule];
  if (c->deferred.n && !tl_project_deferred_hold(a, fi, c, md)) return false;
  if (!rule->hot) return true;
  tl_hot_step *chain = NULL;
  size_t nchain = 0;
  bool hot = tl_project_hot_at(a, fi, c->func, c->start, rule->hot, &chain, &nchain) != 0;
  for (size_t j = 0; j < nchain; j++) free(chain[j].what);
  free(chain);
  return hot;
}

/* For each `scope: project` rule, the candidate reported: the first that holds by path, then
 * position (the order of files given does not matter: -j1, -jN and editors agree). picks[rule]
 * is file + 1 and cand[rule] the candidate index; 0 when none. */
static void tl_project_scope_picks(tl_analysis *a, size_t *picks, size_t *cand, pcre2_match_data *md) {
  const tl_ruleset *rs = a->rules;
  for (size_t fi = 0; fi < a->files.n; fi++) {
    const tl_file *f = &a->files.v[fi];
    for (size_t ci = 0; ci < f->cands.n; ci++) {
      const tl_candidate *c = &f->cands.v[ci];
      if (!rs->rules.v[c->rule]->project_scope) continue;
      size_t *pk = &picks[c->rule];
      if (*pk) {
        const tl_file *bf = &a->files.v[*pk - 1];
        int cmp = strcmp(f->path, bf->path);
        if (cmp > 0 || (cmp == 0 && c->start >= bf->cands.v[cand[c->rule]].start)) continue;
      }
      if (!tl_candidate_holds(a, fi, c, md)) continue;
      *pk = fi + 1;
      cand[c->rule] = ci;
    }
  }
}

static void tl_make_findings(tl_analysis *a) {
  const tl_ruleset *rs = a->rules;
  pcre2_match_data *md = pcre2_match_data_create(16, NULL);
  size_t *picks = tl_calloc(rs->rules.n + 1, sizeof *picks), *pick_cand = tl_calloc(rs->rules.n + 1, sizeof *pick_cand);
  tl_project_scope_picks(a, picks, pick_cand, md);
  for (size_t fi = 0; fi < a->files.n; fi++) {
    tl_file *f = &a->files.v[fi];
    for (size_t ci = 0; ci < f->cands.n; ci++) {
      tl_candidate *c = &f->cands.v[ci];
      const tl_rule *rule = rs->rules.v[c->rule];
      tl_hot_step *chain = NULL;
      size_t nchain = 0;
      if (rule->needs_accel && a->cpu_only) continue;
      if (rule->project_scope && (picks[c->rule] != fi + 1 || pick_cand[c->rule] != ci)) continue;
      if (c->deferred.n && !tl_project_deferred_hold(a, fi, c, md)) continue;
      unsigned hot_bits = rule->hot ? tl_project_hot_at(a, fi, c->func, c->start, rule->hot, &chain, &nchain) : 0;
      if (rule->hot && !hot_bits) continue;
      /* Drop a match inside another match of the same rule, or of a rule that supersedes it. */
      bool dropped = false;
      for (size_t k = 0; k < f->cands.n && !dropped; k++) {
        if (k == ci) continue;
        const tl_candidate *o = &f->cands.v[k];
        const tl_rule *orule = rs->rules.v[o->rule];
        bool contains = o->start <= c->start && c->end <= o->end && (o->end - o->start) > (c->end - c->start);
        bool same = o->start == c->start && o->end == c->end;
        if (o->rule == c->rule && (contains || (same && k < ci))) {
          /* a project-scope rule reports one match; an outer match whose project predicates fail hides nothing */
          dropped = !rule->project_scope && (!o->deferred.n || tl_project_deferred_hold(a, fi, o, md));
        }
        else if (tl_supersedes(orule, rule) && (contains || same)) {
          /* only when the superseding finding is itself reported */
          tl_hot_step *oc = NULL;
          size_t on = 0;
          bool ohot = (!orule->needs_accel || !a->cpu_only) &&
                      (!orule->project_scope || (picks[o->rule] == fi + 1 && pick_cand[o->rule] == k)) &&
                      (!o->deferred.n || tl_project_deferred_hold(a, fi, o, md)) &&
                      (!orule->hot || tl_project_hot_at(a, fi, o->func, o->start, orule->hot, &oc, &on));
          for (size_t j = 0; j < on; j++) free(oc[j].what);
          free(oc);
          dropped = ohot;
        }
      }
      uint32_t first = tl_lines_line(&f->lines, c->stmt_start), last = tl_lines_line(&f->lines, c->stmt_end);
      uint32_t fline = tl_lines_line(&f->lines, c->start);
      if (fline < first) first = fline;
      if (fline > last) last = fline;
      if (!dropped && tl_suppress_match(&f->model.suppressions, rule->code, first, last)) {
        a->suppressed++;
        dropped = true;
      }
      if (dropped) {
        for (size_t j = 0; j < nchain; j++) free(chain[j].what);
        free(chain);
        continue;
      }
      tl_finding fd = {0};
      fd.rule = rule;
      fd.path = f->path;
      fd.file = fi;
      fd.start_byte = c->start;
      fd.end_byte = c->end;
      fd.line = tl_lines_line(&f->lines, c->start);
      fd.col = tl_lines_col(&f->lines, f->text, c->start);
      uint32_t rend = c->report_end ? c->report_end : c->end;
      fd.end_byte = rend;
      fd.end_line = tl_lines_line(&f->lines, rend);
      fd.end_col = tl_lines_col(&f->lines, f->text, rend);
      fd.severity = c->severity >= 0 ? (tl_severity)c->severity : rule->severity;
      if (hot_bits & TL_HOT_EVAL) fd.severity = TL_SEVERITY_INFO; /* paid per evaluation, not per training step */
      fd.message = tl_strdup(c->message);
      fd.hot = chain;
      fd.nhot = nchain;
      for (size_t k = 0; k < c->edits.n; k++) {
        tl_edit ed = {c->edits.v[k].start, c->edits.v[k].end, tl_strdup(c->edits.v[k].text)};
        tl_vec_push(&fd.fix, ed);
      }
      fd.fix_safety = fd.fix.n ? rule->fix_safety : TL_FIXSAFE_NONE;
      fd.scope = c->func > 0 ? f->model.funcs.v[c->func].display : f->model.module;
      fd.stmt_first_line = first;
      fd.stmt_last_line = last;
      tl_fingerprint(&fd, f);
      tl_vec_push(&a->findings, fd);
    }
  }
  free(picks);
  free(pick_cand);
  pcre2_match_data_free(md);
  if (a->findings.n) qsort(a->findings.v, a->findings.n, sizeof *a->findings.v, tl_finding_cmp);
}

void tl_analysis_run(tl_analysis *a) {
  tl_project_free(a);
  tl_findings_clear(a);
  tl_diags_free(&a->diags);
  a->suppressed = 0;
  size_t *todo = tl_calloc(a->files.n + 1, sizeof *todo), ntodo = 0;
  for (size_t i = 0; i < a->files.n; i++) {
    a->files.v[i].rerun = false;
    if (a->files.v[i].dirty) todo[ntodo++] = i;
  }
  unsigned nt = tl_pool_threads(a->opts.threads, ntodo);
  tl_worker *ws = tl_calloc(nt, sizeof *ws);
  for (unsigned i = 0; i < nt; i++) {
    tl_worker_init(&ws[i], a->rules);
  }
  tl_run_ctx ctx = {a, ws, todo};
  tl_pool_run(nt, ntodo, tl_file_phase1, &ctx);
  for (size_t i = 0; i < ntodo; i++) {
    a->partial_runs += a->files.v[todo[i]].partial;
    a->model_copied += a->files.v[todo[i]].model_copied;
  }
  free(todo);
  for (unsigned i = 0; i < nt; i++) {
    tl_worker_free(&ws[i]);
  }
  free(ws);
  for (size_t i = 0; i < a->files.n; i++) {
    const tl_diags *d = &a->files.v[i].diags;
    for (size_t j = 0; j < d->n; j++) {
      tl_diag x = d->v[j];
      x.path = tl_strdup(x.path);
      x.message = tl_strdup(x.message);
      tl_vec_push(&a->diags, x);
    }
    tl_suppressions *sp = &a->files.v[i].model.suppressions;
    for (size_t j = 0; j < sp->n; j++)
      for (size_t k = 0; k < sp->v[j].used.n; k++) sp->v[j].used.v[k] = false;
  }
  tl_project_analyze(a);
  tl_make_findings(a);
  for (size_t i = 0; i < a->files.n; i++) { /* made again when the file changes */
    free(a->files.v[i].code);
    a->files.v[i].code = NULL;
  }
}

size_t tl_analysis_finding_count(const tl_analysis *a) { return a->findings.n; }
size_t tl_analysis_suppressed_count(const tl_analysis *a) { return a->suppressed; }

tl_unused_suppression *tl_analysis_unused_suppressions(const tl_analysis *a, size_t *n) {
  TL_VEC(tl_unused_suppression) out = {0};
  const tl_ruleset *rs = a->rules;
  for (size_t fi = 0; fi < a->files.n; fi++) {
    const tl_file *f = &a->files.v[fi];
    for (size_t i = 0; i < f->model.suppressions.n; i++) {
      const tl_suppression *sp = &f->model.suppressions.v[i];
      if (sp->all) {
        if (!sp->used.v[0]) {
          tl_unused_suppression u = {f->path, sp->line, sp->col, NULL};
          tl_vec_push(&out, u);
        }
        continue;
      }
      for (size_t k = 0; k < sp->codes.n; k++) {
        if (sp->used.v[k]) continue;
        bool known = false; /* only codes of enabled rules: a disabled rule suppresses nothing by design */
        for (size_t r = 0; r < rs->rules.n && !known; r++)
          known = rs->rules.v[r]->enabled && !strncmp(rs->rules.v[r]->code, sp->codes.v[k], strlen(sp->codes.v[k]));
        if (!known) continue;
        tl_unused_suppression u = {f->path, sp->line, sp->col, sp->codes.v[k]};
        tl_vec_push(&out, u);
      }
    }
  }
  *n = out.n;
  return out.v;
}
const tl_finding *tl_analysis_finding(const tl_analysis *a, size_t i) { return i < a->findings.n ? &a->findings.v[i] : NULL; }
const tl_diags *tl_analysis_diags(const tl_analysis *a) { return &a->diags; }
size_t tl_analysis_file_count(const tl_analysis *a) { return a->files.n; }
const char *tl_analysis_file_path(const tl_analysis *a, size_t i) { return i < a->files.n ? a->files.v[i].path : NULL; }
const char *tl_analysis_file_text(const tl_analysis *a, size_t i, size_t *len) {
  if (i >= a->files.n || !a->files.v[i].text) return NULL;
  if (len) *len = a->files.v[i].len;
  return a->files.v[i].text;
}
