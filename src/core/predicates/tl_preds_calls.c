/* tl_preds_calls.c - predicates on what names and calls resolve to: dotted names through the
 * imports, the call that made a value, and where a model called in a loop comes from. */
#include "tl_match.h"

#include <string.h>

/* #resolves-to? @a "torch.arange" ... / #resolves-match? @a "regex": the dotted name through the
 * imports. With `frameworks` configured, the APIs of the other framework are not recognised. */
static tl_verdict tl_calls__resolves(tl_match_env *e, const tl_pred *p, TSNode a, bool regex) {
  const char *q = tl_match_resolved(e, a);
  if (!q) return TL_PRED_FALSE;
  bool r = false;
  if (regex) {
    r = tl_match_re_cached(e, p, q, strlen(q));
  } else {
    for (size_t i = 0; i < p->nstrs && !r; i++) r = !strcmp(q, p->strs[i]);
  }
  if (r && e->frameworks && e->frameworks->n) {
    size_t top = strcspn(q, ".");
    bool known = (top == 5 && !strncmp(q, "torch", 5)) || (top == 6 && !strncmp(q, "paddle", 6));
    bool listed = false;
    for (size_t i = 0; i < e->frameworks->n && !listed; i++)
      listed = strlen(e->frameworks->v[i]) == top && !strncmp(q, e->frameworks->v[i], top);
    if (known && !listed) r = false;
  }
  return tl_verdict_of(r);
}

static tl_verdict tl_calls__resolves_to(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_calls__resolves(e, p, a, false);
}

static tl_verdict tl_calls__resolves_match(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_calls__resolves(e, p, a, true);
}

static bool tl_calls__callee_matches(const tl_match_env *c, const char *callee, const pcre2_code *re) {
  if (!callee) return false;
  char *q = tl_model_resolve(c->m, callee);
  bool r = tl_match_re(c, re, q, strlen(q));
  free(q);
  return r;
}

/* Is n (or the value bound to it) a call of a function whose resolved name matches? */
static bool tl_calls__is_value_from(const tl_match_env *c, TSNode n, const pcre2_code *re) {
  n = tl_unparen(n);
  if (tl_node_is(n, "call")) {
    char *callee = tl_dotted(TL_CHILD(n, function), c->src);
    bool r = tl_calls__callee_matches(c, callee, re);
    free(callee);
    return r;
  }
  if (!tl_node_is(n, "identifier") && !tl_node_is(n, "attribute")) return false;
  char *d = tl_dotted(n, c->src);
  if (!d) return false;
  const tl_binding *b = tl_model_binding(c->m, d, c->func, ts_node_start_byte(n));
  bool r = false;
  if (b) {
    r = tl_calls__callee_matches(c, b->ctor, re);
  } else if (!strncmp(d, "self.", 5) && !strchr(d + 5, '.') && c->func >= 0 && (size_t)c->func < c->m->funcs.n) {
    /* an attribute set in any method of the class: self.stream = torch.cuda.Stream() */
    int32_t cls = c->m->funcs.v[c->func].cls;
    const tl_class *k = cls >= 0 ? &c->m->classes.v[cls] : NULL;
    for (size_t i = 0; k && i < k->attrs.n && !r; i++)
      if (!strcmp(k->attrs.v[i].name, d + 5)) r = tl_calls__callee_matches(c, k->attrs.v[i].ctor, re);
  }
  free(d);
  return r;
}

/* #value-from? @a "regex": @a is (bound to) a call of a function whose name matches */
static tl_verdict tl_calls__value_from(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_verdict_of(tl_calls__is_value_from(e, a, p->re));
}

/* The innermost loop of the function holding byte `at`, or -1. */
static int32_t tl_calls__own_loop(const tl_match_env *c, uint32_t at) {
  int32_t l = tl_model_loop_at(c->m, at);
  return l >= 0 && c->m->loops.v[l].func == c->func ? l : -1;
}

/* Is a value (a call, or either branch of `DDP(m) if dist else m`) a call whose resolved name matches? */
static bool tl_calls__value_call_matches(const tl_match_env *c, TSNode v, const pcre2_code *re, int depth) {
  v = tl_unparen(v);
  if (ts_node_is_null(v) || depth > 4) return false;
  if (tl_node_is(v, "call")) {
    char *callee = tl_dotted(ts_node_child_by_field_name(v, "function", 8), c->src);
    bool r = tl_calls__callee_matches(c, callee, re);
    free(callee);
    return r;
  }
  if (tl_node_is(v, "conditional_expression"))
    for (uint32_t i = 0; i < ts_node_named_child_count(v); i += 2)
      if (tl_calls__value_call_matches(c, ts_node_named_child(v, i), re, depth + 1)) return true;
  return false;
}

/* Was the object named `d` (called at `at` in the function) made by a matching call: a local
 * binding, `self.x` set in any method of the class, or a module-level binding? */
/* Is the statement at byte `byte` in a branch or a loop body that does not hold byte `at` (so that
 * what it binds may not reach `at`, and an earlier binding may)? */
static bool tl_calls__conditional(TSNode root, uint32_t byte, uint32_t at) {
  TSNode n = ts_node_descendant_for_byte_range(root, byte, byte + 1);
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p); p = tl_up_next(&up))
    if ((tl_node_is(p, "if_statement") || tl_node_is(p, "try_statement") || tl_node_is(p, "for_statement") ||
         tl_node_is(p, "while_statement")) &&
        !(ts_node_start_byte(p) <= at && at < ts_node_end_byte(p)))
      return true;
  return false;
}

/* `root`: the file's tree, to look past bindings made only on some paths (`if use_fleet: model =
 * fleet.distributed_model(model)` after `if parallel: model = paddle.DataParallel(model)`). */
static bool tl_calls__object_from(const tl_match_env *c, TSNode root, const char *d, uint32_t at,
                                  const pcre2_code *re) {
  const tl_binding *b = tl_model_binding(c->m, d, c->func, at);
  for (int k = 0; b && k < 8; k++) {
    if (tl_calls__callee_matches(c, b->ctor, re) || tl_calls__value_call_matches(c, tl_bvalue(c->m, b), re, 0))
      return true;
    /* (a binding takes effect where its statement ends: test where its value starts) */
    uint32_t where = b->vsym ? b->vstart : b->byte ? b->byte - 1 : 0;
    if (ts_node_is_null(root) || !b->byte || !tl_calls__conditional(root, where, at)) return false;
    b = tl_model_binding(c->m, d, c->func, b->byte - 1);
  }
  if (b) return false;
  if (!strncmp(d, "self.", 5) && !strchr(d + 5, '.') && c->func >= 0 && (size_t)c->func < c->m->funcs.n) {
    int32_t cls = c->m->funcs.v[c->func].cls;
    const tl_class *k = cls >= 0 ? &c->m->classes.v[cls] : NULL;
    bool r = false;
    for (size_t i = 0; k && i < k->attrs.n && !r; i++)
      if (!strcmp(k->attrs.v[i].name, d + 5))
        r = tl_calls__callee_matches(c, k->attrs.v[i].ctor, re) ||
            tl_calls__value_call_matches(c, tl_bvalue(c->m, &k->attrs.v[i]), re, 0);
    return r;
  }
  if (c->func > 0 && !strchr(d, '.')) {
    b = tl_model_binding(c->m, d, 0, UINT32_MAX);
    if (b)
      return tl_calls__callee_matches(c, b->ctor, re) || tl_calls__value_call_matches(c, tl_bvalue(c->m, b), re, 0);
  }
  return false;
}

/* #loop-model-from? @a "regex": an object called in @a's loop was made by a matching call */
static tl_verdict tl_calls__loop_model_from(tl_match_env *c, const tl_pred *p, TSNode n) {
  const pcre2_code *re = p->re;
  int32_t l = tl_calls__own_loop(c, ts_node_start_byte(n));
  if (l < 0) return TL_PRED_FALSE;
  const tl_loop *lp = &c->m->loops.v[l];
  for (size_t i = 0; i < c->m->calls.n; i++) {
    const tl_call *cl = &c->m->calls.v[i];
    if (cl->func != c->func || cl->byte < lp->start || cl->byte >= lp->end || strpbrk(cl->callee, "([")) continue;
    if (tl_calls__object_from(c, ts_tree_root_node(n.tree), cl->callee, cl->byte, re)) return TL_PRED_TRUE;
  }
  return TL_PRED_FALSE;
}

/* Is `name` a parameter of the function definition `fn`? */
static bool tl_calls__is_param(TSNode fn, const char *src, const char *name) {
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
 * plain name (`self.model = model` in `__init__`): #loop-model-param? @a. */
static tl_verdict tl_calls__loop_model_param(tl_match_env *c, const tl_pred *p, TSNode n) {
  (void)p;
  int32_t l = tl_calls__own_loop(c, ts_node_start_byte(n));
  if (l < 0) return TL_PRED_FALSE;
  const tl_loop *lp = &c->m->loops.v[l];
  TSNode fn = n;
  tl_up up;
  tl_up_init(&up, n);
  while (!ts_node_is_null(fn) && !tl_node_is(fn, "function_definition")) fn = tl_up_next(&up);
  if (ts_node_is_null(fn)) return TL_PRED_FALSE;
  for (size_t i = 0; i < c->m->calls.n; i++) {
    const tl_call *cl = &c->m->calls.v[i];
    if (cl->func != c->func || cl->byte < lp->start || cl->byte >= lp->end || strpbrk(cl->callee, "([") ||
        !(tl_model_call_work(cl->callee) & TL_WORK_MODEL))
      continue;
    if (!strchr(cl->callee, '.')) {
      if (!tl_model_binding(c->m, cl->callee, c->func, cl->byte) && tl_calls__is_param(fn, c->src, cl->callee))
        return TL_PRED_TRUE;
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
      if (from_name && !other) return TL_PRED_TRUE;
    }
  }
  return TL_PRED_FALSE;
}

/* Is `ctor` (a binding's callee text) a logger factory: `logging.getLogger`, `get_logger`,
 * `parent.getChild`? */
static bool tl_calls__logger_ctor(const char *ctor) {
  if (!ctor) return false;
  const char *last = strrchr(ctor, '.');
  last = last ? last + 1 : ctor;
  return !strcmp(last, "getLogger") || !strcmp(last, "get_logger") || !strcmp(last, "getChild");
}

/* #logger? @fn: @fn is a method of a logger known by its binding, whatever its name: the receiver
 * is a name bound in the function or the module, or an attribute `self.x` of the enclosing class,
 * to `logging.getLogger(...)`, `get_logger(...)` or `....getChild(...)` (TL402 also knows loggers
 * by their names: `logger`, `LOGGER`, `log`). */
static tl_verdict tl_calls__logger(tl_match_env *e, const tl_pred *p, TSNode fn) {
  (void)p;
  if (!tl_node_is(fn, "attribute")) return TL_PRED_FALSE;
  char *d = tl_dotted(TL_CHILD(fn, object), e->src);
  if (!d) return TL_PRED_FALSE;
  uint32_t at = ts_node_start_byte(fn);
  const tl_binding *b = tl_model_binding(e->m, d, e->func, at);
  if (!b && e->func > 0) b = tl_model_binding(e->m, d, 0, UINT32_MAX); /* a module-level logger */
  bool r = b && tl_calls__logger_ctor(b->ctor);
  if (!b && !strncmp(d, "self.", 5) && !strchr(d + 5, '.') && e->func > 0 && e->m->funcs.v[e->func].cls >= 0) {
    const tl_class *k = &e->m->classes.v[e->m->funcs.v[e->func].cls];
    for (size_t i = 0; i < k->attrs.n && !r; i++)
      r = !strcmp(k->attrs.v[i].name, d + 5) && tl_calls__logger_ctor(k->attrs.v[i].ctor);
  }
  free(d);
  return tl_verdict_of(r);
}

/* name, captures, strings, regex, gate, flags, function, project function, prepare */
const tl_pred_def tl_preds_calls[] = {
    {"resolves-to?", 1, -1, -1, TL_GATE_STRINGS, TL_PF_TEXT | TL_PF_NAME, tl_calls__resolves_to, NULL, NULL},
    {"resolves-match?", 1, 1, 0, TL_GATE_REGEX, TL_PF_TEXT | TL_PF_NAME, tl_calls__resolves_match, NULL, NULL},
    {"value-from?", 1, 1, 0, TL_GATE_NONE, 0, tl_calls__value_from, NULL, NULL},
    {"loop-model-from?", 1, 1, 0, TL_GATE_NONE, 0, tl_calls__loop_model_from, NULL, NULL},
    {"loop-model-param?", 1, 0, -1, TL_GATE_NONE, 0, tl_calls__loop_model_param, NULL, NULL},
    {"logger?", 1, 0, -1, TL_GATE_NONE, 0, tl_calls__logger, NULL, NULL},
    {NULL, 0, 0, -1, TL_GATE_NONE, 0, NULL, NULL, NULL},
};
