/* tl_render_json.c - the JSON output format: trainlint's own document (schema_version 1) of
 * findings, with their fixes, and of input errors. */
#include "tl_render.h"

static cJSON *tl_render_json__finding(const tl_analysis *a, const tl_finding *f) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "code", tl_rule_code(f->rule));
  cJSON_AddStringToObject(o, "name", tl_rule_name(f->rule));
  cJSON_AddStringToObject(o, "severity", tl_severity_name(f->severity));
  cJSON_AddStringToObject(o, "path", f->path);
  cJSON_AddNumberToObject(o, "line", f->line);
  cJSON_AddNumberToObject(o, "column", f->col);
  cJSON_AddNumberToObject(o, "end_line", f->end_line);
  cJSON_AddNumberToObject(o, "end_column", f->end_col);
  if (f->cell) { /* a notebook: the lines are counted within these code cells */
    cJSON_AddNumberToObject(o, "cell", f->cell);
    cJSON_AddNumberToObject(o, "end_cell", f->end_cell);
  }
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
    if (f->hot[i].cell) cJSON_AddNumberToObject(h, "cell", f->hot[i].cell);
    cJSON_AddItemToArray(hot, h);
  }
  tl_edit one;
  size_t nedits;
  const tl_edit *ed = tl_output_file_edits(a, f, &one, &nedits); /* a notebook's: of its JSON */
  if (nedits) {
    cJSON *fix = cJSON_AddObjectToObject(o, "fix");
    cJSON_AddStringToObject(fix, "title", tl_rule_fix_title(f->rule));
    cJSON_AddStringToObject(fix, "applicability", f->fix_safety == TL_FIXSAFE_SAFE ? "safe" : "unsafe");
    cJSON *edits = cJSON_AddArrayToObject(fix, "edits");
    for (size_t i = 0; i < nedits; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddNumberToObject(e, "start_byte", ed[i].start);
      cJSON_AddNumberToObject(e, "end_byte", ed[i].end);
      cJSON_AddStringToObject(e, "content", ed[i].text);
      cJSON_AddItemToArray(edits, e);
    }
    tl_output_edits_free(ed, &one);
  } else {
    cJSON_AddNullToObject(o, "fix");
  }
  return o;
}

void tl_render_json(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  size_t n = tl_analysis_finding_count(a);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "tool", "trainlint");
  cJSON_AddStringToObject(root, "version", TL_VERSION);
  cJSON_AddNumberToObject(root, "schema_version", 1);
  cJSON *arr = cJSON_AddArrayToObject(root, "findings");
  for (size_t i = 0; i < n; i++)
    if (!skip || !skip[i]) cJSON_AddItemToArray(arr, tl_render_json__finding(a, tl_analysis_finding(a, i)));
  cJSON *errs = cJSON_AddArrayToObject(root, "errors");
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    const tl_diag *d = tl_analysis_diag(a, i);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "level",
                            d->level == TL_DIAG_ERROR     ? "error"
                            : d->level == TL_DIAG_WARNING ? "warning"
                                                          : "note");
    cJSON_AddStringToObject(e, "path", d->path);
    cJSON_AddNumberToObject(e, "line", d->line);
    cJSON_AddNumberToObject(e, "column", d->col);
    if (d->cell) cJSON_AddNumberToObject(e, "cell", d->cell);
    cJSON_AddStringToObject(e, "message", d->message);
    cJSON_AddItemToArray(errs, e);
  }
  tl_output_json_doc(out, root);
}
