/* tl_findings.c - phase 3: the candidates that hold once the project is known become findings:
 * project predicates, hotness with its chain, one finding per `scope: project` rule, nested and
 * superseded matches dropped, suppressions, positions and fingerprints, sorted. */
#include "tl_engine.h"
#include "tl_notebook.h"

#include <stdio.h>
#include <string.h>

void tl_findings_clear(tl_analysis *a) {
  for (size_t i = 0; i < a->findings.n; i++) {
    tl_finding *f = &a->findings.v[i];
    free(f->message);
    for (size_t j = 0; j < f->nhot; j++) free(f->hot[j].what);
    free(f->hot);
    for (size_t j = 0; j < f->nfix; j++) free(f->fix[j].text);
    free(f->fix);
  }
  tl_vec_free(&a->findings);
  tl_strtab_free(&a->result_strs);
}

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
  bool hot = tl_project_hot_at(&a->project, fi, c->func, c->start, rule->hot, &chain, &nchain) != 0;
  for (size_t j = 0; j < nchain; j++) free(chain[j].what);
  free(chain);
  return hot;
}

/* The slot of a `scope: project` rule's pick for the program of file fi (tl_project.program). */
static size_t tl_pick_slot(const tl_analysis *a, uint32_t rule, size_t fi) {
  size_t program = a->project.program ? (size_t)a->project.program[fi] : 0;
  return (size_t)rule * a->files.n + program;
}

/* For each `scope: project` rule and each program of the project, the candidate reported: the
 * first that holds by path, then position (the order of files given does not matter: -j1, -jN and
 * editors agree). picks[slot] is file + 1 and cand[slot] the candidate index; 0 when none. */
static void tl_project_scope_picks(tl_analysis *a, size_t *picks, size_t *cand, pcre2_match_data *md) {
  const tl_ruleset *rs = a->rules;
  for (size_t fi = 0; fi < a->files.n; fi++) {
    const tl_file *f = &a->files.v[fi];
    for (size_t ci = 0; ci < f->cands.n; ci++) {
      const tl_candidate *c = &f->cands.v[ci];
      if (!rs->rules.v[c->rule]->project_scope) continue;
      size_t slot = tl_pick_slot(a, c->rule, fi);
      size_t *pk = &picks[slot];
      if (*pk) {
        const tl_file *bf = &a->files.v[*pk - 1];
        int cmp = strcmp(f->path, bf->path);
        if (cmp > 0 || (cmp == 0 && c->start >= bf->cands.v[cand[slot]].start)) continue;
      }
      if (!tl_candidate_holds(a, fi, c, md)) continue;
      *pk = fi + 1;
      cand[slot] = ci;
    }
  }
}

/* Findings and hot-chain steps in notebooks get cell-relative lines (tl_finding.cell); a fix that
 * cannot be written back into the notebook's JSON (it spans cells, or touches a magic) is dropped. */
static void tl_findings__notebooks(tl_analysis *a) {
  bool any = false;
  for (size_t i = 0; i < a->files.n && !any; i++) any = a->files.v[i].nb != NULL;
  if (!any) return;
  for (size_t i = 0; i < a->findings.n; i++) {
    tl_finding *fd = &a->findings.v[i];
    const tl_notebook *nb = a->files.v[fd->file].nb;
    if (nb) {
      tl_notebook_locate(nb, fd->line, &fd->cell, &fd->line);
      tl_notebook_locate(nb, fd->end_line, &fd->end_cell, &fd->end_line);
      size_t len;
      const char *why;
      char *json = fd->nfix ? tl_notebook_apply(nb, fd->fix, fd->nfix, &len, &why) : NULL;
      if (fd->nfix && !json) {
        for (size_t j = 0; j < fd->nfix; j++) free(fd->fix[j].text);
        free(fd->fix);
        fd->fix = NULL;
        fd->nfix = 0;
        fd->fix_safety = TL_FIXSAFE_NONE;
      }
      free(json);
    }
    for (size_t h = 0; h < fd->nhot; h++) {
      tl_hot_step *st = &fd->hot[h];
      for (size_t k = 0; k < a->files.n; k++)
        if (a->files.v[k].nb && (st->path == a->files.v[k].path || !strcmp(st->path, a->files.v[k].path))) {
          tl_notebook_locate(a->files.v[k].nb, st->line, &st->cell, &st->line);
          break;
        }
    }
  }
}

/* Does suppression code `code` (a code or a prefix) name rule `r`? */
static bool tl_findings__names(const char *code, const tl_rule *r) { return !strncmp(r->code, code, strlen(code)); }

/* The findings of the rule whose check is "unused-suppressions" (TL001, like ruff's RUF100): one
 * per suppression comment with codes that suppressed nothing, after every other finding has been
 * matched against the suppressions. A bare comment counts; so does a code of an enabled rule; a
 * code of no enabled rule (another linter's, a disabled rule's) is left alone. A comment that
 * names the check's own code keeps it from its line (`ignore-file[...]`: from its file), and so
 * does a bare `# trainlint: ignore-file`. The fix takes the unused codes out of the comment. */
static void tl_findings__unused_suppressions(tl_analysis *a) {
  const tl_ruleset *rs = a->rules;
  const tl_rule *self = NULL;
  for (size_t r = 0; r < rs->rules.n && !self; r++)
    if (rs->rules.v[r]->check == TL_CHECK_UNUSED_SUPPRESSIONS && rs->rules.v[r]->enabled) self = rs->rules.v[r];
  if (!self) return;
  for (size_t fi = 0; fi < a->files.n; fi++) {
    tl_file *f = &a->files.v[fi];
    tl_suppressions *sps = &f->model.suppressions;
    if (!f->text || !sps->n) continue;
    bool file_exempt = false;
    TL_VEC(uint32_t) exempt = {0}; /* lines whose comment names the check itself */
    for (size_t i = 0; i < sps->n; i++) {
      tl_suppression *sp = &sps->v[i];
      if (sp->file_level && sp->all) file_exempt = true;
      for (size_t k = 0; k < sp->codes.n; k++)
        if (tl_findings__names(sp->codes.v[k], self)) {
          sp->used.v[k] = true;
          if (sp->file_level) file_exempt = true;
          else tl_vec_push(&exempt, sp->line);
        }
    }
    for (size_t i = 0; i < sps->n && !file_exempt; i++) {
      const tl_suppression *sp = &sps->v[i];
      bool skip = false;
      for (size_t k = 0; k < exempt.n && !skip; k++) skip = exempt.v[k] == sp->line;
      if (skip) continue;
      size_t ncodes = sp->all ? 1 : sp->codes.n;
      bool *unused = tl_calloc(ncodes + 1, sizeof *unused);
      tl_buf names = {0};
      size_t nunused = 0;
      for (size_t k = 0; k < ncodes; k++) {
        if (sp->used.v[k]) continue;
        bool known = sp->all;
        for (size_t r = 0; r < rs->rules.n && !known; r++)
          known = rs->rules.v[r]->enabled && tl_findings__names(sp->codes.v[k], rs->rules.v[r]);
        if (!known) continue;
        unused[k] = true;
        nunused++;
      }
      for (size_t k = 0, put = 0; k < ncodes && !sp->all; k++)
        if (unused[k]) {
          put++;
          tl_buf_printf(&names, "%s%s", put == 1 ? "" : put == nunused ? " or " : ", ", sp->codes.v[k]);
        }
      if (!nunused) {
        free(unused);
        tl_buf_free(&names);
        continue;
      }
      tl_finding fd = {0};
      tl_edit ed = {0, 0, NULL};
      uint32_t rs_, re_;
      bool fixed = tl_suppress_unused_edit(f->text, f->len, sp, unused, &ed, &rs_, &re_);
      if (!fixed) rs_ = sp->start, re_ = sp->end;
      fd.rule = self;
      fd.path = f->path;
      fd.file = fi;
      fd.start_byte = rs_;
      fd.end_byte = re_;
      fd.line = tl_lines_line(&f->lines, rs_);
      fd.col = tl_lines_col(&f->lines, f->text, rs_);
      fd.end_line = tl_lines_line(&f->lines, re_);
      fd.end_col = tl_lines_col(&f->lines, f->text, re_);
      fd.severity = self->severity;
      char *what = tl_buf_take(&names);
      fd.message = tl_printf("unused suppression: no %s%sfinding %s", what, *what ? " " : "",
                             sp->file_level ? "in this file" : "here");
      free(what);
      if (fixed && self->fix_safety != TL_FIXSAFE_NONE) {
        fd.fix = tl_calloc(1, sizeof *fd.fix);
        fd.fix[0] = ed;
        fd.nfix = 1;
        fd.fix_safety = self->fix_safety;
      } else if (fixed) {
        free(ed.text);
      }
      fd.scope = f->model.module;
      fd.stmt_first_line = fd.stmt_last_line = fd.line;
      tl_fingerprint(&fd, f);
      tl_vec_push(&a->findings, fd);
      free(unused);
    }
    tl_vec_free(&exempt);
  }
}

/* A value placed on the device as the result of an evaluation function (tl_candidate.veval: `val_loss,
 * val_acc = evaluate(...)` then `val_acc.numpy()`): the evaluation's result, read to be reported. What
 * costs is running the evaluation that often (TL406), not reading what it found: the finding is info,
 * and its chain's last step says why. */
static void tl_findings__evaluation_result(const tl_analysis *a, const tl_candidate *c, tl_finding *fd,
                                           tl_hot_step **chain, size_t *nchain) {
  const tl_file *ef = &a->files.v[c->veval.file];
  const tl_func *fu = &ef->model.funcs.v[c->veval.idx];
  fd->severity = TL_SEVERITY_INFO;
  *chain = tl_realloc(*chain, (*nchain + 1) * sizeof **chain);
  (*chain)[*nchain] = (tl_hot_step){ef->path, fu->line, fu->col,
                                    tl_printf("the value is a result of `%s`, an evaluation (gradients off, no "
                                              "training): read to be reported",
                                              fu->display),
                                    0};
  (*nchain)++;
}

void tl_findings_make(tl_analysis *a) {
  const tl_ruleset *rs = a->rules;
  pcre2_match_data *md = pcre2_match_data_create(16, NULL);
  size_t nslots = rs->rules.n * a->files.n + 1;
  size_t *picks = tl_calloc(nslots, sizeof *picks), *pick_cand = tl_calloc(nslots, sizeof *pick_cand);
  tl_project_scope_picks(a, picks, pick_cand, md);
  for (size_t fi = 0; fi < a->files.n; fi++) {
    tl_file *f = &a->files.v[fi];
    for (size_t ci = 0; ci < f->cands.n; ci++) {
      tl_candidate *c = &f->cands.v[ci];
      const tl_rule *rule = rs->rules.v[c->rule];
      tl_hot_step *chain = NULL;
      size_t nchain = 0;
      if (rule->needs_accel && a->project.cpu_only) continue;
      /* a value its file could not place, placed by the summaries: on the host, it syncs nothing */
      if (c->vinfo && (c->vkind == TL_VAL_CPU || c->vkind == TL_VAL_PY || c->vkind == TL_VAL_LIST)) continue;
      /* a value only the summaries can tell a tensor: a device value of a caller, or no finding */
      if (c->vneed && c->vkind != TL_VAL_DEVICE) continue;
      size_t slot = tl_pick_slot(a, c->rule, fi);
      if (rule->project_scope && (picks[slot] != fi + 1 || pick_cand[slot] != ci)) continue;
      if (c->deferred.n && !tl_project_deferred_hold(a, fi, c, md)) continue;
      unsigned hot_bits = rule->hot ? tl_project_hot_at(&a->project, fi, c->func, c->start, rule->hot, &chain, &nchain)
                                    : 0;
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
        } else if (tl_supersedes(orule, rule) && (contains || same)) {
          /* only when the superseding finding is itself reported */
          tl_hot_step *oc = NULL;
          size_t on = 0;
          bool ohot = (!orule->needs_accel || !a->project.cpu_only) &&
                      (!orule->project_scope || (picks[tl_pick_slot(a, o->rule, fi)] == fi + 1 &&
                                                 pick_cand[tl_pick_slot(a, o->rule, fi)] == k)) &&
                      (!o->deferred.n || tl_project_deferred_hold(a, fi, o, md)) &&
                      (!orule->hot || tl_project_hot_at(&a->project, fi, o->func, o->start, orule->hot, &oc, &on));
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
      int sev = c->vinfo && c->vkind == TL_VAL_DEVICE ? c->vsev : c->severity; /* placed on the device after all */
      fd.severity = sev >= 0 ? (tl_severity)sev : rule->severity;
      if (hot_bits & TL_HOT_EVAL) fd.severity = TL_SEVERITY_INFO; /* paid per evaluation, not per training step */
      if (tl_project_test_file(&a->project, fi)) fd.severity = TL_SEVERITY_INFO; /* a test's settings train nothing */
      if (tl_project_eval_file(&a->project, fi)) fd.severity = TL_SEVERITY_INFO; /* evaluation, inference, export */
      if ((c->vinfo || c->vneed) && c->veval.file >= 0) tl_findings__evaluation_result(a, c, &fd, &chain, &nchain);
      fd.message = tl_strdup(c->message);
      fd.hot = chain;
      fd.nhot = nchain;
      tl_edits fix = {0};
      for (size_t k = 0; k < c->edits.n; k++) {
        tl_edit ed = {c->edits.v[k].start, c->edits.v[k].end, tl_strdup(c->edits.v[k].text)};
        tl_vec_push(&fix, ed);
      }
      fd.fix = fix.v;
      fd.nfix = fix.n;
      fd.fix_safety = fd.nfix ? rule->fix_safety : TL_FIXSAFE_NONE;
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
  tl_findings__unused_suppressions(a);
  tl_findings__notebooks(a);
  if (a->findings.n) qsort(a->findings.v, a->findings.n, sizeof *a->findings.v, tl_finding_cmp);
}
