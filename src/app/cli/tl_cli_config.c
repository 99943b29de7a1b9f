/* tl_cli_config.c - `trainlint config [PATH]`: the settings that apply to PATH (its configuration
 * and the command line's), as TOML-like lines, and each rule on or off there. */
#include "tl_cli.h"

#include <stdio.h>

static void tl_cli_config__list(const char *key, const tl_strvec *v) {
  printf("%s = [", key);
  for (size_t i = 0; i < v->n; i++) printf("%s\"%s\"", i ? ", " : "", v->v[i]);
  printf("]\n");
}

int tl_cli_config(tl_cli *c) {
  tl_diags d = {0};
  tl_cli_configs cfg;
  const char *path = c->paths.n ? c->paths.v[0] : ".";
  int rc = 0;
  if (!tl_cli_configs_init(&cfg, c, &d)) rc = 2;
  tl_config *fc = rc ? NULL : tl_cli_configs_for(&cfg, path, &d);
  if (cfg.failed) rc = 2;
  tl_ruleset *rs = rc ? NULL : tl_cli_load_rules(c, true, true, &d);
  tl_output_diags(stderr, &d, false);
  if (rs) {
    printf("# effective trainlint settings for %s\n", path);
    printf("config = \"%s\"\n", fc ? fc->path : "(none: defaults)");
    tl_strvec empty = {0};
    tl_cli_config__list("select", c->select.n ? &c->select : fc && fc->has_select ? &fc->select : &empty);
    tl_cli_config__list("extend-select", fc ? &fc->extend_select : &empty);
    tl_cli_config__list("ignore", fc ? &fc->ignore : &empty);
    tl_cli_config__list("cli-ignore", &c->ignore);
    tl_cli_config__list("exclude", fc ? &fc->exclude : &empty);
    tl_cli_config__list("extend-exclude", fc ? &fc->extend_exclude : &empty);
    tl_cli_config__list("hot-functions", fc ? &fc->hot_functions : &empty);
    tl_cli_config__list("step-loop-iterables", fc ? &fc->step_iterables : &empty);
    tl_cli_config__list("frameworks", fc ? &fc->frameworks : &empty);
    for (size_t i = 0; fc && i < fc->per_file_ignores.n; i++) {
      char *key = tl_printf("per-file-ignores.\"%s\"", fc->per_file_ignores.v[i].glob);
      tl_cli_config__list(key, &fc->per_file_ignores.v[i].codes);
      free(key);
    }
    for (size_t i = 0; fc && i < fc->severity.n; i++)
      tl_ruleset_set_severity(rs, fc->severity.v[i].code, fc->severity.v[i].severity);
    printf("# rules for %s\n", path);
    for (size_t i = 0; i < tl_ruleset_count(rs); i++) {
      const tl_rule *r = tl_ruleset_rule(rs, i);
      tl_selection sel = tl_cli_selection(c);
      bool on = tl_config_enabled(fc, r, path, &sel);
      printf("%-6s %-36s %-8s %s\n", tl_rule_code(r), tl_rule_name(r), tl_severity_name(tl_rule_severity(r)),
             on ? "on" : "off");
    }
    tl_ruleset_delete(rs);
  } else {
    rc = 2;
  }
  tl_cli_configs_free(&cfg);
  tl_diags_free(&d);
  return rc;
}
