/* tl_render_gitlab.c - the gitlab output format: a GitLab Code Quality report (a JSON array of
 * issues with a unique fingerprint each). */
#include "tl_render.h"

#include <string.h>

void tl_render_gitlab(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    if (skip && skip[i]) continue;
    const tl_finding *f = tl_analysis_finding(a, i);
    cJSON *issue = cJSON_CreateObject();
    /* in a notebook the lines are counted within the code cell the description names */
    char *desc = f->cell ? tl_printf("%s: %s (cell %u)", tl_rule_code(f->rule), f->message, f->cell)
                         : tl_printf("%s: %s", tl_rule_code(f->rule), f->message);
    cJSON_AddStringToObject(issue, "description", desc);
    free(desc);
    cJSON_AddStringToObject(issue, "check_name", tl_rule_code(f->rule));
    /* unique per finding: the stable fingerprint plus its rank among equal ones */
    size_t rank = 0;
    for (size_t k = 0; k < i; k++)
      if (!strcmp(tl_analysis_finding(a, k)->fingerprint, f->fingerprint)) rank++;
    char *fp = tl_printf("%s-%zu", f->fingerprint, rank);
    cJSON_AddStringToObject(issue, "fingerprint", fp);
    free(fp);
    cJSON_AddStringToObject(issue, "severity",
                            f->severity == TL_SEVERITY_ERROR     ? "major"
                            : f->severity == TL_SEVERITY_WARNING ? "minor"
                                                                 : "info");
    cJSON *loc = cJSON_AddObjectToObject(issue, "location");
    cJSON_AddStringToObject(loc, "path", tl_output_relpath(f->path));
    cJSON *lines = cJSON_AddObjectToObject(loc, "lines");
    cJSON_AddNumberToObject(lines, "begin", f->line);
    cJSON_AddNumberToObject(lines, "end", f->end_line);
    cJSON_AddItemToArray(arr, issue);
  }
  tl_output_json_doc(out, arr);
}
