/* tl_preds.c - engine predicates that look at the syntax around a match and at the file model:
 * enclosing flag tests, enclosing node types, the statement run next, where a value comes from,
 * boolean masks, assignment targets, autograd graphs and accumulators that outlive a step. */
#include "tl_internal.h"
#include "tl_vocab.h"

#include <ctype.h>
#include <string.h>

#define TL_PRED_MAX_DEPTH 24

static bool tl_re(const tl_pred_ctx *c, const pcre2_code *re, const char *s, size_t n) {
  return tl_regex_match(re, s, n, 0, c->md, c->mctx) >= 0;
}

/* ---- #in-if? ---- */

static bool tl_names_match(const tl_pred_ctx *c, TSNode n, const pcre2_code *re, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "identifier")) {
    uint32_t s = ts_node_start_byte(n);
    return tl_re(c, re, c->src + s, ts_node_end_byte(n) - s);
  }
  if (tl_node_is(n, "not_operator") || tl_node_is(n, "lambda")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_names_match(c, ts_node_named_child(n, i), re, depth + 1)) return true;
  return false;
}

/* Is the condition true only when a flag named like `re` is set (positive) / unset (negative)? */
static bool tl_cond_flag(const tl_pred_ctx *c, TSNode cond, const pcre2_code *re, bool positive, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(cond)) return false;
  cond = tl_unparen(cond);
  if (tl_node_is(cond, "not_operator"))
    return tl_cond_flag(c, TL_CHILD(cond, argument), re, !positive, depth + 1);
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    bool is_and = !ts_node_is_null(op) && !strncmp(c->src + ts_node_start_byte(op), "and", 3);
    /* `flag and x` needs the flag; so does `not (not flag or x)` */
    if (is_and != positive) return false;
    return tl_cond_flag(c, TL_CHILD(cond, left), re, positive, depth + 1) ||
           tl_cond_flag(c, TL_CHILD(cond, right), re, positive, depth + 1);
  }
  if (!positive) return false;
  if (tl_node_is(cond, "identifier")) return tl_names_match(c, cond, re, depth);
  if (tl_node_is(cond, "attribute"))
    return tl_names_match(c, TL_CHILD(cond, attribute), re, depth);
  /* is_debug(), logger.isEnabledFor(logging.DEBUG), cfg.debug_level > 0 */
  if (tl_node_is(cond, "call") || tl_node_is(cond, "comparison_operator") || tl_node_is(cond, "subscript"))
    return tl_names_match(c, cond, re, depth);
  return false;
}

bool tl_pred_in_if(const tl_pred_ctx *c, TSNode n, const pcre2_code *re) {
  TSNode child = n;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p); child = p, p = tl_up_next(&up)) {
    if (tl_node_is(p, "if_statement") || tl_node_is(p, "elif_clause")) {
      TSNode body = TL_CHILD(p, consequence);
      if (ts_node_eq(body, child) &&
          tl_cond_flag(c, TL_CHILD(p, condition), re, true, 0))
        return true;
    } else if (tl_node_is(p, "else_clause")) {
      /* `if not debug: ... else: <here>` */
      TSNode owner = ts_node_parent(p);
      if (tl_node_is(owner, "if_statement") &&
          tl_cond_flag(c, TL_CHILD(owner, condition), re, false, 0))
        return true;
    }
  }
  return false;
}

/* ---- #inside? ---- */

bool tl_pred_inside(TSNode n, char *const *types, size_t ntypes) {
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p); p = tl_up_next(&up))
    for (size_t i = 0; i < ntypes; i++)
      if (!strcmp(ts_node_type(p), types[i])) return true;
  return false;
}

/* ---- #in-block?, #branch-condition-match?, #branch-block-match? ----
 * They look up from a statement at its block and the block's owner, so a rule can match the
 * statement alone (a small pattern, cheap to run) instead of a block with alternatives. */

bool tl_pred_in_block(TSNode n, char *const *fields, size_t nfields) {
  TSNode block = ts_node_parent(n);
  if (ts_node_is_null(block) || !tl_node_is(block, "block")) return false;
  TSNode owner = ts_node_parent(block);
  if (ts_node_is_null(owner)) return false;
  for (size_t i = 0; i < nfields; i++) {
    TSNode f = ts_node_child_by_field_name(owner, fields[i], (uint32_t)strlen(fields[i]));
    if (!ts_node_is_null(f) && ts_node_eq(f, block)) return true;
  }
  return false;
}

TSNode tl_pred_branch_owner(TSNode n, TSNode *block) {
  *block = ts_node_parent(n);
  if (ts_node_is_null(*block) || !tl_node_is(*block, "block")) return (TSNode){0};
  TSNode owner = ts_node_parent(*block);
  if (ts_node_is_null(owner) || !(tl_node_is(owner, "if_statement") || tl_node_is(owner, "elif_clause")))
    return (TSNode){0};
  TSNode cons = TL_CHILD(owner, consequence);
  return !ts_node_is_null(cons) && ts_node_eq(cons, *block) ? owner : (TSNode){0};
}

/* ---- #next-statement-match? ---- */

static TSNode tl_next_named_non_comment(TSNode n) {
  TSNode s = ts_node_next_named_sibling(n);
  while (!ts_node_is_null(s) && tl_node_is(s, "comment")) s = ts_node_next_named_sibling(s);
  return s;
}

static TSNode tl_first_statement(TSNode block) {
  for (uint32_t i = 0; i < ts_node_named_child_count(block); i++) {
    TSNode s = ts_node_named_child(block, i);
    if (!tl_node_is(s, "comment")) return s;
  }
  return (TSNode){0};
}

/* The statement that runs after the one holding n: its next sibling; at the end of a block of a
 * `with`/`if`/`try`, the statement after that compound statement; at the end of a loop body,
 * the first statement of the body (the next iteration). */
bool tl_pred_next_statement(const tl_pred_ctx *c, TSNode n, const pcre2_code *re) {
  TSNode s = n;
  TSNode p = ts_node_parent(s);
  while (!ts_node_is_null(p) && !tl_node_is(p, "block") && !tl_node_is(p, "module")) {
    if (tl_is_scope(p)) return false;
    s = p;
    p = ts_node_parent(s);
  }
  if (ts_node_is_null(p)) return false;
  for (int guard = 0; guard < 16; guard++) {
    TSNode next = tl_next_named_non_comment(s);
    if (ts_node_is_null(next)) {
      TSNode block = ts_node_parent(s);
      TSNode owner = tl_node_is(block, "block") ? ts_node_parent(block) : (TSNode){0};
      if (tl_node_is(owner, "for_statement") || tl_node_is(owner, "while_statement")) {
        next = tl_first_statement(block);
        if (ts_node_eq(next, s)) return false;
      } else if (tl_node_is(owner, "with_statement") || tl_node_is(owner, "if_statement") ||
                 tl_node_is(owner, "try_statement")) {
        s = owner;
        continue;
      } else if (tl_node_is(owner, "else_clause") || tl_node_is(owner, "elif_clause") ||
                 tl_node_is(owner, "except_clause") || tl_node_is(owner, "finally_clause")) {
        s = ts_node_parent(owner);
        if (ts_node_is_null(s)) return false;
        continue;
      } else {
        return false;
      }
    }
    if (ts_node_is_null(next)) return false;
    /* the statement's first line: a compound statement's header, not its whole body */
    uint32_t a = ts_node_start_byte(next), b = ts_node_end_byte(next), e = a;
    while (e < b && c->src[e] != '\n') e++;
    return tl_re(c, re, c->src + a, e - a);
  }
  return false;
}

/* ---- #value-from? ---- */

static bool tl_callee_matches(const tl_pred_ctx *c, const char *callee, const pcre2_code *re) {
  if (!callee) return false;
  char *q = tl_model_resolve(c->m, callee);
  bool r = tl_re(c, re, q, strlen(q));
  free(q);
  return r;
}

bool tl_pred_value_from(const tl_pred_ctx *c, TSNode n, const pcre2_code *re) {
  n = tl_unparen(n);
  if (tl_node_is(n, "call")) {
    char *callee = tl_dotted(TL_CHILD(n, function), c->src);
    bool r = tl_callee_matches(c, callee, re);
    free(callee);
    return r;
  }
  if (!tl_node_is(n, "identifier") && !tl_node_is(n, "attribute")) return false;
  char *d = tl_dotted(n, c->src);
  if (!d) return false;
  const tl_binding *b = tl_model_binding(c->m, d, c->func, ts_node_start_byte(n));
  bool r = false;
  if (b) {
    r = tl_callee_matches(c, b->ctor, re);
  } else if (!strncmp(d, "self.", 5) && !strchr(d + 5, '.') && c->func >= 0 && (size_t)c->func < c->m->funcs.n) {
    /* an attribute set in any method of the class: self.stream = torch.cuda.Stream() */
    int32_t cls = c->m->funcs.v[c->func].cls;
    const tl_class *k = cls >= 0 ? &c->m->classes.v[cls] : NULL;
    for (size_t i = 0; k && i < k->attrs.n && !r; i++)
      if (!strcmp(k->attrs.v[i].name, d + 5)) r = tl_callee_matches(c, k->attrs.v[i].ctor, re);
  }
  free(d);
  return r;
}

/* ---- #bool-mask? ---- */

static bool tl_bool_mask(const tl_pred_ctx *c, TSNode n, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n)) return false;
  n = tl_unparen(n);
  const char *src = c->src;
  if (tl_node_is(n, "comparison_operator")) {
    /* `in`, `not in`, `is`, `is not` give Python booleans; `<`, `==`, ... of a tensor give a mask */
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
      TSNode ch = ts_node_child(n, i);
      if (ts_node_is_named(ch)) continue;
      const char *t = ts_node_type(ch);
      if (!strcmp(t, "in") || !strcmp(t, "is") || !strcmp(t, "not") || !strcmp(t, "not in") || !strcmp(t, "is not"))
        return false;
    }
    /* all operands Python values: a Python bool */
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      tl_valkind k = tl_model_classify(c->m, ts_node_named_child(n, i), src, c->func, 0);
      if (k != TL_VAL_PY && k != TL_VAL_LIST) return true;
    }
    return false;
  }
  if (tl_node_is(n, "unary_operator")) {
    TSNode op = TL_CHILD(n, operator);
    return !ts_node_is_null(op) && src[ts_node_start_byte(op)] == '~' &&
           tl_bool_mask(c, TL_CHILD(n, argument), depth + 1);
  }
  if (tl_node_is(n, "binary_operator")) {
    TSNode op = TL_CHILD(n, operator);
    if (ts_node_is_null(op) || ts_node_end_byte(op) - ts_node_start_byte(op) != 1) return false;
    char o = src[ts_node_start_byte(op)];
    if (o != '&' && o != '|' && o != '^') return false;
    return tl_bool_mask(c, TL_CHILD(n, left), depth + 1) ||
           tl_bool_mask(c, TL_CHILD(n, right), depth + 1);
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    TSNode name = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : fn;
    if (!tl_node_is(name, "identifier")) return false;
    uint32_t s = ts_node_start_byte(name), l = ts_node_end_byte(name) - s;
    char *callee = tl_dotted(fn, src);
    char *q = callee ? tl_model_resolve(c->m, callee) : NULL;
    bool lib = q && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
    bool np = q && (!strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3));
    free(q);
    free(callee);
    if (np) return false;
    /* a reshaped or copied mask is still a mask: m.unsqueeze(-1), m.expand_as(x), m.view(-1) */
    if (tl_node_is(fn, "attribute") && tl_str_in(src + s, l, tl_vocab_dtype_keeping_methods))
      return tl_bool_mask(c, TL_CHILD(fn, object), depth + 1);
    if (tl_str_in(src + s, l, tl_vocab_mask_methods)) {
      /* torch.isnan(x) / x.isnan(): a tensor unless x is a host value */
      TSNode subj = lib ? (ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : (TSNode){0})
                        : TL_CHILD(fn, object);
      if (ts_node_is_null(subj)) return false;
      tl_valkind k = tl_model_classify(c->m, subj, src, c->func, 0);
      return k != TL_VAL_PY && k != TL_VAL_LIST;
    }
    /* x.to(torch.bool), x.type(torch.bool), torch.ones(n, dtype=torch.bool) */
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
      TSNode a = ts_node_named_child(args, i);
      if (tl_node_is(a, "keyword_argument")) {
        TSNode k = TL_CHILD(a, name);
        if (!tl_node_text_eq(k, src, "dtype")) continue;
        a = TL_CHILD(a, value);
      } else if (!(l == 2 && !memcmp(src + s, "to", 2)) && !(l == 4 && !memcmp(src + s, "type", 4))) {
        continue;
      }
      if (tl_node_text_eq(a, src, "torch.bool") || tl_node_text_eq(a, src, "paddle.bool") || tl_node_text_eq(a, src, "\"bool\"") ||
          tl_node_text_eq(a, src, "'bool'"))
        return lib || tl_node_is(fn, "attribute");
    }
    return false;
  }
  if (tl_node_is(n, "subscript")) /* a row of a mask: mask[i] */
    return tl_bool_mask(c, TL_CHILD(n, value), depth + 1);
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) {
    char *d = tl_dotted(n, src);
    const tl_binding *b = d ? tl_model_binding(c->m, d, c->func, ts_node_start_byte(n)) : NULL;
    free(d);
    TSNode bv = b ? tl_bvalue(c->m, b) : (TSNode){0};
    return !ts_node_is_null(bv) && tl_bool_mask(c, bv, depth + 1);
  }
  return false;
}

bool tl_pred_bool_mask(const tl_pred_ctx *c, TSNode n) { return tl_bool_mask(c, n, 0); }

/* ---- #assignment-target? ---- */

bool tl_pred_assignment_target(TSNode n) {
  TSNode child = n;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p); child = p, p = tl_up_next(&up)) {
    if (tl_node_is(p, "pattern_list") || tl_node_is(p, "tuple_pattern") || tl_node_is(p, "list_pattern") ||
        tl_node_is(p, "parenthesized_expression") || tl_node_is(p, "tuple") || tl_node_is(p, "list"))
      continue;
    if (tl_node_is(p, "assignment")) return ts_node_eq(TL_CHILD(p, left), child);
    return false;
  }
  return false;
}

/* ---- #keeps-graph? ---- */

static bool tl_is_no_grad_call(const tl_pred_ctx *c, TSNode n) {
  TSNode fn = tl_node_is(n, "call") ? TL_CHILD(n, function) : n;
  char *d = tl_dotted(fn, c->src);
  if (!d) return false;
  char *q = tl_model_resolve(c->m, d);
  bool r = tl_str_in(q, strlen(q), tl_vocab_no_grad_calls);
  if (!r && !strcmp(q, "torch.set_grad_enabled") && tl_node_is(n, "call")) {
    TSNode args = TL_CHILD(n, arguments);
    r = ts_node_named_child_count(args) == 1 && tl_node_text_eq(ts_node_named_child(args, 0), c->src, "False");
  }
  free(q);
  free(d);
  return r;
}

/* Inside `with torch.no_grad():` or a function decorated with `@torch.no_grad()` (or the like)? */
static bool tl_in_no_grad(const tl_pred_ctx *c, TSNode n) {
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p); p = tl_up_next(&up)) {
    if (tl_node_is(p, "with_statement")) {
      for (uint32_t i = 0; i < ts_node_named_child_count(p); i++) {
        TSNode clause = ts_node_named_child(p, i);
        if (!tl_node_is(clause, "with_clause")) continue;
        for (uint32_t j = 0; j < ts_node_named_child_count(clause); j++) {
          TSNode item = ts_node_named_child(clause, j);
          TSNode v = tl_node_is(item, "with_item") ? TL_CHILD(item, value) : item;
          if (tl_is_no_grad_call(c, v)) return true;
        }
      }
    } else if (tl_node_is(p, "function_definition")) {
      TSNode dd = tl_up_next(&up); /* the loop ends in this branch */
      for (uint32_t i = 0; tl_node_is(dd, "decorated_definition") && i < ts_node_named_child_count(dd); i++) {
        TSNode dec = ts_node_named_child(dd, i);
        if (tl_node_is(dec, "decorator") && ts_node_named_child_count(dec) &&
            tl_is_no_grad_call(c, ts_node_named_child(dec, 0)))
          return true;
      }
      /* Lightning runs these hooks of a LightningModule with gradients disabled */
      TSNode name = TL_CHILD(p, name);
      if (tl_node_text_eq(name, c->src, "validation_step") || tl_node_text_eq(name, c->src, "test_step") ||
          tl_node_text_eq(name, c->src, "predict_step")) {
        for (TSNode k = dd; !ts_node_is_null(k); k = tl_up_next(&up))
          if (tl_node_is(k, "class_definition")) {
            TSNode sup = TL_CHILD(k, superclasses);
            uint32_t a = ts_node_is_null(sup) ? 0 : ts_node_start_byte(sup);
            return !ts_node_is_null(sup) && tl_icontains(c->src + a, ts_node_end_byte(sup) - a, "lightning");
          }
      }
      return false;
    } else if (tl_node_is(p, "lambda") || tl_node_is(p, "class_definition")) {
      return false;
    }
  }
  return false;
}

/* The right side of the tuple assignment that bound a name without a value of its own
 * (`logits, loss = model(x)`), found from the binding's end byte. */
static TSNode tl_tuple_rhs(TSNode anchor, uint32_t end) {
  if (end == 0) return (TSNode){0};
  TSNode root = ts_tree_root_node(anchor.tree);
  TSNode n = ts_node_descendant_for_byte_range(root, end - 1, end);
  tl_up up;
  tl_up_init(&up, n);
  for (; !ts_node_is_null(n); n = tl_up_next(&up)) {
    if (tl_node_is(n, "assignment") && ts_node_end_byte(n) == end) return TL_CHILD(n, right);
    if (ts_node_end_byte(n) > end || tl_is_scope(n)) break;
  }
  return (TSNode){0};
}

static bool tl_keeps_graph(const tl_pred_ctx *c, TSNode n, int depth);

/* A call of a model object (`model(x)`, `self.encoder(h)`), not of a function or method that
 * merely has a model-like name (`get_module(...)`, `self.op_generator(...)` defined in the class). */
static bool tl_is_model_call(const tl_pred_ctx *c, const char *callee) {
  if (!(tl_model_call_work(callee) & TL_WORK_MODEL)) return false;
  const tl_file_model *m = c->m;
  if (!strchr(callee, '.')) {
    intptr_t v;
    if (tl_map_get(&m->imports, callee, &v)) return false; /* an imported function or class */
    for (size_t i = 1; i < m->funcs.n; i++)
      if (m->funcs.v[i].cls < 0 && !strcmp(m->funcs.v[i].name, callee)) return false;
    return true;
  }
  if (!strncmp(callee, "self.", 5) && !strchr(callee + 5, '.') && c->func >= 0 && (size_t)c->func < m->funcs.n) {
    int32_t cls = m->funcs.v[c->func].cls;
    for (size_t i = 1; cls >= 0 && i < m->funcs.n; i++)
      if (m->funcs.v[i].cls == cls && !strcmp(m->funcs.v[i].name, callee + 5)) return false; /* a method */
  }
  return true;
}

/* Is the expression known to have no graph: `x.detach()`, or a name bound under no_grad or to a
 * detached value? (For a criterion's prediction argument: `criterion(out, y)` with `out`
 * computed under `torch.no_grad()` has no graph either.) */
static bool tl_graph_cut(const tl_pred_ctx *c, TSNode n, int depth) {
  if (depth > 8 || ts_node_is_null(n)) return false;
  n = tl_unparen(n);
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode attr = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : (TSNode){0};
    return tl_node_text_eq(attr, c->src, "detach") || tl_node_text_eq(attr, c->src, "item");
  }
  if (!tl_node_is(n, "identifier") && !tl_node_is(n, "attribute")) return false;
  char *d = tl_dotted(n, c->src);
  const tl_binding *b = d ? tl_model_binding(c->m, d, c->func, ts_node_start_byte(n)) : NULL;
  free(d);
  TSNode bv = b ? tl_bvalue(c->m, b) : (TSNode){0};
  if (ts_node_is_null(bv)) return false;
  return tl_in_no_grad(c, bv) || tl_graph_cut(c, bv, depth + 1);
}

static bool tl_first_arg_cut(const tl_pred_ctx *c, TSNode args) {
  for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (tl_node_is(a, "keyword_argument") || tl_node_is(a, "comment")) continue;
    return tl_graph_cut(c, a, 0);
  }
  return false;
}

static bool tl_name_keeps_graph(const tl_pred_ctx *c, TSNode n, int depth) {
  char *d = tl_dotted(n, c->src);
  if (!d) return false;
  const tl_binding *b = tl_model_binding(c->m, d, c->func, ts_node_start_byte(n));
  free(d);
  if (b) {
    TSNode v = tl_bvalue(c->m, b);
    if (ts_node_is_null(v)) {
      if (b->from_loop >= 0) return false; /* a loop variable: data, not a result */
      v = tl_tuple_rhs(n, b->byte);
    }
    if (ts_node_is_null(v) || tl_in_no_grad(c, v)) return false;
    return tl_keeps_graph(c, v, depth + 1);
  }
  if (tl_node_is(n, "attribute")) {
    /* outputs.loss of `outputs = model(x)`; x.data, x.shape have no graph */
    TSNode attr = TL_CHILD(n, attribute);
    uint32_t s = ts_node_start_byte(attr);
    if (tl_str_in(c->src + s, ts_node_end_byte(attr) - s, tl_vocab_graphless_attrs)) return false;
    return tl_keeps_graph(c, TL_CHILD(n, object), depth + 1);
  }
  return false;
}

static bool tl_keeps_graph(const tl_pred_ctx *c, TSNode n, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n)) return false;
  n = tl_unparen(n);
  const char *src = c->src;
  const char *t = ts_node_type(n);
  if (!strcmp(t, "identifier") || !strcmp(t, "attribute")) return tl_name_keeps_graph(c, n, depth);
  if (!strcmp(t, "subscript")) return tl_keeps_graph(c, TL_CHILD(n, value), depth + 1);
  if (!strcmp(t, "unary_operator")) return tl_keeps_graph(c, TL_CHILD(n, argument), depth + 1);
  if (!strcmp(t, "conditional_expression"))
    return tl_keeps_graph(c, ts_node_named_child(n, 0), depth + 1) || tl_keeps_graph(c, ts_node_named_child(n, 2), depth + 1);
  if (!strcmp(t, "binary_operator")) {
    TSNode left = TL_CHILD(n, left);
    if (tl_node_is(left, "string") || tl_node_is(left, "concatenated_string")) return false;
    return tl_keeps_graph(c, left, depth + 1) || tl_keeps_graph(c, TL_CHILD(n, right), depth + 1);
  }
  if (strcmp(t, "call")) return false; /* comparisons, literals, containers, ... */
  TSNode fn = TL_CHILD(n, function);
  TSNode args = TL_CHILD(n, arguments);
  if (tl_node_is(fn, "identifier")) {
    uint32_t s = ts_node_start_byte(fn), l = ts_node_end_byte(fn) - s;
    if (tl_str_in(src + s, l, tl_vocab_py_graphless_builtins)) return false;
    char *name = tl_node_text(fn, src);
    bool r = tl_is_model_call(c, name) ||
             ((tl_icontains(src + s, l, "loss") || tl_icontains(src + s, l, "criterion")) &&
              !tl_first_arg_cut(c, args));
    free(name);
    return r;
  }
  if (!tl_node_is(fn, "attribute")) return false;
  TSNode attr = TL_CHILD(fn, attribute);
  TSNode obj = TL_CHILD(fn, object);
  uint32_t s = ts_node_start_byte(attr), l = ts_node_end_byte(attr) - s;
  if (tl_str_in(src + s, l, tl_vocab_graphless_methods)) return false;
  char *callee = tl_dotted(fn, src);
  if (callee) {
    char *q = tl_model_resolve(c->m, callee);
    bool lib = !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
    bool host = !strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3) || !strncmp(q, "math.", 5);
    bool model = tl_is_model_call(c, callee);
    free(q);
    free(callee);
    if (host) return false;
    if (lib) {
      /* torch.mean(loss), F.cross_entropy(logits, y): any tensor argument with a graph */
      for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (!tl_node_is(a, "keyword_argument") && tl_keeps_graph(c, a, depth + 1)) return true;
      }
      return false;
    }
    if (model) return true;
    if (tl_icontains(src + s, l, "loss") || tl_icontains(src + s, l, "criterion")) return !tl_first_arg_cut(c, args);
  }
  /* a method keeps its receiver's graph: loss.mean(), out.float(), (a + b).sum() */
  return tl_keeps_graph(c, obj, depth + 1);
}

bool tl_pred_keeps_graph(const tl_pred_ctx *c, TSNode n) {
  if (tl_in_no_grad(c, n)) return false;
  return tl_keeps_graph(c, n, 0);
}

/* ---- #step-accumulator? ---- */

/* Does the expression mention the dotted name (as a name, attribute or the base of a subscript)? */
static bool tl_mentions_dotted(TSNode n, const char *src, const char *d, int depth) {
  if (depth > 48 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) {
    char *x = tl_dotted(n, src);
    bool r = x && !strcmp(x, d);
    free(x);
    if (r) return true;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_mentions_dotted(ts_node_named_child(n, i), src, d, depth + 1)) return true;
  return false;
}

/* Is the accumulator backpropagated somewhere in the scope (gradient accumulation, a loss built
 * from parts)? `acc.backward()`, `scaler.scale(acc).backward()`, `self.manual_backward(acc)`. */
static bool tl_backpropagated(TSNode n, const char *src, const char *d, int depth) {
  if (depth > 400 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode name = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : fn;
    if ((tl_node_text_eq(name, src, "backward") || tl_node_text_eq(name, src, "manual_backward")) &&
        tl_mentions_dotted(n, src, d, 0))
      return true;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_backpropagated(ts_node_named_child(n, i), src, d, depth + 1)) return true;
  return false;
}

bool tl_pred_step_accumulator(const tl_pred_ctx *c, TSNode n) {
  TSNode base = tl_unparen(n);
  while (tl_node_is(base, "subscript")) base = tl_unparen(TL_CHILD(base, value));
  if (!tl_node_is(base, "identifier") && !tl_node_is(base, "attribute")) return false;
  char *d = tl_dotted(base, c->src);
  if (!d || strchr(d, '(')) { free(d); return false; }
  /* the enclosing function (or the module) */
  TSNode scope = n;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_node_is(scope, "function_definition"); p = tl_up_next(&up))
    scope = p;
  bool r = false;
  if (!tl_backpropagated(scope, c->src, d, 0)) {
    uint32_t at = ts_node_start_byte(n);
    const tl_binding *b = tl_model_binding(c->m, d, c->func, at);
    /* `total = total + x` continues the accumulator: look at the binding before it */
    for (int guard = 0; b && !ts_node_is_null(tl_bvalue(c->m, b)) && guard < 16 &&
                        tl_mentions_dotted(tl_bvalue(c->m, b), c->src, d, 0);
         guard++)
      b = tl_model_binding(c->m, d, c->func, b->vstart); /* the value's start */
    if (!b) {
      /* state of the object: outlives every call of a per-step method */
      r = !strncmp(d, "self.", 5);
    } else {
      /* bound before the outermost loop of this function that does per-step work itself */
      int32_t step = -1;
      for (int32_t l = tl_model_loop_at(c->m, at); l >= 0; l = c->m->loops.v[l].parent) {
        const tl_loop *lp = &c->m->loops.v[l];
        if (lp->func != c->func) break;
        if (lp->iterates_loader || (lp->work & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP | TL_WORK_MODEL))) step = l;
      }
      r = step >= 0 && b->byte <= c->m->loops.v[step].start;
    }
  }
  free(d);
  return r;
}

/* ---- #accumulation-step?, #in-no-sync?, #loop-model-from? (gradient accumulation and DDP) ---- */

/* The innermost loop of the function holding byte `at`, or -1. */
static int32_t tl_own_loop(const tl_pred_ctx *c, uint32_t at) {
  int32_t l = tl_model_loop_at(c->m, at);
  return l >= 0 && c->m->loops.v[l].func == c->func ? l : -1;
}

/* Does the expression hold a remainder test (`(step + 1) % accum == 0`), also through a local
 * name bound to one (`is_update = step % n == 0`)? String formatting (`"%d" % x`) is not one. */
static bool tl_has_modulo(const tl_pred_ctx *c, TSNode n, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n) || tl_node_is(n, "lambda")) return false;
  if (tl_node_is(n, "binary_operator")) {
    TSNode op = ts_node_child_by_field_name(n, "operator", 8);
    TSNode left = tl_unparen(ts_node_child_by_field_name(n, "left", 4));
    if (!ts_node_is_null(op) && c->src[ts_node_start_byte(op)] == '%' && !tl_node_is(left, "string") &&
        !tl_node_is(left, "concatenated_string"))
      return true;
  }
  if (tl_node_is(n, "identifier") && depth < 4) {
    char *d = tl_dotted(n, c->src);
    TSNode v = d ? tl_model_binding_value(c->m, d, c->func, ts_node_start_byte(n)) : (TSNode){0};
    free(d);
    if (!ts_node_is_null(v) && tl_has_modulo(c, v, depth + 4)) return true;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_has_modulo(c, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

/* Does an `if`/`elif` with a remainder test, between n and the loop starting at `from`, decide
 * whether n runs? */
static bool tl_every_n(const tl_pred_ctx *c, TSNode n, uint32_t from) {
  TSNode child = n;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p) && ts_node_start_byte(p) >= from;
       child = p, p = tl_up_next(&up)) {
    if ((tl_node_is(p, "if_statement") || tl_node_is(p, "elif_clause")) &&
        !ts_node_eq(child, ts_node_child_by_field_name(p, "condition", 9)) &&
        tl_has_modulo(c, ts_node_child_by_field_name(p, "condition", 9), 0))
      return true;
    if (tl_node_is(p, "else_clause") && tl_has_modulo(c, ts_node_child_by_field_name(ts_node_parent(p), "condition", 9), 0))
      return true;
  }
  return false;
}

static bool tl_is_optimizer_step(const char *callee) {
  if (!callee) return false;
  if (tl_model_call_work(callee) & TL_WORK_OPT_STEP) return true;
  /* self.optimizer_step(), optim_step(...): a helper named after the optimizer step */
  const char *last = strrchr(callee, '.');
  last = last ? last + 1 : callee;
  return tl_icontains(last, strlen(last), "optim") && tl_icontains(last, strlen(last), "step");
}

bool tl_pred_accumulation_step(const tl_pred_ctx *c, TSNode n) {
  int32_t l = tl_own_loop(c, ts_node_start_byte(n));
  if (l < 0) return false;
  const tl_loop *lp = &c->m->loops.v[l];
  if (tl_every_n(c, n, lp->start)) return false; /* n itself runs every N iterations */
  TSNode root = ts_tree_root_node(n.tree);
  bool every_n = false;
  for (size_t i = 0; i < c->m->calls.n; i++) {
    const tl_call *cl = &c->m->calls.v[i];
    if (cl->func != c->func || cl->byte < lp->start || cl->byte >= lp->end || !tl_is_optimizer_step(cl->callee)) continue;
    TSNode call = ts_node_descendant_for_byte_range(root, cl->byte, cl->byte + 1);
    tl_up up;
    tl_up_init(&up, call);
    while (!ts_node_is_null(call) && !tl_node_is(call, "call")) call = tl_up_next(&up);
    if (ts_node_is_null(call)) continue;
    if (!tl_every_n(c, call, lp->start)) return false; /* an optimizer step on every iteration */
    every_n = true;
  }
  return every_n;
}

/* Does the expression (or, for a name, any value bound to it in the function) enter no_sync()? */
static bool tl_enters_no_sync(const tl_pred_ctx *c, TSNode v) {
  uint32_t s = ts_node_start_byte(v), e = ts_node_end_byte(v);
  if (tl_icontains(c->src + s, e - s, "no_sync") || tl_icontains(c->src + s, e - s, ".accumulate(")) return true;
  v = tl_unparen(v);
  if (!tl_node_is(v, "identifier") && !tl_node_is(v, "attribute")) return false;
  char *d = tl_dotted(v, c->src);
  bool r = false;
  for (size_t i = 0; d && i < c->m->bindings.n && !r; i++) {
    const tl_binding *b = &c->m->bindings.v[i];
    if (b->func != c->func || strcmp(b->name, d) || !b->vsym) continue; /* a value node, by its range */
    uint32_t bs = b->vstart, be = b->vend;
    r = tl_icontains(c->src + bs, be - bs, "no_sync");
  }
  free(d);
  return r;
}

bool tl_pred_in_no_sync(const tl_pred_ctx *c, TSNode n) {
  tl_up up;
  tl_up_init(&up, n);
  TSNode p = tl_up_next(&up);
  for (; !ts_node_is_null(p) && !tl_is_scope(p); p = tl_up_next(&up)) {
    if (!tl_node_is(p, "with_statement")) continue;
    for (uint32_t i = 0; i < ts_node_named_child_count(p); i++) {
      TSNode clause = ts_node_named_child(p, i);
      if (!tl_node_is(clause, "with_clause")) continue;
      for (uint32_t k = 0; k < ts_node_named_child_count(clause); k++) {
        TSNode item = ts_node_named_child(clause, k);
        TSNode v = ts_node_child_by_field_name(item, "value", 5);
        if (!ts_node_is_null(v) && tl_enters_no_sync(c, v)) return true;
      }
    }
  }
  /* `model.require_backward_grad_sync = False` somewhere in the function: it manages the sync */
  if (!ts_node_is_null(p)) {
    uint32_t s = ts_node_start_byte(p), e = ts_node_end_byte(p);
    if (tl_icontains(c->src + s, e - s, "require_backward_grad_sync")) return true;
  }
  return false;
}

/* Is a value (a call, or either branch of `DDP(m) if dist else m`) a call whose resolved name matches? */
static bool tl_value_call_matches(const tl_pred_ctx *c, TSNode v, const pcre2_code *re, int depth) {
  v = tl_unparen(v);
  if (ts_node_is_null(v) || depth > 4) return false;
  if (tl_node_is(v, "call")) {
    char *callee = tl_dotted(ts_node_child_by_field_name(v, "function", 8), c->src);
    bool r = tl_callee_matches(c, callee, re);
    free(callee);
    return r;
  }
  if (tl_node_is(v, "conditional_expression"))
    for (uint32_t i = 0; i < ts_node_named_child_count(v); i += 2)
      if (tl_value_call_matches(c, ts_node_named_child(v, i), re, depth + 1)) return true;
  return false;
}

/* Was the object named `d` (called at `at` in the function) made by a matching call: a local
 * binding, `self.x` set in any method of the class, or a module-level binding? */
static bool tl_object_from(const tl_pred_ctx *c, const char *d, uint32_t at, const pcre2_code *re) {
  const tl_binding *b = tl_model_binding(c->m, d, c->func, at);
  if (b) return tl_callee_matches(c, b->ctor, re) || tl_value_call_matches(c, tl_bvalue(c->m, b), re, 0);
  if (!strncmp(d, "self.", 5) && !strchr(d + 5, '.') && c->func >= 0 && (size_t)c->func < c->m->funcs.n) {
    int32_t cls = c->m->funcs.v[c->func].cls;
    const tl_class *k = cls >= 0 ? &c->m->classes.v[cls] : NULL;
    bool r = false;
    for (size_t i = 0; k && i < k->attrs.n && !r; i++)
      if (!strcmp(k->attrs.v[i].name, d + 5))
        r = tl_callee_matches(c, k->attrs.v[i].ctor, re) ||
            tl_value_call_matches(c, tl_bvalue(c->m, &k->attrs.v[i]), re, 0);
    return r;
  }
  if (c->func > 0 && !strchr(d, '.')) {
    b = tl_model_binding(c->m, d, 0, UINT32_MAX);
    if (b) return tl_callee_matches(c, b->ctor, re) || tl_value_call_matches(c, tl_bvalue(c->m, b), re, 0);
  }
  return false;
}

bool tl_pred_loop_model_from(const tl_pred_ctx *c, TSNode n, const pcre2_code *re) {
  int32_t l = tl_own_loop(c, ts_node_start_byte(n));
  if (l < 0) return false;
  const tl_loop *lp = &c->m->loops.v[l];
  for (size_t i = 0; i < c->m->calls.n; i++) {
    const tl_call *cl = &c->m->calls.v[i];
    if (cl->func != c->func || cl->byte < lp->start || cl->byte >= lp->end || strchr(cl->callee, '(')) continue;
    if (tl_object_from(c, cl->callee, cl->byte, re)) return true;
  }
  return false;
}

/* ---- #loop-model-param? ---- */

/* Is `name` a parameter of the function definition `fn`? */
static bool tl_is_param(TSNode fn, const char *src, const char *name) {
  TSNode params = ts_node_child_by_field_name(fn, "parameters", 10);
  for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); i++) {
    TSNode p = ts_node_named_child(params, i);
    if (!tl_node_is(p, "identifier")) {
      TSNode nm = ts_node_child_by_field_name(p, "name", 4); /* default / typed parameters */
      if (ts_node_is_null(nm) && ts_node_named_child_count(p)) nm = ts_node_named_child(p, 0);
      p = nm;
    }
    if (tl_node_is(p, "identifier") && tl_node_text_eq(p, src, name)) return true;
  }
  return false;
}

/* A model called in the innermost loop holding n (`model(x)`, `self.model(x)`) comes from the
 * caller: a parameter of the function not rebound before the call, or `self.x` set only from a
 * plain name (`self.model = model` in `__init__`). */
bool tl_pred_loop_model_param(const tl_pred_ctx *c, TSNode n) {
  int32_t l = tl_own_loop(c, ts_node_start_byte(n));
  if (l < 0) return false;
  const tl_loop *lp = &c->m->loops.v[l];
  TSNode fn = n;
  tl_up up;
  tl_up_init(&up, n);
  while (!ts_node_is_null(fn) && !tl_node_is(fn, "function_definition")) fn = tl_up_next(&up);
  if (ts_node_is_null(fn)) return false;
  for (size_t i = 0; i < c->m->calls.n; i++) {
    const tl_call *cl = &c->m->calls.v[i];
    if (cl->func != c->func || cl->byte < lp->start || cl->byte >= lp->end || strchr(cl->callee, '(') ||
        !(tl_model_call_work(cl->callee) & TL_WORK_MODEL))
      continue;
    if (!strchr(cl->callee, '.')) {
      if (!tl_model_binding(c->m, cl->callee, c->func, cl->byte) && tl_is_param(fn, c->src, cl->callee)) return true;
    } else if (!strncmp(cl->callee, "self.", 5) && !strchr(cl->callee + 5, '.') && c->func >= 0) {
      int32_t cls = c->m->funcs.v[c->func].cls;
      const tl_class *k = cls >= 0 ? &c->m->classes.v[cls] : NULL;
      bool from_name = false, other = false;
      for (size_t a = 0; k && a < k->attrs.n; a++) {
        if (strcmp(k->attrs.v[a].name, cl->callee + 5)) continue;
        TSNode v = tl_unparen(tl_bvalue(c->m, &k->attrs.v[a]));
        if (tl_node_is(v, "identifier")) from_name = true;
        else other = true;
      }
      if (from_name && !other) return true;
    }
  }
  return false;
}
