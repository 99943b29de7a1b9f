/* tl_cli.c - what the command line's subcommands share: freeing the parsed options, loading the
 * rules, and finding each path's configuration. */
#include "tl_cli.h"

#include <string.h>

void tl_cli_free(tl_cli *c) {
  free(c->output);
  free(c->baseline);
  free(c->write_baseline);
  free(c->diff_base);
  free(c->config);
  free(c->stdin_filename);
  free(c->cache_dir);
  tl_strvec *lists[] = {&c->select, &c->extend_select, &c->ignore, &c->excludes, &c->paths, &c->rule_dirs};
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
    for (size_t k = 0; k < lists[i]->n; k++) free(lists[i]->v[k]);
    tl_vec_free(lists[i]);
  }
}

tl_selection tl_cli_selection(const tl_cli *c) {
  tl_selection s = {c->select, c->extend_select, c->ignore};
  return s;
}

size_t tl_cli_rule_diags(const tl_ruleset *rs, size_t from, tl_diags *d) {
  size_t n = tl_ruleset_diag_count(rs);
  for (size_t i = from; i < n; i++) {
    const tl_diag *x = tl_ruleset_diag(rs, i);
    tl_diags_add(d, x->level, x->path, x->line, x->col, "%s", x->message);
  }
  return n;
}

tl_ruleset *tl_cli_load_rules(const tl_cli *c, bool select_all, bool compile, tl_diags *d) {
  tl_ruleset *rs = tl_ruleset_new();
  bool ok = tl_ruleset_add_builtin(rs);
  for (size_t i = 0; i < c->rule_dirs.n; i++) ok = tl_ruleset_add_dir(rs, c->rule_dirs.v[i]) && ok;
  static const char *const all[] = {"ALL"};
  if (select_all) tl_ruleset_select(rs, all, 1, NULL, 0);
  else
    tl_ruleset_select(rs, (const char *const *)c->select.v, c->select.n, (const char *const *)c->ignore.v, c->ignore.n);
  if (ok && compile) ok = tl_ruleset_compile(rs);
  tl_cli_rule_diags(rs, 0, d);
  if (!ok) {
    tl_ruleset_delete(rs);
    return NULL;
  }
  return rs;
}

bool tl_cli_configs_init(tl_cli_configs *self, const tl_cli *c, tl_diags *d) {
  memset(self, 0, sizeof *self);
  if (!c->config) return true;
  bool found;
  self->explicit_cfg = tl_config_load(c->config, &found, d);
  return self->explicit_cfg != NULL;
}

tl_config *tl_cli_configs_for(tl_cli_configs *self, const char *path, tl_diags *d) {
  if (self->explicit_cfg) return self->explicit_cfg;
  tl_config *c;
  if (!tl_config_for(&self->cache, path, &c, d)) self->failed = true;
  return c;
}

void tl_cli_configs_free(tl_cli_configs *self) {
  tl_config_delete(self->explicit_cfg);
  tl_config_cache_free(&self->cache);
}
