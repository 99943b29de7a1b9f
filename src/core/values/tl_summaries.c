/* tl_summaries.c - where values live across functions (phase 2): each function's parameters take
 * the places of the arguments its callers pass, and its result the places of what it returns; the
 * summaries are solved to a fixpoint over the call graph. Phase 3 asks them about the values a
 * file alone could not place (tl_vdep). */
#include "tl_callgraph.h"
#include "tl_vocab.h"

#include <string.h>

#define TL_VAL_BOTTOM 0xffu /* nothing known yet */

static uint8_t tl_summaries__join(uint8_t a, uint8_t b) {
  if (a == TL_VAL_BOTTOM) return b;
  if (b == TL_VAL_BOTTOM || a == b) return a;
  if (a == TL_VAL_DEVICE || b == TL_VAL_DEVICE) return TL_VAL_DEVICE;
  return TL_VAL_UNKNOWN;
}

/* The call of file model m that starts at `byte` (calls are listed in source order), or -1. */
static int32_t tl_summaries__call_at(const tl_file_model *m, uint32_t byte) {
  size_t lo = 0, hi = m->calls.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->calls.v[mid].byte < byte) lo = mid + 1;
    else hi = mid;
  }
  if (lo < m->calls.n && m->calls.v[lo].byte == byte) return (int32_t)lo;
  for (size_t i = 0; i < m->calls.n; i++) /* not in order (a copied statement moved): look at all */
    if (m->calls.v[i].byte == byte) return (int32_t)i;
  return -1;
}

/* The place of what calling `callee` gives, where it is a parameter of function `func` (file fi) or,
 * in a function defined inside another, of a function around it that `func` does not bind again
 * (`task` in `def _forward(): return task(x, y)`): a parameter every caller hands a value on the
 * device is a module moved there (a tensor is not called), and its output is on the device. */
static uint8_t tl_summaries__called_param(const tl_project *pj, size_t fi, int32_t func, const char *callee) {
  const tl_file_model *m = &pj->files[fi].model;
  if (strchr(callee, '.') || strchr(callee, '(') || strchr(callee, '[')) return TL_VAL_UNKNOWN;
  for (int up = 0; up < 4 && func > 0 && (size_t)func < m->funcs.n; up++) {
    const tl_func *f = &m->funcs.v[func];
    for (uint16_t p = 0; p < f->nparams; p++)
      if (!strcmp(m->params.v[f->param_first + p], callee))
        return pj->param_kind[fi][f->param_first + p] == TL_VAL_DEVICE ? TL_VAL_DEVICE : TL_VAL_UNKNOWN;
    if (tl_model_binding(m, callee, func, f->end)) return TL_VAL_UNKNOWN; /* a local of that name */
    func = f->outer;
  }
  return TL_VAL_UNKNOWN;
}

/* The place of a dependency of function `func` of file fi, as far as the summaries go now. */
static uint8_t tl_summaries__place(const tl_project *pj, const tl_callgraph *cg, size_t fi, int32_t func, tl_vdep dep);

/* The same, for the value itself: an element or attribute of a container is of unknown place. */
static uint8_t tl_summaries__dep(const tl_project *pj, const tl_callgraph *cg, size_t fi, int32_t func, tl_vdep dep) {
  uint8_t k = tl_summaries__place(pj, cg, fi, func, dep);
  if (!dep.elem || k != TL_VAL_LIST) return k;
  /* an element of a container argument: where its callers' containers hold their elements */
  const tl_file_model *m = &pj->files[fi].model;
  if (dep.how == TL_VDEP_PARAM && func > 0 && (size_t)func < m->funcs.n && dep.pos < m->funcs.v[func].nparams) {
    uint8_t e = pj->param_elems[fi][m->funcs.v[func].param_first + dep.pos];
    return e == TL_VAL_BOTTOM ? TL_VAL_UNKNOWN : e;
  }
  return TL_VAL_UNKNOWN;
}

static uint8_t tl_summaries__place(const tl_project *pj, const tl_callgraph *cg, size_t fi, int32_t func, tl_vdep dep) {
  const tl_file_model *m = &pj->files[fi].model;
  if (dep.how == TL_VDEP_PARAM) {
    if (func <= 0 || (size_t)func >= m->funcs.n || dep.pos >= m->funcs.v[func].nparams) return TL_VAL_UNKNOWN;
    return pj->param_kind[fi][m->funcs.v[func].param_first + dep.pos];
  }
  if (dep.how != TL_VDEP_CALL) return TL_VAL_UNKNOWN;
  int32_t c = tl_summaries__call_at(m, dep.pos);
  if (c >= 0 && cg->targets[fi][c].instance) return TL_VAL_DEVICE; /* calling a Module of the project: its output */
  tl_ref ts[TL_MAX_TARGETS];
  size_t nt = c < 0 ? 0 : tl_callgraph_targets(cg, (int32_t)fi, (size_t)c, ts, TL_MAX_TARGETS);
  if (!nt) return c < 0 ? TL_VAL_UNKNOWN : tl_summaries__called_param(pj, fi, func, m->calls.v[c].callee);
  uint8_t k = TL_VAL_BOTTOM;
  for (size_t i = 0; i < nt; i++)
    k = tl_summaries__join(k, dep.slot && dep.slot <= TL_RET_SLOTS
                                  ? pj->slot_kind[ts[i].file][(size_t)ts[i].idx * TL_RET_SLOTS + dep.slot - 1]
                                  : pj->ret_kind[ts[i].file][ts[i].idx]);
  return k;
}

/* The parameter of target t that argument a (the k-th positional one, or a keyword) of a call
 * reaches, or -1. A method's `self` takes no argument unless called through its class. */
static int tl_summaries__param_of(const tl_file_model *tm, int32_t tfn, const tl_call *c, const tl_arg *a, size_t k,
                                  bool instance) {
  const tl_func *t = &tm->funcs.v[tfn];
  if (a->kw) {
    for (uint16_t i = 0; i < t->nparams; i++)
      if (!strcmp(tm->params.v[t->param_first + i], a->kw)) return i;
    return -1;
  }
  size_t off = 0;
  if (t->cls >= 0 && t->nparams &&
      (!strcmp(tm->params.v[t->param_first], "self") || !strcmp(tm->params.v[t->param_first], "cls"))) {
    const char *dot = strrchr(c->callee, '.');
    size_t r = dot ? (size_t)(dot - c->callee) : 0;
    /* Class.method(obj, ...): the receiver is the class, which passes self explicitly */
    const char *recv = c->callee;
    for (const char *q = c->callee; dot && q < dot; q++)
      if (*q == '.') recv = q + 1;
    bool via_class = dot && r && recv[0] >= 'A' && recv[0] <= 'Z';
    off = instance || (dot && !via_class) ? 1 : 0;
  }
  return k + off < t->nparams ? (int)(k + off) : -1;
}

void tl_summaries_solve(tl_project *pj, const tl_callgraph *cg) {
  size_t nf = pj->nfiles;
  pj->ret_kind = tl_calloc(nf ? nf : 1, sizeof *pj->ret_kind);
  pj->param_kind = tl_calloc(nf ? nf : 1, sizeof *pj->param_kind);
  pj->param_elems = tl_calloc(nf ? nf : 1, sizeof *pj->param_elems);
  pj->slot_kind = tl_calloc(nf ? nf : 1, sizeof *pj->slot_kind);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    pj->ret_kind[i] = tl_malloc(m->funcs.n + 1);
    memset(pj->ret_kind[i], TL_VAL_BOTTOM, m->funcs.n + 1);
    pj->slot_kind[i] = tl_malloc((m->funcs.n + 1) * TL_RET_SLOTS);
    memset(pj->slot_kind[i], TL_VAL_BOTTOM, (m->funcs.n + 1) * TL_RET_SLOTS);
    pj->param_kind[i] = tl_malloc(m->params.n + 1);
    memset(pj->param_kind[i], TL_VAL_BOTTOM, m->params.n + 1);
    pj->param_elems[i] = tl_malloc(m->params.n + 1);
    memset(pj->param_elems[i], TL_VAL_BOTTOM, m->params.n + 1);
  }
  /* The places only grow (bottom, then a kind, then unknown or device): a fixpoint in rounds. */
  for (int round = 0, changed = 1; changed && round < 32; round++) {
    changed = 0;
    for (size_t i = 0; i < nf; i++) {
      const tl_file_model *m = &pj->files[i].model;
      for (size_t f = 1; f < m->funcs.n; f++) {
        const tl_func *fu = &m->funcs.v[f];
        uint8_t k[1 + TL_RET_SLOTS]; /* the whole result, then its slots */
        k[0] = fu->ret_kind;
        memcpy(k + 1, fu->slot_kind, TL_RET_SLOTS);
        for (uint16_t d = 0; d < fu->nrdeps; d++) {
          const tl_rdep *rd = &m->rdeps.v[fu->rdep_first + d];
          k[rd->feeds] = tl_summaries__join(k[rd->feeds], tl_summaries__dep(pj, cg, i, (int32_t)f, rd->dep));
        }
        uint8_t *out[1 + TL_RET_SLOTS];
        out[0] = &pj->ret_kind[i][f];
        for (int s = 0; s < TL_RET_SLOTS; s++) out[1 + s] = &pj->slot_kind[i][f * TL_RET_SLOTS + s];
        for (int s = 0; s <= TL_RET_SLOTS; s++) {
          uint8_t nk = tl_summaries__join(*out[s], k[s]);
          if (nk != *out[s]) *out[s] = nk, changed = 1;
        }
      }
      for (size_t c = 0; c < m->calls.n; c++) {
        const tl_call *cl = &m->calls.v[c];
        if (!cl->nargs) continue;
        tl_ref ts[TL_MAX_TARGETS];
        size_t nt = tl_callgraph_targets(cg, (int32_t)i, c, ts, TL_MAX_TARGETS);
        for (size_t t = 0; t < nt; t++) {
          const tl_file_model *tm = &pj->files[ts[t].file].model;
          size_t k = 0;
          for (uint16_t a = 0; a < cl->nargs; a++) {
            const tl_arg *arg = &m->args.v[cl->arg_first + a];
            int p = tl_summaries__param_of(tm, ts[t].idx, cl, arg, k, cg->targets[i][c].instance);
            if (!arg->kw) k++;
            if (p < 0) continue;
            uint8_t ak = arg->kind != TL_VAL_UNKNOWN ? arg->kind : tl_summaries__dep(pj, cg, i, cl->func, arg->dep);
            uint32_t at = tm->funcs.v[ts[t].idx].param_first + (uint32_t)p;
            uint8_t *slot = &pj->param_kind[ts[t].file][at];
            uint8_t nk = tl_summaries__join(*slot, ak);
            if (nk != *slot) *slot = nk, changed = 1;
            if (ak == TL_VAL_LIST) {
              uint8_t *es = &pj->param_elems[ts[t].file][at], ne = tl_summaries__join(*es, arg->elems);
              if (ne != *es) *es = ne, changed = 1;
            }
          }
        }
      }
    }
  }
}

/* Is function t an evaluation: run with gradients off (`@torch.no_grad()`, `@paddle.no_grad()`),
 * named as one (`eval`, `evaluate`, `validate`, `test_epoch`, `infer`, `predict`) or putting a model
 * in evaluation mode (`model.eval()`), and with no backward pass, optimizer step or gradient
 * clearing among its calls? What it returns is a result to report (a loss, an accuracy). The name
 * is matched by its parts (`evaluate`, `val_step`, `testEpoch`; not `count_invalid`, `latest`). */
static bool tl_summaries__evaluation(const tl_project *pj, tl_ref t) {
  static const char *const words[] = {"eval",      "evaluate",   "evaluation", "val",     "valid",
                                      "validate",  "validation", "test",       "testing", "infer",
                                      "inference", "predict",    "prediction", NULL};
  const tl_file_model *m = &pj->files[t.file].model;
  const tl_func *fu = &m->funcs.v[t.idx];
  if (!fu->no_grad) return false;
  bool named = tl_vocab_name_part(fu->name, words), eval_mode = false;
  for (size_t c = 0; c < m->calls.n; c++) {
    const tl_call *cl = &m->calls.v[c];
    if (cl->func != t.idx) continue;
    if (cl->work & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP | TL_WORK_GRAD)) return false;
    eval_mode = eval_mode || (!cl->nargs && tl_dotted_last_is(cl->callee, "eval") && strchr(cl->callee, '.'));
  }
  return named || eval_mode;
}

/* The evaluation function (tl_summaries__evaluation) whose result, or an element of the tuple it
 * returns, a dependency is: every target of the call it names is one. File -1: none. */
static tl_ref tl_summaries__evaluation_result(const tl_project *pj, const tl_callgraph *cg, size_t fi, tl_vdep dep,
                                              uint8_t **memo) {
  tl_ref none = {-1, -1};
  if (dep.how != TL_VDEP_CALL || dep.elem) return none;
  int32_t c = tl_summaries__call_at(&pj->files[fi].model, dep.pos);
  tl_ref ts[TL_MAX_TARGETS];
  size_t nt = c < 0 || cg->targets[fi][c].instance
                  ? 0
                  : tl_callgraph_targets(cg, (int32_t)fi, (size_t)c, ts, TL_MAX_TARGETS);
  for (size_t i = 0; i < nt; i++) {
    /* each function's verdict once per pass (it reads all the calls of its file): 1 yes, 2 no */
    uint8_t **fm = &memo[ts[i].file];
    if (!*fm) *fm = tl_calloc(pj->files[ts[i].file].model.funcs.n + 1, 1);
    if (!(*fm)[ts[i].idx]) (*fm)[ts[i].idx] = tl_summaries__evaluation(pj, ts[i]) ? 1 : 2;
    if ((*fm)[ts[i].idx] != 1) return none;
  }
  return nt ? ts[0] : none;
}

void tl_summaries_resolve(tl_project *pj, const tl_callgraph *cg) {
  uint8_t **memo = tl_calloc(pj->nfiles ? pj->nfiles : 1, sizeof *memo); /* tl_summaries__evaluation's verdicts */
  for (size_t i = 0; i < pj->nfiles; i++) {
    tl_file *f = &pj->files[i];
    for (size_t c = 0; c < f->cands.n; c++) {
      tl_candidate *cd = &f->cands.v[c];
      cd->veval.file = -1;
      if (cd->vdep.how == TL_VDEP_NONE) continue;
      uint8_t k = tl_summaries__dep(pj, cg, i, cd->func, cd->vdep);
      cd->vkind = k == TL_VAL_BOTTOM ? TL_VAL_UNKNOWN : k;
      cd->veval = tl_summaries__evaluation_result(pj, cg, i, cd->vdep, memo);
    }
  }
  for (size_t i = 0; i < pj->nfiles; i++) free(memo[i]);
  free(memo);
}
