/* tl_ast.h - helpers over tree-sitter-python syntax trees: node types, texts, dotted names,
 * parentheses, keyword arguments and ancestors. They read the tree and the source; none allocates
 * unless its comment says the caller frees. */
#ifndef TL_AST_H
#define TL_AST_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

/* The grammar's field ids (generated from its parser.c, see CMakeLists.txt): TL_CHILD(n, object)
 * is ts_node_child_by_field_name(n, "object", 6) without looking the name up on every call. */
#include "tl_py_fields.h"
#define TL_CHILD(n, field) ts_node_child_by_field_id((n), TL_FIELD_##field)

/* Is n of this type (by name, named or anonymous)? With a string literal the check compares
 * symbols, looked up once per literal and thread (tl_node_is_lit_); any other string is compared
 * by name (tl_node_is_name_). A null node is of no type. */
bool tl_node_is_name_(TSNode n, const char *type);
bool tl_node_is_lit_(TSNode n, const char *literal);
#define tl_node_is(n, type) (__builtin_constant_p(type) ? tl_node_is_lit_((n), (type)) : tl_node_is_name_((n), (type)))

/* The node's text. Caller frees. */
char *tl_node_text(TSNode n, const char *src);
/* Is the node's text exactly `s`? False for a null node. */
bool tl_node_text_eq(TSNode n, const char *src, const char *s);
/* Is the node's text one of the words of `list` (NULL-terminated)? False for a null node. */
bool tl_node_text_in(TSNode n, const char *src, const char *const *list);
/* Does the identifier `name` occur in n (40 levels deep at most)? */
bool tl_node_mentions(TSNode n, const char *src, const char *name);

/* The expression inside any number of parentheses: `((x))` -> `x` (comments inside skipped). */
TSNode tl_unparen(TSNode n);
/* n's next and previous named siblings, and its last named child, comments aside (a null node
 * when there is none): the statements around a statement, the last statement of a block. */
TSNode tl_next_code_sibling(TSNode n);
TSNode tl_prev_code_sibling(TSNode n);
TSNode tl_last_code_child(TSNode n);
/* A scope boundary: a function, lambda, class or the module. Predicates about "the code around"
 * a node stop there. */
bool tl_is_scope(TSNode n);
/* The value of keyword argument `name` of an argument list (or of a call's), or a null node. */
TSNode tl_kwarg_value(TSNode args, const char *src, const char *name);

/* Dotted text of a name/attribute chain ("self.model.fwd"), or NULL for other expressions.
 * Calls in the chain are kept as "()" ("trainer.loader()"). Caller frees. */
char *tl_dotted(TSNode n, const char *src);
/* The same for a called expression, where a subscript is a component too, without its index:
 * "optimizers[].step" for `optimizers["g"].step`. Caller frees. */
char *tl_callee_text(TSNode n, const char *src);
/* The last component of a dotted name ("self.model.fwd" -> "fwd", `len` 3); "()" suffixes are
 * ignored. Points into `dotted`. */
const char *tl_dotted_last(const char *dotted, size_t *len);
/* Is the last component of a dotted name `word`? */
bool tl_dotted_last_is(const char *dotted, const char *word);
/* Does the target of a binding `target` (a name, or a pattern or tuple of them: `k, (a, b)`) bind
 * the name of `len` bytes at `name`? */
bool tl_target_binds(TSNode target, const char *src, const char *name, size_t len);

/* A node's ancestors, nearest first (the parent, then its parent, ...), found in one descent from
 * the root: ts_node_parent descends from the root on every call, so walking k ancestors with it
 * costs k descents. The nearest TL_UP_MAX ancestors are kept; beyond them, and for a zero-width
 * node (its place among empty siblings is not found by its range), tl_up_next falls back to
 * ts_node_parent. Same results as the loop `p = ts_node_parent(p)`. */
#define TL_UP_MAX 40
typedef struct {
  TSNode v[TL_UP_MAX]; /* a ring: ancestor number `top - 1 - k` (k = 0: the parent) at (top - 1 - k) % TL_UP_MAX */
  uint32_t top;        /* ancestors found (the depth of the node) */
  uint32_t i;          /* ancestors returned */
  TSNode last;         /* the last node returned (the node itself before the first call) */
  bool slow;           /* not found by descent: ts_node_parent only */
} tl_up;
void tl_up_init(tl_up *u, TSNode n);
/* The next ancestor, or a null node past the root. */
TSNode tl_up_next(tl_up *u);

#endif
