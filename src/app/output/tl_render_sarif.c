/* tl_render_sarif.c - the SARIF 2.1.0 output format: the rules with their docs, and the findings
 * with hot chains as related locations and fixes as artifact changes. */
#include "tl_render.h"

#include <ctype.h>
#include <string.h>

/* A path as a relative URI reference: percent-encode what is not unreserved or '/'. Caller frees. */
static char *tl_render_sarif__uri(const char *path) {
  tl_buf b = {0};
  path = tl_output_relpath(path);
  if (path[0] == '/') tl_buf_puts(&b, "file://"); /* absolute: a file URI, no base */
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if (isalnum(*p) || strchr("-._~/", *p)) tl_buf_putc(&b, (char)*p);
    else tl_buf_printf(&b, "%%%02X", *p);
  }
  return tl_buf_take(&b);
}

/* {"uri": ..., "uriBaseId": "%SRCROOT%"} of a path (no base for an absolute one) into `art`. */
static void tl_render_sarif__artifact(cJSON *art, const char *path) {
  char *uri = tl_render_sarif__uri(path);
  cJSON_AddStringToObject(art, "uri", uri);
  if (path[0] != '/') cJSON_AddStringToObject(art, "uriBaseId", "%SRCROOT%");
  free(uri);
}

static cJSON *tl_render_sarif__region(uint32_t line, uint32_t col, uint32_t eline, uint32_t ecol) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddNumberToObject(r, "startLine", line);
  cJSON_AddNumberToObject(r, "startColumn", col);
  cJSON_AddNumberToObject(r, "endLine", eline);
  cJSON_AddNumberToObject(r, "endColumn", ecol);
  return r;
}

/* A location of `path`; takes ownership of `region`. */
static cJSON *tl_render_sarif__location(const char *path, cJSON *region) {
  cJSON *loc = cJSON_CreateObject();
  cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
  tl_render_sarif__artifact(cJSON_AddObjectToObject(phys, "artifactLocation"), path);
  cJSON_AddItemToObject(phys, "region", region);
  return loc;
}

/* A message template without its {{captures}}: "`{{x}}` copies ..." -> "this code copies ...".
 * Caller frees. */
static char *tl_render_sarif__template_plain(const char *t) {
  tl_buf b = {0};
  for (const char *p = t; *p;) {
    if (p[0] == '`' && p[1] == '{' && p[2] == '{') {
      const char *e = strstr(p, "}}`");
      if (e) {
        tl_buf_puts(&b, p == t ? "This code" : "this code");
        p = e + 3;
        continue;
      }
    }
    if (p[0] == '{' && p[1] == '{') {
      const char *e = strstr(p, "}}");
      if (e) {
        tl_buf_puts(&b, "...");
        p = e + 2;
        continue;
      }
    }
    tl_buf_putc(&b, *p++);
  }
  return tl_buf_take(&b);
}

static const char *tl_render_sarif__level(tl_severity s) {
  return s == TL_SEVERITY_ERROR ? "error" : s == TL_SEVERITY_WARNING ? "warning" : "note";
}

/* The first paragraph of a rule's "What it does" section, as plain text. Caller frees. */
static char *tl_render_sarif__doc_summary(const char *doc) {
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

/* The reportingDescriptor of a rule. */
static cJSON *tl_render_sarif__rule(const tl_rule *r) {
  cJSON *rj = cJSON_CreateObject();
  cJSON_AddStringToObject(rj, "id", tl_rule_code(r));
  cJSON_AddStringToObject(rj, "name", tl_rule_name(r));
  char *summary = tl_render_sarif__doc_summary(tl_rule_doc(r));
  char *shortd = tl_render_sarif__template_plain(tl_rule_summary(r));
  cJSON_AddStringToObject(cJSON_AddObjectToObject(rj, "shortDescription"), "text", shortd);
  free(shortd);
  cJSON_AddStringToObject(cJSON_AddObjectToObject(rj, "fullDescription"), "text", summary);
  free(summary);
  cJSON *help = cJSON_AddObjectToObject(rj, "help");
  cJSON_AddStringToObject(help, "text", *tl_rule_help(r) ? tl_rule_help(r) : tl_rule_summary(r));
  cJSON_AddStringToObject(help, "markdown", tl_rule_doc(r));
  cJSON *cfg = cJSON_AddObjectToObject(rj, "defaultConfiguration");
  cJSON_AddStringToObject(cfg, "level", tl_render_sarif__level(tl_rule_severity(r)));
  cJSON_AddBoolToObject(cfg, "enabled", tl_rule_enabled(r));
  return rj;
}

/* The fix of a finding as SARIF's fixes array (one fix, one artifact change). */
static cJSON *tl_render_sarif__fixes(const tl_finding *f, const tl_edit *ed, size_t nedits) {
  cJSON *fixes = cJSON_CreateArray();
  cJSON *fx = cJSON_CreateObject();
  cJSON_AddStringToObject(cJSON_AddObjectToObject(fx, "description"), "text",
                          *tl_rule_fix_title(f->rule) ? tl_rule_fix_title(f->rule) : "apply the fix");
  cJSON *changes = cJSON_AddArrayToObject(fx, "artifactChanges");
  cJSON *ch = cJSON_CreateObject();
  tl_render_sarif__artifact(cJSON_AddObjectToObject(ch, "artifactLocation"), f->path);
  cJSON *reps = cJSON_AddArrayToObject(ch, "replacements");
  for (size_t k = 0; k < nedits; k++) {
    cJSON *rep = cJSON_CreateObject();
    cJSON *del = cJSON_AddObjectToObject(rep, "deletedRegion");
    cJSON_AddNumberToObject(del, "byteOffset", ed[k].start);
    cJSON_AddNumberToObject(del, "byteLength", ed[k].end - ed[k].start);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(rep, "insertedContent"), "text", ed[k].text);
    cJSON_AddItemToArray(reps, rep);
  }
  cJSON_AddItemToArray(changes, ch);
  cJSON_AddItemToArray(fixes, fx);
  return fixes;
}

/* The result of a finding; rules (may be NULL) gives the ruleIndex. */
static cJSON *tl_render_sarif__result(const tl_analysis *a, const tl_finding *f, const tl_ruleset *rules) {
  cJSON *res = cJSON_CreateObject();
  cJSON_AddStringToObject(res, "ruleId", tl_rule_code(f->rule));
  size_t nrules = rules ? tl_ruleset_count(rules) : 0;
  for (size_t k = 0; k < nrules; k++)
    if (tl_ruleset_rule(rules, k) == f->rule) cJSON_AddNumberToObject(res, "ruleIndex", (double)k);
  cJSON_AddStringToObject(res, "level", tl_render_sarif__level(f->severity));
  char *hot = tl_hot_text(f);
  char *msg = *hot ? tl_printf("%s (%s)", f->message, hot) : tl_strdup(f->message);
  cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "message"), "text", msg);
  free(msg);
  free(hot);
  cJSON *locs = cJSON_AddArrayToObject(res, "locations");
  cJSON *where = tl_render_sarif__location(f->path, tl_render_sarif__region(f->line, f->col, f->end_line, f->end_col));
  if (f->cell) /* a notebook: the region's lines are counted within this code cell */
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(where, "properties"), "cell", f->cell);
  cJSON_AddItemToArray(locs, where);
  if (f->nhot) {
    cJSON *rel = cJSON_AddArrayToObject(res, "relatedLocations");
    for (size_t k = 0; k < f->nhot; k++) {
      cJSON *l = tl_render_sarif__location(
          f->hot[k].path, tl_render_sarif__region(f->hot[k].line, f->hot[k].col, f->hot[k].line, f->hot[k].col + 1));
      cJSON_AddNumberToObject(l, "id", (double)k);
      cJSON_AddStringToObject(cJSON_AddObjectToObject(l, "message"), "text", f->hot[k].what);
      cJSON_AddItemToArray(rel, l);
    }
  }
  cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "partialFingerprints"), "trainlint/v1", f->fingerprint);
  tl_edit one;
  size_t nedits;
  const tl_edit *ed = tl_output_file_edits(a, f, &one, &nedits); /* a notebook's: of its JSON */
  if (nedits) cJSON_AddItemToObject(res, "fixes", tl_render_sarif__fixes(f, ed, nedits));
  tl_output_edits_free(ed, &one);
  return res;
}

void tl_render_sarif(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
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
  for (size_t i = 0; i < nrules; i++) cJSON_AddItemToArray(rules, tl_render_sarif__rule(tl_ruleset_rule(o->rules, i)));
  cJSON *results = cJSON_AddArrayToObject(run, "results");
  size_t n = tl_analysis_finding_count(a);
  for (size_t i = 0; i < n; i++)
    if (!skip || !skip[i])
      cJSON_AddItemToArray(results, tl_render_sarif__result(a, tl_analysis_finding(a, i), o->rules));
  cJSON_AddStringToObject(run, "columnKind", "unicodeCodePoints");
  tl_output_json_doc(out, root);
}
