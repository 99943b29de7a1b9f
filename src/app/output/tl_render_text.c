/* tl_render_text.c - the default output format: each finding with its source line, hot chain,
 * help and fix, and a summary. */
#include "tl_render.h"

#include <string.h>

#include "tl_fix.h"
#include "tl_notebook.h"

/* Prints one source line with a caret run under [col, endcol). */
static void tl_render_text__source(FILE *out, const char *text, size_t len, const tl_finding *f, bool color) {
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
  for (size_t i = s; i < f->start_byte; i++) {
    if (((unsigned char)text[i] & 0xC0) == 0x80) continue;
    fputc(text[i] == '\t' ? '\t' : ' ', out);
  }
  size_t stop = f->end_byte < e ? f->end_byte : e;
  size_t n = 0;
  for (size_t i = f->start_byte; i < stop; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80) n++;
  if (n == 0) n = 1;
  if (color) fputs(tl_output_severity_color(f->severity), out);
  for (size_t i = 0; i < n; i++) fputc('^', out);
  fprintf(out, " %s", tl_rule_code(f->rule));
  if (color) fputs(TL_C_RESET, out);
  fputc('\n', out);
}

/* The diff of one finding's fix alone, indented under the finding. */
static void tl_render_text__fix(FILE *out, const tl_analysis *a, const char *text, size_t len, const tl_finding *f,
                                bool color) {
  size_t nl;
  tl_edit one;
  size_t nedits;
  const tl_edit *ed = tl_output_file_edits(a, f, &one, &nedits);
  if (ed == &one) { /* a notebook: the diff of its JSON */
    const tl_notebook *nb = tl_analysis_file_notebook(a, f->file);
    text = nb->json;
    len = nb->json_len;
  }
  char *neu = tl_edits_apply(text, len, ed, nedits, &nl, NULL);
  tl_output_edits_free(ed, &one);
  tl_buf d = {0};
  tl_diff_unified(&d, tl_output_relpath(f->path), text, len, neu, nl);
  for (char *line = d.data, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    const char *c = !color ? "" : line[0] == '+' ? TL_C_CYAN : line[0] == '-' ? TL_C_RED : "";
    fprintf(out, "    %s%s%s\n", c, line, *c ? TL_C_RESET : "");
  }
  tl_buf_free(&d);
  free(neu);
}

void tl_render_text(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  size_t n = tl_analysis_finding_count(a), shown = 0, fixable = 0, hidden_fixes = 0;
  for (size_t i = 0; i < n; i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    shown++;
    if (tl_output_fixable(f, o)) fixable++;
    else if (f->nfix) hidden_fixes++; /* unsafe, without --unsafe-fixes */
    tl_output_headline(out, f, o);
    size_t len;
    const char *text = tl_analysis_file_text(a, f->file, &len);
    if (text && o->show_source) tl_render_text__source(out, text, len, f, o->color);
    char *hot = tl_hot_text(f);
    if (*hot) fprintf(out, "  = why hot: %s\n", hot);
    free(hot);
    if (*tl_rule_help(f->rule)) fprintf(out, "  = help: %s\n", tl_rule_help(f->rule));
    if (f->nfix && *tl_rule_fix_title(f->rule))
      fprintf(out, "  = fix%s: %s\n", f->fix_safety == TL_FIXSAFE_UNSAFE ? " (unsafe)" : "",
              tl_rule_fix_title(f->rule));
    if (f->nfix && o->show_fixes && text) tl_render_text__fix(out, a, text, len, f, o->color);
    fputc('\n', out);
  }
  if (o->quiet) return;
  if (shown == 0) fprintf(out, "All checks passed.\n");
  else {
    fprintf(out, "Found %zu finding%s.\n", shown, shown == 1 ? "" : "s");
    if (fixable) fprintf(out, "[*] %zu fixable with --fix%s.\n", fixable, o->unsafe_fixes ? " --unsafe-fixes" : "");
    /* as ruff says it: what --unsafe-fixes would add */
    if (hidden_fixes)
      fprintf(out, "(%zu more fix%s with --unsafe-fixes: --diff --unsafe-fixes shows %s.)\n", hidden_fixes,
              hidden_fixes == 1 ? "" : "es", hidden_fixes == 1 ? "it" : "them");
  }
}
