/* tl_output.c - text and JSON renderers for findings and diagnostics, and fix application. */
#include "tl_output.h"

#include <cjson/cJSON.h>
#include <string.h>

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define C_BLUE "\033[34m"

char *tl_hot_text(const tl_finding *f) {
  tl_buf b = {0};
  for (size_t i = 0; i < f->nhot; i++) {
    if (i) tl_buf_puts(&b, ", ");
    tl_buf_printf(&b, "%s at %s:%u", f->hot[i].what, f->hot[i].path, f->hot[i].line);
  }
  return tl_buf_take(&b);
}

static const char *tl_sev_color(tl_severity s) {
  return s == TL_SEVERITY_ERROR ? C_RED : s == TL_SEVERITY_WARNING ? C_YELLOW : C_CYAN;
}

/* Prints one source line with a caret run under [col, endcol). */
static void tl_print_source(FILE *out, const char *text, size_t len, const tl_finding *f, bool color) {
  /* find the line's bounds */
  size_t s = f->start_byte;
  while (s > 0 && text[s - 1] != '\n' && text[s - 1] != '\r') s--;
  size_t e = f->start_byte;
  while (e < len && text[e] != '\n' && text[e] != '\r') e++;
  char num[16];
  int w = snprintf(num, sizeof num, "%u", f->line);
  fprintf(out, "%*s |\n", w, "");
  fprintf(out, "%s | %.*s\n", num, (int)(e - s), text + s);
  fprintf(out, "%*s | ", w, "");
  size_t col = 0;
  for (size_t i = s; i < f->start_byte; i++) {
    if (((unsigned char)text[i] & 0xC0) == 0x80) continue;
    fputc(text[i] == '\t' ? '\t' : ' ', out);
    col++;
  }
  size_t stop = f->end_byte < e ? f->end_byte : e;
  size_t n = 0;
  for (size_t i = f->start_byte; i < stop; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80) n++;
  if (n == 0) n = 1;
  if (color) fputs(tl_sev_color(f->severity), out);
  for (size_t i = 0; i < n; i++) fputc('^', out);
  fprintf(out, " %s", tl_rule_code(f->rule));
  if (color) fputs(C_RESET, out);
  fputc('\n', out);
  (void)col;
}

/* The diff of one finding's fix alone, indented under the finding. */
static void tl_print_fix(FILE *out, const char *text, size_t len, const tl_finding *f, bool color) {
  tl_edits copy = {0};
  for (size_t i = 0; i < f->fix.n; i++) {
    tl_edit e = {f->fix.v[i].start, f->fix.v[i].end, tl_strdup(f->fix.v[i].text)};
    tl_vec_push(&copy, e);
  }
  size_t nl;
  char *neu = tl_edits_apply(text, len, &copy, &nl, NULL);
  tl_buf d = {0};
  const char *rel = f->path;
  while (rel[0] == '.' && rel[1] == '/') rel += 2;
  tl_diff_unified(&d, rel, text, len, neu, nl);
  for (char *line = d.data, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    const char *c = !color ? "" : line[0] == '+' ? C_CYAN : line[0] == '-' ? C_RED : "";
    fprintf(out, "    %s%s%s\n", c, line, *c ? C_RESET : "");
  }
  tl_buf_free(&d);
  free(neu);
  for (size_t i = 0; i < copy.n; i++) free(copy.v[i].text);
  tl_vec_free(&copy);
}

static cJSON *tl_json_finding(const tl_finding *f, bool unsafe) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "code", tl_rule_code(f->rule));
  cJSON_AddStringToObject(o, "name", tl_rule_name(f->rule));
  cJSON_AddStringToObject(o, "severity", tl_severity_name(f->severity));
  cJSON_AddStringToObject(o, "path", f->path);
  cJSON_AddNumberToObject(o, "line", f->line);
  cJSON_AddNumberToObject(o, "column", f->col);
  cJSON_AddNumberToObject(o, "end_line", f->end_line);
  cJSON_AddNumberToObject(o, "end_column", f->end_col);
  cJSON_AddStringToObject(o, "message", f->message);
  cJSON_AddStringToObject(o, "help", tl_rule_help(f->rule));
  cJSON *hot = cJSON_AddArrayToObject(o, "hot_path");
  for (size_t i = 0; i < f->nhot; i++) {
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "description", f->hot[i].what);
    cJSON_AddStringToObject(h, "path", f->hot[i].path);
    cJSON_AddNumberToObject(h, "line", f->hot[i].line);
    cJSON_AddNumberToObject(h, "column", f->hot[i].col);
    cJSON_AddItemToArray(hot, h);
  }
  if (f->fix.n) {
    cJSON *fix = cJSON_AddObjectToObject(o, "fix");
    cJSON_AddStringToObject(fix, "title", tl_rule_fix_title(f->rule));
    cJSON_AddStringToObject(fix, "applicability", f->fix_safety == TL_FIXSAFE_SAFE ? "safe" : "unsafe");
    cJSON *edits = cJSON_AddArrayToObject(fix, "edits");
    for (size_t i = 0; i < f->fix.n; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddNumberToObject(e, "start_byte", f->fix.v[i].start);
      cJSON_AddNumberToObject(e, "end_byte", f->fix.v[i].end);
      cJSON_AddStringToObject(e, "content", f->fix.v[i].text);
      cJSON_AddItemToArray(edits, e);
    }
  } else {
    cJSON_AddNullToObject(o, "fix");
  }
  (void)unsafe;
  return o;
}

void tl_output_findings(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  size_t n = tl_analysis_finding_count(a);
  if (o->format == TL_FORMAT_JSON) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "tool", "trainlint");
    cJSON_AddStringToObject(root, "version", TL_VERSION);
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON *arr = cJSON_AddArrayToObject(root, "findings");
    for (size_t i = 0; i < n; i++)
      if (!skip || !skip[i]) cJSON_AddItemToArray(arr, tl_json_finding(tl_analysis_finding(a, i), o->unsafe_fixes));
    cJSON *errs = cJSON_AddArrayToObject(root, "errors");
    const tl_diags *d = tl_analysis_diags(a);
    for (size_t i = 0; i < d->n; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "level", d->v[i].level == TL_DIAG_ERROR ? "error" : d->v[i].level == TL_DIAG_WARNING ? "warning" : "note");
      cJSON_AddStringToObject(e, "path", d->v[i].path);
      cJSON_AddNumberToObject(e, "line", d->v[i].line);
      cJSON_AddNumberToObject(e, "column", d->v[i].col);
      cJSON_AddStringToObject(e, "message", d->v[i].message);
      cJSON_AddItemToArray(errs, e);
    }
    char *s = cJSON_Print(root);
    fputs(s, out);
    fputc('\n', out);
    cJSON_free(s);
    cJSON_Delete(root);
    return;
  }
  size_t shown = 0, fixable = 0;
  for (size_t i = 0; i < n; i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    shown++;
    bool can_fix = f->fix.n && (f->fix_safety == TL_FIXSAFE_SAFE || o->unsafe_fixes);
    if (can_fix) fixable++;
    if (o->color)
      fprintf(out, C_BOLD "%s" C_RESET ":%u:%u: %s" C_BOLD "%s" C_RESET " %s%s\n", f->path, f->line, f->col,
              tl_sev_color(f->severity), tl_rule_code(f->rule), f->message, can_fix ? " [*]" : "");
    else
      fprintf(out, "%s:%u:%u: %s %s%s\n", f->path, f->line, f->col, tl_rule_code(f->rule), f->message,
              can_fix ? " [*]" : "");
    if (o->format == TL_FORMAT_CONCISE) continue;
    size_t len;
    const char *text = tl_analysis_file_text(a, f->file, &len);
    if (text && o->show_source) tl_print_source(out, text, len, f, o->color);
    char *hot = tl_hot_text(f);
    if (*hot) fprintf(out, "  = why hot: %s\n", hot);
    free(hot);
    if (*tl_rule_help(f->rule)) fprintf(out, "  = help: %s\n", tl_rule_help(f->rule));
    if (f->fix.n && *tl_rule_fix_title(f->rule))
      fprintf(out, "  = fix%s: %s\n", f->fix_safety == TL_FIXSAFE_UNSAFE ? " (unsafe)" : "", tl_rule_fix_title(f->rule));
    if (f->fix.n && o->show_fixes && text) tl_print_fix(out, text, len, f, o->color);
    fputc('\n', out);
  }
  if (o->format == TL_FORMAT_TEXT) {
    if (shown == 0) fprintf(out, "All checks passed.\n");
    else {
      fprintf(out, "Found %zu finding%s.\n", shown, shown == 1 ? "" : "s");
      if (fixable) fprintf(out, "[*] %zu fixable with --fix%s.\n", fixable, o->unsafe_fixes ? " --unsafe-fixes" : "");
    }
  }
}

void tl_output_diags(FILE *out, const tl_diags *d, bool color) {
  for (size_t i = 0; i < d->n; i++) {
    const tl_diag *x = &d->v[i];
    const char *lvl = x->level == TL_DIAG_ERROR ? "error" : x->level == TL_DIAG_WARNING ? "warning" : "note";
    if (x->line) fprintf(out, "%s:%u:%u: ", x->path, x->line, x->col ? x->col : 1);
    else fprintf(out, "%s: ", x->path);
    if (color) fprintf(out, "%s%s" C_RESET ": %s\n", x->level == TL_DIAG_ERROR ? C_RED : C_YELLOW, lvl, x->message);
    else fprintf(out, "%s: %s\n", lvl, x->message);
  }
}

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
        for (size_t m = 0; m < all.n && !clash; m++)
          clash = f->fix.v[k].start < all.v[m].end && all.v[m].start < f->fix.v[k].end;
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
