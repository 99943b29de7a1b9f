/* tl_preds_host.c - predicates on what the host does with a value it reads from the device: needs
 * it (a host-only library takes it, or it sizes what the next operation makes), reads it again just
 * after reading it, or holds it as a Python list rather than an array (tl_pred.h). */
#define _GNU_SOURCE /* memmem */
#include "tl_match.h"

#include <ctype.h>
#include <string.h>

#include "tl_vocab.h"

/* ---- a value the host needs: a host-only library takes it ---- */

/* Is `call` a call of a host-only library (scipy, scikit-learn, OpenCV, `random`, ...: tl_vocab_host_libs),
 * other than a metric, or of a framework function that takes an argument on the host only
 * (`pack_padded_sequence(x, lengths.cpu())`: tl_vocab_host_arg_calls)? */
static bool tl_host__host_lib_call(const tl_match_env *e, TSNode call) {
  if (!tl_node_is(call, "call")) return false;
  char *d = tl_dotted(TL_CHILD(call, function), e->src);
  if (!d) return false;
  char *q = tl_model_resolve(e->m, d);
  const char *dot = strchr(q, '.');
  /* a metric (sklearn.metrics.roc_curve) is work the step could skip, not a value it needs */
  bool host = (dot && tl_str_in(q, (size_t)(dot - q), tl_vocab_host_libs) && !strstr(q, "metric")) ||
              tl_str_in(q, strlen(q), tl_vocab_host_arg_calls);
  free(q);
  free(d);
  return host;
}

static bool tl_host__host_use(const tl_match_env *e, TSNode n, const char *var, int depth);

/* A comprehension over `var` (`[lsa(c[i]) for i, c in enumerate(C.split(sizes))]`): does its element
 * hand one of the names a `for` over it binds to a host-library call? */
static bool tl_host__host_use_through(const tl_match_env *e, TSNode comp, const char *var, int depth) {
  TSNode body = ts_node_named_child(comp, 0);
  for (uint32_t i = 1; i < ts_node_named_child_count(comp); i++) {
    TSNode cl = ts_node_named_child(comp, i);
    if (!tl_node_is(cl, "for_in_clause") || !tl_node_mentions(TL_CHILD(cl, right), e->src, var)) continue;
    TSNode left = TL_CHILD(cl, left);
    TSNode names[8];
    uint32_t nn = 0;
    if (tl_node_is(left, "identifier")) names[nn++] = left;
    for (uint32_t k = 0; nn < 8 && !tl_node_is(left, "identifier") && k < ts_node_named_child_count(left); k++)
      if (tl_node_is(ts_node_named_child(left, k), "identifier")) names[nn++] = ts_node_named_child(left, k);
    for (uint32_t k = 0; k < nn; k++) {
      char *name = tl_node_text(names[k], e->src);
      bool used = strcmp(name, var) && tl_host__host_use(e, body, name, depth + 1);
      free(name);
      if (used) return true;
    }
  }
  return false;
}

/* Does the name `var` appear in an argument of a host-library call in `n`, or reach one through a
 * comprehension over it? */
static bool tl_host__host_use(const tl_match_env *e, TSNode n, const char *var, int depth) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_host__host_lib_call(e, n)) {
    TSNode args = TL_CHILD(n, arguments);
    for (uint32_t i = 0; i < ts_node_named_child_count(args); i++)
      if (tl_node_mentions(ts_node_named_child(args, i), e->src, var)) return true;
  }
  if ((tl_node_is(n, "list_comprehension") || tl_node_is(n, "generator_expression") ||
       tl_node_is(n, "set_comprehension")) &&
      tl_host__host_use_through(e, n, var, depth))
    return true;
  if (tl_node_is(n, "function_definition") || tl_node_is(n, "class_definition")) return false;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_host__host_use(e, ts_node_named_child(n, i), var, depth + 1)) return true;
  return false;
}

/* ---- a value read on the host that sizes what the next operation makes ---- */

/* The row of tl_vocab_size_functions, _methods or _builtins that `call` calls (`torch.arange`,
 * `np.zeros`, `x.view`, `range`), or NULL. */
static const tl_vocab_sized *tl_host__size_call(const tl_match_env *e, TSNode call) {
  if (!tl_node_is(call, "call")) return NULL;
  TSNode fn = TL_CHILD(call, function);
  char *d = tl_dotted(fn, e->src);
  char *q = d ? tl_model_resolve(e->m, d) : NULL;
  const char *dot = q ? strrchr(q, '.') : NULL;
  const tl_vocab_sized *rows = NULL;
  const char *name = NULL;
  size_t len = 0;
  if (q && !dot && tl_node_is(fn, "identifier")) {
    rows = tl_vocab_size_builtins;
    name = q;
    len = strlen(q);
  } else if (dot && tl_str_in(q, (size_t)(dot - q), tl_vocab_size_modules)) {
    rows = tl_vocab_size_functions;
    name = dot + 1;
    len = strlen(name);
  } else if (tl_node_is(fn, "attribute")) {
    TSNode attr = TL_CHILD(fn, attribute);
    rows = tl_vocab_size_methods;
    name = e->src + ts_node_start_byte(attr);
    len = ts_node_end_byte(attr) - ts_node_start_byte(attr);
  }
  const tl_vocab_sized *row = NULL;
  for (size_t i = 0; rows && rows[i].name && !row; i++)
    if (strlen(rows[i].name) == len && !memcmp(rows[i].name, name, len)) row = &rows[i];
  free(q);
  free(d);
  return row;
}

/* Is `arg`, an element of the argument list `args`, one that `row` takes as a size? */
static bool tl_host__size_arg(const tl_match_env *e, const tl_vocab_sized *row, TSNode args, TSNode arg) {
  if (tl_node_is(arg, "keyword_argument")) {
    TSNode k = TL_CHILD(arg, name);
    uint32_t s = ts_node_start_byte(k);
    return row->keywords && tl_str_in(e->src + s, ts_node_end_byte(k) - s, row->keywords);
  }
  if (tl_node_is(arg, "list_splat")) return row->args != 0; /* torch.zeros(*shape) */
  uint32_t pos = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
    TSNode c = ts_node_named_child(args, i);
    if (ts_node_eq(c, arg)) return pos < 32 && (row->args >> pos & 1u);
    if (!tl_node_is(c, "keyword_argument") && !tl_node_is(c, "comment")) pos++;
  }
  return false;
}

/* Is `call` one of tl_vocab_size_value_calls (`int(n)`, `max(n, 1)`, `math.ceil(n / 8)`)? */
static bool tl_host__size_value_call(const tl_match_env *e, TSNode call) {
  char *d = tl_dotted(TL_CHILD(call, function), e->src);
  if (!d) return false;
  char *q = tl_model_resolve(e->m, d);
  bool r = tl_str_in(q, strlen(q), tl_vocab_size_value_calls);
  free(q);
  free(d);
  return r;
}

/* Does `n` compute a number from one of `names` by arithmetic only: the name, `n + 1`, `(b, n)`,
 * `int(n)`, `max(n, 1)`, `np.max(n)`, `n.max()`, `lengths[0]`? Not an index (`x[n]`), a comparison,
 * a length or a shape (`len(n)`, `n.size(0)`). */
static bool tl_host__sized_by(const tl_match_env *e, TSNode n, const char *const *names, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n)) return false;
  const char *t = ts_node_type(n);
  if (!strcmp(t, "identifier")) {
    uint32_t s = ts_node_start_byte(n);
    return tl_str_in(e->src + s, ts_node_end_byte(n) - s, names);
  }
  if (!strcmp(t, "subscript")) return tl_host__sized_by(e, TL_CHILD(n, value), names, depth + 1);
  if (!strcmp(t, "keyword_argument")) return tl_host__sized_by(e, TL_CHILD(n, value), names, depth + 1);
  if (!strcmp(t, "conditional_expression"))
    return tl_host__sized_by(e, ts_node_named_child(n, 0), names, depth + 1) ||
           tl_host__sized_by(e, ts_node_named_child(n, 2), names, depth + 1);
  if (!strcmp(t, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (!tl_host__size_value_call(e, n)) {
      /* `lengths.max()`, `n.item()`: a value of the receiver */
      if (!tl_node_is(fn, "attribute")) return false;
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t s = ts_node_start_byte(attr), l = ts_node_end_byte(attr) - s;
      return (tl_str_in(e->src + s, l, tl_vocab_reduction_methods) ||
              tl_str_in(e->src + s, l, tl_vocab_host_read_methods)) &&
             tl_host__sized_by(e, TL_CHILD(fn, object), names, depth + 1);
    }
    n = TL_CHILD(n, arguments);
  } else if (strcmp(t, "argument_list") && strcmp(t, "parenthesized_expression") && strcmp(t, "tuple") &&
             strcmp(t, "list") && strcmp(t, "expression_list") && strcmp(t, "binary_operator") &&
             strcmp(t, "unary_operator") && strcmp(t, "list_splat")) {
    return false;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_host__sized_by(e, ts_node_named_child(n, i), names, depth + 1)) return true;
  return false;
}

/* Is one of `names` a size given to a call in `n` (tl_host__size_call)? */
static bool tl_host__size_use(const tl_match_env *e, TSNode n, const char *const *names, int depth) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "function_definition") || tl_node_is(n, "class_definition")) return false;
  const tl_vocab_sized *row = tl_host__size_call(e, n);
  TSNode args = row ? TL_CHILD(n, arguments) : (TSNode){0};
  if (row && tl_node_is(args, "argument_list"))
    for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
      TSNode a = ts_node_named_child(args, i);
      if (tl_host__size_arg(e, row, args, a) && tl_host__sized_by(e, a, names, 0)) return true;
    }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_host__size_use(e, ts_node_named_child(n, i), names, depth + 1)) return true;
  return false;
}

/* The plain name that the assignment `asg` binds its right side to, or with `k` >= 0 the name that
 * `a, b = x, y` binds the right side's element k to; NULL where it binds none. Caller frees. */
static char *tl_host__bound_name(const tl_match_env *e, TSNode asg, int k) {
  TSNode left = TL_CHILD(asg, left), right = TL_CHILD(asg, right);
  if (k >= 0) {
    if ((!tl_node_is(left, "pattern_list") && !tl_node_is(left, "tuple_pattern")) ||
        ts_node_named_child_count(left) != ts_node_named_child_count(right))
      return NULL;
    left = ts_node_named_child(left, (uint32_t)k);
  }
  return tl_node_is(left, "identifier") ? tl_node_text(left, e->src) : NULL;
}

/* Does the value read at `read` go by arithmetic only (`int(...)`, `... + 1`, `(b, ...)`, `.item()`)
 * to a size argument (true: `torch.arange(int(n.max()))`)? Where it goes to an assignment instead,
 * that assignment is set in *asg, and in *k the element of the right side it is (-1: all of it). */
static bool tl_host__sizes_directly(const tl_match_env *e, TSNode read, TSNode *asg, int *k) {
  *asg = (TSNode){0};
  *k = -1;
  TSNode child = read;
  for (TSNode up = ts_node_parent(read); !ts_node_is_null(up); child = up, up = ts_node_parent(up)) {
    const char *t = ts_node_type(up);
    if (!strcmp(t, "argument_list")) {
      TSNode call = ts_node_parent(up);
      const tl_vocab_sized *row = tl_host__size_call(e, call);
      if (row) return tl_host__size_arg(e, row, up, child);
      if (!tl_host__size_value_call(e, call)) return false;
    } else if (!strcmp(t, "attribute")) {
      /* `n.cpu().item()`: the value read, read again */
      TSNode attr = TL_CHILD(up, attribute);
      uint32_t s = ts_node_start_byte(attr);
      if (!ts_node_eq(child, TL_CHILD(up, object)) ||
          !tl_str_in(e->src + s, ts_node_end_byte(attr) - s, tl_vocab_host_read_methods))
        return false;
    } else if (!strcmp(t, "conditional_expression")) {
      if (ts_node_eq(child, ts_node_named_child(up, 1))) return false; /* the condition */
    } else if (!strcmp(t, "expression_list") ||
               (!strcmp(t, "tuple") && tl_node_is(ts_node_parent(up), "assignment"))) { /* `a, b = (x, y)` */
      *k = -1;
      for (uint32_t i = 0; i < ts_node_named_child_count(up) && *k < 0; i++)
        if (ts_node_eq(ts_node_named_child(up, i), child)) *k = (int)i;
      if (*k < 0) return false;
    } else if (!strcmp(t, "assignment")) {
      if (ts_node_eq(child, TL_CHILD(up, right)) && tl_node_is(ts_node_parent(up), "expression_statement")) *asg = up;
      return false;
    } else if (strcmp(t, "call") && strcmp(t, "keyword_argument") && strcmp(t, "parenthesized_expression") &&
               strcmp(t, "binary_operator") && strcmp(t, "unary_operator") && strcmp(t, "tuple") && strcmp(t, "list")) {
      return false;
    }
  }
  return false;
}

/* Does `n` read the object's state: an attribute of `self` other than a called submodule
 * (`self.first_indices[i]`, not `self.proj(x)`)? */
static bool tl_host__reads_state(const tl_match_env *e, TSNode n, int depth) {
  if (depth > 40 || ts_node_is_null(n) || tl_node_is(n, "lambda")) return false;
  if (tl_node_is(n, "attribute") && tl_node_text_eq(TL_CHILD(n, object), e->src, "self")) {
    TSNode up = ts_node_parent(n);
    return !tl_node_is(up, "call") || !ts_node_eq(TL_CHILD(up, function), n);
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_host__reads_state(e, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

#define TL_SIZE_NAMES 8

/* Does the value read at `read` size what an operation makes next: a tensor (`torch.arange(n)`,
 * `x.new_zeros(b, n)`), a shape (`.view(1, n)`, `.expand(b, n)`) or a range? Directly, through the
 * plain name it is bound to (`n = int(lengths.max())`, `b, n = x.size(0), lengths.max().item()`), or
 * through a number computed from that name (`t = np.max(lengths)`), in the statements after it in
 * its block; a value of the step's data, not of the object's state. */
/* How many statements after a host read #host-needs! looks at for what needs the value. */
#define TL_NEXT_STATEMENTS 16

/* The statement after `stmt`: its next sibling, or, at the end of the block of an `if`, `elif`,
 * `else`, `with` or `try` clause, the statement after that compound statement (`if n is None: n =
 * int(counts.max())`, then `paddle.full([b * n], 0)`); a null node at the end of a function, a
 * loop's body or the module. */
static TSNode tl_host__next_statement(TSNode stmt) {
  for (int up = 0; up < 8; up++) {
    TSNode s = ts_node_next_named_sibling(stmt);
    if (!ts_node_is_null(s) || !tl_node_is(ts_node_parent(stmt), "block")) return s;
    TSNode owner = ts_node_parent(ts_node_parent(stmt));
    if (tl_node_is(owner, "elif_clause") || tl_node_is(owner, "else_clause") || tl_node_is(owner, "except_clause") ||
        tl_node_is(owner, "finally_clause"))
      owner = ts_node_parent(owner);
    if (!tl_node_is(owner, "if_statement") && !tl_node_is(owner, "with_statement") &&
        !tl_node_is(owner, "try_statement"))
      return (TSNode){0};
    stmt = owner;
  }
  return (TSNode){0};
}

static bool tl_host__sizes_next(const tl_match_env *e, TSNode read) {
  /* a value the object keeps (a buffer made at construction) does not depend on the step's data:
   * it can be kept on the host instead */
  if (tl_host__reads_state(e, read, 0)) return false;
  TSNode asg;
  int k;
  if (tl_host__sizes_directly(e, read, &asg, &k)) return true;
  if (ts_node_is_null(asg)) return false;
  char *names[TL_SIZE_NAMES + 1] = {0};
  size_t n = 0;
  if (!(names[n] = tl_host__bound_name(e, asg, k))) return false;
  n++;
  bool sized = false;
  int window = TL_NEXT_STATEMENTS; /* "the next operation": a window, so a long block costs no square */
  for (TSNode s = tl_host__next_statement(ts_node_parent(asg)); !ts_node_is_null(s) && !sized && window-- > 0;
       s = tl_host__next_statement(s)) {
    sized = tl_host__size_use(e, s, (const char *const *)names, 0);
    /* `t = np.max(lengths)`: t is a size computed from the value as well */
    TSNode a = tl_node_is(s, "expression_statement") ? ts_node_named_child(s, 0) : (TSNode){0};
    if (sized || n == TL_SIZE_NAMES || !tl_node_is(a, "assignment") ||
        !tl_host__sized_by(e, TL_CHILD(a, right), (const char *const *)names, 0))
      continue;
    char *d = tl_host__bound_name(e, a, -1);
    if (d && !tl_str_in(d, strlen(d), (const char *const *)names)) names[n++] = d;
    else free(d);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  return sized;
}

/* #host-needs! @finding: a directive (always holds). When the value read on the host goes straight
 * to a host-only library (`linear_sum_assignment(c.cpu().numpy())`, `random.sample(r, int(n))`),
 * directly or through the name it is bound to, the host needs it and no device-side form exists:
 * the finding is info. So it is when the value sizes what the next operation makes
 * (`torch.arange(max_len)` after `max_len = int(lengths.max())`): a data-dependent size must be
 * on the host. */
static tl_verdict tl_host__host_needs(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  bool needs = false;
  for (TSNode up = ts_node_parent(a); !ts_node_is_null(up) && !needs; up = ts_node_parent(up)) {
    if (tl_node_is(up, "block") || tl_node_is(up, "expression_statement") || tl_node_is(up, "return_statement") ||
        tl_node_is(up, "lambda"))
      break;
    needs = tl_host__host_lib_call(e, up);
    if (!needs && tl_node_is(up, "assignment")) {
      /* `C = c.cpu().numpy()`, then a host library reads C in the statements after */
      TSNode left = TL_CHILD(up, left), stmt = ts_node_parent(up);
      if (!tl_node_is(left, "identifier") || !tl_node_is(stmt, "expression_statement")) break;
      char *var = tl_node_text(left, e->src);
      int window = TL_NEXT_STATEMENTS;
      for (TSNode s = ts_node_next_named_sibling(stmt); !ts_node_is_null(s) && !needs && window-- > 0;
           s = ts_node_next_named_sibling(s))
        needs = tl_host__host_use(e, s, var, 0);
      free(var);
      break;
    }
  }
  if (!needs) needs = tl_host__sizes_next(e, a);
  if (needs) {
    e->severity = TL_SEVERITY_INFO;
    e->vsev = TL_SEVERITY_INFO;
  }
  return TL_PRED_VACUOUS;
}

/* ---- a value read again ---- */

/* Does the expression hold no call at all (a name, an attribute, a subscript by constants)? */
static bool tl_host__no_call(TSNode n, int depth) {
  if (ts_node_is_null(n) || depth > 16 || tl_node_is(n, "call")) return ts_node_is_null(n);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (!tl_host__no_call(ts_node_named_child(n, i), depth + 1)) return false;
  return true;
}

/* Do the calls of n that start before byte `before` launch no device work: Python's builtins on
 * numbers and text, host reads, string formatting, logging and progress bars? */
static bool tl_host__quiet(const tl_match_env *e, TSNode n, uint32_t before, int depth) {
  if (ts_node_is_null(n) || ts_node_start_byte(n) >= before) return true;
  if (depth > 24) return false;
  if (tl_node_is(n, "call")) {
    static const char *const builtins[] = {"print", "float", "int", "bool", "round",  "str", "len",
                                           "min",   "max",   "abs", "repr", "format", NULL};
    static const char *const methods[] = {
        "item",  "tolist",  "numpy", "cpu",         "detach",          "format",          "append", "info",
        "debug", "warning", "write", "set_postfix", "set_postfix_str", "set_description", NULL};
    TSNode fn = TL_CHILD(n, function), name = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : fn;
    uint32_t s = ts_node_start_byte(name), len = ts_node_end_byte(name) - s;
    if (!tl_node_is(name, "identifier") ||
        !tl_str_in(e->src + s, len, tl_node_is(fn, "attribute") ? methods : builtins))
      return false;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (!tl_host__quiet(e, ts_node_named_child(n, i), before, depth + 1)) return false;
  return true;
}

/* Is the call a host read of a value (`x.item()`, `.tolist()`, `.numpy()`, `.cpu()`, `float(x)`,
 * `int(x)`, `bool(x)`)? Sets *value to what it reads. */
static bool tl_host__host_read(const tl_match_env *e, TSNode call, TSNode *value) {
  static const char *const methods[] = {"item", "tolist", "numpy", "cpu", NULL};
  static const char *const casts[] = {"float", "int", "bool", NULL};
  TSNode fn = TL_CHILD(call, function), args = TL_CHILD(call, arguments);
  bool method = tl_node_is(fn, "attribute");
  TSNode name = method ? TL_CHILD(fn, attribute) : fn;
  uint32_t s = ts_node_start_byte(name);
  if (!tl_node_is(call, "call") || !tl_node_is(name, "identifier") ||
      !tl_str_in(e->src + s, ts_node_end_byte(name) - s, method ? methods : casts) ||
      (!method && ts_node_named_child_count(args) != 1))
    return false;
  *value = method ? TL_CHILD(fn, object) : ts_node_named_child(args, 0);
  return true;
}

/* Is the call a read of one number (`x.item()`, `float(x)`, `int(x)`, `bool(x)`)? */
static bool tl_host__scalar_read(const tl_match_env *e, TSNode call) {
  TSNode fn = TL_CHILD(call, function);
  TSNode name = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : fn;
  return tl_node_text_eq(name, e->src, "item") || tl_node_text_eq(name, e->src, "float") ||
         tl_node_text_eq(name, e->src, "int") || tl_node_text_eq(name, e->src, "bool");
}

/* Does the subtree n hold, before byte `before`, the same read as `read` (of `value`): the same
 * text, or, for a read of one number, another read of one number of the same value (`float(loss)`
 * after `loss.item()`)? Comprehensions and lambdas are not entered: their names are their own
 * (`[loss.item() for loss in losses]`). */
static bool tl_host__holds(const tl_match_env *e, TSNode n, uint32_t before, TSNode read, TSNode value, int depth) {
  if (ts_node_is_null(n) || ts_node_start_byte(n) >= before || depth > 32 || tl_node_is(n, "lambda") ||
      tl_node_is(n, "list_comprehension") || tl_node_is(n, "generator_expression") ||
      tl_node_is(n, "set_comprehension") || tl_node_is(n, "dictionary_comprehension"))
    return false;
  uint32_t s = ts_node_start_byte(n), rs = ts_node_start_byte(read), len = ts_node_end_byte(read) - rs;
  TSNode v;
  if (tl_node_is(n, "call") && ts_node_end_byte(n) <= before) {
    if (ts_node_end_byte(n) - s == len && !memcmp(e->src + s, e->src + rs, len)) return true;
    uint32_t vs = ts_node_start_byte(value), vl = ts_node_end_byte(value) - vs;
    if (tl_host__scalar_read(e, read) && tl_host__host_read(e, n, &v) && tl_host__scalar_read(e, n) &&
        ts_node_end_byte(v) - ts_node_start_byte(v) == vl && !memcmp(e->src + ts_node_start_byte(v), e->src + vs, vl))
      return true;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_host__holds(e, ts_node_named_child(n, i), before, read, value, depth + 1)) return true;
  return false;
}

#define TL_REREAD_STATEMENTS 4 /* how far back a first read of the same value is looked for */

/* Is one of the targets in `left` (`acc`, `a, acc`, `(acc, b)`) `value`'s text, or the object it is
 * read from (`res` for `res.loss`, `out` for `out[0]`)? */
static bool tl_host__target_is(const tl_match_env *e, TSNode left, TSNode value, int depth) {
  if (ts_node_is_null(left) || depth > 8) return false;
  if (tl_node_is(left, "pattern_list") || tl_node_is(left, "tuple_pattern") || tl_node_is(left, "list_pattern") ||
      tl_node_is(left, "parenthesized_expression") || tl_node_is(left, "list_splat_pattern")) {
    for (uint32_t i = 0; i < ts_node_named_child_count(left); i++)
      if (tl_host__target_is(e, ts_node_named_child(left, i), value, depth + 1)) return true;
    return false;
  }
  uint32_t ls = ts_node_start_byte(left), ll = ts_node_end_byte(left) - ls, vs = ts_node_start_byte(value),
           vl = ts_node_end_byte(value) - vs;
  return ll <= vl && !memcmp(e->src + ls, e->src + vs, ll) &&
         (ll == vl || e->src[vs + ll] == '.' || e->src[vs + ll] == '[');
}

/* Does the expression statement `stmt` bind `value`, or the object it is read from, again (`acc =
 * ...`, `acc += ...`, `a, acc = ...`, `last = acc = ...`, `res = ...` for `res.loss`)? */
static bool tl_host__binds(const tl_match_env *e, TSNode stmt, TSNode value) {
  TSNode x = ts_node_named_child(stmt, 0);
  for (int chain = 0; chain < 8 && (tl_node_is(x, "assignment") || tl_node_is(x, "augmented_assignment")); chain++) {
    if (tl_host__target_is(e, TL_CHILD(x, left), value, 0)) return true;
    x = TL_CHILD(x, right); /* `last = acc = old`: the assignment on the right binds too */
  }
  return false;
}

/* Is the host read `a` a read of a value read just before (#reread!)? */
static bool tl_host__is_reread(const tl_match_env *e, TSNode a) {
  TSNode value;
  uint32_t as = ts_node_start_byte(a), ae = ts_node_end_byte(a);
  if (!tl_host__host_read(e, a, &value) || !tl_host__no_call(value, 0) || ae - as > 200) return false;
  TSNode stmt = a;
  for (TSNode up = ts_node_parent(a); !ts_node_is_null(up) && !tl_node_is(up, "block") && !tl_node_is(up, "module");
       up = ts_node_parent(up))
    stmt = up;
  if (stmt.id == a.id || !tl_host__quiet(e, stmt, as, 0)) return false;
  if (tl_host__holds(e, stmt, as, a, value, 0)) return true;
  /* the statements before, while they launch nothing and do not bind the value again (`msg += "%.4f"
   * % float(acc)`, `log.info(msg)`, then `history.append(float(acc))`) */
  TSNode prev = stmt;
  for (int back = 0; back < TL_REREAD_STATEMENTS; back++) {
    prev = tl_prev_code_sibling(prev);
    if (ts_node_is_null(prev) || !tl_node_is(prev, "expression_statement") || !tl_host__quiet(e, prev, UINT32_MAX, 0) ||
        tl_host__binds(e, prev, value))
      return false;
    if (tl_host__holds(e, prev, UINT32_MAX, a, value, 0)) return true;
  }
  return false;
}

/* Are the device values that n hands on all host reads of values read just before: at least one
 * such read, and no other tensor (a name, an attribute) or call outside them? */
static bool tl_host__rereads_only(const tl_match_env *e, TSNode n, int depth, int *reads) {
  if (ts_node_is_null(n) || depth > 24) return ts_node_is_null(n);
  TSNode value;
  if (tl_node_is(n, "call")) { /* a host read of a value read before; any other call may make a tensor */
    if (!tl_host__host_read(e, n, &value) || !tl_host__is_reread(e, n)) return false;
    (*reads)++;
    return true;
  }
  if ((tl_node_is(n, "identifier") || tl_node_is(n, "attribute") || tl_node_is(n, "subscript")) &&
      tl_preds_is_tensor(e, n))
    return false;
  if (tl_node_is(n, "attribute")) return true; /* `self.x` that is no tensor: its parts are no values */
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (!tl_host__rereads_only(e, ts_node_named_child(n, i), depth + 1, reads)) return false;
  return true;
}

/* #reread! @finding: a directive (always holds). A host read (`loss.item()`, `float(loss)`) of a
 * value read just before in the same words (earlier in its statement, or in one of the 4 statements
 * before, the value being a name or an attribute, not a computation, and not bound again between
 * them) with nothing between the two that
 * launches device work (only Python's builtins, host reads, formatting, logging) waits for nothing
 * new: the first read drained the queue. The finding is info (its fix: reuse the first read). On a
 * call that hands values on (a logging call), the same when every device value it hands on is
 * such a read. */
static tl_verdict tl_host__reread(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  TSNode value;
  int reads = 0;
  bool again = tl_host__host_read(e, a, &value)
                   ? tl_host__is_reread(e, a)
                   : tl_node_is(a, "call") && tl_host__rereads_only(e, TL_CHILD(a, arguments), 0, &reads) && reads;
  if (again) {
    e->severity = TL_SEVERITY_INFO;
    e->vsev = TL_SEVERITY_INFO;
  }
  return TL_PRED_VACUOUS;
}

/* Is n a Python list: a list literal or comprehension, `list(...)`/`sorted(...)`, a name tested
 * with `isinstance(name, list)` by an `if`/`elif` around it, or a name the function (not the
 * module body: another top-level statement) last bound to one before n? */
static bool tl_host__is_list(const tl_match_env *e, TSNode n, int depth) {
  n = tl_unparen(n);
  if (ts_node_is_null(n) || depth > 3) return false;
  if (tl_node_is(n, "list") || tl_node_is(n, "list_comprehension")) return true;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    return tl_node_text_eq(fn, e->src, "list") || tl_node_text_eq(fn, e->src, "sorted");
  }
  if (!tl_node_is(n, "identifier") || e->func <= 0) return false;
  char *name = tl_node_text(n, e->src);
  /* under `if isinstance(x, list):` (or `elif`), in its block */
  TSNode child = n;
  for (TSNode up = ts_node_parent(n); !ts_node_is_null(up) && !tl_is_scope(up); child = up, up = ts_node_parent(up)) {
    if (!tl_node_is(up, "if_statement") && !tl_node_is(up, "elif_clause")) continue;
    TSNode cond = TL_CHILD(up, condition);
    if (ts_node_is_null(cond) || ts_node_eq(cond, child)) continue;
    uint32_t cs = ts_node_start_byte(cond), ce = ts_node_end_byte(cond);
    char *want = tl_printf("isinstance(%s, list)", name);
    bool guarded = ce - cs >= strlen(want) && memmem(e->src + cs, ce - cs, want, strlen(want)) != NULL;
    free(want);
    if (guarded && !tl_node_is(child, "else_clause") && !tl_node_is(child, "elif_clause")) {
      free(name);
      return true;
    }
  }
  uint32_t before = ts_node_start_byte(n);
  TSNode v = {0};
  for (int hop = 0; hop < 4; hop++) {
    const tl_binding *b = tl_model_binding(e->m, name, e->func, before);
    v = b ? tl_model_binding_value(e->m, name, e->func, b->byte) : (TSNode){0};
    /* `x = torch.LongTensor(x)` in another branch (or before): converts the name, the list stays */
    TSNode call = tl_unparen(v), args = tl_node_is(call, "call") ? TL_CHILD(call, arguments) : (TSNode){0};
    TSNode first = ts_node_is_null(args) || !ts_node_named_child_count(args) ? (TSNode){0}
                                                                             : ts_node_named_child(args, 0);
    char *dotted = ts_node_is_null(first) ? NULL : tl_dotted(TL_CHILD(call, function), e->src);
    char *callee = dotted ? tl_model_resolve(e->m, dotted) : NULL; /* through `import torch as th` */
    bool self_conversion = callee && !strncmp(callee, "torch.", 6) && tl_node_text_eq(first, e->src, name) &&
                           (!strcmp(callee + 6, "tensor") || strstr(callee + 6, "Tensor"));
    free(callee);
    free(dotted);
    if (!b || !self_conversion || b->byte == 0) break;
    before = b->byte - 1;
  }
  free(name);
  return tl_host__is_list(e, v, depth + 1);
}

/* #python-list? @a: a Python list (tl_host__is_list) */
static tl_verdict tl_host__python_list(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_host__is_list(e, a, 0));
}

/* name, captures, strings, regex, gate, flags, function, project function, prepare */
const tl_pred_def tl_preds_host[] = {
    {"host-needs!", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_host__host_needs, NULL, NULL},
    {"reread!", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_host__reread, NULL, NULL},
    {"python-list?", 1, 0, -1, TL_GATE_NONE, 0, tl_host__python_list, NULL, NULL},
    {NULL, 0, 0, -1, TL_GATE_NONE, 0, NULL, NULL, NULL},
};
