/* tl_render_github.c - the github output format: one GitHub Actions workflow command
 * (::error/::warning/::notice) per finding, shown as an annotation on the pull request. */
#include "tl_render.h"

/* Workflow command values escape %, CR, LF; properties also ':' and ','. */
static void tl_render_github__escape(FILE *out, const char *s, bool property) {
  for (; *s; s++) {
    if (*s == '%') fputs("%25", out);
    else if (*s == '\r') fputs("%0D", out);
    else if (*s == '\n') fputs("%0A", out);
    else if (property && *s == ':') fputs("%3A", out);
    else if (property && *s == ',') fputs("%2C", out);
    else fputc(*s, out);
  }
}

void tl_render_github(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    const char *lvl = f->severity == TL_SEVERITY_ERROR     ? "error"
                      : f->severity == TL_SEVERITY_WARNING ? "warning"
                                                           : "notice";
    fprintf(out, "::%s file=", lvl);
    tl_render_github__escape(out, tl_output_relpath(f->path), true);
    /* a notebook's lines are not the JSON file's: the annotation goes on the file, the cell in the text */
    if (f->cell) fprintf(out, ",title=");
    else fprintf(out, ",line=%u,col=%u,endLine=%u,endColumn=%u,title=", f->line, f->col, f->end_line, f->end_col);
    tl_render_github__escape(out, tl_rule_code(f->rule), true);
    fputs("::", out);
    char *hot = tl_hot_text(f);
    char where[48] = "";
    if (f->cell) snprintf(where, sizeof where, "cell %u:%u:%u: ", f->cell, f->line, f->col);
    char *msg = *hot ? tl_printf("%s%s %s (%s)", where, tl_rule_code(f->rule), f->message, hot)
                     : tl_printf("%s%s %s", where, tl_rule_code(f->rule), f->message);
    tl_render_github__escape(out, msg, false);
    free(msg);
    free(hot);
    fputc('\n', out);
  }
}
