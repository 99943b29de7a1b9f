/* tl_incremental.c - phase 1 after an edit: rebuild the model and re-query only the changed
 * top-level statements.
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
#include "tl_incremental.h"
#include "tl_model_walk.h"

#include <string.h>

#include "tl_source.h"

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
         x->elem == y->elem && x->slot == y->slot && x->from_loop == y->from_loop && tl_pos_eq(g, x->byte, y->byte) &&
         tl_text_eq(g, xv, yv) && (xv.end == xv.start) == (yv.end == yv.start) &&
         (xv.end == xv.start || tl_pos_eq(g, xv.start, yv.start));
}

static bool tl_names_eq(const char *const *x, size_t nx, const char *const *y, size_t ny) {
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
        x->iterates_loader != y->iterates_loader || x->small != y->small || x->in_main != y->in_main ||
        x->work != y->work || !tl_pos_eq(g, x->end - 1, y->end - 1))
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
        x->guarded != y->guarded || x->stmt != y->stmt || x->work != y->work || !tl_pos_eq(g, x->byte, y->byte))
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
void tl_incremental_snapshot(tl_file *f) {
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
  if (ts_tree_cursor_goto_first_child(&cur)) do
      tl_vec_push(&kids, ts_tree_cursor_current_node(&cur));
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
    if (ts_node_end_byte(c) > lo || os->start != ts_node_start_byte(c) || os->end != ts_node_end_byte(c) || os->error ||
        ts_node_has_error(c))
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
    if (ts_node_start_byte(c) <= hi) {
      last = i;
      any = true;
    }
  }
  if (first == n) first = n - 1;
  if (!any) last = 0;
  /* one statement more on each side, comments skipped (#next-statement-match? skips them) */
  if (first > 0) do
      first--;
    while (first > 0 && tl_node_is(kids.v[first], "comment"));
  if (last + 1 < n) do
      last++;
    while (last + 1 < n && tl_node_is(kids.v[last], "comment"));
  uint32_t s = ts_node_start_byte(kids.v[first]), e = ts_node_end_byte(kids.v[last]);
  tl_vec_free(&kids);
  *rs = s < lo ? s : lo;
  *re = e > hi ? e : hi;
  if (*re > f->len) *re = (uint32_t)f->len;
  if (*rs > *re) *rs = *re;
  return true;
}

static void tl_cand_shift(tl_candidate *c, int64_t d) {
  c->start = (uint32_t)(c->start + d);
  c->end = (uint32_t)(c->end + d);
  if (c->report_end) c->report_end = (uint32_t)(c->report_end + d);
  c->stmt_start = (uint32_t)(c->stmt_start + d);
  c->stmt_end = (uint32_t)(c->stmt_end + d);
  if (c->vdep.how == TL_VDEP_CALL) c->vdep.pos = (uint32_t)(c->vdep.pos + d);
  for (size_t j = 0; j < c->edits.n; j++) {
    c->edits.v[j].start = (uint32_t)(c->edits.v[j].start + d);
    c->edits.v[j].end = (uint32_t)(c->edits.v[j].end + d);
  }
  for (size_t j = 0; j < c->deferred.n; j++) {
    c->deferred.v[j].start = (uint32_t)(c->deferred.v[j].start + d);
    c->deferred.v[j].end = (uint32_t)(c->deferred.v[j].end + d);
  }
}

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
    while (i < a->calls.n &&
           (tl_func_local(a, a->calls.v[i].func, g->rs, g->re_old) || tl_in_old(g, a->calls.v[i].byte)))
      i++;
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
    else tl_candidate_free(&nv[i]);
  }
  free(nv);
  for (size_t i = 0; i < p->ncands; i++) {
    tl_candidate *c = &p->cands[i];
    if (c->start < g->rs) continue;
    if (c->start >= g->re_old) {
      tl_cand_shift(c, g->delta);
      tl_vec_push(&f->cands, *c);
    } else {
      tl_candidate_free(c);
    }
  }
  p->ncands = 0;
}

/* tl_utf8_valid for a text that was valid before the edits in [edit_start, edit_end): only the
 * characters around the changed bytes are read. The unchanged text before them ends, and the one
 * after them starts, at a character boundary of the old text: the window starts at the character
 * holding the byte before the edits and ends before the first non-continuation byte after them. */
bool tl_utf8_valid_edited(const tl_file *f, size_t *bad) {
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

void tl_prev_take(tl_prev *prev, tl_file *f, bool keep_trees) {
  memset(prev, 0, sizeof *prev);
  if (!(keep_trees && f->tree && f->edited && f->reusable && f->mem && f->text)) return;
  prev->valid = true;
  prev->model = f->model;
  memset(&f->model, 0, sizeof f->model);
  prev->cands = f->cands.v;
  prev->ncands = f->cands.n;
  memset(&f->cands, 0, sizeof f->cands);
  prev->vals = f->vals.v;
  memset(&f->vals, 0, sizeof f->vals);
  prev->fmatch = f->fmatch;
  memset(&f->fmatch, 0, sizeof f->fmatch);
  prev->text = f->text;
  prev->lines = f->lines; /* valid for prev->text */
  memset(&f->lines, 0, sizeof f->lines);
  prev->len = (size_t)((int64_t)f->len - f->edit_delta);
  f->text = NULL;
}

void tl_prev_free(tl_prev *prev) {
  if (!prev->valid) return;
  tl_model_free(&prev->model); /* (its strings, when the new model took them over, are the new model's) */
  for (size_t i = 0; i < prev->ncands; i++) tl_candidate_free(&prev->cands[i]);
  free(prev->cands);
  free(prev->vals);
  tl_vec_free(&prev->fmatch);
  free(prev->text);
  tl_lines_free(&prev->lines);
  prev->valid = false;
}

bool tl_region_find(const tl_file *f, const tl_prev *prev, TSTree *tree, tl_region *g) {
  memset(g, 0, sizeof *g);
  if (!tree || !prev->valid || !tl_find_region(f, &prev->model, tree, &g->rs, &g->re_new)) return false;
  int64_t re_old = (int64_t)g->re_new - f->edit_delta;
  if (re_old < g->rs || re_old > (int64_t)prev->len) return false;
  g->re_old = (uint32_t)re_old;
  g->delta = f->edit_delta;
  g->old_text = prev->text;
  g->new_text = f->text;
  return true;
}

bool tl_region_holds(const tl_region *g, const tl_prev *prev, tl_file *f, tl_worker *w) {
  if (!tl_model_same_outside(g, &prev->model, prev->vals, &f->model, f->vals.v)) return false;
  /* #file-match? reads the whole text: every verdict the last run used must stand */
  for (size_t i = 0; i < prev->fmatch.n; i++) {
    tl_filematch fm = {prev->fmatch.v[i].pred, tl_match_code(w, f, prev->fmatch.v[i].pred->re)};
    tl_vec_push(&f->fmatch, fm);
    if (fm.result != prev->fmatch.v[i].result) return false;
  }
  /* A kept candidate's statement (its first and last lines are reported) must lie outside the
   * region: an ERROR node of a syntax error can hold a kept candidate and grow or shrink with the
   * edit. */
  for (size_t i = 0; i < prev->ncands; i++) {
    const tl_candidate *c = &prev->cands[i];
    if (c->start >= g->rs && c->start < g->re_old) continue; /* dropped: queried again */
    if (c->stmt_start < g->re_old && c->stmt_end >= g->rs) return false;
  }
  return true;
}

void tl_region_splice(tl_file *f, tl_prev *prev, const tl_region *g) {
  tl_splice_cands(f, prev, g);
  f->call_map = tl_map_calls(g, &prev->model, &f->model);
}

/* ---- the model's segments: what a rebuild copies instead of walking ---- */

tl_segment tl_segment_end(const tl_file_model *m, size_t i) {
  if (i + 1 < m->segs.n) return m->segs.v[i + 1];
  tl_segment e = {0,
                  0,
                  0,
                  (uint32_t)m->funcs.n,
                  (uint32_t)m->classes.n,
                  (uint32_t)m->loops.n,
                  (uint32_t)m->calls.n,
                  (uint32_t)m->bindings.n,
                  (uint32_t)m->guards.n,
                  (uint32_t)m->loader_names.n,
                  (uint32_t)m->collate_names.n,
                  (uint32_t)m->import_log.n,
                  (uint32_t)m->guard_log.n,
                  (uint32_t)m->suppressions.n,
                  (uint32_t)m->params.n,
                  (uint32_t)m->rets.n,
                  (uint32_t)m->flag_guards.n,
                  (uint32_t)m->off_names.n,
                  false};
  return e;
}

/* The node of `top`'s subtree with exactly this range and symbol (a value node of a binding), or a
 * null node: the smallest node spanning the range, or the nearest of its ancestors with the same
 * range and the symbol. */
static TSNode tl_incremental__find_node(TSNode top, uint32_t s, uint32_t e, TSSymbol sym) {
  TSNode n = ts_node_descendant_for_byte_range(top, s, e);
  while (!ts_node_is_null(n) && ts_node_start_byte(n) == s && ts_node_end_byte(n) == e) {
    if (ts_node_symbol(n) == sym) return n;
    if (ts_node_eq(n, top)) break;
    n = ts_node_parent(n);
  }
  return (TSNode){0};
}

void tl_segment_copy(tl_walk_ctx *c, const tl_seg_copy *k) {
  tl_file_model *m = c->m;
  const tl_file_model *o = k->old;
  const tl_segment *b = &k->b, *e = &k->e;
  int64_t dfunc = (int64_t)m->funcs.n - b->funcs, dcls = (int64_t)m->classes.n - b->classes,
          dloop = (int64_t)m->loops.n - b->loops, dparam = (int64_t)m->params.n - b->params;
#define TL_RF(x) ((x) > 0 ? (int32_t)((x) + dfunc) : (x))
#define TL_RC(x) ((x) >= 0 ? (int32_t)((x) + dcls) : (x))
#define TL_RL(x) ((x) >= 0 ? (int32_t)((x) + dloop) : (x))
#define TL_MV(x) ((uint32_t)((int64_t)(x) + k->d))
  /* the module's code may hold a comprehension of the copied statements (a flag that may say so
   * when none is left: tl_func.has_comp) */
  if (m->funcs.n && o->funcs.n && o->funcs.v[0].has_comp) m->funcs.v[0].has_comp = true;
  for (uint32_t i = b->funcs; i < e->funcs; i++) {
    tl_func f = o->funcs.v[i];
    f.cls = TL_RC(f.cls);
    f.outer = TL_RF(f.outer);
    f.start = TL_MV(f.start);
    f.end = TL_MV(f.end);
    f.line = (uint32_t)(f.line + k->dr);
    f.param_first = (uint32_t)(f.param_first + dparam);
    tl_vec_push(&m->funcs, f);
  }
  for (uint32_t i = b->params; i < e->params; i++) {
    tl_vec_push(&m->params, o->params.v[i]);
    tl_vec_push(&m->param_off, o->param_off.v[i]);
    tl_vec_push(&m->param_lit, o->param_lit.v[i]);
  }
  for (uint32_t i = b->flags; i < e->flags; i++) {
    tl_flag_guard g = o->flag_guards.v[i];
    g.start = TL_MV(g.start);
    g.end = TL_MV(g.end);
    g.func = TL_RF(g.func);
    tl_vec_push(&m->flag_guards, g);
  }
  for (uint32_t i = b->optnames; i < e->optnames; i++) tl_vec_push(&m->off_names, o->off_names.v[i]);
  for (uint32_t i = b->rets; i < e->rets; i++) {
    tl_return r = o->rets.v[i];
    r.func = TL_RF(r.func);
    r.start = TL_MV(r.start);
    r.end = TL_MV(r.end);
    tl_vec_push(&m->rets, r);
    tl_vec_push(&c->ret_nodes, (TSNode){0}); /* found in the new tree when summarised */
  }
  for (uint32_t i = b->loops; i < e->loops; i++) {
    tl_loop l = o->loops.v[i];
    l.func = TL_RF(l.func);
    l.parent = TL_RL(l.parent);
    l.start = TL_MV(l.start);
    l.end = TL_MV(l.end);
    l.line = (uint32_t)(l.line + k->dr);
    tl_vec_push(&m->loops, l);
    tl_vec_push(&m->loop_iters, o->loop_iters.v[i]);
  }
  for (uint32_t i = b->calls; i < e->calls; i++) {
    tl_call x = o->calls.v[i];
    x.byte = TL_MV(x.byte);
    x.line = (uint32_t)(x.line + k->dr);
    x.end = TL_MV(x.end);
    x.func = TL_RF(x.func);
    x.loop = TL_RL(x.loop);
    tl_vec_push(&m->calls, x);
    tl_vec_push(&c->call_nodes, (TSNode){0});
    tl_vec_push(&c->call_old, i + 1);
  }
  for (uint32_t i = b->bindings; i < e->bindings; i++) {
    tl_binding x = o->bindings.v[i];
    x.byte = TL_MV(x.byte);
    x.func = TL_RF(x.func);
    x.from_loop = TL_RL(x.from_loop);
    if (x.vsym) {
      x.vstart = TL_MV(x.vstart);
      x.vend = TL_MV(x.vend);
    }
    x.value_ = (TSNode){0};
    x.lazy = x.vsym != 0; /* found in the new tree when read (tl_binding_find_value) */
    tl_vec_push(&m->bindings, x);
  }
  for (uint32_t i = b->classes; i < e->classes; i++) {
    const tl_class *y = &o->classes.v[i];
    tl_class x = {y->name, y->qual, {0}, {0}, (uint32_t)(y->line + k->dr), y->decorated};
    for (size_t j = 0; j < y->bases.n; j++) tl_vec_push(&x.bases, y->bases.v[j]);
    for (size_t j = 0; j < y->attrs.n; j++) {
      tl_binding t = y->attrs.v[j];
      t.byte = TL_MV(t.byte);
      t.func = TL_RF(t.func);
      t.from_loop = TL_RL(t.from_loop);
      if (t.vsym) {
        t.vstart = TL_MV(t.vstart);
        t.vend = TL_MV(t.vend);
      }
      t.value_ = (TSNode){0};
      t.lazy = t.vsym != 0;
      tl_vec_push(&x.attrs, t);
    }
    tl_vec_push(&m->classes, x);
  }
  for (uint32_t i = b->guards; i < e->guards; i++) {
    tl_range r = o->guards.v[i];
    r.start = TL_MV(r.start);
    r.end = TL_MV(r.end);
    /* a scope is a loop or function start (+1 for a function), the module's included */
    if (r.scope) r.scope = r.scope == k->old_mod_start + 1 ? k->new_mod_start + 1 : TL_MV(r.scope);
    tl_vec_push(&m->guards, r);
  }
  for (uint32_t i = b->loaders; i < e->loaders; i++) tl_vec_push(&m->loader_names, o->loader_names.v[i]);
  for (uint32_t i = b->collates; i < e->collates; i++) tl_vec_push(&m->collate_names, o->collate_names.v[i]);
  for (uint32_t i = b->imports; i < e->imports; i++)
    tl_walk_set_import(m, o->import_log.v[i].alias, o->import_log.v[i].qual);
  for (uint32_t i = b->supps; i < e->supps; i++) { /* parsed again: `used` starts false */
    const tl_suppression *sp = &o->suppressions.v[i];
    uint32_t st = TL_MV(sp->start);
    tl_suppress_parse(&m->suppressions, c->src + st, sp->end - sp->start, st, (uint32_t)(sp->line + k->dr), sp->col);
  }
  for (uint32_t i = b->gvars; i < e->gvars; i++) {
    tl_vec_push(&c->guard_vars, o->guard_log.v[i]);
    tl_vec_push(&m->guard_log, o->guard_log.v[i]);
  }
#undef TL_RF
#undef TL_RC
#undef TL_RL
#undef TL_MV
}

/* The value node of a binding copied from the last run's model, in the tree the model was rebuilt
 * on: in the top-level statement holding its range, the node with that range and symbol. Copied
 * statements parsed the same as before (tl_model_walk copies only those), so it is there. */
TSNode tl_model_find_node(const tl_file_model *m, uint32_t start, uint32_t end, TSSymbol sym) {
  if (ts_node_is_null(m->lazy_root) || !sym) return (TSNode){0};
  TSTreeCursor cur = ts_tree_cursor_new(m->lazy_root);
  TSNode top = ts_tree_cursor_goto_first_child_for_byte(&cur, start) >= 0 ? ts_tree_cursor_current_node(&cur)
                                                                          : (TSNode){0};
  ts_tree_cursor_delete(&cur);
  return ts_node_is_null(top) ? top : tl_incremental__find_node(top, start, end, sym);
}

TSNode tl_binding_find_value(const tl_file_model *m, const tl_binding *b) {
  return tl_model_find_node(m, b->vstart, b->vend, b->vsym);
}

bool tl_segment_imports_same(const tl_file_model *m, const tl_file_model *old, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(m->import_log.v[i].alias, old->import_log.v[i].alias) ||
        strcmp(m->import_log.v[i].qual, old->import_log.v[i].qual))
      return false;
  return true;
}

bool tl_segment_state_same(const tl_file_model *m, const tl_file_model *old, const tl_segment *oj) {
  if (m->import_log.n != oj->imports || m->guard_log.n != oj->gvars) return false;
  if (!tl_segment_imports_same(m, old, m->import_log.n)) return false;
  for (size_t i = 0; i < m->guard_log.n; i++)
    if (strcmp(m->guard_log.v[i], old->guard_log.v[i])) return false;
  return true;
}

void tl_segment_open(tl_file_model *m, TSNode ch) {
  tl_segment s = {
      ts_node_start_byte(ch),     ts_node_end_byte(ch),        ts_node_start_point(ch).row,  (uint32_t)m->funcs.n,
      (uint32_t)m->classes.n,     (uint32_t)m->loops.n,        (uint32_t)m->calls.n,         (uint32_t)m->bindings.n,
      (uint32_t)m->guards.n,      (uint32_t)m->loader_names.n, (uint32_t)m->collate_names.n, (uint32_t)m->import_log.n,
      (uint32_t)m->guard_log.n,   (uint32_t)m->suppressions.n, (uint32_t)m->params.n,        (uint32_t)m->rets.n,
      (uint32_t)m->flag_guards.n, (uint32_t)m->off_names.n,    ts_node_has_error(ch)};
  tl_vec_push(&m->segs, s);
}
