/* tl_internal.h - structures shared by the library's modules (not part of the public API). */
#ifndef TL_INTERNAL_H
#define TL_INTERNAL_H

#include "tl_regex.h"
#include <tree_sitter/api.h>

#include "trainlint.h"
#include "tl_ast.h"
#include "tl_map.h"
#include "tl_suppress.h"
#include "tl_pred.h"
#include "tl_strtab.h"


/* ---- rules (tl_rules.c) ---- */

typedef enum { TL_FIXOP_REPLACE, TL_FIXOP_DELETE, TL_FIXOP_INSERT_BEFORE, TL_FIXOP_INSERT_AFTER } tl_fixop_kind;

typedef struct {
  tl_fixop_kind kind;
  char *capture;  /* capture name without '@' */
  char *tmpl;     /* template with {{name}} substitutions; NULL for delete */
} tl_fixop;

struct tl_rule {
  char *code, *name, *path;
  tl_severity severity;
  tl_fix_safety fix_safety;
  unsigned hot;
  bool default_on, enabled;
  bool project_scope;  /* scope: project: at most one finding per project (the first in path order) */
  bool needs_accel;    /* `needs: accelerator`: silent in a project that never uses one */
  char *message, *fix_title, *help, *doc, *query_src;
  uint32_t query_line; /* 1-based line in the rule file where the query text starts */
  TL_VEC(tl_fixop) fix;
  TL_VEC(char *) supersedes;
};

/* Regexes of #match?/#resolves-match? whose verdicts the workers cache by text (tl_engine.c). */
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
  bool selected;                /* tl_ruleset_select was called */
  pcre2_code *eval_re;         /* names of validation/test data (tl_vocab_eval_names_re) */
};

/* ---- the per-file model (tl_model.c) ---- */

typedef enum {
  TL_VAL_UNKNOWN = 0,
  TL_VAL_CPU,     /* a tensor or array known to be in host memory */
  TL_VAL_PY,      /* a Python scalar, string or container of them */
  TL_VAL_LIST,    /* a Python list/dict/tuple (indexing it launches nothing) */
  TL_VAL_DEVICE,  /* a tensor known (or very likely) to be on the accelerator */
} tl_valkind;

/* A binding of a local name at a point of a function, in source order. */
typedef struct {
  const char *name; /* "x", "self.model" */
  uint32_t byte;   /* where the binding takes effect */
  int32_t func;
  TSNode value_;   /* the assigned expression (null node for loop targets): read it with tl_bvalue */
  tl_valkind kind; /* for loop targets and other non-expression bindings */
  const char *ctor; /* dotted callee text when the value is a call (for class instances), else NULL */
  int32_t from_loop; /* loop index when this binds a for-loop target, else -1 */
  uint32_t vstart, vend; /* the value's byte range, kept after the tree is gone */
  TSSymbol vsym;   /* the value's node symbol (0: no value) */
  bool lazy;       /* copied from the last run's model: value_ is found in the new tree when read */
} tl_binding;

typedef struct {
  const char *callee; /* dotted text of the called expression: "self.step", "torch.arange" */
  uint32_t byte, line, col;
  int32_t func, loop;
  bool top;        /* not inside any loop of its function */
  bool guarded;    /* under a frequency guard inside its function */
  unsigned work;   /* TL_WORK_* */
} tl_call;

enum { TL_WORK_BACKWARD = 1, TL_WORK_OPT_STEP = 2, TL_WORK_MODEL = 4 };

typedef struct {
  const char *name;    /* "forward" */
  const char *qual;    /* "pkg.mod.Class.forward" */
  const char *display; /* "Class.forward" */
  int32_t cls;     /* class index in file or -1 */
  uint32_t start, end, line, col;
  bool is_collate; /* passed as collate_fn= somewhere in this file */
  int32_t outer;   /* the enclosing function (0: the module body; -1 for the module itself) */
} tl_func;

typedef struct {
  const char *name, *qual;
  TL_VEC(const char *) bases; /* resolved dotted names */
  TL_VEC(tl_binding) attrs; /* self.<attr> = ... bindings from any method */
  uint32_t line;
} tl_class;

typedef struct {
  int32_t func, parent;
  uint32_t start, end, line, col;
  bool is_while;
  bool iterates_loader;
  unsigned work;   /* TL_WORK_* of calls directly in the body (not nested loops) */
} tl_loop;

/* A byte range; for a guard, `scope` (when not 0) is the earliest loop start from which the guard
 * counts: a block that ends a loop runs once per run of that loop, not once per run of an outer one. */
typedef struct { uint32_t start, end, scope; } tl_range;

/* One top-level statement's share of the model, for rebuilding it after an edit (tl_model_rebuild):
 * the statement's place, and where its entries start in each list of the model. */
typedef struct {
  uint32_t start, end, row;
  uint32_t funcs, classes, loops, calls, bindings, guards, loaders, collates, imports, gvars, supps;
  bool error;             /* the statement holds a syntax error (its parse may differ with the same text) */
} tl_segment;

typedef struct { const char *alias, *qual; } tl_import_op;

/* A file's model. Its strings (names, callees, qualified names) are interned in `strs`: they live
 * as long as the model, and equal texts are equal pointers. */
typedef struct tl_file_model {
  tl_strtab strs;
  const char *module; /* dotted module name, e.g. "pkg.trainer" */
  bool is_package;
  tl_map imports; /* alias -> dotted qualified name (in strs) */
  TL_VEC(tl_func) funcs;   /* funcs.v[0] is the module body; the others in source order */
  bool funcs_sorted;       /* funcs.v[1..] by ascending start (checked after the walk) */
  TL_VEC(tl_class) classes;
  TL_VEC(tl_loop) loops;
  TL_VEC(tl_call) calls;
  TL_VEC(tl_binding) bindings;
  uint32_t *bind_order;    /* binding indexes grouped by function, in source order within each */
  uint32_t *bind_first;    /* per function (funcs.n + 1 entries): its first slot in bind_order */
  TL_VEC(tl_range) guards; /* frequency-guarded byte ranges */
  bool uses_accel;         /* the code (not comments/docstrings) names an accelerator (docs/hot-code.md) */
  bool has_main;           /* the code tests `__name__ == "__main__"`: an entry point of a program */
  TL_VEC(const char *) loader_names; /* names/attributes bound to DataLoader(...) */
  TL_VEC(const char *) collate_names;
  TL_VEC(char *) step_iterables; /* configured extra loader names (borrowed) */
  tl_suppressions suppressions;   /* noqa / trainlint: ignore comments */
  /* For tl_model_rebuild: */
  TL_VEC(tl_segment) segs;        /* per named child of the module, in order (empty: not split) */
  TL_VEC(tl_import_op) import_log;/* every import binding in walk order (the walk resolves through those so far) */
  TL_VEC(const char *) guard_log; /* names assigned a frequency test at the module level, in walk order */
  TL_VEC(const char *) loop_iters;/* per loop: dotted text of the iterated object (or NULL) */
  TSNode lazy_root;               /* the tree where lazy bindings' values are found (null when the tree is gone) */
  bool deep;                      /* nesting too deep somewhere (a diagnostic was given) */
} tl_file_model;

/* A binding's value node. The statements an editor's re-run copies from the last run's model find
 * their bindings' values in the new tree only when a predicate reads one (most are never read). */
TSNode tl_binding_find_value(const tl_file_model *m, const tl_binding *b);
static inline TSNode tl_bvalue(const tl_file_model *m, const tl_binding *b) {
  return b->lazy ? tl_binding_find_value(m, b) : b->value_;
}

/* Builds the model of one parsed file. `module` is the dotted module name (copied). */
void tl_model_build(tl_file_model *m, TSNode root, const char *src, const char *module, bool is_package,
                    tl_diags *diags, const char *path);
/* The same model after an edit, reusing `old` (the model of the text before it) for the top-level
 * statements outside the edited region: [lo, hi_new) of the new text was [lo, hi_old) of the old
 * one, everything after it moved by hi_new - hi_old bytes. Those statements' entries are copied with
 * their offsets, lines and indexes moved and their value nodes found again in the new tree; the
 * others are walked, as are the ones after the region when the walk's state there (imports so far,
 * module-level frequency-test names) differs. Equal to tl_model_build's model (tests/unit/
 * test_incremental_random.c). `code` is tl_code_text(src, ..., true) when the caller has it, else
 * NULL. With `old` NULL: tl_model_build. Returns the number of statements copied, or -1 when `old`
 * cannot be used (then `m` and `old` are untouched: call it again without `old`). Otherwise `m`
 * takes `old`'s string table over: `old` stays readable while `m` lives, and frees no strings. */
long tl_model_rebuild(tl_file_model *m, tl_file_model *old, TSNode root, const char *src, const char *code,
                      const char *module, bool is_package, tl_diags *diags, const char *path, uint32_t lo,
                      uint32_t hi_old, uint32_t hi_new);
void tl_model_free(tl_file_model *m);
/* For a model no editor will rebuild (the CLI): frees what only tl_model_rebuild reads (the
 * segments and the logs of imports, guard names and loop iterables) and the unused room of its
 * lists. Less memory kept for the project pass, fewer pages faulted in. */
void tl_model_compact(tl_file_model *m);
/* Resolves a dotted name through the file's imports ("T.arange" -> "torch.arange"). Caller frees. */
char *tl_model_resolve(const tl_file_model *m, const char *dotted);
/* Innermost function / loop containing a byte offset. */
int32_t tl_model_func_at(const tl_file_model *m, uint32_t byte);
int32_t tl_model_loop_at(const tl_file_model *m, uint32_t byte);
/* Classifies the value of an expression at its place in function `func`. */
tl_valkind tl_model_classify(const tl_file_model *m, TSNode expr, const char *src, int32_t func, int depth);
/* The expression last assigned to `name` before `before` in function `func` (null node if none). */
TSNode tl_model_binding_value(const tl_file_model *m, const char *name, int32_t func, uint32_t before);
/* The binding of `name` in effect at `before` in function `func` (the latest one), or NULL. */
const tl_binding *tl_model_binding(const tl_file_model *m, const char *name, int32_t func, uint32_t before);
/* TL_WORK_* of a call by its dotted callee text ("self.model" -> TL_WORK_MODEL). */
unsigned tl_model_call_work(const char *callee);

#endif
