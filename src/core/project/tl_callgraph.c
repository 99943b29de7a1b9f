/* tl_callgraph.c - the project's call graph (phase 2): modules, classes and functions of every
 * file indexed by qualified name; each call resolved to the project function it runs, through
 * imports, `self`, attributes and local instances of project classes, `super()`, and the
 * overrides in project subclasses that `self.m()` may dispatch to; class kinds (Module, Dataset)
 * through project bases. */
#include "tl_callgraph.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tl_vocab.h"

/* Encoded local entities (tl_callgraph.locals): functions as idx + 1, classes as -(idx + 1). */

/* A qualified name as its module's own entities are keyed (tl_callgraph.locals): without the module
 * prefix (`pkg.mod.Class.method` in `pkg.mod` -> `Class.method`). */
static const char *tl_callgraph__local_key(const char *module, const char *qual) {
  size_t ml = strlen(module);
  return ml && !strncmp(qual, module, ml) && qual[ml] == '.' ? qual + ml + 1 : qual;
}

static void tl_index_files(tl_callgraph *p) {
  p->locals = tl_calloc(p->nfiles ? p->nfiles : 1, sizeof *p->locals);
  for (size_t i = 0; i < p->nfiles; i++) {
    tl_file *f = &p->files[i];
    if (!f->ok) continue;
    const char *mod = f->model.module;
    tl_map_set(&p->modules, mod, (intptr_t)i + 1);
    size_t pl = strlen(f->path);
    if (pl > 3 && !strcmp(f->path + pl - 3, ".py")) {
      char *key = tl_strndup(f->path, pl - 3);
      tl_map_set(&p->paths, key, (intptr_t)i + 1);
      size_t kl = strlen(key);
      if (kl >= 8 && !strcmp(key + kl - 8, "__init__") && (kl == 8 || key[kl - 9] == '/')) {
        key[kl > 8 ? kl - 9 : 0] = 0;
        tl_map_set(&p->paths, key, (intptr_t)i + 1);
        tl_map_set(&p->packages, key, 1);
      }
      free(key);
    }
    /* every suffix: a.b.c, b.c, c */
    for (const char *s = mod; s;) {
      intptr_t old;
      if (tl_map_get(&p->suffixes, s, &old) && old != (intptr_t)i + 1) tl_map_set(&p->suffixes, s, -1);
      else tl_map_set(&p->suffixes, s, (intptr_t)i + 1);
      s = strchr(s, '.');
      if (s) s++;
    }
    for (size_t k = 0; k < f->model.classes.n; k++) {
      const char *key = tl_callgraph__local_key(mod, f->model.classes.v[k].qual);
      tl_map_set(&p->locals[i], key, -(intptr_t)k - 1);
    }
    for (size_t k = 1; k < f->model.funcs.n; k++) {
      const char *key = tl_callgraph__local_key(mod, f->model.funcs.v[k].qual);
      tl_map_set(&p->locals[i], key, (intptr_t)k + 1);
    }
  }
}

static int32_t tl_find_module(const tl_callgraph *p, const char *mod) {
  intptr_t v;
  if (tl_map_get(&p->modules, mod, &v)) return (int32_t)v - 1;
  if (tl_map_get(&p->suffixes, mod, &v) && v > 0) return (int32_t)v - 1;
  return -1;
}

/* The project module a qualified name names: the longest prefix of it that is one, or -1. */
static int32_t tl_module_of(const tl_callgraph *p, const char *qual) {
  char *q = tl_strdup(qual);
  int32_t fi = -1;
  for (char *dot = q + strlen(q); fi < 0 && dot;) {
    *dot = 0;
    fi = tl_find_module(p, q);
    dot = strrchr(q, '.');
  }
  free(q);
  return fi;
}

/* A script imports from its own directory first: Python puts a script's directory at the front of
 * `sys.path`. For file fi, a script (it tests `__name__ == "__main__"`) or a file outside any
 * package, a qualified name whose leading parts name a module beside it (`models.can.CAN` from
 * `ref/train.py`, with `ref/models/can.py`) is that module's: the name rebased on its module name
 * ("ref.models.can.CAN"), to free. NULL when nothing beside it matches (the name stands). Monorepos
 * of examples hold many `models/` and `utils.py`; each script's own are the ones it imports. */
static char *tl_callgraph__rebase(const tl_callgraph *p, int32_t fi, const char *qual) {
  if (fi < 0 || (size_t)fi >= p->nfiles || !qual[0]) return NULL;
  const tl_file *f = &p->files[fi];
  const char *slash = strrchr(f->path, '/');
  char *dir = slash ? tl_strndup(f->path, (size_t)(slash - f->path)) : tl_strdup("");
  intptr_t v;
  if (!f->model.has_main && dir[0] && tl_map_get(&p->packages, dir, &v)) {
    free(dir);
    return NULL;
  }
  char *cand = tl_printf("%s%s%s", dir, dir[0] ? "/" : "", qual);
  size_t base = strlen(dir) + (dir[0] ? 1 : 0);
  free(dir);
  for (char *q = cand + base; *q; q++)
    if (*q == '.') *q = '/';
  char *out = NULL;
  for (size_t n = strlen(cand); n > base && !out;) {
    cand[n] = 0;
    if (tl_map_get(&p->paths, cand, &v) && v > 0 && v - 1 != fi) {
      /* only where the name alone would name another module, or none */
      if (tl_module_of(p, qual) != (int32_t)(v - 1))
        out = tl_printf("%s%s", p->files[v - 1].model.module, qual + (n - base));
      break;
    }
    while (n > base && cand[n - 1] != '/') n--;
    if (n > base) n--;
  }
  free(cand);
  return out;
}

/* The project module an import of file fi names (`import a.b`, `from a.b import c`): the longest
 * prefix of its qualified name that is one (beside a script first: tl_callgraph__rebase), or -1. */
static int32_t tl_import_module(const tl_callgraph *p, int32_t importer, const char *qual) {
  char *rebased = tl_callgraph__rebase(p, importer, qual);
  int32_t fi = tl_module_of(p, rebased ? rebased : qual);
  free(rebased);
  return fi;
}

static int32_t tl_program_root(int32_t *up, int32_t i) {
  while (up[i] != i) {
    up[i] = up[up[i]];
    i = up[i];
  }
  return i;
}

void tl_callgraph_programs(const tl_callgraph *p, int32_t *out, bool *imported) {
  for (size_t i = 0; i < p->nfiles; i++) {
    out[i] = (int32_t)i;
    imported[i] = p->files[i].ok && p->files[i].model.is_package;
  }
  for (size_t i = 0; i < p->nfiles; i++) {
    const tl_file *f = &p->files[i];
    if (!f->ok) continue;
    const tl_map *im = &f->model.imports;
    for (size_t s = 0; s < im->cap; s++) {
      if (!im->slots[s].key) continue;
      int32_t fi = tl_import_module(p, (int32_t)i, (const char *)im->slots[s].value);
      if (fi < 0 || (size_t)fi == i) continue;
      imported[fi] = true;
      int32_t a = tl_program_root(out, (int32_t)i), b = tl_program_root(out, fi);
      if (a < b) out[b] = a;
      else out[a] = b;
    }
  }
  for (size_t i = 0; i < p->nfiles; i++) out[i] = tl_program_root(out, (int32_t)i);
}

/* Looks a qualified name up in the project: "pkg.model.Net.forward" -> (file, entity). A name that
 * the module only imports (`from .layers import Net` in pkg/model.py or in a package's
 * __init__.py) is looked up where it comes from, through up to 4 such re-exports. */
static bool tl_lookup_qual_at(const tl_callgraph *p, const char *qual, int32_t *file, intptr_t *ent, int depth) {
  size_t n = strlen(qual);
  for (size_t i = n; i > 0; i--) {
    if (qual[i - 1] != '.') continue;
    char *mod = tl_strndup(qual, i - 1);
    int32_t fi = tl_find_module(p, mod);
    free(mod);
    if (fi < 0) continue;
    if (tl_map_get(&p->locals[fi], qual + i, ent)) {
      *file = fi;
      return true;
    }
    if (depth < 4 && p->files[fi].ok) {
      /* a name the module imports: where it comes from, as that module names it */
      char *from = tl_model_resolve(&p->files[fi].model, qual + i);
      char *rb = strcmp(from, qual + i) ? tl_callgraph__rebase(p, fi, from) : NULL;
      bool hit = strcmp(from, qual + i) && strcmp(rb ? rb : from, qual) &&
                 tl_lookup_qual_at(p, rb ? rb : from, file, ent, depth + 1);
      free(rb);
      free(from);
      if (hit) return true;
      /* `from .ema import *` in the module: the name may be one of that module's */
      intptr_t star;
      char key[24];
      for (int k = 0; !strchr(qual + i, '.') && k < 64; k++) {
        snprintf(key, sizeof key, "*%d", k);
        if (!tl_map_get(&p->files[fi].model.imports, key, &star)) break;
        char *in = tl_printf("%s.%s", (const char *)star, qual + i);
        char *inr = tl_callgraph__rebase(p, fi, in);
        hit = strcmp(inr ? inr : in, qual) && tl_lookup_qual_at(p, inr ? inr : in, file, ent, depth + 1);
        free(inr);
        free(in);
        if (hit) return true;
      }
    }
  }
  return false;
}

/* Looks up a qualified name as file `importer` names it (tl_callgraph__rebase). */
static bool tl_lookup_qual(const tl_callgraph *p, int32_t importer, const char *qual, int32_t *file, intptr_t *ent) {
  char *rebased = tl_callgraph__rebase(p, importer, qual);
  bool ok = tl_lookup_qual_at(p, rebased ? rebased : qual, file, ent, 0);
  free(rebased);
  return ok;
}

/* A class named by `name` as seen from file fi ("Net", "models.Net", "nn.Module"). */
bool tl_callgraph_class_ref(const tl_callgraph *p, int32_t fi, const char *name, tl_ref *out) {
  intptr_t ent;
  if (!strchr(name, '(') && tl_map_get(&p->locals[fi], name, &ent) && ent < 0) {
    *out = (tl_ref){fi, (int32_t)(-ent - 1)};
    return true;
  }
  char *q = tl_model_resolve(&p->files[fi].model, name);
  int32_t f2;
  bool ok = tl_lookup_qual(p, fi, q, &f2, &ent) && ent < 0;
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


static int tl_callgraph__class_kind(tl_callgraph *p, tl_ref c, int depth) {
  int8_t *k = &p->class_kind[c.file][c.idx];
  if (*k & TL_CK_DONE) return *k & 3;
  if ((*k & TL_CK_BUSY) || depth > 32) return 0;
  *k |= TL_CK_BUSY;
  int out = 0;
  const tl_class *cl = &p->files[c.file].model.classes.v[c.idx];
  for (size_t i = 0; i < cl->bases.n; i++) {
    const char *b = cl->bases.v[i];
    tl_ref base;
    if (tl_callgraph_class_ref(p, c.file, b, &base) && !(base.file == c.file && base.idx == c.idx)) {
      out |= tl_callgraph__class_kind(p, base, depth + 1);
      continue;
    }
    if (tl_base_is_module(b)) out |= TL_CK_MODULE;
    if (tl_base_is_dataset(b)) out |= TL_CK_DATASET;
  }
  *k = (int8_t)(TL_CK_DONE | out);
  return out;
}

/* The method `name` of class c or its project bases. */
static bool tl_method(tl_callgraph *p, tl_ref c, const char *name, tl_ref *out, int depth) {
  if (depth > 16) return false;
  const tl_file *f = &p->files[c.file];
  const tl_class *cl = &f->model.classes.v[c.idx];
  const char *mod = f->model.module;
  const char *ckey = tl_callgraph__local_key(mod, cl->qual);
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
    if (tl_callgraph_class_ref(p, c.file, cl->bases.v[i], &base) && !(base.file == c.file && base.idx == c.idx) &&
        tl_method(p, base, name, out, depth + 1))
      return true;
  }
  return false;
}

bool tl_callgraph_method(tl_callgraph *cg, tl_ref cls, const char *name, tl_ref *out) {
  return tl_method(cg, cls, name, out, 0);
}

/* The class of the value bound to `name` before `byte` in function `func` of file fi, if a project class. */
/* Methods of a Module that return the module itself: `Net(...).cuda()`, `net = net.to(device)` bind
 * the same object. */
/* The class a call constructs: `Net(...)`, `models.Net(...)`, `Net.from_pretrained(...)`. Only a
 * CapWords name is looked up (a class named in lower case is left unbuilt: it keeps its root). */
bool tl_callgraph_constructs(const tl_callgraph *cg, int32_t fi, const tl_call *cl, tl_ref *out) {
  const char *callee = cl->callee;
  if (!callee[0] || strpbrk(callee, "([") || !strncmp(callee, "super()", 7) || !strncmp(callee, "self.", 5))
    return false;
  size_t n;
  const char *last = tl_dotted_last(callee, &n);
  if (n && isupper((unsigned char)last[0])) return tl_callgraph_class_ref(cg, fi, callee, out);
  if (!n || last == callee || strncmp(last, "from_", 5)) return false;
  char *recv = tl_strndup(callee, (size_t)(last - 1 - callee));
  const char *rl = tl_dotted_last(recv, &n);
  bool ok = n && isupper((unsigned char)rl[0]) && tl_callgraph_class_ref(cg, fi, recv, out);
  free(recv);
  return ok;
}

static bool tl_instance_class(tl_callgraph *p, int32_t fi, int32_t func, const char *name, uint32_t byte, tl_ref *out) {
  const tl_file_model *m = &p->files[fi].model;
  if (func < 0 || (size_t)func >= m->funcs.n) return false;
  const tl_binding *best = tl_model_binding(m, name, func, byte); /* the function's bindings only */
  /* `net = net.cuda()` (a Module's own method that returns it: tl_vocab_module_self_methods) binds
   * what the binding before did, up to 4 times (`Net(cfg).cuda()` the model records as `Net`) */
  size_t nl = strlen(name);
  for (int hop = 0; best && best->ctor && hop < 4; hop++) {
    if (tl_callgraph_class_ref(p, fi, best->ctor, out)) return true;
    size_t n;
    const char *last = tl_dotted_last(best->ctor, &n);
    if (last != best->ctor + nl + 1 || strncmp(best->ctor, name, nl) ||
        !tl_str_in(last, n, tl_vocab_module_self_methods) || !best->byte)
      return false;
    const tl_binding *prev = tl_model_binding(m, name, func, best->byte - 1);
    best = prev != best ? prev : NULL;
  }
  if (best) return false;
  /* self.attr: from the class's attribute table */
  int32_t cls = m->funcs.v[func].cls;
  if (cls >= 0 && !strncmp(name, "self.", 5) && !strchr(name + 5, '.')) {
    const tl_class *k = &m->classes.v[cls];
    for (size_t i = 0; i < k->attrs.n; i++)
      if (!strcmp(k->attrs.v[i].name, name + 5) && k->attrs.v[i].ctor &&
          tl_callgraph_class_ref(p, fi, k->attrs.v[i].ctor, out))
        return true;
  }
  return false;
}

static tl_target tl_resolve(tl_callgraph *p, int32_t fi, const tl_call *c) {
  tl_target t = {{-1, -1}, false, false};
  const tl_file_model *m = &p->files[fi].model;
  const char *callee = c->callee;
  int32_t cls = m->funcs.v[c->func].cls;
  tl_ref inst;
  if (!strncmp(callee, "super().", 8) && cls >= 0 && !strchr(callee + 8, '.')) {
    const tl_class *k = &m->classes.v[cls];
    for (size_t i = 0; i < k->bases.n && t.tgt.file < 0; i++) {
      tl_ref base;
      if (tl_callgraph_class_ref(p, fi, k->bases.v[i], &base)) tl_method(p, base, callee + 8, &t.tgt, 0);
    }
    return t;
  }
  const char *sub = strchr(callee, '[');
  if (sub && sub[1] == ']' && sub[2] == '.' && !strpbrk(sub + 2, "([") && !strchr(sub + 3, '.') &&
      !memchr(callee, '(', (size_t)(sub - callee))) {
    /* meters[k].update(v): a method of what the container's elements are made by */
    char *recv = tl_strndup(callee, (size_t)(sub + 2 - callee));
    if (tl_instance_class(p, fi, c->func, recv, c->byte, &inst)) tl_method(p, inst, sub + 3, &t.tgt, 0);
    free(recv);
    return t;
  }
  if (strpbrk(callee, "([")) return t;
  const char *dot = strrchr(callee, '.');
  if (!strcmp(callee, "self") && cls >= 0) {
    if (tl_method(p, (tl_ref){fi, cls}, "forward", &t.tgt, 0)) t.instance = true;
    return t;
  }
  /* Calling an object: an instance of a project class runs its forward (Module) or __call__. */
  if (tl_instance_class(p, fi, c->func, callee, c->byte, &inst)) {
    if (tl_callgraph_class_kind(p, inst) & TL_CK_MODULE) {
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
      if (tl_callgraph_class_ref(p, fi, recv, &k)) {
        tl_method(p, k, meth, &t.tgt, 0); /* Class.method(...) */
      } else {
        char *q = tl_model_resolve(m, callee);
        int32_t f2;
        intptr_t ent;
        if (tl_lookup_qual(p, fi, q, &f2, &ent) && ent > 0) t.tgt = (tl_ref){f2, (int32_t)ent - 1};
        free(q);
      }
    }
    free(recv);
    return t;
  }
  /* a function defined in the caller or in a function around it (`def _forward(): ...` in the
   * step loop's body, then `_forward()`): the innermost one of that name, whose qualified name is
   * its definer's and `.<locals>.` and its own */
  for (int32_t f = c->func; f > 0 && (size_t)f < m->funcs.n; f = m->funcs.v[f].outer) {
    char *key = tl_concat(tl_callgraph__local_key(m->module, m->funcs.v[f].qual), ".<locals>.", callee);
    intptr_t e;
    bool found = tl_map_get(&p->locals[fi], key, &e) && e > 0;
    free(key);
    if (found) {
      t.tgt = (tl_ref){fi, (int32_t)e - 1};
      return t;
    }
  }
  intptr_t ent;
  if (tl_map_get(&p->locals[fi], callee, &ent) && ent > 0 && m->funcs.v[ent - 1].cls < 0) {
    t.tgt = (tl_ref){fi, (int32_t)ent - 1};
    return t;
  }
  char *q = tl_model_resolve(m, callee);
  int32_t f2;
  if (strcmp(q, callee) && tl_lookup_qual(p, fi, q, &f2, &ent) && ent > 0) t.tgt = (tl_ref){f2, (int32_t)ent - 1};
  free(q);
  return t;
}

/* Overrides: for each method M of a project class D, every ancestor class's method that a call
 * `self.<name>()` in that ancestor resolves to gets M as an override (virtual dispatch: the step
 * loop of a base class's train() runs the subclass's run_step()). */
static void tl_add_overrides(tl_callgraph *p, tl_ref cls, tl_ref meth, const char *name, int depth) {
  if (depth > 16) return;
  const tl_class *cl = &p->files[cls.file].model.classes.v[cls.idx];
  for (size_t i = 0; i < cl->bases.n; i++) {
    tl_ref base, r;
    if (!tl_callgraph_class_ref(p, cls.file, cl->bases.v[i], &base) || (base.file == cls.file && base.idx == cls.idx))
      continue;
    if (tl_method(p, base, name, &r, 0) && !(r.file == meth.file && r.idx == meth.idx)) {
      tl_refs *o = &p->overrides[r.file][r.idx];
      bool have = false;
      for (size_t k = 0; k < o->n && !have; k++) have = o->v[k].file == meth.file && o->v[k].idx == meth.idx;
      if (!have) tl_vec_push(o, meth);
    }
    tl_add_overrides(p, base, meth, name, depth + 1);
  }
}

static void tl_index_overrides(tl_callgraph *p) {
  size_t nf = p->nfiles;
  p->overrides = tl_calloc(nf ? nf : 1, sizeof *p->overrides);
  for (size_t i = 0; i < nf; i++) p->overrides[i] = tl_calloc(p->files[i].model.funcs.n + 1, sizeof **p->overrides);
  for (size_t i = 0; i < nf; i++) {
    const tl_file_model *m = &p->files[i].model;
    for (size_t f = 0; f < m->funcs.n; f++)
      if (m->funcs.v[f].cls >= 0 && m->funcs.v[f].outer >= 0 && m->funcs.v[m->funcs.v[f].outer].cls < 0 &&
          strncmp(m->funcs.v[f].name, "__", 2))
        tl_add_overrides(p, (tl_ref){(int32_t)i, m->funcs.v[f].cls}, (tl_ref){(int32_t)i, (int32_t)f},
                         m->funcs.v[f].name, 0);
  }
}

size_t tl_callgraph_targets(const tl_callgraph *p, int32_t fi, size_t c, tl_ref *out, size_t max) {
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

int tl_callgraph_class_kind(tl_callgraph *p, tl_ref c) { return tl_callgraph__class_kind(p, c, 0); }

void tl_callgraph_build(tl_callgraph *p, tl_file *files, size_t nfiles, size_t *kept, const size_t *cancel) {
  memset(p, 0, sizeof *p);
  p->files = files;
  p->nfiles = nfiles;
  size_t nf = nfiles;
  tl_index_files(p);
  p->class_kind = tl_calloc(nf ? nf : 1, sizeof *p->class_kind);
  p->targets = tl_calloc(nf ? nf : 1, sizeof *p->targets);
  for (size_t i = 0; i < nf; i++) p->class_kind[i] = tl_calloc(files[i].model.classes.n + 1, 1);
  /* The calls' targets. Those of the last run stand when no file was added, removed or analysed
   * again in full since: every file is either unchanged or was re-queried only over its changed
   * statements (tl_file_analyze: its model is the same outside them). Then only the calls that
   * file's phase 1 did not map to an old call (those of functions inside the changed region, and
   * those inside it) are resolved again. */
  bool keep = true;
  for (size_t i = 0; i < nf && keep; i++) {
    const tl_file *f = &files[i];
    keep = f->targets && (!f->rerun ? f->ntargets == f->model.calls.n : f->partial && f->call_map);
  }
  for (size_t i = 0; i < nf; i++) {
    if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) {
      p->stopped = true;
      break;
    }
    tl_file *f = &files[i];
    const tl_file_model *m = &f->model;
    p->targets[i] = tl_calloc(m->calls.n + 1, sizeof(tl_target));
    for (size_t c = 0; c < m->calls.n; c++) {
      uint32_t o = !keep ? UINT32_MAX : f->rerun ? f->call_map[c] : (uint32_t)c;
      if (o != UINT32_MAX && o < f->ntargets) {
        p->targets[i][c] = f->targets[o];
        (*kept)++;
      } else {
        p->targets[i][c] = tl_resolve(p, (int32_t)i, &m->calls.v[c]);
      }
    }
  }
  tl_index_overrides(p);
}

void tl_callgraph_free(tl_callgraph *p) {
  for (size_t i = 0; i < p->nfiles; i++) {
    free(p->class_kind[i]);
    tl_file *fi = &p->files[i]; /* kept for the next run */
    if (p->stopped) {
      free(p->targets[i]);
    } else {
      free(fi->targets);
      fi->targets = p->targets[i];
      fi->ntargets = fi->model.calls.n;
    }
    for (size_t f = 0; f < fi->model.funcs.n; f++) tl_vec_free(&p->overrides[i][f]);
    free(p->overrides[i]);
    tl_map_free(&p->locals[i]);
  }
  free(p->class_kind);
  free(p->targets);
  free(p->overrides);
  free(p->locals);
  tl_map_free(&p->modules);
  tl_map_free(&p->suffixes);
  tl_map_free(&p->paths);
  tl_map_free(&p->packages);
  memset(p, 0, sizeof *p);
}
