/* tl_output.c - the output driver: the table of formats and their renderers, --statistics, input
 * diagnostics, and the helpers the renderers share. */
#include "tl_render.h"

#include <string.h>

/* The formats, one row each, in the order --help lists them. */
static const struct {
  const char *name;
  tl_render_fn *render;
} tl_output__formats[] = {
    [TL_FORMAT_TEXT] = {"text", tl_render_text},       [TL_FORMAT_CONCISE] = {"concise", tl_render_concise},
    [TL_FORMAT_JSON] = {"json", tl_render_json},       [TL_FORMAT_SARIF] = {"sarif", tl_render_sarif},
    [TL_FORMAT_GITHUB] = {"github", tl_render_github}, [TL_FORMAT_GITLAB] = {"gitlab", tl_render_gitlab},
};

#define TL_OUTPUT__NFORMATS (sizeof tl_output__formats / sizeof tl_output__formats[0])

bool tl_format_parse(const char *name, tl_format *format) {
  for (size_t i = 0; i < TL_OUTPUT__NFORMATS; i++)
    if (!strcmp(name, tl_output__formats[i].name)) {
      *format = (tl_format)i;
      return true;
    }
  return false;
}

const char *tl_format_name(tl_format format) {
  return (size_t)format < TL_OUTPUT__NFORMATS ? tl_output__formats[format].name : NULL;
}

void tl_output_findings(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  tl_output__formats[(size_t)o->format < TL_OUTPUT__NFORMATS ? o->format : TL_FORMAT_TEXT].render(out, a, skip, o);
}

void tl_output_statistics(FILE *out, const tl_analysis *a, const bool *skip) {
  typedef struct { const tl_rule *rule; size_t n, fixable; } row;
  TL_VEC(row) rows = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    size_t k = 0;
    while (k < rows.n && rows.v[k].rule != f->rule) k++;
    if (k == rows.n) { row r = {f->rule, 0, 0}; tl_vec_push(&rows, r); }
    rows.v[k].n++;
    if (f->fix.n) rows.v[k].fixable++;
  }
  /* most frequent first, then by code (a stable insertion sort) */
  for (size_t i = 1; i < rows.n; i++)
    for (size_t j = i; j > 0 && (rows.v[j].n > rows.v[j - 1].n ||
                                 (rows.v[j].n == rows.v[j - 1].n && strcmp(tl_rule_code(rows.v[j].rule), tl_rule_code(rows.v[j - 1].rule)) < 0)); j--) {
      row t = rows.v[j]; rows.v[j] = rows.v[j - 1]; rows.v[j - 1] = t;
    }
  for (size_t i = 0; i < rows.n; i++)
    fprintf(out, "%6zu  %-6s  %-36s %s\n", rows.v[i].n, tl_rule_code(rows.v[i].rule), tl_rule_name(rows.v[i].rule),
            rows.v[i].fixable ? "[*]" : "");
  tl_vec_free(&rows);
}

void tl_output_diags(FILE *out, const tl_diags *d, bool color) {
  for (size_t i = 0; i < d->n; i++) {
    const tl_diag *x = &d->v[i];
    const char *lvl = x->level == TL_DIAG_ERROR ? "error" : x->level == TL_DIAG_WARNING ? "warning" : "note";
    if (x->line) fprintf(out, "%s:%u:%u: ", x->path, x->line, x->col ? x->col : 1);
    else fprintf(out, "%s: ", x->path);
    if (color) fprintf(out, "%s%s" TL_C_RESET ": %s\n", x->level == TL_DIAG_ERROR ? TL_C_RED : TL_C_YELLOW, lvl, x->message);
    else fprintf(out, "%s: %s\n", lvl, x->message);
  }
}

char *tl_hot_text(const tl_finding *f) {
  tl_buf b = {0};
  for (size_t i = 0; i < f->nhot; i++) {
    if (i) tl_buf_puts(&b, ", ");
    tl_buf_printf(&b, "%s at %s:%u", f->hot[i].what, f->hot[i].path, f->hot[i].line);
  }
  return tl_buf_take(&b);
}

/* ---- shared by the renderers (tl_render.h) ---- */

const char *tl_output_severity_color(tl_severity s) {
  return s == TL_SEVERITY_ERROR ? TL_C_RED : s == TL_SEVERITY_WARNING ? TL_C_YELLOW : TL_C_CYAN;
}

const char *tl_output_relpath(const char *path) {
  while (path[0] == '.' && path[1] == '/') path += 2;
  return path;
}

bool tl_output_fixable(const tl_finding *f, const tl_output_opts *o) {
  return f->fix.n && (f->fix_safety == TL_FIXSAFE_SAFE || o->unsafe_fixes);
}

void tl_output_headline(FILE *out, const tl_finding *f, const tl_output_opts *o) {
  const char *mark = tl_output_fixable(f, o) ? " [*]" : "";
  if (o->color)
    fprintf(out, TL_C_BOLD "%s" TL_C_RESET ":%u:%u: %s" TL_C_BOLD "%s" TL_C_RESET " %s%s\n", f->path, f->line, f->col,
            tl_output_severity_color(f->severity), tl_rule_code(f->rule), f->message, mark);
  else
    fprintf(out, "%s:%u:%u: %s %s%s\n", f->path, f->line, f->col, tl_rule_code(f->rule), f->message, mark);
}

void tl_output_json_doc(FILE *out, cJSON *doc) {
  char *s = cJSON_Print(doc);
  fputs(s, out);
  fputc('\n', out);
  cJSON_free(s);
  cJSON_Delete(doc);
}

/* ---- fixes ---- */

size_t tl_fixes_apply(const tl_analysis *a, bool unsafe, bool *fixed,
                      void (*cb)(void *, size_t, const char *, size_t, const char *, size_t), void *ctx) {
  size_t n = tl_analysis_finding_count(a), taken = 0;
  size_t i = 0;
  while (i < n) {
    size_t file = tl_analysis_finding(a, i)->file, j = i;
    tl_edits all = {0};
    TL_VEC(size_t) owner = {0};
    for (; j < n && tl_analysis_finding(a, j)->file == file; j++) {
      const tl_finding *f = tl_analysis_finding(a, j);
      if (!f->fix.n || !(f->fix_safety == TL_FIXSAFE_SAFE || (unsafe && f->fix_safety == TL_FIXSAFE_UNSAFE))) continue;
      /* a finding's edits are taken all or none: skip it when any edit overlaps one already taken */
      bool clash = false;
      for (size_t k = 0; k < f->fix.n && !clash; k++)
        for (size_t m = 0; m < all.n && !clash; m++) clash = tl_edits_clash(&f->fix.v[k], &all.v[m]);
      if (clash) continue;
      for (size_t k = 0; k < f->fix.n; k++) {
        tl_edit e = {f->fix.v[k].start, f->fix.v[k].end, tl_strdup(f->fix.v[k].text)};
        tl_vec_push(&all, e);
      }
      tl_vec_push(&owner, j);
    }
    if (all.n) {
      size_t len, newlen, skipped = 0;
      const char *text = tl_analysis_file_text(a, file, &len);
      char *neu = tl_edits_apply(text, len, &all, &newlen, &skipped);
      for (size_t k = 0; k < owner.n; k++) {
        if (fixed) fixed[owner.v[k]] = true;
        taken++;
      }
      cb(ctx, file, text, len, neu, newlen);
      free(neu);
    }
    for (size_t k = 0; k < all.n; k++) free(all.v[k].text);
    tl_vec_free(&all);
    tl_vec_free(&owner);
    i = j;
  }
  return taken;
}

typedef struct {
  size_t file;
  char *orig;
  size_t len;
} tl_fix_orig;

typedef struct {
  tl_analysis *a;
  TL_VEC(tl_fix_orig) orig; /* each changed file's text as first read */
  TL_VEC(size_t) files;     /* files changed in this round */
  TL_VEC(char *) texts;     /* and their new texts */
  TL_VEC(size_t) lens;
} tl_fix_rounds;

static void tl_fix_round_cb(void *p, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen) {
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

size_t tl_fixes_apply_all(tl_analysis *a, bool unsafe, void (*skip)(void *, const tl_analysis *, bool *), void *skip_ctx,
                          void (*cb)(void *, size_t, const char *, size_t, const char *, size_t), void *ctx) {
  tl_fix_rounds r = {a, {0}, {0}, {0}, {0}};
  size_t total = 0;
  for (int round = 0; round < TL_FIX_ROUNDS; round++) {
    size_t n = tl_analysis_finding_count(a);
    bool *flags = tl_calloc(n + 1, sizeof *flags);
    if (skip) skip(skip_ctx, a, flags);
    size_t taken = tl_fixes_apply(a, unsafe, flags, tl_fix_round_cb, &r);
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
    if (len != r.orig.v[i].len || memcmp(now, r.orig.v[i].orig, len)) cb(ctx, r.orig.v[i].file, r.orig.v[i].orig, r.orig.v[i].len, now, len);
    free(r.orig.v[i].orig);
  }
  tl_vec_free(&r.orig);
  tl_vec_free(&r.files);
  tl_vec_free(&r.texts);
  tl_vec_free(&r.lens);
  return total;
}
