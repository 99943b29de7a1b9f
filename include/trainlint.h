/* trainlint.h - the public API of the trainlint library: rule sets, analyses, findings and
 * diagnostics. It needs only the C standard library.
 *
 * Ownership, as in tree-sitter's api.h:
 * - Every tl_<object>_new has a tl_<object>_delete, which frees the object and everything it
 *   handed out. Strings and arrays passed in are copied unless a function says otherwise.
 * - Pointers returned by accessors (tl_ruleset_rule, tl_ruleset_diag, tl_analysis_finding,
 *   tl_analysis_diag, tl_analysis_file_text, ...) and every pointer inside the structs they
 *   point to are owned by the object they came from: never free or change them. How long they
 *   stay valid is said at each accessor.
 * - A tl_ruleset must outlive every tl_analysis made from it.
 * - Nothing here uses global mutable state: several analyses may run at once in one process,
 *   in several threads, sharing one compiled rule set (which they only read). One object is
 *   used by one thread at a time. */
#ifndef TRAINLINT_H
#define TRAINLINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_rule tl_rule;
typedef struct tl_ruleset tl_ruleset;
typedef struct tl_analysis tl_analysis;

typedef enum { TL_SEVERITY_INFO, TL_SEVERITY_WARNING, TL_SEVERITY_ERROR } tl_severity;
typedef enum { TL_FIXSAFE_NONE, TL_FIXSAFE_SAFE, TL_FIXSAFE_UNSAFE } tl_fix_safety;

/* Hot kinds: how often a piece of code runs. A rule names the kinds it cares about. */
enum {
  TL_HOT_STEP = 1u << 0,   /* once per training/eval/decoding step */
  TL_HOT_SAMPLE = 1u << 1, /* once per sample (Dataset.__getitem__, collate_fn) */
  TL_HOT_EVAL = 1u << 2,   /* with TL_HOT_STEP: only through an evaluation loop, a loop that runs now and then, or a
                             * loop of a test module (reported as info) */
};

/* ---- diagnostics ---- */

/* A problem with an input rather than a finding: an unreadable or binary file, a syntax error, a
 * rule file that does not parse. line and col are 1-based; both are 0 when the problem has no
 * position in the file. Owned by the rule set or analysis that reports it. */
typedef enum { TL_DIAG_ERROR, TL_DIAG_WARNING, TL_DIAG_NOTE } tl_diag_level;

typedef struct {
  tl_diag_level level;
  char *path;
  uint32_t line, col;
  char *message;
  uint32_t cell; /* in a Jupyter notebook: the code cell (1-based), and line is within it; else 0 */
} tl_diag;

/* ---- rules and rule sets ---- */

/* Creates an empty rule set. Delete it with tl_ruleset_delete once no analysis uses it. */
tl_ruleset *tl_ruleset_new(void);
void tl_ruleset_delete(tl_ruleset *self);
/* Loads the rules embedded at build time. Returns false when a rule has errors (in the rule set's
 * diagnostics, tl_ruleset_diag). */
bool tl_ruleset_add_builtin(tl_ruleset *self);
/* Loads one rule file (Markdown, see docs/rules.md) from memory; `path` is used in messages. */
bool tl_ruleset_add_text(tl_ruleset *self, const char *path, const char *text, size_t len);
/* Loads every *.md file of a directory (user rules). A later rule with an existing code replaces it. */
bool tl_ruleset_add_dir(tl_ruleset *self, const char *dir);
/* Enables rules: `select` and `ignore` are codes or prefixes ("TL1", "TL101", "ALL").
 * With no select, the rules on by default are enabled. Call before tl_ruleset_compile. */
void tl_ruleset_select(tl_ruleset *self, const char *const *select, size_t nselect, const char *const *ignore,
                       size_t nignore);
/* Compiles the enabled rules into one query. Returns false on errors (in the diagnostics). */
bool tl_ruleset_compile(tl_ruleset *self);
/* The same, except that when every rule is built in (tl_ruleset_add_builtin; the build's tests
 * compile their queries) the query is compiled by the first run that analyses a file, once, and a
 * run that takes all of its results from the cache (docs/cache.md) never compiles it. With a rule
 * of tl_ruleset_add_text or tl_ruleset_add_dir it is tl_ruleset_compile. */
bool tl_ruleset_compile_lazy(tl_ruleset *self);
/* The errors the loading and compiling calls met (file:line:col of the rule file), in order.
 * They stay valid until the rule set is deleted; tl_ruleset_diag is NULL past the last. */
size_t tl_ruleset_diag_count(const tl_ruleset *self);
const tl_diag *tl_ruleset_diag(const tl_ruleset *self, size_t i);
/* Overrides the severity of the rules whose code starts with `code` (a code or a prefix). Call
 * before analyses use the rule set. */
void tl_ruleset_set_severity(tl_ruleset *self, const char *code, tl_severity severity);

/* The rules, sorted by code once compiled; tl_ruleset_rule is NULL past the last. tl_ruleset_find
 * looks one up by code (in any case) or name, NULL when there is none. A tl_rule and its strings
 * stay valid until the rule set is deleted. */
size_t tl_ruleset_count(const tl_ruleset *self);
const tl_rule *tl_ruleset_rule(const tl_ruleset *self, size_t i);
const tl_rule *tl_ruleset_find(const tl_ruleset *self, const char *code);

const char *tl_rule_code(const tl_rule *r);
const char *tl_rule_name(const tl_rule *r);
const char *tl_rule_path(const tl_rule *r);
const char *tl_rule_summary(const tl_rule *r);   /* one line: the message template */
const char *tl_rule_doc(const tl_rule *r);       /* the Markdown docs (What it does, ...) */
const char *tl_rule_fix_title(const tl_rule *r); /* may be "" */
const char *tl_rule_help(const tl_rule *r);      /* what to do instead, one line; may be "" */
tl_severity tl_rule_severity(const tl_rule *r);
tl_fix_safety tl_rule_fix_safety(const tl_rule *r);
bool tl_rule_enabled(const tl_rule *r);
bool tl_rule_default_enabled(const tl_rule *r);
unsigned tl_rule_hot(const tl_rule *r); /* TL_HOT_* mask; 0: applies anywhere */
/* The check of the engine's own that makes the rule's findings instead of a query (front matter
 * `check:`; "unused-suppressions": TL001), or NULL for a rule of a query. A static string. */
const char *tl_rule_check(const tl_rule *r);
/* "error", "warning" or "info": a static string. */
const char *tl_severity_name(tl_severity s);

/* ---- analyses ---- */

typedef struct {
  unsigned threads;      /* 0: all cores */
  bool keep_trees;       /* keep syntax trees between runs, for incremental re-parsing (editors) */
  size_t max_file_bytes; /* files larger are refused with an error; 0: 16 MiB (at most 1 GiB) */
  /* a directory for the persistent cache of per-file and whole-run results (docs/cache.md), made
   * when missing; NULL: no cache. Only files read from disk use it. Copied by tl_analysis_new. */
  const char *cache_dir;
  /* the time one file's analysis (its model, then its rule matching) may take (docs/limits.md): past
   * it the file stops, with a warning at the line it reached, and the file's results are not
   * cached; 0: 60 s */
  unsigned file_budget_ms;
  /* the syntax nodes the model of one file may visit (docs/limits.md): past it the file stops
   * likewise; 0: 2^26 */
  unsigned file_node_budget;
} tl_options;

/* One edit of a fix: bytes [start, end) of the file's text (as tl_analysis_file_text returns it)
 * become `text` (NUL-terminated; "" deletes). */
typedef struct {
  uint32_t start, end;
  char *text;
} tl_edit;

/* One element of a finding's hot chain: why the code runs often, outermost last. */
typedef struct {
  const char *path;
  uint32_t line, col;
  char *what;    /* "in `Trainer.step`", "called from the step loop", ... */
  uint32_t cell; /* in a Jupyter notebook: the code cell (1-based), and line is within it; else 0 */
} tl_hot_step;

/* A finding. It and everything it points to (rule, path, message, hot chain, fix, scope) belong
 * to the analysis; see tl_analysis_finding for how long. */
typedef struct {
  const tl_rule *rule;
  const char *path;                      /* as given on the command line / to tl_analysis_add_* */
  size_t file;                           /* index of the file in the analysis */
  uint32_t line, col, end_line, end_col; /* 1-based; columns in code points */
  uint32_t start_byte, end_byte;
  tl_severity severity;
  char *message;
  tl_hot_step *hot; /* innermost first */
  size_t nhot;
  tl_edit *fix; /* the fix: nfix edits, none overlapping, in no particular order */
  size_t nfix;  /* 0: the rule has no fix for this match */
  tl_fix_safety fix_safety;
  const char *scope;    /* enclosing function ("Trainer.step") or module name */
  char fingerprint[17]; /* hex; stable across unrelated edits (rule, path, scope, code of the line) */
  uint32_t stmt_first_line, stmt_last_line; /* the statement holding the finding */
  /* In a Jupyter notebook (a `.ipynb` file, analysed as the Python of its code cells joined): the
   * code cell (1-based) holding the finding, with line and end_line counted within it (end_line
   * within end_cell); start_byte, end_byte and the statement lines stay offsets and lines of the
   * joined text (tl_analysis_file_text), and so do the fix's edits (tl_notebook_apply writes them
   * into the notebook's JSON). 0 elsewhere. */
  uint32_t cell, end_cell;
} tl_finding;

/* Creates an analysis that uses `rules` (compiled; borrowed: it must outlive the analysis) and
 * `opts` (copied; NULL: the defaults). Delete it with tl_analysis_delete. */
tl_analysis *tl_analysis_new(const tl_ruleset *rules, const tl_options *opts);
void tl_analysis_delete(tl_analysis *self);
/* Queues a file to be read from disk. Paths are kept as given. */
void tl_analysis_add_path(tl_analysis *self, const char *path);
/* Queues in-memory contents (an editor buffer, stdin); the text is copied. */
void tl_analysis_add_text(tl_analysis *self, const char *path, const char *text, size_t len);
/* Adds or replaces a file's contents in memory (an editor buffer wins over the disk). */
void tl_analysis_set_text(tl_analysis *self, const char *path, const char *text, size_t len);
/* Applies one edit to a file's in-memory contents: bytes [start, old_end) of the current text
 * became [start, new_end) of `text` (the whole new contents, `len` bytes). With keep_trees the
 * kept syntax tree is edited so the next run re-parses incrementally. Call once per change, in
 * order. Unknown paths are added. */
void tl_analysis_edit(tl_analysis *self, const char *path, uint32_t start, uint32_t old_end, uint32_t new_end,
                      const char *text, size_t len);
/* Extra names from the configuration: functions that count as per-step code wherever they are
 * (`hot-functions`), and names of iterables that make a loop a step loop (`step-loop-iterables`,
 * matched against the last component: "batches" matches `self.batches`). Copied. Call before
 * the first run. */
void tl_analysis_set_hot_names(tl_analysis *self, const char *const *hot_functions, size_t nhot,
                               const char *const *step_iterables, size_t nsteps);
/* The frameworks whose APIs the rules recognise ("torch", "paddle"); none set: both. Copied. */
void tl_analysis_set_frameworks(tl_analysis *self, const char *const *names, size_t n);
/* Forgets a file, and the findings of the last run. */
void tl_analysis_remove(tl_analysis *self, const char *path);
/* Reads, parses and analyses every file added or changed since the last run (in parallel), then
 * the project as a whole; may be called again after changes. Input problems go to the analysis'
 * diagnostics; the other files are still analysed. Findings and diagnostics from an earlier run
 * are replaced (pointers to them become invalid). */
void tl_analysis_run(tl_analysis *self);
/* Asks a run in progress on another thread to stop soon (on=true), or withdraws the request
 * (on=false). The only call that may be made while another thread runs the analysis. The request
 * stays until withdrawn: a run that starts while it is on stops at once. A stopped run reports no
 * findings and no diagnostics (tl_analysis_cancelled says so); the files it did not finish stay
 * changed, and the next run analyses them, with results identical to an uninterrupted run. */
void tl_analysis_cancel(tl_analysis *self, bool on);
/* Did the last run stop on such a request? */
bool tl_analysis_cancelled(const tl_analysis *self);

/* The findings of the last run, sorted by path, line, col and code; NULL past the last. They stay
 * valid until the next tl_analysis_run or tl_analysis_remove, or tl_analysis_delete. */
size_t tl_analysis_finding_count(const tl_analysis *self);
const tl_finding *tl_analysis_finding(const tl_analysis *self, size_t i);
/* The input problems of the last run (unreadable, binary or not UTF-8, syntax errors), file by
 * file; NULL past the last. Valid as long as the findings. */
size_t tl_analysis_diag_count(const tl_analysis *self);
const tl_diag *tl_analysis_diag(const tl_analysis *self, size_t i);
/* The files, in the order the analysis keeps them (tl_finding.file indexes them; adding, setting
 * or removing a file may change it). A path and a text stay valid until the next call that
 * changes or runs the analysis; the text is NULL when the file could not be read. */
size_t tl_analysis_file_count(const tl_analysis *self);
const char *tl_analysis_file_path(const tl_analysis *self, size_t i);
const char *tl_analysis_file_text(const tl_analysis *self, size_t i, size_t *len);
/* File i's notebook (tl_notebook.h: its JSON as read, its cells, tl_notebook_apply to write fixes
 * back), or NULL when it is no notebook. Valid as long as the file's text. */
const struct tl_notebook *tl_analysis_file_notebook(const tl_analysis *self, size_t i);
/* Findings removed by suppression comments during the run. (Suppressions that suppress nothing
 * are findings of the rule whose check is "unused-suppressions", TL001, when it is enabled.) */
size_t tl_analysis_suppressed_count(const tl_analysis *self);

#endif
