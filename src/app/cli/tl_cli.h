/* tl_cli.h - the command line's subcommands (check, config, rules, explain, test-rules) and what they share.
 * main.c parses the arguments into a tl_cli and calls one tl_cli_<command>; `server` is tl_lsp.h. */
#ifndef TL_CLI_H
#define TL_CLI_H

#include "tl_config.h"
#include "tl_output.h"

/* The parsed command line. It owns every string and list in it (tl_cli_free). */
typedef struct {
  /* paths: the arguments that are no options; ignore: --ignore and --extend-ignore */
  tl_strvec select, extend_select, ignore, excludes, paths, rule_dirs;
  tl_format format;
  bool diff, fix, unsafe, exit_zero, no_source, show_fixes, statistics, quiet, unused_supp, add_noqa, all, show_files,
      show_settings, no_cache;
  /* the values of --output, --baseline, --write-baseline, --diff-base, --config; NULL: not given */
  char *output, *baseline, *write_baseline, *diff_base, *config, *stdin_filename, *cache_dir;
  int color;             /* -1 auto, 0 never, 1 always */
  unsigned jobs;         /* 0: all cores */
  size_t max_file_bytes; /* --max-file-size; 0: the default (16 MiB) */
  /* --min-severity and --fail-on: a tl_severity + 1, 0 when not given (every finding shown; any
   * finding fails the check) */
  int min_severity, fail_severity;
} tl_cli;

void tl_cli_free(tl_cli *c);
/* The rule selection of the command line (borrowing c's lists). */
tl_selection tl_cli_selection(const tl_cli *c);

/* The subcommands. Each writes its report to stdout and its errors to stderr, and returns the
 * process exit status (0; 1 findings; 2 a usage error, a bad rule or configuration file, or an
 * input that could not be analysed). */
int tl_cli_check(tl_cli *c);   /* tl_cli_check.c: analyse c->paths (default ".") */
int tl_cli_config(tl_cli *c);  /* tl_cli_config.c: the effective settings for c->paths[0] */
int tl_cli_rules(tl_cli *c);   /* tl_cli_rules.c: list the rules (c->all: also the deselected) */
int tl_cli_explain(tl_cli *c); /* tl_cli_rules.c: a rule's documentation; c->paths holds its code */
/* tl_cli_test_rules.c: the annotated fixtures of the rules in c->paths[0] (exit 1 on a failure) */
int tl_cli_test_rules(tl_cli *c);

/* ---- shared by the subcommands (tl_cli.c) ---- */

/* The built-in rules and those of --rules, with the command line's --select/--ignore (or with
 * every rule selected when `select_all`), compiled unless `compile` is false. NULL on errors (in
 * `d`). The caller deletes the rule set. */
tl_ruleset *tl_cli_load_rules(const tl_cli *c, bool select_all, bool compile, tl_diags *d);
/* Appends the diagnostics of `rs` from the `from`th on to `d`; returns how many `rs` has. */
size_t tl_cli_rule_diags(const tl_ruleset *rs, size_t from, tl_diags *d);

/* The configuration of each path: --config's for every one, or the nearest pyproject.toml with a
 * [tool.trainlint] table above it. Owns the configurations it hands out. */
typedef struct {
  tl_config *explicit_cfg; /* --config, or NULL */
  tl_config_cache cache;
  bool failed; /* a configuration could not be read (its errors went to the diagnostics) */
} tl_cli_configs;

/* Loads --config when given; false (errors in `d`) when it cannot be read. Free it either way. */
bool tl_cli_configs_init(tl_cli_configs *self, const tl_cli *c, tl_diags *d);
/* The configuration for `path` (NULL: none, the defaults); borrowed from `self`. */
tl_config *tl_cli_configs_for(tl_cli_configs *self, const char *path, tl_diags *d);
void tl_cli_configs_free(tl_cli_configs *self);

#endif
