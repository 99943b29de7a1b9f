/* tl_frequency.c - how often code under a condition runs (tl_frequency.h). */
#include "tl_frequency.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "tl_util.h"

bool tl_freq_is_remainder(TSNode n, const char *src) {
  if (!tl_node_is(n, "binary_operator")) return false;
  TSNode op = TL_CHILD(n, operator);
  TSNode left = tl_unparen(TL_CHILD(n, left));
  return !ts_node_is_null(op) && ts_node_end_byte(op) - ts_node_start_byte(op) == 1 &&
         src[ts_node_start_byte(op)] == '%' && !tl_node_is(left, "string") && !tl_node_is(left, "concatenated_string");
}

static bool tl_freq__has_remainder(TSNode n, const char *src, int depth) {
  if (depth > 32 || ts_node_is_null(n)) return false;
  if (tl_freq_is_remainder(n, src)) return true;
  if (tl_node_is(n, "call") || tl_node_is(n, "lambda")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_freq__has_remainder(ts_node_named_child(n, i), src, depth + 1)) return true;
  return false;
}

bool tl_freq_has_remainder(TSNode n, const char *src) { return tl_freq__has_remainder(n, src, 0); }

static bool tl_freq__enumerates(TSNode scope, const char *src, TSNode e, uint32_t before, int depth);

/* Is a name bound, somewhere in `scope` before byte `before`, to what enumerates: `pbar =
 * enumerate(loader)`, then `pbar = tqdm(pbar, total=n)`? (Searched in the statements of the
 * function, not in nested ones.) */
static bool tl_freq__bound_to_enumerate(TSNode n, TSNode scope, const char *src, TSNode name, uint32_t before,
                                        int depth) {
  if (depth > 64 || ts_node_start_byte(n) >= before) return false;
  if (tl_node_is(n, "assignment")) {
    TSNode l = TL_CHILD(n, left), r = TL_CHILD(n, right);
    uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
    if (tl_node_is(l, "identifier") && ts_node_end_byte(l) - ts_node_start_byte(l) == b - a &&
        !memcmp(src + ts_node_start_byte(l), src + a, b - a) &&
        tl_freq__enumerates(scope, src, r, ts_node_start_byte(n), 1))
      return true;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode k = ts_node_named_child(n, i);
    if (tl_node_is(k, "function_definition") || tl_node_is(k, "class_definition") || tl_node_is(k, "lambda")) continue;
    if (tl_freq__bound_to_enumerate(k, scope, src, name, before, depth + 1)) return true;
  }
  return false;
}

/* Does expression `e` yield (counter, item) pairs: `enumerate(...)`, or a wrapper called with one
 * as first argument (`tqdm(enumerate(loader))`, `tqdm(pbar)` with `pbar = enumerate(loader)`)? */
static bool tl_freq__enumerates(TSNode scope, const char *src, TSNode e, uint32_t before, int depth) {
  e = tl_unparen(e);
  if (depth > 4) return false;
  if (tl_node_is(e, "identifier"))
    return !ts_node_is_null(scope) && tl_freq__bound_to_enumerate(scope, scope, src, e, before, depth);
  if (!tl_node_is(e, "call")) return false;
  TSNode fn = TL_CHILD(e, function), args = TL_CHILD(e, arguments);
  if (tl_node_is(fn, "identifier") && ts_node_end_byte(fn) - ts_node_start_byte(fn) == 9 &&
      !memcmp(src + ts_node_start_byte(fn), "enumerate", 9))
    return true;
  return !ts_node_is_null(args) && ts_node_named_child_count(args) > 0 &&
         !tl_node_is(ts_node_named_child(args, 0), "keyword_argument") &&
         tl_freq__enumerates(scope, src, ts_node_named_child(args, 0), before, depth + 1);
}

/* Is `name` the counter of a loop around `at` in the same function: `for i in range(...)`,
 * `for step, batch in enumerate(...)`, `for i, batch in pbar` with `pbar = tqdm(enumerate(...))`? */
static bool tl_freq__is_loop_counter(TSNode at, const char *src, TSNode name) {
  tl_up up;
  tl_up_init(&up, at);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p); p = tl_up_next(&up)) {
    if (tl_node_is(p, "function_definition") || tl_node_is(p, "class_definition") || tl_node_is(p, "lambda")) break;
    if (!tl_node_is(p, "for_statement")) continue;
    TSNode left = TL_CHILD(p, left), right = TL_CHILD(p, right);
    TSNode fn = tl_node_is(right, "call") ? TL_CHILD(right, function) : (TSNode){0};
    TSNode target = (TSNode){0};
    bool pair = (tl_node_is(left, "pattern_list") || tl_node_is(left, "tuple_pattern")) &&
                ts_node_named_child_count(left);
    if (tl_node_is(fn, "identifier") && ts_node_end_byte(fn) - ts_node_start_byte(fn) == 5 &&
        !memcmp(src + ts_node_start_byte(fn), "range", 5)) {
      target = left;
    } else if (pair) {
      /* the function around the loop, where `pbar = enumerate(loader)` may be bound */
      TSNode scope = p;
      tl_up up2;
      tl_up_init(&up2, p);
      for (TSNode q = tl_up_next(&up2); !ts_node_is_null(q); q = tl_up_next(&up2)) {
        scope = q;
        if (tl_node_is(q, "function_definition")) break;
      }
      if (tl_freq__enumerates(scope, src, right, ts_node_start_byte(p), 0)) target = ts_node_named_child(left, 0);
    }
    uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
    if (tl_node_is(target, "identifier") && ts_node_end_byte(target) - ts_node_start_byte(target) == b - a &&
        !memcmp(src + ts_node_start_byte(target), src + a, b - a))
      return true;
  }
  return false;
}

/* `c` or `c + k` / `c - k` with k an integer literal: the identifier or attribute `c`, or null. */
static TSNode tl_freq__counter_operand(TSNode n) {
  n = tl_unparen(n);
  if (tl_node_is(n, "binary_operator") && tl_node_is(ts_node_child_by_field_name(n, "right", 5), "integer")) {
    TSNode op = ts_node_child_by_field_name(n, "operator", 8);
    const char *o = ts_node_type(op);
    if (!ts_node_is_null(op) && (!strcmp(o, "+") || !strcmp(o, "-"))) n = ts_node_child_by_field_name(n, "left", 4);
  }
  return tl_node_is(n, "identifier") || tl_node_is(n, "attribute") ? n : (TSNode){0};
}

/* Does the last component of a counter-like name look like a step/iteration/epoch count? */
static bool tl_freq__step_counter_name(TSNode n, const char *src) {
  if (tl_node_is(n, "attribute")) n = ts_node_child_by_field_name(n, "attribute", 9);
  if (!tl_node_is(n, "identifier")) return false;
  const char *s = src + ts_node_start_byte(n);
  size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
  return tl_icontains(s, len, "step") || tl_icontains(s, len, "iter") || tl_icontains(s, len, "epoch") ||
         (len == 2 && !memcmp(s, "it", 2));
}

bool tl_freq_skips_steps(TSNode cond, const char *src) {
  cond = tl_unparen(cond);
  TSNode rem = cond;
  if (tl_node_is(cond, "comparison_operator")) { /* `step % every != 0` */
    TSNode a = ts_node_named_child(cond, 0), b = ts_node_named_child(cond, 1);
    if (ts_node_named_child_count(cond) != 2 || !tl_node_text_eq(tl_unparen(b), src, "0")) return false;
    TSNode op = ts_node_child(cond, 1);
    if (ts_node_is_null(op) || strcmp(ts_node_type(op), "!=")) return false;
    rem = tl_unparen(a);
  }
  if (!tl_freq_is_remainder(rem, src)) return false;
  TSNode c = tl_freq__counter_operand(ts_node_child_by_field_name(rem, "left", 4));
  return !ts_node_is_null(c) && (tl_freq__step_counter_name(c, src) ||
                                 (tl_node_is(c, "identifier") && tl_freq__is_loop_counter(cond, src, c)));
}

/* Does an expression name the end of training: `max_steps`, `args.total_iters`, `num_epochs - 1`,
 * `len(loader) - 1`? (A name or attribute, or `len(...)`, give or take an integer; a fraction of
 * the run such as `total_steps * 0.1` is not the end.) */
static bool tl_freq__end_bound(TSNode n, const char *src) {
  TSNode c = tl_freq__counter_operand(n);
  if (ts_node_is_null(c)) {
    if (tl_node_is(n, "binary_operator") && tl_node_is(ts_node_child_by_field_name(n, "right", 5), "integer"))
      n = ts_node_child_by_field_name(n, "left", 4);
    TSNode fn = tl_node_is(n, "call") ? ts_node_child_by_field_name(n, "function", 8) : (TSNode){0};
    return tl_node_is(fn, "identifier") && ts_node_end_byte(fn) - ts_node_start_byte(fn) == 3 &&
           !memcmp(src + ts_node_start_byte(fn), "len", 3);
  }
  n = c;
  const char *s = src + ts_node_start_byte(n);
  size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
  return tl_icontains(s, len, "max") || tl_icontains(s, len, "total") || tl_icontains(s, len, "num_") ||
         tl_icontains(s, len, "last") || tl_icontains(s, len, "final");
}

/* Is `b` the bound of a loop around `n`: `while it < b:` or `for i in range(..., b)`? A counter that
 * reaches its loop's own bound does so on one iteration, whatever the bound is called. */
/* Does a `while` condition bound its loop by the text src[bs, bs + bl): `it < b`, `it <= b`, also as
 * one side of an `and` (`while it < iters and not stop:`)? */
static bool tl_freq__while_bound(TSNode c, const char *src, uint32_t bs, uint32_t bl, int depth) {
  c = tl_unparen(c);
  if (depth > 8) return false;
  if (tl_node_is(c, "boolean_operator")) {
    TSNode op = TL_CHILD(c, operator);
    if (ts_node_is_null(op) || strncmp(src + ts_node_start_byte(op), "and", 3)) return false;
    return tl_freq__while_bound(TL_CHILD(c, left), src, bs, bl, depth + 1) ||
           tl_freq__while_bound(TL_CHILD(c, right), src, bs, bl, depth + 1);
  }
  if (!tl_node_is(c, "comparison_operator") || ts_node_named_child_count(c) != 2) return false;
  TSNode bound = {0};
  for (uint32_t i = 0; i < ts_node_child_count(c); i++) {
    TSNode ch = ts_node_child(c, i);
    if (!ts_node_is_named(ch) && (!strcmp(ts_node_type(ch), "<") || !strcmp(ts_node_type(ch), "<=")))
      bound = ts_node_named_child(c, 1);
  }
  return !ts_node_is_null(bound) && ts_node_end_byte(bound) - ts_node_start_byte(bound) == bl &&
         !memcmp(src + ts_node_start_byte(bound), src + bs, bl);
}

static bool tl_freq__enclosing_loop_bound(TSNode n, TSNode b, const char *src) {
  uint32_t bs = ts_node_start_byte(b), bl = ts_node_end_byte(b) - bs;
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p); p = tl_up_next(&up)) {
    TSNode bound = (TSNode){0};
    if (tl_node_is(p, "function_definition") || tl_node_is(p, "class_definition")) break;
    if (tl_node_is(p, "while_statement")) {
      if (tl_freq__while_bound(TL_CHILD(p, condition), src, bs, bl, 0)) return true;
    } else if (tl_node_is(p, "for_statement")) {
      TSNode r = TL_CHILD(p, right);
      TSNode fn = tl_node_is(r, "call") ? TL_CHILD(r, function) : (TSNode){0};
      TSNode args = tl_node_is(r, "call") ? TL_CHILD(r, arguments) : (TSNode){0};
      uint32_t na = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
      if (tl_node_is(fn, "identifier") && ts_node_end_byte(fn) - ts_node_start_byte(fn) == 5 &&
          !memcmp(src + ts_node_start_byte(fn), "range", 5) && (na == 1 || na == 2))
        bound = ts_node_named_child(args, na - 1);
    }
    if (!ts_node_is_null(bound) && ts_node_end_byte(bound) - ts_node_start_byte(bound) == bl &&
        !memcmp(src + ts_node_start_byte(bound), src + bs, bl))
      return true;
  }
  return false;
}

/* A test that holds on one iteration (or from the end of training on):
 * `step == 0`, `batch_idx == last_idx`, `i + 1 == len(loader)` with a loop counter (`!=`: the else
 * is rare), and `global_step >= args.max_steps`, `it > max_iters`, `epoch == num_epochs - 1`
 * with a step/iteration/epoch count compared with an end-of-training bound. */
static tl_freq tl_freq__counter_test(TSNode cond, const char *src) {
  if (ts_node_named_child_count(cond) != 2) return TL_FREQ_NONE;
  TSNode a = ts_node_named_child(cond, 0), b = ts_node_named_child(cond, 1);
  const char *op = NULL;
  for (uint32_t i = 0; i < ts_node_child_count(cond) && !op; i++) {
    TSNode ch = ts_node_child(cond, i);
    if (!ts_node_is_named(ch)) op = ts_node_type(ch);
  }
  if (!op) return TL_FREQ_NONE;
  bool eq = !strcmp(op, "=="), ne = !strcmp(op, "!=");
  bool swapped = false;
  TSNode ca = tl_freq__counter_operand(a), cb = tl_freq__counter_operand(b);
  if (ts_node_is_null(ca) ||
      (!ts_node_is_null(cb) && tl_node_is(cb, "identifier") && tl_freq__is_loop_counter(cond, src, cb) &&
       !(tl_node_is(ca, "identifier") && tl_freq__is_loop_counter(cond, src, ca)))) {
    TSNode t = a;
    a = b;
    b = t;
    t = ca;
    ca = cb;
    cb = t;
    swapped = true;
  }
  if (ts_node_is_null(ca)) return TL_FREQ_NONE;
  bool counter = tl_node_is(ca, "identifier") && tl_freq__is_loop_counter(cond, src, ca);
  /* the other side: a literal, or an expression that does not mention the counter itself; the
   * counter: a loop's, or a name that counts steps (`self.iter == cfg.BURN_UP_STEP`, which a run
   * passes once) */
  if ((counter || tl_freq__step_counter_name(ca, src)) && (eq || ne) && !ts_node_is_null(b) &&
      !tl_node_is(b, "string")) {
    uint32_t cs = ts_node_start_byte(ca), cl = ts_node_end_byte(ca) - cs;
    const char *bs = src + ts_node_start_byte(b);
    size_t bl = ts_node_end_byte(b) - ts_node_start_byte(b);
    bool mentions = false;
    for (size_t i = 0; i + cl <= bl && !mentions; i++)
      mentions = !memcmp(bs + i, src + cs, cl) &&
                 (i == 0 || !(isalnum((unsigned char)bs[i - 1]) || bs[i - 1] == '_')) &&
                 (i + cl == bl || !(isalnum((unsigned char)bs[i + cl]) || bs[i + cl] == '_'));
    if (!mentions) return eq ? TL_FREQ_RARE_THEN : TL_FREQ_RARE_ELSE;
  }
  if ((counter || tl_freq__step_counter_name(ca, src)) &&
      (tl_freq__end_bound(b, src) || tl_freq__enclosing_loop_bound(cond, b, src))) {
    bool ge = swapped ? (!strcmp(op, "<=") || !strcmp(op, "<")) : (!strcmp(op, ">=") || !strcmp(op, ">"));
    if (eq || ge) return TL_FREQ_RARE_THEN;
  }
  return TL_FREQ_NONE;
}

/* Classifies an `if` condition: which branch runs only every N steps. */
/* Is the text of n `a`, or `b` (when not NULL)? */
static bool tl_freq__text_in(TSNode n, const char *src, const char *a, const char *b) {
  if (ts_node_is_null(n)) return false;
  size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
  const char *s = src + ts_node_start_byte(n);
  return (strlen(a) == len && !memcmp(s, a, len)) || (b && strlen(b) == len && !memcmp(s, b, len));
}

/* Does a flag's name say that it holds at the end of something, once: `should_stop`, `done`,
 * `end_of_epoch`, `is_last`, `last_step`, `final_iter`? (The last component of a dotted name, in
 * words split at underscores.) Such a flag turns true on one step of an epoch or a run. */
static bool tl_freq__end_flag_name(TSNode n, const char *src) {
  if (tl_node_is(n, "attribute")) n = TL_CHILD(n, attribute);
  if (!tl_node_is(n, "identifier")) return false;
  const char *s = src + ts_node_start_byte(n), *e = src + ts_node_end_byte(n);
  bool endword = false, lastword = false, unit = false, is = false, of = false, grad = false;
  for (const char *w = s; w < e;) {
    const char *x = w;
    while (x < e && *x != '_') x++;
    size_t k = (size_t)(x - w);
#define TL_W(lit) (k == sizeof lit - 1 && !strncasecmp(w, lit, k))
    if (TL_W("stop") || TL_W("stopped") || TL_W("done") || TL_W("finished") || TL_W("terminated")) endword = true;
    if (TL_W("end") && x < e && !strncasecmp(x + 1, "of", 2)) of = true;
    if (TL_W("last") || TL_W("final")) lastword = true;
    if (TL_W("step") || TL_W("iter") || TL_W("iteration") || TL_W("epoch") || TL_W("batch")) unit = true;
    if (w == s && TL_W("is")) is = true;
    if (TL_W("grad") || TL_W("gradient") || TL_W("gradients")) grad = true; /* Paddle's stop_gradient */
#undef TL_W
    w = x < e ? x + 1 : x;
  }
  return !grad && (endword || of || (lastword && (unit || is)));
}

static tl_freq tl_freq__test(TSNode cond, const char *src, const char *const *guard_names, size_t nguard, int depth) {
  if (depth > 16 || ts_node_is_null(cond)) return TL_FREQ_NONE;
  const char *t = ts_node_type(cond);
  if (!strcmp(t, "parenthesized_expression"))
    return tl_freq__test(ts_node_named_child(cond, 0), src, guard_names, nguard, depth + 1);
  if (!strcmp(t, "not_operator")) {
    tl_freq f = tl_freq__test(TL_CHILD(cond, argument), src, guard_names, nguard, depth + 1);
    return f == TL_FREQ_RARE_THEN ? TL_FREQ_RARE_ELSE : f == TL_FREQ_RARE_ELSE ? TL_FREQ_RARE_THEN : TL_FREQ_NONE;
  }
  if (!strcmp(t, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    bool is_and = !ts_node_is_null(op) && !strncmp(src + ts_node_start_byte(op), "and", 3);
    tl_freq l = tl_freq__test(TL_CHILD(cond, left), src, guard_names, nguard, depth + 1);
    tl_freq r = tl_freq__test(TL_CHILD(cond, right), src, guard_names, nguard, depth + 1);
    if (is_and) return (l == TL_FREQ_RARE_THEN || r == TL_FREQ_RARE_THEN) ? TL_FREQ_RARE_THEN : TL_FREQ_NONE;
    return (l == TL_FREQ_RARE_THEN && r == TL_FREQ_RARE_THEN) ? TL_FREQ_RARE_THEN : TL_FREQ_NONE;
  }
  if (!strcmp(t, "comparison_operator")) {
    if (!tl_freq_has_remainder(cond, src)) return tl_freq__counter_test(cond, src);
    /* `x % n == k` is rare; `x % n != k` is frequent (its else is rare). */
    for (uint32_t i = 0; i < ts_node_child_count(cond); i++) {
      TSNode ch = ts_node_child(cond, i);
      if (ts_node_is_named(ch)) continue;
      const char *op = ts_node_type(ch);
      if (!strcmp(op, "!=")) return TL_FREQ_RARE_ELSE;
      if (!strcmp(op, "==")) return TL_FREQ_RARE_THEN;
    }
    return TL_FREQ_NONE;
  }
  if (!strcmp(t, "binary_operator") && tl_freq_has_remainder(cond, src))
    return TL_FREQ_RARE_ELSE; /* truthy remainder */
  if (!strcmp(t, "identifier") || !strcmp(t, "attribute")) {
    char *d = tl_dotted(cond, src);
    bool hit = false;
    for (size_t i = 0; d && i < nguard && !hit; i++) hit = !strcmp(guard_names[i], d);
    free(d);
    return hit || tl_freq__end_flag_name(cond, src) ? TL_FREQ_RARE_THEN : TL_FREQ_NONE;
  }
  if (!strcmp(t, "call")) { /* divisible_by(step, n): a function that returns a remainder test ("name()") */
    TSNode fn = TL_CHILD(cond, function);
    /* a numeric failure: `math.isnan(loss)`, `torch.isinf(x).any()` hold once in a blue moon;
     * `math.isfinite(loss)`, `torch.isfinite(x).all()` fail as rarely */
    TSNode test = cond;
    if (!strcmp(ts_node_type(fn), "attribute") && tl_freq__text_in(TL_CHILD(fn, attribute), src, "any", "all") &&
        !strcmp(ts_node_type(TL_CHILD(fn, object)), "call"))
      test = TL_CHILD(fn, object);
    TSNode tf = TL_CHILD(test, function);
    TSNode name = !strcmp(ts_node_type(tf), "attribute") ? TL_CHILD(tf, attribute) : tf;
    if (tl_freq__text_in(name, src, "isnan", "isinf")) return TL_FREQ_RARE_THEN;
    if (tl_freq__text_in(name, src, "isfinite", NULL)) return TL_FREQ_RARE_ELSE;
    char *d = tl_dotted(fn, src);
    size_t ln = 0;
    const char *last = d ? tl_dotted_last(d, &ln) : NULL;
    bool hit = false;
    for (size_t i = 0; last && i < nguard && !hit; i++) {
      size_t gl = strlen(guard_names[i]);
      hit = gl == ln + 2 && !memcmp(guard_names[i], last, ln) && !strcmp(guard_names[i] + ln, "()");
    }
    free(d);
    return hit ? TL_FREQ_RARE_THEN : TL_FREQ_NONE;
  }
  return TL_FREQ_NONE;
}

tl_freq tl_freq_test(TSNode cond, const char *src, const char *const *guard_names, size_t nguard) {
  return tl_freq__test(cond, src, guard_names, nguard, 0);
}

/* ---- blocks that fill a cache ---- */

/* Is n the attribute `self.<name>` (one level)? */
static bool tl_freq__self_attr(TSNode n, const char *src) {
  return tl_node_is(n, "attribute") && tl_node_text_eq(TL_CHILD(n, object), src, "self") &&
         tl_node_is(TL_CHILD(n, attribute), "identifier");
}

static bool tl_freq__same_text(TSNode a, TSNode b, const char *src) {
  uint32_t al = ts_node_end_byte(a) - ts_node_start_byte(a), bl = ts_node_end_byte(b) - ts_node_start_byte(b);
  return al == bl && !memcmp(src + ts_node_start_byte(a), src + ts_node_start_byte(b), al);
}

/* Is n a module-level name that its function declares `global` (`global _plugin` before `if _plugin
 * is None: _plugin = build()`)? Only the statements at the top of the function's body are read. */
bool tl_freq_global_name(TSNode n, const char *src) {
  if (!tl_node_is(n, "identifier")) return false;
  TSNode fn = ts_node_parent(n);
  while (!ts_node_is_null(fn) && !tl_node_is(fn, "function_definition") && !tl_node_is(fn, "class_definition"))
    fn = ts_node_parent(fn);
  TSNode body = tl_node_is(fn, "function_definition") ? TL_CHILD(fn, body) : (TSNode){0};
  uint32_t n_stmts = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
  for (uint32_t i = 0; i < n_stmts && i < 16; i++) {
    TSNode st = ts_node_named_child(body, i);
    if (!tl_node_is(st, "global_statement")) continue;
    for (uint32_t k = 0; k < ts_node_named_child_count(st); k++)
      if (tl_freq__same_text(ts_node_named_child(st, k), n, src)) return true;
  }
  return false;
}

/* Does the subtree n mention the text of attr (`self.cache`)? */
static bool tl_freq__mentions(TSNode n, TSNode attr, const char *src, int depth) {
  if (ts_node_is_null(n) || depth > 32) return false;
  if (tl_node_is(n, "attribute") && tl_freq__same_text(n, attr, src)) return true;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_freq__mentions(ts_node_named_child(n, i), attr, src, depth + 1)) return true;
  return false;
}

/* The attribute whose emptiness the condition tests (or a module-level name the function declares
 * `global`, tl_freq__global_name): `self.x is None`, `not hasattr(self, "x")`
 * (then *name holds "x" and the null node is returned), `not self.x` (*flag set: the block must
 * set it to True), such a test `or` one that mentions the same attribute (`self.x is None or
 * n != self.x.size(0)`: the cache no longer fits), or such a test `and` any other. */
static TSNode tl_freq__empty_test(TSNode cond, const char *src, TSNode *name, bool *flag, int depth) {
  TSNode none = {0};
  if (depth > 8 || ts_node_is_null(cond)) return none;
  if (tl_node_is(cond, "parenthesized_expression"))
    return tl_freq__empty_test(tl_unparen(cond), src, name, flag, depth + 1);
  if (tl_node_is(cond, "comparison_operator") && ts_node_named_child_count(cond) == 2 &&
      ts_node_child_count(cond) == 3 &&
      (tl_freq__self_attr(ts_node_named_child(cond, 0), src) ||
       tl_freq_global_name(ts_node_named_child(cond, 0), src)) &&
      tl_node_is(ts_node_named_child(cond, 1), "none") && !strcmp(ts_node_type(ts_node_child(cond, 1)), "is"))
    return ts_node_named_child(cond, 0);
  if (tl_node_is(cond, "not_operator")) {
    TSNode a = TL_CHILD(cond, argument);
    if (tl_freq__self_attr(a, src) || tl_freq_global_name(a, src)) {
      *flag = true;
      return a;
    }
    TSNode fn = tl_node_is(a, "call") ? TL_CHILD(a, function) : none;
    TSNode args = tl_node_is(a, "call") ? TL_CHILD(a, arguments) : none;
    if (!ts_node_is_null(fn) && tl_node_text_eq(fn, src, "hasattr") && ts_node_named_child_count(args) == 2 &&
        tl_node_text_eq(ts_node_named_child(args, 0), src, "self") &&
        tl_node_is(ts_node_named_child(args, 1), "string"))
      *name = ts_node_named_child(args, 1);
    return none;
  }
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator), l = TL_CHILD(cond, left), r = TL_CHILD(cond, right);
    if (!ts_node_is_null(op) && !strncmp(src + ts_node_start_byte(op), "and", 3)) {
      /* `not self._built and self.config is None`: the block runs only while the first holds */
      TSNode a = tl_freq__empty_test(l, src, name, flag, depth + 1);
      if (!ts_node_is_null(a) || !ts_node_is_null(*name)) return a;
      *flag = false;
      return tl_freq__empty_test(r, src, name, flag, depth + 1);
    }
    if (ts_node_is_null(op) || strncmp(src + ts_node_start_byte(op), "or", 2)) return none;
    TSNode a = tl_freq__empty_test(l, src, name, flag, depth + 1);
    if (!ts_node_is_null(a) && !*flag && tl_freq__mentions(r, a, src, 0)) return a;
    *name = none; /* `not hasattr(self, "x") or other`: no test of emptiness alone */
    return none;
  }
  return none;
}

/* Does the block assign the attribute (`self.x = ...`; with `flag`, `self.x = True`; with a name
 * from hasattr, `self.<name> = ...`)? */
static bool tl_freq__assigns(TSNode n, TSNode attr, TSNode name, bool flag, const char *src, int depth) {
  if (ts_node_is_null(n) || depth > 24 || tl_node_is(n, "function_definition") || tl_node_is(n, "class_definition"))
    return false;
  if (tl_node_is(n, "assignment")) {
    TSNode left = TL_CHILD(n, left), right = TL_CHILD(n, right);
    bool same = false;
    if (!ts_node_is_null(attr)) {
      same = tl_freq__same_text(left, attr, src);
    } else if (tl_freq__self_attr(left, src)) {
      TSNode an = TL_CHILD(left, attribute);
      uint32_t s = ts_node_start_byte(name), e = ts_node_end_byte(name),
               al = ts_node_end_byte(an) - ts_node_start_byte(an);
      /* the string's text less its quotes: "x" or 'x' */
      same = e - s == al + 2 && !memcmp(src + s + 1, src + ts_node_start_byte(an), al);
    }
    if (same && (!flag || tl_node_is(tl_unparen(right), "true"))) return true;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_freq__assigns(ts_node_named_child(n, i), attr, name, flag, src, depth + 1)) return true;
  return false;
}

bool tl_freq_fills_once(TSNode cond, TSNode block, const char *src) {
  TSNode name = {0};
  bool flag = false;
  TSNode attr = tl_freq__empty_test(cond, src, &name, &flag, 0);
  if (ts_node_is_null(attr) && ts_node_is_null(name)) return false;
  return tl_freq__assigns(block, attr, name, flag, src, 0);
}
