/* test_incremental_random.c - random edit sequences over every fixture directory and the
 * examples, each applied through tl_analysis_edit and re-run incrementally (the editor path,
 * which re-queries only the changed statements when it can): after every run the findings and
 * diagnostics must equal those of a fresh analysis of the same texts, and the partial path must
 * have been taken for most runs (else this would test nothing new). The file models rebuilt after
 * an edit (tl_model_rebuild: the statements outside the edit copied from the last run's model) must
 * equal models built from scratch over the same tree, field by field, and the call targets kept
 * from the last project pass (tl_project.c) those a fresh analysis resolves. Some runs are
 * cancelled from another thread at a random moment (tl_analysis_cancel, as the language server
 * cancels a run that a change made useless): such a run reports nothing, and the run after it
 * must again equal a fresh analysis. */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tl_engine.h"
#include "tl_output.h"
#include "tl_test.h"
#include "trainlint.h"

#define EDITS_PER_DIR 40

typedef struct {
  char *path;
  char *text;
  size_t len;
} doc;

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return n ? (uint32_t)((rng >> 33) % n) : 0;
}

/* Everything a client sees of a finding, and the diagnostics. */
static char *render(tl_analysis *a) {
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    char *hot = tl_hot_text(f);
    tl_buf_printf(&b, "%s:%u:%u-%u:%u [%u,%u) %s %s %s | %s | %s %s stmt %u-%u |", f->path, f->line, f->col,
                  f->end_line, f->end_col, f->start_byte, f->end_byte, tl_rule_code(f->rule),
                  tl_severity_name(f->severity), f->message, hot, f->scope, f->fingerprint, f->stmt_first_line,
                  f->stmt_last_line);
    for (size_t k = 0; k < f->nfix; k++)
      tl_buf_printf(&b, " fix[%u,%u)=%s", f->fix[k].start, f->fix[k].end, f->fix[k].text);
    tl_buf_printf(&b, "\n");
    free(hot);
  }
  /* the call targets the project pass resolved (or kept from the last run) */
  for (size_t i = 0; i < a->files.n; i++) {
    const tl_file *f = &a->files.v[i];
    tl_buf_printf(&b, "targets %s:", f->path);
    for (size_t c = 0; f->targets && c < f->ntargets; c++)
      tl_buf_printf(&b, " %d.%d%s%s", f->targets[c].tgt.file, f->targets[c].tgt.idx, f->targets[c].instance ? "i" : "",
                    f->targets[c].virt ? "v" : "");
    tl_buf_printf(&b, "\n");
  }
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    const tl_diag *d = tl_analysis_diag(a, i);
    tl_buf_printf(&b, "diag %s:%u:%u %s\n", d->path, d->line, d->col, d->message);
  }
  return tl_buf_take(&b);
}

/* Everything in a file model (value nodes by range and symbol: the engine drops the nodes). */
static void dump_binding(tl_buf *b, const tl_binding *x) {
  tl_buf_printf(b, " %s@%u f%d k%d c=%s l%d v[%u,%u)s%u;", x->name, x->byte, x->func, (int)x->kind,
                x->ctor ? x->ctor : "-", x->from_loop, x->vstart, x->vend, (unsigned)x->vsym);
}

static char *dump_model(const tl_file_model *m) {
  tl_buf b = {0};
  tl_buf_printf(&b, "module %s pkg%d accel%d main%d sorted%d deep%d\n", m->module, m->is_package, m->uses_accel,
                m->has_main, m->funcs_sorted, m->deep);
  for (size_t i = 0; i < m->import_log.n; i++) {
    intptr_t v = 0;
    tl_buf_printf(&b, "import %s=%s (%s)\n", m->import_log.v[i].alias, m->import_log.v[i].qual,
                  tl_map_get(&m->imports, m->import_log.v[i].alias, &v) ? (const char *)v : "?");
  }
  tl_buf_printf(&b, "imports %zu\n", m->imports.count);
  for (size_t i = 0; i < m->funcs.n; i++) {
    const tl_func *f = &m->funcs.v[i];
    tl_buf_printf(&b, "func %s %s %s cls%d [%u,%u) %u:%u collate%d outer%d\n", f->name, f->qual, f->display, f->cls,
                  f->start, f->end, f->line, f->col, f->is_collate, f->outer);
  }
  for (size_t i = 0; i < m->classes.n; i++) {
    const tl_class *k = &m->classes.v[i];
    tl_buf_printf(&b, "class %s %s line%u bases", k->name, k->qual, k->line);
    for (size_t j = 0; j < k->bases.n; j++) tl_buf_printf(&b, " %s", k->bases.v[j]);
    for (size_t j = 0; j < k->attrs.n; j++) dump_binding(&b, &k->attrs.v[j]);
    tl_buf_printf(&b, "\n");
  }
  for (size_t i = 0; i < m->loops.n; i++) {
    const tl_loop *l = &m->loops.v[i];
    tl_buf_printf(&b, "loop f%d p%d [%u,%u) %u:%u w%d ld%d work%u it=%s\n", l->func, l->parent, l->start, l->end,
                  l->line, l->col, l->is_while, l->iterates_loader, l->work,
                  m->loop_iters.v[i] ? m->loop_iters.v[i] : "-");
  }
  for (size_t i = 0; i < m->calls.n; i++) {
    const tl_call *c = &m->calls.v[i];
    tl_buf_printf(&b, "call %s @%u %u:%u f%d l%d top%d g%d w%u splat%d args", c->callee, c->byte, c->line, c->col,
                  c->func, c->loop, c->top, c->guarded, c->work, c->splat);
    for (uint32_t k = 0; k < c->nargs; k++) { /* with their places (tl_values_summarise) */
      const tl_arg *a = &m->args.v[c->arg_first + k];
      tl_buf_printf(&b, " [%s k%u e%u d%u%s@%u p%d o%s]", a->kw ? a->kw : "-", a->kind, a->elems, a->dep.how,
                    a->dep.elem ? "e" : "", a->dep.pos, a->param, a->option ? a->option : "-");
    }
    tl_buf_putc(&b, '\n');
  }
  tl_buf_printf(&b, "bindings");
  for (size_t i = 0; i < m->bindings.n; i++) dump_binding(&b, &m->bindings.v[i]);
  tl_buf_printf(&b, "\norder");
  for (size_t i = 0; i < m->bindings.n; i++) tl_buf_printf(&b, " %u", m->bind_order[i]);
  tl_buf_printf(&b, "\nfirst");
  for (size_t i = 0; i <= m->funcs.n; i++) tl_buf_printf(&b, " %u", m->bind_first[i]);
  tl_buf_printf(&b, "\nguards");
  for (size_t i = 0; i < m->guards.n; i++)
    tl_buf_printf(&b, " [%u,%u)s%u", m->guards.v[i].start, m->guards.v[i].end, m->guards.v[i].scope);
  tl_buf_printf(&b, "\nloaders");
  for (size_t i = 0; i < m->loader_names.n; i++) tl_buf_printf(&b, " %s", m->loader_names.v[i]);
  tl_buf_printf(&b, "\ncollates");
  for (size_t i = 0; i < m->collate_names.n; i++) tl_buf_printf(&b, " %s", m->collate_names.v[i]);
  tl_buf_printf(&b, "\nguard names");
  for (size_t i = 0; i < m->guard_log.n; i++) tl_buf_printf(&b, " %s", m->guard_log.v[i]);
  tl_buf_printf(&b, "\n");
  for (size_t i = 0; i < m->suppressions.n; i++) {
    const tl_suppression *sp = &m->suppressions.v[i];
    tl_buf_printf(&b, "suppression %u:%u [%u,%u) file%d all%d", sp->line, sp->col, sp->start, sp->end, sp->file_level,
                  sp->all);
    for (size_t j = 0; j < sp->codes.n; j++) tl_buf_printf(&b, " %s", sp->codes.v[j]);
    tl_buf_printf(&b, "\n");
  }
  for (size_t i = 0; i < m->segs.n; i++) {
    const tl_segment *g = &m->segs.v[i];
    tl_buf_printf(&b, "seg [%u,%u) r%u %u %u %u %u %u %u %u %u %u %u %u\n", g->start, g->end, g->row, g->funcs,
                  g->classes, g->loops, g->calls, g->bindings, g->guards, g->loaders, g->collates, g->imports, g->gvars,
                  g->supps);
  }
  return tl_buf_take(&b);
}

/* The model of every file of `a` against one built from scratch over the same tree (the tree the
 * engine kept: tree-sitter's incremental re-parse of a text with syntax errors may differ from a
 * parse from scratch, which the findings' comparison with a fresh analysis sees). */
static void check_models(tl_analysis *a) {
  for (size_t i = 0; i < a->files.n; i++) {
    tl_file *f = &a->files.v[i];
    if (!f->ok || !f->text || !f->tree) continue;
    /* the text as the engine parses it: a BOM blanked, a lone CR made a LF */
    char *pt = malloc(f->len + 1);
    memcpy(pt, f->text, f->len + 1);
    if (f->len >= 3 && !memcmp(pt, "\xEF\xBB\xBF", 3)) memcpy(pt, "   ", 3);
    for (size_t k = 0; k < f->len; k++)
      if (pt[k] == '\r' && (k + 1 == f->len || pt[k + 1] != '\n')) pt[k] = '\n';
    tl_file_model m = {0};
    tl_diags d = {0};
    tl_model_build(&m, ts_tree_root_node(f->tree), pt, f->model.module, f->model.is_package, &d, f->path);
    char *got = dump_model(&f->model), *want = dump_model(&m);
    if (strcmp(got, want))
      fprintf(stderr, "%s: the model differs from a fresh one (%zu statements copied)\n", f->path, f->model_copied);
    CHECK_STR(got, want);
    free(got);
    free(want);
    tl_model_free(&m);
    tl_diags_free(&d);
    free(pt);
  }
}

static char *fresh(const tl_ruleset *rs, const doc *docs, size_t n) {
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < n; i++) tl_analysis_add_text(a, docs[i].path, docs[i].text, docs[i].len);
  tl_analysis_run(a);
  char *r = render(a);
  tl_analysis_delete(a);
  return r;
}

static const char *const snippets[] = {
    "x = loss.item()",
    "print(loss.item())",
    "torch.cuda.synchronize()",
    "if step % 10 == 0:",
    "for b in loader:",
    "self.w = torch.zeros(3).cuda()",
    "import numpy as np",
    "loss.backward()",
    "optimizer.step()",
    "t = torch.tensor(x).cuda()",
    "loader = DataLoader(ds, batch_size=8)",
    "def helper(t):",
    "return t.sum().item()",
    "y = float(loss)",
    "pass",
    "while True:",
    "total += loss",
    "# noqa: TL101",
    "class M(nn.Module):",
    "import torch as T",
    "device = torch.device('cuda')",
    "z = model(batch)",
};
static const char charset[] = " abcxyz_.()[]:=0123\n#'\"\t\r";

/* Nearest offset at or after `p` that does not split a UTF-8 sequence. */
static uint32_t boundary(const doc *d, uint32_t p) {
  while (p < d->len && ((unsigned char)d->text[p] & 0xC0) == 0x80) p++;
  return p;
}

/* One random edit of d: returns the new text and sets the changed byte range. */
static char *random_edit(const doc *d, uint32_t *start, uint32_t *old_end, uint32_t *new_end, size_t *nlen) {
  uint32_t len = (uint32_t)d->len, s = boundary(d, rnd(len + 1)), e = s;
  char ins[160] = "";
  switch (rnd(6)) {
  case 0: /* type a character */
    ins[0] = charset[rnd(sizeof charset - 1)];
    ins[1] = 0;
    break;
  case 1: /* delete a character */
    if (s < len) e = boundary(d, s + 1);
    break;
  case 2: /* delete a line */
    while (s > 0 && d->text[s - 1] != '\n') s--;
    e = s;
    while (e < len && d->text[e] != '\n') e++;
    if (e < len) e++;
    break;
  case 3: { /* duplicate a line */
    while (s > 0 && d->text[s - 1] != '\n') s--;
    uint32_t t = s;
    while (t < len && d->text[t] != '\n') t++;
    if (t - s + 2 < sizeof ins) {
      memcpy(ins, d->text + s, t - s);
      ins[t - s] = '\n';
      ins[t - s + 1] = 0;
    }
    e = s;
    break;
  }
  default: { /* a statement at the start of a line, with that line's indentation */
    while (s > 0 && d->text[s - 1] != '\n') s--;
    uint32_t ind = 0;
    while (s + ind < len && ind < 40 && (d->text[s + ind] == ' ' || d->text[s + ind] == '\t')) ind++;
    snprintf(ins, sizeof ins, "%.*s%s\n", (int)ind, d->text + s, snippets[rnd(sizeof snippets / sizeof *snippets)]);
    e = s;
    break;
  }
  }
  size_t il = strlen(ins);
  *nlen = d->len - (e - s) + il;
  char *t = malloc(*nlen + 1);
  memcpy(t, d->text, s);
  memcpy(t + s, ins, il);
  memcpy(t + s + il, d->text + e, d->len - e);
  t[*nlen] = 0;
  *start = s;
  *old_end = e;
  *new_end = s + (uint32_t)il;
  return t;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *run_thread(void *a) {
  tl_analysis_run(a);
  return NULL;
}

typedef struct {
  size_t runs, partial, copied, kept;
  size_t cancelled, cancelled_midway; /* runs cancelled, and those after some file's phase 1 ran */
} stats;

/* Runs `a` on another thread and cancels it after `delay_ns` (it may end first). Returns whether it
 * stopped on the request; a stopped run must report nothing. */
static bool run_cancelled(tl_analysis *a, uint64_t delay_ns, stats *st) {
  pthread_t th;
  CHECK(pthread_create(&th, NULL, run_thread, a) == 0);
  struct timespec d = {(time_t)(delay_ns / 1000000000u), (long)(delay_ns % 1000000000u)};
  nanosleep(&d, NULL);
  tl_analysis_cancel(a, true);
  pthread_join(th, NULL);
  tl_analysis_cancel(a, false);
  if (!tl_analysis_cancelled(a)) return false;
  CHECK_INT(tl_analysis_finding_count(a), 0);
  CHECK_INT(tl_analysis_diag_count(a), 0);
  st->cancelled++;
  for (size_t i = 0; i < a->files.n; i++)
    if (a->files.v[i].rerun) {
      st->cancelled_midway++;
      break;
    }
  return true;
}

/* Random edits over the Python files of one directory (one project). */
static void run_dir(const tl_ruleset *rs, const char *dir, int nruns, stats *st) {
  DIR *dp = opendir(dir);
  if (!dp) return;
  char *names[64];
  size_t nn = 0;
  struct dirent *de;
  while ((de = readdir(dp)) && nn < 64) {
    size_t l = strlen(de->d_name);
    if (l > 3 && !strcmp(de->d_name + l - 3, ".py") && !strstr(de->d_name, ".fixed.")) names[nn++] = strdup(de->d_name);
  }
  closedir(dp);
  qsort(names, nn, sizeof *names, cmp_str);
  doc docs[64];
  for (size_t i = 0; i < nn; i++) {
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", dir, names[i]);
    docs[i].path = tl_printf("%s", names[i]);
    docs[i].text = tl_test_read_file(full, &docs[i].len);
    free(names[i]);
  }
  if (!nn) return;
  tl_options o = {1, true, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < nn; i++) tl_analysis_add_text(a, docs[i].path, docs[i].text, docs[i].len);
  uint64_t t0 = now_ns();
  tl_analysis_run(a);
  uint64_t last_ns = now_ns() - t0;
  size_t before = a->partial_runs, copied_before = a->model_copied, kept_before = a->targets_kept;
  for (int k = 0; k < nruns; k++) {
    int nedits = rnd(4) == 0 ? 2 + (int)rnd(2) : 1; /* sometimes a burst, analysed once */
    for (int j = 0; j < nedits; j++) {
      doc *d = &docs[rnd((uint32_t)nn)];
      uint32_t s, oe, ne;
      size_t nl;
      char *t = random_edit(d, &s, &oe, &ne, &nl);
      tl_analysis_edit(a, d->path, s, oe, ne, t, nl);
      free(d->text);
      d->text = t;
      d->len = nl;
    }
    /* one run in four is cancelled somewhere in its course (or not at all, when it ends first) */
    if (rnd(4) == 0) run_cancelled(a, rnd((uint32_t)(last_ns * 3 / 2 / 1000u) + 1) * 1000ull, st);
    t0 = now_ns();
    tl_analysis_run(a);
    last_ns = now_ns() - t0;
    CHECK(!tl_analysis_cancelled(a));
    st->runs++;
    check_models(a);
    char *got = render(a), *want = fresh(rs, docs, nn);
    if (strcmp(got, want)) fprintf(stderr, "%s: after edit %d (seed state %llx):\n", dir, k, (unsigned long long)rng);
    CHECK_STR(got, want);
    free(got);
    free(want);
  }
  st->partial += a->partial_runs - before;
  st->copied += a->model_copied - copied_before;
  st->kept += a->targets_kept - kept_before;
  tl_analysis_delete(a);
  for (size_t i = 0; i < nn; i++) {
    free(docs[i].path);
    free(docs[i].text);
  }
}

/* A run cancelled after a file's phase 1, while the project pass resolves calls: that file's
 * call targets from the last pass belong to its old text, and the next run, with no file changed
 * since, must not take them over (here `a.py` calls `slow` instead of `fast`, with as many calls as
 * before). The cancellation comes once the project pass has begun, while it resolves the many
 * calls of big.py, the first file. */
static void test_cancel_in_project_pass(const tl_ruleset *rs) {
  const char *a0 = "from b import fast, slow\n\ndef step(x):\n    return fast(x)\n\n"
                   "for x in loader:\n    step(x)\n    opt.step()\n";
  const char *a1 = "from b import fast, slow\n\ndef step(x):\n    return slow(x)\n\n"
                   "for x in loader:\n    step(x)\n    opt.step()\n";
  const char *b = "def fast(x):\n    return x\n\ndef slow(x):\n    return x.sum().item()\n";
  tl_buf big = {0};
  for (int i = 0; i < 20000; i++) tl_buf_printf(&big, "v%d = f(%d)\n", i, i);
  doc docs[3] = {{"big.py", big.data, big.len}, {"a.py", (char *)a1, strlen(a1)}, {"b.py", (char *)b, strlen(b)}};
  tl_options o = {1, true, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, "big.py", big.data, big.len);
  tl_analysis_add_text(a, "a.py", a0, strlen(a0));
  tl_analysis_add_text(a, "b.py", b, strlen(b));
  tl_analysis_run(a);
  /* A run that ends before the cancellation lands (a busy machine) is an ordinary run: edit a.py
   * again, the other way, and try again. */
  int cancelled = 0;
  for (int attempt = 0; attempt < 8 && !cancelled; attempt++) {
    const char *t = attempt % 2 ? a0 : a1, *other = attempt % 2 ? a1 : a0;
    tl_analysis_set_text(a, "a.py", t, strlen(t));
    tl_project_free(&a->project); /* (the last run's: the next makes it again when its project pass begins) */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, run_thread, a) == 0);
    uint64_t t0 = now_ns();
    while (!__atomic_load_n(&a->project.fstate, __ATOMIC_ACQUIRE) && now_ns() - t0 < 10000000000ull) {}
    tl_analysis_cancel(a, true);
    pthread_join(th, NULL);
    tl_analysis_cancel(a, false);
    cancelled = tl_analysis_cancelled(a);
    if (cancelled) tl_analysis_run(a);
    docs[1].text = (char *)t;
    docs[1].len = strlen(t);
    char *got = render(a), *want = fresh(rs, docs, 3);
    CHECK_STR(got, want);
    docs[1].text = (char *)other;
    docs[1].len = strlen(other);
    char *before = fresh(rs, docs, 3);
    CHECK(strcmp(before, want) != 0); /* a.py's call targets differ */
    free(got);
    free(want);
    free(before);
  }
  CHECK(cancelled);
  tl_analysis_delete(a);
  free(big.data);
}

/* A node of a configuration tree (`_C.TRAIN.CLIP_GRAD = 5.0`) declares a setting only while `_C` is
 * bound to a tree, which another statement says: an edit of that statement alone must change what
 * the unchanged node declares (the `else` of `if config.TRAIN.CLIP_GRAD:` runs on request, or as
 * shipped), as a fresh analysis of the same text does. */
static void test_config_tree_root_edit(const tl_ruleset *rs) {
  const char *cfg[2] = {
      "from yacs.config import CfgNode as CN\n_C = CN()\n_C.TRAIN = CN()\n_C.TRAIN.CLIP_GRAD = 5.0\n",
      "from yacs.config import CfgNode as CN\n_C = XX()\n_C.TRAIN = CN()\n_C.TRAIN.CLIP_GRAD = 5.0\n"};
  const char *train = "import torch\nfrom config import _C as config\n\n"
                      "def train(model, loader, opt):\n    for x in loader:\n"
                      "        loss = model(x.cuda(non_blocking=True)).mean()\n        loss.backward()\n"
                      "        if config.TRAIN.CLIP_GRAD:\n            pass\n        else:\n"
                      "            print(loss.item())\n        opt.step()\n";
  tl_options o = {1, true, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, "config.py", cfg[0], strlen(cfg[0]));
  tl_analysis_add_text(a, "train.py", train, strlen(train));
  tl_analysis_run(a);
  char *first = render(a);
  for (int k = 1; k <= 4; k++) {
    const char *was = cfg[(k - 1) % 2], *now = cfg[k % 2];
    uint32_t at = (uint32_t)(strstr(was, "_C = ") - was) + 5; /* `CN` <-> `XX` */
    tl_analysis_edit(a, "config.py", at, at + 2, at + 2, now, strlen(now));
    tl_analysis_run(a);
    doc docs[2] = {{"config.py", (char *)now, strlen(now)}, {"train.py", (char *)train, strlen(train)}};
    char *got = render(a), *want = fresh(rs, docs, 2);
    CHECK_STR(got, want);
    if (k % 2) CHECK(strcmp(got, first) != 0); /* not a tree: the `else` runs as shipped */
    free(got);
    free(want);
  }
  free(first);
  tl_analysis_delete(a);
}

/* Text with a syntax error, edited and then restored: each run must report what a fresh analysis
 * of the same text reports (found by fuzz_edit). */
static void test_error_edit_undo(const tl_ruleset *rs) {
  const char *texts[3] = {")\n f", ")\n f\"", ")\n f"};
  tl_options o = {1, true, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, "t.py", texts[0], strlen(texts[0]));
  tl_analysis_run(a);
  for (int k = 1; k < 3; k++) {
    uint32_t old_end = k == 1 ? 4 : 5, new_end = k == 1 ? 5 : 4;
    tl_analysis_edit(a, "t.py", 4, old_end, new_end, texts[k], strlen(texts[k]));
    tl_analysis_run(a);
    doc d = {"t.py", (char *)texts[k], strlen(texts[k])};
    char *got = render(a), *want = fresh(rs, &d, 1);
    if (strcmp(got, want)) fprintf(stderr, "step %d:\n got: %s\nwant: %s\n", k, got, want);
    CHECK_STR(got, want);
    free(got);
    free(want);
  }
  tl_analysis_delete(a);
}

int main(void) {
  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs));
  const char *all[] = {"ALL"};
  tl_ruleset_select(rs, all, 1, NULL, 0);
  CHECK(tl_ruleset_compile(rs));
  stats st = {0};
  test_cancel_in_project_pass(rs);
  test_config_tree_root_edit(rs);
  test_error_edit_undo(rs);
  char dir[4096];
  DIR *dp = opendir(TL_SOURCE_DIR "/fixtures");
  CHECK(dp != NULL);
  char *codes[256];
  size_t nc = 0;
  struct dirent *de;
  while (dp && (de = readdir(dp)) && nc < 256)
    if (de->d_name[0] != '.') codes[nc++] = strdup(de->d_name);
  if (dp) closedir(dp);
  qsort(codes, nc, sizeof *codes, cmp_str);
  for (size_t i = 0; i < nc; i++) {
    snprintf(dir, sizeof dir, "%s/fixtures/%s", TL_SOURCE_DIR, codes[i]);
    run_dir(rs, dir, EDITS_PER_DIR, &st);
    /* and each project below it (fixtures/TL101/uncalled: what tl_usage.c decides across files,
     * from the mentions the editor's runs keep per file and the fresh analysis scans again) */
    DIR *sp = opendir(dir);
    char *subs[64];
    size_t ns = 0;
    while (sp && (de = readdir(sp)) && ns < 64) {
      char *sub = tl_printf("%s/%s", dir, de->d_name);
      DIR *probe = de->d_name[0] != '.' && strcmp(de->d_name, "snapshots") ? opendir(sub) : NULL;
      if (probe) {
        closedir(probe);
        subs[ns++] = sub;
      } else {
        free(sub);
      }
    }
    if (sp) closedir(sp);
    qsort(subs, ns, sizeof *subs, cmp_str);
    for (size_t k = 0; k < ns; k++) {
      run_dir(rs, subs[k], EDITS_PER_DIR / 4, &st);
      free(subs[k]);
    }
    free(codes[i]);
  }
  run_dir(rs, TL_SOURCE_DIR "/examples", EDITS_PER_DIR, &st);
  /* A sequence found with more edits: statements with syntax errors were copied into the model from
   * the last run, but error recovery had parsed the same text differently (a loop body starting
   * elsewhere), and findings differed. (It depends on fixtures/TL106 as it was on 2026-11-26.) */
  rng = 0xa68d4c5c70720b89ull;
  run_dir(rs, TL_SOURCE_DIR "/fixtures/TL106", 110, &st);
  printf("%zu incremental runs, %zu files re-queried only over their changed statements, %zu top-level statements' "
         "models copied, %zu call targets kept; %zu runs cancelled before them, %zu after some file's phase 1\n",
         st.runs, st.partial, st.copied, st.kept, st.cancelled, st.cancelled_midway);
  CHECK(st.runs >= 20 * EDITS_PER_DIR);
  CHECK(st.partial * 2 >= st.runs); /* the partial path was taken for at least half of the runs */
  CHECK(st.copied >= 2 * st.runs);  /* and models were mostly copied, not walked again */
  CHECK(st.kept >= 10 * st.runs);   /* and calls' targets kept from the run before */
  /* cancellations happened (a run in four is asked to stop, at a random moment: on a busy machine
   * more runs end first), many after phase 1 had begun */
  CHECK(st.cancelled * 40 >= st.runs);
  CHECK(st.cancelled_midway * 8 >= st.cancelled);
  tl_ruleset_delete(rs);
  TEST_DONE();
}
