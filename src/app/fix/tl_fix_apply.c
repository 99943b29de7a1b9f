/* tl_fix_apply.c - applying the fixes of an analysis' findings: one pass over the files, and the
 * rounds of `--fix` and `--diff` (fix, analyse again, fix again). */
#include "tl_fix_apply.h"

#include <string.h>

#include "tl_fix.h"
#include "tl_notebook.h"
#include "tl_util.h"

size_t tl_fixes_apply(const tl_analysis *a, bool unsafe, bool *fixed, tl_fixed_fn *cb, void *ctx) {
  size_t n = tl_analysis_finding_count(a), taken = 0;
  size_t i = 0;
  while (i < n) {
    size_t file = tl_analysis_finding(a, i)->file, j = i;
    tl_edits all = {0};
    TL_VEC(size_t) owner = {0};
    for (; j < n && tl_analysis_finding(a, j)->file == file; j++) {
      const tl_finding *f = tl_analysis_finding(a, j);
      if (fixed && fixed[j]) continue; /* not to be fixed: a finding hidden from the report */
      if (!f->nfix || !(f->fix_safety == TL_FIXSAFE_SAFE || (unsafe && f->fix_safety == TL_FIXSAFE_UNSAFE))) continue;
      /* a finding's edits are taken all or none: skip it when any edit overlaps one already taken */
      bool clash = false;
      for (size_t k = 0; k < f->nfix && !clash; k++)
        for (size_t m = 0; m < all.n && !clash; m++) clash = tl_edits_clash(&f->fix[k], &all.v[m]);
      if (clash) continue;
      for (size_t k = 0; k < f->nfix; k++) tl_vec_push(&all, f->fix[k]);
      tl_vec_push(&owner, j);
    }
    const tl_notebook *nb = tl_analysis_file_notebook(a, file);
    if (all.n) {
      size_t len, newlen, skipped = 0;
      const char *text = tl_analysis_file_text(a, file, &len), *why;
      char *neu;
      if (nb) { /* a notebook: the edits of its code go into the cells of its JSON */
        text = nb->json;
        len = nb->json_len;
        neu = tl_notebook_apply(nb, all.v, all.n, &newlen, &why);
      } else {
        neu = tl_edits_apply(text, len, all.v, all.n, &newlen, &skipped);
      }
      if (!neu) { /* each finding's edits were checked alone (tl_findings.c); together they still apply */
        tl_vec_free(&all);
        tl_vec_free(&owner);
        i = j;
        continue;
      }
      for (size_t k = 0; k < owner.n; k++) {
        if (fixed) fixed[owner.v[k]] = true;
        taken++;
      }
      cb(ctx, file, text, len, neu, newlen);
      free(neu);
    }
    tl_vec_free(&all);
    tl_vec_free(&owner);
    i = j;
  }
  return taken;
}

/* A changed file's text as first read. */
typedef struct {
  size_t file;
  char *orig; /* owned */
  size_t len;
} tl_fix_orig;

typedef struct {
  tl_analysis *a;
  TL_VEC(tl_fix_orig) orig; /* each changed file's text as first read */
  TL_VEC(size_t) files;     /* files changed in this round */
  TL_VEC(char *) texts;     /* and their new texts */
  TL_VEC(size_t) lens;
} tl_fix_rounds;

/* tl_fixes_apply's callback in a round: keeps the file's first text and its new text. */
static void tl_fix_apply__collect(void *p, size_t file, const char *old, size_t oldlen, const char *neu,
                                  size_t newlen) {
  tl_fix_rounds *r = p;
  bool known = false;
  for (size_t i = 0; i < r->orig.n && !known; i++) known = r->orig.v[i].file == file;
  if (!known) {
    tl_fix_orig o = {file, tl_strndup(old, oldlen), oldlen};
    tl_vec_push(&r->orig, o);
  }
  tl_vec_push(&r->files, file);
  tl_vec_push(&r->texts, tl_strndup(neu, newlen));
  tl_vec_push(&r->lens, newlen);
}

size_t tl_fixes_apply_all(tl_analysis *a, bool unsafe, void (*skip)(void *, const tl_analysis *, bool *),
                          void *skip_ctx, tl_fixed_fn *cb, void *ctx) {
  tl_fix_rounds r = {a, {0}, {0}, {0}, {0}};
  size_t total = 0;
  for (int round = 0; round < TL_FIX_ROUNDS; round++) {
    size_t n = tl_analysis_finding_count(a);
    bool *flags = tl_calloc(n + 1, sizeof *flags);
    if (skip) skip(skip_ctx, a, flags);
    size_t taken = tl_fixes_apply(a, unsafe, flags, tl_fix_apply__collect, &r);
    free(flags);
    total += taken;
    if (!taken) break;
    /* the paths first: set_text may reorder the analysis' files */
    TL_VEC(char *) paths = {0};
    for (size_t i = 0; i < r.files.n; i++) tl_vec_push(&paths, tl_strdup(tl_analysis_file_path(a, r.files.v[i])));
    for (size_t i = 0; i < r.files.n; i++) {
      tl_analysis_set_text(a, paths.v[i], r.texts.v[i], r.lens.v[i]);
      free(paths.v[i]);
      free(r.texts.v[i]);
    }
    tl_vec_free(&paths);
    r.files.n = r.texts.n = r.lens.n = 0;
    tl_analysis_run(a);
  }
  for (size_t i = 0; i < r.orig.n; i++) {
    size_t len;
    const char *now = tl_analysis_file_text(a, r.orig.v[i].file, &len);
    const tl_notebook *nb = tl_analysis_file_notebook(a, r.orig.v[i].file);
    if (nb) {
      now = nb->json;
      len = nb->json_len;
    }
    if (len != r.orig.v[i].len || memcmp(now, r.orig.v[i].orig, len))
      cb(ctx, r.orig.v[i].file, r.orig.v[i].orig, r.orig.v[i].len, now, len);
    free(r.orig.v[i].orig);
  }
  tl_vec_free(&r.orig);
  tl_vec_free(&r.files);
  tl_vec_free(&r.texts);
  tl_vec_free(&r.lens);
  return total;
}
