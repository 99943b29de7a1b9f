/* tl_output.c - text and JSON renderers for findings and diagnostics, and fix application. */
#include "tl_output.h"

#include <cjson/cJSON.h>
#include <ctype.h>
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
  cJSON_AddStringToObject(o, "fingerprint", f->fingerprint);
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

/* A path as a relative URI reference: percent-encode what is not unreserved or '/'. */
static char *tl_uri(const char *path) {
  tl_buf b = {0};
  while (path[0] == '.' && path[1] == '/') path += 2;
  if (path[0] == '/') tl_buf_puts(&b, "file://"); /* absolute: a file URI, no base */
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if (isalnum(*p) || strchr("-._~/", *p)) tl_buf_putc(&b, (char)*p);
    else tl_buf_printf(&b, "%%%02X", *p);
  }
  return tl_buf_take(&b);
}

static cJSON *tl_sarif_region(uint32_t line, uint32_t col, uint32_t eline, uint32_t ecol) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddNumberToObject(r, "startLine", line);
  cJSON_AddNumberToObject(r, "startColumn", col);
  cJSON_AddNumberToObject(r, "endLine", eline);
  cJSON_AddNumberToObject(r, "endColumn", ecol);
  return r;
}

static cJSON *tl_sarif_location(const char *path, cJSON *region) {
  cJSON *loc = cJSON_CreateObject();
  cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
  cJSON *art = cJSON_AddObjectToObject(phys, "artifactLocation");
  char *uri = tl_uri(path);
  cJSON_AddStringToObject(art, "uri", uri);
  if (path[0] != '/') cJSON_AddStringToObject(art, "uriBaseId", "%SRCROOT%");
  free(uri);
  cJSON_AddItemToObject(phys, "region", region);
  return loc;
}

/* A message template without its {{captures}}: "`{{x}}` copies ..." -> "this code copies ...". */
static char *tl_template_plain(const char *t) {
  tl_buf b = {0};
  for (const char *p = t; *p;) {
    if (p[0] == '`' && p[1] == '{' && p[2] == '{') {
      const char *e = strstr(p, "}}`");
      if (e) { tl_buf_puts(&b, p == t ? "This code" : "this code"); p = e + 3; continue; }
    }
    if (p[0] == '{' && p[1] == '{') {
      const char *e = strstr(p, "}}");
      if (e) { tl_buf_puts(&b, "..."); p = e + 2; continue; }
    }
    tl_buf_putc(&b, *p++);
  }
  return tl_buf_take(&b);
}

static const char *tl_sarif_level(tl_severity s) {
  return s == TL_SEVERITY_ERROR ? "error" : s == TL_SEVERITY_WARNING ? "warning" : "note";
}

/* The first paragraph of a rule's "What it does" section, as plain text. */
static char *tl_doc_summary(const char *doc) {
  const char *p = strstr(doc, "## What it does");
  p = p ? strchr(p, '\n') : doc;
  if (!p) return tl_strdup(doc);
  while (*p == '\n') p++;
  const char *e = strstr(p, "\n\n");
  size_t n = e ? (size_t)(e - p) : strlen(p);
  char *s = tl_strndup(p, n);
  for (char *c = s; *c; c++)
    if (*c == '\n') *c = ' ';
  return s;
}

static void tl_output_sarif(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  cJSON_AddStringToObject(root, "version", "2.1.0");
  cJSON *runs = cJSON_AddArrayToObject(root, "runs");
  cJSON *run = cJSON_CreateObject();
  cJSON_AddItemToArray(runs, run);
  cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
  cJSON_AddStringToObject(driver, "name", "trainlint");
  cJSON_AddStringToObject(driver, "version", TL_VERSION);
  cJSON_AddStringToObject(driver, "semanticVersion", TL_VERSION);
  cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
  size_t nrules = o->rules ? tl_ruleset_count(o->rules) : 0;
  for (size_t i = 0; i < nrules; i++) {
    const tl_rule *r = tl_ruleset_rule(o->rules, i);
    cJSON *rj = cJSON_CreateObject();
    cJSON_AddStringToObject(rj, "id", tl_rule_code(r));
    cJSON_AddStringToObject(rj, "name", tl_rule_name(r));
    char *summary = tl_doc_summary(tl_rule_doc(r));
    char *shortd = tl_template_plain(tl_rule_summary(r));
    cJSON_AddStringToObject(cJSON_AddObjectToObject(rj, "shortDescription"), "text", shortd);
    free(shortd);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(rj, "fullDescription"), "text", summary);
    free(summary);
    cJSON *help = cJSON_AddObjectToObject(rj, "help");
    cJSON_AddStringToObject(help, "text", *tl_rule_help(r) ? tl_rule_help(r) : tl_rule_summary(r));
    cJSON_AddStringToObject(help, "markdown", tl_rule_doc(r));
    cJSON *cfg = cJSON_AddObjectToObject(rj, "defaultConfiguration");
    cJSON_AddStringToObject(cfg, "level", tl_sarif_level(tl_rule_severity(r)));
    cJSON_AddBoolToObject(cfg, "enabled", tl_rule_enabled(r));
    cJSON_AddItemToArray(rules, rj);
  }
  cJSON *results = cJSON_AddArrayToObject(run, "results");
  size_t n = tl_analysis_finding_count(a);
  for (size_t i = 0; i < n; i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "ruleId", tl_rule_code(f->rule));
    for (size_t k = 0; k < nrules; k++)
      if (tl_ruleset_rule(o->rules, k) == f->rule) cJSON_AddNumberToObject(res, "ruleIndex", (double)k);
    cJSON_AddStringToObject(res, "level", tl_sarif_level(f->severity));
    char *hot = tl_hot_text(f);
    char *msg = *hot ? tl_printf("%s (%s)", f->message, hot) : tl_strdup(f->message);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "message"), "text", msg);
    free(msg);
    free(hot);
    cJSON *locs = cJSON_AddArrayToObject(res, "locations");
    cJSON_AddItemToArray(locs, tl_sarif_location(f->path, tl_sarif_region(f->line, f->col, f->end_line, f->end_col)));
    if (f->nhot) {
      cJSON *rel = cJSON_AddArrayToObject(res, "relatedLocations");
      for (size_t k = 0; k < f->nhot; k++) {
        cJSON *l = tl_sarif_location(f->hot[k].path, tl_sarif_region(f->hot[k].line, f->hot[k].col, f->hot[k].line, f->hot[k].col + 1));
        cJSON_AddNumberToObject(l, "id", (double)k);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(l, "message"), "text", f->hot[k].what);
        cJSON_AddItemToArray(rel, l);
      }
    }
    cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "partialFingerprints"), "trainlint/v1", f->fingerprint);
    if (f->fix.n) {
      cJSON *fixes = cJSON_AddArrayToObject(res, "fixes");
      cJSON *fx = cJSON_CreateObject();
      cJSON_AddStringToObject(cJSON_AddObjectToObject(fx, "description"), "text",
                              *tl_rule_fix_title(f->rule) ? tl_rule_fix_title(f->rule) : "apply the fix");
      cJSON *changes = cJSON_AddArrayToObject(fx, "artifactChanges");
      cJSON *ch = cJSON_CreateObject();
      char *uri = tl_uri(f->path);
      cJSON *art = cJSON_AddObjectToObject(ch, "artifactLocation");
      cJSON_AddStringToObject(art, "uri", uri);
      if (f->path[0] != '/') cJSON_AddStringToObject(art, "uriBaseId", "%SRCROOT%");
      free(uri);
      cJSON *reps = cJSON_AddArrayToObject(ch, "replacements");
      for (size_t k = 0; k < f->fix.n; k++) {
        cJSON *rep = cJSON_CreateObject();
        cJSON *del = cJSON_AddObjectToObject(rep, "deletedRegion");
        cJSON_AddNumberToObject(del, "byteOffset", f->fix.v[k].start);
        cJSON_AddNumberToObject(del, "byteLength", f->fix.v[k].end - f->fix.v[k].start);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(rep, "insertedContent"), "text", f->fix.v[k].text);
        cJSON_AddItemToArray(reps, rep);
      }
      cJSON_AddItemToArray(changes, ch);
      cJSON_AddItemToArray(fixes, fx);
    }
    cJSON_AddItemToArray(results, res);
  }
  cJSON_AddStringToObject(run, "columnKind", "unicodeCodePoints");
  char *s = cJSON_Print(root);
  fputs(s, out);
  fputc('\n', out);
  cJSON_free(s);
  cJSON_Delete(root);
}

/* GitHub workflow commands: values escape %, CR, LF; properties also ':' and ','. */
static void tl_gh_escape(FILE *out, const char *s, bool property) {
  for (; *s; s++) {
    if (*s == '%') fputs("%25", out);
    else if (*s == '\r') fputs("%0D", out);
    else if (*s == '\n') fputs("%0A", out);
    else if (property && *s == ':') fputs("%3A", out);
    else if (property && *s == ',') fputs("%2C", out);
    else fputc(*s, out);
  }
}

static void tl_output_github(FILE *out, const tl_analysis *a, const bool *skip) {
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    const char *lvl = f->severity == TL_SEVERITY_ERROR ? "error" : f->severity == TL_SEVERITY_WARNING ? "warning" : "notice";
    const char *path = f->path;
    while (path[0] == '.' && path[1] == '/') path += 2;
    fprintf(out, "::%s file=", lvl);
    tl_gh_escape(out, path, true);
    fprintf(out, ",line=%u,col=%u,endLine=%u,endColumn=%u,title=", f->line, f->col, f->end_line, f->end_col);
    tl_gh_escape(out, tl_rule_code(f->rule), true);
    fputs("::", out);
    char *hot = tl_hot_text(f);
    char *msg = *hot ? tl_printf("%s %s (%s)", tl_rule_code(f->rule), f->message, hot)
                     : tl_printf("%s %s", tl_rule_code(f->rule), f->message);
    tl_gh_escape(out, msg, false);
    free(msg);
    free(hot);
    fputc('\n', out);
  }
}

static void tl_output_gitlab(FILE *out, const tl_analysis *a, const bool *skip) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    cJSON *o = cJSON_CreateObject();
    char *desc = tl_printf("%s: %s", tl_rule_code(f->rule), f->message);
    cJSON_AddStringToObject(o, "description", desc);
    free(desc);
    cJSON_AddStringToObject(o, "check_name", tl_rule_code(f->rule));
    /* unique per finding: the stable fingerprint plus its rank among equal ones */
    size_t rank = 0;
    for (size_t k = 0; k < i; k++)
      if (!strcmp(tl_analysis_finding(a, k)->fingerprint, f->fingerprint)) rank++;
    char *fp = tl_printf("%s-%zu", f->fingerprint, rank);
    cJSON_AddStringToObject(o, "fingerprint", fp);
    free(fp);
    cJSON_AddStringToObject(o, "severity", f->severity == TL_SEVERITY_ERROR ? "major" : f->severity == TL_SEVERITY_WARNING ? "minor" : "info");
    cJSON *loc = cJSON_AddObjectToObject(o, "location");
    const char *path = f->path;
    while (path[0] == '.' && path[1] == '/') path += 2;
    cJSON_AddStringToObject(loc, "path", path);
    cJSON *lines = cJSON_AddObjectToObject(loc, "lines");
    cJSON_AddNumberToObject(lines, "begin", f->line);
    cJSON_AddNumberToObject(lines, "end", f->end_line);
    cJSON_AddItemToArray(arr, o);
  }
  char *s = cJSON_Print(arr);
  fputs(s, out);
  fputc('\n', out);
  cJSON_free(s);
  cJSON_Delete(arr);
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

void tl_output_findings(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  size_t n = tl_analysis_finding_count(a);
  if (o->format == TL_FORMAT_SARIF) { tl_output_sarif(out, a, skip, o); return; }
  if (o->format == TL_FORMAT_GITHUB) { tl_output_github(out, a, skip); return; }
  if (o->format == TL_FORMAT_GITLAB) { tl_output_gitlab(out, a, skip); return; }
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
  if (o->format == TL_FORMAT_TEXT && !o->quiet) {
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
