/* tl_output.c - the output driver: the table of formats and their renderers, --statistics, input
 * diagnostics, and the helpers the renderers share. */
#include "tl_render.h"
#include "tl_notebook.h"
#include "tl_source.h"

#include <stdio.h>
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

void tl_output_statistics(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *opts) {
  tl_format format = opts->format;
  typedef struct {
    const tl_rule *rule;
    size_t n, fixable;
  } row;
  TL_VEC(row) rows = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    size_t k = 0;
    while (k < rows.n && rows.v[k].rule != f->rule) k++;
    if (k == rows.n) {
      row r = {f->rule, 0, 0};
      tl_vec_push(&rows, r);
    }
    rows.v[k].n++;
    if (tl_output_fixable(f, opts)) rows.v[k].fixable++; /* as the text and concise reports mark it */
  }
  /* most frequent first, then by code (a stable insertion sort) */
  for (size_t i = 1; i < rows.n; i++)
    for (size_t j = i; j > 0 && (rows.v[j].n > rows.v[j - 1].n ||
                                 (rows.v[j].n == rows.v[j - 1].n &&
                                  strcmp(tl_rule_code(rows.v[j].rule), tl_rule_code(rows.v[j - 1].rule)) < 0));
         j--) {
      row t = rows.v[j];
      rows.v[j] = rows.v[j - 1];
      rows.v[j - 1] = t;
    }
  size_t total = 0;
  for (size_t i = 0; i < rows.n; i++) total += rows.v[i].n;
  if (format == TL_FORMAT_JSON) {
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "rules");
    for (size_t i = 0; i < rows.n; i++) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "code", tl_rule_code(rows.v[i].rule));
      cJSON_AddStringToObject(o, "name", tl_rule_name(rows.v[i].rule));
      cJSON_AddNumberToObject(o, "count", (double)rows.v[i].n);
      cJSON_AddNumberToObject(o, "fixable", (double)rows.v[i].fixable);
      cJSON_AddItemToArray(arr, o);
    }
    cJSON_AddNumberToObject(doc, "total", (double)total);
    tl_output_json_doc(out, doc);
  } else {
    for (size_t i = 0; i < rows.n; i++)
      fprintf(out, "%6zu  %-6s  %-36s %s\n", rows.v[i].n, tl_rule_code(rows.v[i].rule), tl_rule_name(rows.v[i].rule),
              rows.v[i].fixable ? "[*]" : "");
    fprintf(out, "%6zu  total\n", total);
  }
  tl_vec_free(&rows);
}

void tl_output_diag(FILE *out, const tl_diag *x, bool color) {
  const char *lvl = x->level == TL_DIAG_ERROR ? "error" : x->level == TL_DIAG_WARNING ? "warning" : "note";
  if (x->line && x->cell) fprintf(out, "%s:cell %u:%u:%u: ", x->path, x->cell, x->line, x->col ? x->col : 1);
  else if (x->line) fprintf(out, "%s:%u:%u: ", x->path, x->line, x->col ? x->col : 1);
  else fprintf(out, "%s: ", x->path);
  if (color)
    fprintf(out, "%s%s" TL_C_RESET ": %s\n", x->level == TL_DIAG_ERROR ? TL_C_RED : TL_C_YELLOW, lvl, x->message);
  else fprintf(out, "%s: %s\n", lvl, x->message);
}

void tl_output_diags(FILE *out, const tl_diags *d, bool color) {
  for (size_t i = 0; i < d->n; i++) tl_output_diag(out, &d->v[i], color);
}

char *tl_hot_text(const tl_finding *f) {
  tl_buf b = {0};
  for (size_t i = 0; i < f->nhot; i++) {
    if (i) tl_buf_puts(&b, ", ");
    if (f->hot[i].cell)
      tl_buf_printf(&b, "%s at %s:cell %u:%u", f->hot[i].what, f->hot[i].path, f->hot[i].cell, f->hot[i].line);
    else tl_buf_printf(&b, "%s at %s:%u", f->hot[i].what, f->hot[i].path, f->hot[i].line);
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
  return f->nfix && (f->fix_safety == TL_FIXSAFE_SAFE || o->unsafe_fixes);
}

/* `path:line:col: CODE [*] severity: message`: the code where ruff puts it, with ruff's mark of a
 * fixable finding after it, and the severity as a compiler writes it. */
void tl_output_headline(FILE *out, const tl_finding *f, const tl_output_opts *o) {
  const char *mark = tl_output_fixable(f, o) ? " [*]" : "";
  const char *sev = tl_severity_name(f->severity);
  char cell[24] = "";
  if (f->cell) snprintf(cell, sizeof cell, ":cell %u", f->cell); /* a notebook: `nb.ipynb:cell 3:5:9` */
  if (o->color)
    fprintf(out, TL_C_BOLD "%s%s" TL_C_RESET ":%u:%u: " TL_C_BOLD "%s" TL_C_RESET "%s %s%s:" TL_C_RESET " %s\n",
            f->path, cell, f->line, f->col, tl_rule_code(f->rule), mark, tl_output_severity_color(f->severity), sev,
            f->message);
  else
    fprintf(out, "%s%s:%u:%u: %s%s %s: %s\n", f->path, cell, f->line, f->col, tl_rule_code(f->rule), mark, sev,
            f->message);
}

void tl_output_json_doc(FILE *out, cJSON *doc) {
  char *s = cJSON_Print(doc);
  /* JSON, SARIF and GitLab reports are UTF-8: a file name that is not (byte 0xFF) gets U+FFFD */
  char *repaired = tl_utf8_repair(s);
  fputs(repaired ? repaired : s, out);
  free(repaired);
  fputc('\n', out);
  cJSON_free(s);
  cJSON_Delete(doc);
}

const tl_edit *tl_output_file_edits(const tl_analysis *a, const tl_finding *f, tl_edit *one, size_t *n) {
  *n = 0;
  if (!f->nfix) return NULL;
  const tl_notebook *nb = tl_analysis_file_notebook(a, f->file);
  if (!nb) {
    *n = f->nfix;
    return f->fix;
  }
  size_t len;
  const char *why;
  char *neu = tl_notebook_apply(nb, f->fix, f->nfix, &len, &why);
  if (!neu) return NULL;
  /* one edit: the bytes between the common prefix and the common suffix */
  size_t p = 0, q = 0;
  while (p < len && p < nb->json_len && neu[p] == nb->json[p]) p++;
  while (q < len - p && q < nb->json_len - p && neu[len - 1 - q] == nb->json[nb->json_len - 1 - q]) q++;
  one->start = (uint32_t)p;
  one->end = (uint32_t)(nb->json_len - q);
  one->text = tl_strndup(neu + p, len - q - p);
  free(neu);
  *n = 1;
  return one;
}

void tl_output_edits_free(const tl_edit *edits, tl_edit *one) {
  if (edits == one) free(one->text);
}

void tl_output_rules_json(FILE *out, const tl_ruleset *rs, bool all) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < tl_ruleset_count(rs); i++) {
    const tl_rule *r = tl_ruleset_rule(rs, i);
    if (!all && !tl_rule_enabled(r) && tl_rule_default_enabled(r)) continue; /* as the table leaves out */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", tl_rule_code(r));
    cJSON_AddStringToObject(o, "name", tl_rule_name(r));
    cJSON_AddStringToObject(o, "severity", tl_severity_name(tl_rule_severity(r)));
    cJSON_AddStringToObject(o, "fix",
                            tl_rule_fix_safety(r) == TL_FIXSAFE_SAFE     ? "safe"
                            : tl_rule_fix_safety(r) == TL_FIXSAFE_UNSAFE ? "unsafe"
                                                                         : "none");
    cJSON_AddBoolToObject(o, "default", tl_rule_default_enabled(r));
    cJSON_AddStringToObject(o, "help", tl_rule_help(r));
    cJSON_AddItemToArray(arr, o);
  }
  tl_output_json_doc(out, arr);
}
