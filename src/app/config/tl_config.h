/* tl_config.h - the [tool.trainlint] table of pyproject.toml, parsed with the tree-sitter TOML
 * grammar, and found by walking up from each analysed file (nearest wins). */
#ifndef TL_CONFIG_H
#define TL_CONFIG_H

#include "tl_util.h"
#include "trainlint.h"

typedef struct {
  char *glob; /* relative to the configuration's directory, gitignore syntax */
  tl_strvec codes;
} tl_per_file_ignore;

typedef struct {
  char *code;
  tl_severity severity;
} tl_severity_override;

/* Where a rule code or prefix was written in the file, for the error when no rule has it. */
typedef struct {
  char *code;      /* as stored (upper case) */
  const char *key; /* "select", "ignore", "extend-select", "per-file-ignores", "severity" */
  uint32_t line, col;
} tl_code_at;

typedef struct {
  char *path; /* the pyproject.toml (or --config file) */
  char *dir;  /* its directory ("." for a bare file name) */
  bool has_select;
  tl_strvec select, ignore, extend_select, exclude, extend_exclude, hot_functions, step_iterables, frameworks;
  TL_VEC(tl_per_file_ignore) per_file_ignores;
  TL_VEC(tl_severity_override) severity;
  TL_VEC(tl_code_at) codes_at; /* every code of the lists above and of `severity`, with its position */
} tl_config;

/* Parses `path`. Returns NULL with located errors in diags when it is not valid TOML or the table
 * has unknown keys or wrong types. `*found` tells whether the file has a [tool.trainlint] table
 * (an empty config is returned when it has none). */
tl_config *tl_config_load(const char *path, bool *found, tl_diags *diags);
void tl_config_delete(tl_config *c);

/* Caches configurations by directory. */
typedef struct {
  tl_strvec dirs;
  TL_VEC(tl_config *) configs; /* NULL: no configuration at or above that directory */
  TL_VEC(tl_config *) owned;
} tl_config_cache;

/* Sets *config to the nearest configuration for a file (walking up from its directory to the
 * filesystem root, stopping at the first pyproject.toml that has a [tool.trainlint] table), or
 * NULL when there is none or it is broken. Returns false when it added errors to diags: a broken
 * file is reported the first time the cache meets it. */
bool tl_config_for(tl_config_cache *cache, const char *file, tl_config **config, tl_diags *diags);
void tl_config_cache_free(tl_config_cache *cache);

/* Does `code` (a rule code, a prefix of one, or ALL) name at least one rule of rs? Codes are
 * stored in upper case: `tl101` on the command line or in a file is TL101. */
bool tl_config_code_known(const tl_ruleset *rs, const char *code);
/* Adds a located error to diags for each code of c that names no rule of rs (a typo, such as
 * TL1O1, would otherwise select or ignore nothing, silently). Returns false when there was one. */
bool tl_config_check_codes(const tl_config *c, const tl_ruleset *rs, tl_diags *diags);
/* Upper-cases a code in place. */
void tl_config_code_upper(char *code);

/* The command line's rule selection (or an editor's settings). Its lists are borrowed; any may be
 * empty. */
typedef struct {
  tl_strvec select;        /* --select: replaces the files' select, extend-select and ignore */
  tl_strvec extend_select; /* --extend-select: enabled on top of whatever else selects */
  tl_strvec ignore;        /* --ignore and --extend-ignore: always disabled */
} tl_selection;

/* Is `code` enabled for `file` by this configuration and the command line (`cli`; NULL: nothing
 * given)? Per-file-ignores (matched relative to the configuration's directory) always apply. */
bool tl_config_enabled(const tl_config *c, const tl_rule *rule, const char *file, const tl_selection *cli);

/* Selects in `rs` (not yet compiled) only the rules that some file may want: those enabled by the
 * configuration of one of the files (`configs` has one entry per file, NULL where a file has
 * none: the defaults; repeats are checked once) and the command line. With no file, nothing is
 * selected. Only the selected rules are compiled, so a narrow selection is fast. */
void tl_config_select_wanted(tl_ruleset *rs, tl_config *const *configs, size_t n, const tl_selection *cli);

#endif
