/* tl_project.c - the project pass (phase 2): over the call graph (tl_callgraph.c), which loops are
 * step loops, what each loop does anywhere in it, and which functions run per step or per sample,
 * with the chain that says why. */
#include "tl_callgraph.h"

#include <string.h>

#include "tl_vocab.h"

static bool tl_guarded_after(const tl_file_model *m, uint32_t byte, uint32_t from) {
  for (size_t i = 0; i < m->guards.n; i++) {
    const tl_range *g = &m->guards.v[i];
    if (g->start >= from && from >= g->scope && g->start <= byte && byte < g->end) return true;
  }
  return false;
}

/* Is call c of file fi under a frequency guard, or in a block that runs only when a flag off by
 * default is set? */
static bool tl_project__call_guarded(const tl_project *pj, size_t fi, size_t c) {
  return pj->files[fi].model.calls.v[c].guarded || (pj->call_optin && pj->call_optin[fi][c]);
}

/* Does byte `byte` of file fi run only under a frequency guard that counts from `from` on, or only
 * when a flag off by default is set? */
static bool tl_project__guarded(const tl_project *pj, size_t fi, uint32_t byte, uint32_t from) {
  if (tl_guarded_after(&pj->files[fi].model, byte, from)) return true;
  for (size_t i = 0; pj->optin && i < pj->optin[fi].n; i++)
    if (pj->optin[fi].v[i].start <= byte && byte < pj->optin[fi].v[i].end) return true;
  return false;
}

/* An evaluation or inference loop: a step loop that runs no backward pass, no optimizer step, does
 * not clear gradients and calls nothing named after a training step anywhere in it (nor in what it
 * calls): an evaluation over a loader, a sampling or decoding loop, a pipeline's denoising loop.
 * Its per-iteration costs are real, but they are paid when the model is evaluated or used, not by
 * training. */
bool tl_project_eval_loop(const tl_project *pj, size_t fi, int32_t l) {
  const tl_file_model *m = &pj->files[fi].model;
  if (l < 0 || (size_t)l >= m->loops.n || fi >= pj->nwork) return false;
  return !(pj->loop_work[fi][l] & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP | TL_WORK_GRAD));
}

/* Rare functions: every call of one runs under a frequency guard, or in a rare function (the
 * greatest fixpoint: a function no call reaches is an entry point, not rare). A step loop in a
 * rare function runs its iterations only now and then (`estimate_loss()` under
 * `if it % eval_interval == 0:`). */
static void tl_project__rare(tl_project *pj, const tl_callgraph *p) {
  size_t nf = pj->nfiles;
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t c = 0; c < m->calls.n; c++) {
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
      for (size_t k = 0; k < nt; k++) {
        tl_func_state *st = &pj->fstate[ts[k].file][ts[k].idx];
        if (st->rare || st->rare_file) continue; /* the first call seen stands as the witness */
        st->rare = true;
        st->rare_file = (int32_t)i + 1;
        st->rare_call = (uint32_t)c;
      }
    }
  }
  for (int iter = 0, changed = 1; changed && iter < 64; iter++) {
    changed = 0;
    for (size_t i = 0; i < nf; i++) {
      const tl_file_model *m = &pj->files[i].model;
      for (size_t c = 0; c < m->calls.n; c++) {
        const tl_call *cl = &m->calls.v[c];
        if (cl->guarded || pj->fstate[i][cl->func].rare) continue;
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
        for (size_t k = 0; k < nt; k++)
          if (pj->fstate[ts[k].file][ts[k].idx].rare) {
            pj->fstate[ts[k].file][ts[k].idx].rare = false;
            changed = 1;
          }
      }
    }
  }
  /* the witness: a guarded call, or one in a rare function */
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
      for (size_t k = 0; k < nt; k++) {
        tl_func_state *st = &pj->fstate[ts[k].file][ts[k].idx];
        if (st->rare && cl->guarded && st->rare_file > 0) {
          st->rare_file = -((int32_t)i + 1); /* final: a guarded call */
          st->rare_call = (uint32_t)c;
        }
      }
    }
  }
  for (size_t i = 0; i < nf; i++)
    for (size_t f = 0; f < pj->nfuncs[i]; f++) {
      tl_func_state *st = &pj->fstate[i][f];
      st->rare_file = st->rare ? (st->rare_file < 0 ? -st->rare_file : st->rare_file) - 1 : -1;
    }
}

/* What each loop does anywhere in it, guarded or not, directly or through the project's functions
 * it calls (TL_WORK_*): a training loop runs a backward pass and an optimizer step. */
static void tl_project_loop_work(tl_project *pj, const tl_callgraph *p) {
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
        size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
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
      size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
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


typedef struct {
  int32_t file, func;
  int kind;
} tl_qitem;

typedef TL_VEC(tl_qitem) tl_queue;
typedef TL_VEC(tl_hot_step) tl_chain;

static void tl_mark(tl_project *pj, tl_queue *q, tl_ref t, int kind, tl_hot_reason r) {
  tl_func_state *st = &pj->fstate[t.file][t.idx];
  if (st->hot & (1u << kind)) {
    free(r.why);
    return;
  }
  st->hot |= 1u << kind;
  st->reason[kind] = r;
  tl_qitem it = {t.file, t.idx, kind};
  tl_vec_push(q, it);
}

/* Which functions do per-step work each time they are called: outside any loop and unguarded they
 * run a backward pass, an optimizer step or a model (a call of a project class constructs an
 * object, whatever its name), or call a function that does and is not whole (a fixpoint). Which of
 * them step an optimizer each time (opt_top), the same way. */
static void tl_project__train_top(tl_project *pj, const tl_callgraph *p, bool **whole) {
  size_t nf = pj->nfiles;
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t f = 0; f < m->funcs.n; f++) pj->fstate[i][f].train_top = pj->fstate[i][f].opt_top = false;
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      tl_ref k;
      bool ctor = cl->work == TL_WORK_MODEL && !p->targets[i][c].instance &&
                  tl_callgraph_class_ref(p, (int32_t)i, cl->callee, &k);
      if (!cl->top || tl_project__call_guarded(pj, i, c)) continue;
      if ((cl->work && !ctor) || p->targets[i][c].instance) pj->fstate[i][cl->func].train_top = true;
      if (cl->work & TL_WORK_OPT_STEP) pj->fstate[i][cl->func].opt_top = true;
    }
  }
  for (int iter = 0, changed = 1; changed && iter < 64; iter++) {
    changed = 0;
    for (size_t i = 0; i < nf; i++) {
      const tl_file_model *m = &pj->files[i].model;
      for (size_t c = 0; c < m->calls.n; c++) {
        const tl_call *cl = &m->calls.v[c];
        tl_func_state *st = &pj->fstate[i][cl->func];
        if (!cl->top || (st->train_top && st->opt_top) || tl_project__call_guarded(pj, i, c)) continue;
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
        for (size_t k = 0; k < nt; k++) {
          const tl_func_state *t = &pj->fstate[ts[k].file][ts[k].idx];
          if (!st->train_top && t->train_top && !whole[ts[k].file][ts[k].idx]) st->train_top = true, changed = 1;
          if (!st->opt_top && t->opt_top) st->opt_top = true, changed = 1;
        }
      }
    }
  }
}

/* Is function t whole only by accumulation loops (micro), and does the place of a call of it step
 * the optimizer (a loop's own body: opt; a function's top: its opt_top)? Then the call is one step's
 * gradient accumulation: `forward_backward(batch)` runs backward over the batch's micro-batches,
 * the optimizer steps after it, and the loop around both is the step loop. */
static bool tl_project__micro(const tl_project *pj, const tl_callgraph *p, bool **whole, bool **micro, tl_ref t,
                              int depth);

static bool tl_project__accumulates(const tl_project *pj, const tl_callgraph *p, bool **whole, bool **micro, tl_ref t,
                                    bool steps) {
  return steps && tl_project__micro(pj, p, whole, micro, t, 0);
}

/* Is t micro, itself or through its calls: whole only by calling micro functions, with no step loop
 * of its own (`compute()` that calls `forward_backward(batch)`)? Followed 4 calls deep. */
static bool tl_project__micro(const tl_project *pj, const tl_callgraph *p, bool **whole, bool **micro, tl_ref t,
                              int depth) {
  if (micro[t.file][t.idx]) return true;
  if (depth >= 4 || !whole[t.file][t.idx]) return false;
  const tl_file_model *m = &pj->files[t.file].model;
  for (size_t l = 0; l < m->loops.n; l++)
    if (m->loops.v[l].func == t.idx && pj->step_loops[t.file][l]) return false;
  bool any = false;
  for (size_t c = 0; c < m->calls.n; c++) {
    if (m->calls.v[c].func != t.idx) continue;
    tl_ref ts[TL_MAX_TARGETS];
    size_t nt = tl_callgraph_targets(p, t.file, c, ts, TL_MAX_TARGETS);
    for (size_t k = 0; k < nt; k++) {
      if (!whole[ts[k].file][ts[k].idx]) continue;
      if (!tl_project__micro(pj, p, whole, micro, ts[k], depth + 1)) return false;
      any = true;
    }
  }
  return any;
}

/* What each loop of file i does in its own body (its own calls, not a nested loop's), leaving out the
 * calls that run only when a flag off by default is set (own, TL_WORK_*), and whether it steps an
 * optimizer, itself or through a callee (opt). */
static void tl_project__loop_own(const tl_project *pj, const tl_callgraph *p, size_t i, unsigned *own, bool *opt) {
  const tl_file_model *m = &pj->files[i].model;
  for (size_t c = 0; c < m->calls.n; c++) {
    const tl_call *cl = &m->calls.v[c];
    if (cl->loop < 0 || m->loops.v[cl->loop].func != cl->func || tl_project__call_guarded(pj, i, c)) continue;
    own[cl->loop] |= cl->work;
    if (cl->work & TL_WORK_OPT_STEP) opt[cl->loop] = true;
    tl_ref ts[TL_MAX_TARGETS];
    size_t nt = opt[cl->loop] ? 0 : tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
    for (size_t k = 0; k < nt; k++) opt[cl->loop] = opt[cl->loop] || pj->fstate[ts[k].file][ts[k].idx].opt_top;
  }
}

/* Micro functions (tl_project__micro): those whose every step loop is an accumulation loop, one that
 * runs a backward pass but iterates no loader and steps no optimizer (`for i in range(0, n,
 * microbatch): ... loss.backward()`). It depends on the loops' own work and on opt_top only, so it is
 * known for every file before the step loops read it. */
static void tl_project__micro_functions(const tl_project *pj, const tl_callgraph *p, bool **micro) {
  for (size_t i = 0; i < pj->nfiles; i++) {
    const tl_file_model *m = &pj->files[i].model;
    size_t nl = m->loops.n;
    unsigned *own = tl_calloc(nl + 1, sizeof *own);
    bool *opt = tl_calloc(nl + 1, sizeof *opt), *other = tl_calloc(m->funcs.n + 1, sizeof *other);
    tl_project__loop_own(pj, p, i, own, opt);
    for (size_t f = 0; f < m->funcs.n; f++) micro[i][f] = false;
    for (size_t l = 0; l < nl; l++) {
      const tl_loop *lp = &m->loops.v[l];
      if (lp->func <= 0 || !(lp->iterates_loader || (own[l] & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP)))) continue;
      if (!lp->iterates_loader && !opt[l]) micro[i][lp->func] = true;
      else other[lp->func] = true;
    }
    for (size_t f = 0; f < m->funcs.n; f++) micro[i][f] = micro[i][f] && !other[f];
    free(own);
    free(opt);
    free(other);
  }
}

/* The loop whose iterations run the body of loop l: l itself, or, for a loop over a small collection
 * the program fixes, the nearest enclosing loop of the function that is not one (-1: none). */
static int32_t tl_project__unsmall(const tl_file_model *m, int32_t l) {
  int32_t f = m->loops.v[l].func;
  while (l >= 0 && m->loops.v[l].func == f && m->loops.v[l].small) l = m->loops.v[l].parent;
  return l >= 0 && m->loops.v[l].func == f ? l : -1;
}

/* Step loops. A loop over a DataLoader, or one that runs a backward pass or an optimizer step in its
 * body, is one. So is a loop whose body calls a model, or a function that does per-step work, unless
 * it holds a step loop itself or calls a whole function (then it is an epoch loop). In a loop over a
 * small collection the program fixes (text encoders, layers, tasks: tl_loop.small) such work counts
 * for the loop around it, if any: the small loop's body runs as often as that loop's. A loop in the
 * `__main__` block of an imported model module is none, unless it iterates a loader. */
static void tl_project__step_loops(tl_project *pj, tl_callgraph *p, bool **whole, bool **micro) {
  for (size_t i = 0; i < pj->nfiles; i++) {
    const tl_file_model *m = &pj->files[i].model;
    size_t nl = m->loops.n;
    bool *weak = tl_calloc(nl + 1, sizeof *weak), *holds = tl_calloc(nl + 1, sizeof *holds);
    bool *strong = pj->step_loops[i];
    unsigned *own = tl_calloc(nl + 1, sizeof *own);
    bool *opt = tl_calloc(nl + 1, sizeof *opt);
    tl_project__loop_own(pj, p, i, own, opt);
    for (size_t l = 0; l < nl; l++) {
      const tl_loop *lp = &m->loops.v[l];
      strong[l] = lp->iterates_loader || (own[l] & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP));
      int32_t at = tl_project__unsmall(m, (int32_t)l);
      if (own[l] && at >= 0) weak[at] = true;
    }
    free(own);
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      if (cl->loop < 0) continue;
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
      bool calls_whole = false, steps = m->loops.v[cl->loop].func == cl->func && opt[cl->loop];
      for (size_t k = 0; k < nt && !calls_whole; k++)
        calls_whole = whole[ts[k].file][ts[k].idx] && !tl_project__accumulates(pj, p, whole, micro, ts[k], steps);
      if (calls_whole) /* an epoch loop: this loop and those around it in the function */
        for (int32_t l = cl->loop; l >= 0 && m->loops.v[l].func == cl->func; l = m->loops.v[l].parent) holds[l] = true;
      int32_t at = tl_project__unsmall(m, cl->loop);
      if (tl_project__call_guarded(pj, i, c) || at < 0) continue;
      bool work = p->targets[i][c].instance;
      for (size_t k = 0; k < nt && !work; k++)
        work = pj->fstate[ts[k].file][ts[k].idx].train_top && !whole[ts[k].file][ts[k].idx];
      if (work) weak[at] = true;
    }
    /* a loop holding a step loop (innermost first: loops are listed outer before inner) */
    for (size_t l = nl; l-- > 0;) {
      bool step = strong[l] || (weak[l] && !holds[l]);
      int32_t up = m->loops.v[l].parent;
      if (step && up >= 0 && m->loops.v[up].func == m->loops.v[l].func) holds[up] = true;
      if (holds[l] && up >= 0 && m->loops.v[up].func == m->loops.v[l].func) holds[up] = true;
    }
    for (size_t l = 0; l < nl; l++) strong[l] = strong[l] || (weak[l] && !holds[l]);
    /* The `__main__` block of a model's module (it defines a Module/Layer) that other files import
     * is its self-test or demo (a few steps on random inputs), not the program's training run,
     * unless it iterates a loader. */
    bool model_module = false;
    for (size_t k = 0; k < m->classes.n && pj->imported[i] && !model_module; k++)
      model_module = tl_callgraph_class_kind(p, (tl_ref){(int32_t)i, (int32_t)k}) & TL_CK_MODULE;
    for (size_t l = 0; l < nl && model_module; l++)
      if (m->loops.v[l].in_main && !m->loops.v[l].iterates_loader) strong[l] = false;
    free(weak);
    free(holds);
    free(opt);
  }
}

/* Whole functions: those that hold a step loop, or call a whole function (a fixpoint). Returns
 * whether any changed. */
static bool tl_project__whole(tl_project *pj, const tl_callgraph *p, bool **whole, bool **micro) {
  bool changed = false;
  size_t nf = pj->nfiles;
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t l = 0; l < m->loops.n; l++) {
      int32_t f = m->loops.v[l].func;
      if (f > 0 && pj->step_loops[i][l] && !whole[i][f]) whole[i][f] = changed = true;
    }
  }
  for (int iter = 0, more = 1; more && iter < 64; iter++) {
    more = 0;
    for (size_t i = 0; i < nf; i++) {
      const tl_file_model *m = &pj->files[i].model;
      for (size_t c = 0; c < m->calls.n; c++) {
        const tl_call *cl = &m->calls.v[c];
        if (cl->func <= 0 || whole[i][cl->func]) continue;
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
        for (size_t k = 0; k < nt; k++)
          if (whole[ts[k].file][ts[k].idx] &&
              !tl_project__accumulates(pj, p, whole, micro, ts[k], cl->top && pj->fstate[i][cl->func].opt_top)) {
            whole[i][cl->func] = changed = true;
            more = 1;
            break;
          }
      }
    }
  }
  return changed;
}

/* ---- opt-in blocks ---- */

/* Is `name` in a list of names, or set on there ("!name")? */
static bool tl_project__listed(const tl_file_model *m, const char *name, bool on) {
  for (size_t i = 0; i < m->off_names.n; i++) {
    const char *x = m->off_names.v[i];
    if (on ? (x[0] == '!' && !strcmp(x + 1, name)) : !strcmp(x, name)) return true;
  }
  return false;
}

/* Does a call pass parameter `pos` (named `name`) of its target, a method when `method` (self takes
 * no argument)? Sets *by to the argument that passes it (NULL: a forwarded `*args`/`**kwargs`). */
static bool tl_project__passes(const tl_file_model *m, const tl_call *cl, uint16_t pos, const char *name, bool method,
                               const tl_arg **by) {
  *by = NULL;
  if (method && pos == 0) return true; /* self */
  uint16_t positional = 0, want = method ? (uint16_t)(pos - 1) : pos;
  for (uint16_t a = 0; a < cl->nargs; a++) {
    const tl_arg *arg = &m->args.v[cl->arg_first + a];
    if (arg->kw ? !strcmp(arg->kw, name) : positional == want) {
      *by = arg;
      return true;
    }
    if (!arg->kw) positional++;
  }
  return cl->splat;
}

/* What the project knows of its flags, indexed once: the calls of each function (`callers`, per
 * file and function); per option ("--name": argparse's, and the fields of dataclasses of settings),
 * whether it is declared off (bit 1) and on (bit 2) anywhere; per class name and keyword
 * ("Net\x1fdebug"), and per class name and "*" for a call that unpacks arguments (`Net(*a,
 * **kw)`), whether a call of that name passes it. */
typedef struct {
  tl_refs **callers;
  tl_map options;
  tl_map ones, ons; /* per option ("--name"): its declarations that default to 1, and those on */
  tl_map passed;
  tl_map defaults;        /* "f<file>--name" and "p<program>--name" -> the option's literal default
                           * there (tl_model_literal's text), "?" when declarations disagree, "!"
                           * when the code sets it (strings owned by the models) */
  const tl_callgraph *cg; /* for the project bases of a class */
} tl_flag_index;

static bool tl_project__param_off(const tl_project *pj, size_t i, int32_t fn, uint16_t p, const tl_flag_index *x,
                                  int depth);

/* Does argument `arg` of call `cl` (file fi) forward, as it is, a parameter of the calling function
 * that every call of that function leaves off (`Loss(debug=debug)` in an `__init__(self,
 * debug=False)` built only from a configuration)? Follows such forwarding up to 4 calls. */
static bool tl_project__forwards_off(const tl_project *pj, const tl_flag_index *x, size_t fi, const tl_call *cl,
                                     const tl_arg *arg, int depth) {
  if (!arg) return false;
  if (arg->option) { /* `use_bias=cfg.use_bias`: a setting off by default and nowhere on */
    char *opt = tl_concat("--", "", arg->option);
    intptr_t v = 0;
    tl_map_get(&x->options, opt, &v);
    free(opt);
    return v == 1;
  }
  if (depth > 4 || arg->param < 0 || cl->func <= 0) return false;
  const tl_func *f = &pj->files[fi].model.funcs.v[cl->func];
  if ((uint16_t)arg->param >= f->nparams) return false;
  return tl_project__param_off(pj, fi, cl->func, (uint16_t)arg->param, x, depth + 1);
}

/* Known call `at` of function fn (file i): does it pass parameter p, and with which argument (*by;
 * NULL for a forwarded `*args`/`**kwargs`)? */
static bool tl_project__call_passes(const tl_project *pj, size_t i, int32_t fn, uint16_t p, tl_ref at,
                                    const tl_arg **by) {
  const tl_file_model *m = &pj->files[i].model, *cm = &pj->files[at.file].model;
  const tl_func *f = &m->funcs.v[fn];
  const tl_call *cl = &cm->calls.v[at.idx];
  bool method = f->cls >= 0 && (strchr(cl->callee, '.') || !strcmp(f->name, "__init__"));
  return tl_project__passes(cm, cl, p, m->params.v[f->param_first + p], method, by);
}

/* Is parameter p of function fn (file i) off at every call: each call passes an off parameter of
 * its own function, forwarded as it is (tl_project__forwards_off), or leaves it to a default that
 * is off? A function with no known call may be called with anything. */
static bool tl_project__param_off(const tl_project *pj, size_t i, int32_t fn, uint16_t p, const tl_flag_index *x,
                                  int depth) {
  const tl_file_model *m = &pj->files[i].model;
  const tl_func *f = &m->funcs.v[fn];
  const tl_refs *cs = &x->callers[i][fn];
  if (!cs->n) return false;
  for (size_t k = 0; k < cs->n; k++) {
    const tl_arg *by;
    if (tl_project__call_passes(pj, i, fn, p, cs->v[k], &by)) {
      const tl_call *cl = &pj->files[cs->v[k].file].model.calls.v[cs->v[k].idx];
      if (!tl_project__forwards_off(pj, x, (size_t)cs->v[k].file, cl, by, depth)) return false;
    } else if (!m->param_off.v[f->param_first + p]) {
      return false;
    }
  }
  return true;
}

/* Is a flag off unless asked for, where guard g of file fi tests it? A parameter of the function
 * that defaults to off and that no call passes; a module-level name bound to an off value and never
 * to another; `args.dump` where `--dump` is an argparse option off by default in the project and
 * never on; `self.x` where every assignment of the attribute is an off value or such a parameter of
 * the method it is in (`self.autobalance = autobalance` with `autobalance=False`), and no call of
 * the class passes it. */

static void tl_project__flag_index(const tl_project *pj, tl_refs **callers, tl_flag_index *x) {
  memset(x, 0, sizeof *x);
  x->callers = callers;
  for (size_t i = 0; i < pj->nfiles; i++) { /* the declarations first: a copy of an option reads them */
    const tl_file_model *m = &pj->files[i].model;
    for (size_t k = 0; k < m->off_names.n; k++) {
      const char *o = tl_model_setting_entry(m, m->off_names.v[k]);
      if (!o) continue;
      size_t skip = !strncmp(o, "=1", 2) ? 2 : o[0] == '!';
      if (strncmp(o + skip, "--", 2)) continue;
      intptr_t v = 0;
      if (skip == 2 || skip == 1) {
        tl_map *count = skip == 2 ? &x->ones : &x->ons;
        tl_map_get(count, o + skip, &v);
        tl_map_set(count, o + skip, v + 1);
        if (skip == 2) continue;
        v = 0;
      }
      tl_map_get(&x->options, o + skip, &v);
      tl_map_set(&x->options, o + skip, v | (skip ? 2 : 1));
    }
  }
  for (size_t i = 0; i < pj->nfiles; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t k = 0; k < m->off_names.n; k++) {
      const char *o = tl_model_setting_entry(m, m->off_names.v[k]);
      const char *sep = !o || strncmp(o, "=v--", 4) ? NULL : strchr(o, '\x1f');
      if (!sep) continue; /* "=v--name\x1fs:l2": a literal default */
      /* kept per file and per program: the declarations a use sees are its file's own, else its
       * program's (the example scripts of one code base declare the same option each their way) */
      int32_t prog = pj->program ? pj->program[i] : -1;
      const char *val = sep + 1;
      if (val[0] == '@') { /* set to an option's value: that option's default, when it is off */
        char *from = tl_concat("--", "", val + 1);
        intptr_t fv = 0;
        tl_map_get(&x->options, from, &fv);
        free(from);
        if (fv == 1) continue; /* off by default and nowhere on: the setting keeps its own default */
        val = "!";
      }
      if (!strcmp(val, "!") && tl_project_test_file(pj, i)) continue; /* a test sets options to try them */
      for (int scope = 0; scope < 2; scope++) {
        char *key = tl_printf("%c%d%.*s", scope ? 'p' : 'f', scope ? prog : (int)i, (int)(sep - o - 2), o + 2);
        intptr_t v;
        bool seen = tl_map_get(&x->defaults, key, &v);
        /* "!": set in the code somewhere (it stays); "?": declarations that disagree */
        const char *now = !strcmp(val, "!") || (seen && !strcmp((const char *)v, "!")) ? "!"
                          : seen && strcmp((const char *)v, val)                       ? "?"
                                                                                       : val;
        tl_map_set(&x->defaults, key, (intptr_t)now);
        free(key);
      }
    }
  }
  for (size_t i = 0; i < pj->nfiles; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      size_t ln;
      const char *last = tl_dotted_last(cl->callee, &ln);
      if (!ln || (!cl->nargs && !cl->splat)) continue;
      for (uint32_t a = 0; a < cl->nargs + (cl->splat ? 1u : 0u); a++) {
        const tl_arg *arg = a < cl->nargs ? &m->args.v[cl->arg_first + a] : NULL;
        const char *kw = arg ? arg->kw : "*";
        if (!kw || tl_project__forwards_off(pj, x, i, cl, arg, 0)) continue;
        char *key = tl_printf("%.*s\x1f%s", (int)ln, last, kw);
        tl_map_set(&x->passed, key, 1);
        free(key);
      }
    }
  }
}

static void tl_project__flag_index_free(tl_flag_index *x) {
  tl_map_free(&x->defaults);
  tl_map_free(&x->options);
  tl_map_free(&x->ones);
  tl_map_free(&x->ons);
  tl_map_free(&x->passed);
}

/* Is attribute `name` of class c off: every assignment of it in the class an off value or a
 * parameter of its method that defaults to off or that every call leaves off? A class that does
 * not assign it takes it from its project bases (`self.use_weighted_masking`, set by the base's
 * `__init__` from what the subclass's `super().__init__(...)` passes); there a default is not
 * enough: every known call of the base's method must leave the parameter off (a subclass nothing
 * builds here may pass anything). Returns 1 (off), 0 (set to something else) or -1 (not assigned
 * in the class or its bases). */
static int tl_project__attr_off(const tl_project *pj, tl_ref c, const char *name, const tl_flag_index *x, int depth) {
  const tl_file_model *m = &pj->files[c.file].model;
  const tl_class *k = &m->classes.v[c.idx];
  bool any = false;
  for (size_t i = 0; i < k->attrs.n; i++) {
    const tl_binding *a = &k->attrs.v[i];
    if (strcmp(a->name, name)) continue;
    any = true;
    if (a->vsym == 0) return 0; /* a loop target, an unpacking: not an off value */
    const char *v = pj->files[c.file].text + a->vstart;
    size_t vl = a->vend - a->vstart;
    bool off = (vl == 5 && !memcmp(v, "False", 5)) || (vl == 4 && !memcmp(v, "None", 4)) || tl_zero_literal(v, vl);
    if (!off) { /* a parameter of its method that defaults to off, or that every call leaves off */
      const tl_func *f = a->func > 0 ? &m->funcs.v[a->func] : NULL;
      for (uint16_t p = 0; f && p < f->nparams && !off; p++)
        off = strlen(m->params.v[f->param_first + p]) == vl && !memcmp(m->params.v[f->param_first + p], v, vl) &&
              ((depth == 0 && m->param_off.v[f->param_first + p]) ||
               tl_project__param_off(pj, (size_t)c.file, a->func, p, x, 0));
    }
    if (!off) return 0;
  }
  if (any) return 1;
  int r = -1; /* the bases: each that assigns it must leave it off */
  for (size_t b = 0; b < k->bases.n && depth < 4 && x->cg; b++) {
    tl_ref base;
    if (!tl_callgraph_class_ref(x->cg, c.file, k->bases.v[b], &base)) continue;
    int o = tl_project__attr_off(pj, base, name, x, depth + 1);
    if (o == 0) return 0;
    if (o == 1) r = 1;
  }
  return r;
}

static bool tl_project__off(const tl_project *pj, size_t fi, const tl_flag_guard *g, const tl_flag_index *x) {
  const tl_file_model *m = &pj->files[fi].model;
  const char *d = g->flag, *dot = strrchr(d, '.');
  if (tl_project__listed(m, d, true)) return false; /* set on somewhere: `count += 1`, `flag = True` */
  if (!dot) {
    const tl_func *f = g->func > 0 ? &m->funcs.v[g->func] : NULL;
    /* a local of that name (`total = compute()`) is not the module's flag */
    if (f && tl_model_binding(m, d, g->func, g->start)) {
      bool param = false;
      for (uint16_t i = 0; i < f->nparams && !param; i++) param = !strcmp(m->params.v[f->param_first + i], d);
      if (!param) return false;
    }
    for (uint16_t i = 0; f && i < f->nparams; i++) {
      if (strcmp(m->params.v[f->param_first + i], d)) continue;
      return m->param_off.v[f->param_first + i]; /* (whether a call passes it: tl_project__optin) */
    }
    return tl_project__listed(m, d, false) && !tl_project__listed(m, d, true);
  }
  if (!strncmp(d, "self.", 5) && dot == d + 4) {
    int32_t cls = g->func > 0 ? m->funcs.v[g->func].cls : -1;
    return cls >= 0 && tl_project__attr_off(pj, (tl_ref){(int32_t)fi, cls}, d + 5, x, 0) == 1;
  }
  char *opt = tl_concat("--", "", dot + 1);
  intptr_t v = 0;
  tl_map_get(&x->options, opt, &v);
  free(opt);
  return v == 1; /* declared off, and nowhere on */
}

/* Is the literal v one of the literals of a value guard (tl_flag_guard.lit: joined by '\x1e')? */
static bool tl_project__lit_in(const char *lits, const char *v) {
  size_t n = strlen(v);
  for (const char *l = lits; l;) {
    const char *end = strchr(l, '\x1e');
    size_t ln = end ? (size_t)(end - l) : strlen(l);
    if (ln == n && !memcmp(l, v, n)) return true;
    l = end ? end + 1 : NULL;
  }
  return false;
}

/* Does the block of a value guard (tl_flag_guard.lit) of parameter p of function fn (file i) run
 * at no known call: every call passes p a literal, or leaves it to a literal default, that fails
 * the test (`if reduction == "mean":` where every call passes reduction="none")? A call that passes
 * anything else, or forwards `*args`, may take the branch; so may a function with no known call. */
static bool tl_project__value_dead(const tl_project *pj, size_t i, int32_t fn, uint16_t p, const tl_flag_guard *g,
                                   const tl_flag_index *x) {
  const tl_file_model *m = &pj->files[i].model;
  const tl_func *f = &m->funcs.v[fn];
  const tl_refs *cs = &x->callers[i][fn];
  if (!cs->n) return false;
  for (size_t k = 0; k < cs->n; k++) {
    const tl_arg *by;
    const char *v = tl_project__call_passes(pj, i, fn, p, cs->v[k], &by) ? (by ? by->lit : NULL)
                                                                         : m->param_lit.v[f->param_first + p];
    if (!v || !strcmp(v, "?") || tl_project__lit_in(g->lit, v) == g->eq) return false;
  }
  return true;
}

/* The option or setting a dotted flag reads (`args.clip`, `config.TRAIN.CLIP_GRAD`: its last name),
 * or NULL for a bare name, an attribute of `self` or an `or` of flags. */
static const char *tl_project__option_of(const char *flag) {
  const char *dot = strrchr(flag, '.');
  if (!dot || strchr(flag, '|') || (!strncmp(flag, "self.", 5) && dot == flag + 4)) return NULL;
  return dot + 1;
}

/* The literal default of option `name` as file i sees it (tl_flag_index.defaults): the file's own
 * declarations first, else its program's; "!" when the code anywhere in the program sets it, "?"
 * when declarations disagree; NULL when nothing declares one. */
static const char *tl_project__option_default(const tl_project *pj, size_t i, const char *name,
                                              const tl_flag_index *x) {
  char *fkey = tl_printf("f%d--%s", (int)i, name),
       *pkey = tl_printf("p%d--%s", pj->program ? pj->program[i] : -1, name);
  intptr_t v = 0, pv = 0;
  bool in_program = tl_map_get(&x->defaults, pkey, &pv);
  bool known = tl_map_get(&x->defaults, fkey, &v) || in_program;
  if (!v || (in_program && !strcmp((const char *)pv, "!"))) v = pv;
  free(fkey);
  free(pkey);
  return known ? (const char *)v : NULL;
}

/* Does the code give option `name` a value of its own (tl_project__option_default's "!")? */
static bool tl_project__option_set(const tl_project *pj, size_t i, const char *name, const tl_flag_index *x) {
  const char *v = tl_project__option_default(pj, i, name, x);
  return v && !strcmp(v, "!");
}

/* Is the option a guard reads (tl_project__option_of) left as declared, with `when` false at every
 * declaration: for TL_FLAG_UNSET (the `else` of `if config.TRAIN.CLIP_GRAD:`), declared on and
 * nowhere off; for TL_FLAG_ABOVE_ONE (`if args.accum_steps > 1:`), declared, and each declaration
 * that is on defaults to 1? Nothing may set it in the code (a copy of an option off by default
 * sets nothing). */
static bool tl_project__option_keeps(const tl_project *pj, size_t i, const tl_flag_guard *g, const tl_flag_index *x) {
  const char *name = tl_project__option_of(g->flag);
  if (!name) return false;
  char *opt = tl_concat("--", "", name);
  intptr_t bits = 0, ones = 0, ons = 0;
  tl_map_get(&x->options, opt, &bits);
  tl_map_get(&x->ones, opt, &ones);
  tl_map_get(&x->ons, opt, &ons);
  free(opt);
  bool keeps = g->when == TL_FLAG_UNSET ? bits == 2 : bits && ons == ones;
  return keeps && !tl_project__option_set(pj, i, name, x);
}

/* Does the block of flag guard g (file fi) run only on request: a flag off by default
 * (tl_project__off) that no call turns on, a parameter every call leaves off
 * (tl_project__param_off), a branch taken only when not training, or a
 * value guard no known call takes (tl_project__value_dead)? */
static bool tl_project__guard_optin(const tl_project *pj, size_t i, const tl_flag_guard *g, const tl_flag_index *x) {
  if (g->inference) return true; /* not training: never a step */
  /* the `else` of an option on by default; a count raised above a default of 1 */
  if (g->when == TL_FLAG_UNSET) return tl_project__option_keeps(pj, i, g, x);
  if (g->when == TL_FLAG_ABOVE_ONE && tl_project__option_keeps(pj, i, g, x)) return true;
  if (!g->lit && strchr(g->flag, '|')) { /* `if a or b:`: opt-in when each flag is */
    bool all = true;
    char *flags = tl_strdup(g->flag), *save = NULL;
    for (char *f = strtok_r(flags, "|", &save); f && all; f = strtok_r(NULL, "|", &save)) {
      tl_flag_guard one = *g;
      one.flag = f;
      all = tl_project__guard_optin(pj, i, &one, x);
    }
    free(flags);
    return all;
  }
  const tl_file_model *m = &pj->files[i].model;
  if (g->lit) { /* a value guard: of a parameter not bound again before it, at every known call */
    const tl_func *f = g->func > 0 && !tl_model_binding(m, g->flag, g->func, g->start) ? &m->funcs.v[g->func] : NULL;
    for (uint16_t p = 0; f && p < f->nparams && !strchr(g->flag, '.'); p++)
      if (!strcmp(m->params.v[f->param_first + p], g->flag)) return tl_project__value_dead(pj, i, g->func, p, g, x);
    /* of an option (`args.loss_type == "huber"`) whose declarations all default to a value that
     * fails the test, and that nothing sets (`args.loss_type = ...` in the file) */
    const char *dot = strrchr(g->flag, '.');
    if (!dot || (!strncmp(g->flag, "self.", 5) && dot == g->flag + 4)) return false;
    const char *v = tl_project__option_default(pj, i, dot + 1, x); /* set in the code: unknown */
    return v && strcmp(v, "?") && strcmp(v, "!") && tl_project__lit_in(g->lit, v) != g->eq;
  }
  if (!strchr(g->flag, '.') && g->func > 0) { /* a parameter: off at every call? */
    const tl_func *f = &m->funcs.v[g->func];
    for (uint16_t p = 0; p < f->nparams; p++)
      if (!strcmp(m->params.v[f->param_first + p], g->flag)) return tl_project__param_off(pj, i, g->func, p, x, 0);
  }
  if (!tl_project__off(pj, i, g, x)) return false;
  if (!strchr(g->flag, '.')) {
    /* a module-level name bound only to off values */
  } else if (!strncmp(g->flag, "self.", 5) && !strchr(g->flag + 5, '.')) {
    /* an attribute: does a call of the class pass it? (`self.args.debug` is an option, above) */
    int32_t cls = g->func > 0 ? m->funcs.v[g->func].cls : -1;
    if (cls < 0) return false;
    const tl_class *k = &m->classes.v[cls];
    char *any = tl_printf("%s\x1f*", k->name), *kw = tl_printf("%s\x1f%s", k->name, g->flag + 5);
    intptr_t v;
    bool passed = tl_map_get(&x->passed, any, &v) || tl_map_get(&x->passed, kw, &v);
    free(any);
    free(kw);
    if (passed) return false;
  }
  return true;
}

/* Adds to the callers of each `__init__` the constructions of its class (`Loss(...)`, `mod.Loss(...)`)
 * that the call graph leaves without a target. A class name defined in more than one file is left
 * out: which class a construction builds is not known. */
static void tl_project__constructor_calls(const tl_project *pj, tl_refs **callers) {
  tl_map inits = {0};
  for (size_t i = 0; i < pj->nfiles; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t f = 1; f < m->funcs.n; f++) {
      const tl_func *fn = &m->funcs.v[f];
      if (fn->cls < 0 || strcmp(fn->name, "__init__") || m->funcs.v[fn->outer].cls >= 0) continue;
      const char *name = m->classes.v[fn->cls].name;
      intptr_t v, at = (intptr_t)((i << 20) | f);
      tl_map_set(&inits, name, tl_map_get(&inits, name, &v) && v != at ? -1 : at);
    }
  }
  for (size_t i = 0; i < pj->nfiles && inits.count; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t c = 0; c < m->calls.n; c++) {
      size_t ln;
      const char *last = tl_dotted_last(m->calls.v[c].callee, &ln);
      if (!ln || last[0] < 'A' || last[0] > 'Z' || ln >= 128) continue;
      char key[128];
      memcpy(key, last, ln);
      key[ln] = 0;
      intptr_t v;
      if (!tl_map_get(&inits, key, &v) || v < 0) continue;
      size_t fi = (size_t)v >> 20, f = (size_t)v & 0xfffff;
      tl_refs *cs = &callers[fi][f];
      bool seen = false;
      for (size_t k = 0; k < cs->n && !seen; k++) seen = cs->v[k].file == (int32_t)i && cs->v[k].idx == (int32_t)c;
      tl_ref at = {(int32_t)i, (int32_t)c};
      if (!seen) tl_vec_push(cs, at);
    }
  }
  tl_map_free(&inits);
}

/* The blocks that run only when a flag off by default is set (tl_flag_guard, tl_project__off), and
 * the calls in them: they run only on request, so they are no per-step work. A parameter that
 * defaults to off is off only when no call of its function passes it. */
static void tl_project__optin(tl_project *pj, const tl_callgraph *cg) {
  size_t nf = pj->nfiles;
  pj->optin = tl_calloc(nf ? nf : 1, sizeof *pj->optin);
  pj->call_optin = tl_calloc(nf ? nf : 1, sizeof *pj->call_optin);
  /* the calls of each function, for parameters that a call may pass */
  tl_refs **callers = tl_calloc(nf ? nf : 1, sizeof *callers);
  for (size_t i = 0; i < nf; i++) callers[i] = tl_calloc(pj->files[i].model.funcs.n + 1, sizeof **callers);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    pj->call_optin[i] = tl_calloc(m->calls.n + 1, sizeof **pj->call_optin);
    for (size_t c = 0; c < m->calls.n; c++) {
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_callgraph_targets(cg, (int32_t)i, c, ts, TL_MAX_TARGETS);
      for (size_t k = 0; k < nt; k++) {
        tl_ref at = {(int32_t)i, (int32_t)c};
        tl_vec_push(&callers[ts[k].file][ts[k].idx], at);
      }
    }
  }
  tl_project__constructor_calls(pj, callers);
  tl_flag_index x;
  tl_project__flag_index(pj, callers, &x);
  x.cg = cg;
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t gi = 0; gi < m->flag_guards.n; gi++) {
      const tl_flag_guard *g = &m->flag_guards.v[gi];
      if (!tl_project__guard_optin(pj, i, g, &x)) continue;
      tl_range r = {g->start, g->end, 0};
      tl_vec_push(&pj->optin[i], r);
      for (size_t c = 0; c < m->calls.n; c++)
        if (m->calls.v[c].byte >= g->start && m->calls.v[c].byte < g->end) pj->call_optin[i][c] = true;
    }
  }
  for (size_t i = 0; i < nf; i++) {
    for (size_t f = 0; f < pj->files[i].model.funcs.n; f++) tl_vec_free(&callers[i][f]);
    free(callers[i]);
  }
  free(callers);
  tl_project__flag_index_free(&x);
}

/* Is the path component s (k bytes) one of names? Leading underscores do not count: `_export/` is a
 * private `export/`. */
static bool tl_project__in_names(const char *const *names, const char *s, size_t k) {
  while (k > 1 && *s == '_') s++, k--;
  for (size_t w = 0; names[w]; w++)
    if (strlen(names[w]) == k && !strncmp(s, names[w], k)) return true;
  return false;
}

/* Is `file` a test module? One under a `tests/` or `test/` directory, or one named like a test
 * (`test_x.py`, `x_test.py`, `conftest.py`) that holds a test (a `test_*` function, a `Test*`
 * class): its loops run once under the test runner, whatever they do. A script named `x_test.py`
 * with no test in it (an experiment's training script) is not one. */
static bool tl_project__is_test_module(const tl_file *file) {
  const char *path = file->path;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  static const char *const dirs[] = {"tests",     "test",      "testing",    "test_utils",
                                     "testutils", "unittests", "unit_tests", NULL};
  for (const char *p = path; p < base; p = strchr(p, '/') + 1)
    if (tl_project__in_names(dirs, p, (size_t)(strchr(p, '/') - p))) return true;
  size_t n = strlen(base);
  if (strncmp(base, "test_", 5) && strcmp(base, "conftest.py") && (n <= 8 || strcmp(base + n - 8, "_test.py")))
    return false;
  const tl_file_model *m = &file->model;
  for (size_t f = 1; f < m->funcs.n; f++)
    if (!strncmp(m->funcs.v[f].name, "test_", 5)) return true;
  for (size_t c = 0; c < m->classes.n; c++)
    if (!strncmp(m->classes.v[c].name, "Test", 4)) return true;
  return false;
}

/* Directory names of packages whose code serves evaluation, inference, export, benchmarks or
 * visualisation, not training steps (a model class there is one an evaluation or an exported
 * predictor builds). */
static const char *const tl_project__eval_names[] = {"eval",
                                                     "evals",
                                                     "evaluation",
                                                     "evaluate",
                                                     "inference",
                                                     "infer",
                                                     "export",
                                                     "deploy",
                                                     "deployment",
                                                     "benchmark",
                                                     "benchmarks",
                                                     "benchmarking",
                                                     "xai",
                                                     "explain",
                                                     "explainability",
                                                     "interpret",
                                                     "interpretability",
                                                     "visualization",
                                                     "visualisation",
                                                     "visualize",
                                                     "vis",
                                                     "viz",
                                                     NULL};

/* Module names (a file's name without `.py`) of inference, prediction, export, benchmark or
 * visualisation code: `engine/infer.py`, `tools/predict.py`, `tools/visualization.py`. Not
 * `eval.py` or `evaluate.py`: a module of metrics that the step calls is often named so. */
static const char *const tl_project__eval_modules[] = {"infer",     "inference",  "predict",   "predictor",
                                                       "export",    "deploy",     "benchmark", "visualization",
                                                       "visualize", "visualizer", NULL};

/* The interactive demo frameworks: a module importing one serves a demo page (its model runs
 * on a user's request, its "loops" over uploaded images, its Grad-CAM backward passes), not training. */
static const char *const tl_project__demo_frameworks[] = {"streamlit", "gradio", NULL};

/* The demo framework a file imports (anywhere in it), or NULL. */
static const char *tl_project__demo_import(const tl_file_model *m) {
  for (size_t i = 0; i < m->imports.cap; i++) {
    const char *q = m->imports.slots[i].key ? (const char *)m->imports.slots[i].value : NULL;
    for (size_t w = 0; q && tl_project__demo_frameworks[w]; w++) {
      size_t k = strlen(tl_project__demo_frameworks[w]);
      if (!strncmp(q, tl_project__demo_frameworks[w], k) && (q[k] == 0 || q[k] == '.'))
        return tl_project__demo_frameworks[w];
    }
  }
  return NULL;
}


/* For each file, the length of the path prefix up to and including the outermost directory of its
 * path named as an evaluation package (`dinov2/eval/`, `detectron2/export/`, `deploy/`), or 0. A
 * directory that holds every file of the run is the project itself, whatever its name (a checkout
 * in `~/eval/`): it is no such package. */
static void tl_project__eval_dirs(tl_project *pj) {
  size_t nf = pj->nfiles;
  pj->eval_dir = tl_calloc(nf ? nf : 1, sizeof *pj->eval_dir);
  for (size_t i = 0; i < nf; i++) {
    const char *path = pj->files[i].path;
    if (tl_project__demo_import(&pj->files[i].model) && strlen(path) < UINT16_MAX) {
      pj->eval_dir[i] = (uint16_t)strlen(path);
      continue;
    }
    for (const char *p = path; *p;) {
      const char *slash = strchr(p, '/');
      if (!slash) { /* the module itself: `infer.py` */
        size_t k = strlen(p);
        if (k > 3 && !strcmp(p + k - 3, ".py") && tl_project__in_names(tl_project__eval_modules, p, k - 3) &&
            (size_t)(p - path) + k < UINT16_MAX)
          pj->eval_dir[i] = (uint16_t)((size_t)(p - path) + k);
        break;
      }
      size_t k = (size_t)(slash - p);
      bool named = tl_project__in_names(tl_project__eval_names, p, k);
      size_t plen = (size_t)(slash + 1 - path);
      if (named && plen < UINT16_MAX) {
        bool outside = false; /* a file of the run outside this directory */
        for (size_t j = 0; j < nf && !outside; j++) outside = strncmp(pj->files[j].path, path, plen) != 0;
        if (outside) {
          pj->eval_dir[i] = (uint16_t)plen;
          break;
        }
      }
      p = slash + 1;
    }
  }
}

bool tl_project_eval_file(const tl_project *pj, size_t fi) {
  return pj->eval_dir && fi < pj->nfiles && pj->eval_dir[fi];
}

/* Step functions: a function no call in the project reaches, that runs a backward pass and an
 * optimizer step at its top level (unguarded, not in a loop of its own) and holds no step loop, is
 * called once per step by code outside the project (a trainer that a registry or a config builds
 * and calls: `model.train_iter(optimizers)`). Marks each such function in `out` with the lines of
 * its backward pass and optimizer step. */
static void tl_project__step_functions(tl_project *pj, const tl_callgraph *p, bool **whole, uint32_t **out) {
  size_t nf = pj->nfiles;
  bool **called = tl_calloc(nf ? nf : 1, sizeof *called);
  for (size_t i = 0; i < nf; i++) called[i] = tl_calloc(pj->files[i].model.funcs.n + 1, sizeof **called);
  for (size_t i = 0; i < nf; i++)
    for (size_t c = 0; c < pj->files[i].model.calls.n; c++) {
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_callgraph_targets(p, (int32_t)i, c, ts, TL_MAX_TARGETS);
      for (size_t k = 0; k < nt; k++) called[ts[k].file][ts[k].idx] = true;
    }
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    out[i] = tl_calloc(2 * (m->funcs.n + 1), sizeof **out);
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      if (cl->func <= 0 || !cl->top || tl_project__call_guarded(pj, i, c)) continue;
      if ((cl->work & TL_WORK_BACKWARD) && !out[i][2 * cl->func]) out[i][2 * cl->func] = cl->line;
      if ((cl->work & TL_WORK_OPT_STEP) && !out[i][2 * cl->func + 1]) out[i][2 * cl->func + 1] = cl->line;
    }
    /* the functions of a test module are called once each, by the test runner */
    bool test = tl_project_test_file(pj, i);
    for (size_t f = 1; f < m->funcs.n; f++)
      if (test || called[i][f] || whole[i][f] || !out[i][2 * f] || !out[i][2 * f + 1])
        out[i][2 * f] = out[i][2 * f + 1] = 0;
  }
  for (size_t i = 0; i < nf; i++) free(called[i]);
  free(called);
}

/* Is fn a method of a model that nothing trains (tl_usage_untrained)? A call that reaches it runs
 * on an object built where nothing trains or on request: it passes no hotness on; the model's
 * forward is a root of its own, at the frequency of an evaluation (tl_project_analyze). */
static bool tl_project__untrained_method(const tl_project *pj, const tl_callgraph *p, tl_ref **untrained, tl_ref fn) {
  if (fn.idx < 0) return false;
  int32_t cls = pj->files[fn.file].model.funcs.v[fn.idx].cls;
  /* models only: another object built on request keeps its callers' hotness, and its own loops
   * say that it runs on request (tl_project__on_request) */
  return cls >= 0 && untrained[fn.file][cls].file >= 0 &&
         (tl_callgraph_class_kind((tl_callgraph *)p, (tl_ref){fn.file, cls}) & TL_CK_MODULE);
}

/* The __init__ a call runs when it builds an object of a project class (tl_callgraph_constructs:
 * `ProbMask(...)`, `masking.ProbMask(...)`), into ts[0]: 1, else 0. Not a Module's: a model built in
 * per-step code is a lazy build behind a test the analysis may not read (`if self.model is None:`),
 * and its __init__ sets up parameters once per object. */
static size_t tl_project__constructor(const tl_callgraph *p, int32_t fi, const tl_call *cl, tl_ref *ts) {
  tl_ref k;
  if (!tl_callgraph_constructs(p, fi, cl, &k) || (tl_callgraph_class_kind((tl_callgraph *)p, k) & TL_CK_MODULE))
    return 0;
  return tl_callgraph_method((tl_callgraph *)p, k, "__init__", &ts[0]) ? 1 : 0;
}

/* The call graph breadth first from q.v[from]: each function a queued one calls unguarded is as hot
 * as it. Returns the queue's length when done. */
static size_t tl_project__spread(tl_project *pj, const tl_callgraph *p, tl_queue *q, size_t from, tl_ref **untrained) {
  for (size_t qi = from; qi < q->n; qi++) {
    tl_qitem it = q->v[qi];
    const tl_file_model *m = &pj->files[it.file].model;
    const tl_func *fu = &m->funcs.v[it.func];
    for (size_t c = 0; c < m->calls.n; c++) {
      const tl_call *cl = &m->calls.v[c];
      if (cl->func != it.func || tl_project__guarded(pj, (size_t)it.file, cl->byte, fu->start)) continue;
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_callgraph_targets(p, it.file, c, ts, TL_MAX_TARGETS);
      /* building an object of a project class runs its __init__ (or its bases'): `ProbMask(...)`
       * in a forward builds a mask every step */
      if (!nt) nt = tl_project__constructor(p, it.file, cl, ts);
      /* a model nothing trains passes its own frequency on to its own methods and parts */
      bool inside = tl_project__untrained_method(pj, p, untrained, (tl_ref){it.file, it.func});
      for (size_t k = 0; k < nt; k++) {
        if (!inside && tl_project__untrained_method(pj, p, untrained, ts[k])) continue;
        tl_hot_reason r = {it.file, it.func, cl->line, cl->col, 1, NULL, false};
        tl_mark(pj, q, ts[k], it.kind, r);
      }
    }
  }
  return q->n;
}

/* The files' indices sorted by path (then by index), for a canonical order of the roots. */
typedef struct {
  const char *path;
  size_t idx;
} tl_project__named;

static int tl_project__named_cmp(const void *a, const void *b) {
  const tl_project__named *x = a, *y = b;
  int c = strcmp(x->path, y->path);
  return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static size_t *tl_project__order(const tl_project *pj) {
  tl_project__named *v = tl_calloc(pj->nfiles + 1, sizeof *v);
  for (size_t i = 0; i < pj->nfiles; i++) v[i] = (tl_project__named){pj->files[i].path, i};
  if (pj->nfiles) qsort(v, pj->nfiles, sizeof *v, tl_project__named_cmp);
  size_t *order = tl_calloc(pj->nfiles + 1, sizeof *order);
  for (size_t i = 0; i < pj->nfiles; i++) order[i] = v[i].idx;
  free(v);
  return order;
}

/* Has the run been cancelled (tl_project.cancel)? The pass then stops at its next stage. */
static bool tl_project__stopping(const tl_project *pj) {
  return pj->cancel && __atomic_load_n(pj->cancel, __ATOMIC_RELAXED);
}

void tl_project_analyze(tl_project *pj, tl_file *files, size_t nfiles, const tl_strlist *hot_functions) {
  bool keep = pj->keep_mentions; /* the caller's choices, across the reset */
  const size_t *cancel = pj->cancel;
  memset(pj, 0, sizeof *pj);
  pj->keep_mentions = keep;
  pj->cancel = cancel;
  pj->files = files;
  pj->nfiles = nfiles;
  size_t nf = nfiles;
  pj->fstate = tl_calloc(nf ? nf : 1, sizeof *pj->fstate);
  pj->step_loops = tl_calloc(nf ? nf : 1, sizeof *pj->step_loops);
  pj->nfuncs = tl_calloc(nf ? nf : 1, sizeof *pj->nfuncs);
  pj->test_file = tl_calloc(nf ? nf : 1, sizeof *pj->test_file);
  for (size_t i = 0; i < nf; i++) pj->test_file[i] = tl_project__is_test_module(&files[i]);
  tl_project__eval_dirs(pj);
  tl_callgraph p;
  tl_ref **untrained = tl_calloc(nf ? nf : 1, sizeof *untrained);
  bool **whole = tl_calloc(nf ? nf : 1, sizeof *whole);
  bool **micro = tl_calloc(nf ? nf : 1, sizeof *micro);
  tl_callgraph_build(&p, files, nfiles, &pj->targets_kept, pj->cancel);
  if (p.stopped) goto done;
  pj->program = tl_calloc(nf ? nf : 1, sizeof *pj->program);
  pj->imported = tl_calloc(nf ? nf : 1, sizeof *pj->imported);
  tl_callgraph_programs(&p, pj->program, pj->imported);
  if (tl_project__stopping(pj)) goto done;
  tl_project__optin(pj, &p);
  if (tl_project__stopping(pj)) goto done;
  tl_usage_keep_mentions(pj);
  tl_usage_untrained(pj, &p, untrained);
  pj->untrained = untrained; /* also for the chains (tl_project_hot_at); freed with the project */
  if (tl_project__stopping(pj)) goto done;
  pj->uncalled = tl_calloc(nf ? nf : 1, sizeof *pj->uncalled);
  tl_usage_uncalled(pj, &p, pj->uncalled);
  if (tl_project__stopping(pj)) goto done;
  for (size_t i = 0; i < nf; i++) {
    tl_file_model *m = &pj->files[i].model;
    pj->fstate[i] = tl_calloc(m->funcs.n + 1, sizeof **pj->fstate);
    pj->nfuncs[i] = m->funcs.n;
    pj->step_loops[i] = tl_calloc(m->loops.n + 1, sizeof **pj->step_loops);
  }
  /* Which functions do per-step work each time they are called, and which loops are step loops.
   * A call of a project class constructs an object (whatever its name). A function that contains a
   * step loop (or calls one that does) runs many steps per call: it is "whole", not per-step work
   * for its callers, and a loop that calls it or holds a step loop of its own is an epoch loop.
   * The two depend on each other: computed in rounds until they agree. */
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    whole[i] = tl_calloc(m->funcs.n + 1, sizeof **whole);
    micro[i] = tl_calloc(m->funcs.n + 1, sizeof **micro);
    for (size_t l = 0; l < m->loops.n; l++)
      if (m->loops.v[l].iterates_loader && m->loops.v[l].func > 0) whole[i][m->loops.v[l].func] = true;
  }
  for (int round = 0; round < 8; round++) {
    tl_project__train_top(pj, &p, whole);
    tl_project__micro_functions(pj, &p, micro);
    tl_project__step_loops(pj, &p, whole, micro);
    if (!tl_project__whole(pj, &p, whole, micro)) break;
  }
  tl_project_loop_work(pj, &p);
  tl_project__rare(pj, &p);
  tl_summaries_solve(pj, &p);
  tl_summaries_resolve(pj, &p);
  if (tl_project__stopping(pj)) goto done;
  uint32_t **stepfn = tl_calloc(nf ? nf : 1, sizeof *stepfn);
  tl_project__step_functions(pj, &p, whole, stepfn);
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
  /* Roots, then the call graph breadth first. Roots are marked in the order of the files' paths,
   * not the order they were given in: where two roots reach a function, the chain a finding shows
   * is the same whatever the command line's order. */
  size_t *order = tl_project__order(pj);
  tl_queue q = {0};
  for (size_t oi = 0; oi < nf; oi++) {
    size_t i = order[oi];
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
      tl_hot_reason r = {-1, -1, fu->line, fu->col, 0, NULL, false};
      if (collate) {
        r.why = tl_printf("`%s` runs once per batch in the loader (collate_fn)", fu->display);
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 1, r);
      }
      for (size_t h = 0; hot_functions && h < hot_functions->n; h++) {
        const char *hf = hot_functions->v[h];
        if (strcmp(hf, fu->name) && strcmp(hf, fu->display) && strcmp(hf, fu->qual)) continue;
        tl_hot_reason hr = {-1,      -1, fu->line,
                            fu->col, 0,  tl_printf("`%s` is configured as per-step code (hot-functions)", fu->display),
                            false};
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 0, hr);
        break;
      }
      if (fu->cls < 0) continue;
      int kind = tl_callgraph_class_kind(&p, (tl_ref){(int32_t)i, fu->cls});
      const char *n = fu->name;
      if ((kind & TL_CK_MODULE) && !strcmp(n, "forward") &&
          ((fu->no_grad && whole[i][fn]) || untrained[i][fu->cls].file >= 0)) {
        continue; /* a generator, or a model nothing trains: a root only where nothing else reaches it (below) */
      } else if ((kind & TL_CK_MODULE) &&
                 (!strcmp(n, "forward") || !strcmp(n, "training_step") || !strcmp(n, "validation_step") ||
                  !strcmp(n, "test_step") || !strcmp(n, "predict_step"))) {
        /* validation_step, test_step, predict_step: the hooks of an evaluation or a prediction */
        bool eval = strcmp(n, "forward") && strcmp(n, "training_step");
        r.why = !strcmp(n, "forward")
                    ? tl_printf("`%s` runs every step (forward of a Module/Layer subclass)", fu->display)
                : eval ? tl_printf("`%s` runs every evaluation or prediction step (Lightning hook)", fu->display)
                       : tl_printf("`%s` runs every step (Lightning step hook)", fu->display);
        r.inference = eval;
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 0, r);
      } else if ((kind & TL_CK_DATASET) && (!strcmp(n, "__getitem__") || !strcmp(n, "__getitems__") ||
                                            !strcmp(n, "__iter__") || !strcmp(n, "__next__"))) {
        r.why = tl_printf("`%s` runs once per sample (Dataset)", fu->display);
        tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 1, r);
      }
    }
  }
  for (size_t oi = 0; oi < nf; oi++) {
    size_t i = order[oi];
    const tl_file_model *m = &pj->files[i].model;
    for (size_t fn = 1; fn < m->funcs.n; fn++) {
      if (!stepfn[i][2 * fn]) continue;
      const tl_func *fu = &m->funcs.v[fn];
      bool dead = pj->uncalled[i][fn]; /* an application's function nothing in it runs: not known to run */
      tl_hot_reason r = {-1,
                         -1,
                         fu->line,
                         fu->col,
                         0,
                         tl_printf("`%s` runs one training step per call (backward pass at line %u, optimizer step at "
                                   "line %u), and %s",
                                   fu->display, stepfn[i][2 * fn], stepfn[i][2 * fn + 1],
                                   dead ? "it is neither called nor named anywhere else in the project"
                                        : "it is called from outside the project"),
                         dead};
      tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 0, r);
    }
    free(stepfn[i]);
  }
  free(stepfn);
  /* Calls in step loops: training loops first, so that a function called from a training loop and
   * from an evaluation loop keeps the training loop's chain (the first chain wins); the loops of
   * functions nothing runs last. */
  for (int pass = 0; pass < 3; pass++)
    for (size_t oi = 0; oi < nf; oi++) {
      size_t i = order[oi];
      const tl_file_model *m = &pj->files[i].model;
      for (size_t c = 0; c < m->calls.n; c++) {
        const tl_call *cl = &m->calls.v[c];
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_callgraph_targets(&p, (int32_t)i, c, ts, TL_MAX_TARGETS);
        if (!nt) continue;
        /* the outermost step loop containing the call, unguarded from it */
        for (int32_t l = cl->loop; l >= 0; l = m->loops.v[l].parent) {
          const tl_loop *lp = &m->loops.v[l];
          if (lp->func != cl->func || !pj->step_loops[i][l] || tl_project__guarded(pj, i, cl->byte, lp->start))
            continue;
          /* a loop of a method of an object built only on request (no model) marks what it calls
           * too, last, as a loop of a function nothing runs does: its chain says so (info) */
          int32_t own = m->funcs.v[lp->func].cls;
          bool onreq = own >= 0 && untrained[i][own].file >= 0 && untrained[i][own].idx >= 0 &&
                       !(tl_callgraph_class_kind(&p, (tl_ref){(int32_t)i, own}) & TL_CK_MODULE);
          if ((pj->uncalled[i][lp->func] || onreq) != (pass == 2) ||
              (pass < 2 && tl_project_eval_loop(pj, i, l) == (pass == 0)))
            break;
          for (size_t k = 0; k < nt; k++) {
            if (tl_project__untrained_method(pj, &p, untrained, ts[k])) continue;
            tl_hot_reason r = {(int32_t)i, -1, lp->line, lp->col, 2, NULL, false};
            tl_mark(pj, &q, ts[k], 0, r);
          }
          break;
        }
      }
    }
  size_t qi = tl_project__spread(pj, &p, &q, 0, untrained);
  /* A Module's forward that turns gradients off and runs a loop of model calls of its own (a
   * sequence generator's beam search under `@torch.no_grad()`) generates: no training step needs it
   * for its backward pass. It is as hot as the per-step code that calls it (above), and otherwise
   * runs as often as the evaluation or inference that does (info). A forward under no_grad
   * without such a loop (a detector's matcher, a frozen teacher) stays a per-step root. */
  for (size_t oi = 0; oi < nf; oi++) {
    size_t i = order[oi];
    const tl_file_model *m = &pj->files[i].model;
    for (size_t fn = 1; fn < m->funcs.n; fn++) {
      const tl_func *fu = &m->funcs.v[fn];
      if (fu->cls < 0 || strcmp(fu->name, "forward") ||
          !(tl_callgraph_class_kind(&p, (tl_ref){(int32_t)i, fu->cls}) & TL_CK_MODULE))
        continue;
      tl_hot_reason r = {-1, -1, fu->line, fu->col, 0, NULL, true};
      tl_ref site = untrained[i][fu->cls];
      if (fu->no_grad && whole[i][fn]) {
        r.why = tl_printf("`%s` generates with gradients off (a forward under no_grad that runs a loop of model "
                          "calls): no training step calls it, only an evaluation or inference",
                          fu->display);
      } else if (site.file >= 0 && site.idx < 0) {
        r.why = tl_printf("`%s` runs only if something outside the project builds `%s`: it is neither built nor "
                          "named anywhere else in the project",
                          fu->display, m->classes.v[fu->cls].name);
      } else if (site.file >= 0) {
        /* A model that only code which trains nothing builds (tl_usage.c) */
        const tl_call *cl = &pj->files[site.file].model.calls.v[site.idx];
        r.why = pj->call_optin[site.file][site.idx]
                    ? tl_printf("`%s` runs only on request: `%s` is built only where nothing trains or in a branch "
                                "taken on request (%s:%u)",
                                fu->display, m->classes.v[fu->cls].name, pj->files[site.file].path, cl->line)
                    : tl_printf("`%s` runs when an evaluation or an inference does: only code that trains nothing "
                                "builds `%s` (%s:%u)",
                                fu->display, m->classes.v[fu->cls].name, pj->files[site.file].path, cl->line);
      } else {
        continue;
      }
      tl_mark(pj, &q, (tl_ref){(int32_t)i, (int32_t)fn}, 0, r);
    }
  }
  tl_project__spread(pj, &p, &q, qi, untrained);
  tl_vec_free(&q);
  free(order);
done:
  for (size_t i = 0; i < nf; i++) {
    free(whole[i]);
    free(micro[i]);
  }
  free(whole);
  free(micro);
  if (!pj->untrained) { /* stopped before it was handed to the project: freed here */
    for (size_t i = 0; i < nf; i++) free(untrained[i]);
    free(untrained);
  }
  pj->class_kind = tl_calloc(nf ? nf : 1, sizeof *pj->class_kind);
  bool stopped = tl_project__stopping(pj); /* (the run reports nothing: the class kinds serve no one) */
  for (size_t i = 0; i < nf && !stopped; i++) {
    size_t nc = pj->files[i].model.classes.n;
    pj->class_kind[i] = tl_calloc(nc + 1, 1);
    for (size_t k = 0; k < nc; k++)
      pj->class_kind[i][k] = (int8_t)tl_callgraph_class_kind(&p, (tl_ref){(int32_t)i, (int32_t)k});
  }
  tl_callgraph_free(&p);
}

/* The chain's last step for a loop of a function nothing in the project runs (tl_usage_uncalled). */
static char *tl_project__uncalled_note(const tl_func *fu) {
  return tl_printf("`%s` is neither called nor named anywhere else in the project: nothing here runs it", fu->display);
}

static void tl_chain_add(tl_chain *v, const char *path, uint32_t line, uint32_t col, char *what) {
  tl_hot_step s = {path, line, col, what, 0};
  tl_vec_push(v, s);
}

/* The construction of the object whose method fn (file fi) is, when that object is built only where
 * nothing trains or on request and is no model (a model's forward is a root of its own: below): file
 * -1 when not. A step loop in such a method runs when that code does. */
static tl_ref tl_project__on_request(const tl_project *pj, size_t fi, int32_t fn) {
  tl_ref none = {-1, -1};
  if (!pj->untrained || fn <= 0 || (size_t)fn >= pj->files[fi].model.funcs.n) return none;
  int32_t cls = pj->files[fi].model.funcs.v[fn].cls;
  if (cls < 0 || (pj->class_kind && pj->class_kind[fi] && (pj->class_kind[fi][cls] & TL_CK_MODULE))) return none;
  if (!pj->untrained[fi]) return none;
  tl_ref site = pj->untrained[fi][cls];
  return site.file >= 0 && site.idx >= 0 ? site : none;
}

/* The chain's step for a loop of a method of an object built only where nothing trains or on
 * request (tl_project__on_request). */
static void tl_project__on_request_note(const tl_project *pj, size_t fi, int32_t fn, tl_ref site, tl_chain *v) {
  const tl_file_model *m = &pj->files[fi].model;
  const tl_call *cl = &pj->files[site.file].model.calls.v[site.idx];
  tl_chain_add(v, pj->files[site.file].path, cl->line, cl->col,
               tl_printf("`%s` runs only on request: `%s` is built only where nothing trains or in a branch taken on "
                         "request",
                         m->funcs.v[fn].display, m->classes.v[m->funcs.v[fn].cls].name));
}

static int32_t tl_loop_at_pos(const tl_file_model *m, uint32_t line, uint32_t col) {
  for (size_t l = 0; l < m->loops.n; l++)
    if (m->loops.v[l].line == line && m->loops.v[l].col == col) return (int32_t)l;
  return -1;
}

/* For a file of an evaluation package: the chain's last step says so. */
static bool tl_project__eval_note(const tl_project *pj, size_t fi, tl_chain *v) {
  if (!tl_project_eval_file(pj, fi)) return false;
  const tl_file *f = &pj->files[fi];
  bool module = pj->eval_dir[fi] == strlen(f->path);
  const char *demo = module ? tl_project__demo_import(&f->model) : NULL;
  if (demo) {
    tl_chain_add(v, f->path, 1, 1,
                 tl_printf("in `%s`, a module of an interactive demo (it imports %s): not run by training steps",
                           f->path, demo));
    return true;
  }
  tl_chain_add(v, f->path, 1, 1,
               tl_printf(module
                             ? "in `%.*s`, a module of inference, prediction, export or visualisation code (not run by "
                               "training steps)"
                             : "in `%.*s`, a package of evaluation, inference, export, explainability or "
                               "visualisation code (not run by training steps)",
                         (int)pj->eval_dir[fi], f->path));
  return true;
}

bool tl_project_test_file(const tl_project *pj, size_t fi) {
  return pj->test_file && fi < pj->nfiles && pj->test_file[fi];
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
      if (m->loops.v[l].func == func && pj->step_loops[fi][l] &&
          !tl_project__guarded(pj, fi, byte, m->loops.v[l].start))
        best = l;
    if (best >= 0) {
      const tl_func_state *fs = &pj->fstate[fi][func];
      bool ev = tl_project_eval_loop(pj, fi, best), rare = func > 0 && fs->rare && fs->rare_file >= 0;
      bool test = tl_project_test_file(pj, fi), dead = pj->uncalled && pj->uncalled[fi][func];
      tl_chain_add(&v, f->path, m->loops.v[best].line, m->loops.v[best].col,
                   tl_strdup(ev     ? "in the evaluation or inference loop (no backward pass or optimizer step in it)"
                             : test ? "in a loop of a test module (run once by the test runner, not in training)"
                             : rare ? "in the loop"
                                    : "in the step loop"));
      if (rare) { /* the loop runs only when its function does: now and then */
        const tl_file *rf = &pj->files[fs->rare_file];
        const tl_call *rc = &rf->model.calls.v[fs->rare_call];
        tl_chain_add(
            &v, rf->path, rc->line, rc->col,
            tl_printf("`%s` runs only now and then: called %s", m->funcs.v[func].display,
                      rc->guarded ? "under a frequency guard" : "from a function that runs only now and then"));
      }
      if (dead) /* the loop runs only if something outside the project calls its function */
        tl_chain_add(&v, f->path, m->funcs.v[func].line, m->funcs.v[func].col,
                     tl_project__uncalled_note(&m->funcs.v[func]));
      tl_ref req = tl_project__on_request(pj, fi, func);
      if (req.file >= 0) tl_project__on_request_note(pj, fi, func, req, &v);
      bool evpkg = tl_project__eval_note(pj, fi, &v);
      *chain = v.v;
      *nchain = v.n;
      return ev || rare || test || dead || req.file >= 0 || evpkg ? TL_HOT_STEP | TL_HOT_EVAL : TL_HOT_STEP;
    }
  }
  const tl_func_state *st = &pj->fstate[fi][func];
  for (int k = 0; k < 2; k++) {
    unsigned bit = 1u << k;
    if (!(kinds & bit) || !(st->hot & bit) || func == 0 || tl_project__guarded(pj, fi, byte, m->funcs.v[func].start))
      continue;
    int32_t cf = (int32_t)fi, cfn = func;
    /* an entry point itself needs no "in `f`": its reason says it all */
    if (st->reason[k].kind != 0)
      tl_chain_add(&v, f->path, m->funcs.v[func].line, m->funcs.v[func].col,
                   tl_printf("in `%s`", m->funcs.v[func].display));
    for (int guard = 0; guard < 32; guard++) {
      const tl_hot_reason *r = &pj->fstate[cf][cfn].reason[k];
      const tl_file *rf = &pj->files[r->kind == 0 ? cf : r->file];
      if (r->kind == 0) {
        const char *why = r->why ? r->why : "a per-step entry point";
        if (r->inference) bit |= TL_HOT_EVAL;
        if (tl_project_test_file(pj, (size_t)cf)) { /* a model or a step a test defines for itself */
          tl_chain_add(&v, rf->path, r->line, r->col,
                       tl_printf("%s, in a test module (run by the test runner, not in training)", why));
          bit |= TL_HOT_EVAL;
        } else {
          tl_chain_add(&v, rf->path, r->line, r->col, tl_strdup(why));
        }
        break;
      }
      if (r->kind == 2) {
        int32_t rl = tl_loop_at_pos(&rf->model, r->line, r->col);
        bool ev = k == 0 && tl_project_eval_loop(pj, (size_t)r->file, rl);
        bool test = k == 0 && tl_project_test_file(pj, (size_t)r->file);
        int32_t lf = rl >= 0 ? rf->model.loops.v[rl].func : -1;
        bool dead = lf > 0 && pj->uncalled && pj->uncalled[r->file][lf];
        tl_chain_add(
            &v, rf->path, r->line, r->col,
            tl_strdup(ev     ? "called from the evaluation or inference loop (no backward pass or optimizer step in it)"
                      : test ? "called from a loop of a test module (run once by the test runner, not in training)"
                             : "called from the step loop"));
        if (dead)
          tl_chain_add(&v, rf->path, rf->model.funcs.v[lf].line, rf->model.funcs.v[lf].col,
                       tl_project__uncalled_note(&rf->model.funcs.v[lf]));
        tl_ref req = tl_project__on_request(pj, (size_t)r->file, lf);
        if (req.file >= 0) tl_project__on_request_note(pj, (size_t)r->file, lf, req, &v);
        if (ev || test || dead || req.file >= 0) bit |= TL_HOT_EVAL;
        break;
      }
      tl_chain_add(&v, rf->path, r->line, r->col, tl_printf("called from `%s`", rf->model.funcs.v[r->func].display));
      cf = r->file;
      cfn = r->func;
    }
    if (tl_project__eval_note(pj, fi, &v)) bit |= TL_HOT_EVAL;
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
  free(pj->test_file);
  free(pj->eval_dir);
  free(pj->loop_work);
  for (size_t i = 0; pj->optin && i < pj->nfiles; i++) {
    tl_vec_free(&pj->optin[i]);
    free(pj->call_optin[i]);
  }
  for (size_t i = 0; pj->uncalled && i < pj->nfiles; i++) free(pj->uncalled[i]);
  free(pj->uncalled);
  for (size_t i = 0; pj->untrained && i < pj->nfiles; i++) free(pj->untrained[i]);
  free(pj->untrained);
  free(pj->optin);
  free(pj->call_optin);
  for (size_t i = 0; pj->class_kind && i < pj->nfiles; i++) free(pj->class_kind[i]);
  free(pj->class_kind);
  for (size_t i = 0; pj->ret_kind && i < pj->nfiles; i++) {
    free(pj->ret_kind[i]);
    free(pj->param_kind[i]);
    free(pj->param_elems[i]);
    free(pj->slot_kind[i]);
  }
  free(pj->ret_kind);
  free(pj->slot_kind);
  free(pj->param_kind);
  free(pj->param_elems);
  tl_vec_free(&pj->pmatch);
  free(pj->program);
  free(pj->imported);
  memset(pj, 0, sizeof *pj);
}
