/* tl_pred_registry.c - the predicates of rule queries: the domain modules' tables, looked up by
 * name when a rule is compiled (tl_pred.h). */
#include "tl_pred.h"

#include <string.h>

static const tl_pred_def *const tl_pred__modules[] = {
    tl_preds_syntax, tl_preds_calls, tl_preds_values, tl_preds_host, tl_preds_flow, tl_preds_project, NULL};

const tl_pred_def *tl_pred_lookup(const char *name, size_t len) {
  for (const tl_pred_def *const *m = tl_pred__modules; *m; m++)
    for (const tl_pred_def *d = *m; d->name; d++)
      if (strlen(d->name) == len && !memcmp(d->name, name, len)) return d;
  return NULL;
}
