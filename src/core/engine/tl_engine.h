/* tl_engine.h - the analysis object's internals: per-file state, candidates, the project pass. */
#ifndef TL_ENGINE_H
#define TL_ENGINE_H

#include "tl_rules.h"

/* Limits of phase 1 (docs/limits.md): one file's parse, and the query's matches in progress. */
#define TL_PARSE_TIMEOUT_US (20u * 1000u * 1000u)
#define TL_QUERY_MATCH_LIMIT 4096u
#define TL_FILE_BUDGET_MS (60u * 1000u) /* one file's model and rule matching (tl_options.file_budget_ms) */
#define TL_FILE_NODE_BUDGET (1u << 26)  /* the nodes one file's model visits (tl_options.file_node_budget) */

/* A project predicate of a match, evaluated once the whole project is known: the predicate and
 * its capture's byte range. */

typedef struct {
  const tl_pred *pred; /* owned by the ruleset */
  uint32_t start, end;
} tl_deferred;

/* A function of the project: its file, and its index in that file's model. */
typedef struct {
  int32_t file, idx;
} tl_ref;

/* A rule match that passed its local predicates; whether it is reported depends on hotness,
 * decided once the whole project is known. */
typedef struct {
  uint32_t rule;                 /* index in the ruleset */
  int32_t func;                  /* innermost function of the finding in its file */
  uint32_t start, end;           /* byte range of the finding */
  uint32_t report_end;           /* end of the reported range when shorter (a loop's header), else 0 */
  uint32_t stmt_start, stmt_end; /* the statement (or compound header) holding the finding */
  char *message;
  tl_edits edits;
  int severity;  /* -1: the rule's; else a tl_severity set by #set-severity! */
  bool vinfo;    /* info because the place of a value was unknown in its file (#device-or-info?) */
  bool vneed;    /* reported only if the summaries place vdep's value on the device (#tensor-or-device?) */
  int vsev;      /* with vinfo: the severity had the place been known (-1: the rule's) */
  tl_vdep vdep;  /* what that value's place depends on (TL_VDEP_NONE: nothing found) */
  uint8_t vkind; /* its place once the project pass has solved the summaries (tl_valkind) */
  tl_ref veval;  /* the evaluation function whose result vdep's value is (tl_summaries_resolve): the
                  * value is read to be reported, so the finding is info; file -1 when it is not */
  TL_VEC(tl_deferred) deferred; /* project predicates still to hold */
} tl_candidate;

/* A memoized #file-match? result: the regex's verdict on the whole text of the file. */
typedef struct {
  const tl_pred *pred;
  bool result;
} tl_filematch;
typedef TL_VEC(tl_filematch) tl_filematches;

/* What a call resolves to (tl_project.c). */
typedef struct {
  tl_ref tgt;    /* target function, file < 0 when unresolved */
  bool instance; /* calling an instance of a project Module: its forward */
  bool virt;     /* `self.m()`: dispatched on the object's class, so overrides of m may run */
} tl_target;

typedef struct {
  char *path;
  char *text; /* as read (NULL when unreadable) */
  size_t len;
  char *mem;                    /* in-memory contents given by tl_analysis_add_text, else NULL */
  bool ok;                      /* read and parsed */
  char *code;                   /* the parsed text with comments and docstrings blanked (tl_code_text) once parsed */
  bool code_is_text;            /* `code` blanks `text` itself (no BOM or lone CR replaced for the parser) */
  bool dirty;                   /* changed since the last run: phase 1 must run again */
  bool in_memory;               /* contents come from tl_analysis_add_text/set_text/edit, not the disk */
  TSTree *tree;                 /* kept for incremental re-parsing when opts.keep_trees */
  struct tl_mentions *mentions; /* tl_usage.c's index of the names its text mentions, kept with
                                 * keep_trees for the next run while the text is the same (owned) */
  tl_lines lines;
  /* a Jupyter notebook: text is its code cells joined (tl_notebook.h); else NULL */
  struct tl_notebook *nb;
  tl_file_model model;
  TL_VEC(tl_candidate) cands;
  tl_diags diags; /* this file's input problems (merged in order after the run) */
  /* The incremental path (editors; see tl_file_phase1): what changed since the last run, and
   * what the last run kept so that only the changed top-level statements are queried again. */
  bool edited;                   /* tl_analysis_edit since the last run: [edit_start, edit_end) holds */
  uint32_t edit_start, edit_end; /* every changed byte of the current text, whose length changed by edit_delta */
  int64_t edit_delta;
  bool reusable;         /* the last run queried the whole file: its model and candidates may be reused */
  TL_VEC(tl_range) vals; /* byte ranges of model.bindings' values, then of every class attribute's ({0,0}: none) */
  bool partial;          /* the last run queried only the changed region */
  size_t model_copied;   /* top-level statements whose model the last run copied from the run before */
  bool rerun;            /* phase 1 ran for this file in the current run */
  bool cached;           /* ... and its results came from the persistent cache (tl_cache.h) */
  uint64_t deadline_ns;  /* phase 1: when its rule matching must stop (CLOCK_MONOTONIC) */
  uint32_t stopped_at;   /* ... and, when it had to, the byte it reached (else UINT32_MAX) */
  bool preread; /* text read from disk by the look-up of the run's cached results (tl_results.h), for phase 1 */
  bool hashed;  /* text_hash holds the hashes of the current text (tl_cache_text_hash) */
  uint64_t text_hash[2];
  uint32_t *call_map; /* after a partial phase 1: per call, the same call's index in the last run's model, or
                           * UINT32_MAX (a call inside the region or of a function inside it), else NULL */
  tl_target *targets; /* per call of the model the last project pass saw (tl_project.c), or NULL */
  size_t ntargets;
  tl_filematches fmatch;  /* #file-match? verdicts of the last run */
  tl_filematches pfmatch; /* #project-match? verdicts on this file's text, until it changes */
} tl_file;

/* The name tl_match.h and tl_project.c use for the configured names. */
typedef tl_strvec tl_strlist;

/* The result of a #project-match? for one run (a project predicate is evaluated once). */
typedef struct {
  const tl_pred *pred;
  int32_t program; /* #program-match?: the program (tl_project.program) it was decided for; else -1 */
  bool result;
} tl_pmatch;

/* Hot state of one function of the project, per kind (0: step, 1: sample). */
typedef struct {
  int32_t file, func; /* caller (file, func) or -1 for a root */
  uint32_t line, col; /* the call or loop line that made it hot */
  int kind;           /* 0 root, 1 called from function, 2 called from a step loop */
  char *why;          /* for roots: the reason text */
  bool inference;     /* for roots: one that runs with gradients off (an evaluation's or a generator's) */
} tl_hot_reason;

typedef struct {
  unsigned hot;      /* TL_HOT_* */
  bool train_top;    /* does per-step work each time it is called */
  bool opt_top;      /* steps an optimizer each time it is called (itself or through a callee) */
  bool rare;         /* every call of it runs under a frequency guard, or in a function that is rare */
  int32_t rare_file; /* for a rare function: a call of it (file, call index in that file's model) */
  uint32_t rare_call;
  tl_hot_reason reason[2];
} tl_func_state;

/* Phase 2's results (tl_project.c), rebuilt by every run: per file and function how hot it is and
 * why, per loop whether it is a step loop and what it does anywhere in it. Read by phase 3. */
typedef struct tl_project {
  tl_file *files; /* the run's files (borrowed) */
  size_t nfiles;
  tl_func_state **fstate;   /* per file, per function */
  size_t *nfuncs;           /* per file: functions in fstate */
  bool **step_loops;        /* per file, per loop */
  unsigned **loop_work;     /* per file, per loop: TL_WORK_* anywhere in it, through calls too */
  size_t nwork;             /* files in loop_work */
  TL_VEC(tl_pmatch) pmatch; /* #project-match? and #program-match? verdicts of this run */
  int32_t *program;         /* per file: its program, the smallest file index of the files it is
                             * connected to by imports of project modules (either way) */
  bool *imported;           /* per file: a package's __init__.py, or imported by another file */
  TL_VEC(tl_range) * optin; /* per file: blocks that run only when a flag off by default is set */
  bool **call_optin;        /* per file, per call: in such a block */
  bool **uncalled;          /* per file, per function: nothing in the project runs it (tl_usage_uncalled) */
  tl_ref **untrained;       /* per file, per class: one construction where nothing trains, or on request,
                             * when every one is (tl_usage_untrained); file -1: none */
  int8_t **class_kind;      /* per file, per class: TL_CK_MODULE / TL_CK_DATASET bits, through project bases */
  uint8_t **ret_kind;       /* per file, per function: the place of what it returns (tl_summaries.c) */
  uint8_t **slot_kind;      /* the same for the first elements of the tuples it returns:
                             * [function * TL_RET_SLOTS + slot] */
  uint8_t **param_kind;     /* per file, per parameter (tl_file_model.params): the place of its arguments */
  uint8_t **param_elems;    /* the same, for the elements of container arguments */
  bool *test_file;          /* per file: a test module (tl_project_test_file) */
  uint16_t *eval_dir;       /* per file: length of its evaluation-package prefix ("eval/"), 0 if none */
  bool cpu_only;            /* a program that never names an accelerator */
  bool keep_mentions;       /* keep each file's index of name mentions (tl_file.mentions) for the next run */
  const size_t *cancel;     /* nonzero (read atomically): the run is cancelled, the pass stops early; may be NULL */
  size_t targets_kept;      /* call targets taken from the last run, not resolved again */
} tl_project;

struct tl_analysis {
  const tl_ruleset *rules;
  tl_options opts;
  TL_VEC(tl_file) files;
  TL_VEC(tl_finding) findings;
  tl_diags diags;
  tl_project project; /* phase 2's results */
  size_t suppressed;
  tl_strvec hot_functions;  /* configured per-step function names */
  tl_strvec step_iterables; /* configured loader names */
  tl_strvec frameworks;     /* configured frameworks; empty: all */
  size_t partial_runs;      /* files re-queried only over their changed statements (for tests) */
  size_t model_copied;      /* top-level statements whose model was copied, not walked (for tests) */
  size_t targets_kept;      /* call targets taken from the last project pass, not resolved again (for tests) */
  struct tl_cache *cache;   /* opts.cache_dir's, opened by the first run; NULL: none */
  size_t cache_hits;        /* files whose phase 1 the cache gave in the last run (for tests) */
  bool results_cached;      /* the last run's findings and diagnostics came from the cache (tl_results.h) */
  tl_strtab result_strs;    /* the strings those findings point to (their scopes) */
  /* tl_analysis_cancel's request: nonzero asks a run in progress to stop. Read and written only
   * with __atomic builtins (another thread sets it); a size_t, as tree-sitter's parser reads it
   * (ts_parser_set_cancellation_flag). */
  size_t cancel;
  bool cancelled; /* the last run stopped on that request: it left no findings */
};

/* Has the run been asked to stop (tl_analysis_cancel)? Any thread. */
static inline bool tl_analysis_stopping(const tl_analysis *a) { return __atomic_load_n(&a->cancel, __ATOMIC_RELAXED); }

/* Phase 1 (tl_file.c): reads, checks, parses, models and queries one file (after an edit, only its
 * changed region); everything the last run computed for it is replaced. Thread-safe for distinct
 * files. */
struct tl_worker;
void tl_file_analyze(tl_analysis *a, tl_file *f, struct tl_worker *w);
/* Drops what phase 1 computed for a file (its text and path stay). */
void tl_file_reset(tl_file *f);
/* Makes the text of a source just read the file's (its old text freed), and empties the source. */
struct tl_source;
void tl_file_take_source(tl_file *f, struct tl_source *s);
void tl_file_free(tl_file *f);
void tl_candidate_free(tl_candidate *c);

/* Phase 3 (tl_findings.c): the candidates that hold become the sorted findings. */
void tl_findings_make(tl_analysis *a);
void tl_findings_clear(tl_analysis *a);

/* Frees a file's index of name mentions (tl_usage.c). */
struct tl_mentions;
void tl_mentions_free(struct tl_mentions *x);

/* Phase 2, the project pass (tl_project.c): resolves calls across files and marks hot functions and loops. */
void tl_project_analyze(tl_project *pj, tl_file *files, size_t nfiles, const tl_strvec *hot_functions);
/* Is loop l of file fi an evaluation or inference loop: a step loop that trains nothing (no
 * optimizer step, no cleared gradients, nothing named after a training step, in it or in what it
 * calls)? */
bool tl_project_eval_loop(const tl_project *pj, size_t fi, int32_t l);
/* Is file fi a test module (docs/hot-code.md): its loops and roots run once, under the test runner? */
bool tl_project_test_file(const tl_project *pj, size_t fi);
/* Is file fi in an evaluation, inference or export package of the project (tl_project__eval_dirs)? */
bool tl_project_eval_file(const tl_project *pj, size_t fi);
/* Hot kinds of a byte position, with the chain; returns 0 when not hot for `kinds`. */
unsigned tl_project_hot_at(const tl_project *pj, size_t file, int32_t func, uint32_t byte, unsigned kinds,
                           tl_hot_step **chain, size_t *nchain);
void tl_project_free(tl_project *pj);
/* Project predicates of a candidate (#project-match?, #training-loop?): all hold? */
bool tl_project_deferred_hold(tl_analysis *a, size_t file, const tl_candidate *c, pcre2_match_data *md);

#endif
