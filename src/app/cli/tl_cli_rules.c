/* tl_cli_rules.c - `trainlint rules` (a table of the rules) and `trainlint explain CODE` (a rule's
 * documentation and its measured cost). */
#include "tl_cli.h"

#include <stdio.h>
#include <string.h>

#include "tl_costs.h"

/* The rules of the command line (--rules, --select, --ignore), or NULL with the errors printed. */
static tl_ruleset *tl_cli_rules__load(const tl_cli *c) {
  tl_diags d = {0};
  tl_ruleset *rs = tl_cli_load_rules(c, false, true, &d);
  tl_output_diags(stderr, &d, false);
  tl_diags_free(&d);
  return rs;
}

int tl_cli_rules(tl_cli *c) {
  tl_ruleset *rs = tl_cli_rules__load(c);
  if (!rs) return 2;
  if (c->format == TL_FORMAT_JSON) {
    tl_output_rules_json(stdout, rs, c->all);
    tl_ruleset_delete(rs);
    return 0;
  }
  for (size_t i = 0; i < tl_ruleset_count(rs); i++) {
    const tl_rule *r = tl_ruleset_rule(rs, i);
    if (!c->all && !tl_rule_enabled(r) && tl_rule_default_enabled(r)) continue;
    const char *fix = tl_rule_fix_safety(r) == TL_FIXSAFE_SAFE     ? "fix"
                      : tl_rule_fix_safety(r) == TL_FIXSAFE_UNSAFE ? "unsafe-fix"
                                                                   : "-";
    printf("%-6s %-36s %-8s %-10s %s\n", tl_rule_code(r), tl_rule_name(r), tl_severity_name(tl_rule_severity(r)), fix,
           tl_rule_default_enabled(r) ? "on" : "off (opt-in)");
  }
  tl_ruleset_delete(rs);
  return 0;
}

int tl_cli_explain(tl_cli *c) {
  if (c->paths.n != 1) {
    fprintf(stderr, "usage: trainlint explain CODE\n");
    return 2;
  }
  const char *code = c->paths.v[0];
  tl_ruleset *rs = tl_cli_rules__load(c);
  if (!rs) return 2;
  const tl_rule *r = tl_ruleset_find(rs, code);
  int rc = 0;
  if (!r) {
    fprintf(stderr, "trainlint: no rule '%s' (see `trainlint rules`)\n", code);
    rc = 2;
  } else {
    printf("%s (%s): severity %s, fix %s, %s\n\n%s\n", tl_rule_code(r), tl_rule_name(r),
           tl_severity_name(tl_rule_severity(r)),
           tl_rule_fix_safety(r) == TL_FIXSAFE_SAFE     ? "safe"
           : tl_rule_fix_safety(r) == TL_FIXSAFE_UNSAFE ? "unsafe"
                                                        : "none",
           tl_rule_default_enabled(r) ? "on by default" : "off by default (enable with --select)", tl_rule_doc(r));
    if (tl_rule_check(r)) { /* the engine's own check: about suppressions, not training code */
      tl_ruleset_delete(rs);
      return 0;
    }
    printf("\n## Measured cost\n");
    bool any = false;
    for (const tl_cost *k = tl_costs; k->code; k++)
      if (!strcmp(k->code, tl_rule_code(r))) {
        printf("- %s\n", k->text);
        any = true;
      }
    if (!any)
      printf("Not yet measured on a GPU%s (bench/run writes the results; see bench/README.md).\n",
             strcmp(tl_costs_source, "none") ? " for this rule" : "");
  }
  tl_ruleset_delete(rs);
  return rc;
}
