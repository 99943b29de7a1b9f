/* tl_preds_flow.c - predicates on loops and frequency: flags that make code run rarely, loops over
 * a batch, accumulators that outlive a step, gradient accumulation and DDP's gradient sync, and
 * loaders of training data. */
#include "tl_match.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "tl_frequency.h"
#include "tl_vocab.h"


static bool tl_flow__names_match(const tl_match_env *c, TSNode n, const pcre2_code *re, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "identifier")) {
    uint32_t s = ts_node_start_byte(n);
    return tl_match_re(c, re, c->src + s, ts_node_end_byte(n) - s);
  }
  if (tl_node_is(n, "not_operator") || tl_node_is(n, "lambda")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_flow__names_match(c, ts_node_named_child(n, i), re, depth + 1)) return true;
  return false;
}

/* Is the condition true only when a flag named like `re` is set (positive) / unset (negative)? */
static bool tl_flow__cond_flag(const tl_match_env *c, TSNode cond, const pcre2_code *re, bool positive, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(cond)) return false;
  cond = tl_unparen(cond);
  if (tl_node_is(cond, "not_operator"))
    return tl_flow__cond_flag(c, TL_CHILD(cond, argument), re, !positive, depth + 1);
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    bool is_and = !ts_node_is_null(op) && !strncmp(c->src + ts_node_start_byte(op), "and", 3);
    /* `flag and x` needs the flag; so does `not (not flag or x)` */
    if (is_and != positive) return false;
    return tl_flow__cond_flag(c, TL_CHILD(cond, left), re, positive, depth + 1) ||
           tl_flow__cond_flag(c, TL_CHILD(cond, right), re, positive, depth + 1);
  }
  if (!positive) return false;
  if (tl_node_is(cond, "identifier")) return tl_flow__names_match(c, cond, re, depth);
  if (tl_node_is(cond, "attribute")) return tl_flow__names_match(c, TL_CHILD(cond, attribute), re, depth);
  /* is_debug(), logger.isEnabledFor(logging.DEBUG), cfg.debug_level > 0 */
  if (tl_node_is(cond, "call") || tl_node_is(cond, "comparison_operator") || tl_node_is(cond, "subscript"))
    return tl_flow__names_match(c, cond, re, depth);
  return false;
}

static bool tl_flow__in_if_flag(const tl_match_env *c, TSNode n, const pcre2_code *re) {
  TSNode child = n;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p); child = p, p = tl_up_next(&up)) {
    if (tl_node_is(p, "if_statement") || tl_node_is(p, "elif_clause")) {
      TSNode body = TL_CHILD(p, consequence);
      if (ts_node_eq(body, child) && tl_flow__cond_flag(c, TL_CHILD(p, condition), re, true, 0)) return true;
    } else if (tl_node_is(p, "else_clause")) {
      /* `if not debug: ... else: <here>` */
      TSNode owner = ts_node_parent(p);
      if (tl_node_is(owner, "if_statement") && tl_flow__cond_flag(c, TL_CHILD(owner, condition), re, false, 0))
        return true;
    }
  }
  return false;
}

/* Does the expression mention the dotted name (as a name, attribute or the base of a subscript)? */
static bool tl_flow__mentions_dotted(TSNode n, const char *src, const char *d, int depth) {
  if (depth > 48 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) {
    char *x = tl_dotted(n, src);
    bool r = x && !strcmp(x, d);
    free(x);
    if (r) return true;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_flow__mentions_dotted(ts_node_named_child(n, i), src, d, depth + 1)) return true;
  return false;
}

/* Is the accumulator backpropagated somewhere in the scope (gradient accumulation, a loss built
 * from parts)? `acc.backward()`, `scaler.scale(acc).backward()`, `self.manual_backward(acc)`. */
static bool tl_flow__backpropagated(TSNode n, const char *src, const char *d, int depth) {
  if (depth > 400 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode name = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : fn;
    if ((tl_node_text_eq(name, src, "backward") || tl_node_text_eq(name, src, "manual_backward")) &&
        tl_flow__mentions_dotted(n, src, d, 0))
      return true;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_flow__backpropagated(ts_node_named_child(n, i), src, d, depth + 1)) return true;
  return false;
}

/* Does the accumulator outlive the step? *trains says whether the steps it outlives run a training
 * step themselves (a backward pass, an optimizer step or zero_grad in a loop around it, or state of
 * `self` updated by a per-step method, whose caller trains): backward() frees what each step's
 * graph saved, so what the accumulator keeps is the graph's nodes, not its activations. */
static bool tl_flow__step_accumulator(const tl_match_env *c, TSNode n, bool *trains) {
  *trains = false;
  TSNode base = tl_unparen(n);
  while (tl_node_is(base, "subscript")) base = tl_unparen(TL_CHILD(base, value));
  if (!tl_node_is(base, "identifier") && !tl_node_is(base, "attribute")) return false;
  char *d = tl_dotted(base, c->src);
  if (!d || strchr(d, '(')) {
    free(d);
    return false;
  }
  /* the enclosing function (or the module) */
  TSNode scope = n;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_node_is(scope, "function_definition");
       p = tl_up_next(&up))
    scope = p;
  bool r = false;
  if (!tl_flow__backpropagated(scope, c->src, d, 0)) {
    uint32_t at = ts_node_start_byte(n);
    const tl_binding *b = tl_model_binding(c->m, d, c->func, at);
    /* `total = total + x` continues the accumulator: look at the binding before it */
    for (int guard = 0; b && !ts_node_is_null(tl_bvalue(c->m, b)) && guard < 16 &&
                        tl_flow__mentions_dotted(tl_bvalue(c->m, b), c->src, d, 0);
         guard++)
      b = tl_model_binding(c->m, d, c->func, b->vstart); /* the value's start */
    if (!b) {
      /* state of the object: outlives every call of a per-step method */
      r = !strncmp(d, "self.", 5);
      *trains = r;
    } else {
      /* bound before the outermost loop of this function that does per-step work itself */
      int32_t step = -1;
      bool train = false;
      for (int32_t l = tl_model_loop_at(c->m, at); l >= 0; l = c->m->loops.v[l].parent) {
        const tl_loop *lp = &c->m->loops.v[l];
        if (lp->func != c->func) break;
        unsigned w = lp->work & (TL_WORK_BACKWARD | TL_WORK_OPT_STEP | TL_WORK_GRAD);
        if (lp->iterates_loader || w) step = l;
        if (w) train = true;
      }
      r = step >= 0 && b->byte <= c->m->loops.v[step].start;
      *trains = r && train;
    }
  }
  free(d);
  return r;
}

/* The innermost loop of the function holding byte `at`, or -1. */
static int32_t tl_flow__own_loop(const tl_match_env *c, uint32_t at) {
  int32_t l = tl_model_loop_at(c->m, at);
  return l >= 0 && c->m->loops.v[l].func == c->func ? l : -1;
}

/* Does the expression hold a remainder test (`(step + 1) % accum == 0`, tl_freq_has_remainder),
 * also through a local name bound to one (`is_update = step % n == 0`)? */
static bool tl_flow__has_modulo(const tl_match_env *c, TSNode n, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n) || tl_node_is(n, "lambda")) return false;
  if (tl_freq_is_remainder(n, c->src)) return true;
  if (tl_node_is(n, "identifier") && depth < 4) {
    char *d = tl_dotted(n, c->src);
    TSNode v = d ? tl_model_binding_value(c->m, d, c->func, ts_node_start_byte(n)) : (TSNode){0};
    free(d);
    return !ts_node_is_null(v) && tl_flow__has_modulo(c, v, depth + 4);
  }
  if (tl_node_is(n, "call")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_flow__has_modulo(c, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

/* Does an `if`/`elif` with a remainder test, between n and the loop starting at `from`, decide
 * whether n runs? */
static bool tl_flow__every_n(const tl_match_env *c, TSNode n, uint32_t from) {
  TSNode child = n;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p) && ts_node_start_byte(p) >= from;
       child = p, p = tl_up_next(&up)) {
    if ((tl_node_is(p, "if_statement") || tl_node_is(p, "elif_clause")) &&
        !ts_node_eq(child, ts_node_child_by_field_name(p, "condition", 9)) &&
        tl_flow__has_modulo(c, ts_node_child_by_field_name(p, "condition", 9), 0))
      return true;
    if (tl_node_is(p, "else_clause") &&
        tl_flow__has_modulo(c, ts_node_child_by_field_name(ts_node_parent(p), "condition", 9), 0))
      return true;
  }
  return false;
}

static bool tl_flow__is_optimizer_step(const char *callee) {
  if (!callee) return false;
  if (tl_model_call_work(callee) & TL_WORK_OPT_STEP) return true;
  /* self.optimizer_step(), optim_step(...): a helper named after the optimizer step */
  const char *last = strrchr(callee, '.');
  last = last ? last + 1 : callee;
  return tl_icontains(last, strlen(last), "optim") && tl_icontains(last, strlen(last), "step");
}

/* Do a and b sit in different branches of one `if` (its block, an `elif`, the `else`), at or after
 * byte `from`? Then no iteration runs both. */
static bool tl_flow__exclusive(TSNode a, TSNode b, uint32_t from) {
  uint32_t bb = ts_node_start_byte(b);
  tl_up up;
  tl_up_init(&up, a);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p) && ts_node_start_byte(p) >= from;
       p = tl_up_next(&up)) {
    if (!tl_node_is(p, "if_statement") || bb < ts_node_start_byte(p) || bb >= ts_node_end_byte(p)) continue;
    uint32_t ab = ts_node_start_byte(a);
    int ia = -1, ib = -1;
    for (uint32_t i = 0; i < ts_node_child_count(p); i++) {
      TSNode k = ts_node_child(p, i);
      if (ts_node_start_byte(k) <= ab && ab < ts_node_end_byte(k)) ia = (int)i;
      if (ts_node_start_byte(k) <= bb && bb < ts_node_end_byte(k)) ib = (int)i;
    }
    TSNode cond = ts_node_child_by_field_name(p, "condition", 9);
    bool in_cond = !ts_node_is_null(cond) && ((ts_node_start_byte(cond) <= ab && ab < ts_node_end_byte(cond)) ||
                                              (ts_node_start_byte(cond) <= bb && bb < ts_node_end_byte(cond)));
    return ia >= 0 && ib >= 0 && ia != ib && !in_cond;
  }
  return false;
}

/* The divisor of the first remainder test in the expression (`(step + 1) % accum == 0` gives
 * `accum`), also through a local name bound to such a test; null when there is none. */
static TSNode tl_flow__divisor(const tl_match_env *c, TSNode n, int depth) {
  TSNode none = {0};
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n) || tl_node_is(n, "lambda") || tl_node_is(n, "call")) return none;
  if (tl_freq_is_remainder(n, c->src)) return tl_unparen(TL_CHILD(n, right));
  if (tl_node_is(n, "identifier") && depth < 4) {
    char *d = tl_dotted(n, c->src);
    TSNode v = d ? tl_model_binding_value(c->m, d, c->func, ts_node_start_byte(n)) : none;
    free(d);
    return tl_flow__divisor(c, v, depth + 4);
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode r = tl_flow__divisor(c, ts_node_named_child(n, i), depth + 1);
    if (!ts_node_is_null(r)) return r;
  }
  return none;
}

/* The divisor of the remainder test of the `if`/`elif` (or the `if` of an `else`) between n and the
 * loop starting at `from` that decides whether n runs (tl_flow__every_n), or null. */
static TSNode tl_flow__every_n_divisor(const tl_match_env *c, TSNode n, uint32_t from) {
  TSNode child = n, none = {0};
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p) && ts_node_start_byte(p) >= from;
       child = p, p = tl_up_next(&up)) {
    TSNode cond = none;
    if ((tl_node_is(p, "if_statement") || tl_node_is(p, "elif_clause")) &&
        !ts_node_eq(child, ts_node_child_by_field_name(p, "condition", 9)))
      cond = ts_node_child_by_field_name(p, "condition", 9);
    if (tl_node_is(p, "else_clause")) cond = ts_node_child_by_field_name(ts_node_parent(p), "condition", 9);
    TSNode d = ts_node_is_null(cond) ? none : tl_flow__divisor(c, cond, 0);
    if (!ts_node_is_null(d)) return d;
  }
  return none;
}

/* The call node of a model call (tl_call.byte is where it starts). */
static TSNode tl_flow__call_at(TSNode root, uint32_t byte) {
  TSNode call = ts_node_descendant_for_byte_range(root, byte, byte + 1);
  tl_up up;
  tl_up_init(&up, call);
  while (!ts_node_is_null(call) && !tl_node_is(call, "call")) call = tl_up_next(&up);
  return call;
}

static bool tl_flow__accumulation_step(const tl_match_env *c, TSNode n) {
  int32_t l = tl_flow__own_loop(c, ts_node_start_byte(n));
  if (l < 0) return false;
  const tl_loop *lp = &c->m->loops.v[l];
  if (tl_flow__every_n(c, n, lp->start)) return false; /* n itself runs every N iterations */
  TSNode root = ts_tree_root_node(n.tree);
  bool every_n = false;
  for (size_t i = 0; i < c->m->calls.n; i++) {
    const tl_call *cl = &c->m->calls.v[i];
    if (cl->func != c->func || cl->byte < lp->start || cl->byte >= lp->end || !tl_flow__is_optimizer_step(cl->callee))
      continue;
    TSNode call = tl_flow__call_at(root, cl->byte);
    if (ts_node_is_null(call) || tl_flow__exclusive(n, call, lp->start)) continue; /* another mode's step */
    if (!tl_flow__every_n(c, call, lp->start)) return false; /* an optimizer step on every iteration */
    every_n = true;
  }
  return every_n;
}

/* Does the expression (or, for a name, any value bound to it in the function) enter no_sync()? */
static bool tl_flow__enters_no_sync(const tl_match_env *c, TSNode v) {
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

static bool tl_flow__in_no_sync(const tl_match_env *c, TSNode n) {
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
        if (!ts_node_is_null(v) && tl_flow__enters_no_sync(c, v)) return true;
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

static bool tl_flow__name_is_batchlike(const char *s, size_t n) {
  char low[64];
  if (n >= sizeof low) return false;
  for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)s[i]);
  low[n] = 0;
  if (tl_str_in(low, n, tl_vocab_batch_size_names)) return true;
  return strstr(low, "batch") != NULL && strstr(low, "batches") == NULL && strstr(low, "idx") == NULL;
}

static bool tl_flow__is_batch_bound(const tl_match_env *e, TSNode n) {
  n = tl_unparen(n);
  const char *src = e->src;
  if (tl_node_is(n, "identifier")) {
    uint32_t s = ts_node_start_byte(n);
    return tl_flow__name_is_batchlike(src + s, ts_node_end_byte(n) - s);
  }
  if (tl_node_is(n, "attribute")) {
    TSNode a = TL_CHILD(n, attribute);
    uint32_t s = ts_node_start_byte(a);
    return tl_flow__name_is_batchlike(src + s, ts_node_end_byte(a) - s);
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "identifier") && tl_node_text_eq(fn, src, "len") && ts_node_named_child_count(args) == 1) {
      TSNode x = ts_node_named_child(args, 0);
      /* a container named as a list (`logits_list`, `loss_lst`): one entry per head or loss term */
      TSNode last = tl_node_is(x, "attribute") ? TL_CHILD(x, attribute) : x;
      if (tl_node_is(last, "identifier")) {
        uint32_t ls = ts_node_start_byte(last), ll = ts_node_end_byte(last) - ls;
        if ((ll >= 4 && !strncasecmp(src + ls + ll - 4, "list", 4)) ||
            (ll >= 4 && !strncasecmp(src + ls + ll - 4, "_lst", 4)))
          return false;
        /* parts of the model: `len(self.fuse_layers)`, `len(self.axes_dims)`, `len(self.seg_num_grids)` */
        if (tl_name_has_word(src + ls, ll, tl_vocab_structure_words)) return false;
      }
      tl_valkind k = tl_value_classify(e->m, x, src, e->func, 0);
      return k != TL_VAL_LIST && k != TL_VAL_PY;
    }
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      if (tl_node_text_eq(attr, src, "size") && ts_node_named_child_count(args) == 1 &&
          tl_node_text_eq(ts_node_named_child(args, 0), src, "0"))
        return true;
    }
    return false;
  }
  if (tl_node_is(n, "subscript")) {
    TSNode v = TL_CHILD(n, value);
    TSNode sub = TL_CHILD(n, subscript);
    if (tl_node_is(v, "attribute") && tl_node_text_eq(TL_CHILD(v, attribute), src, "shape") &&
        tl_node_text_eq(sub, src, "0"))
      return true;
    if (tl_node_is(v, "call") && tl_node_text_eq(sub, src, "0")) {
      TSNode fn = TL_CHILD(v, function);
      if (tl_node_is(fn, "attribute") && tl_node_text_eq(TL_CHILD(fn, attribute), src, "size")) return true;
    }
  }
  return false;
}

/* Is the element `sub` (t[i]) read whole rather than element by element: only its metadata
 * (`t[i].shape`, `len(t[i])`, `t[i].numel()`), or handed to a unit of work of the program or a
 * library (`self.loss(pred[i], gt[i])`, `assign(boxes[i])`) that runs many kernels on it? */
static bool tl_flow__whole_use(const tl_match_env *e, TSNode sub) {
  TSNode up = ts_node_parent(sub);
  if (tl_node_is(up, "attribute") && ts_node_eq(TL_CHILD(up, object), sub)) {
    TSNode attr = TL_CHILD(up, attribute);
    if (tl_node_text_in(attr, e->src, tl_vocab_meta_attrs)) return true;
    TSNode call = ts_node_parent(up);
    return tl_node_is(call, "call") && ts_node_eq(TL_CHILD(call, function), up) &&
           tl_node_text_in(attr, e->src, tl_vocab_scalar_methods) && !tl_node_text_eq(attr, e->src, "item");
  }
  if (tl_node_is(up, "keyword_argument")) up = ts_node_parent(up);
  if (!tl_node_is(up, "argument_list")) return false;
  TSNode fn = TL_CHILD(ts_node_parent(up), function);
  if (tl_node_is(fn, "identifier")) {
    if (tl_node_text_eq(fn, e->src, "len")) return true;
    char *d = tl_node_text(fn, e->src);
    if (tl_str_in(d, strlen(d), tl_vocab_py_scalar_builtins) ||
        tl_str_in(d, strlen(d), tl_vocab_py_container_builtins)) {
      free(d);
      return false;
    }
    char *q = tl_model_resolve(e->m, d);
    bool lib = !strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7) || !strncmp(q, "numpy.", 6) ||
               !strncmp(q, "np.", 3) || !strncmp(q, "F.", 2) || !strcmp(d, "min") || !strcmp(d, "max") ||
               !strcmp(d, "sum");
    free(q);
    free(d);
    return !lib;
  }
  /* self.criterion(...), self.head.loss(...), self.convs[i](...): a method or a layer of the model */
  if (tl_node_is(fn, "subscript")) fn = TL_CHILD(fn, value);
  if (!tl_node_is(fn, "attribute")) return false;
  TSNode o = TL_CHILD(fn, object);
  while (tl_node_is(o, "attribute")) o = TL_CHILD(o, object);
  return tl_node_is(o, "identifier") && tl_node_text_eq(o, e->src, "self");
}

/* Does `body` index a tensor with `var` (t[i], t[i, j], t[i][j]) outside a call of the result? */
static bool tl_flow__indexes_with(const tl_match_env *e, TSNode n, const char *var, int depth) {
  if (depth > 60 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "subscript")) {
    TSNode v = TL_CHILD(n, value);
    bool uses = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(n) && !uses; i++) {
      TSNode ch = ts_node_named_child(n, i);
      /* t[i : i + mb] takes a chunk, not an element */
      if (!ts_node_eq(ch, v) && !tl_node_is(ch, "slice")) uses = tl_node_mentions(ch, e->src, var);
    }
    TSNode parent = ts_node_parent(n);
    bool called = tl_node_is(parent, "call") && ts_node_eq(TL_CHILD(parent, function), n);
    if (uses && !called && !tl_flow__whole_use(e, n)) {
      /* the indexed value itself: names[i] of a list is fine, batch["labels"][i] is a tensor;
       * a host array (`.numpy()`, `np.zeros(...)`, `.cpu()`) launches no kernel */
      tl_valkind k = tl_value_classify(e->m, v, e->src, e->func, 0);
      if (k != TL_VAL_LIST && k != TL_VAL_PY && k != TL_VAL_CPU) return true;
    }
  }
  if (tl_node_is(n, "function_definition") || tl_node_is(n, "lambda")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_flow__indexes_with(e, ts_node_named_child(n, i), var, depth + 1)) return true;
  return false;
}

/* The strings in n: does one name training data (*train), or evaluation data (*eval)? */
static void tl_flow__data_strings(const tl_match_env *e, TSNode n, bool *train, bool *eval, int depth) {
  if (depth > 16 || ts_node_is_null(n)) return;
  if (tl_node_is(n, "string")) {
    uint32_t s = ts_node_start_byte(n), len = ts_node_end_byte(n) - s;
    *train = *train || tl_icontains(e->src + s, len, "train");
    *eval = *eval || tl_match_re(e, e->rules->eval_re, e->src + s, len);
    return;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    tl_flow__data_strings(e, ts_node_named_child(n, i), train, eval, depth + 1);
}

/* Was the dataset `a` (a name) built from evaluation data: a call of its function whose arguments'
 * strings name validation or test data and never training data (`COCODataset(image_dir=
 * cfg["val_image_dir"], anno_path=cfg["val_anno_path"])`, `ImageFolder(os.path.join(root, "val"))`)? */
static bool tl_flow__eval_dataset(tl_match_env *e, TSNode a) {
  a = tl_unparen(a);
  if (!tl_node_is(a, "identifier")) return false;
  char *d = tl_dotted(a, e->src);
  const tl_binding *b = d ? tl_model_binding(e->m, d, e->func, ts_node_start_byte(a)) : NULL;
  free(d);
  TSNode v = b && !b->elem && b->func == e->func ? tl_unparen(tl_bvalue(e->m, b)) : (TSNode){0};
  TSNode args = tl_node_is(v, "call") ? TL_CHILD(v, arguments) : (TSNode){0};
  bool train = false, eval = false;
  if (tl_node_is(args, "argument_list")) tl_flow__data_strings(e, args, &train, &eval, 0);
  return eval && !train;
}

static bool tl_flow__training_loader(tl_match_env *e, TSNode call) {
  const pcre2_code *eval_re = e->rules->eval_re;
  const char *src = e->src;
  TSNode args = TL_CHILD(call, arguments);
  for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (tl_node_is(a, "keyword_argument")) {
      TSNode k = TL_CHILD(a, name);
      if (!tl_node_text_eq(k, src, "dataset")) continue;
      a = TL_CHILD(a, value);
    } else if (i > 0) {
      continue;
    }
    uint32_t s = ts_node_start_byte(a);
    if (tl_match_re(e, eval_re, src + s, ts_node_end_byte(a) - s) || tl_flow__eval_dataset(e, a)) return false;
  }
  TSNode p = ts_node_parent(call);
  if (tl_node_is(p, "assignment")) {
    TSNode l = TL_CHILD(p, left);
    uint32_t s = ts_node_start_byte(l);
    if (tl_match_re(e, eval_re, src + s, ts_node_end_byte(l) - s)) return false;
  }
  const tl_func *f = &e->m->funcs.v[e->func];
  if (e->func > 0 && tl_match_re(e, eval_re, f->name, strlen(f->name))) return false;
  return true;
}

/* Does `n` name the loader: the text `name` itself, or a call with it as first argument
 * (`enumerate(loader)`, `tqdm(loader)`)? */
static bool tl_flow__names_loader(TSNode n, const char *src, const char *name) {
  n = tl_unparen(n);
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) return tl_node_text_eq(n, src, name);
  if (!tl_node_is(n, "call")) return false;
  TSNode args = TL_CHILD(n, arguments);
  return !ts_node_is_null(args) && ts_node_named_child_count(args) > 0 &&
         tl_flow__names_loader(ts_node_named_child(args, 0), src, name);
}

/* Is `n` inside a `while` loop, or any loop when `any`, below `scope`? */
static bool tl_flow__in_loop(TSNode n, bool any) {
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p); p = tl_up_next(&up))
    if (tl_node_is(p, "while_statement") || (any && tl_node_is(p, "for_statement"))) return true;
  return false;
}

/* Is the loader `name` iterated again and again in `n` (a scope's subtree): a `for` over it inside a
 * `while` (`while it < iters: for batch in loader:`), `iter(loader)` made again inside a loop, or
 * `cycle(loader)`? */
static bool tl_flow__reiterates(TSNode n, const char *src, const char *name, int depth) {
  if (depth > 200) return false;
  if (tl_node_is(n, "for_statement") && tl_flow__names_loader(TL_CHILD(n, right), src, name) &&
      tl_flow__in_loop(n, false))
    return true;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function), args = TL_CHILD(n, arguments);
    bool first = !ts_node_is_null(args) && ts_node_named_child_count(args) > 0 &&
                 tl_flow__names_loader(ts_node_named_child(args, 0), src, name);
    char *d = first ? tl_dotted(fn, src) : NULL;
    size_t ln = 0;
    const char *last = d ? tl_dotted_last(d, &ln) : NULL;
    bool r = last && ((ln == 5 && !memcmp(last, "cycle", 5)) ||
                      (ln == 4 && !memcmp(last, "iter", 4) && tl_flow__in_loop(n, true)));
    free(d);
    if (r) return true;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode k = ts_node_named_child(n, i);
    if (tl_node_is(k, "function_definition") || tl_node_is(k, "class_definition")) continue;
    if (tl_flow__reiterates(k, src, name, depth + 1)) return true;
  }
  return false;
}

/* Is the DataLoader made by `call` iterated again and again in its scope, where each pass restarts
 * its workers: passed to `cycle()` directly, or bound to a name that tl_flow__reiterates finds? */
static bool tl_flow__loader_reiterated(const tl_match_env *e, TSNode call) {
  TSNode p = ts_node_parent(call);
  if (tl_node_is(p, "argument_list")) {
    TSNode c = ts_node_parent(p);
    char *d = tl_node_is(c, "call") ? tl_dotted(TL_CHILD(c, function), e->src) : NULL;
    size_t ln = 0;
    const char *last = d ? tl_dotted_last(d, &ln) : NULL;
    bool r = last && ln == 5 && !memcmp(last, "cycle", 5);
    free(d);
    return r;
  }
  if (!tl_node_is(p, "assignment")) return false;
  TSNode l = TL_CHILD(p, left);
  if (!tl_node_is(l, "identifier") && !tl_node_is(l, "attribute")) return false;
  char *name = tl_node_text(l, e->src);
  TSNode scope = p;
  tl_up up;
  tl_up_init(&up, p);
  for (TSNode q = tl_up_next(&up); !ts_node_is_null(q); q = tl_up_next(&up)) {
    scope = q;
    if (tl_is_scope(q)) break;
  }
  bool r = tl_flow__reiterates(scope, e->src, name, 0);
  free(name);
  return r;
}

/* ---- the predicates ---- */

/* #in-if? @a "regex": @a runs only when an enclosing `if` tests a flag named like the regex */
static tl_verdict tl_flow__in_if(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_verdict_of(tl_flow__in_if_flag(e, a, p->re));
}

/* #step-accumulator? @a: the container or variable outlives the step (and is not backpropagated).
 * Where the steps train (tl_flow__step_accumulator), the finding is info: measured on a GPU
 * (bench/README.md, TL701-train-memory), such an accumulator keeps no GPU memory per step. */
static tl_verdict tl_flow__step_accum(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  bool trains;
  bool r = tl_flow__step_accumulator(e, a, &trains);
  if (r && trains && e->severity < 0) e->severity = TL_SEVERITY_INFO;
  return tl_verdict_of(r);
}

/* #accumulation-step? @call: runs every iteration of a loop whose optimizer step runs every N */
static tl_verdict tl_flow__accum_step(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_flow__accumulation_step(e, a));
}

/* #accumulation-count! @call @n: the count N of the remainder test that decides when the optimizer
 * step of the call's loop runs (`if (step + 1) % args.accum == 0: opt.step()`), through a local
 * name bound to a plain name or attribute (`accum = args.accum`) within the function; the call
 * itself when there is none (it is then no option) */
static tl_verdict tl_flow__accum_count(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode d = {0};
  int32_t l = tl_flow__own_loop(e, ts_node_start_byte(a));
  if (l >= 0) {
    const tl_loop *lp = &e->m->loops.v[l];
    TSNode root = ts_tree_root_node(a.tree);
    for (size_t i = 0; i < e->m->calls.n && ts_node_is_null(d); i++) {
      const tl_call *cl = &e->m->calls.v[i];
      if (cl->func != e->func || cl->byte < lp->start || cl->byte >= lp->end || !tl_flow__is_optimizer_step(cl->callee))
        continue;
      TSNode call = tl_flow__call_at(root, cl->byte);
      if (!ts_node_is_null(call) && !tl_flow__exclusive(a, call, lp->start))
        d = tl_flow__every_n_divisor(e, call, lp->start);
    }
  }
  const tl_func *fn = &e->m->funcs.v[e->func];
  for (int hop = 0; hop < 3 && !ts_node_is_null(d) && tl_node_is(d, "identifier"); hop++) {
    char *name = tl_dotted(d, e->src);
    TSNode v = name ? tl_model_binding_value(e->m, name, e->func, ts_node_start_byte(d)) : (TSNode){0};
    free(name);
    v = tl_unparen(v);
    if (ts_node_is_null(v) || !(tl_node_is(v, "identifier") || tl_node_is(v, "attribute")) || e->func <= 0 ||
        ts_node_start_byte(v) < fn->start || ts_node_end_byte(v) > fn->end)
      break; /* only within the function: the match stays in its top-level statement */
    d = v;
  }
  return tl_verdict_of(tl_match_bind(e, p->cap[1], ts_node_is_null(d) ? a : d));
}

/* #in-no-sync? @call: inside `with model.no_sync()` (or the function turns gradient sync off) */
static tl_verdict tl_flow__no_sync(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_flow__in_no_sync(e, a));
}

/* #batch-bound? @a: a batch-size-like loop bound. For range(B) or range(0, B) (an argument list):
 * the stop argument; range(0, B, mb) with a step other than 1 walks chunks (micro-batches), not
 * elements. */
static tl_verdict tl_flow__batch_bound(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  TSNode n = a;
  if (tl_node_is(a, "argument_list")) {
    uint32_t k = ts_node_named_child_count(a);
    n = k == 1 ? ts_node_named_child(a, 0) : k >= 2 ? ts_node_named_child(a, 1) : (TSNode){0};
    if (k == 3 && !tl_node_text_eq(ts_node_named_child(a, 2), e->src, "1")) n = (TSNode){0};
  }
  return tl_verdict_of(!ts_node_is_null(n) && tl_flow__is_batch_bound(e, n));
}

/* #indexes-with? @body @var: the body indexes a tensor with the loop variable */
static tl_verdict tl_flow__indexes(tl_match_env *e, const tl_pred *p, TSNode a) {
  char *var = tl_node_text(tl_match_cap(e, p->cap[1]), e->src);
  bool r = tl_flow__indexes_with(e, a, var, 0);
  free(var);
  return tl_verdict_of(r);
}

/* Does n open a scope of its own (a def, a lambda, a class), whose code runs elsewhere? */
static bool tl_flow__new_scope(TSNode n) {
  return tl_node_is(n, "function_definition") || tl_node_is(n, "lambda") || tl_node_is(n, "class_definition");
}

/* Is n a tensor: the evidence of #tensor?, or a value the model knows for one (an element of a
 * tensor, `t[i]`)? */
static bool tl_flow__tensor(const tl_match_env *e, TSNode n) {
  return tl_preds_is_tensor(e, n) || tl_value_is_tensor(e->m, n, e->src, e->func, 0);
}

/* Does n (a loop body) wait for the device: a host read (`.item()`, `.tolist()`, `.numpy()`,
 * `.cpu()`, `int(t)` of a tensor) or an `if`, `while` or `a if c else b` on a tensor value? */
static bool tl_flow__syncs(const tl_match_env *e, TSNode n, int depth) {
  if (depth > 60 || ts_node_is_null(n) || tl_flow__new_scope(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function), args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "attribute") && tl_node_text_in(TL_CHILD(fn, attribute), e->src, tl_vocab_host_read_methods)) {
      tl_valkind k = tl_value_classify(e->m, TL_CHILD(fn, object), e->src, e->func, 0);
      if (k != TL_VAL_CPU && k != TL_VAL_PY && k != TL_VAL_LIST) return true;
    }
    if (tl_node_is(fn, "identifier") && ts_node_named_child_count(args) == 1 &&
        (tl_node_text_eq(fn, e->src, "int") || tl_node_text_eq(fn, e->src, "float") ||
         tl_node_text_eq(fn, e->src, "bool")) &&
        tl_flow__tensor(e, ts_node_named_child(args, 0)))
      return true;
  }
  if (tl_node_is(n, "if_statement") || tl_node_is(n, "elif_clause") || tl_node_is(n, "while_statement") ||
      tl_node_is(n, "conditional_expression")) {
    TSNode c = tl_unparen(tl_node_is(n, "conditional_expression") ? ts_node_named_child(n, 1) : TL_CHILD(n, condition));
    if (tl_node_is(c, "not_operator")) c = tl_unparen(TL_CHILD(c, argument));
    bool tensor = tl_flow__tensor(e, c);
    for (uint32_t i = 0; !tensor && tl_node_is(c, "comparison_operator") && i < ts_node_named_child_count(c); i++)
      tensor = tl_flow__tensor(e, ts_node_named_child(c, i));
    if (tensor) return true;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_flow__syncs(e, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

/* Does n hold a loop over `range(...)` whose body indexes tensors with its own variable (a loop
 * over the elements of each element: every box of every image)? */
static bool tl_flow__inner_index_loop(const tl_match_env *e, TSNode n, int depth) {
  if (depth > 60 || ts_node_is_null(n) || tl_flow__new_scope(n)) return false;
  if (tl_node_is(n, "for_statement")) {
    TSNode left = TL_CHILD(n, left), right = TL_CHILD(n, right);
    if (tl_node_is(left, "identifier") && tl_node_is(right, "call") &&
        tl_node_text_eq(TL_CHILD(right, function), e->src, "range")) {
      char *var = tl_node_text(left, e->src);
      bool hit = tl_flow__indexes_with(e, TL_CHILD(n, body), var, 0);
      free(var);
      if (hit) return true;
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_flow__inner_index_loop(e, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

/* The indices of subscript n that pick (not slices, not `...`). */
static uint32_t tl_flow__picks(TSNode n) {
  TSNode v = TL_CHILD(n, value);
  uint32_t k = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode ch = ts_node_named_child(n, i);
    if (!ts_node_eq(ch, v) && !tl_node_is(ch, "slice") && !tl_node_is(ch, "ellipsis") && !tl_node_is(ch, "comment"))
      k++;
  }
  return k;
}

/* Does n pick single elements of a tensor with `var` among the indices: `t[i, j]`, `t[i, y[i]]`,
 * `t[i][j]` (two picking indices, not a row `t[i]` nor a slice of one `t[i][:, 0::2]`)? */
static bool tl_flow__element_access(const tl_match_env *e, TSNode n, const char *var, int depth) {
  if (depth > 60 || ts_node_is_null(n) || tl_flow__new_scope(n)) return false;
  if (tl_node_is(n, "subscript") && tl_node_mentions(n, e->src, var)) {
    TSNode v = TL_CHILD(n, value);
    uint32_t picks = tl_flow__picks(n);
    if (tl_node_is(v, "subscript") && tl_flow__picks(v) && tl_node_mentions(v, e->src, var)) {
      TSNode in = TL_CHILD(v, value);
      if (!tl_node_mentions(in, e->src, var)) picks += 1, v = in; /* t[i][j]: the elements of t */
    }
    if (picks >= 2 && !tl_node_is(ts_node_parent(n), "call")) {
      tl_valkind k = tl_value_classify(e->m, v, e->src, e->func, 0);
      if (k != TL_VAL_LIST && k != TL_VAL_PY && k != TL_VAL_CPU) return true;
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_flow__element_access(e, ts_node_named_child(n, i), var, depth + 1)) return true;
  return false;
}

/* #element-cost! @body @var: a directive (always holds). A loop over a batch whose iterations
 * each take a row (`t[i]`) and launch a few kernels on it costs a few launches per image, small
 * next to a step. The cost the rule names comes with single elements (`t[i, y[i]] = 1`,
 * `d[i][j]`), a wait per iteration (a host read, an `if` on a tensor), or a loop over the elements
 * of each element (every box of every image). Without any of these, the finding is info. */
static tl_verdict tl_flow__element_cost(tl_match_env *e, const tl_pred *p, TSNode a) {
  char *var = tl_node_text(tl_match_cap(e, p->cap[1]), e->src);
  if (!tl_flow__element_access(e, a, var, 0) && !tl_flow__syncs(e, a, 0) && !tl_flow__inner_index_loop(e, a, 0))
    e->severity = TL_SEVERITY_INFO;
  free(var);
  return TL_PRED_VACUOUS;
}

/* #training-loader? @call: a DataLoader of training data (not a validation or test loader) */
static tl_verdict tl_flow__training(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_flow__training_loader(e, a));
}

/* #loader-restarts! @call "regex": the DataLoader's workers restart during a run. When it is
 * iterated again and again within a run bounded by steps (tl_flow__loader_reiterated) the finding
 * is a warning; else it holds, at the rule's severity, when the file matches the regex (an epoch
 * loop), and fails otherwise. */
static tl_verdict tl_flow__loader_restarts(tl_match_env *e, const tl_pred *p, TSNode a) {
  if (tl_flow__loader_reiterated(e, a)) {
    e->severity = TL_SEVERITY_WARNING;
    return TL_PRED_TRUE;
  }
  return tl_verdict_of(tl_match_code(e->w, e->file, p->re));
}

/* name, captures, strings, regex, gate, flags, function, project function, prepare */
const tl_pred_def tl_preds_flow[] = {
    {"in-if?", 1, 1, 0, TL_GATE_NONE, 0, tl_flow__in_if, NULL, NULL},
    {"step-accumulator?", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_flow__step_accum, NULL, NULL},
    {"accumulation-step?", 1, 0, -1, TL_GATE_NONE, 0, tl_flow__accum_step, NULL, NULL},
    {"accumulation-count!", 2, 0, -1, TL_GATE_NONE, TL_PF_BIND, tl_flow__accum_count, NULL, NULL},
    {"in-no-sync?", 1, 0, -1, TL_GATE_NONE, 0, tl_flow__no_sync, NULL, NULL},
    {"batch-bound?", 1, 0, -1, TL_GATE_NONE, 0, tl_flow__batch_bound, NULL, NULL},
    {"indexes-with?", 2, 0, -1, TL_GATE_NONE, 0, tl_flow__indexes, NULL, NULL},
    {"element-cost!", 2, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_flow__element_cost, NULL, NULL},
    {"training-loader?", 1, 0, -1, TL_GATE_NONE, 0, tl_flow__training, NULL, NULL},
    {"loader-restarts!", 1, 1, 0, TL_GATE_NONE, TL_PF_IMPURE | TL_PF_MULTILINE, tl_flow__loader_restarts, NULL, NULL},
    {NULL, 0, 0, -1, TL_GATE_NONE, 0, NULL, NULL, NULL},
};
