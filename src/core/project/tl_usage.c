/* tl_usage.c - which Module classes only code that trains nothing builds (docs/hot-code.md,
 * "Models that nothing trains"). A class whose every construction, and every construction of its
 * project subclasses, is in code that runs no training (an evaluation package, an inference script
 * that no other file imports, or a function only such code calls) or in a branch taken only on
 * request (tl_project.c's opt-in blocks) runs its forward when an evaluation, an inference or that
 * request does, not in a training step. A test's constructions count for nothing: a test builds
 * every model it tests. Where the analysis cannot see every construction (a registry's decorator,
 * the class named as a value, a string or an annotation, a construction it does not resolve), the
 * class is left as it was: a forward of a Module is per-step code. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tl_cache.h"
#include "tl_callgraph.h"

/* Is a function (or class) of this (last) name one that trains: a word of it (split at `_`, and
 * before a capital: `trainIters`) is `train`, `training`, `trainer`, `pretrain`, `finetune` or `fit`
 * (`train_sp`, `run_training`, `model.fit`, `Trainer`), and none says it loads (`load_pretrain`)? */
static bool tl_usage__train_name(const char *name, size_t n) {
  static const char *const words[] = {"train",       "training", "trainer",    "trainers", "pretrain",
                                      "pretraining", "finetune", "finetuning", "fit",      NULL};
  bool hit = false;
  size_t a = 0;
  while (a < n && name[a] == '_') a++;
  while (a < n) {
    size_t b = a + 1;
    while (b < n && name[b] != '_' && !isupper((unsigned char)name[b])) b++;
    if (b - a == 4 && !strncasecmp(name + a, "load", 4)) return false;
    for (size_t w = 0; words[w] && !hit; w++)
      hit = strlen(words[w]) == b - a && !strncasecmp(name + a, words[w], b - a);
    a = b;
    while (a < n && name[a] == '_') a++;
  }
  return hit;
}

/* Does the function's code, or code it calls, train? Seeded by the calls themselves: a backward
 * pass, an optimizer step, clearing gradients, or a call named after training that leads out of
 * the project (`trainer.train()`, `model.fit(...)`: a library may train there). A project function
 * named after training is a seed of its own (tl_usage__may_train), not its callers'. */
static bool tl_usage__trainish(const tl_call *cl, bool resolved) {
  if (cl->work & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP | TL_WORK_GRAD)) return true;
  size_t n;
  const char *last = tl_dotted_last(cl->callee, &n);
  return !resolved && tl_usage__train_name(last, n);
}

typedef TL_VEC(tl_ref) tl_usage__refs;

/* Is the dotted name d (`model.adapter`, `model.add_module`) an attribute of a parameter of
 * function f, not `self`? With `method`, d must be a call that adds to what it holds. */
static bool tl_usage__of_param(const tl_file_model *m, int32_t f, const char *d, bool method) {
  const char *dot = strchr(d, '.');
  if (!dot || f <= 0 || (method && strcmp(dot + 1, "add_module") && strncmp(dot + 1, "register_", 9))) return false;
  size_t n = (size_t)(dot - d);
  const tl_func *fn = &m->funcs.v[f];
  for (size_t p = 0; p < fn->nparams; p++) {
    const char *name = m->params.v[fn->param_first + p];
    if (strlen(name) == n && !strncmp(name, d, n)) return strcmp(name, "self") && strcmp(name, "cls");
  }
  return false;
}

/* Marks in sets (file i's function f at base + f) the functions that set what one of their
 * parameters holds: `model.adapter = Adapter()`, `model.add_module("head", head)`, `setattr(...)`. */
static void tl_usage__sets_param(const tl_file_model *m, bool *sets) {
  for (size_t b = 0; b < m->bindings.n; b++)
    if (tl_usage__of_param(m, m->bindings.v[b].func, m->bindings.v[b].name, false)) sets[m->bindings.v[b].func] = true;
  for (size_t c = 0; c < m->calls.n; c++) {
    const tl_call *cl = &m->calls.v[c];
    if (cl->func > 0 && (!strcmp(cl->callee, "setattr") || tl_usage__of_param(m, cl->func, cl->callee, true)))
      sets[cl->func] = true;
  }
}

/* The functions of the project numbered from 0: file i's function f is base[i] + f. */
typedef struct {
  size_t *base, n;
} tl_usage__index;

/* Marks, breadth first from every function marked in `mark`, the functions the edges lead to
 * (edges as pairs from, to of indexes), except those in `stop`. */
static void tl_usage__reach(const uint32_t *edges, size_t nedges, size_t n, bool *mark, const bool *stop) {
  size_t *first = tl_calloc(n + 2, sizeof *first);
  uint32_t *to = tl_calloc(nedges + 1, sizeof *to), *queue = tl_calloc(n + 1, sizeof *queue);
  for (size_t e = 0; e < nedges; e++) first[edges[2 * e] + 1]++;
  for (size_t k = 0; k < n; k++) first[k + 1] += first[k];
  size_t *fill = tl_calloc(n + 1, sizeof *fill);
  for (size_t e = 0; e < nedges; e++) to[first[edges[2 * e]] + fill[edges[2 * e]]++] = edges[2 * e + 1];
  size_t qn = 0;
  for (size_t k = 0; k < n; k++)
    if (mark[k]) queue[qn++] = (uint32_t)k;
  for (size_t qi = 0; qi < qn; qi++)
    for (size_t e = first[queue[qi]]; e < first[queue[qi] + 1]; e++)
      if (!mark[to[e]] && !stop[to[e]]) {
        mark[to[e]] = true;
        queue[qn++] = to[e];
      }
  free(first);
  free(to);
  free(queue);
  free(fill);
}

/* Functions that may run in a training, or where the analysis cannot tell (`t`, by index): forward
 * from the seeds along every resolved call and construction (`Net(...)` runs `Net.__init__`;
 * `ctor` holds each call's class, tl_usage_untrained), except the calls in opt-in blocks. */
static void tl_usage__may_train(const tl_project *pj, tl_callgraph *cg, tl_ref **ctor, const tl_usage__index *x,
                                bool *t) {
  size_t nf = pj->nfiles, n = x->n;
  const bool *imported = pj->imported;
  bool *trains = tl_calloc(n + 1, 1), *called = tl_calloc(n + 1, 1), *out = tl_calloc(n + 1, 1);
  /* callee -> caller (every call); caller -> callee (not opt-in); the latter where the call can hand
   * the callee's objects back (not a function's call whose value is discarded) */
  TL_VEC(uint32_t) up = {0}, down = {0}, carry = {0};
  bool *sets = tl_calloc(n + 1, 1);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    tl_usage__sets_param(m, sets + x->base[i]);
    /* `train_sp(args, config)`: a function named after training may train where the call graph
     * does not follow (a trainer whose updater is handed in) */
    for (size_t f = 1; f < m->funcs.n; f++)
      trains[x->base[i] + f] = tl_usage__train_name(m->funcs.v[f].name, strlen(m->funcs.v[f].name));
  }
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    bool test = tl_project_test_file(pj, i), skip = test || tl_project_eval_file(pj, i);
    for (size_t f = 0; f < m->funcs.n; f++) out[x->base[i] + f] = skip;
    for (size_t c = 0; c < m->calls.n; c++) {
      uint32_t from = (uint32_t)(x->base[i] + (size_t)m->calls.v[c].func);
      tl_ref ts[TL_MAX_TARGETS + 1];
      size_t nt = tl_callgraph_targets(cg, (int32_t)i, c, ts, TL_MAX_TARGETS);
      /* a call named after training trains where it leads out of the project (a library's
       * `trainer.train()`), and so does building a trainer (`Trainer(cfg)`, whose methods the
       * graph may not follow); a project function of that name trains if its code does */
      if (tl_usage__trainish(&m->calls.v[c], nt > 0 && ctor[i][c].file < 0)) trains[from] = true;
      if (ctor[i][c].file >= 0 && tl_callgraph_method(cg, ctor[i][c], "__init__", &ts[nt])) nt++;
      /* a call in a branch off by default runs only on request: it passes no training on */
      bool optin = pj->call_optin && pj->call_optin[i][c];
      for (size_t k = 0; k < nt; k++) {
        uint32_t to = (uint32_t)(x->base[ts[k].file] + (size_t)ts[k].idx);
        /* a test calling a factory says nothing of training; an evaluation or inference module
         * that builds a model is a caller, which trains nothing */
        if (!out[from] || !test) called[to] = true;
        tl_vec_push(&up, to);
        tl_vec_push(&up, from);
        if (optin) continue;
        tl_vec_push(&down, from);
        tl_vec_push(&down, to);
        /* `evaluate(cfg)` as a statement builds nothing its caller gets; a method's call (`self.
         * build()`) may set what its object holds, a function may set what its arguments hold
         * (`add_adapter(model)`), and a construction builds the object */
        const tl_func *fn = &pj->files[ts[k].file].model.funcs.v[ts[k].idx];
        if (m->calls.v[c].stmt && fn->cls < 0 && !sets[to]) continue;
        tl_vec_push(&carry, from);
        tl_vec_push(&carry, to);
      }
    }
  }
  bool *none = tl_calloc(n + 1, 1), *own = tl_calloc(n + 1, 1);
  memcpy(own, trains, n);
  tl_usage__reach(up.v, up.n / 2, n, trains, none); /* a caller of code that trains trains */
  /* the seeds: code that trains and a module that others import (its body runs in their programs),
   * followed along every call; then a function no resolved call reaches (run from outside the
   * project, or through a call the graph does not follow), whose caller may train what it returns
   * or builds, followed along the calls that can hand an object back: a `main()` that dispatches
   * to `evaluate(cfg)` trains nothing `evaluate` builds. Each outside the test modules and
   * evaluation packages. */
  bool *entry = tl_calloc(n + 1, 1);
  for (size_t i = 0; i < nf; i++)
    for (size_t f = 0; f < pj->files[i].model.funcs.n; f++) {
      size_t k = x->base[i] + f;
      t[k] = !out[k] && (own[k] || (f == 0 && (imported[i] || !pj->files[i].ok)));
      /* the constructor of a class under a decorator (`@register_model("x")`): a registry may build
       * it from a configuration, whatever builds it in the code */
      const tl_func *fn = &pj->files[i].model.funcs.v[f];
      bool registered = f != 0 && fn->cls >= 0 && pj->files[i].model.classes.v[fn->cls].decorated &&
                        !strcmp(fn->name, "__init__");
      entry[k] = !out[k] && ((f != 0 && !called[k]) || trains[k] || registered);
    }
  tl_usage__reach(down.v, down.n / 2, n, t, out);
  for (size_t k = 0; k < n; k++) out[k] |= t[k];
  tl_usage__reach(carry.v, carry.n / 2, n, entry, out);
  for (size_t k = 0; k < n; k++) t[k] |= entry[k];
  free(entry);
  free(sets);
  free(own);
  free(none);
  free(trains);
  free(called);
  free(out);
  tl_vec_free(&up);
  tl_vec_free(&down);
  tl_vec_free(&carry);
}

static bool tl_usage__ident(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* Blanks inside a line, as Python reads them: spaces, tabs and form feeds. */
static bool tl_usage__blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\f'; }

/* Does a line end at s[at]: a LF, or a CR not followed by a LF (an old Mac file's line end)? */
static bool tl_usage__eol(const char *s, size_t at, size_t len) {
  return s[at] == '\n' || (s[at] == '\r' && (at + 1 >= len || s[at + 1] != '\n'));
}

/* How a statement starting at s[st] accounts for a mention of a class name in it: an import, a
 * class statement (its definition or a base), `__all__`, or a bare string (a docstring). */
static bool tl_usage__accounting_stmt(const char *s, size_t st, size_t len) {
  while (st < len && tl_usage__blank(s[st])) st++;
  return !strncmp(s + st, "class ", 6) || !strncmp(s + st, "from ", 5) || !strncmp(s + st, "import ", 7) ||
         !strncmp(s + st, "__all__", 7) || (st < len && (s[st] == '"' || s[st] == '\''));
}

/* Is the name at s[at] the one a `def` (or `async def`) statement starting at s[st] defines? */
static bool tl_usage__def_of(const char *s, size_t st, size_t at) {
  while (st < at && tl_usage__blank(s[st])) st++;
  if (at >= st + 6 && !strncmp(s + st, "async ", 6)) st += 6;
  if (at < st + 4 || strncmp(s + st, "def", 3)) return false;
  for (size_t k = st + 3; k < at; k++)
    if (!tl_usage__blank(s[k])) return false;
  return true;
}

/* Does a decorator line (`@...`) come right before the statement starting at s[st], blank and
 * comment lines aside? */
static bool tl_usage__decorated(const char *s, size_t st) {
  size_t e = st; /* the end of the line before: its line end */
  while (e >= 2) {
    e--;
    if (e > 0 && s[e] == '\n' && s[e - 1] == '\r') e--;
    size_t b = e;
    while (b > 0 && s[b - 1] != '\n' && s[b - 1] != '\r') b--;
    size_t t = b;
    while (t < e && tl_usage__blank(s[t])) t++;
    if (t < e && s[t] != '#') return s[t] == '@' || s[t] == ')';
    e = b; /* a blank or comment line: the one before it */
  }
  return false;
}

/* Scans one file's text for the mentions of names (with `funcs`, every identifier; else those
 * starting with a capital, class names) and counts them in `counts`: only the names it holds, or,
 * with `record` (a file's kept index, struct tl_mentions), every name from 0. Outside the
 * statements that account for a name (tl_usage__accounting_stmt) and `super(Net, self)`, a
 * construction (`Net(`, `Net.from_...(`) adds one and any other mention sets -1, which stays. Comments are skipped; in strings, only a string that is the name or ends a dotted path
 * with it counts (a registry may look the class up by it). */
static void tl_usage__scan(const char *s, size_t len, bool funcs, tl_map *counts, bool record) {
  int depth = 0;
  char quote = 0;
  bool triple = false;
  size_t stmt = 0;
  for (size_t at = 0; at < len;) {
    char ch = s[at];
    if (quote) {
      if (ch == '\\') {
        at += 2;
        continue;
      }
      if (ch == quote && (!triple || (at + 2 < len && s[at + 1] == quote && s[at + 2] == quote))) {
        at += triple ? 3 : 1;
        quote = 0;
        continue;
      }
    } else if (ch == '#') {
      while (at < len && s[at] != '\n' && s[at] != '\r') at++;
      continue;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
      triple = at + 2 < len && s[at + 1] == ch && s[at + 2] == ch;
      at += triple ? 3 : 1;
      continue;
    } else if (ch == '(' || ch == '[' || ch == '{') {
      depth++;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      depth -= depth > 0;
    } else if (ch == ';' || tl_usage__eol(s, at, len)) {
      size_t p = at > 0 && ch == '\n' && s[at - 1] == '\r' ? at - 1 : at; /* the line's end: CRLF, LF or CR */
      if (depth == 0 && (ch == ';' || p == 0 || s[p - 1] != '\\')) stmt = at + 1;
    }
    if (!tl_usage__ident(ch) || (at > 0 && tl_usage__ident(s[at - 1]))) {
      at++;
      continue;
    }
    size_t n = 0;
    while (at + n < len && tl_usage__ident(s[at + n])) n++;
    char name[128];
    if (n < sizeof name && (funcs || isupper((unsigned char)ch))) {
      memcpy(name, s + at, n);
      name[n] = 0;
      intptr_t v = 0;
      bool have = tl_map_get(counts, name, &v);
      if ((have || record) && v >= 0) {
        size_t e = at + n;
        while (e < len && tl_usage__blank(s[e])) e++;
        bool call = !quote && ((e < len && s[e] == '(') || (e + 6 <= len && !strncmp(s + e, ".from_", 6)));
        /* `super(Net, self).__init__()`: the class naming itself */
        size_t b = at;
        while (b > 0 && tl_usage__blank(s[b - 1])) b--;
        bool skip = b >= 6 && !strncmp(s + b - 6, "super(", 6);
        /* in a string, only a name a registry may look up: the whole string ("Net") or the end of a
         * dotted path ("models.Net"); prose that names the class ("... because Net can only ...")
         * builds nothing */
        if (quote &&
            !((s[at - 1] == quote || s[at - 1] == '.' || s[at - 1] == ':') && at + n < len && s[at + n] == quote))
          skip = true;
        /* `from .net import Net as M`: the class goes on under a name the scan does not follow */
        bool alias = !quote && e + 3 <= len && !strncmp(s + e, "as", 2) && !tl_usage__ident(s[e + 2]);
        /* a function's own `def` line accounts for it, unless a decorator registers it */
        bool def = funcs && !quote && tl_usage__def_of(s, stmt, at);
        if ((def && tl_usage__decorated(s, stmt)) || alias) tl_map_set(counts, name, -1);
        else if (!def && !skip && !tl_usage__accounting_stmt(s, stmt, len)) tl_map_set(counts, name, call ? v + 1 : -1);
      }
    }
    at += n;
  }
}

/* A file's mentions of names, kept with it for the next runs while its text is the same (editors:
 * tl_project.keep_mentions): per kind (class names, then every name), name -> constructions, or -1
 * when mentioned otherwise. Built by the second run that finds the same text (tl_usage_keep_mentions):
 * a file being edited is scanned as before, run after run, and the others are read from here. */
struct tl_mentions {
  uint64_t hash[2];
  size_t len;
  bool built;
  tl_map counts[2];
};

void tl_mentions_free(struct tl_mentions *x) {
  if (!x) return;
  tl_map_free(&x->counts[0]);
  tl_map_free(&x->counts[1]);
  free(x);
}

void tl_usage_keep_mentions(const tl_project *pj) {
  for (size_t i = 0; pj->keep_mentions && i < pj->nfiles; i++) {
    tl_file *f = &pj->files[i];
    if (!f->text) continue;
    tl_cache_text_hash(f);
    struct tl_mentions *x = f->mentions;
    if (!x || x->len != f->len || x->hash[0] != f->text_hash[0] || x->hash[1] != f->text_hash[1]) {
      tl_mentions_free(x); /* a new text: scanned this run, indexed if the next run finds it again */
      x = f->mentions = tl_calloc(1, sizeof *x);
      x->hash[0] = f->text_hash[0];
      x->hash[1] = f->text_hash[1];
      x->len = f->len;
    } else if (!x->built) {
      tl_usage__scan(f->text, f->len, false, &x->counts[0], true);
      tl_usage__scan(f->text, f->len, true, &x->counts[1], true);
      x->built = true;
    }
  }
}

/* Adds file i's mentions of the names in `mentions` (name -> count, -1 once mentioned otherwise):
 * from the file's kept index where tl_usage_keep_mentions built one, else by scanning its text.
 * Both give the same counts: a file's mentions add up whatever the other files say. */
static void tl_usage__mentions(const tl_project *pj, size_t i, tl_map *mentions, bool funcs) {
  const tl_file *f = &pj->files[i];
  if (!f->text) return;
  const struct tl_mentions *x = pj->keep_mentions ? f->mentions : NULL;
  if (!x || !x->built) {
    tl_usage__scan(f->text, f->len, funcs, mentions, false);
    return;
  }
  const tl_map *c = &x->counts[funcs];
  for (size_t k = 0; k < c->cap; k++) {
    const tl_map_entry *e = &c->slots[k];
    intptr_t v;
    if (!e->key || !tl_map_get(mentions, e->key, &v) || v < 0) continue;
    tl_map_set(mentions, e->key, e->value < 0 ? -1 : v + e->value);
  }
}

/* Does construction a (file, call) come before b: by path, then by place in the file? */
static bool tl_usage__before(const tl_project *pj, tl_ref a, tl_ref b) {
  int d = strcmp(pj->files[a.file].path, pj->files[b.file].path);
  return d ? d < 0 : a.idx < b.idx;
}

/* Per file: is it part of an application, a program (files connected by imports) with an entry
 * point (`if __name__ == "__main__":`)? A library's code is there to be used from outside. */
static bool *tl_usage__applications(const tl_project *pj) {
  size_t nf = pj->nfiles;
  bool *entry = tl_calloc(nf + 1, 1), *app = tl_calloc(nf + 1, 1);
  for (size_t i = 0; i < nf; i++)
    if (pj->files[i].model.has_main && pj->program && pj->program[i] >= 0 && (size_t)pj->program[i] < nf)
      entry[pj->program[i]] = true;
  for (size_t i = 0; i < nf; i++) app[i] = pj->program && pj->program[i] >= 0 && entry[pj->program[i]];
  free(entry);
  return app;
}

void tl_usage_untrained(const tl_project *pj, tl_callgraph *cg, tl_ref **out) {
  size_t nf = pj->nfiles;
  for (size_t i = 0; i < nf; i++) {
    out[i] = tl_calloc(pj->files[i].model.classes.n + 1, sizeof **out);
    for (size_t k = 0; k <= pj->files[i].model.classes.n; k++) out[i][k] = (tl_ref){-1, -1};
  }
  bool any_training = false;
  for (size_t i = 0; i < nf && !any_training; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t c = 0; c < m->calls.n && !any_training; c++)
      any_training = m->calls.v[c].work & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP);
  }
  if (!any_training) return; /* a library of models: nothing is known of how they are used */
  /* each call's class, when it constructs one of the project's */
  tl_usage__index x = {tl_calloc(nf + 1, sizeof *x.base), 0};
  tl_ref **ctor = tl_calloc(nf ? nf : 1, sizeof *ctor);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    x.base[i] = x.n;
    x.n += m->funcs.n;
    ctor[i] = tl_calloc(m->calls.n + 1, sizeof **ctor);
    for (size_t c = 0; c < m->calls.n; c++)
      if (!tl_callgraph_constructs(cg, (int32_t)i, &m->calls.v[c], &ctor[i][c])) ctor[i][c] = (tl_ref){-1, -1};
  }
  bool *t = tl_calloc(x.n + 1, 1);
  tl_usage__may_train(pj, cg, ctor, &x, t);
  /* per class: one construction where nothing trains (site), or trained (-2: built where a training
   * may run), or not built at all (-1) */
  tl_ref **site = tl_calloc(nf ? nf : 1, sizeof *site);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    site[i] = tl_calloc(m->classes.n + 1, sizeof **site);
    for (size_t k = 0; k < m->classes.n; k++) site[i][k] = (tl_ref){-1, -1};
  }
  tl_map built = {0}; /* class name -> resolved constructions of classes of that name */
  /* per class: a construction outside the branches taken on request (tests aside) */
  bool **plain = tl_calloc(nf ? nf : 1, sizeof *plain);
  for (size_t i = 0; i < nf; i++) plain[i] = tl_calloc(pj->files[i].model.classes.n + 1, 1);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t c = 0; c < m->calls.n; c++) {
      tl_ref k = ctor[i][c];
      if (k.file < 0) continue;
      if (!tl_project_test_file(pj, i) && !(pj->call_optin && pj->call_optin[i][c])) plain[k.file][k.idx] = true;
      const char *name = pj->files[k.file].model.classes.v[k.idx].name;
      intptr_t v = 0;
      tl_map_get(&built, name, &v);
      tl_map_set(&built, name, v + 1);
      /* a test builds every model it tests: its constructions tell nothing of how the model is used
       * (a registry or a configuration file may build it for training) */
      if (tl_project_test_file(pj, i)) continue;
      tl_ref *s = &site[k.file][k.idx];
      if (t[x.base[i] + (size_t)m->calls.v[c].func] && !(pj->call_optin && pj->call_optin[i][c])) s->file = -2;
      else if (s->file == -1 || (s->file >= 0 && tl_usage__before(pj, (tl_ref){(int32_t)i, (int32_t)c}, *s)))
        *s = (tl_ref){(int32_t)i, (int32_t)c}; /* the first by path: the same for any order of files */
    }
  }
  /* a class decorated keeps its subclasses' classes trained; so does one not built, unless it is a
   * Module of an application (a program with an entry point, as for tl_usage_uncalled) outside the
   * tests: it may be named nowhere (-4, below) */
  bool *app = tl_usage__applications(pj);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t k = 0; k < m->classes.n; k++) {
      if (m->classes.v[k].decorated) site[i][k].file = -2;
      if (site[i][k].file != -1) continue;
      bool module = tl_callgraph_class_kind(cg, (tl_ref){(int32_t)i, (int32_t)k}) & TL_CK_MODULE;
      site[i][k].file = module && app[i] && !tl_project_test_file(pj, i) ? -4 : -2;
    }
  }
  free(app);
  /* every mention of a name that is neither a construction, an import, a base nor a definition
   * (`register(Net)`, `{"net": Net}`, `isinstance(x, Net)`, "Net" in a string) may build it */
  tl_map mentions = {0}; /* name -> mentions as constructions; -1: mentioned otherwise */
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t k = 0; k < m->classes.n; k++)
      if (site[i][k].file >= 0 || site[i][k].file == -4) tl_map_set(&mentions, m->classes.v[k].name, 0);
  }
  for (size_t i = 0; i < nf && mentions.count; i++) tl_usage__mentions(pj, i, &mentions, false);
  /* a construction the graph did not resolve to the class (a name it shadows) may be anywhere */
  for (size_t i = 0; i < nf && mentions.count; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t k = 0; k < m->classes.n; k++) {
      intptr_t v, b = 0;
      if (site[i][k].file == -4) { /* not built: named nowhere, or built by a name the analysis misses */
        if (!tl_map_get(&mentions, m->classes.v[k].name, &v) || v != 0) site[i][k].file = -2;
        continue;
      }
      if (site[i][k].file < 0 || !tl_map_get(&mentions, m->classes.v[k].name, &v)) continue;
      tl_map_get(&built, m->classes.v[k].name, &b);
      if (v < 0 || v > b) site[i][k].file = -2;
    }
  }
  /* a class trained makes its project bases trained (they run as part of it) */
  tl_usage__refs stack = {0};
  for (size_t i = 0; i < nf; i++)
    for (size_t k = 0; k < pj->files[i].model.classes.n; k++) {
      if (site[i][k].file != -2) continue;
      tl_ref top = {(int32_t)i, (int32_t)k};
      tl_vec_push(&stack, top);
      while (stack.n) {
        tl_ref c = stack.v[--stack.n];
        const tl_class *cl = &pj->files[c.file].model.classes.v[c.idx];
        for (size_t b = 0; b < cl->bases.n; b++) {
          tl_ref base;
          if (!tl_callgraph_class_ref(cg, c.file, cl->bases.v[b], &base) || site[base.file][base.idx].file == -2)
            continue;
          site[base.file][base.idx].file = -2;
          tl_vec_push(&stack, base);
        }
      }
    }
  tl_vec_free(&stack);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t k = 0; k < m->classes.n; k++)
      if (site[i][k].file == -4) out[i][k] = (tl_ref){(int32_t)i, -1}; /* named nowhere */
      else if (site[i][k].file >= 0 &&
               ((tl_callgraph_class_kind(cg, (tl_ref){(int32_t)i, (int32_t)k}) & TL_CK_MODULE) || !plain[i][k]))
        out[i][k] = site[i][k]; /* a model; any other object (a runner, a logger) only where built on request */
  }
  tl_map_free(&built);
  tl_map_free(&mentions);
  for (size_t i = 0; i < nf; i++) {
    free(ctor[i]);
    free(site[i]);
    free(plain[i]);
  }
  free(ctor);
  free(site);
  free(plain);
  free(t);
  free(x.base);
}

void tl_usage_uncalled(const tl_project *pj, const tl_callgraph *cg, bool **out) {
  size_t nf = pj->nfiles;
  bool *app = tl_usage__applications(pj);
  for (size_t i = 0; i < nf; i++) out[i] = tl_calloc(pj->files[i].model.funcs.n + 1, 1);
  /* the candidates: functions of a module's body, outside tests, in a program that runs as a
   * script (a library's functions are there to be called from outside) */
  tl_map mentions = {0}; /* name -> 0 while no mention but its definition is seen */
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    if (tl_project_test_file(pj, i) || !app[i]) continue;
    for (size_t f = 1; f < m->funcs.n; f++)
      if (m->funcs.v[f].outer == 0 && m->funcs.v[f].cls < 0 && strncmp(m->funcs.v[f].name, "__", 2)) {
        intptr_t v;
        if (!tl_map_get(&mentions, m->funcs.v[f].name, &v)) tl_map_set(&mentions, m->funcs.v[f].name, 0);
        out[i][f] = true;
      }
  }
  /* a function a resolved call reaches is called; `fire.Fire()` with no argument makes every
   * function of its file a command, and every function it imports */
  bool *fire = tl_calloc(nf + 1, 1);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t c = 0; c < m->calls.n; c++) {
      if (!m->calls.v[c].nargs && !fire[i]) {
        char *q = tl_model_resolve(m, m->calls.v[c].callee);
        fire[i] = !strcmp(q, "fire.Fire");
        free(q);
        for (size_t f = 0; fire[i] && f < m->funcs.n; f++) out[i][f] = false;
      }
      tl_ref ts[TL_MAX_TARGETS];
      size_t nt = tl_callgraph_targets(cg, (int32_t)i, c, ts, TL_MAX_TARGETS);
      for (size_t k = 0; k < nt; k++) out[ts[k].file][ts[k].idx] = false;
    }
  }
  /* and so is one whose name appears anywhere but its definition, an import or `__all__` (a call
   * the graph does not resolve, a callback, a registry, a string naming it, a decorator) */
  for (size_t i = 0; i < nf && mentions.count; i++) tl_usage__mentions(pj, i, &mentions, true);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &pj->files[i].model;
    for (size_t f = 1; f < m->funcs.n; f++) {
      intptr_t v = 0;
      if (out[i][f] && (!tl_map_get(&mentions, m->funcs.v[f].name, &v) || v != 0)) out[i][f] = false;
      for (size_t j = 0; j < nf && out[i][f]; j++)
        if (fire[j] && tl_map_get(&pj->files[j].model.imports, m->funcs.v[f].name, &v)) out[i][f] = false;
    }
  }
  free(fire);
  tl_map_free(&mentions);
  free(app);
}
