/* tl_project.c - the project pass: module and class index across files, call resolution,
 * step loops, and which functions run per step or per sample (with the chain that says why). */
#include "tl_engine.h"

#include <string.h>

#include "tl_vocab.h"


typedef TL_VEC(tl_ref) tl_refs;

typedef struct {
  tl_project *pj;
  tl_map modules;      /* full module name -> file index + 1 */
  tl_map suffixes;     /* module name suffix -> file index + 1, or -1 when ambiguous */
  tl_map *locals;      /* per file: "Class", "Class.method", "func" -> encoded entity */
  int8_t **class_kind; /* per file, per class: bit 1 module, bit 2 dataset, 0x40 computed, 0x20 in progress */
  tl_target **targets; /* per file, per call */
  tl_refs **overrides; /* per file, per function: the methods of project subclasses that override it */
} tl_proj;

/* Encoded local entities: functions as idx + 1, classes as -(idx + 1). */

static void tl_index_files(tl_proj *p) {
  tl_project *pj = p->pj;
  p->locals = tl_calloc(pj->nfiles ? pj->nfiles : 1, sizeof *p->locals);
  for (size_t i = 0; i < pj->nfiles; i++) {
    tl_file *f = &pj->files[i];
    if (!f->ok) continue;
    const char *mod = f->model.module;
    tl_map_set(&p->modules, mod, (intptr_t)i + 1);
    /* every suffix: a.b.c, b.c, c */
    for (const char *s = mod; s;) {
      intptr_t old;
      if (tl_map_get(&p->suffixes, s, &old) && old != (intptr_t)i + 1) tl_map_set(&p->suffixes, s, -1);
      else tl_map_set(&p->suffixes, s, (intptr_t)i + 1);
      s = strchr(s, '.');
      if (s) s++;
    }
    size_t ml = strlen(mod);
    for (size_t k = 0; k < f->model.classes.n; k++) {
      const char *q = f->model.classes.v[k].qual;
      const char *key = (ml && !strncmp(q, mod, ml) && q[ml] == '.') ? q + ml + 1 : q;
      tl_map_set(&p->locals[i], key, -(intptr_t)k - 1);
    }
    for (size_t k = 1; k < f->model.funcs.n; k++) {
      const char *q = f->model.funcs.v[k].qual;
      const char *key = (ml && !strncmp(q, mod, ml) && q[ml] == '.') ? q + ml + 1 : q;
      tl_map_set(&p->locals[i], key, (intptr_t)k + 1);
    }
  }
}

static int32_t tl_find_module(const tl_proj *p, const char *mod) {
  intptr_t v;
  if (tl_map_get(&p->modules, mod, &v)) return (int32_t)v - 1;
  if (tl_map_get(&p->suffixes, mod, &v) && v > 0) return (int32_t)v - 1;
  return -1;
}

/* Looks a qualified name up in the project: "pkg.model.Net.forward" -> (file, entity). */
static bool tl_lookup_qual(const tl_proj *p, const char *qual, int32_t *file, intptr_t *ent) {
  size_t n = strlen(qual);
  for (size_t i = n; i > 0; i--) {
    if (qual[i - 1] != '.') continue;
    char *mod = tl_strndup(qual, i - 1);
    int32_t fi = tl_find_module(p, mod);
    free(mod);
    if (fi >= 0 && tl_map_get(&p->locals[fi], qual + i, ent)) {
      *file = fi;
      return true;
    }
  }
  return false;
}

/* A class named by `name` as seen from file fi ("Net", "models.Net", "nn.Module"). */
static bool tl_class_ref(const tl_proj *p, int32_t fi, const char *name, tl_ref *out) {
  intptr_t ent;
  if (!strchr(name, '(') && tl_map_get(&p->locals[fi], name, &ent) && ent < 0) {
    *out = (tl_ref){fi, (int32_t)(-ent - 1)};
    return true;
  }
  char *q = tl_model_resolve(&p->pj->files[fi].model, name);
  int32_t f2;
  bool ok = tl_lookup_qual(p, q, &f2, &ent) && ent < 0;
  if (ok) *out = (tl_ref){f2, (int32_t)(-ent - 1)};
  free(q);
  return ok;
}

static bool tl_base_is_module(const char *b) {
  size_t n = strlen(b);
  if (tl_str_in(b, n, tl_vocab_module_bases)) return true;
  return n > 16 && !strcmp(b + n - 16, ".LightningModule");
}

static bool tl_base_is_dataset(const char *b) {
  size_t n = strlen(b);
  if (!strncmp(b, "torch.", 6) || !strncmp(b, "paddle.", 7) || !strchr(b, '.'))
    return (n >= 7 && !strcmp(b + n - 7, "Dataset"));
  return n >= 8 && !strcmp(b + n - 8, ".Dataset");
}

enum { TL_CK_MODULE = 1, TL_CK_DATASET = 2, TL_CK_BUSY = 0x20, TL_CK_DONE = 0x40 };

static int tl_class_kind(tl_proj *p, tl_ref c, int depth) {
  int8_t *k = &p->class_kind[c.file][c.idx];
  if (*k & TL_CK_DONE) return *k & 3;
  if ((*k & TL_CK_BUSY) || depth > 32) return 0;
  *k |= TL_CK_BUSY;
  int out = 0;
  const tl_class *cl = &p->pj->files[c.file].model.classes.v[c.idx];
  for (size_t i = 0; i < cl->bases.n; i++) {
    const char *b = cl->bases.v[i];
    tl_ref base;
    if (tl_class_ref(p, c.file, b, &base) && !(base.file == c.file && base.idx == c.idx)) {
      out |= tl_class_kind(p, base, depth + 1);
      continue;
    }
    if (tl_base_is_module(b)) out |= TL_CK_MODULE;
    if (tl_base_is_dataset(b)) out |= TL_CK_DATASET;
  }
  *k = (int8_t)(TL_CK_DONE | out);
  return out;
}

/* The method `name` of class c or its project bases. */
static bool tl_method(tl_proj *p, tl_ref c, const char *name, tl_ref *out, int depth) {
  if (depth > 16) return false;
  const tl_file *f = &p->pj->files[c.file];
  const tl_class *cl = &f->model.classes.v[c.idx];
  const char *mod = f->model.module;
  size_t ml = strlen(mod);
  const char *ckey = (ml && !strncmp(cl->qual, mod, ml) && cl->qual[ml] == '.') ? cl->qual + ml + 1 : cl->qual;
  char *key = tl_concat(ckey, ".", name);
  intptr_t ent;
  bool ok = tl_map_get(&p->locals[c.file], key, &ent) && ent > 0;
  free(key);
  if (ok) {
    *out = (tl_ref){c.file, (int32_t)ent - 1};
    return true;
  }
  for (size_t i = 0; i < cl->bases.n; i++) {
    tl_ref base;
    if (tl_class_ref(p, c.file, cl->bases.v[i], &base) && !(base.file == c.file && base.idx == c.idx) &&
        tl_method(p, base, name, out, depth + 1))
      return true;
  }
  return false;
}

/* The class of the value bound to `name` before `byte` in function `func` of file fi, if a project class. */
static bool tl_instance_class(tl_proj *p, int32_t fi, int32_t func, const char *name, uint32_t byte, tl_ref *out) {
  const tl_file_model *m = &p->pj->files[fi].model;
  if (func < 0 || (size_t)func >= m->funcs.n) return false;
  const tl_binding *best = tl_model_binding(m, name, func, byte); /* the function's bindings only */
  if (best) return best->ctor && tl_class_ref(p, fi, best->ctor, out);
  /* self.attr: from the class's attribute table */
  int32_t cls = m->funcs.v[func].cls;
  if (cls >= 0 && !strncmp(name, "self.", 5) && !strchr(name + 5, '.')) {
    const tl_class *k = &m->classes.v[cls];
    for (size_t i = 0; i < k->attrs.n; i++)
      if (!strcmp(k->attrs.v[i].name, name + 5) && k->attrs.v[i].ctor && tl_class_ref(p, fi, k->attrs.v[i].ctor, out))
        return true;
  }
  return false;
}

static tl_target tl_resolve(tl_proj *p, int32_t fi, const tl_call *c) {
  tl_target t = {{-1, -1}, false, false};
  const tl_file_model *m = &p->pj->files[fi].model;
  const char *callee = c->callee;
  int32_t cls = m->funcs.v[c->func].cls;
  tl_ref inst;
  if (!strncmp(callee, "super().", 8) && cls >= 0 && !strchr(callee + 8, '.')) {
    const tl_class *k = &m->classes.v[cls];
    for (size_t i = 0; i < k->bases.n && t.tgt.file < 0; i++) {
      tl_ref base;
      if (tl_class_ref(p, fi, k->bases.v[i], &base)) tl_method(p, base, callee + 8, &t.tgt, 0);
    }
    return t;
  }
  if (strchr(callee, '(')) return t;
  const char *dot = strrchr(callee, '.');
  if (!strcmp(callee, "self") && cls >= 0) {
    if (tl_method(p, (tl_ref){fi, cls}, "forward", &t.tgt, 0)) t.instance = true;
    return t;
  }
  /* Calling an object: an instance of a project class runs its forward (Module) or __call__. */
  if (tl_instance_class(p, fi, c->func, callee, c->byte, &inst)) {
    if (tl_class_kind(p, inst, 0) & TL_CK_MODULE) {
      if (tl_method(p, inst, "forward", &t.tgt, 0)) t.instance = true;
    } else {
      tl_method(p, inst, "__call__", &t.tgt, 0);
    }
    return t;
  }
  if (dot) {
    char *recv = tl_strndup(callee, (size_t)(dot - callee));
    const char *meth = dot + 1;
    if (!strcmp(recv, "self") && cls >= 0) {
      tl_method(p, (tl_ref){fi, cls}, meth, &t.tgt, 0);
      t.virt = true;
    } else if (tl_instance_class(p, fi, c->func, recv, c->byte, &inst)) {
      tl_method(p, inst, meth, &t.tgt, 0);
    } else {
      tl_ref k;
      if (tl_class_ref(p, fi, recv, &k)) {
        tl_method(p, k, meth, &t.tgt, 0); /* Class.method(...) */
      } else {
        char *q = tl_model_resolve(m, callee);
        int32_t f2;
        intptr_t ent;
        if (tl_lookup_qual(p, q, &f2, &ent) && ent > 0) t.tgt = (tl_ref){f2, (int32_t)ent - 1};
        free(q);
      }
    }
    free(recv);
    return t;
  }
  intptr_t ent;
  if (tl_map_get(&p->locals[fi], callee, &ent) && ent > 0 && m->funcs.v[ent - 1].cls < 0) {
    t.tgt = (tl_ref){fi, (int32_t)ent - 1};
    return t;
  }
  char *q = tl_model_resolve(m, callee);
  int32_t f2;
  if (strcmp(q, callee) && tl_lookup_qual(p, q, &f2, &ent) && ent > 0) t.tgt = (tl_ref){f2, (int32_t)ent - 1};
  free(q);
  return t;
}

/* Overrides: for each method M of a project class D, every ancestor class's method that a call
 * `self.<name>()` in that ancestor resolves to gets M as an override (virtual dispatch: the step
 * loop of a base class's train() runs the subclass's run_step()). */
static void tl_add_overrides(tl_proj *p, tl_ref cls, tl_ref meth, const char *name, int depth) {
  if (depth > 16) return;
  const tl_class *cl = &p->pj->files[cls.file].model.classes.v[cls.idx];
  for (size_t i = 0; i < cl->bases.n; i++) {
    tl_ref base, r;
    if (!tl_class_ref(p, cls.file, cl->bases.v[i], &base) || (base.file == cls.file && base.idx == cls.idx)) continue;
    if (tl_method(p, base, name, &r, 0) && !(r.file == meth.file && r.idx == meth.idx)) {
      tl_refs *o = &p->overrides[r.file][r.idx];
      bool have = false;
      for (size_t k = 0; k < o->n && !have; k++) have = o->v[k].file == meth.file && o->v[k].idx == meth.idx;
      if (!have) tl_vec_push(o, meth);
    }
    tl_add_overrides(p, base, meth, name, depth + 1);
  }
}

static void tl_index_overrides(tl_proj *p) {
  size_t nf = p->pj->nfiles;
  p->overrides = tl_calloc(nf ? nf : 1, sizeof *p->overrides);
  for (size_t i = 0; i < nf; i++) p->overrides[i] = tl_calloc(p->pj->files[i].model.funcs.n + 1, sizeof **p->overrides);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &p->pj->files[i].model;
    for (size_t f = 0; f < m->funcs.n; f++)
      if (m->funcs.v[f].cls >= 0 && m->funcs.v[f].outer >= 0 && m->funcs.v[m->funcs.v[f].outer].cls < 0 &&
          strncmp(m->funcs.v[f].name, "__", 2))
        tl_add_overrides(p, (tl_ref){(int32_t)i, m->funcs.v[f].cls}, (tl_ref){(int32_t)i, (int32_t)f}, m->funcs.v[f].name, 0);
  }
}

/* The functions call c of file fi may run: its target, and for `self.m()` the overrides of the
 * target in project subclasses. Returns how many (at most max) in out. */
static size_t tl_call_targets(const tl_proj *p, int32_t fi, size_t c, tl_ref *out, size_t max) {
  const tl_target *t = &p->targets[fi][c];
  if (t->tgt.file < 0 || !max) return 0;
  size_t n = 0;
  out[n++] = t->tgt;
  if (t->virt) {
    const tl_refs *o = &p->overrides[t->tgt.file][t->tgt.idx];
    for (size_t k = 0; k < o->n && n < max; k++) out[n++] = o->v[k];
  }
  return n;
}
#define TL_MAX_TARGETS 16

/* An evaluation loop: a step loop over a DataLoader that runs no backward pass and no optimizer
 * step anywhere in it (nor in what it calls). Its per-batch costs are real but paid once per
 * evaluation, not once per training step. */
static bool tl_eval_loop(const tl_project *pj, size_t fi, int32_t l) {
  const tl_file_model *m = &pj->files[fi].model;
  if (l < 0 || (size_t)l >= m->loops.n || fi >= pj->nwork || !m->loops.v[l].iterates_loader) return false;
  return !(pj->loop_work[fi][l] & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP));
}

/* What each loop does anywhere in it, guarded or not, directly or through the project's functions
 * it calls (TL_WORK_*): a training loop runs a backward pass and an optimizer step. */
static void tl_project_loop_work(tl_proj *p) {
  tl_project *pj = p->pj;
  size_t nf = pj->nfiles;
  unsigned **fw = tl_calloc(nf ? nf : 1, sizeof *fw);
  pj->loop_work = tl_calloc(nf ? nf : 1, sizeof *pj->loop_work);
  pj->nwork = nf;
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    fw[i] = tl_calloc(m->funcs.n + 1, sizeof **fw);
    for (size_t c = 0; c < m->calls.n; c++)
      fw[i][m->calls.v[c].func] |= m->calls.v[c].work | (p->targets[i][c].instance ? TL_WORK_MODEL : 0);
  }
  for (int iter = 0, changed = 1; changed && iter < 64; iter++) {
    changed = 0;
    for (size_t i = 0; i < nf; i++) {
      const tl_file_model *m = &pj->files[i].model;
      for (size_t c = 0; c < m->calls.n; c++) {
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_call_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
        unsigned *w = &fw[i][m->calls.v[c].func];
        for (size_t k = 0; k < nt; k++)
          if ((*w | fw[ts[k].file][ts[k].idx]) != *w) {
            *w |= fw[ts[k].file][ts[k].idx];
            changed = 1;
          }
      }
    }
  }
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    unsigned *lw = tl_calloc(m->loops.n + 1, sizeof *lw);
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_call_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
      unsigned w = cl->work | (p->targets[i][c].instance ? TL_WORK_MODEL : 0);
      for (size_t k = 0; k < nt; k++) w |= fw[ts[k].file][ts[k].idx];
      for (int32_t l = cl->loop; l >= 0; l = m->loops.v[l].parent)
        if (m->loops.v[l].func == cl->func) lw[l] |= w;
    }
    pj->loop_work[i] = lw;
  }
  for (size_t i = 0; i < nf; i++) free(fw[i]);
  free(fw);
}

bool tl_project_deferred_hold(tl_analysis *a, size_t fi, const tl_candidate *c, pcre2_match_data *md) {
  for (size_t k = 0; k < c->deferred.n; k++) {
    const tl_deferred *d = &c->deferred.v[k];
    bool r = d->pred->def->project(a, fi, d->pred, d->start, d->end, md);
    if (d->pred->negated) r = !r;
    if (!r) return false;
  }
  return true;
}

static bool tl_guarded_after(const tl_file_model *m, uint32_t byte, uint32_t from) {
  for (size_t i = 0; i < m->guards.n; i++) {
    const tl_range *g = &m->guards.v[i];
    if (g->start >= from && from >= g->scope && g->start <= byte && byte < g->end) return true;
  }
  return false;
}

typedef struct {
  int32_t file, func;
  int kind;
} tl_qitem;

typedef TL_VEC(tl_qitem) tl_queue;
typedef TL_VEC(tl_hot_step) tl_chain;

static void tl_mark(tl_project *pj, tl_queue *q, tl_ref t, int kind, tl_hot_reason r) {
  tl_func_state *st = &pj->fstate[t.file][t.idx];
  if (st->hot & (1u << kind)) { free(r.why); return; }
  st->hot |= 1u << kind;
  st->reason[kind] = r;
  tl_qitem it = {t.file, t.idx, kind};
  tl_vec_push(q, it);
}

void tl_project_analyze(tl_project *pj, tl_file *files, size_t nfiles, const tl_strlist *hot_functions) {
  memset(pj, 0, sizeof *pj);
  pj->files = files;
  pj->nfiles = nfiles;
  tl_proj p = {0};
  p.pj = pj;
  size_t nf = nfiles;
  pj->fstate = tl_calloc(nf ? nf : 1, sizeof *pj->fstate);
  pj->step_loops = tl_calloc(nf ? nf : 1, sizeof *pj->step_loops);
  pj->nfuncs = tl_calloc(nf ? nf : 1, sizeof *pj->nfuncs);
  tl_index_files(&p);
  p.class_kind = tl_calloc(nf ? nf : 1, sizeof *p.class_kind);
  p.targets = tl_calloc(nf ? nf : 1, sizeof *p.targets);
  for (size_t i = 0; i < nf; i++) {
    tl_file_model *m = &pj->files[i].model;
    p.class_kind[i] = tl_calloc(m->classes.n + 1, 1);
    pj->fstate[i] = tl_calloc(m->funcs.n + 1, sizeof **pj->fstate);
    pj->nfuncs[i] = m->funcs.n;
    pj->step_loops[i] = tl_calloc(m->loops.n + 1, sizeof **pj->step_loops);
  }
  /* The calls' targets. Those of the last run stand when no file was added, removed or analysed
   * again in full since: every file is either unchanged or was re-queried only over its changed
   * statements (tl_file_phase1: its model is the same outside them). Then only the calls that
   * file's phase 1 did not map to an old call (those of functions inside the changed region, and
   * those inside it) are resolved again. */
  bool keep = true;
  for (size_t i = 0; i < nf && keep; i++) {
    const tl_file *f = &pj->files[i];
    keep = f->targets && (!f->rerun ? f->ntargets == f->model.calls.n : f->partial && f->call_map);
  }
  for (size_t i = 0; i < nf; i++) {
    tl_file *f = &pj->files[i];
    const tl_file_model *m = &f->model;
    p.targets[i] = tl_calloc(m->calls.n + 1, sizeof(tl_target));
    for (size_t c = 0; c < m->calls.n; c++) {
      uint32_t o = !keep ? UINT32_MAX : f->rerun ? f->call_map[c] : (uint32_t)c;
      if (o != UINT32_MAX && o < f->ntargets) {
        p.targets[i][c] = f->targets[o];
        pj->targets_kept++;
      } else {
        p.targets[i][c] = tl_resolve(&p, (int32_t)i, &m->calls.v[c]);
      }
    }
  }
  tl_index_overrides(&p);
  /* Which functions do per-step work each time they are called (fixpoint over the call graph).
   * A call of a project class constructs an object (whatever its name); a function that runs a
   * whole training (it has a loop over a DataLoader) is not per-step work for its callers. */
  bool **whole = tl_calloc(nf ? nf : 1, sizeof *whole);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    whole[i] = tl_calloc(m->funcs.n + 1, sizeof **whole);
    for (size_t l = 0; l < m->loops.n; l++)
      if (m->loops.v[l].iterates_loader && m->loops.v[l].func > 0) whole[i][m->loops.v[l].func] = true;
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      tl_ref k;
      bool ctor = cl->work == TL_WORK_MODEL && !p.targets[i][c].instance && tl_class_ref(&p, (int32_t)i, cl->callee, &k);
      if (cl->top && !cl->guarded && ((cl->work && !ctor) || p.targets[i][c].instance))
        pj->fstate[i][cl->func].train_top = true;
    }
  }
  for (int iter = 0, changed = 1; changed && iter < 64; iter++) {
    changed = 0;
    for (size_t i = 0; i < nf; i++) {
      const tl_file_model *m = &pj->files[i].model;
      for (size_t c = 0; c < m->calls.n; c++) {
        const tl_call *cl = &m->calls.v[c];
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_call_targets(&p, (int32_t)i, c, ts, TL_MAX_TARGETS);
        if (!cl->top || cl->guarded || !nt || pj->fstate[i][cl->func].train_top) continue;
        for (size_t k = 0; k < nt; k++)
          if (pj->fstate[ts[k].file][ts[k].idx].train_top && !whole[ts[k].file][ts[k].idx]) {
            pj->fstate[i][cl->func].train_top = true;
            changed = 1;
            break;
          }
      }
    }
  }
  /* Step loops. */
  for (size_t i = 0; i < nf; i++) {
    tl_file_model *m = &pj->files[i].model;
    for (size_t l = 0; l < m->loops.n; l++) pj->step_loops[i][l] = m->loops.v[l].iterates_loader || m->loops.v[l].work;
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      if (cl->loop < 0 || cl->guarded) continue;
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_call_targets(&p, (int32_t)i, c, ts, TL_MAX_TARGETS);
      bool work = p.targets[i][c].instance;
      for (size_t k = 0; k < nt && !work; k++) work = pj->fstate[ts[k].file][ts[k].idx].train_top && !whole[ts[k].file][ts[k].idx];
      if (work) pj->step_loops[i][cl->loop] = true;
    }
  }
  tl_project_loop_work(&p);
  for (size_t i = 0; i < nf; i++) free(whole[i]);
  free(whole);
  /* A program (an entry point and a step loop of its own) that never names an accelerator runs on
   * the CPU: nothing in it synchronises with a device. Without an entry point or a step loop the
   * project is a library or a fragment, placed on a device by code that is not here. */
  bool accel = false, main_seen = false, step_seen = false;
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    accel = accel || m->uses_accel;
    main_seen = main_seen || m->has_main;
    for (size_t l = 0; l < m->loops.n && !step_seen; l++) step_seen = pj->step_loops[i][l];
  }
  pj->cpu_only = !accel && main_seen && step_seen;
  /* Roots, then the call graph breadth first. */
  tl_queue q = {0};
  for (size_t i = 0; i < nf; i++) {
    tl_file *f = &pj->files[i];
    tl_file_model *m = &f->model;
    for (size_t fn = 1; fn < m->funcs.n; fn++) {
      const tl_func *fu = &m->funcs.v[fn];
      bool collate = fu->is_collate;
      for (size_t k = 0; k < m->collate_names.n && !collate; k++) {
        const char *cn = m->collate_names.v[k];
        const char *last = strrchr(cn, '.');
        collate = !strcmp(last ? last + 1 : cn, fu->name);
      }
      tl_hot_reason r = {-1, -1, fu->line, fu->col, 0, NULL};
      if (collate) {
        r.why = tl_printf("`%s` runs once per batch in the loader (collate_fn)", fu->display);
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 1, r);
      }
      for (size_t h = 0; hot_functions && h < hot_functions->n; h++) {
        const char *hf = hot_functions->v[h];
        if (strcmp(hf, fu->name) && strcmp(hf, fu->display) && strcmp(hf, fu->qual)) continue;
        tl_hot_reason hr = {-1, -1, fu->line, fu->col, 0, tl_printf("`%s` is configured as per-step code (hot-functions)", fu->display)};
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 0, hr);
        break;
      }
      if (fu->cls < 0) continue;
      int kind = tl_class_kind(&p, (tl_ref){(int32_t)i, fu->cls}, 0);
      const char *n = fu->name;
      if ((kind & TL_CK_MODULE) && (!strcmp(n, "forward") || !strcmp(n, "training_step") ||
                                    !strcmp(n, "validation_step") || !strcmp(n, "test_step") ||
                                    !strcmp(n, "predict_step"))) {
        r.why = !strcmp(n, "forward") ? tl_printf("`%s` runs every step (forward of a Module/Layer subclass)", fu->display)
                                      : tl_printf("`%s` runs every step (Lightning step hook)", fu->display);
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 0, r);
      } else if ((kind & TL_CK_DATASET) && (!strcmp(n, "__getitem__") || !strcmp(n, "__getitems__") ||
                                            !strcmp(n, "__iter__") || !strcmp(n, "__next__"))) {
        r.why = tl_printf("`%s` runs once per sample (Dataset)", fu->display);
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 1, r);
      }
    }
  }
  /* Calls in step loops: training loops first, so that a function called from a training loop and
   * from an evaluation loop keeps the training loop's chain (the first chain wins). */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < nf; i++) {
      const tl_file_model *m = &pj->files[i].model;
      for (size_t c = 0; c < m->calls.n; c++) {
        const tl_call *cl = &m->calls.v[c];
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_call_targets(&p, (int32_t)i, c, ts, TL_MAX_TARGETS);
        if (!nt) continue;
        /* the outermost step loop containing the call, unguarded from it */
        for (int32_t l = cl->loop; l >= 0; l = m->loops.v[l].parent) {
          const tl_loop *lp = &m->loops.v[l];
          if (lp->func != cl->func || !pj->step_loops[i][l] || tl_guarded_after(m, cl->byte, lp->start)) continue;
          if (tl_eval_loop(pj, i, l) == (pass == 0)) break;
          for (size_t k = 0; k < nt; k++) {
            tl_hot_reason r = {(int32_t)i, -1, lp->line, lp->col, 2, NULL};
            tl_mark(pj, &q, ts[k], 0, r);
          }
          break;
        }
      }
    }
  for (size_t qi = 0; qi < q.n; qi++) {
    tl_qitem it = q.v[qi];
    const tl_file_model *m = &pj->files[it.file].model;
    const tl_func *fu = &m->funcs.v[it.func];
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      if (cl->func != it.func || tl_guarded_after(m, cl->byte, fu->start)) continue;
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_call_targets(&p, it.file, c, ts, TL_MAX_TARGETS);
      for (size_t k = 0; k < nt; k++) {
        tl_hot_reason r = {it.file, it.func, cl->line, cl->col, 1, NULL};
        tl_mark(pj, &q, ts[k], it.kind, r);
      }
    }
  }
  tl_vec_free(&q);
  for (size_t i = 0; i < nf; i++) {
    free(p.class_kind[i]);
    tl_file *fi = &pj->files[i]; /* kept for the next run */
    free(fi->targets);
    fi->targets = p.targets[i];
    fi->ntargets = fi->model.calls.n;
    for (size_t f = 0; f < pj->files[i].model.funcs.n; f++) tl_vec_free(&p.overrides[i][f]);
    free(p.overrides[i]);
    tl_map_free(&p.locals[i]);
  }
  free(p.class_kind);
  free(p.targets);
  free(p.overrides);
  free(p.locals);
  tl_map_free(&p.modules);
  tl_map_free(&p.suffixes);
}

static void tl_chain_add(tl_chain *v, const char *path, uint32_t line, uint32_t col, char *what) {
  tl_hot_step s = {path, line, col, what};
  tl_vec_push(v, s);
}

static int32_t tl_loop_at_pos(const tl_file_model *m, uint32_t line, uint32_t col) {
  for (size_t l = 0; l < m->loops.n; l++)
    if (m->loops.v[l].line == line && m->loops.v[l].col == col) return (int32_t)l;
  return -1;
}

unsigned tl_project_hot_at(const tl_project *pj, size_t fi, int32_t func, uint32_t byte, unsigned kinds,
                           tl_hot_step **chain, size_t *nchain) {
  *chain = NULL;
  *nchain = 0;
  if (fi >= pj->nfiles || !pj->fstate) return 0;
  const tl_file *f = &pj->files[fi];
  const tl_file_model *m = &f->model;
  tl_chain v = {0};
  if (kinds & TL_HOT_STEP) {
    int32_t l = tl_model_loop_at(m, byte), best = -1;
    for (; l >= 0; l = m->loops.v[l].parent)
      if (m->loops.v[l].func == func && pj->step_loops[fi][l] && !tl_guarded_after(m, byte, m->loops.v[l].start)) best = l;
    if (best >= 0) {
      bool ev = tl_eval_loop(pj, fi, best);
      tl_chain_add(&v, f->path, m->loops.v[best].line, m->loops.v[best].col,
                   tl_strdup(ev ? "in the evaluation loop (no backward pass or optimizer step in it)" : "in the step loop"));
      *chain = v.v;
      *nchain = v.n;
      return ev ? TL_HOT_STEP | TL_HOT_EVAL : TL_HOT_STEP;
    }
  }
  const tl_func_state *st = &pj->fstate[fi][func];
  for (int k = 0; k < 2; k++) {
    unsigned bit = 1u << k;
    if (!(kinds & bit) || !(st->hot & bit) || func == 0 || tl_guarded_after(m, byte, m->funcs.v[func].start)) continue;
    int32_t cf = (int32_t)fi, cfn = func;
    /* an entry point itself needs no "in `f`": its reason says it all */
    if (st->reason[k].kind != 0)
      tl_chain_add(&v, f->path, m->funcs.v[func].line, m->funcs.v[func].col,
                   tl_printf("in `%s`", m->funcs.v[func].display));
    for (int guard = 0; guard < 32; guard++) {
      const tl_hot_reason *r = &pj->fstate[cf][cfn].reason[k];
      const tl_file *rf = &pj->files[r->kind == 0 ? cf : r->file];
      if (r->kind == 0) {
        tl_chain_add(&v, rf->path, r->line, r->col, tl_strdup(r->why ? r->why : "a per-step entry point"));
        break;
      }
      if (r->kind == 2) {
        bool ev = k == 0 && tl_eval_loop(pj, (size_t)r->file, tl_loop_at_pos(&rf->model, r->line, r->col));
        tl_chain_add(&v, rf->path, r->line, r->col,
                     tl_strdup(ev ? "called from the evaluation loop (no backward pass or optimizer step in it)"
                                  : "called from the step loop"));
        if (ev) bit |= TL_HOT_EVAL;
        break;
      }
      tl_chain_add(&v, rf->path, r->line, r->col,
                   tl_printf("called from `%s`", rf->model.funcs.v[r->func].display));
      cf = r->file;
      cfn = r->func;
    }
    *chain = v.v;
    *nchain = v.n;
    return bit;
  }
  tl_vec_free(&v);
  return 0;
}

void tl_project_free(tl_project *pj) {
  for (size_t i = 0; pj->fstate && i < pj->nfiles; i++) {
    for (size_t j = 0; j < pj->nfuncs[i]; j++)
      for (int k = 0; k < 2; k++) free(pj->fstate[i][j].reason[k].why);
    free(pj->fstate[i]);
    free(pj->step_loops[i]);
  }
  for (size_t i = 0; i < pj->nwork; i++) free(pj->loop_work[i]);
  free(pj->fstate);
  free(pj->step_loops);
  free(pj->nfuncs);
  free(pj->loop_work);
  tl_vec_free(&pj->pmatch);
  memset(pj, 0, sizeof *pj);
}
