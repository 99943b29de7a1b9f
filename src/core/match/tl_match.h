/* tl_match.h - the matcher: the rule query's matches in one file, their gates and predicates, and
 * the candidates they become. Private to the matcher (tl_matcher.c) and the predicate modules
 * (tl_preds_*.c). */
#ifndef TL_MATCH_H
#define TL_MATCH_H

#include "tl_engine.h"

/* One thread's reusable state for phase 1: a parser, a query cursor, regex match data, and the
 * caches of verdicts that the same names bring back in every file. Made by tl_worker_init for a
 * rule set, freed by tl_worker_free. */
typedef struct tl_worker {
  TSParser *parser;
  TSQueryCursor *cursor;
  pcre2_match_data *md;
  pcre2_match_context *mctx;
  struct tl_rcache_slot *rcache; /* regex verdicts by text (tl_match_re_cached) */
  struct tl_gcache_slot *gcache; /* gate verdicts by text (tl_pattern.gkeys) */
  struct tl_memo_entry *memo;    /* shared predicate verdicts of the current match */
  uint32_t memo_match;           /* the current match's number */
} tl_worker;

void tl_worker_init(tl_worker *w, const tl_ruleset *rs);
void tl_worker_free(tl_worker *w);

/* Runs the rule query over the bytes [start, end) of a parsed file (0, UINT32_MAX: all of it) and
 * appends a candidate to f->cands for every match whose predicates hold. Predicates read node
 * text from `src` (the parsed text). Returns whether tree-sitter's match limit was exceeded. */
bool tl_match_file(tl_analysis *a, tl_file *f, tl_worker *w, TSNode root, const char *src, uint32_t start,
                   uint32_t end);
/* Does the regex match the file's code (comments and docstrings blanked: f->code)? */
bool tl_match_code(tl_worker *w, const tl_file *f, const pcre2_code *re);

/* What a predicate sees of a match (tl_pred_fn): the file, its model and text, the match's
 * captures, and what predicates set for the candidate. */
struct tl_match_env {
  const tl_file *file;
  const tl_file_model *m;
  const char *src;
  int32_t func; /* innermost function of the match */
  pcre2_match_data *md;
  pcre2_match_context *mctx;
  const tl_ruleset *rules;
  const TSQueryMatch *match;
  tl_worker *w;
  TSNode focus, configured; /* @focus and @configured, when a predicate set them */
  int severity;             /* -1: the rule's; else a tl_severity set by #set-severity! */
  bool vinfo;               /* #device-or-info? lowered the severity: the value's place is unknown */
  bool vneed;   /* #tensor-or-device?: the match stands only if the summaries place vdep's value on the device */
  int vsev;     /* the severity before it did (-1: the rule's) */
  tl_vdep vdep; /* what it depends on */
  const tl_strlist *frameworks; /* configured frameworks, or empty: all */
  tl_filematches *fmatch;       /* #file-match? verdicts of this file, computed once each */
  TL_VEC(tl_deferred) deferred; /* project predicates, checked after the project pass */
  struct tl_file_res *file_res; /* resolved names of this file's query pass */
  struct {
    uint32_t id;
    TSNode node;
  } bound[TL_MAX_BOUND]; /* captures set by binding predicates */
  unsigned nbound;
};

/* A capture of the match (a binding predicate's capture takes precedence), or a null node. */
TSNode tl_match_cap(const tl_match_env *e, uint32_t id);
/* Binds capture `id` to `node`: false (the match is dropped) for a null node or the module node. */
bool tl_match_bind(tl_match_env *e, uint32_t id, TSNode node);
/* Does the regex match s[0, n)? */
bool tl_match_re(const tl_match_env *e, const pcre2_code *re, const char *s, size_t n);
/* The same for a TL_GATE_REGEX predicate's regex, through the worker's verdict cache. */
bool tl_match_re_cached(tl_match_env *e, const tl_pred *p, const char *s, size_t n);
/* The resolved dotted name of a node (through the file's imports), or NULL when it is no dotted
 * name. Owned by the file's cache: valid until the next call. */
const char *tl_match_resolved(tl_match_env *e, TSNode n);

/* A verdict from a bool. */
static inline tl_verdict tl_verdict_of(bool b) { return b ? TL_PRED_TRUE : TL_PRED_FALSE; }

#endif
