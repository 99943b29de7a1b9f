/* tl_rules.h - rules and rule sets inside the library: a rule file's parts, the compiled query with
 * its patterns, their predicates and gates (tl_rules.c compiles them, tl_matcher.c runs them). */
#ifndef TL_RULES_H
#define TL_RULES_H

#include <pthread.h>
#include "tl_regex.h"
#include <tree_sitter/api.h>

#include "trainlint.h"
#include "tl_ast.h"
#include "tl_map.h"
#include "tl_suppress.h"
#include "tl_pred.h"
#include "tl_model.h"


/* ---- rules (tl_rules.c) ---- */

/* What finds a rule's matches: its query, or a check of the engine's own (front matter `check:`;
 * such a rule has no query block). */
typedef enum { TL_CHECK_QUERY, TL_CHECK_UNUSED_SUPPRESSIONS } tl_check_kind;

typedef enum { TL_FIXOP_REPLACE, TL_FIXOP_DELETE, TL_FIXOP_INSERT_BEFORE, TL_FIXOP_INSERT_AFTER } tl_fixop_kind;

typedef struct {
  tl_fixop_kind kind;
  char *capture; /* capture name without '@' */
  char *tmpl;    /* template with {{name}} substitutions; NULL for delete */
} tl_fixop;

struct tl_rule {
  char *code, *name, *path;
  tl_severity severity;
  tl_fix_safety fix_safety;
  unsigned hot;
  bool default_on, enabled;
  bool project_scope; /* scope: project: at most one finding per program of the project (the first in path
                       * order; tl_project.program) */
  bool needs_accel;   /* `needs: accelerator`: silent in a project that never uses one */
  /* TL_CHECK_QUERY, or the engine's check that makes its findings (tl_findings.c) */
  tl_check_kind check;
  char *message, *fix_title, *help, *doc, *query_src;
  uint32_t query_line; /* 1-based line in the rule file where the query text starts */
  TL_VEC(tl_fixop) fix;
  TL_VEC(char *) supersedes;
};

/* Regexes of #match?/#resolves-match? whose verdicts the workers cache by text (tl_matcher.c). */
#define TL_RCACHE_BITS 128

/* A text the gates of a group of patterns read (tl_pattern.gkeys). Positions: 0 is the pattern
 * with the members, 1 + i its member i. */
#define TL_GATE_POSITIONS 64
typedef struct {
  uint32_t cap;
  TSFieldId field; /* 0: the capture's own node */
  bool name;       /* the node's resolved name (#resolves-to?, #resolves-match?), else its text */
  uint32_t id;     /* unique in the ruleset: the worker's verdict cache key */
  uint64_t mask;   /* the positions whose gate reads this text */
} tl_gate_key;

/* One pattern of the compiled query: which rule it belongs to and its predicates. */
typedef struct {
  uint32_t rule;
  TL_VEC(tl_pred) preds;
  TL_VEC(uint32_t) members; /* disabled patterns of the same structure: checked with this one's matches */
  /* A predicate tried before the match is set up for the pattern (tl_rules.c, tl_gate_open): one
   * that only reads the text, resolved name or type of a matched capture, or of the child that a
   * #field! before it binds from a matched capture (gate_field, else NULL). */
  const tl_pred *gate, *gate_field;
  /* For a pattern with members: the texts its group's gates read, each a capture's node (or a
   * #field! child of it) as text or as resolved name. tl_file_match finds each text once per
   * match and caches the verdicts of all the gates that read it as one bit set. */
  TL_VEC(tl_gate_key) gkeys;
  uint8_t gkey; /* 1 + the index of this pattern's gate in its group's gkeys; 0: tl_gate_open */
} tl_pattern;

struct tl_ruleset {
  TL_VEC(tl_rule *) rules;
  TSQuery *query;              /* all enabled rules, one pattern list */
  TL_VEC(tl_pattern) patterns; /* indexed by query pattern index */
  uint32_t finding_cap;        /* capture id of @finding, UINT32_MAX if unused */
  uint32_t memo_keys;          /* the largest tl_pred.memo key */
  bool selected;               /* tl_ruleset_select was called */
  pcre2_code *eval_re;         /* names of validation/test data (tl_vocab_eval_names_re) */
  tl_diags diags;              /* the errors of every load and compile, in order */
  bool user_rules;             /* a rule that is not built in was added: its query may not compile */
  bool deferred;               /* tl_ruleset_compile_lazy left the query to the first run that needs it */
  pthread_mutex_t lock;        /* guards the deferred compilation (tl_ruleset_ready) */
};

/* Compiles a query that tl_ruleset_compile_lazy deferred, once, whichever analysis asks first
 * (thread-safe); true when the rule set has its query (or none is needed). */
bool tl_ruleset_ready(const tl_ruleset *rs);

#endif
