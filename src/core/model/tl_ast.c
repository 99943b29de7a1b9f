/* tl_ast.c - helpers over tree-sitter-python syntax trees (see tl_ast.h). */
#include "tl_ast.h"

#include <string.h>

#include "tl_util.h"

bool tl_node_is_name_(TSNode n, const char *type) { return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type); }

void tl_up_init(tl_up *u, TSNode n) {
  u->top = u->i = 0;
  u->last = n;
  u->slow = false;
  if (ts_node_is_null(n)) return;
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (e == s) {
    u->slow = true;
    return;
  }
  /* from the root down: the child holding n is the first that ends after n's start (siblings do not
   * overlap, and an empty one before it ends at or before n's start) */
  for (TSNode cur = ts_tree_root_node(n.tree); cur.id != n.id;) {
    u->v[u->top++ % TL_UP_MAX] = cur;
    TSNode ch = ts_node_first_child_for_byte(cur, s);
    if (ts_node_is_null(ch) || ts_node_start_byte(ch) > s || ts_node_end_byte(ch) < e || u->top > (1u << 30)) {
      u->top = 0;
      u->slow = true;
      return;
    }
    cur = ch;
  }
}

TSNode tl_up_next(tl_up *u) {
  TSNode p;
  if (u->slow || u->i >= TL_UP_MAX) p = ts_node_is_null(u->last) ? u->last : ts_node_parent(u->last);
  else if (u->i < u->top) p = u->v[(u->top - 1 - u->i) % TL_UP_MAX];
  else p = (TSNode){0};
  u->i++;
  u->last = p;
  return p;
}

/* A literal's symbols, found by the literal's address (a literal lives as long as the program) in
 * a per-thread open-addressed table that only grows: the program has a few dozen literals, so entries
 * are never evicted (a full probe sequence falls back to comparing names). ts_node_symbol gives
 * the public symbol, one per name and namedness, which is what ts_language_symbol_for_name
 * returns: comparing with both symbols of the name is comparing names. */
typedef struct {
  const char *lit;
  TSSymbol named, anon;
} tl_sym_slot;
#define TL_SYM_SLOTS 256u
static _Thread_local tl_sym_slot tl_sym_table[TL_SYM_SLOTS];

bool tl_node_is_lit_(TSNode n, const char *lit) {
  if (ts_node_is_null(n)) return false;
  const TSLanguage *lang = ts_tree_language(n.tree);
  if (lang != tree_sitter_python()) return !strcmp(ts_node_type(n), lit);
  uint32_t h = (uint32_t)(((uint64_t)(uintptr_t)lit * UINT64_C(0x9E3779B97F4A7C15)) >> 56);
  for (uint32_t i = 0; i < 16; i++) {
    tl_sym_slot *s = &tl_sym_table[(h + i) & (TL_SYM_SLOTS - 1)];
    if (!s->lit) {
      uint32_t len = (uint32_t)strlen(lit);
      /* 0 (the end symbol) when the name is unknown: no node in a tree has it */
      s->named = ts_language_symbol_for_name(lang, lit, len, true);
      s->anon = ts_language_symbol_for_name(lang, lit, len, false);
      s->lit = lit;
    }
    if (s->lit == lit) {
      TSSymbol sym = ts_node_symbol(n);
      return sym == s->named || sym == s->anon;
    }
  }
  return !strcmp(ts_node_type(n), lit);
}

char *tl_node_text(TSNode n, const char *src) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return tl_strndup(src + s, e - s);
}

/* The dotted text of n into out[*len..cap): false when n is no dotted name, nests deeper than 64
 * or does not fit. With `subs`, a subscript is a component too, written without its index
 * ("opts[].step" for `opts["g"].step`). */
static bool tl_dotted_into(TSNode n, const char *src, char *out, size_t *len, size_t cap, int depth, bool subs) {
  if (depth > 64) return false;
  if (tl_node_is(n, "identifier")) {
    uint32_t s = ts_node_start_byte(n), l = ts_node_end_byte(n) - s;
    if (*len + l >= cap) return false;
    memcpy(out + *len, src + s, l);
    *len += l;
    return true;
  }
  if (tl_node_is(n, "attribute")) {
    TSNode o = TL_CHILD(n, object), a = TL_CHILD(n, attribute);
    if (ts_node_is_null(o) || ts_node_is_null(a) || !tl_dotted_into(o, src, out, len, cap, depth + 1, subs))
      return false;
    uint32_t s = ts_node_start_byte(a), l = ts_node_end_byte(a) - s;
    if (*len + 1 + l >= cap) return false;
    out[(*len)++] = '.';
    memcpy(out + *len, src + s, l);
    *len += l;
    return true;
  }
  if (tl_node_is(n, "call")) {
    TSNode f = TL_CHILD(n, function);
    if (ts_node_is_null(f) || !tl_dotted_into(f, src, out, len, cap, depth + 1, subs) || *len + 2 >= cap) return false;
    out[(*len)++] = '(';
    out[(*len)++] = ')';
    return true;
  }
  if (subs && tl_node_is(n, "subscript")) {
    TSNode v = TL_CHILD(n, value);
    if (ts_node_is_null(v) || !tl_dotted_into(v, src, out, len, cap, depth + 1, subs) || *len + 2 >= cap) return false;
    out[(*len)++] = '[';
    out[(*len)++] = ']';
    return true;
  }
  return false;
}

static char *tl_ast__dotted(TSNode n, const char *src, bool subs) {
  if (ts_node_is_null(n)) return NULL;
  char tmp[256];
  size_t len = 0;
  if (tl_dotted_into(n, src, tmp, &len, sizeof tmp, 0, subs)) return tl_strndup(tmp, len);
  /* a dotted name is never longer than the node's text: when that fits, n is no dotted name */
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  size_t cap = (size_t)(e - s) + 1;
  if (cap <= sizeof tmp) return NULL;
  char *big = tl_malloc(cap);
  len = 0;
  if (!tl_dotted_into(n, src, big, &len, cap, 0, subs)) {
    free(big);
    return NULL;
  }
  big[len] = 0;
  return big;
}

char *tl_dotted(TSNode n, const char *src) { return tl_ast__dotted(n, src, false); }

char *tl_callee_text(TSNode n, const char *src) { return tl_ast__dotted(n, src, true); }

/* The last component of a dotted name ("self.model.fwd" -> "fwd"); "()" suffixes are ignored. */
const char *tl_dotted_last(const char *dotted, size_t *len) {
  size_t n = strlen(dotted);
  while (n >= 2 && dotted[n - 2] == '(' && dotted[n - 1] == ')') n -= 2;
  size_t s = n;
  while (s > 0 && dotted[s - 1] != '.') s--;
  *len = n - s;
  return dotted + s;
}

bool tl_dotted_last_is(const char *dotted, const char *word) {
  size_t n;
  const char *l = tl_dotted_last(dotted, &n);
  return strlen(word) == n && !memcmp(l, word, n);
}

bool tl_node_text_eq(TSNode n, const char *src, const char *s) {
  if (ts_node_is_null(n)) return false;
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return strlen(s) == b - a && !memcmp(src + a, s, b - a);
}

static bool tl_node__mentions(TSNode n, const char *src, const char *name, int depth) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "identifier")) return tl_node_text_eq(n, src, name);
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_node__mentions(ts_node_named_child(n, i), src, name, depth + 1)) return true;
  return false;
}

bool tl_node_mentions(TSNode n, const char *src, const char *name) { return tl_node__mentions(n, src, name, 0); }

bool tl_node_text_in(TSNode n, const char *src, const char *const *list) {
  if (ts_node_is_null(n)) return false;
  uint32_t a = ts_node_start_byte(n);
  return tl_str_in(src + a, ts_node_end_byte(n) - a, list);
}

TSNode tl_unparen(TSNode n) {
  while (tl_node_is(n, "parenthesized_expression")) {
    TSNode in = (TSNode){0};
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k && ts_node_is_null(in); i++) {
      TSNode ch = ts_node_named_child(n, i);
      if (!tl_node_is(ch, "comment")) in = ch;
    }
    if (ts_node_is_null(in)) break;
    n = in;
  }
  return n;
}

TSNode tl_next_code_sibling(TSNode n) {
  TSNode s = ts_node_next_named_sibling(n);
  while (!ts_node_is_null(s) && tl_node_is(s, "comment")) s = ts_node_next_named_sibling(s);
  return s;
}

TSNode tl_prev_code_sibling(TSNode n) {
  TSNode s = ts_node_prev_named_sibling(n);
  while (!ts_node_is_null(s) && tl_node_is(s, "comment")) s = ts_node_prev_named_sibling(s);
  return s;
}

TSNode tl_last_code_child(TSNode n) {
  for (uint32_t i = ts_node_named_child_count(n); i-- > 0;) {
    TSNode ch = ts_node_named_child(n, i);
    if (!tl_node_is(ch, "comment")) return ch;
  }
  return (TSNode){0};
}

bool tl_is_scope(TSNode n) {
  return tl_node_is(n, "function_definition") || tl_node_is(n, "lambda") || tl_node_is(n, "class_definition") ||
         tl_node_is(n, "module");
}

TSNode tl_kwarg_value(TSNode args, const char *src, const char *name) {
  if (tl_node_is(args, "call")) args = TL_CHILD(args, arguments);
  size_t nl = strlen(name);
  uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
  for (uint32_t i = 0; i < k; i++) {
    TSNode kw = ts_node_named_child(args, i);
    if (!tl_node_is(kw, "keyword_argument")) continue;
    TSNode key = TL_CHILD(kw, name);
    if (ts_node_end_byte(key) - ts_node_start_byte(key) == nl && !memcmp(src + ts_node_start_byte(key), name, nl))
      return TL_CHILD(kw, value);
  }
  return (TSNode){0};
}

static bool tl_ast__binds(TSNode t, const char *src, const char *name, size_t len, int depth) {
  if (ts_node_is_null(t) || depth > 8) return false;
  if (tl_node_is(t, "identifier"))
    return ts_node_end_byte(t) - ts_node_start_byte(t) == len && !memcmp(src + ts_node_start_byte(t), name, len);
  for (uint32_t i = 0; i < ts_node_named_child_count(t); i++)
    if (tl_ast__binds(ts_node_named_child(t, i), src, name, len, depth + 1)) return true;
  return false;
}

bool tl_target_binds(TSNode target, const char *src, const char *name, size_t len) {
  return tl_ast__binds(target, src, name, len, 0);
}
