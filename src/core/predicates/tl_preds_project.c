/* tl_preds_project.c - predicates decided once the whole project is known (deferred: the matcher
 * records their capture's range, tl_project_deferred_hold asks them after the project pass). */
#include "tl_engine.h"
#include "tl_callgraph.h"

#include <ctype.h>
#include <string.h>

/* #project-match? "regex": some file of the project matches, over its code (comments and
 * docstrings blanked), with the usual limits. #program-match? "regex": some file of the match's
 * program does (tl_project.program: the files connected to its file by imports), so that one
 * directory of independent example programs is not taken for one program. Decided once per run
 * (and program); each file's verdict is kept until the file changes (an editor re-runs one file). */
static bool tl_project__match_in(tl_analysis *a, const tl_pred *p, int32_t program, pcre2_match_data *md) {
  size_t j = 0;
  while (j < a->project.pmatch.n && (a->project.pmatch.v[j].pred != p || a->project.pmatch.v[j].program != program))
    j++;
  if (j < a->project.pmatch.n) return a->project.pmatch.v[j].result;
  tl_pmatch pm = {p, program, false};
  pcre2_match_context *mctx = pcre2_match_context_create(NULL);
  pcre2_set_match_limit(mctx, TL_REGEX_MATCH_LIMIT);
  pcre2_set_depth_limit(mctx, TL_REGEX_DEPTH_LIMIT);
  /* the files with a verdict kept from an earlier run first: a file that matches spares the
   * scan of the others (an edited file's, on every keystroke) */
  for (int pass = 0; pass < 2 && !pm.result; pass++)
    for (size_t i = 0; i < a->files.n && !pm.result; i++) {
      tl_file *f = &a->files.v[i];
      if (!f->ok || !f->text || (program >= 0 && (!a->project.program || a->project.program[i] != program))) continue;
      size_t v = 0;
      while (v < f->pfmatch.n && f->pfmatch.v[v].pred != p) v++;
      if (v == f->pfmatch.n) {
        if (pass == 0) continue;
        /* (f->text was checked to be UTF-8 when read, and blanking keeps it so) */
        char *code = f->code && f->code_is_text ? f->code : tl_code_text(f->text, f->len, true);
        tl_filematch fm = {p, tl_regex_match(p->re, code, f->len, PCRE2_NO_UTF_CHECK, md, mctx) >= 0};
        if (code != f->code) free(code);
        tl_vec_push(&f->pfmatch, fm);
      }
      pm.result = f->pfmatch.v[v].result;
    }
  pcre2_match_context_free(mctx);
  tl_vec_push(&a->project.pmatch, pm);
  return pm.result;
}

static bool tl_project__match(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                              pcre2_match_data *md) {
  (void)file;
  (void)start;
  (void)end;
  return tl_project__match_in(a, p, -1, md);
}

static bool tl_project__program_match(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                      pcre2_match_data *md) {
  (void)start;
  (void)end;
  int32_t program = a->project.program && file < a->files.n ? a->project.program[file] : (int32_t)file;
  return tl_project__match_in(a, p, program, md);
}

/* #training-loop? @loop: a step loop that runs a backward pass and an optimizer step, in it or in
 * the project functions it calls, outside a test module */
static bool tl_project__training_loop(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                      pcre2_match_data *md) {
  (void)p;
  (void)end;
  (void)md;
  if (file >= a->project.nwork || tl_project_test_file(&a->project, file) || tl_project_eval_file(&a->project, file))
    return false;
  const tl_file_model *m = &a->files.v[file].model;
  for (size_t l = 0; l < m->loops.n; l++)
    if (m->loops.v[l].start == start)
      return a->project.step_loops[file][l] &&
             (a->project.loop_work[file][l] & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP)) ==
                 (TL_WORK_BACKWARD | TL_WORK_OPT_STEP);
  return false;
}

/* #in-model-code? @a: @a is in a method of a Module/Layer subclass (through project bases), or a
 * function nested in one: the model's own computation (a forward, a head's loss), run as part of
 * every step whatever calls it. A LightningModule's methods are the training loop's, not the
 * model's. */
static bool tl_project__in_model_code(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                      pcre2_match_data *md) {
  (void)p;
  (void)end;
  (void)md;
  if (file >= a->files.n || !a->project.class_kind) return false;
  const tl_file_model *m = &a->files.v[file].model;
  for (int32_t f = tl_model_func_at(m, start); f > 0; f = m->funcs.v[f].outer) {
    int32_t cls = m->funcs.v[f].cls;
    if (cls < 0) continue;
    if (!(a->project.class_kind[file][cls] & TL_CK_MODULE)) return false;
    const tl_class *k = &m->classes.v[cls];
    for (size_t b = 0; b < k->bases.n; b++)
      if (strstr(k->bases.v[b], "Lightning")) return false;
    return true;
  }
  return false;
}

/* #loader-trains? @call: the DataLoader that the call makes (the value of `name = DataLoader(...)`)
 * is iterated by a loop that trains, or by no loop of the function that makes it (where it goes is
 * not known). A loader
 * that only evaluation or inference loops iterate (the prompts of a one-off generation of class
 * images before training) feeds no training step. */
static bool tl_project__loader_trains(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                      pcre2_match_data *md) {
  (void)p;
  (void)md;
  if (file >= a->files.n || file >= a->project.nwork) return true;
  const tl_file_model *m = &a->files.v[file].model;
  const tl_binding *b = NULL;
  for (size_t i = 0; i < m->bindings.n && !b; i++)
    if (m->bindings.v[i].vsym && m->bindings.v[i].vstart == start && m->bindings.v[i].vend == end)
      b = &m->bindings.v[i];
  if (!b) return true;
  bool seen = false;
  for (size_t l = 0; l < m->loops.n; l++) { /* the loops of the function that binds it */
    const char *it = m->loop_iters.v[l];
    if (!it || m->loops.v[l].func != b->func || strcmp(it, b->name)) continue;
    seen = true;
    if (!tl_project_eval_loop(&a->project, file, (int32_t)l)) return true;
  }
  return !seen;
}

/* The declarations of the option `name` (`n` bytes: argparse's "--name", a settings dataclass's
 * field) in a file's model, added to c: c[0] those that default to 1, c[1] those not off by default
 * (those of c[0] included), c[2] those off by default (0, None, False). */
static void tl_project__option_count(const tl_file_model *m, const char *name, size_t n, size_t c[3]) {
  for (size_t k = 0; k < m->off_names.n; k++) {
    const char *o = tl_model_setting_entry(m, m->off_names.v[k]);
    if (!o) continue;
    size_t skip = !strncmp(o, "=1", 2) ? 2 : o[0] == '!';
    if (strncmp(o + skip, "--", 2) || strlen(o + skip + 2) != n || memcmp(o + skip + 2, name, n)) continue;
    c[skip == 2 ? 0 : skip == 1 ? 1 : 2]++;
  }
}

/* The declarations of the option `name` that a use in `file` sees: the file's own when it has some
 * (a script that parses its own arguments), else those of its program (the example scripts that
 * one package connects into a program each declare their own). */
static void tl_project__option_counts(tl_analysis *a, size_t file, const char *name, size_t n, size_t c[3]) {
  c[0] = c[1] = c[2] = 0;
  tl_project__option_count(&a->files.v[file].model, name, n, c);
  if (c[1] || c[2]) return;
  int32_t program = a->project.program ? a->project.program[file] : -1;
  for (size_t i = 0; i < a->files.n; i++)
    if (i != file && (program < 0 || a->project.program[i] == program))
      tl_project__option_count(&a->files.v[i].model, name, n, c);
}

/* #option-one? @n: @n is a name or attribute (`args.gradient_accumulation_steps`, `self.accum`)
 * whose last part names an option or setting (an argparse option, a field of a settings
 * dataclass) whose every declaration that the use sees (tl_project__option_counts) defaults to 1: a
 * count that changes nothing unless the user raises it. */
static bool tl_project__option_one(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                   pcre2_match_data *md) {
  (void)p;
  (void)md;
  if (file >= a->files.n) return false;
  const tl_file *f = &a->files.v[file];
  if (!f->text || end > f->len || end <= start || end - start > 200) return false;
  const char *t = f->text + start, *last = t;
  for (const char *q = t; q < f->text + end; q++) {
    if (*q == '.') last = q + 1;
    else if (!(isalnum((unsigned char)*q) || *q == '_')) return false;
  }
  size_t n = (size_t)(f->text + end - last), c[3];
  if (!n || isdigit((unsigned char)*last)) return false;
  tl_project__option_counts(a, file, last, n, c);
  return c[0] && c[0] == c[1] && !c[2];
}

/* #loader-workers? @call: the DataLoader call loads in worker processes as the program runs by
 * default: it passes `num_workers` (or six positional arguments) with a value that is not the
 * literal 0 nor an option every declaration of which that the call sees (tl_project__option_counts)
 * defaults to 0 (`--dataloader_num_workers`,
 * default 0). Without workers, `pin_memory=True` pins each batch on the training thread, in the
 * step, so pinning hides no copy behind the step. */
static bool tl_project__loader_workers(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                       pcre2_match_data *md) {
  (void)p;
  (void)end;
  (void)md;
  if (file >= a->files.n) return true;
  const tl_file_model *m = &a->files.v[file].model;
  for (size_t c = 0; c < m->calls.n; c++) {
    const tl_call *cl = &m->calls.v[c];
    if (cl->byte != start) continue;
    uint16_t positional = 0;
    for (uint16_t i = 0; i < cl->nargs; i++) {
      const tl_arg *arg = &m->args.v[cl->arg_first + i];
      if (!arg->kw) {
        if (++positional >= 6) return true;
        continue;
      }
      if (strcmp(arg->kw, "num_workers")) continue;
      if (arg->lit) return strcmp(arg->lit, "n:0") != 0;
      size_t decl[3] = {0, 0, 0};
      if (arg->option) tl_project__option_counts(a, file, arg->option, strlen(arg->option), decl);
      return !(decl[2] && !decl[1]);
    }
    return cl->splat;
  }
  return true;
}

/* #read-on-request? @cond: part of the condition runs only when a flag off by default is set (an
 * opt-in range inside it: `flag and torch.any(x)` with `flag` off, tl_model__and_guards): the
 * value it tests is read only on request. */
static bool tl_project__read_on_request(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                        pcre2_match_data *md) {
  (void)p;
  (void)md;
  if (!a->project.optin || file >= a->project.nfiles) return false;
  for (size_t i = 0; i < a->project.optin[file].n; i++) {
    const tl_range *r = &a->project.optin[file].v[i];
    if (r->start > start && r->start < end && r->end <= end) return true;
  }
  return false;
}

/* name, captures, strings, regex, gate, flags, function, project function, prepare */
const tl_pred_def tl_preds_project[] = {
    {"project-match?", 0, 1, 0, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_MULTILINE | TL_PF_IMPURE, NULL, tl_project__match,
     NULL},
    {"program-match?", 0, 1, 0, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_MULTILINE | TL_PF_IMPURE, NULL,
     tl_project__program_match, NULL},
    {"training-loop?", 1, 0, -1, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_IMPURE, NULL, tl_project__training_loop, NULL},
    {"option-one?", 1, 0, -1, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_IMPURE, NULL, tl_project__option_one, NULL},
    {"in-model-code?", 1, 0, -1, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_IMPURE, NULL, tl_project__in_model_code, NULL},
    {"loader-trains?", 1, 0, -1, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_IMPURE, NULL, tl_project__loader_trains, NULL},
    {"loader-workers?", 1, 0, -1, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_IMPURE, NULL, tl_project__loader_workers, NULL},
    {"read-on-request?", 1, 0, -1, TL_GATE_NONE, TL_PF_PROJECT | TL_PF_IMPURE, NULL, tl_project__read_on_request, NULL},
    {NULL, 0, 0, -1, TL_GATE_NONE, 0, NULL, NULL, NULL},
};
