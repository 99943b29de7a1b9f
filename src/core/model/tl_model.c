/* tl_model.c - the per-file semantic model: imports, classes, functions, loops, calls,
 * frequency guards and local value bindings, built in one walk over the syntax tree. */
#include "tl_model_walk.h"

#include "tl_frequency.h"
#include "tl_vocab.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define TL_MAX_DEPTH 1500    /* deeper constructs are parsed but not modelled (see docs/limits.md) */
#define TL_MAX_WIDTH 1000000 /* constructs with more children (not the module) likewise */

static void tl_model__bind_index(tl_file_model *m);

/* ---- the walk ---- */


/* The rest of the block around the `if` n after it (*start..*end), when n has no `else`/`elif` and
 * something follows it in a block: what runs only when the `if`'s block did not leave. */
static bool tl_model__rest_after(TSNode n, uint32_t *start, uint32_t *end) {
  TSNode parent = ts_node_parent(n);
  if (!tl_node_is(n, "if_statement") || !ts_node_is_null(TL_CHILD(n, alternative)) || !tl_node_is(parent, "block") ||
      ts_node_end_byte(parent) <= ts_node_end_byte(n))
    return false;
  *start = ts_node_end_byte(n);
  *end = ts_node_end_byte(parent);
  return true;
}

/* Does the `if`'s block end by leaving the rest of its block: `return`, or `continue` in a loop? */
static bool tl_model__exits(TSNode n) {
  TSNode last = tl_last_code_child(TL_CHILD(n, consequence));
  return tl_node_is(last, "return_statement") || tl_node_is(last, "continue_statement");
}

/* Visits a statement of a block; after an early exit on most steps (tl_freq_skips_steps: `if step
 * % every != 0: return`, `if it % log_interval: continue`), the rest of the block runs now and
 * then: a frequency-guarded range, and the walk's guard depth raised for it (once: *rest). */
static void tl_walk__statement(tl_walk_ctx *c, TSNode st, bool in_block, bool *rest, int depth) {
  tl_walk_visit(c, st, depth);
  uint32_t start, end;
  if (!in_block || *rest || !tl_model__rest_after(st, &start, &end) || !tl_model__exits(st) ||
      !tl_freq_skips_steps(TL_CHILD(st, condition), c->src))
    return;
  tl_range r = {start, end, 0};
  tl_vec_push(&c->m->guards, r);
  c->guard_depth++;
  *rest = true;
}

static void tl_walk_children(tl_walk_ctx *c, TSNode n, int depth) {
  uint32_t k = ts_node_named_child_count(n);
  bool block = tl_node_is(n, "block"), rest = false;
  if (k <= 8) { /* few children: indexing is cheaper than resetting the cursor */
    for (uint32_t i = 0; i < k; i++) tl_walk__statement(c, ts_node_named_child(n, i), block, &rest, depth + 1);
    if (rest) c->guard_depth--;
    return;
  }
  size_t base = c->kids.n;
  ts_tree_cursor_reset(&c->cur, n);
  if (ts_tree_cursor_goto_first_child(&c->cur)) {
    do {
      TSNode ch = ts_tree_cursor_current_node(&c->cur);
      if (ts_node_is_named(ch)) tl_vec_push(&c->kids, ch);
    } while (ts_tree_cursor_goto_next_sibling(&c->cur));
  }
  size_t end = c->kids.n;
  for (size_t i = base; i < end; i++) /* by index: kids may grow */
    tl_walk__statement(c, c->kids.v[i], block, &rest, depth + 1);
  if (rest) c->guard_depth--;
  c->kids.n = base;
}

static char *tl_join_module(const char *base, const char *name) {
  if (!name || !*name) return tl_strdup(base ? base : ""); /* `from . import x` at the top level: "" */
  if (!base || !*base) return tl_strdup(name);
  return tl_concat(base, ".", name);
}

/* The package a relative import with `dots` leading dots refers to. */
static char *tl_relative_base(const tl_file_model *m, int dots) {
  char *pkg = tl_strdup(m->module);
  int up = m->is_package ? dots - 1 : dots;
  for (int i = 0; i < up; i++) {
    char *dot = strrchr(pkg, '.');
    if (dot) *dot = 0;
    else pkg[0] = 0;
  }
  return pkg;
}

/* A string of the model: interned in its table. */
static const char *tl_model__str(tl_file_model *m, const char *s) { return tl_strtab_intern(&m->strs, s, strlen(s)); }

void tl_walk_set_import(tl_file_model *m, const char *alias, const char *qual) {
  tl_import_op op = {tl_model__str(m, alias), tl_model__str(m, qual)};
  tl_map_set(&m->imports, alias, (intptr_t)op.qual);
  tl_vec_push(&m->import_log, op);
}

static void tl_model_import(tl_walk_ctx *c, TSNode n) {
  const char *src = c->src;
  bool from = tl_node_is(n, "import_from_statement");
  char *base = NULL;
  if (from) {
    TSNode mod = TL_CHILD(n, module_name);
    if (tl_node_is(mod, "relative_import")) {
      int dots = 0;
      char *rest = NULL;
      for (uint32_t i = 0; i < ts_node_named_child_count(mod); i++) {
        TSNode ch = ts_node_named_child(mod, i);
        if (tl_node_is(ch, "import_prefix")) dots = (int)(ts_node_end_byte(ch) - ts_node_start_byte(ch));
        else if (tl_node_is(ch, "dotted_name")) rest = tl_node_text(ch, src);
      }
      char *pkg = tl_relative_base(c->m, dots);
      base = tl_join_module(pkg, rest);
      free(pkg);
      free(rest);
    } else if (!ts_node_is_null(mod)) {
      base = tl_node_text(mod, src);
    }
  }
  /* The imported names: every dotted_name / aliased_import child except the module name.
   * (Named children, not ts_node_field_name_for_child: that misreports repeated fields.) */
  TSNode modnode = from ? TL_CHILD(n, module_name) : (TSNode){0};
  uint32_t cnt = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode ch = ts_node_named_child(n, i);
    if (from && base && tl_node_is(ch, "wildcard_import")) {
      /* `from .ema import *`: every public name of the module, found there by the project pass
       * (the imports hold it as "*0", "*1", ... in order) */
      char key[24];
      intptr_t v;
      int k = 0;
      do snprintf(key, sizeof key, "*%d", k++);
      while (tl_map_get(&c->m->imports, key, &v) && k < 64);
      if (k < 64) tl_walk_set_import(c->m, key, base);
      continue;
    }
    if ((!tl_node_is(ch, "dotted_name") && !tl_node_is(ch, "aliased_import")) ||
        (!ts_node_is_null(modnode) && ts_node_eq(ch, modnode)))
      continue;
    char *name = NULL, *alias = NULL;
    if (tl_node_is(ch, "aliased_import")) {
      name = tl_node_text(TL_CHILD(ch, name), src);
      alias = tl_node_text(TL_CHILD(ch, alias), src);
    } else {
      name = tl_node_text(ch, src);
    }
    if (from) {
      char *q = tl_join_module(base, name);
      tl_walk_set_import(c->m, alias ? alias : name, q);
      free(q);
    } else if (alias) {
      tl_walk_set_import(c->m, alias, name);
    } else {
      /* `import a.b.c` binds `a`. */
      char *dot = strchr(name, '.');
      if (dot) *dot = 0;
      tl_walk_set_import(c->m, name, name);
    }
    free(name);
    free(alias);
  }
  free(base);
}

/* ---- frequency guards ---- */


/* A statement that ends the process: a call of sys.exit, os._exit, os.abort, exit or quit. */
static bool tl_no_return_call(tl_walk_ctx *c, TSNode stmt) {
  if (!tl_node_is(stmt, "expression_statement") || ts_node_named_child_count(stmt) != 1) return false;
  TSNode call = ts_node_named_child(stmt, 0);
  if (!tl_node_is(call, "call")) return false;
  char *d = tl_dotted(TL_CHILD(call, function), c->src);
  if (!d) return false;
  char *q = tl_model_resolve(c->m, d);
  bool r = !strcmp(q, "sys.exit") || !strcmp(q, "os._exit") || !strcmp(q, "os.abort") || !strcmp(d, "exit") ||
           !strcmp(d, "quit");
  free(q);
  free(d);
  return r;
}

/* A block in a loop of the current function whose last statement leaves the loop (`break`,
 * `return`, `raise`, or a call that ends the process: `sys.exit(1)`) runs at most once per run of that loop: the loop start from which it counts as
 * rare (`break`: the loop it ends; `return`/`raise`: any loop of the function), or 0. */
static uint32_t tl_exit_scope(tl_walk_ctx *c, TSNode block) {
  if (c->loop < 0 || c->m->loops.v[c->loop].func != c->func || ts_node_is_null(block)) return 0;
  TSNode last = tl_last_code_child(block);
  if (tl_node_is(last, "break_statement")) return c->m->loops.v[c->loop].start;
  if (tl_node_is(last, "return_statement") || tl_node_is(last, "raise_statement") || tl_no_return_call(c, last))
    return c->m->funcs.v[c->func].start + 1;
  return 0;
}

/* Does the block end the run it is in: its last statement (comments aside) a `raise`, or a call
 * that ends the process (`sys.exit(1)`)? Such a block (an error path: a message printed, then
 * `raise NotImplementedError`) runs once, not every step: the exception stops the step. */
static bool tl_model__block_raises(tl_walk_ctx *c, TSNode block) {
  TSNode last = tl_last_code_child(block);
  return tl_node_is(last, "raise_statement") || (!ts_node_is_null(last) && tl_no_return_call(c, last));
}

static void tl_walk_guarded(tl_walk_ctx *c, TSNode block, bool guarded, int depth) {
  if (ts_node_is_null(block)) return;
  guarded = guarded || tl_model__block_raises(c, block);
  uint32_t scope = guarded ? 0 : tl_exit_scope(c, block);
  if (guarded || scope) {
    tl_range r = {ts_node_start_byte(block), ts_node_end_byte(block), scope};
    tl_vec_push(&c->m->guards, r);
    c->guard_depth++;
  }
  tl_walk_visit(c, block, depth);
  if (guarded || scope) c->guard_depth--;
}

/* Is n a number literal equal to zero: 0, 0.0, 0., .0? */
static bool tl_model__zero(TSNode n, const char *src) {
  uint32_t st = ts_node_start_byte(n);
  return (tl_node_is(n, "integer") || tl_node_is(n, "float")) && tl_zero_literal(src + st, ts_node_end_byte(n) - st);
}

/* Is n a literal that is off: False, None, 0, 0.0, "" ? */
static bool tl_model__off_literal(TSNode n, const char *src) {
  n = tl_unparen(n);
  return tl_node_is(n, "false") || tl_node_is(n, "none") || tl_model__zero(n, src) || tl_node_text_eq(n, src, "\"\"") ||
         tl_node_text_eq(n, src, "''");
}

/* An option or setting whose default is the number 1 (`--gradient_accumulation_steps`, default=1):
 * "=1--name" in off_names, besides its "!--name" (a count that does nothing unless raised). */
static void tl_model__one(tl_walk_ctx *c, const char *name) {
  char *opt = tl_concat("=1", "--", name);
  tl_vec_push(&c->m->off_names, tl_model__str(c->m, opt));
  free(opt);
}

/* An option's literal default (`default="l2"`, `loss_type: str = "l2"`), or "!" for a value set in
 * the code (`args.loss_type = "huber"`): "=v--loss_type\x1fs:l2" in off_names, which value guards on
 * the option read (tl_project.c). Nothing without a literal. */
static void tl_model__option_value(tl_walk_ctx *c, const char *name, const char *lit) {
  if (!lit) return;
  char *v = tl_printf("=v--%s\x1f%s", name, lit);
  tl_vec_push(&c->m->off_names, tl_model__str(c->m, v));
  free(v);
}

/* An argparse option (`add_argument("--dump", "-d", action="store_true", dest=...)`): "--dump" in
 * off_names when it is off by default (store_true, or a default that is off), else "!--dump". */
static void tl_model__option(tl_walk_ctx *c, TSNode args) {
  const char *src = c->src;
  char *name = NULL;
  for (uint32_t i = 0; i < ts_node_named_child_count(args) && !name; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (!tl_node_is(a, "string") || ts_node_end_byte(a) - ts_node_start_byte(a) < 5) continue;
    const char *s = src + ts_node_start_byte(a) + 1;
    if (s[0] == '-' && s[1] == '-') name = tl_strndup(s + 2, ts_node_end_byte(a) - ts_node_start_byte(a) - 4);
  }
  TSNode dest = tl_kwarg_value(args, src, "dest");
  if (tl_node_is(dest, "string") && ts_node_end_byte(dest) - ts_node_start_byte(dest) > 2) {
    free(name);
    name = tl_strndup(src + ts_node_start_byte(dest) + 1, ts_node_end_byte(dest) - ts_node_start_byte(dest) - 2);
  }
  if (!name) return;
  for (char *p = name; *p; p++)
    if (*p == '-') *p = '_';
  TSNode action = tl_kwarg_value(args, src, "action"), dflt = tl_kwarg_value(args, src, "default");
  bool store_true = tl_node_text_eq(action, src, "\"store_true\"") || tl_node_text_eq(action, src, "'store_true'");
  bool off = ts_node_is_null(action) ? ts_node_is_null(dflt) || tl_model__off_literal(dflt, src)
                                     : store_true && (ts_node_is_null(dflt) || tl_model__off_literal(dflt, src));
  char *opt = tl_concat(off ? "" : "!", "--", name);
  tl_vec_push(&c->m->off_names, tl_model__str(c->m, opt));
  free(opt);
  if (!off && ts_node_is_null(action) && tl_node_text_eq(dflt, c->src, "1")) tl_model__one(c, name);
  tl_model__option_value(
      c, name,
      ts_node_is_null(action) && tl_node_is(tl_unparen(dflt), "string") ? tl_model_literal(c->m, dflt, c->src) : NULL);
  free(name);
}

/* Records that [start, end) runs only when `flag` (a dotted name, or "a|b": any of them, taken into
 * the model's strings) is set, raised above 1 or unset (`when`, tl_flag_when). */
static void tl_model__flag_block(tl_walk_ctx *c, uint32_t start, uint32_t end, char *flag, uint8_t when) {
  tl_flag_guard g = {start, end, c->func, tl_strtab_take(&c->m->strs, flag), false, NULL, false, when};
  tl_vec_push(&c->m->flag_guards, g);
}

/* The flag a test is on for (its dotted name, to free), or NULL: `flag`, `a.flag`, `x is not None`,
 * `level > 0`, `level >= 2` (a number that is on when raised above its default of zero: a dropout
 * rate, a debug level; not `!= 0`: a default of None is not 0 and passes). *when (may be NULL) says
 * TL_FLAG_ABOVE_ONE for `x > 1` and `x >= 2` (off also where the default is 1: a count of
 * accumulation steps), else TL_FLAG_SET. */
static char *tl_model__flag_of(tl_walk_ctx *c, TSNode cond, uint8_t *when) {
  cond = tl_unparen(cond);
  if (when) *when = TL_FLAG_SET;
  if (tl_node_is(cond, "comparison_operator") && ts_node_named_child_count(cond) == 2 &&
      tl_node_is(ts_node_named_child(cond, 1), "none")) {
    bool is_not = false;
    for (uint32_t i = 0; i < ts_node_child_count(cond); i++)
      is_not = is_not || !strcmp(ts_node_type(ts_node_child(cond, i)), "is not");
    if (!is_not) return NULL;
    cond = ts_node_named_child(cond, 0);
  } else if (tl_node_is(cond, "comparison_operator") && ts_node_named_child_count(cond) == 2 &&
             ts_node_child_count(cond) == 3) {
    const char *op = ts_node_type(ts_node_child(cond, 1));
    TSNode num = ts_node_named_child(cond, 1);
    uint32_t ns = ts_node_start_byte(num);
    bool number = tl_node_is(num, "integer") || tl_node_is(num, "float");
    bool zero = tl_model__zero(num, c->src), neg = number && c->src[ns] == '-';
    if (!number || neg || !(!strcmp(op, ">") || (!strcmp(op, ">=") && !zero))) return NULL;
    if (when && (tl_node_text_eq(num, c->src, !strcmp(op, ">") ? "1" : "2"))) *when = TL_FLAG_ABOVE_ONE;
    cond = ts_node_named_child(cond, 0);
  }
  if (!tl_node_is(cond, "identifier") && !tl_node_is(cond, "attribute")) return NULL;
  return tl_dotted(cond, c->src);
}

/* The flags of an `or` of flag tests, joined by '|' into *all (`args.qk_clip or args.log_logits`);
 * false when an operand is no flag test. */
static bool tl_model__or_flags(tl_walk_ctx *c, TSNode cond, tl_buf *all, int depth) {
  cond = tl_unparen(cond);
  if (depth > 8) return false;
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    if (ts_node_is_null(op) || strncmp(c->src + ts_node_start_byte(op), "or", 2)) return false;
    return tl_model__or_flags(c, TL_CHILD(cond, left), all, depth + 1) &&
           tl_model__or_flags(c, TL_CHILD(cond, right), all, depth + 1);
  }
  char *d = tl_model__flag_of(c, cond, NULL);
  if (!d) return false;
  tl_buf_printf(all, "%s%s", all->len ? "|" : "", d);
  free(d);
  return true;
}

/* `A and B`: B runs only when A holds. For each flag test among A's conjuncts (`flag and B`,
 * `x is not None and B`, `a and b and B`), B's range is a block that needs the flag set: a read
 * in B of a value (`self.tags is not None and torch.any(ids == tok)`) is made only on request
 * when the flag is off by default. */
static void tl_model__and_guards(tl_walk_ctx *c, TSNode n) {
  TSNode op = TL_CHILD(n, operator), right = TL_CHILD(n, right);
  if (ts_node_is_null(op) || ts_node_is_null(right) || strncmp(c->src + ts_node_start_byte(op), "and", 3)) return;
  TSNode left = tl_unparen(TL_CHILD(n, left));
  for (int guard = 0; guard < 8 && !ts_node_is_null(left); guard++) {
    TSNode test = left, more = {0};
    if (tl_node_is(left, "boolean_operator")) { /* (a and b) and B: b, then a */
      TSNode lop = TL_CHILD(left, operator);
      if (ts_node_is_null(lop) || strncmp(c->src + ts_node_start_byte(lop), "and", 3)) return;
      test = tl_unparen(TL_CHILD(left, right));
      more = tl_unparen(TL_CHILD(left, left));
    }
    uint8_t when;
    char *d = tl_model__flag_of(c, test, &when);
    if (d) tl_model__flag_block(c, ts_node_start_byte(right), ts_node_end_byte(right), d, when);
    left = more;
  }
}

/* A test of a name's value against literals: `x == "a"`, `x != "a"`, `x is None`, `x in ("a",
 * "b")`, `x not in (...)`, or an `or` of `==` tests of the same name (`x == "a" or x == "b"`), x an
 * identifier or a dotted attribute (`args.loss_type`); not `x is not None`, a flag test. Sets *name (to free) and *lits (the
 * literals, tl_model_literal's texts joined by '\x1e', into the model's strings) and *eq (the test
 * holds when the value is one of them; else when it is none of them). */
static bool tl_model__value_test(tl_walk_ctx *c, TSNode cond, char **name, const char **lits, bool *eq, int depth) {
  cond = tl_unparen(cond);
  *name = NULL;
  if (depth > 8) return false;
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    char *ln, *rn;
    const char *ll, *rl;
    bool le, re;
    if (ts_node_is_null(op) || strncmp(c->src + ts_node_start_byte(op), "or", 2) ||
        !tl_model__value_test(c, TL_CHILD(cond, left), &ln, &ll, &le, depth + 1))
      return false;
    if (!tl_model__value_test(c, TL_CHILD(cond, right), &rn, &rl, &re, depth + 1)) {
      free(ln);
      return false;
    }
    bool same = le && re && !strcmp(ln, rn);
    free(rn);
    if (!same) {
      free(ln);
      return false;
    }
    char *both = tl_printf("%s\x1e%s", ll, rl);
    *lits = tl_model__str(c->m, both);
    free(both);
    *name = ln;
    *eq = true;
    return true;
  }
  if (!tl_node_is(cond, "comparison_operator") || ts_node_named_child_count(cond) != 2 ||
      ts_node_child_count(cond) != 3)
    return false;
  const char *op = ts_node_type(ts_node_child(cond, 1));
  TSNode a = ts_node_named_child(cond, 0), b = ts_node_named_child(cond, 1);
  bool in = !strcmp(op, "in") || !strcmp(op, "not in");
  if (!in && !tl_node_is(a, "identifier") && !tl_node_is(a, "attribute")) {
    TSNode t = a;
    a = b, b = t;
  }
  if (!tl_node_is(a, "identifier") && !tl_node_is(a, "attribute")) return false;
  bool is = !strcmp(op, "is"); /* `x is not None` is a flag test (tl_model__flag_of) */
  if (is && !tl_node_is(b, "none")) return false;
  if (in) {
    b = tl_unparen(b);
    if (!tl_node_is(b, "tuple") && !tl_node_is(b, "list") && !tl_node_is(b, "set")) return false;
    tl_buf all = {0};
    for (uint32_t i = 0; i < ts_node_named_child_count(b); i++) {
      const char *l = tl_model_literal(c->m, ts_node_named_child(b, i), c->src);
      if (!l) {
        tl_buf_free(&all);
        return false;
      }
      tl_buf_printf(&all, "%s%s", all.len ? "\x1e" : "", l);
    }
    if (!all.len) return false;
    char *t = tl_buf_take(&all);
    *lits = tl_model__str(c->m, t);
    free(t);
    *eq = !strcmp(op, "in");
  } else {
    if (strcmp(op, "==") && strcmp(op, "!=") && !is) return false;
    *lits = tl_model_literal(c->m, b, c->src);
    if (!*lits) return false;
    *eq = !strcmp(op, "==") || !strcmp(op, "is");
  }
  *name = tl_dotted(a, c->src);
  return *name != NULL;
}

/* Records that [start, end) runs only when the value test cond holds (with `neg`, when it does not);
 * false when cond is no value test. */
static bool tl_model__value_guard(tl_walk_ctx *c, TSNode cond, uint32_t start, uint32_t end, bool neg) {
  char *name;
  const char *lits;
  bool eq;
  if (!tl_model__value_test(c, cond, &name, &lits, &eq, 0)) return false;
  tl_flag_guard g = {start, end, c->func, tl_strtab_take(&c->m->strs, name), false, lits, eq != neg, TL_FLAG_SET};
  tl_vec_push(&c->m->flag_guards, g);
  return true;
}

/* The flags block `block` needs set, from its condition: each side of `and` (tl_model__flag_of:
 * `flag`, `a.flag`, `x is not None`, `rate > 0`, `level >= 2`), one of the flags of an `or` of them,
 * a value test of a parameter. */
static void tl_model__flag_guards(tl_walk_ctx *c, TSNode cond, TSNode block, int depth) {
  cond = tl_unparen(cond);
  if (depth > 8 || ts_node_is_null(cond) || ts_node_is_null(block)) return;
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    if (ts_node_is_null(op)) return;
    if (!strncmp(c->src + ts_node_start_byte(op), "and", 3)) {
      tl_model__flag_guards(c, TL_CHILD(cond, left), block, depth + 1);
      tl_model__flag_guards(c, TL_CHILD(cond, right), block, depth + 1);
      return;
    }
    if (tl_model__value_guard(c, cond, ts_node_start_byte(block), ts_node_end_byte(block), false)) return;
    /* `a or b`: runs only when one of them is set: one guard on "a|b" (tl_project.c) */
    tl_buf all = {0};
    if (tl_model__or_flags(c, cond, &all, 0))
      tl_model__flag_block(c, ts_node_start_byte(block), ts_node_end_byte(block), tl_buf_take(&all), TL_FLAG_SET);
    tl_buf_free(&all);
    return;
  }
  /* `reduction == "mean"`, `mode != "train"`, `dim_size is None`, `args.loss_type in ("huber",
   * "smooth_l1")`: runs only for some values of a name (the project pass asks which values its
   * calls pass, or an option's default) */
  if (tl_model__value_guard(c, cond, ts_node_start_byte(block), ts_node_end_byte(block), false)) return;
  uint8_t when;
  char *d = tl_model__flag_of(c, cond, &when);
  if (d) tl_model__flag_block(c, ts_node_start_byte(block), ts_node_end_byte(block), d, when);
}

/* Does the condition `cond` (its negation with `neg`) hold only when no eager training step runs:
 * `not self.training`, a call of tl_vocab_not_eager_tests (`torch.jit.is_scripting()`, resolved
 * through the imports), or `and`/`or` of them? The name of a test it found in *why. */
static bool tl_model__not_training(tl_walk_ctx *c, TSNode cond, bool neg, const char **why, int depth) {
  cond = tl_unparen(cond);
  if (depth > 8 || ts_node_is_null(cond)) return false;
  if (tl_node_is(cond, "not_operator"))
    return tl_model__not_training(c, TL_CHILD(cond, argument), !neg, why, depth + 1);
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    if (ts_node_is_null(op)) return false;
    /* `a and b` holds when either side does, `a or b` when both do; negated, the other way round */
    bool conj = !strncmp(c->src + ts_node_start_byte(op), "and", 3) != neg;
    bool l = tl_model__not_training(c, TL_CHILD(cond, left), neg, why, depth + 1);
    if (l && conj) return true;
    if (!l && !conj) return false;
    return tl_model__not_training(c, TL_CHILD(cond, right), neg, why, depth + 1);
  }
  if (tl_node_text_eq(cond, c->src, "self.training")) {
    if (neg) *why = tl_model__str(c->m, "self.training");
    return neg;
  }
  if (neg || !tl_node_is(cond, "call")) return false;
  char *d = tl_dotted(TL_CHILD(cond, function), c->src);
  if (!d) return false;
  char *q = tl_model_resolve(c->m, d);
  bool r = tl_str_in(q, strlen(q), tl_vocab_not_eager_tests);
  if (r) *why = tl_model__str(c->m, q);
  free(q);
  free(d);
  return r;
}

/* The branch of an `if` taken only when no eager training step runs (evaluation, inference, export,
 * or TorchScript scripting, tracing, ONNX export): the block of `if not self.training:` or `if
 * torch.jit.is_scripting():`; the `else` (and `elif`s) of `if self.training:` or `if not
 * torch.jit.is_scripting():`, or what follows such an `if` whose block ends in a return. */
static void tl_model__inference_branch(tl_walk_ctx *c, TSNode n, TSNode cond) {
  const char *why = NULL;
  uint32_t start, end = ts_node_end_byte(n);
  if (tl_model__not_training(c, cond, false, &why, 0)) {
    TSNode b = TL_CHILD(n, consequence);
    if (ts_node_is_null(b)) return;
    start = ts_node_start_byte(b);
    end = ts_node_end_byte(b);
  } else if (tl_model__not_training(c, cond, true, &why, 0)) {
    TSNode alt = TL_CHILD(n, alternative);
    if (!ts_node_is_null(alt)) {
      start = ts_node_start_byte(alt);
    } else {
      /* `if self.training: ...; return losses` and no else: the statements after it in its block */
      TSNode body = TL_CHILD(n, consequence), parent = ts_node_parent(n);
      TSNode last = tl_last_code_child(body);
      if (!tl_node_is(last, "return_statement") && !tl_node_is(last, "raise_statement")) return;
      if (!tl_node_is(parent, "block") || ts_node_end_byte(parent) <= end) return;
      start = end;
      end = ts_node_end_byte(parent);
    }
  } else {
    return;
  }
  tl_flag_guard g = {start, end, c->func, why, true, NULL, false, TL_FLAG_SET};
  tl_vec_push(&c->m->flag_guards, g);
}

/* Does the block end in a `return` or `raise` (comments aside)? */
static bool tl_model__block_leaves(TSNode block) {
  TSNode last = tl_last_code_child(block);
  return tl_node_is(last, "return_statement") || tl_node_is(last, "raise_statement");
}

/* The `elif` clauses of an `if` that test training: `elif not self.training:` runs its block only
 * when no eager training step runs; `if self.in_export_mode: return ...` then `elif self.training:
 * return ...` with no `else` leaves what follows the `if` to the calls that do not train (a
 * forward that dispatches to `test_forward`), when every clause up to that test returns or
 * raises. (The `if` clause itself: tl_model__inference_branch.) */
static void tl_model__inference_elif(tl_walk_ctx *c, TSNode n) {
  bool leaves = tl_model__block_leaves(TL_CHILD(n, consequence)), else_seen = false, after = false;
  const char *why = NULL;
  uint32_t cnt = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode alt = ts_node_named_child(n, i);
    if (tl_node_is(alt, "else_clause")) else_seen = true;
    if (!tl_node_is(alt, "elif_clause")) continue;
    TSNode cond = TL_CHILD(alt, condition), body = TL_CHILD(alt, consequence);
    const char *w = NULL;
    if (tl_model__not_training(c, cond, false, &w, 0) && !ts_node_is_null(body)) {
      tl_flag_guard g = {ts_node_start_byte(body), ts_node_end_byte(body), c->func, w, true, NULL, false, TL_FLAG_SET};
      tl_vec_push(&c->m->flag_guards, g);
    } else if (leaves && !after && tl_model__not_training(c, cond, true, &w, 0) && tl_model__block_leaves(body)) {
      after = true;
      why = w;
    }
    leaves = leaves && tl_model__block_leaves(body);
  }
  TSNode parent = ts_node_parent(n);
  if (!after || else_seen || !tl_node_is(parent, "block") || ts_node_end_byte(parent) <= ts_node_end_byte(n)) return;
  tl_flag_guard g = {ts_node_end_byte(n), ts_node_end_byte(parent), c->func, why, true, NULL, false, TL_FLAG_SET};
  tl_vec_push(&c->m->flag_guards, g);
}

/* Is the test one that a flag is unset (`not flag`), or an `and` of such tests? Appends their flags
 * to `all`, joined by `|` (tl_model__or_flags' form). Not `flag is None`: an option or a parameter
 * whose default is 0 or False is not None, and what follows `if flag is None: return` runs with
 * the default. */
static bool tl_model__unset_tests(tl_walk_ctx *c, TSNode cond, tl_buf *all, int depth) {
  cond = tl_unparen(cond);
  if (depth > 8 || ts_node_is_null(cond)) return false;
  if (tl_node_is(cond, "boolean_operator")) {
    TSNode op = TL_CHILD(cond, operator);
    if (ts_node_is_null(op) || strncmp(c->src + ts_node_start_byte(op), "and", 3)) return false;
    return tl_model__unset_tests(c, TL_CHILD(cond, left), all, depth + 1) &&
           tl_model__unset_tests(c, TL_CHILD(cond, right), all, depth + 1);
  }
  if (!tl_node_is(cond, "not_operator")) return false;
  TSNode t = tl_unparen(TL_CHILD(cond, argument));
  if (!tl_node_is(t, "identifier") && !tl_node_is(t, "attribute")) return false;
  if (tl_node_text_eq(t, c->src, "self.training")) return false; /* tl_model__inference_branch's */
  char *d = tl_dotted(t, c->src);
  if (!d) return false;
  tl_buf_printf(all, "%s%s", all->len ? "|" : "", d);
  free(d);
  return true;
}

/* `if not flag: ... else: <block>`: the `else` (and any `elif`) runs only when the flag is set; `if
 * flag: ... else: <block>` (a name or an attribute tested alone), only when it is unset. Without an
 * `else`, when the `if`'s block leaves (`if not args.sample: return`, `... continue`), the same for
 * the rest of the block around the `if`. */
static void tl_model__negated_flag(tl_walk_ctx *c, TSNode n, TSNode cond) {
  cond = tl_unparen(cond);
  TSNode alt = TL_CHILD(n, alternative);
  uint32_t start, end;
  if (!ts_node_is_null(alt)) {
    start = ts_node_start_byte(alt);
    end = ts_node_end_byte(n);
  } else if (!tl_model__rest_after(n, &start, &end) || !tl_model__exits(n)) {
    return;
  }
  if ((tl_node_is(cond, "identifier") || tl_node_is(cond, "attribute")) &&
      !tl_node_text_eq(cond, c->src, "self.training")) {
    const char *d = tl_strtab_take(&c->m->strs, tl_dotted(cond, c->src));
    if (!d) return;
    tl_flag_guard g = {start, end, c->func, d, false, NULL, false, TL_FLAG_UNSET};
    tl_vec_push(&c->m->flag_guards, g);
    return;
  }
  /* `not flag`, or an `and` of such tests (`not args.sample_images and not args.sample_video`): the
   * other way runs when one of them is set */
  tl_buf all = {0};
  if (tl_model__unset_tests(c, cond, &all, 0)) tl_model__flag_block(c, start, end, tl_buf_take(&all), TL_FLAG_SET);
  tl_buf_free(&all);
}

const char *tl_model_literal(tl_file_model *m, TSNode n, const char *src) {
  n = tl_unparen(n);
  if (ts_node_is_null(n)) return NULL;
  if (tl_node_is(n, "none")) return tl_strtab_intern(&m->strs, "k:None", 6);
  if (tl_node_is(n, "true")) return tl_strtab_intern(&m->strs, "k:True", 6);
  if (tl_node_is(n, "false")) return tl_strtab_intern(&m->strs, "k:False", 7);
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  bool neg = tl_node_is(n, "unary_operator") && src[s] == '-' && ts_node_named_child_count(n) == 1;
  TSNode num = neg ? ts_node_named_child(n, 0) : n;
  if (tl_node_is(num, "integer") || tl_node_is(num, "float")) {
    uint32_t ns = ts_node_start_byte(num), nl = ts_node_end_byte(num) - ns;
    if (nl > 64) return NULL;
    char buf[72];
    snprintf(buf, sizeof buf, "n:%s%.*s", neg ? "-" : "", (int)nl, src + ns);
    return tl_strtab_intern(&m->strs, buf, strlen(buf));
  }
  if (!tl_node_is(n, "string") || e - s < 2) return NULL;
  uint32_t q = s;
  while (q < e && (src[q] == 'r' || src[q] == 'R' || src[q] == 'u' || src[q] == 'U')) q++;
  if (q >= e || (src[q] != '"' && src[q] != '\'')) return NULL; /* f-strings, bytes */
  uint32_t ql = e - q >= 6 && src[q + 1] == src[q] && src[q + 2] == src[q] ? 3 : 1;
  if (e - q < 2 * ql) return NULL;
  uint32_t cs = q + ql, ce = e - ql;
  if (ce - cs > 256 || memchr(src + cs, '\\', ce - cs)) return NULL;
  char *t = tl_malloc(ce - cs + 3);
  t[0] = 's', t[1] = ':';
  memcpy(t + 2, src + cs, ce - cs);
  const char *out = tl_strtab_intern(&m->strs, t, ce - cs + 2);
  free(t);
  return out;
}

/* Is cond the test of a module run as a program, `__name__ == "__main__"` (either way round)? */
static bool tl_model__main_test(tl_walk_ctx *c, TSNode cond) {
  cond = tl_unparen(cond);
  if (!tl_node_is(cond, "comparison_operator") || ts_node_named_child_count(cond) != 2 ||
      ts_node_child_count(cond) != 3 || strcmp(ts_node_type(ts_node_child(cond, 1)), "=="))
    return false;
  TSNode a = ts_node_named_child(cond, 0), b = ts_node_named_child(cond, 1);
  if (tl_node_is(b, "identifier")) {
    TSNode t = a;
    a = b;
    b = t;
  }
  const char *lit = tl_node_text_eq(a, c->src, "__name__") ? tl_model_literal(c->m, b, c->src) : NULL;
  return lit && !strcmp(lit, "s:__main__");
}

/* Value tests along an `if` chain (`if args.mode == "a": ... elif args.mode == "b": ... else:`): an
 * `elif` or `else` runs only when the earlier tests failed, so each earlier value test is a guard
 * of it, negated. `if args.loss != "huber": return` (a block that leaves, no `else`) likewise
 * guards the rest of the block it is in, and `if not (<test>): return` with the test itself. */
static void tl_model__value_chain(tl_walk_ctx *c, TSNode n) {
  TSNode tests[16];
  size_t nt = 0;
  tests[nt++] = TL_CHILD(n, condition);
  bool else_seen = false;
  uint32_t cnt = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode alt = ts_node_named_child(n, i);
    bool elif = tl_node_is(alt, "elif_clause"), els = tl_node_is(alt, "else_clause");
    if (!elif && !els) continue;
    else_seen = else_seen || els;
    TSNode body = elif ? TL_CHILD(alt, consequence) : TL_CHILD(alt, body);
    for (size_t k = 0; k < nt && !ts_node_is_null(body); k++)
      tl_model__value_guard(c, tests[k], ts_node_start_byte(body), ts_node_end_byte(body), true);
    if (elif && nt < sizeof tests / sizeof *tests) tests[nt++] = TL_CHILD(alt, condition);
  }
  TSNode cond = tl_unparen(tests[0]);
  uint32_t start, end;
  if (else_seen || nt > 1 || c->func <= 0 || !tl_model__rest_after(n, &start, &end) ||
      !tl_model__block_leaves(TL_CHILD(n, consequence)))
    return;
  bool neg = tl_node_is(cond, "not_operator");
  tl_model__value_guard(c, neg ? TL_CHILD(cond, argument) : cond, start, end, !neg);
}

/* `if 0:`, `if False:`, `if None:` (code switched off by hand): its block never runs; nor does the
 * `else` (and any `elif`) of `if 1:` or `if True:`. Recorded as blocks that run in no training
 * step (tl_flag_guard.inference, flag: the test). */
static void tl_model__constant_test(tl_walk_ctx *c, TSNode n, TSNode cond) {
  cond = tl_unparen(cond);
  bool off = tl_model__off_literal(cond, c->src) && !tl_node_is(cond, "string");
  bool on = tl_node_is(cond, "true") || ((tl_node_is(cond, "integer")) && !tl_model__zero(cond, c->src));
  TSNode body = TL_CHILD(n, consequence), alt = TL_CHILD(n, alternative);
  uint32_t start, end = ts_node_end_byte(n);
  if (off && !ts_node_is_null(body)) {
    start = ts_node_start_byte(body);
    end = ts_node_end_byte(body);
  } else if (on && !ts_node_is_null(alt)) {
    start = ts_node_start_byte(alt);
  } else {
    return;
  }
  const char *why = tl_strtab_take(&c->m->strs, tl_node_text(cond, c->src));
  tl_flag_guard g = {start, end, c->func, why, true, NULL, false, TL_FLAG_SET};
  tl_vec_push(&c->m->flag_guards, g);
}

static void tl_walk_if(tl_walk_ctx *c, TSNode n, int depth) {
  TSNode cond = TL_CHILD(n, condition);
  tl_model__constant_test(c, n, cond);
  tl_model__flag_guards(c, cond, TL_CHILD(n, consequence), 0);
  tl_model__inference_branch(c, n, cond);
  tl_model__inference_elif(c, n);
  tl_model__negated_flag(c, n, cond);
  tl_walk_visit(c, cond, depth + 1);
  tl_freq f = tl_freq_test(cond, c->src, c->guard_vars.v, c->guard_vars.n);
  if (f == TL_FREQ_NONE && c->func > 0 && tl_freq_fills_once(cond, TL_CHILD(n, consequence), c->src))
    f = TL_FREQ_RARE_THEN; /* a cache of the object (or a module's, `global`), filled once */
  bool was_main = c->in_main;
  c->in_main = was_main || (c->func == 0 && c->loop < 0 && tl_model__main_test(c, cond));
  tl_walk_guarded(c, TL_CHILD(n, consequence), f == TL_FREQ_RARE_THEN, depth + 1);
  c->in_main = was_main;
  /* elif/else clauses (by type: ts_node_field_name_for_child misreports repeated fields) */
  tl_model__value_chain(c, n);
  uint32_t cnt = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode alt = ts_node_named_child(n, i);
    if (tl_node_is(alt, "else_clause")) {
      tl_walk_guarded(c, TL_CHILD(alt, body), f == TL_FREQ_RARE_ELSE, depth + 1);
    } else if (tl_node_is(alt, "elif_clause")) {
      /* An elif runs only when the first test failed: rare when the first test is `!=`. */
      bool g = f == TL_FREQ_RARE_ELSE;
      if (g) {
        tl_range r = {ts_node_start_byte(alt), ts_node_end_byte(alt), 0};
        tl_vec_push(&c->m->guards, r);
        c->guard_depth++;
      }
      TSNode ec = TL_CHILD(alt, condition);
      tl_model__flag_guards(c, ec, TL_CHILD(alt, consequence), 0);
      tl_walk_visit(c, ec, depth + 1);
      tl_freq ef = tl_freq_test(ec, c->src, c->guard_vars.v, c->guard_vars.n);
      tl_walk_guarded(c, TL_CHILD(alt, consequence), ef == TL_FREQ_RARE_THEN, depth + 1);
      if (g) c->guard_depth--;
    }
  }
}

/* ---- calls, bindings, definitions ---- */

static unsigned tl_call_work(const char *callee) {
  size_t n;
  const char *last = tl_dotted_last(callee, &n);
  if ((n == 8 && !memcmp(last, "backward", 8)) || (n == 15 && !memcmp(last, "manual_backward", 15)))
    return TL_WORK_BACKWARD;
  if ((n == 9 && !memcmp(last, "zero_grad", 9)) || (n == 10 && !memcmp(last, "clear_grad", 10)) ||
      (n == 15 && !memcmp(last, "clear_gradients", 15)))
    return TL_WORK_GRAD;
  /* self.optimizer_step(), optim_step(...): a helper named after the optimizer step */
  if (tl_icontains(last, n, "optim") && tl_icontains(last, n, "step")) return TL_WORK_OPT_STEP;
  /* train_step(batch), self.model.train_iter(optimizers), training_step(...): a training step that
   * the call graph may not follow */
  if (n >= 9 && (!strncasecmp(last, "train_", 6) || !strncasecmp(last, "training_", 9)) &&
      (tl_icontains(last, n, "step") || tl_icontains(last, n, "iter") || tl_icontains(last, n, "batch")))
    return TL_WORK_GRAD;
  if ((n == 4 && !memcmp(last, "step", 4)) || (n == 8 && !memcmp(last, "minimize", 8))) {
    /* receiver: the component before the last */
    size_t end = (size_t)(last - callee);
    if (end == 0) return 0;
    end--; /* the dot */
    while (end >= 2 &&
           ((callee[end - 2] == '(' && callee[end - 1] == ')') || (callee[end - 2] == '[' && callee[end - 1] == ']')))
      end -= 2;
    size_t s = end;
    while (s > 0 && callee[s - 1] != '.') s--;
    /* an optimizer or a gradient scaler; not a scheduler of the optimizer's learning rate
     * (`opt_param_scheduler.step()`, `optim_scheduler.step()`) */
    if (tl_icontains(callee + s, end - s, "sched")) return 0;
    if (tl_icontains(callee + s, end - s, "optim") || tl_icontains(callee + s, end - s, "scaler") ||
        (end - s >= 3 && !strncasecmp(callee + s, "opt", 3)))
      return TL_WORK_OPT_STEP;
    return 0;
  }
  /* Calling a model object: model(x), self.model(x), self.net(x), self(x), self.forward(x). */
  if (!strcmp(callee, "self") || !strcmp(callee, "self.forward")) return TL_WORK_MODEL;
  char low[64];
  if (n >= sizeof low || strpbrk(callee, "([")) return 0;
  /* Model(cfg), GPTModel(...), TransformerNet(...): a CapWords name is a class; calling it
   * constructs an object, it does not run a forward pass. */
  bool lower_seen = false;
  for (size_t i = 1; i < n; i++) lower_seen = lower_seen || islower((unsigned char)last[i]);
  if (isupper((unsigned char)last[0]) && lower_seen) return 0;
  for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)last[i]);
  low[n] = 0;
  /* get_module(...), build_model(...), module_to_fqn(...), load_encoder(...): functions that look
   * a model up or make one, not a call of a model */
  for (size_t a = 0; a < n;) {
    while (a < n && low[a] == '_') a++;
    size_t b = a;
    while (b < n && low[b] != '_') b++;
    if (b > a && tl_str_in(low + a, b - a, tl_vocab_factory_verbs)) return 0;
    a = b;
  }
  for (const char *const *mw = tl_vocab_model_words; *mw; mw++) {
    const char *w = *mw;
    size_t wl = strlen(w);
    if (!strcmp(low, w)) return TL_WORK_MODEL;
    /* foo_model, model_ema, ddp_model */
    if (n > wl + 1 && !strcmp(low + n - wl, w) && low[n - wl - 1] == '_') return TL_WORK_MODEL;
    if (n > wl + 1 && !strncmp(low, w, wl) && low[wl] == '_') return TL_WORK_MODEL;
  }
  return 0;
}

static void tl_add_binding(tl_walk_ctx *c, const char *name, uint32_t byte, TSNode value, tl_valkind kind) {
  tl_binding b = {tl_model__str(c->m, name), byte, c->func, value, kind, NULL, -1, 0, 0, 0, false, false, 0};
  if (!ts_node_is_null(value)) {
    b.vstart = ts_node_start_byte(value);
    b.vend = ts_node_end_byte(value);
    b.vsym = ts_node_symbol(value);
    /* `Ema(model) if rank == 0 else None`: an object of that class, where there is one */
    TSNode made = tl_unparen(value);
    for (int guard = 0; guard < 4 && tl_node_is(made, "conditional_expression"); guard++) {
      TSNode a = tl_unparen(ts_node_named_child(made, 0)), b2 = tl_unparen(ts_node_named_child(made, 2));
      made = tl_node_is(b2, "none") ? a : tl_node_is(a, "none") ? b2 : (TSNode){0};
    }
    if (tl_node_is(made, "call")) {
      /* Net(cfg).to(device), Net().cuda().eval(): the object is what the innermost call made */
      TSNode call = made;
      for (int guard = 0; guard < 8; guard++) {
        TSNode fn = TL_CHILD(call, function);
        TSNode obj = tl_node_is(fn, "attribute") ? tl_unparen(TL_CHILD(fn, object)) : (TSNode){0};
        if (!tl_node_is(obj, "call") || !tl_node_text_in(TL_CHILD(fn, attribute), c->src, tl_vocab_module_self_methods))
          break;
        call = obj;
      }
      b.ctor = tl_strtab_take(&c->m->strs, tl_dotted(TL_CHILD(call, function), c->src));
    }
  }
  tl_vec_push(&c->m->bindings, b);
  /* self.<attr> = ... inside a method: an attribute of the class. */
  if (c->cls >= 0 && !strncmp(name, "self.", 5) && !strchr(name + 5, '.')) {
    tl_binding a = {tl_model__str(c->m, name + 5),
                    byte,
                    c->func,
                    value,
                    kind,
                    b.ctor,
                    -1,
                    b.vstart,
                    b.vend,
                    b.vsym,
                    false,
                    false,
                    0};
    tl_vec_push(&c->m->classes.v[c->cls].attrs, a);
  }
}

/* Binds every name of an assignment/loop target to `kind`. */
static void tl_bind_targets(tl_walk_ctx *c, TSNode t, uint32_t byte, tl_valkind kind, int depth) {
  if (depth > 16 || ts_node_is_null(t)) return;
  if (tl_node_is(t, "identifier") || tl_node_is(t, "attribute")) {
    char *d = tl_dotted(t, c->src);
    if (d) tl_add_binding(c, d, byte, (TSNode){0}, kind);
    free(d);
    return;
  }
  if (tl_node_is(t, "subscript")) {
    /* `out[f"{key}/m"] = m` stores an element: the container's place may change, the names in the
     * index are only read */
    tl_bind_targets(c, TL_CHILD(t, value), byte, kind, depth + 1);
    return;
  }
  uint32_t k = ts_node_named_child_count(t);
  for (uint32_t i = 0; i < k; i++) tl_bind_targets(c, ts_node_named_child(t, i), byte, kind, depth + 1);
}

/* A setting declared with its default `value` (a dataclass field, a node of a configuration tree):
 * an option as argparse's are, "--name" in off_names when the default is off, else "!--name"; a
 * default of 1 and a string default are kept too (tl_model__one, tl_model__option_value). */
static void tl_model__setting(tl_walk_ctx *c, const char *name, TSNode value) {
  TSNode v = tl_unparen(value);
  /* an empty tuple, list or dict is off too (`_C.DATASETS.TEST = ()`: `if cfg.DATASETS.TEST:`) */
  bool empty = (tl_node_is(v, "tuple") || tl_node_is(v, "list") || tl_node_is(v, "dictionary")) &&
               !ts_node_named_child_count(v);
  char *opt = tl_concat(tl_model__off_literal(value, c->src) || empty ? "" : "!", "--", name);
  tl_vec_push(&c->m->off_names, tl_model__str(c->m, opt));
  free(opt);
  if (tl_node_text_eq(value, c->src, "1")) tl_model__one(c, name);
  tl_model__option_value(c, name,
                         tl_node_is(tl_unparen(value), "string") ? tl_model_literal(c->m, value, c->src) : NULL);
}

/* A field of a dataclass of settings (`use_bias: bool = False`, `layers: int = field(default=0,
 * metadata=...)` in a class under `@dataclass` named as settings are: `ModelConfig`, `TrainingArgs`;
 * not a `Batch` or a model's output, whose fields hold data): an option as argparse's are, "--use_bias" in
 * off_names when its default is off, else "!--use_bias" (a field without a default sets nothing). */
static void tl_model__field(tl_walk_ctx *c, TSNode asg, const char *name, TSNode value) {
  TSNode block = ts_node_parent(ts_node_parent(asg)), cls = ts_node_parent(block);
  if (ts_node_is_null(TL_CHILD(asg, type)) || !tl_node_is(cls, "class_definition") ||
      !tl_node_is(ts_node_parent(cls), "decorated_definition"))
    return;
  bool dataclass = false;
  TSNode dec = ts_node_parent(cls);
  for (uint32_t i = 0; i < ts_node_named_child_count(dec) && !dataclass; i++) {
    TSNode k = ts_node_named_child(dec, i);
    uint32_t s = ts_node_start_byte(k);
    dataclass = tl_node_is(k, "decorator") && tl_icontains(c->src + s, ts_node_end_byte(k) - s, "dataclass");
  }
  const char *cname = c->m->classes.v[c->cls].name;
  bool settings = false;
  for (size_t w = 0; tl_vocab_settings_words[w] && !settings; w++)
    settings = tl_icontains(cname, strlen(cname), tl_vocab_settings_words[w]);
  if (!dataclass || !settings) return;
  if (tl_node_is(value, "call")) {
    char *callee = tl_dotted(TL_CHILD(value, function), c->src);
    bool field = callee && tl_dotted_last_is(callee, "field");
    free(callee);
    if (!field) return;
    value = tl_kwarg_value(TL_CHILD(value, arguments), c->src, "default");
    if (ts_node_is_null(value)) return; /* default_factory=..., or required */
  }
  tl_model__setting(c, name, value);
}

/* A node of a configuration tree set at module level (`_C.TRAIN.CLIP_GRAD = 5.0`, `_C` bound at
 * module level to `CN()`, tl_vocab_config_nodes): a setting declared with its default, as a
 * dataclass field is (tl_model__setting). True when it is one; a sub-tree (`_C.TRAIN = CN()`)
 * declares nothing. */
static void tl_model__config_node(tl_walk_ctx *c, TSNode left, TSNode value, size_t set_at) {
  if (c->func != 0 || c->cls >= 0) return;
  TSNode root = left;
  while (tl_node_is(root, "attribute")) root = TL_CHILD(root, object);
  if (!tl_node_is(root, "identifier")) return;
  /* What `_C` is bound to is another statement's: an editor's run may walk this one alone. The
   * entries wait for the project pass, which reads the root's binding (tl_model_setting_entry):
   * "~+_C\x1e<entry>" stands if `_C` is a configuration tree, "~-_C\x1e<entry>" (the option set in
   * the code, off_names.v[set_at]) if not. */
  char *rn = tl_node_text(root, c->src), *leaf = tl_node_text(TL_CHILD(left, attribute), c->src);
  char *e = tl_printf("~-%s\x1e%s", rn, c->m->off_names.v[set_at]);
  c->m->off_names.v[set_at] = tl_model__str(c->m, e);
  free(e);
  size_t first = c->m->off_names.n;
  if (!tl_node_is(tl_unparen(value), "call")) tl_model__setting(c, leaf, value); /* a sub-tree: nothing */
  for (size_t i = first; i < c->m->off_names.n; i++) {
    e = tl_printf("~+%s\x1e%s", rn, c->m->off_names.v[i]);
    c->m->off_names.v[i] = tl_model__str(c->m, e);
    free(e);
  }
  free(rn);
  free(leaf);
}

/* The first binding of `name` (n bytes) in the module's body (bind_order holds each function's
 * bindings by name, then by place: the first of the name's run), or NULL. */
static const tl_binding *tl_model__first_module_binding(const tl_file_model *m, const char *name, size_t n) {
  const tl_binding *first = NULL;
  if (!m->bind_first || !m->funcs.n) {
    for (size_t i = 0; i < m->bindings.n; i++) {
      const tl_binding *b = &m->bindings.v[i];
      if (b->func == 0 && strlen(b->name) == n && !strncmp(b->name, name, n) && (!first || b->byte < first->byte))
        first = b;
    }
    return first;
  }
  uint32_t lo = m->bind_first[0], hi = m->bind_first[1];
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const char *bn = m->bindings.v[m->bind_order[mid]].name;
    if (strncmp(bn, name, n) < 0) lo = mid + 1; /* the names with `name` as a prefix sort from `name` on */
    else hi = mid;
  }
  if (lo == m->bind_first[1]) return NULL;
  first = &m->bindings.v[m->bind_order[lo]];
  return strlen(first->name) == n && !strncmp(first->name, name, n) ? first : NULL;
}

const char *tl_model_setting_entry(const tl_file_model *m, const char *entry) {
  if (entry[0] != '~') return entry;
  const char *sep = strchr(entry, '\x1e');
  if (!sep || (entry[1] != '+' && entry[1] != '-')) return NULL;
  /* the root's first binding: `_C = CN()`, not a later `_C = _C.clone()` */
  const tl_binding *b = tl_model__first_module_binding(m, entry + 2, (size_t)(sep - entry - 2));
  size_t ln;
  const char *last = b && b->ctor ? tl_dotted_last(b->ctor, &ln) : NULL;
  bool tree = last && tl_str_in(last, ln, tl_vocab_config_nodes);
  return tree == (entry[1] == '+') ? sep + 1 : NULL;
}

static bool tl_is_dataloader_callee(const tl_file_model *m, const char *callee) {
  if (!callee) return false;
  char *q = tl_model_resolve(m, callee);
  bool hit = tl_str_in(q, strlen(q), tl_vocab_dataloader_classes) || tl_dotted_last_is(callee, "DataLoader");
  free(q);
  return hit;
}

/* The object each element of a container holds, where one class makes them all: `C(...)` for
 * `x[k] = C(...)`, the value of `{k: C(...) for k in keys}` or of a dict display whose values are
 * all made by one callee (`{"loss": Meter(), "acc": Meter()}`); a null node otherwise. */
static TSNode tl_model__element_maker(const tl_walk_ctx *c, TSNode right) {
  TSNode none = {0};
  right = tl_unparen(right);
  if (tl_node_is(right, "dictionary_comprehension")) {
    TSNode body = tl_unparen(TL_CHILD(right, body));
    TSNode v = tl_node_is(body, "pair") ? tl_unparen(TL_CHILD(body, value)) : none;
    return tl_node_is(v, "call") ? v : none;
  }
  if (!tl_node_is(right, "dictionary")) return none;
  TSNode first = none;
  for (uint32_t i = 0; i < ts_node_named_child_count(right); i++) {
    TSNode pr = ts_node_named_child(right, i);
    if (tl_node_is(pr, "comment")) continue;
    TSNode v = tl_node_is(pr, "pair") ? tl_unparen(TL_CHILD(pr, value)) : none;
    if (!tl_node_is(v, "call")) return none;
    TSNode f = TL_CHILD(v, function), f0 = ts_node_is_null(first) ? f : TL_CHILD(first, function);
    uint32_t a = ts_node_start_byte(f), al = ts_node_end_byte(f) - a, b = ts_node_start_byte(f0),
             bl = ts_node_end_byte(f0) - b;
    if (al != bl || memcmp(c->src + a, c->src + b, al)) return none;
    if (ts_node_is_null(first)) first = v;
  }
  return first;
}

/* `x[k] = Meter()`, `x = {k: Meter() for k in keys}`: "x[]" is bound to the element's maker, so
 * that a call `x[k].update(v)` resolves to the class's method (tl_callgraph.c). */
static void tl_model__bind_elements(tl_walk_ctx *c, const char *container, uint32_t at, TSNode maker) {
  if (ts_node_is_null(maker) || !container) return;
  char *d = tl_concat(container, "", "[]");
  tl_add_binding(c, d, at, maker, TL_VAL_UNKNOWN);
  free(d);
}

static void tl_walk_assignment(tl_walk_ctx *c, TSNode n, int depth) {
  TSNode left = TL_CHILD(n, left);
  TSNode right = tl_unparen(TL_CHILD(n, right)); /* `x = (f(y))`, as black writes a long line */
  tl_walk_children(c, n, depth);
  if (ts_node_is_null(right)) return;
  uint32_t at = ts_node_end_byte(n);
  if (tl_node_is(left, "identifier") || tl_node_is(left, "attribute")) {
    char *d = tl_dotted(left, c->src);
    if (!d) return;
    tl_add_binding(c, d, at, right, TL_VAL_UNKNOWN);
    tl_model__bind_elements(c, d, at, tl_model__element_maker(c, right));
    if (c->func == 0 && c->cls >= 0 && tl_node_is(left, "identifier")) tl_model__field(c, n, d, right);
    if (tl_node_is(left, "attribute") && !tl_node_text_eq(TL_CHILD(left, object), c->src, "self")) {
      /* `args.loss_type = "huber"`, `self.cfg.mode = ...` (any receiver but `self`: names change
       * nothing): an option set in the code has no known value; set to another option's value
       * (`config.TRAIN.ACCUMULATION_STEPS = args.accumulation_steps`), it has that option's when
       * that one is off by default ("@accumulation_steps", tl_project.c). At module level, on a
       * configuration tree, it declares a setting instead (tl_model__config_node). */
      TSNode an = TL_CHILD(left, attribute);
      char *an_s = tl_node_text(an, c->src), *from = NULL;
      if (tl_node_is(right, "attribute") && !tl_node_text_eq(TL_CHILD(right, object), c->src, "self")) {
        char *r = tl_node_text(TL_CHILD(right, attribute), c->src);
        from = tl_concat("@", "", r);
        free(r);
      }
      tl_model__option_value(c, an_s, from ? tl_model__str(c->m, from) : "!");
      tl_model__config_node(c, left, right, c->m->off_names.n - 1);
      free(from);
      free(an_s);
    }
    if (c->func == 0 && c->cls < 0 && tl_node_is(left, "identifier")) { /* a module-level flag: off, or set */
      char *on = tl_concat("!", "", d);
      tl_vec_push(&c->m->off_names, tl_model__str(c->m, tl_model__off_literal(right, c->src) ? d : on));
      free(on);
    } else if (c->func > 0 && tl_node_is(left, "identifier") && !tl_model__off_literal(right, c->src) &&
               tl_freq_global_name(left, c->src)) {
      /* `global writer` then `writer = SummaryWriter()` in a set-up function: the module's flag is set */
      char *on = tl_concat("!", "", d);
      tl_vec_push(&c->m->off_names, tl_model__str(c->m, on));
      free(on);
    }
    if (tl_node_is(right, "call")) {
      char *callee = tl_dotted(TL_CHILD(right, function), c->src);
      if (tl_is_dataloader_callee(c->m, callee)) tl_vec_push(&c->m->loader_names, tl_model__str(c->m, d));
      free(callee);
    }
    if (tl_freq_test(right, c->src, c->guard_vars.v, c->guard_vars.n) == TL_FREQ_RARE_THEN)
      tl_vec_push(&c->guard_vars, tl_model__str(c->m, d));
    free(d);
  } else if ((tl_node_is(left, "pattern_list") || tl_node_is(left, "tuple_pattern")) &&
             (tl_node_is(right, "expression_list") || tl_node_is(right, "tuple")) &&
             ts_node_named_child_count(left) == ts_node_named_child_count(right)) {
    /* a, b = 0.0, time.time(): each name gets its own value */
    for (uint32_t i = 0; i < ts_node_named_child_count(left); i++) {
      TSNode t = ts_node_named_child(left, i), v = ts_node_named_child(right, i);
      char *d = (tl_node_is(t, "identifier") || tl_node_is(t, "attribute")) && !tl_node_is(v, "list_splat")
                    ? tl_dotted(t, c->src)
                    : NULL;
      if (d) tl_add_binding(c, d, at, v, TL_VAL_UNKNOWN);
      else tl_bind_targets(c, t, at, TL_VAL_UNKNOWN, 0);
      free(d);
    }
  } else if ((tl_node_is(left, "pattern_list") || tl_node_is(left, "tuple_pattern")) &&
             (tl_node_is(right, "call") || tl_node_is(right, "identifier"))) {
    /* logits, loss = model(x): each name is an element of the call's result, the first ones by
     * their position (a starred target hides the positions after it); `out, n, r = outputs`: an
     * element of what the name holds */
    bool starred = false;
    uint32_t pos = 0; /* the target's position, comments aside */
    for (uint32_t i = 0; i < ts_node_named_child_count(left); i++) {
      TSNode t = ts_node_named_child(left, i);
      if (tl_node_is(t, "comment")) continue;
      if (tl_node_is(t, "list_splat_pattern")) starred = true;
      uint8_t slot = !starred && pos < TL_RET_SLOTS ? (uint8_t)(pos + 1) : 0;
      pos++;
      char *d = tl_node_is(t, "identifier") || tl_node_is(t, "attribute") ? tl_dotted(t, c->src) : NULL;
      if (!d) {
        tl_bind_targets(c, t, at, TL_VAL_UNKNOWN, 0);
        continue;
      }
      size_t bi = c->m->bindings.n;
      tl_add_binding(c, d, at, right, TL_VAL_UNKNOWN);
      for (size_t k = bi; k < c->m->bindings.n; k++) {
        tl_binding *nb = &c->m->bindings.v[k];
        nb->elem = true, nb->slot = slot, nb->ctor = NULL;
      }
      if (c->cls >= 0 && !strncmp(d, "self.", 5) && !strchr(d + 5, '.')) {
        tl_class *k = &c->m->classes.v[c->cls];
        k->attrs.v[k->attrs.n - 1].elem = true;
        k->attrs.v[k->attrs.n - 1].slot = slot;
        k->attrs.v[k->attrs.n - 1].ctor = NULL;
      }
      free(d);
    }
  } else if (tl_node_is(left, "subscript") && tl_node_is(right, "call")) {
    char *d = tl_dotted(TL_CHILD(left, value), c->src);
    tl_model__bind_elements(c, d, at, right);
    free(d);
  } else {
    tl_bind_targets(c, left, at, TL_VAL_UNKNOWN, 0);
  }
}

static void tl_walk_call(tl_walk_ctx *c, TSNode n, int depth) {
  TSNode fn = TL_CHILD(n, function);
  const char *callee = tl_strtab_take(&c->m->strs, tl_callee_text(fn, c->src));
  if (callee) {
    TSPoint p = ts_node_start_point(n);
    tl_call call = {.callee = callee,
                    .byte = ts_node_start_byte(n),
                    .line = p.row + 1,
                    .col = p.column + 1,
                    .end = ts_node_end_byte(n),
                    .func = c->func,
                    .loop = c->loop,
                    .top = c->loop < 0 || c->m->loops.v[c->loop].func != c->func,
                    .guarded = c->guard_depth > 0,
                    .stmt = c->stmt_call[0] == ts_node_start_byte(n) && c->stmt_call[1] == ts_node_end_byte(n),
                    .work = tl_call_work(callee)};
    /* loss.backward(retain_graph=True) keeps the graph for another backward pass over the same
     * forward (a loss in parts, or gradients taken per output for attribution): a step only where
     * an optimizer step or another sign says so */
    TSNode rg = call.work == TL_WORK_BACKWARD ? tl_kwarg_value(TL_CHILD(n, arguments), c->src, "retain_graph")
                                              : (TSNode){0};
    if (!ts_node_is_null(rg) && tl_node_is(rg, "true")) call.work = 0;
    tl_vec_push(&c->m->calls, call);
    tl_vec_push(&c->call_nodes, n);
    tl_vec_push(&c->call_old, 0);
    if (call.work && c->loop >= 0 && c->m->loops.v[c->loop].func == c->func && !call.guarded)
      c->m->loops.v[c->loop].work |= call.work;
  }
  /* parser.add_argument("--dump", action="store_true"): an option off unless asked for */
  TSNode args = TL_CHILD(n, arguments);
  if (callee && tl_dotted_last_is(callee, "add_argument") && !ts_node_is_null(args)) tl_model__option(c, args);
  /* collate_fn=<name> marks a per-sample function. */
  for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (!tl_node_is(a, "keyword_argument")) continue;
    TSNode k = TL_CHILD(a, name);
    uint32_t kl = ts_node_end_byte(k) - ts_node_start_byte(k);
    if (kl == 10 && !memcmp(c->src + ts_node_start_byte(k), "collate_fn", 10)) {
      const char *v = tl_strtab_take(&c->m->strs, tl_dotted(TL_CHILD(a, value), c->src));
      if (v) tl_vec_push(&c->m->collate_names, v);
    }
  }
  tl_walk_children(c, n, depth);
}

static void tl_walk_function(tl_walk_ctx *c, TSNode n, int depth) {
  TSNode name = TL_CHILD(n, name);
  const char *nm = tl_strtab_take(&c->m->strs, tl_node_text(name, c->src));
  const tl_func *outer = &c->m->funcs.v[c->func];
  tl_func f = {0};
  f.name = nm;
  if (c->cls >= 0 && c->func == 0) {
    const tl_class *k = &c->m->classes.v[c->cls];
    f.qual = tl_strtab_take(&c->m->strs, tl_concat(k->qual, ".", nm));
    f.display = tl_strtab_take(&c->m->strs, tl_concat(k->name, ".", nm));
  } else if (c->func == 0) {
    f.qual = tl_strtab_take(&c->m->strs, tl_join_module(c->m->module, nm));
    f.display = nm;
  } else {
    f.qual = tl_strtab_take(&c->m->strs, tl_concat(outer->qual, ".<locals>.", nm));
    f.display = tl_strtab_take(&c->m->strs, tl_concat(outer->display, ".", nm));
  }
  f.cls = c->func == 0 ? c->cls : -1;
  f.outer = c->func;
  f.start = ts_node_start_byte(n);
  f.end = ts_node_end_byte(n);
  TSPoint p = ts_node_start_point(name);
  f.line = p.row + 1;
  f.col = p.column + 1;
  size_t nl = strlen(nm);
  f.is_collate = !strcmp(nm, "collate_fn") || !strcmp(nm, "collate") || (nl > 8 && !strcmp(nm + nl - 8, "_collate")) ||
                 (nl > 11 && !strcmp(nm + nl - 11, "_collate_fn"));
  TSNode dd = ts_node_parent(n);
  for (uint32_t i = 0; tl_node_is(dd, "decorated_definition") && i < ts_node_named_child_count(dd) && !f.no_grad; i++) {
    TSNode dec = ts_node_named_child(dd, i);
    if (!tl_node_is(dec, "decorator") || !ts_node_named_child_count(dec)) continue;
    TSNode e = ts_node_named_child(dec, 0);
    char *d = tl_dotted(tl_node_is(e, "call") ? TL_CHILD(e, function) : e, c->src);
    if (!d) continue;
    char *q = tl_model_resolve(c->m, d);
    f.no_grad = tl_str_in(q, strlen(q), tl_vocab_no_grad_calls);
    free(q);
    free(d);
  }
  /* the parameters' names, in order (`*args`, `**kw` and a bare `*` are not positions) */
  f.param_first = (uint32_t)c->m->params.n;
  TSNode ps = TL_CHILD(n, parameters);
  for (uint32_t i = 0; !ts_node_is_null(ps) && i < ts_node_named_child_count(ps); i++) {
    TSNode q = ts_node_named_child(ps, i);
    if (tl_node_is(q, "default_parameter") || tl_node_is(q, "typed_default_parameter")) q = TL_CHILD(q, name);
    else if (tl_node_is(q, "typed_parameter") && ts_node_named_child_count(q)) q = ts_node_named_child(q, 0);
    if (!tl_node_is(q, "identifier")) continue;
    TSNode dv = tl_node_is(ts_node_named_child(ps, i), "default_parameter") ||
                        tl_node_is(ts_node_named_child(ps, i), "typed_default_parameter")
                    ? TL_CHILD(ts_node_named_child(ps, i), value)
                    : (TSNode){0};
    tl_vec_push(&c->m->params, tl_strtab_take(&c->m->strs, tl_node_text(q, c->src)));
    tl_vec_push(&c->m->param_off, (uint8_t)(!ts_node_is_null(dv) && tl_model__off_literal(dv, c->src)));
    const char *lit = ts_node_is_null(dv) ? NULL : tl_model_literal(c->m, dv, c->src);
    tl_vec_push(&c->m->param_lit, ts_node_is_null(dv) ? NULL : lit ? lit : tl_model__str(c->m, "?"));
    f.nparams++;
  }
  tl_vec_push(&c->m->funcs, f);

  int32_t saved_func = c->func, saved_loop = c->loop, saved_cls = c->cls;
  uint32_t saved_guard = c->guard_depth;
  size_t saved_vars = c->guard_vars.n;
  c->func = (int32_t)(c->m->funcs.n - 1);
  c->loop = -1;
  c->guard_depth = 0;
  if (saved_func != 0) c->cls = -1; /* nested functions are not methods */
  tl_walk_children(c, n, depth);
  c->guard_vars.n = saved_vars;
  c->func = saved_func;
  c->loop = saved_loop;
  c->cls = saved_cls;
  c->guard_depth = saved_guard;
}

static void tl_walk_class(tl_walk_ctx *c, TSNode n, int depth) {
  tl_class k = {0};
  k.name = tl_strtab_take(&c->m->strs, tl_node_text(TL_CHILD(n, name), c->src));
  k.qual = tl_strtab_take(&c->m->strs, c->cls >= 0 ? tl_concat(c->m->classes.v[c->cls].qual, ".", k.name)
                                                   : tl_join_module(c->m->module, k.name));
  k.line = ts_node_start_point(n).row + 1;
  k.decorated = tl_node_is(ts_node_parent(n), "decorated_definition");
  TSNode sup = TL_CHILD(n, superclasses);
  for (uint32_t i = 0; !ts_node_is_null(sup) && i < ts_node_named_child_count(sup); i++) {
    char *d = tl_dotted(ts_node_named_child(sup, i), c->src);
    if (!d) continue;
    tl_vec_push(&k.bases, tl_strtab_take(&c->m->strs, tl_model_resolve(c->m, d)));
    free(d);
  }
  tl_vec_push(&c->m->classes, k);
  int32_t saved_cls = c->cls, saved_func = c->func;
  c->cls = (int32_t)(c->m->classes.n - 1);
  if (c->func != 0) c->func = c->func; /* classes inside functions keep their function */
  tl_walk_children(c, n, depth);
  c->cls = saved_cls;
  c->func = saved_func;
}

/* What a name's words say it counts: TL_NAME_DATA when one is a word of data or time, else
 * TL_NAME_STRUCTURE when one names a part of the model or pipeline, else 0. */
enum { TL_NAME_STRUCTURE = 1, TL_NAME_DATA = 2 };
static int tl_model__name_words(const char *s, size_t n) {
  if (tl_name_has_word(s, n, tl_vocab_data_words)) return TL_NAME_DATA;
  return tl_name_has_word(s, n, tl_vocab_structure_words) ? TL_NAME_STRUCTURE : 0;
}

/* Does a `for` iterate a small collection that the program fixes, rather than data: a literal
 * container; range() of a literal, of a count named after a part of the model (`num_layers`,
 * `len(self.blocks)`); zip() with one such argument; enumerate(), reversed(), sorted(), list() or
 * tuple() of one; a model's parameters or modules, a dict's items; a name bound to one in the
 * function, or named after parts of the model (`text_encoders`)? A loop over data or over steps
 * (`loader`, `range(max_iters)`, `timesteps`) is not, nor is anything unknown. */
static bool tl_model__small_iterable(tl_walk_ctx *c, TSNode n, int depth) {
  n = tl_unparen(n);
  if (depth > 8 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "list") || tl_node_is(n, "tuple") || tl_node_is(n, "set") || tl_node_is(n, "dictionary") ||
      tl_node_is(n, "integer"))
    return true;
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) {
    uint32_t s = ts_node_start_byte(n);
    int w = tl_model__name_words(c->src + s, ts_node_end_byte(n) - s);
    if (w == TL_NAME_DATA) return false;
    if (w == TL_NAME_STRUCTURE) return true;
    char *d = tl_dotted(n, c->src);
    const tl_binding *b = d ? tl_model_binding(c->m, d, c->func, s) : NULL;
    free(d);
    TSNode v = b ? tl_bvalue(c->m, b) : (TSNode){0};
    return !ts_node_is_null(v) && tl_model__small_iterable(c, v, depth + 1);
  }
  if (!tl_node_is(n, "call")) return false;
  TSNode fn = TL_CHILD(n, function), args = TL_CHILD(n, arguments);
  uint32_t na = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
  if (tl_node_is(fn, "attribute")) return tl_node_text_in(TL_CHILD(fn, attribute), c->src, tl_vocab_structure_methods);
  if (!tl_node_is(fn, "identifier")) return false;
  if (tl_node_text_eq(fn, c->src, "range")) {
    if (na == 0 || na > 3) return false;
    TSNode stop = ts_node_named_child(args, na == 1 ? 0 : 1);
    if (tl_node_is(stop, "call") && tl_node_text_eq(TL_CHILD(stop, function), c->src, "len")) {
      TSNode sa = TL_CHILD(stop, arguments);
      return ts_node_named_child_count(sa) == 1 && tl_model__small_iterable(c, ts_node_named_child(sa, 0), depth + 1);
    }
    return tl_model__small_iterable(c, stop, depth + 1);
  }
  if (tl_node_text_eq(fn, c->src, "zip")) {
    for (uint32_t i = 0; i < na; i++)
      if (tl_model__small_iterable(c, ts_node_named_child(args, i), depth + 1)) return true;
    return false;
  }
  static const char *const wrappers[] = {"enumerate", "reversed", "sorted", "list", "tuple", NULL};
  return na >= 1 && tl_node_text_in(fn, c->src, wrappers) &&
         tl_model__small_iterable(c, ts_node_named_child(args, 0), depth + 1);
}

static void tl_walk_loop(tl_walk_ctx *c, TSNode n, int depth) {
  bool is_for = tl_node_is(n, "for_statement");
  TSPoint p = ts_node_start_point(n);
  tl_loop l = {.func = c->func,
               .parent = c->loop,
               .start = ts_node_start_byte(n),
               .end = ts_node_end_byte(n),
               .line = p.row + 1,
               .col = p.column + 1,
               .is_while = !is_for,
               .in_main = c->in_main};
  const char *iter = NULL;
  bool counted = false; /* `for i, batch in enumerate(...)`: the first target counts, it is no batch */
  if (is_for) {
    TSNode right = TL_CHILD(n, right);
    l.small = tl_model__small_iterable(c, right, 0);
    tl_walk_visit(c, right, depth + 1); /* the iterable is evaluated once, outside the loop */
    /* Unwrap enumerate(...), tqdm(...), zip(...): take the first argument that names something. */
    for (int guard = 0; guard < 4 && tl_node_is(right, "call"); guard++) {
      char *fn = tl_dotted(TL_CHILD(right, function), c->src);
      size_t fl = 0;
      const char *last = fn ? tl_dotted_last(fn, &fl) : NULL;
      bool wrapper = last && tl_str_in(last, fl, tl_vocab_iter_wrappers);
      counted = counted || (last && fl == 9 && !memcmp(last, "enumerate", 9));
      free(fn);
      if (!wrapper) break;
      TSNode args = TL_CHILD(right, arguments);
      if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0) break;
      right = ts_node_named_child(args, 0);
    }
    /* Another call of a loader (`metric_logger.log_every(data_loader, 10)`, `prefetcher(loader)`)
     * yields its batches: its first argument is the iterable that counts. */
    if (tl_node_is(right, "call")) {
      TSNode args = TL_CHILD(right, arguments);
      TSNode a0 = ts_node_is_null(args) || !ts_node_named_child_count(args) ? (TSNode){0}
                                                                            : ts_node_named_child(args, 0);
      if (tl_node_is(a0, "identifier") || tl_node_is(a0, "attribute")) right = a0;
    }
    iter = tl_strtab_take(&c->m->strs, tl_dotted(right, c->src));
  }
  tl_vec_push(&c->m->loops, l);
  tl_vec_push(&c->m->loop_iters, iter);
  int32_t idx = (int32_t)(c->m->loops.n - 1);
  int32_t saved = c->loop;
  c->loop = idx;
  if (is_for) {
    TSNode left = TL_CHILD(n, left);
    TSNode body = TL_CHILD(n, body);
    uint32_t at = ts_node_is_null(body) ? ts_node_end_byte(left) : ts_node_start_byte(body);
    /* Loop targets: CPU tensors when iterating a loader (decided after the walk), unknown otherwise. */
    size_t first = c->m->bindings.n;
    tl_bind_targets(c, left, at, TL_VAL_UNKNOWN, 0);
    for (size_t i = first; i < c->m->bindings.n; i++) c->m->bindings.v[i].from_loop = idx; /* kind set after the walk */
    TSNode t0 = (tl_node_is(left, "pattern_list") || tl_node_is(left, "tuple_pattern")) &&
                        ts_node_named_child_count(left)
                    ? ts_node_named_child(left, 0)
                    : (TSNode){0};
    if (counted && tl_node_is(t0, "identifier") && first < c->m->bindings.n) {
      c->m->bindings.v[first].from_loop = -1;
      c->m->bindings.v[first].kind = TL_VAL_PY;
    }
    tl_walk_visit(c, body, depth + 1);
    tl_walk_visit(c, TL_CHILD(n, alternative), depth + 1);
  } else {
    tl_walk_children(c, n, depth);
  }
  c->loop = saved;
}

void tl_walk_visit(tl_walk_ctx *c, TSNode n, int depth) {
  if (ts_node_is_null(n) || c->m->walk_stopped) return;
  /* the file's budgets (tl_file_model.walk_deadline_ns, walk_node_budget), or the run is cancelled
   * (walk_cancel): the walk stops here */
  c->visits++;
  if ((c->m->walk_node_budget && c->visits > c->m->walk_node_budget) ||
      (!(c->visits & 1023) && ((c->m->walk_deadline_ns && tl_now_ns() > c->m->walk_deadline_ns) ||
                               (c->m->walk_cancel && __atomic_load_n(c->m->walk_cancel, __ATOMIC_RELAXED))))) {
    c->m->walk_stopped = true;
    c->m->walk_stop_byte = ts_node_start_byte(n);
    return;
  }
  /* A construct nested too deep, or with too many children (a literal of millions of elements,
   * which tree-sitter keeps as a deep tree of hidden nodes), is not modelled, and the top-level
   * statement around it is left out of the matching too: the query cursor's cost grows with the
   * depth of every node it visits, quadratic on such a statement. */
  uint32_t width = depth > 0 && depth <= TL_MAX_DEPTH ? ts_node_child_count(n) : 0;
  if (depth > TL_MAX_DEPTH || width > TL_MAX_WIDTH) {
    uint32_t at = ts_node_start_byte(n);
    if (c->m->deep_stmts.n && at < c->m->deep_stmts.v[c->m->deep_stmts.n - 1].end) return;
    TSNode top = n;
    for (TSNode up = ts_node_parent(top); !ts_node_is_null(up) && !ts_node_is_null(ts_node_parent(up));
         up = ts_node_parent(up))
      top = up;
    tl_range r = {ts_node_start_byte(top), ts_node_end_byte(top), 0};
    tl_vec_push(&c->m->deep_stmts, r);
    TSPoint p = ts_node_start_point(n);
    if (width > TL_MAX_WIDTH)
      tl_diags_add(c->diags, TL_DIAG_WARNING, c->path, p.row + 1, p.column + 1,
                   "a construct with %u child nodes (more than %d): the statement at lines %u-%u is not analysed",
                   width, TL_MAX_WIDTH, ts_node_start_point(top).row + 1, ts_node_end_point(top).row + 1);
    else
      tl_diags_add(c->diags, TL_DIAG_WARNING, c->path, p.row + 1, p.column + 1,
                   "nesting deeper than %d levels: the statement at lines %u-%u is not analysed", TL_MAX_DEPTH,
                   ts_node_start_point(top).row + 1, ts_node_end_point(top).row + 1);
    c->m->deep = true;
    return;
  }
  const char *t = ts_node_type(n);
  if (t[0] == 'b' && !strcmp(t, "boolean_operator")) tl_model__and_guards(c, n);
  if ((t[0] == 'l' || t[0] == 'g' || t[0] == 's' || t[0] == 'd') &&
      (!strcmp(t, "list_comprehension") || !strcmp(t, "generator_expression") || !strcmp(t, "set_comprehension") ||
       !strcmp(t, "dictionary_comprehension")) &&
      c->func >= 0 && (size_t)c->func < c->m->funcs.n)
    c->m->funcs.v[c->func].has_comp = true;
  switch (t[0]) {
  case 'a':
    if (!strcmp(t, "assignment")) {
      tl_walk_assignment(c, n, depth);
      return;
    }
    if (!strcmp(t, "augmented_assignment")) {
      tl_walk_children(c, n, depth);
      /* `count += 1`, `self.steps += 1`: a counter, set on by the program whatever its first value */
      TSNode left = TL_CHILD(n, left);
      if (tl_node_is(left, "identifier") || tl_node_is(left, "attribute")) {
        char *d = tl_dotted(left, c->src);
        char *on = d ? tl_concat("!", "", d) : NULL;
        if (on) tl_vec_push(&c->m->off_names, tl_model__str(c->m, on));
        free(on);
        free(d);
      }
      return;
    }
    /* `x.name`: only x can hold code (three children: no comment inside) */
    if (!strcmp(t, "attribute") && ts_node_child_count(n) == 3) {
      tl_walk_visit(c, TL_CHILD(n, object), depth + 1);
      return;
    }
    break;
  case 'k':
    /* `name=value`: only the value can hold code */
    if (!strcmp(t, "keyword_argument") && ts_node_child_count(n) == 3) {
      tl_walk_visit(c, TL_CHILD(n, value), depth + 1);
      return;
    }
    break;
  case 'c':
    if (!strcmp(t, "call")) {
      tl_walk_call(c, n, depth);
      return;
    }
    if (!strcmp(t, "comment")) {
      uint32_t s = ts_node_start_byte(n);
      TSPoint p = ts_node_start_point(n);
      tl_suppress_parse(&c->m->suppressions, c->src + s, ts_node_end_byte(n) - s, s, p.row + 1, p.column + 1);
      return;
    }
    if (!strcmp(t, "class_definition")) {
      tl_walk_class(c, n, depth);
      return;
    }
    break;
  case 'f':
    if (!strcmp(t, "function_definition")) {
      tl_walk_function(c, n, depth);
      return;
    }
    if (!strcmp(t, "for_statement")) {
      tl_walk_loop(c, n, depth);
      return;
    }
    break;
  case 'w':
    if (!strcmp(t, "while_statement")) {
      tl_walk_loop(c, n, depth);
      return;
    }
    break;
  case 's':
    /* a string's children are its pieces: only an f-string's interpolations hold code (the
     * grammar's scanner makes them only after an `f`/`F` prefix) */
    if (!strcmp(t, "string")) {
      const char *p = c->src + ts_node_start_byte(n);
      bool format = false;
      for (; isalpha((unsigned char)*p) && !format; p++) format = *p == 'f' || *p == 'F';
      if (!format) return;
    }
    break;
  case 'e':
    /* `evaluate(cfg)`, `await run()`: a call whose value the statement discards */
    if (!strcmp(t, "expression_statement") && ts_node_named_child_count(n) == 1) {
      TSNode v = ts_node_named_child(n, 0);
      if (tl_node_is(v, "await") && ts_node_named_child_count(v) == 1) v = ts_node_named_child(v, 0);
      if (tl_node_is(v, "call")) c->stmt_call[0] = ts_node_start_byte(v), c->stmt_call[1] = ts_node_end_byte(v);
    }
    break;
  case 'r':
    if (!strcmp(t, "return_statement") && ts_node_named_child_count(n)) {
      TSNode v = ts_node_named_child(n, 0);
      tl_return r = {c->func, ts_node_start_byte(v), ts_node_end_byte(v), ts_node_symbol(v)};
      tl_vec_push(&c->m->rets, r);
      tl_vec_push(&c->ret_nodes, v);
    }
    break;
  case 'i':
    if (!strcmp(t, "if_statement")) {
      tl_walk_if(c, n, depth);
      return;
    }
    if (!strcmp(t, "import_statement") || !strcmp(t, "import_from_statement")) {
      tl_model_import(c, n);
      return;
    }
    break;
  }
  tl_walk_children(c, n, depth);
}

static bool tl_is_loader_name(const tl_file_model *m, const char *d) {
  for (size_t i = 0; i < m->loader_names.n; i++)
    if (!strcmp(m->loader_names.v[i], d)) return true;
  for (size_t i = 0; i < m->step_iterables.n; i++)
    if (tl_dotted_last_is(d, m->step_iterables.v[i]) || !strcmp(d, m->step_iterables.v[i])) return true;
  size_t n;
  const char *last = tl_dotted_last(d, &n);
  return n >= 6 && !strncasecmp(last + n - 6, "loader", 6);
}

/* Evidence that code may run on an accelerator: in the code with comments and docstrings blanked,
 * a word with a segment (split at `_` and case changes ignored) naming a device or a framework
 * that picks one by itself (`cuda`, `device`, `gpu`, `xla`, `mps`, `npu`, `paddle`, `lightning`,
 * `accelerate`, `deepspeed`, `transformers`, ...), or a `.to(` call. Generous on purpose: a
 * project without any of it is CPU-only and the synchronisation rules stay quiet there. */
static bool tl_accelerator_evidence(const char *src, const char *code_text, size_t len, bool *has_main) {
  char *own = code_text ? NULL : tl_code_text(src, len, true);
  const char *code = code_text ? code_text : own;
  bool hit = false;
  /* bit l of pairs[n]: a word of n letters starts with letter l; other segments are not compared */
  uint32_t pairs[24] = {0};
  for (const char *const *w = tl_vocab_accel_words; *w; w++) /* (every word is shorter than 24 letters) */
    if (strlen(*w) < sizeof pairs / sizeof *pairs) pairs[strlen(*w)] |= UINT32_C(1) << ((*w)[0] - 'a');
#define TL_WORD_BYTE(ch) ((unsigned)(((ch) | 0x20) - 'a') < 26u || (unsigned)((ch) - '0') < 10u || (ch) == '_')
  *has_main = strstr(code, "__name__") && strstr(code, "__main__");
  for (size_t i = 0; i < len && !hit;) {
    if (!TL_WORD_BYTE((unsigned char)code[i])) {
      i++;
      continue;
    }
    size_t s = i;
    while (i < len && TL_WORD_BYTE((unsigned char)code[i])) i++;
    /* `.to(`: a move between devices */
    if (i - s == 2 && code[s] == 't' && code[s + 1] == 'o' && s > 0 && code[s - 1] == '.') {
      size_t k = i;
      while (k < len && (code[k] == ' ' || code[k] == '\t')) k++;
      if (k < len && code[k] == '(') {
        hit = true;
        break;
      }
    }
    for (size_t a = s; a < i && !hit;) {
      while (a < i && code[a] == '_') a++;
      size_t b = a;
      while (b < i && code[b] != '_') b++;
      size_t n = b - a;
      unsigned f = (unsigned)((unsigned char)code[a] | 0x20) - 'a'; /* the first letter, any case */
      if (n < sizeof pairs / sizeof *pairs && f < 26u && (pairs[n] >> f) & 1)
        for (const char *const *w = tl_vocab_accel_words; *w && !hit; w++)
          hit = (unsigned)((*w)[0] - 'a') == f && strlen(*w) == n && !strncasecmp(code + a, *w, n);
      a = b;
    }
  }
#undef TL_WORD_BYTE
  free(own);
  return hit;
}


/* The module's functions that return a remainder test (`def divisible_by(n, d): return n % d == 0`):
 * calling one is a frequency test (tl_freq_test). Listed as "name()". */
static void tl_model__guard_funcs(tl_file_model *m, TSNode root, const char *src) {
  /* the module's statements through a cursor: ts_node_named_child(root, i) walks from the first
   * child each time, a square in the number of statements */
  TSTreeCursor cur = ts_tree_cursor_new(root);
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more; more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode d = ts_tree_cursor_current_node(&cur);
    if (!ts_node_is_named(d)) continue;
    if (tl_node_is(d, "decorated_definition")) d = TL_CHILD(d, definition);
    if (!tl_node_is(d, "function_definition")) continue;
    TSNode body = TL_CHILD(d, body), ret = {0};
    for (uint32_t k = 0; !ts_node_is_null(body) && k < ts_node_named_child_count(body); k++) {
      TSNode st = ts_node_named_child(body, k);
      if (tl_node_is(st, "comment") || (tl_node_is(st, "expression_statement") && ts_node_named_child_count(st) &&
                                        tl_node_is(ts_node_named_child(st, 0), "string")))
        continue; /* a docstring */
      ret = tl_node_is(st, "return_statement") && ts_node_is_null(ret) ? st : (TSNode){0};
      if (ts_node_is_null(ret)) break;
    }
    if (ts_node_is_null(ret) || !ts_node_named_child_count(ret)) continue;
    if (tl_freq_test(ts_node_named_child(ret, 0), src, NULL, 0) != TL_FREQ_RARE_THEN) continue;
    char *name = tl_node_text(TL_CHILD(d, name), src);
    char *call = tl_concat(name, "", "()");
    tl_vec_push(&m->guard_funcs, tl_model__str(m, call));
    free(call);
    free(name);
  }
  ts_tree_cursor_delete(&cur);
}

static bool tl_model__names_same(const char *const *a, size_t na, const char *const *b, size_t nb) {
  if (na != nb) return false;
  for (size_t i = 0; i < na; i++)
    if (a[i] != b[i] && strcmp(a[i], b[i])) return false;
  return true;
}

/* May the calls a rebuild copied keep the arguments the last model found for them? Where an
 * argument lives is read from the bindings of its own function (copied with it), of the module and
 * of classes (their attributes), from the imports, and from which names hold loaders. So the
 * arguments stand when the statements walked again bound nothing at module level and defined no
 * class, the statements they replaced did neither (the counts agree), and the imports and loader
 * names are the same. */
static bool tl_model__args_stand(const tl_file_model *m, const tl_file_model *old, const tl_walk_ctx *c) {
  if (!old || c->walked_defs || c->call_old.n != m->calls.n || m->classes.n != old->classes.n ||
      m->import_log.n != old->import_log.n)
    return false;
  size_t top_new = 0, top_old = 0;
  for (size_t i = 0; i < m->bindings.n; i++) top_new += m->bindings.v[i].func <= 0;
  for (size_t i = 0; i < old->bindings.n; i++) top_old += old->bindings.v[i].func <= 0;
  if (top_new != top_old) return false;
  if (!tl_segment_imports_same(m, old, m->import_log.n)) return false;
  return tl_model__names_same(m->loader_names.v, m->loader_names.n, old->loader_names.v, old->loader_names.n) &&
         tl_model__names_same(m->collate_names.v, m->collate_names.n, old->collate_names.v, old->collate_names.n);
}

/* The walk of the module, by top-level statement: copied from `old` where `old` is given and the
 * statement is outside the region (see tl_model_rebuild), else walked. Returns the number copied. */
static long tl_model_walk(tl_file_model *m, tl_file_model *old, TSNode root, const char *src, const char *code,
                          const char *module, bool is_package, tl_diags *diags, const char *path, uint32_t lo,
                          uint32_t hi_old, uint32_t hi_new) {
  if (old) tl_strtab_move(&m->strs, &old->strs); /* copied entries keep their strings */
  m->module = tl_model__str(m, module);
  tl_model__guard_funcs(m, root, src);
  /* a copied statement's guards were found with the old list of such functions */
  bool same = old && old->guard_funcs.n == m->guard_funcs.n;
  for (size_t i = 0; same && i < m->guard_funcs.n; i++) same = m->guard_funcs.v[i] == old->guard_funcs.v[i];
  if (!same) old = NULL;
  m->uses_accel = tl_accelerator_evidence(src, code, ts_node_end_byte(root), &m->has_main);
  m->is_package = is_package;
  tl_func top = {0};
  top.name = tl_model__str(m, "<module>");
  top.qual = top.display = m->module;
  top.cls = -1;
  top.start = ts_node_start_byte(root);
  top.end = ts_node_end_byte(root);
  top.line = top.col = 1;
  top.outer = -1;
  tl_vec_push(&m->funcs, top);
  tl_walk_ctx c = {0};
  c.m = m;
  c.src = src;
  c.diags = diags;
  c.path = path;
  c.func = 0;
  c.cls = -1;
  c.loop = -1;
  c.cur = ts_tree_cursor_new(root);
  for (size_t i = 0; i < m->guard_funcs.n; i++) tl_vec_push(&c.guard_vars, m->guard_funcs.v[i]);
  long copied = 0;
  if (!tl_node_is(root, "module")) {
    tl_walk_visit(&c, root, 0);
  } else {
    /* the module's statements (the walk of the module node, one segment per named child) */
    TL_VEC(TSNode) kids = {0};
    TSTreeCursor rc = ts_tree_cursor_new(root);
    if (ts_tree_cursor_goto_first_child(&rc)) {
      do {
        TSNode ch = ts_tree_cursor_current_node(&rc);
        if (ts_node_is_named(ch)) tl_vec_push(&kids, ch);
      } while (ts_tree_cursor_goto_next_sibling(&rc));
    }
    int64_t d = (int64_t)hi_new - (int64_t)hi_old;
    bool walked = false; /* the last segment was walked: the state must be compared before a copy */
    for (size_t i = 0; i < kids.n; i++) {
      TSNode ch = kids.v[i];
      uint32_t s = ts_node_start_byte(ch), e = ts_node_end_byte(ch);
      tl_seg_copy k = {old, {0}, {0}, 0, 0, old ? old->funcs.v[0].start : 0, ts_node_start_byte(root)};
      size_t j = SIZE_MAX;
      if (old && e <= lo && i < old->segs.n && old->segs.v[i].start == s && old->segs.v[i].end == e) {
        j = i;
      } else if (old && s >= hi_new && kids.n - i <= old->segs.n) {
        j = old->segs.n - (kids.n - i);
        const tl_segment *os = &old->segs.v[j];
        k.d = d;
        k.dr = (int64_t)ts_node_start_point(ch).row - os->row;
        if (os->start < hi_old || (int64_t)os->start + d != s || (int64_t)os->end + d != e) j = SIZE_MAX;
      }
      /* a statement with a syntax error is walked again: error recovery may parse the same text
       * differently (a loop body that starts elsewhere) without a changed range there */
      if (j != SIZE_MAX && (old->segs.v[j].error || ts_node_has_error(ch))) j = SIZE_MAX;
      if (j != SIZE_MAX && walked && !tl_segment_state_same(m, old, &old->segs.v[j])) j = SIZE_MAX;
      if (j != SIZE_MAX) {
        k.b = old->segs.v[j];
        k.e = tl_segment_end(old, j);
      }
      tl_segment_open(m, ch);
      if (j != SIZE_MAX) {
        m->lazy_root = root;
        tl_segment_copy(&c, &k);
        copied++;
        walked = false;
      } else {
        size_t gv = c.guard_vars.n, nb = m->bindings.n, ncls = m->classes.n;
        tl_walk_visit(&c, ch, 1);
        for (size_t q = nb; q < m->bindings.n && !c.walked_defs; q++) c.walked_defs = m->bindings.v[q].func <= 0;
        if (m->classes.n != ncls) c.walked_defs = true;
        for (size_t q = gv; q < c.guard_vars.n; q++) tl_vec_push(&m->guard_log, c.guard_vars.v[q]);
        walked = true;
      }
    }
    ts_tree_cursor_delete(&rc);
    tl_vec_free(&kids);
  }
  ts_tree_cursor_delete(&c.cur);
  tl_vec_free(&c.kids);
  tl_model__bind_index(m);
  m->registers_buffers = false;
  for (size_t i = 0; i < m->calls.n && !m->registers_buffers; i++)
    m->registers_buffers = !strcmp(m->calls.v[i].callee, "self.register_buffer");
  m->funcs_sorted = true;
  for (size_t i = 2; i < m->funcs.n && m->funcs_sorted; i++)
    m->funcs_sorted = m->funcs.v[i - 1].start <= m->funcs.v[i].start;
  /* Now that every DataLoader binding is known: which loops iterate a loader. Its batches are in
   * host memory until moved (Paddle's DataLoader too: it yields pinned host tensors). */
  for (size_t i = 0; i < m->loops.n; i++) {
    const char *it = m->loop_iters.v[i];
    m->loops.v[i].iterates_loader = it && tl_is_loader_name(m, it);
  }
  for (size_t i = 0; i < m->bindings.n; i++) {
    int32_t l = m->bindings.v[i].from_loop;
    if (l >= 0) m->bindings.v[i].kind = m->loops.v[l].iterates_loader ? TL_VAL_CPU : TL_VAL_UNKNOWN;
  }
  tl_values_reuse ru = {old, c.call_old.v, hi_old, (int64_t)hi_new - (int64_t)hi_old};
  if (!m->walk_stopped) /* a stopped walk's file reports nothing: its calls keep no arguments */
    tl_values_summarise(m, c.call_nodes.v, c.ret_nodes.v, src, copied && tl_model__args_stand(m, old, &c) ? &ru : NULL);
  tl_vec_free(&c.call_nodes);
  tl_vec_free(&c.ret_nodes);
  tl_vec_free(&c.call_old);
  tl_vec_free(&c.guard_vars);
  return copied;
}

void tl_model_build(tl_file_model *m, TSNode root, const char *src, const char *module, bool is_package,
                    tl_diags *diags, const char *path) {
  tl_model_walk(m, NULL, root, src, NULL, module, is_package, diags, path, 0, 0, 0);
}

long tl_model_rebuild(tl_file_model *m, tl_file_model *old, TSNode root, const char *src, const char *code,
                      const char *module, bool is_package, tl_diags *diags, const char *path, uint32_t lo,
                      uint32_t hi_old, uint32_t hi_new) {
  /* the depth diagnostic is given once per file, by the first deep statement: walk it all again */
  if (old && (old->deep || !old->segs.n || !old->funcs.n || hi_old < lo || hi_new < lo)) return -1;
  /* Every rebuild keeps the old strings and adds the walked statements' new ones: a table grown
   * well past what the text can name starts afresh. */
  if (old && old->strs.bytes > 4 * (size_t)ts_node_end_byte(root) + 65536) return -1;
  return tl_model_walk(m, old, root, src, code, module, is_package, diags, path, lo, hi_old, hi_new);
}


/* What only tl_model_rebuild reads: the segments and the logs of imports and guard names. */
static void tl_model_free_rebuild_data(tl_file_model *m) {
  tl_vec_free(&m->segs);
  tl_vec_free(&m->import_log);
  tl_vec_free(&m->guard_log);
  tl_vec_free(&m->guard_funcs);
}

void tl_model_free(tl_file_model *m) {
  tl_map_free(&m->imports);
  tl_vec_free(&m->funcs);
  for (size_t i = 0; i < m->classes.n; i++) {
    tl_vec_free(&m->classes.v[i].bases);
    tl_vec_free(&m->classes.v[i].attrs);
  }
  tl_vec_free(&m->classes);
  tl_vec_free(&m->loops);
  tl_vec_free(&m->loop_iters);
  tl_vec_free(&m->calls);
  tl_vec_free(&m->bindings);
  tl_vec_free(&m->params);
  tl_vec_free(&m->param_off);
  tl_vec_free(&m->param_lit);
  tl_vec_free(&m->flag_guards);
  tl_vec_free(&m->off_names);
  tl_vec_free(&m->rets);
  tl_vec_free(&m->args);
  tl_vec_free(&m->rdeps);
  free(m->bind_order);
  free(m->bind_first);
  m->bind_order = m->bind_first = NULL;
  tl_vec_free(&m->guards);
  tl_vec_free(&m->deep_stmts);
  tl_vec_free(&m->loader_names);
  tl_vec_free(&m->collate_names);
  tl_vec_free(&m->step_iterables);
  tl_suppress_free(&m->suppressions);
  tl_model_free_rebuild_data(m);
  tl_strtab_free(&m->strs);
}

void tl_model_compact(tl_file_model *m) {
  tl_model_free_rebuild_data(m);
  tl_vec_shrink(&m->funcs);
  tl_vec_shrink(&m->classes);
  tl_vec_shrink(&m->loops);
  tl_vec_shrink(&m->calls);
  tl_vec_shrink(&m->bindings);
  tl_vec_shrink(&m->guards);
}

char *tl_model_resolve(const tl_file_model *m, const char *dotted) {
  size_t n = strcspn(dotted, ".(");
  char *head = tl_strndup(dotted, n);
  intptr_t v;
  char *out;
  if (tl_map_get(&m->imports, head, &v)) out = tl_concat((const char *)v, "", dotted + n);
  else out = tl_strdup(dotted);
  free(head);
  return out;
}

int32_t tl_model_func_at(const tl_file_model *m, uint32_t byte) {
  if (m->funcs_sorted) {
    /* The last function starting at or before `byte`, then out through its enclosing functions
     * to the first that still contains `byte`: every function containing `byte` encloses that one. */
    size_t lo = 1, hi = m->funcs.n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (m->funcs.v[mid].start <= byte) lo = mid + 1;
      else hi = mid;
    }
    int32_t i = (int32_t)lo - 1;
    while (i > 0 && !(byte < m->funcs.v[i].end && m->funcs.v[i].start >= m->funcs.v[0].start)) i = m->funcs.v[i].outer;
    return i > 0 ? i : 0;
  }
  int32_t best = 0;
  for (size_t i = 1; i < m->funcs.n; i++) {
    const tl_func *f = &m->funcs.v[i];
    if (f->start <= byte && byte < f->end && f->start >= m->funcs.v[best].start) best = (int32_t)i;
  }
  return best;
}

int32_t tl_model_loop_at(const tl_file_model *m, uint32_t byte) {
  int32_t best = -1;
  for (size_t i = 0; i < m->loops.n; i++) {
    const tl_loop *l = &m->loops.v[i];
    if (l->start <= byte && byte < l->end && (best < 0 || l->start >= m->loops.v[best].start)) best = (int32_t)i;
  }
  return best;
}


static const tl_binding *tl_lookup(const tl_file_model *m, const char *name, int32_t func, uint32_t before);

TSNode tl_model_binding_value(const tl_file_model *m, const char *name, int32_t func, uint32_t before) {
  const tl_binding *b = tl_lookup(m, name, func, before);
  return b ? tl_bvalue(m, b) : (TSNode){0};
}

const tl_binding *tl_model_binding(const tl_file_model *m, const char *name, int32_t func, uint32_t before) {
  return tl_lookup(m, name, func, before);
}

unsigned tl_model_call_work(const char *callee) { return callee ? tl_call_work(callee) : 0; }

typedef struct {
  const char *name;
  uint32_t byte, idx;
} tl_model__bind_key;

static int tl_model__bind_cmp(const void *x, const void *y) {
  const tl_model__bind_key *a = x, *b = y;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  if (a->byte != b->byte) return a->byte < b->byte ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The bindings' index (tl_file_model.bind_order, bind_first): grouped by function, and within a
 * function sorted by name, then by where each takes effect, then in source order, so that a lookup
 * (tl_lookup) is a binary search in its function's slice (a module of 40,000 statements took
 * seconds, every call's lookup reading every module-level binding). */
static void tl_model__bind_index(tl_file_model *m) {
  m->bind_first = tl_calloc(m->funcs.n + 1, sizeof *m->bind_first);
  m->bind_order = tl_calloc(m->bindings.n ? m->bindings.n : 1, sizeof *m->bind_order);
  for (size_t i = 0; i < m->bindings.n; i++) m->bind_first[m->bindings.v[i].func + 1]++;
  for (size_t f = 0; f < m->funcs.n; f++) m->bind_first[f + 1] += m->bind_first[f];
  tl_model__bind_key *keys = tl_malloc((m->bindings.n ? m->bindings.n : 1) * sizeof *keys);
  uint32_t *next = tl_malloc((m->funcs.n + 1) * sizeof *next);
  memcpy(next, m->bind_first, (m->funcs.n + 1) * sizeof *next);
  for (size_t i = 0; i < m->bindings.n; i++) {
    const tl_binding *b = &m->bindings.v[i];
    keys[next[b->func]++] = (tl_model__bind_key){b->name, b->byte, (uint32_t)i};
  }
  for (size_t f = 0; f < m->funcs.n; f++) {
    uint32_t lo = m->bind_first[f], n = m->bind_first[f + 1] - lo;
    if (n > 1) qsort(keys + lo, n, sizeof *keys, tl_model__bind_cmp);
  }
  for (size_t i = 0; i < m->bindings.n; i++) m->bind_order[i] = keys[i].idx;
  free(next);
  free(keys);
}

/* Is binding b of the index after (name, before): its name later, or the same with a later byte? */
static bool tl_lookup__after(const tl_binding *b, const char *name, uint32_t before) {
  int c = strcmp(b->name, name);
  return c > 0 || (c == 0 && b->byte > before);
}

static const tl_binding *tl_lookup(const tl_file_model *m, const char *name, int32_t func, uint32_t before) {
  const tl_binding *best = NULL;
  if (m->bind_first) {
    /* the last binding of the name at or before `before` in the function's slice of the index */
    if (func < 0 || (size_t)func >= m->funcs.n) return NULL;
    uint32_t lo = m->bind_first[func], hi = m->bind_first[func + 1];
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (tl_lookup__after(&m->bindings.v[m->bind_order[mid]], name, before)) hi = mid;
      else lo = mid + 1;
    }
    if (lo == m->bind_first[func]) return NULL;
    best = &m->bindings.v[m->bind_order[lo - 1]];
    return strcmp(best->name, name) ? NULL : best;
  }
  for (size_t i = 0; i < m->bindings.n; i++) {
    const tl_binding *b = &m->bindings.v[i];
    if (b->func == func && b->byte <= before && !strcmp(b->name, name) && (!best || b->byte >= best->byte)) best = b;
  }
  return best;
}
