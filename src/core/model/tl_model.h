/* tl_model.h - the per-file model (tl_model.c): imports, classes, functions, loops, calls,
 * frequency guards and local bindings of one file, built in one walk over its syntax tree, and
 * rebuilt statement by statement after an edit (tl_incremental.c). */
#ifndef TL_MODEL_H
#define TL_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "tl_map.h"
#include "tl_strtab.h"
#include "tl_suppress.h"
#include "tl_util.h"

/* Where a value lives (tl_values.c). */
typedef enum {
  TL_VAL_UNKNOWN = 0,
  TL_VAL_CPU,    /* a tensor or array known to be in host memory */
  TL_VAL_PY,     /* a Python scalar, string or container of them */
  TL_VAL_LIST,   /* a Python list/dict/tuple (indexing it launches nothing) */
  TL_VAL_DEVICE, /* a tensor known (or very likely) to be on the accelerator */
} tl_valkind;


/* What a value's place depends on when the file alone does not tell (tl_values.c): the result of a
 * call (resolved across files by the project pass), or a parameter of the enclosing function
 * (whatever its callers pass). */
typedef enum { TL_VDEP_NONE, TL_VDEP_CALL, TL_VDEP_PARAM } tl_vdep_how;
typedef struct {
  uint8_t how;  /* tl_vdep_how */
  bool elem;    /* the value is an element or attribute of that one (of a container: unknown) */
  uint8_t slot; /* CALL: 0, the whole result; s, element s - 1 of the tuple the call returns (`loss,
                 * out = step(x)`: 1 and 2) */
  uint32_t pos; /* CALL: the call's start byte; PARAM: the parameter's position */
} tl_vdep;
#define TL_VDEP_NOTHING ((tl_vdep){.how = TL_VDEP_NONE}) /* depends on nothing */

/* A function's results that the summaries follow one by one: the first TL_RET_SLOTS elements of the
 * tuples it returns (`return loss, logits`). */
#define TL_RET_SLOTS 4

/* What one of a function's returns depends on, and which result it feeds: 0, the whole value; s,
 * element s - 1 of the tuples it returns. */
typedef struct {
  tl_vdep dep;
  uint8_t feeds;
} tl_rdep;

/* An argument of a call, with its place as the file tells it. */
typedef struct {
  const char *kw;     /* keyword, or NULL for a positional argument */
  uint8_t kind;       /* tl_valkind */
  uint8_t elems;      /* for a container (TL_VAL_LIST): where all its elements live, when one place holds */
  tl_vdep dep;        /* when the kind is unknown: what it depends on */
  int16_t param;      /* the value is the calling function's parameter at this position, as it is
                   * (`debug=debug`), not rebound; else -1 */
  const char *option; /* the value is a setting of a configuration object (`cfg.use_bias`,
                       * `args.model.use_bias`; not `self.x`): its last name, else NULL */
  const char *lit;    /* the value is a literal (tl_model_literal): its normalised text, else NULL */
} tl_arg;

/* A `return` with a value, and the value node's range and symbol (found again in an edited tree). */
typedef struct {
  int32_t func;
  uint32_t start, end;
  TSSymbol sym;
} tl_return;

/* A block that runs only when a flag is set: the `then` block of `if flag:`, `if args.dump and x:`,
 * `if self.cache is not None:`. Whether the flag is off unless asked for (opt-in) is decided by the
 * project pass (tl_project.c). With `inference`, a block that runs in no eager training step: the
 * `else` (and `elif`s) of `if self.training:`, the block of `if not self.training:`, the block of
 * `if torch.jit.is_scripting():` (scripting, tracing, ONNX export; flag: the test's name). */
typedef struct {
  uint32_t start, end; /* the block */
  int32_t func;
  const char *flag; /* dotted name: "profile", "args.dump", "self.autobalance"; "a|b": any of them
                     * (`if a or b:`) */
  bool inference;
  /* With lit: the block runs only when the flag (a parameter) equals the literal (`eq`: `if
   * reduction == "mean":`, `if dim_size is None:`) or differs from it (`if mode != "train":`). */
  const char *lit;
  bool eq;
  /* Without lit: when the block runs (tl_flag_when): the flag set, raised above 1, or unset. */
  uint8_t when;
} tl_flag_guard;

/* When a flag guard's block runs: the flag set (`if flag:`, `rate > 0`), raised above a default of
 * 1 (`if accum_steps > 1:`, `>= 2`), or unset (the `else` of `if flag:`). */
typedef enum { TL_FLAG_SET = 0, TL_FLAG_ABOVE_ONE, TL_FLAG_UNSET } tl_flag_when;

/* A binding of a local name at a point of a function, in source order. */
typedef struct {
  const char *name; /* "x", "self.model" */
  uint32_t byte;    /* where the binding takes effect */
  int32_t func;
  TSNode value_;         /* the assigned expression (null node for loop targets): read it with tl_bvalue */
  tl_valkind kind;       /* for loop targets and other non-expression bindings */
  const char *ctor;      /* dotted callee text when the value is a call (for class instances), else NULL */
  int32_t from_loop;     /* loop index when this binds a for-loop target, else -1 */
  uint32_t vstart, vend; /* the value's byte range, kept after the tree is gone */
  TSSymbol vsym;         /* the value's node symbol (0: no value) */
  bool lazy;             /* copied from the last run's model: value_ is found in the new tree when read */
  bool elem;             /* one target of an unpacking (`a, b = f(x)`): the value is the whole call's */
  uint8_t slot;          /* with elem: 1 + its position in the unpacking, when it is one of the first
                          * TL_RET_SLOTS and no starred target comes before it; else 0 */
} tl_binding;

typedef struct {
  const char *callee; /* dotted text of the called expression: "self.step", "torch.arange" */
  uint32_t byte, line, col;
  uint32_t end;       /* the call node's end byte */
  uint32_t arg_first; /* its arguments: args.v[arg_first .. + nargs) (tl_values_summarise) */
  uint16_t nargs;
  bool splat; /* it forwards `*args` or `**kwargs`: any parameter may be given (not `**config["x"]`) */
  int32_t func, loop;
  bool top;      /* not inside any loop of its function */
  bool guarded;  /* under a frequency guard inside its function */
  bool stmt;     /* a statement of its own (`evaluate(cfg)`, `await f()`): its value is discarded */
  unsigned work; /* TL_WORK_* */
} tl_call;

/* What a call does for training: a backward pass, an optimizer step, a model call, clearing the
 * gradients (`optimizer.zero_grad()`, Paddle's `clear_grad()`: only a training step does it). */
enum { TL_WORK_BACKWARD = 1, TL_WORK_OPT_STEP = 2, TL_WORK_MODEL = 4, TL_WORK_GRAD = 8 };

typedef struct {
  const char *name;    /* "forward" */
  const char *qual;    /* "pkg.mod.Class.forward" */
  const char *display; /* "Class.forward" */
  int32_t cls;         /* class index in file or -1 */
  uint32_t start, end, line, col;
  bool is_collate;      /* passed as collate_fn= somewhere in this file */
  bool has_comp;        /* may hold a comprehension (its names are its own: tl_values.c); true is
                         * always safe, it only spares the look for one */
  bool no_grad;         /* decorated with `@torch.no_grad()`, `@torch.inference_mode()` or the like */
  int32_t outer;        /* the enclosing function (0: the module body; -1 for the module itself) */
  uint32_t param_first; /* its parameters' names: params.v[param_first .. + nparams) */
  uint16_t nparams;
  uint8_t ret_kind;                /* tl_valkind of what it returns as far as the file tells (tl_values_summarise) */
  uint8_t slot_kind[TL_RET_SLOTS]; /* likewise, each of the first elements of the tuples it returns
                                    * (TL_VAL_UNKNOWN where a return is no tuple that long) */
  uint32_t rdep_first;             /* what its unknown returns depend on: rdeps.v[rdep_first .. + nrdeps) */
  uint16_t nrdeps;
} tl_func;

typedef struct {
  const char *name, *qual;
  TL_VEC(const char *) bases; /* resolved dotted names */
  TL_VEC(tl_binding) attrs;   /* self.<attr> = ... bindings from any method */
  uint32_t line;
  bool decorated; /* under a decorator (`@MODELS.register_module()`: a registry may build it by name) */
} tl_class;

typedef struct {
  int32_t func, parent;
  uint32_t start, end, line, col;
  bool is_while;
  bool iterates_loader;
  bool small;    /* a `for` over a small collection fixed by the program (tl_walk_loop), not over data */
  bool in_main;  /* in the module's `if __name__ == "__main__":` block */
  unsigned work; /* TL_WORK_* of calls directly in the body (not nested loops) */
} tl_loop;

/* A byte range; for a guard, `scope` (when not 0) is the earliest loop start from which the guard
 * counts: a block that ends a loop runs once per run of that loop, not once per run of an outer one. */
typedef struct {
  uint32_t start, end, scope;
} tl_range;

/* One top-level statement's share of the model, for rebuilding it after an edit (tl_model_rebuild):
 * the statement's place, and where its entries start in each list of the model. */
typedef struct {
  uint32_t start, end, row;
  uint32_t funcs, classes, loops, calls, bindings, guards, loaders, collates, imports, gvars, supps, params, rets,
      flags, optnames;
  bool error; /* the statement holds a syntax error (its parse may differ with the same text) */
} tl_segment;

typedef struct {
  const char *alias, *qual;
} tl_import_op;

/* A file's model. Its strings (names, callees, qualified names) are interned in `strs`: they live
 * as long as the model, and equal texts are equal pointers. */
typedef struct tl_file_model {
  tl_strtab strs;
  const char *module; /* dotted module name, e.g. "pkg.trainer" */
  bool is_package;
  tl_map imports;        /* alias -> dotted qualified name (in strs) */
  TL_VEC(tl_func) funcs; /* funcs.v[0] is the module body; the others in source order */
  bool funcs_sorted;     /* funcs.v[1..] by ascending start (checked after the walk) */
  TL_VEC(tl_class) classes;
  TL_VEC(tl_loop) loops;
  TL_VEC(tl_call) calls;
  TL_VEC(tl_binding) bindings;
  TL_VEC(const char *) params; /* every function's parameters, in order (tl_func.param_first) */
  TL_VEC(uint8_t) param_off;   /* per parameter: its default is off (False, None, 0, "") */
  TL_VEC(const char *)
  param_lit; /* per parameter: its default as tl_model_literal gives it, "?" for
                                   * another default, NULL for none */
  TL_VEC(tl_flag_guard) flag_guards;
  TL_VEC(const char *)
  off_names;                         /* module-level names bound to False/None/0 ("profile"), argparse
                                   * options off by default ("--dump"); "!profile", "!--dump": set on;
                                   * "=1--accum": an option or setting whose default is 1 (also "!--accum") */
  TL_VEC(tl_return) rets;            /* `return <value>` statements in source order */
  TL_VEC(tl_arg) args;               /* the calls' arguments (tl_call.arg_first), made after the walk */
  TL_VEC(tl_rdep) rdeps;             /* the functions' return dependencies (tl_func.rdep_first), likewise */
  uint32_t *bind_order;              /* binding indexes grouped by function, in source order within each */
  uint32_t *bind_first;              /* per function (funcs.n + 1 entries): its first slot in bind_order */
  TL_VEC(tl_range) guards;           /* frequency-guarded byte ranges */
  bool uses_accel;                   /* the code (not comments/docstrings) names an accelerator (docs/hot-code.md) */
  bool has_main;                     /* the code tests `__name__ == "__main__"`: an entry point of a program */
  bool registers_buffers;            /* a call `self.register_buffer(...)` somewhere (#tensor?'s buffers) */
  TL_VEC(const char *) loader_names; /* names/attributes bound to DataLoader(...) */
  TL_VEC(const char *) collate_names;
  TL_VEC(char *) step_iterables; /* configured extra loader names (borrowed) */
  tl_suppressions suppressions;  /* noqa / trainlint: ignore comments */
  /* For tl_model_rebuild: */
  TL_VEC(tl_segment) segs;          /* per named child of the module, in order (empty: not split) */
  TL_VEC(tl_import_op) import_log;  /* every import binding in walk order (the walk resolves through those so far) */
  TL_VEC(const char *) guard_log;   /* names assigned a frequency test at the module level, in walk order */
  TL_VEC(const char *) guard_funcs; /* "name()" of the module's functions that return a remainder test */
  TL_VEC(const char *) loop_iters; /* per loop: dotted text of the iterated object (or NULL); read by #loader-trains? */
  TSNode lazy_root;                /* the tree where lazy bindings' values are found (null when the tree is gone) */
  bool deep;                       /* nesting too deep somewhere (a diagnostic was given) */
  uint64_t walk_deadline_ns;       /* when the walk must stop (0: never), set by the caller */
  uint32_t walk_node_budget;       /* the nodes the walk may visit (0: any number), set by the caller */
  const size_t *walk_cancel;       /* nonzero (read atomically, another thread sets it): the walk stops; may be NULL */
  bool walk_stopped;               /* the walk stopped at walk_stop_byte, past its deadline or budget */
  uint32_t walk_stop_byte;
  TL_VEC(tl_range) deep_stmts; /* the top-level statements that hold it, in order: not matched */
} tl_file_model;

/* A binding's value node. The statements an editor's re-run copies from the last run's model find
 * their bindings' values in the new tree only when a predicate reads one (most are never read). */
TSNode tl_binding_find_value(const tl_file_model *m, const tl_binding *b);
/* A node of a copied statement by its range and symbol, in the tree the model was rebuilt on (a null
 * node when the tree is gone). */
TSNode tl_model_find_node(const tl_file_model *m, uint32_t start, uint32_t end, TSSymbol sym);
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
/* The expression last assigned to `name` before `before` in function `func` (null node if none). */
TSNode tl_model_binding_value(const tl_file_model *m, const char *name, int32_t func, uint32_t before);
/* The binding of `name` in effect at `before` in function `func` (the latest one), or NULL. */
const tl_binding *tl_model_binding(const tl_file_model *m, const char *name, int32_t func, uint32_t before);
/* The entry of off_names that stands (the entry itself), for one a node of a possible configuration
 * tree made ("~+_C\x1e..." or "~-_C\x1e...": the inner entry when `_C` is bound at module level to a
 * configuration tree, tl_vocab_config_nodes, or when it is not), or NULL when it does not stand. The
 * string is the model's. */
const char *tl_model_setting_entry(const tl_file_model *m, const char *entry);
/* TL_WORK_* of a call by its dotted callee text ("self.model" -> TL_WORK_MODEL). */
unsigned tl_model_call_work(const char *callee);

/* ---- values (tl_values.c) ---- */

/* Where the elements of a container live, when one place holds for all of them (tl_values.c). */
tl_valkind tl_value_elements(const tl_file_model *m, TSNode container, const char *src, int32_t func);
/* Library calls that do not make a tensor (`torch.device`, `torch.cuda.memory_reserved`, a module). */
bool tl_value_lib_not_tensor(const char *qualified);
/* Evidence that an expression is a framework tensor, wherever it lives (tl_values.c). */
bool tl_value_is_tensor(const tl_file_model *m, TSNode expr, const char *src, int32_t func, int depth);
/* The same, and when the place is unknown, what it depends on (a call's result, a parameter). */
/* A literal's normalised text in the model's strings, or NULL for another expression: "s:" and a
 * plain string's content (no prefix but r/u, no escape), "n:" and a number's text (a leading minus
 * kept), "k:None", "k:True", "k:False". Two literals are equal values when their texts are. */
const char *tl_model_literal(tl_file_model *m, TSNode n, const char *src);
tl_valkind tl_value_classify_dep(const tl_file_model *m, TSNode expr, const char *src, int32_t func, tl_vdep *dep);
/* After the walk, with the tree still there: the places of every call's arguments and of what every
 * function returns, as far as the file tells (tl_call.arg_first, tl_func.ret_kind, rdeps). The
 * nodes of the calls and returns are given, or null for those a rebuild copied. */
/* What a rebuild after an edit lets tl_values_summarise take from the last model: the arguments of
 * the calls it copied, when nothing their places are read from has changed (tl_model.c decides). */
typedef struct {
  const tl_file_model *old;
  const uint32_t *call_old; /* per call of the new model: 1 + its index in old when copied, else 0 */
  uint32_t hi_old;          /* the edited region's end in the old text */
  int64_t delta;            /* the shift of everything after it */
} tl_values_reuse;

/* Fills each call's arguments (with their places) and each function's return summary. With
 * `reuse` (may be NULL), the calls it names keep their old arguments, moved with the text. */
void tl_values_summarise(tl_file_model *m, const TSNode *call_nodes, const TSNode *ret_nodes, const char *src,
                         const tl_values_reuse *reuse);

/* Classifies the value of an expression at its place in function `func`. */
tl_valkind tl_value_classify(const tl_file_model *m, TSNode expr, const char *src, int32_t func, int depth);

#endif
