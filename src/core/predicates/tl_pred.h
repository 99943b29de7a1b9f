/* tl_pred.h - the predicates of rule queries (`#tensor? @x`, `#field! @a "name" @b`): one table
 * row per predicate, kept by domain in tl_preds_*.c, and the compiled form of one use of a
 * predicate in a pattern. Adding a predicate is adding its row and its function to the module of
 * its domain; tl_pred_registry.c lists the modules. docs/rules.md documents every predicate. */
#ifndef TL_PRED_H
#define TL_PRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "tl_regex.h"

typedef struct tl_pred tl_pred;
typedef struct tl_match_env tl_match_env; /* tl_match.h */
typedef struct tl_analysis tl_analysis;

/* A predicate's verdict on a match. VACUOUS holds whether the predicate is negated or not (an
 * optional capture that is absent, a statement outside the construct the predicate asks about). */
typedef enum { TL_PRED_FALSE, TL_PRED_TRUE, TL_PRED_VACUOUS } tl_verdict;

/* Evaluates a predicate on a match: `a` is the node of its first capture (null when it takes
 * none). Not called when that capture is absent from the match (the predicate holds). */
typedef tl_verdict (*tl_pred_fn)(tl_match_env *e, const tl_pred *p, TSNode a);
/* Evaluates a project predicate once the project pass has run: [start, end) is its capture's byte
 * range in file `file` (0, 0 without a capture). `md` is the caller's match data. */
typedef bool (*tl_pred_project_fn)(tl_analysis *a, size_t file, const tl_pred *p, uint32_t start, uint32_t end,
                                   pcre2_match_data *md);
/* Checks (and may complete) a predicate's compiled form once its strings are known: NULL when
 * fine, else a message for the rule file's diagnostic (the caller frees it). */
typedef char *(*tl_pred_prepare_fn)(tl_pred *p);

/* Flags of a predicate (tl_pred_def.flags). */
enum {
  TL_PF_TEXT = 1u << 0,       /* reads only the text and shape of its captures, not the enclosing function */
  TL_PF_IMPURE = 1u << 1,     /* sets more than its verdict (@focus, @configured, the severity): never shared */
  TL_PF_BIND = 1u << 2,       /* binds its second capture from its first; has no not- form */
  TL_PF_BIND_FIELD = 1u << 3, /* (with TL_PF_BIND) binds a child by field: a gate may read through it */
  TL_PF_PROJECT = 1u << 4,    /* evaluated after the project pass (tl_pred_def.project) */
  TL_PF_MULTILINE = 1u << 5,  /* its regular expression runs over whole files (PCRE2_MULTILINE) */
  TL_PF_OR_CAPTURE = 1u << 6, /* also takes a second capture instead of its string (`#eq? @a @b`) */
  TL_PF_NAME = 1u << 7,       /* reads the capture's resolved name (through imports), not its text */
};

/* How a predicate can be its pattern's gate (tl_pattern.gate): a test of one capture's text, or
 * of its resolved name with TL_PF_NAME, that tl_matcher.c runs before it sets a match up. */
typedef enum {
  TL_GATE_NONE,
  TL_GATE_STRINGS, /* the text is one of the strings */
  TL_GATE_REGEX,   /* the regular expression matches the text (verdicts cached per worker and text) */
  TL_GATE_TYPE,    /* the node has one of the grammar types */
} tl_gate_kind;

/* One predicate. */
typedef struct {
  const char *name;           /* "tensor?", "field!" (queries may prefix "not-") */
  int8_t caps;                /* captures it takes */
  int8_t strs;                /* strings it takes: that many; -1 one or more; -2 any number */
  int8_t regex;               /* the string compiled as a regular expression, or -1 */
  uint8_t gate;               /* tl_gate_kind */
  uint16_t flags;             /* TL_PF_* */
  tl_pred_fn eval;            /* NULL for a project predicate */
  tl_pred_project_fn project; /* TL_PF_PROJECT only */
  tl_pred_prepare_fn prepare; /* NULL: nothing to check */
} tl_pred_def;

/* The tables of the domain modules (each ends with a row whose name is NULL). */
extern const tl_pred_def tl_preds_syntax[];  /* text, node types, fields and the statements around */
extern const tl_pred_def tl_preds_calls[];   /* what names and calls resolve to, where objects come from */
extern const tl_pred_def tl_preds_values[];  /* where values live: tensors, devices, masks, graphs */
extern const tl_pred_def tl_preds_host[];    /* what the host does with a value read: needs, re-reads, lists */
extern const tl_pred_def tl_preds_flow[];    /* loops and frequency: flags, accumulation, DDP sync */
extern const tl_pred_def tl_preds_project[]; /* decided once the whole project is known */

/* The predicate named `name` (without a not- prefix; `len` bytes), or NULL. */
const tl_pred_def *tl_pred_lookup(const char *name, size_t len);
/* The evidence of #tensor? (tl_preds_values.c): is n a tensor value, on the device or of unknown
 * place (a framework op made it, a tensor-only method reads it, a name bound to such a value)? */
bool tl_preds_is_tensor(const tl_match_env *e, TSNode n);

/* One use of a predicate in a pattern, as compiled by tl_rules.c. Owned by its pattern. */
struct tl_pred {
  const tl_pred_def *def;
  bool negated;
  uint32_t cap[2]; /* capture ids; UINT32_MAX when absent */
  char **strs;     /* string arguments */
  size_t nstrs;
  pcre2_code *re;  /* the string def->regex, compiled (and JIT-compiled when PCRE2 can) */
  uint32_t memo;   /* patterns sharing a structure: equal pure predicates share this key (0: none) */
  TSFieldId field; /* #field!: the grammar's id of the field named by strs[0] */
  uint8_t rbit;    /* a TL_GATE_REGEX predicate: 1 + its regex's number in the verdict cache (0: not cached) */
  tl_rx_pre rpre;  /* for re: a quick no (tl_rx_may) */
};

/* How deep a predicate looks into an expression. */
#define TL_PRED_MAX_DEPTH 24

/* Captures one match may bind with binding predicates (#parent!, #field!, ...); a pattern with more
 * is a rule file error. */
#define TL_MAX_BOUND 16

static inline bool tl_pred_is_binding(const tl_pred *p) { return (p->def->flags & TL_PF_BIND) != 0; }
static inline bool tl_pred_is_project(const tl_pred *p) { return (p->def->flags & TL_PF_PROJECT) != 0; }

#endif
