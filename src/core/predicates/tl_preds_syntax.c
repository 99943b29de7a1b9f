/* tl_preds_syntax.c - predicates on the text and syntax around a match: text and regex tests,
 * node types, fields, children and siblings, keyword arguments, the enclosing block or `if`, and
 * the statement that runs next. */
#include "tl_match.h"

#include <string.h>

#include "tl_vocab.h"

/* ---- text ---- */

static bool tl_syntax__text_in(const char *src, uint32_t s, uint32_t len, char *const *strs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(strs[i]) == len && !memcmp(src + s, strs[i], len)) return true;
  return false;
}

/* #eq? @a "s" | @a @b */
static tl_verdict tl_syntax__eq(tl_match_env *e, const tl_pred *p, TSNode a) {
  a = tl_unparen(a); /* `x = (False)`, as black writes long right-hand sides */
  uint32_t s = ts_node_start_byte(a), len = ts_node_end_byte(a) - s;
  if (p->cap[1] != UINT32_MAX) {
    TSNode b = tl_unparen(tl_match_cap(e, p->cap[1]));
    if (ts_node_is_null(b)) return TL_PRED_VACUOUS; /* optional capture absent, as for the first one */
    uint32_t bs = ts_node_start_byte(b), bl = ts_node_end_byte(b) - bs;
    return tl_verdict_of(bl == len && !memcmp(e->src + s, e->src + bs, len));
  }
  return tl_verdict_of(tl_syntax__text_in(e->src, s, len, p->strs, 1));
}

/* #match? @a "regex" */
static tl_verdict tl_syntax__match(tl_match_env *e, const tl_pred *p, TSNode a) {
  a = tl_unparen(a);
  uint32_t s = ts_node_start_byte(a);
  return tl_verdict_of(tl_match_re_cached(e, p, e->src + s, ts_node_end_byte(a) - s));
}

/* #any-of? @a "s1" "s2" ... */
static tl_verdict tl_syntax__any_of(tl_match_env *e, const tl_pred *p, TSNode a) {
  a = tl_unparen(a);
  uint32_t s = ts_node_start_byte(a);
  return tl_verdict_of(tl_syntax__text_in(e->src, s, ts_node_end_byte(a) - s, p->strs, p->nstrs));
}

/* #receiver-match? @a "regex": the last identifier of the receiver of an attribute chain */
static tl_verdict tl_syntax__receiver_match(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode obj = tl_node_is(a, "attribute") ? TL_CHILD(a, object) : a;
  if (tl_node_is(obj, "attribute")) obj = TL_CHILD(obj, attribute);
  if (!tl_node_is(obj, "identifier")) return TL_PRED_FALSE;
  uint32_t os = ts_node_start_byte(obj);
  return tl_verdict_of(tl_match_re(e, p->re, e->src + os, ts_node_end_byte(obj) - os));
}

/* #file-match? "regex": the file's code (comments and docstrings blanked) matches; computed once
 * per file and regex (kept in the file for the incremental path) */
static tl_verdict tl_syntax__file_match(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)a;
  size_t i = 0;
  while (i < e->fmatch->n && e->fmatch->v[i].pred != p) i++;
  if (i == e->fmatch->n) {
    tl_filematch fm = {p, tl_match_code(e->w, e->file, p->re)};
    tl_vec_push(e->fmatch, fm);
  }
  return tl_verdict_of(e->fmatch->v[i].result);
}

/* #set-severity! "info": the severity of this match's finding (a directive: always holds) */
static tl_verdict tl_syntax__set_severity(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)a;
  e->severity = !strcmp(p->strs[0], "error")  ? TL_SEVERITY_ERROR
                : !strcmp(p->strs[0], "info") ? TL_SEVERITY_INFO
                                              : TL_SEVERITY_WARNING;
  return TL_PRED_VACUOUS;
}

static char *tl_syntax__severity_prepare(tl_pred *p) {
  if (!strcmp(p->strs[0], "error") || !strcmp(p->strs[0], "warning") || !strcmp(p->strs[0], "info")) return NULL;
  return tl_strdup("#set-severity! takes error, warning or info");
}

/* ---- nodes: types, counts, arguments ---- */

/* #type? @a "type" ...: the node has one of the grammar types */
static tl_verdict tl_syntax__type(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)e;
  a = tl_unparen(a);
  for (size_t i = 0; i < p->nstrs; i++)
    if (tl_node_is(a, p->strs[i])) return TL_PRED_TRUE;
  return TL_PRED_FALSE;
}

static char *tl_syntax__number_prepare(tl_pred *p) {
  char *end;
  strtol(p->strs[0], &end, 10);
  return *end || !*p->strs[0] ? tl_printf("#%s needs a number", p->def->name) : NULL;
}

/* #child-count? @a "N": N named children (comments count) */
static tl_verdict tl_syntax__child_count(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)e;
  return tl_verdict_of(ts_node_named_child_count(a) == (uint32_t)strtoul(p->strs[0], NULL, 10));
}

/* #arg-count? @args "N": N positional arguments */
static tl_verdict tl_syntax__arg_count(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)e;
  long want = strtol(p->strs[0], NULL, 10), n = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(a); i++)
    if (!tl_node_is(ts_node_named_child(a, i), "keyword_argument")) n++;
  return tl_verdict_of(n == want);
}

/* #has-kwarg? @args "name" */
static tl_verdict tl_syntax__has_kwarg(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_verdict_of(!ts_node_is_null(tl_kwarg_value(a, e->src, p->strs[0])));
}

/* #kwarg-match? @args "name" "regex": keyword `name` exists and its value matches */
static tl_verdict tl_syntax__kwarg_match(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode v = tl_kwarg_value(a, e->src, p->strs[0]);
  if (ts_node_is_null(v)) return TL_PRED_FALSE;
  uint32_t vs = ts_node_start_byte(v);
  return tl_verdict_of(tl_match_re(e, p->re, e->src + vs, ts_node_end_byte(v) - vs));
}

/* ---- binding predicates: they bind their second capture from their first. The module node is
 * never bound, nor the statement after a top-level one: predicates stay inside the top-level
 * statement of their match, which the editor's partial re-analysis relies on. ---- */

/* The node around n, parentheses aside: `x = (f(y))` as black wraps it. */
static TSNode tl_syntax__up(TSNode n) {
  TSNode up = ts_node_parent(n);
  while (tl_node_is(up, "parenthesized_expression")) up = ts_node_parent(up);
  return up;
}

/* #parent! @a @b "type" ...: @a's parent, of one of the types. Parentheses group without nesting
 * a value (`x = (f(y))`, as black wraps a long right-hand side): they are climbed over unless
 * asked for. */
static tl_verdict tl_syntax__parent(tl_match_env *e, const tl_pred *p, TSNode a) {
  bool parens = false;
  for (size_t i = 0; i < p->nstrs; i++) parens = parens || !strcmp(p->strs[i], "parenthesized_expression");
  TSNode b = parens ? ts_node_parent(a) : tl_syntax__up(a);
  bool typed = false;
  for (size_t i = 0; i < p->nstrs && !ts_node_is_null(b) && !typed; i++) typed = tl_node_is(b, p->strs[i]);
  return tl_verdict_of(typed && tl_match_bind(e, p->cap[1], b));
}

/* #field! @a "field" @b: @a's child in that field */
static tl_verdict tl_syntax__field(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_verdict_of(tl_match_bind(e, p->cap[1], ts_node_child_by_field_id(a, p->field)));
}

static char *tl_syntax__field_prepare(tl_pred *p) {
  p->field = ts_language_field_id_for_name(tree_sitter_python(), p->strs[0], (uint32_t)strlen(p->strs[0]));
  return p->field ? NULL : tl_printf("#field!: the grammar has no field \"%s\"", p->strs[0]);
}

/* #child! @a @b ["type" ...]: @a's first named child, or its first child of one of the types (a
 * token too: "." binds the dot of an attribute, which a fix may delete) */
static tl_verdict tl_syntax__child(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode b = {0};
  if (!p->nstrs && ts_node_named_child_count(a)) b = ts_node_named_child(a, 0);
  uint32_t n = p->nstrs ? ts_node_child_count(a) : 0;
  for (uint32_t i = 0; i < n && ts_node_is_null(b); i++) {
    TSNode ch = ts_node_child(a, i);
    for (size_t k = 0; k < p->nstrs && ts_node_is_null(b); k++)
      if (tl_node_is(ch, p->strs[k])) b = ch;
  }
  return tl_verdict_of(tl_match_bind(e, p->cap[1], b));
}

/* #last-child! @a @b: @a's last named child, comments aside */
static tl_verdict tl_syntax__last_child(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_verdict_of(tl_match_bind(e, p->cap[1], tl_last_code_child(a)));
}

/* #unparen! @a @b: @a without the parentheses around it (`x = (total + loss)`, as black wraps a
 * long right-hand side); @a itself when it has none */
static tl_verdict tl_syntax__unparen(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_verdict_of(tl_match_bind(e, p->cap[1], tl_unparen(a)));
}

/* #next-sibling! @a @b: @a's next named sibling, comments aside, not across top-level statements */
static tl_verdict tl_syntax__next_sibling(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode up = ts_node_parent(a), b = {0};
  if (!ts_node_is_null(up) && !tl_node_is(up, "module")) b = tl_next_code_sibling(a);
  return tl_verdict_of(tl_match_bind(e, p->cap[1], b));
}

/* #loop-value! @a @loop: @a is the value a statement directly in the body of a `for` loop assigns
 * (`x = x.to(d)`), alone or as one element (`x, y = x.to(d), y.to(d)`), parentheses aside; binds
 * @loop to that loop */
static tl_verdict tl_syntax__loop_value(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode up = tl_syntax__up(a);
  if (tl_node_is(up, "expression_list") || tl_node_is(up, "tuple")) up = tl_syntax__up(up);
  TSNode right = tl_node_is(up, "assignment") ? TL_CHILD(up, right) : (TSNode){0};
  if (ts_node_is_null(right) || ts_node_start_byte(a) < ts_node_start_byte(right) ||
      ts_node_end_byte(a) > ts_node_end_byte(right))
    return TL_PRED_FALSE;
  TSNode stmt = ts_node_parent(up), blk = ts_node_parent(stmt), loop = ts_node_parent(blk);
  return tl_verdict_of(tl_node_is(stmt, "expression_statement") && tl_node_is(blk, "block") &&
                       tl_node_is(loop, "for_statement") && tl_match_bind(e, p->cap[1], loop));
}

/* #comprehension-value! @a @comp: @a is the value of a dict comprehension's pairs (`{k: v.to(d) for
 * ...}`), or a part of a conditional expression that is (`v.to(d) if torch.is_tensor(v) else v`),
 * parentheses aside; binds @comp to that comprehension */
static tl_verdict tl_syntax__comprehension_value(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode up = tl_syntax__up(a);
  if (tl_node_is(up, "conditional_expression")) {
    a = up;
    up = tl_syntax__up(up);
  }
  TSNode value = tl_node_is(up, "pair") ? TL_CHILD(up, value) : (TSNode){0};
  if (ts_node_is_null(value) || ts_node_start_byte(a) < ts_node_start_byte(value)) return TL_PRED_FALSE;
  TSNode comp = ts_node_parent(up);
  return tl_verdict_of(tl_node_is(comp, "dictionary_comprehension") && tl_match_bind(e, p->cap[1], comp));
}

/* #statement-of! @a @stmt: binds @stmt to the statement that @a heads: the expression statement
 * that is @a, or that assigns it (`prof = profile(...)`, `a, b = f(x)`), or a method call on it
 * (`flops = FlopCountAnalysis(m, x).total()`), or the `with` statement whose item it is (`with
 * profile() as prof:`); parentheses aside */
static tl_verdict tl_syntax__statement_of(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode up = tl_syntax__up(a);
  if (tl_node_is(up, "attribute") && ts_node_start_byte(a) >= ts_node_start_byte(TL_CHILD(up, object)) &&
      ts_node_end_byte(a) <= ts_node_end_byte(TL_CHILD(up, object))) {
    TSNode call = tl_syntax__up(up);
    if (!tl_node_is(call, "call") || ts_node_start_byte(TL_CHILD(call, function)) != ts_node_start_byte(up))
      return TL_PRED_FALSE;
    a = call;
    up = tl_syntax__up(call);
  }
  if (tl_node_is(up, "as_pattern")) up = tl_syntax__up(up);
  if (tl_node_is(up, "with_item")) {
    TSNode clause = ts_node_parent(up), stmt = ts_node_parent(clause);
    return tl_verdict_of(tl_node_is(clause, "with_clause") && tl_node_is(stmt, "with_statement") &&
                         tl_match_bind(e, p->cap[1], stmt));
  }
  if (tl_node_is(up, "assignment")) {
    TSNode right = TL_CHILD(up, right);
    if (ts_node_is_null(right) || ts_node_start_byte(a) < ts_node_start_byte(right)) return TL_PRED_FALSE;
    up = ts_node_parent(up);
  }
  return tl_verdict_of(tl_node_is(up, "expression_statement") && tl_match_bind(e, p->cap[1], up));
}

/* #binds? @target @x: the target of an assignment or a loop (`x`, `i, (x, y)`) binds the name
 * that @x is, or whose element it is (`batch` of `batch[0]`) */
static tl_verdict tl_syntax__binds(tl_match_env *e, const tl_pred *p, TSNode a) {
  TSNode x = tl_unparen(tl_match_cap(e, p->cap[1]));
  while (tl_node_is(x, "subscript")) x = tl_unparen(TL_CHILD(x, value));
  if (!tl_node_is(x, "identifier")) return TL_PRED_FALSE;
  uint32_t s = ts_node_start_byte(x);
  return tl_verdict_of(tl_target_binds(a, e->src, e->src + s, ts_node_end_byte(x) - s));
}

/* ---- the code around ---- */

static bool tl_syntax__inside_types(TSNode n, char *const *types, size_t ntypes) {
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p) && !tl_is_scope(p); p = tl_up_next(&up))
    for (size_t i = 0; i < ntypes; i++)
      if (!strcmp(ts_node_type(p), types[i])) return true;
  return false;
}

/* #inside? @a "type" ...: an enclosing node (in the same function) has one of the types */
static tl_verdict tl_syntax__inside(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)e;
  return tl_verdict_of(tl_syntax__inside_types(a, p->strs, p->nstrs));
}

static bool tl_syntax__in_block_fields(TSNode n, char *const *fields, size_t nfields) {
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

/* #in-block? @s "field" ...: @s is a statement of a block its parent holds in one of the fields */
static tl_verdict tl_syntax__in_block(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)e;
  return tl_verdict_of(tl_syntax__in_block_fields(a, p->strs, p->nstrs));
}

/* The `if`/`elif` whose consequence directly holds statement n (null node if none); *block: that block. */
static TSNode tl_syntax__branch_owner(TSNode n, TSNode *block) {
  *block = ts_node_parent(n);
  if (ts_node_is_null(*block) || !tl_node_is(*block, "block")) return (TSNode){0};
  TSNode owner = ts_node_parent(*block);
  if (ts_node_is_null(owner) || !(tl_node_is(owner, "if_statement") || tl_node_is(owner, "elif_clause")))
    return (TSNode){0};
  TSNode cons = TL_CHILD(owner, consequence);
  return !ts_node_is_null(cons) && ts_node_eq(cons, *block) ? owner : (TSNode){0};
}

/* #branch-condition-match? @s "regex" / #branch-block-match? @s "regex": the condition (or the
 * text of the branch) of the `if`/`elif` whose branch holds @s matches; vacuous when @s is in no
 * such branch */
static tl_verdict tl_syntax__branch(tl_match_env *e, const tl_pred *p, TSNode a, bool cond) {
  TSNode block, owner = tl_syntax__branch_owner(a, &block);
  if (ts_node_is_null(owner)) return TL_PRED_VACUOUS;
  TSNode t = cond ? TL_CHILD(owner, condition) : block;
  if (ts_node_is_null(t)) return TL_PRED_VACUOUS;
  uint32_t ts = ts_node_start_byte(t);
  return tl_verdict_of(tl_match_re(e, p->re, e->src + ts, ts_node_end_byte(t) - ts));
}

static tl_verdict tl_syntax__branch_cond(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_syntax__branch(e, p, a, true);
}

static tl_verdict tl_syntax__branch_block(tl_match_env *e, const tl_pred *p, TSNode a) {
  return tl_syntax__branch(e, p, a, false);
}

static bool tl_syntax__is_assignment_target(TSNode n) {
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

/* #assignment-target? @a: @a is written by an `=` assignment (not read) */
static tl_verdict tl_syntax__assignment_target(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)e;
  (void)p;
  return tl_verdict_of(tl_syntax__is_assignment_target(a));
}

/* #host-read-receiver? @a: the value of @a is read onto the host at once, @a being the receiver of
 * `.item()`, `.tolist()`, `.numpy()` or `.cpu()` (parentheses climbed over): `m.nonzero().item()` */
static tl_verdict tl_syntax__host_read_receiver(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  TSNode at = tl_syntax__up(a);
  bool read = tl_node_is(at, "attribute") && ts_node_eq(tl_unparen(TL_CHILD(at, object)), a) &&
              tl_node_text_in(TL_CHILD(at, attribute), e->src, tl_vocab_host_read_methods) &&
              tl_node_is(ts_node_parent(at), "call");
  return tl_verdict_of(read);
}

static TSNode tl_syntax__first_statement(TSNode block) {
  for (uint32_t i = 0; i < ts_node_named_child_count(block); i++) {
    TSNode s = ts_node_named_child(block, i);
    if (!tl_node_is(s, "comment")) return s;
  }
  return (TSNode){0};
}

/* The statement that runs after the one holding n: its next sibling; at the end of a block of a
 * `with`/`if`/`try`, the statement after that compound statement; at the end of a loop body,
 * the first statement of the body (the next iteration). #next-statement-match? @a "regex": that
 * statement's first line matches. */
static tl_verdict tl_syntax__next_statement(tl_match_env *c, const tl_pred *pr, TSNode n) {
  const pcre2_code *re = pr->re;
  TSNode s = n;
  TSNode p = ts_node_parent(s);
  while (!ts_node_is_null(p) && !tl_node_is(p, "block") && !tl_node_is(p, "module")) {
    if (tl_is_scope(p)) return TL_PRED_FALSE;
    s = p;
    p = ts_node_parent(s);
  }
  if (ts_node_is_null(p)) return TL_PRED_FALSE;
  for (int guard = 0; guard < 16; guard++) {
    TSNode next = tl_next_code_sibling(s);
    if (ts_node_is_null(next)) {
      TSNode block = ts_node_parent(s);
      TSNode owner = tl_node_is(block, "block") ? ts_node_parent(block) : (TSNode){0};
      if (tl_node_is(owner, "for_statement") || tl_node_is(owner, "while_statement")) {
        next = tl_syntax__first_statement(block);
        if (ts_node_eq(next, s)) return TL_PRED_FALSE;
      } else if (tl_node_is(owner, "with_statement") || tl_node_is(owner, "if_statement") ||
                 tl_node_is(owner, "try_statement")) {
        s = owner;
        continue;
      } else if (tl_node_is(owner, "else_clause") || tl_node_is(owner, "elif_clause") ||
                 tl_node_is(owner, "except_clause") || tl_node_is(owner, "finally_clause")) {
        s = ts_node_parent(owner);
        if (ts_node_is_null(s)) return TL_PRED_FALSE;
        continue;
      } else {
        return TL_PRED_FALSE;
      }
    }
    if (ts_node_is_null(next)) return TL_PRED_FALSE;
    /* the statement's first line: a compound statement's header, not its whole body */
    uint32_t a = ts_node_start_byte(next), b = ts_node_end_byte(next), e = a;
    while (e < b && c->src[e] != '\n') e++;
    return tl_verdict_of(tl_match_re(c, re, c->src + a, e - a));
  }
  return TL_PRED_FALSE;
}

/* #early-exit? @if: the `if`'s block only breaks or returns (a data-dependent loop exit) */
static tl_verdict tl_syntax__early_exit(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)e;
  (void)p;
  TSNode body = TL_CHILD(a, consequence);
  return tl_verdict_of(!ts_node_is_null(body) && ts_node_named_child_count(body) == 1 &&
                       (tl_node_is(ts_node_named_child(body, 0), "break_statement") ||
                        tl_node_is(ts_node_named_child(body, 0), "return_statement")));
}

/* Does the arithmetic n (operators and parentheses down to names) use the name t? */
static bool tl_syntax__uses_name(TSNode n, TSNode t, const char *src, int depth) {
  n = tl_unparen(n);
  if (ts_node_is_null(n) || depth > 16) return false;
  if (tl_node_is(n, "identifier"))
    return ts_node_end_byte(n) - ts_node_start_byte(n) == ts_node_end_byte(t) - ts_node_start_byte(t) &&
           !memcmp(src + ts_node_start_byte(n), src + ts_node_start_byte(t),
                   ts_node_end_byte(t) - ts_node_start_byte(t));
  if (!tl_node_is(n, "binary_operator")) return false;
  return tl_syntax__uses_name(TL_CHILD(n, left), t, src, depth + 1) ||
         tl_syntax__uses_name(TL_CHILD(n, right), t, src, depth + 1);
}

/* An augmented assignment in `n` (not in a nested function) whose target is a name the loop binds,
 * or an assignment of arithmetic on that name to it (`v = decay * v + (1 - decay) * w`). */
static bool tl_syntax__updates(TSNode n, TSNode left, const char *src, int depth) {
  if (depth > 64) return false;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode k = ts_node_named_child(n, i);
    if (tl_node_is(k, "function_definition") || tl_node_is(k, "class_definition")) continue;
    bool aug = tl_node_is(k, "augmented_assignment");
    if (aug || tl_node_is(k, "assignment")) {
      TSNode t = TL_CHILD(k, left), r = tl_unparen(TL_CHILD(k, right));
      if (tl_node_is(t, "identifier") &&
          (aug || (tl_node_is(r, "binary_operator") && tl_syntax__uses_name(r, t, src, 0))) &&
          tl_target_binds(left, src, src + ts_node_start_byte(t), ts_node_end_byte(t) - ts_node_start_byte(t)))
        return true;
    }
    if (tl_syntax__updates(k, left, src, depth + 1)) return true;
  }
  return false;
}

/* #updates-target? @for: the loop's body updates an element in place (`for k, v in sd.items(): v *= d`) */
static tl_verdict tl_syntax__updates_target(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  if (!tl_node_is(a, "for_statement")) return TL_PRED_VACUOUS;
  TSNode body = TL_CHILD(a, body);
  return tl_verdict_of(!ts_node_is_null(body) && tl_syntax__updates(body, TL_CHILD(a, left), e->src, 0));
}

/* name, captures, strings, regex, gate, flags, function, project function, prepare */
const tl_pred_def tl_preds_syntax[] = {
    {"eq?", 1, 1, -1, TL_GATE_STRINGS, TL_PF_TEXT | TL_PF_OR_CAPTURE, tl_syntax__eq, NULL, NULL},
    {"match?", 1, 1, 0, TL_GATE_REGEX, TL_PF_TEXT, tl_syntax__match, NULL, NULL},
    {"any-of?", 1, -1, -1, TL_GATE_STRINGS, TL_PF_TEXT, tl_syntax__any_of, NULL, NULL},
    {"receiver-match?", 1, 1, 0, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__receiver_match, NULL, NULL},
    {"file-match?", 0, 1, 0, TL_GATE_NONE, TL_PF_TEXT | TL_PF_MULTILINE, tl_syntax__file_match, NULL, NULL},
    {"set-severity!", 0, 1, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_IMPURE, tl_syntax__set_severity, NULL,
     tl_syntax__severity_prepare},
    {"type?", 1, -1, -1, TL_GATE_TYPE, TL_PF_TEXT, tl_syntax__type, NULL, NULL},
    {"child-count?", 1, 1, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__child_count, NULL, tl_syntax__number_prepare},
    {"arg-count?", 1, 1, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__arg_count, NULL, tl_syntax__number_prepare},
    {"has-kwarg?", 1, 1, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__has_kwarg, NULL, NULL},
    {"kwarg-match?", 1, 2, 1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__kwarg_match, NULL, NULL},
    {"parent!", 2, -1, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__parent, NULL, NULL},
    {"field!", 2, 1, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND | TL_PF_BIND_FIELD, tl_syntax__field, NULL,
     tl_syntax__field_prepare},
    {"child!", 2, -2, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__child, NULL, NULL},
    {"last-child!", 2, 0, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__last_child, NULL, NULL},
    {"unparen!", 2, 0, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__unparen, NULL, NULL},
    {"next-sibling!", 2, 0, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__next_sibling, NULL, NULL},
    {"loop-value!", 2, 0, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__loop_value, NULL, NULL},
    {"comprehension-value!", 2, 0, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__comprehension_value, NULL,
     NULL},
    {"statement-of!", 2, 0, -1, TL_GATE_NONE, TL_PF_TEXT | TL_PF_BIND, tl_syntax__statement_of, NULL, NULL},
    {"binds?", 2, 0, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__binds, NULL, NULL},
    {"inside?", 1, -1, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__inside, NULL, NULL},
    {"in-block?", 1, -1, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__in_block, NULL, NULL},
    {"branch-condition-match?", 1, 1, 0, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__branch_cond, NULL, NULL},
    {"branch-block-match?", 1, 1, 0, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__branch_block, NULL, NULL},
    {"assignment-target?", 1, 0, -1, TL_GATE_NONE, 0, tl_syntax__assignment_target, NULL, NULL},
    {"host-read-receiver?", 1, 0, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__host_read_receiver, NULL, NULL},
    {"next-statement-match?", 1, 1, 0, TL_GATE_NONE, 0, tl_syntax__next_statement, NULL, NULL},
    {"early-exit?", 1, 0, -1, TL_GATE_NONE, 0, tl_syntax__early_exit, NULL, NULL},
    {"updates-target?", 1, 0, -1, TL_GATE_NONE, TL_PF_TEXT, tl_syntax__updates_target, NULL, NULL},
    {NULL, 0, 0, -1, TL_GATE_NONE, 0, NULL, NULL, NULL},
};
