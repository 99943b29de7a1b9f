/* tl_engine.h - the analysis object's internals: per-file state, candidates, the project pass. */
#ifndef TL_ENGINE_H
#define TL_ENGINE_H

#include "tl_internal.h"

/* A rule match that passed its local predicates; whether it is reported depends on hotness,
 * decided once the whole project is known. */
typedef struct {
  uint32_t rule;          /* index in the ruleset */
  int32_t func;           /* innermost function of the finding in its file */
  uint32_t start, end;    /* byte range of the finding */
  uint32_t report_end;    /* end of the reported range when shorter (a loop's header), else 0 */
  uint32_t stmt_start, stmt_end; /* the statement (or compound header) holding the finding */
  char *message;
  tl_edits edits;
  int severity;           /* -1: the rule's; else a tl_severity set by #set-severity! */
} tl_candidate;

typedef struct {
  char *path;
  char *text;             /* as read (NULL when unreadable) */
  size_t len;
  char *mem;              /* in-memory contents given by tl_analysis_add_text, else NULL */
  bool ok;                /* read and parsed */
  bool dirty;             /* changed since the last run: phase 1 must run again */
  bool in_memory;         /* contents come from tl_analysis_add_text/set_text/edit, not the disk */
  TSTree *tree;           /* kept for incremental re-parsing when opts.keep_trees */
  tl_lines lines;
  tl_file_model model;
  TL_VEC(tl_candidate) cands;
  tl_diags diags;         /* this file's input problems (merged in order after the run) */
} tl_file;

typedef TL_VEC(char *) tl_strlist;

/* Hot state of one function of the project, per kind (0: step, 1: sample). */
typedef struct {
  int32_t file, func;     /* caller (file, func) or -1 for a root */
  uint32_t line, col;     /* the call or loop line that made it hot */
  int kind;               /* 0 root, 1 called from function, 2 called from a step loop */
  char *why;              /* for roots: the reason text */
} tl_hot_reason;

typedef struct {
  unsigned hot;           /* TL_HOT_* */
  bool train_top;         /* does per-step work each time it is called */
  tl_hot_reason reason[2];
} tl_func_state;

struct tl_analysis {
  const tl_ruleset *rules;
  tl_options opts;
  TL_VEC(tl_file) files;
  TL_VEC(tl_finding) findings;
  tl_diags diags;
  TL_VEC(tl_func_state *) fstate; /* per file, per function */
  TL_VEC(bool *) step_loops;      /* per file, per loop */
  size_t suppressed;
  TL_VEC(char *) hot_functions;   /* configured per-step function names */
  TL_VEC(char *) step_iterables;  /* configured loader names */
  tl_strlist frameworks;          /* configured frameworks; empty: all */
  bool cpu_only;                  /* a program that never names an accelerator (tl_project.c) */
};

/* The project pass (tl_project.c): resolves calls across files and marks hot functions and loops. */
void tl_project_analyze(tl_analysis *a);
/* Hot kinds of a byte position, with the chain; returns 0 when not hot for `kinds`. */
unsigned tl_project_hot_at(tl_analysis *a, size_t file, int32_t func, uint32_t byte, unsigned kinds,
                           tl_hot_step **chain, size_t *nchain);
void tl_project_free(tl_analysis *a);

#endif
