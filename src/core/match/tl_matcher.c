/* tl_matcher.c - phase 1's query pass over one file: the rule query's matches, the gates that
 * reject most of them before they are set up, the predicates (dispatched through their table
 * rows, tl_pred.h), the templates of messages and fixes, and the candidates that result. */
#include "tl_match.h"

#include <string.h>

/* ---- per-thread state ---- */

/* Verdicts of pure predicates shared by the patterns checked on one match, by tl_pred.memo key:
 * an entry holds for the match whose number is its stamp (node: what a binding predicate bound). */
struct tl_memo_entry {
  uint32_t stamp;
  bool result;
  TSNode node;
};

/* Verdicts of #resolves-match? and #match? by text: the same names ("torch.zeros", "self.linear")
 * come back in every file, each checked against many regexes. A slot holds one
 * text and the verdicts of the regexes checked on it so far (tl_pred.rbit numbers them). */
#define TL_RCACHE_SLOTS 4096u
#define TL_RCACHE_NAME 47u
struct tl_rcache_slot {
  uint64_t known[TL_RCACHE_BITS / 64], value[TL_RCACHE_BITS / 64];
  bool used;
  uint8_t len;
  char name[TL_RCACHE_NAME + 1];
};

/* Verdicts of the gates of a group of patterns on one text (tl_pattern.gkeys): a slot holds the
 * text and the set of the group's positions whose gate passes on it. A call pattern's group has
 * many gates, and the same callee names come back in every file. */
#define TL_GCACHE_SLOTS 2048u
#define TL_GCACHE_TEXT TL_RCACHE_NAME
struct tl_gcache_slot {
  uint64_t bits;
  uint32_t key; /* 1 + tl_gate_key.id; 0: empty */
  uint8_t len;
  char text[TL_GCACHE_TEXT];
};

void tl_worker_init(tl_worker *w, const tl_ruleset *rs) {
  memset(w, 0, sizeof *w);
  w->parser = ts_parser_new();
  ts_parser_set_language(w->parser, tree_sitter_python());
  ts_parser_set_timeout_micros(w->parser, TL_PARSE_TIMEOUT_US);
  w->cursor = ts_query_cursor_new();
  ts_query_cursor_set_match_limit(w->cursor, TL_QUERY_MATCH_LIMIT);
  w->md = pcre2_match_data_create(16, NULL);
  w->mctx = pcre2_match_context_create(NULL);
  pcre2_set_match_limit(w->mctx, TL_REGEX_MATCH_LIMIT);
  pcre2_set_depth_limit(w->mctx, TL_REGEX_DEPTH_LIMIT);
  w->rcache = tl_calloc(TL_RCACHE_SLOTS, sizeof *w->rcache);
  w->gcache = tl_calloc(TL_GCACHE_SLOTS, sizeof *w->gcache);
  w->memo = tl_calloc(rs->memo_keys + 1, sizeof *w->memo);
}

void tl_worker_free(tl_worker *w) {
  ts_parser_delete(w->parser);
  ts_query_cursor_delete(w->cursor);
  pcre2_match_data_free(w->md);
  pcre2_match_context_free(w->mctx);
  free(w->rcache);
  free(w->gcache);
  free(w->memo);
}

/* ---- the file's resolved names ---- */

/* A name resolved through the imports (#resolves-to?, #resolves-match?), by node: several
 * patterns test the same callee. q is NULL when the node is not a dotted name. */
typedef struct {
  const void *id;
  uint32_t start, end;
  char *q;
} tl_resolved_slot;
#define TL_RESOLVED_SLOTS 64u

/* Per-file results of the query pass that do not depend on the match (a local of tl_match_file;
 * #file-match? verdicts are kept in the file, for the incremental path). */
typedef struct tl_file_res {
  tl_resolved_slot resolved[TL_RESOLVED_SLOTS];
} tl_file_res;

static void tl_file_res_free(tl_file_res *fr) {
  for (size_t i = 0; i < TL_RESOLVED_SLOTS; i++) free(fr->resolved[i].q);
}

/* The resolved dotted name of `n` (owned by the cache), or NULL when n is no dotted name. */
static const char *tl_match__resolved(tl_file_res *fr, const tl_file_model *m, TSNode n, const char *src) {
  uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
  tl_resolved_slot *sl = &fr->resolved[(((uintptr_t)n.id >> 4) ^ start) % TL_RESOLVED_SLOTS];
  if (sl->id == n.id && sl->start == start && sl->end == end) return sl->q;
  free(sl->q);
  char *d = tl_dotted(n, src);
  sl->q = d ? tl_model_resolve(m, d) : NULL;
  free(d);
  sl->id = n.id;
  sl->start = start;
  sl->end = end;
  return sl->q;
}

const char *tl_match_resolved(tl_match_env *e, TSNode n) { return tl_match__resolved(e->file_res, e->m, n, e->src); }

/* ---- regular expressions ---- */

bool tl_match_re(const tl_match_env *e, const pcre2_code *re, const char *s, size_t n) {
  return tl_regex_match(re, s, n, 0, e->md, e->mctx) >= 0;
}

static bool tl_match__re(tl_worker *w, const pcre2_code *re, const char *s, size_t n) {
  return tl_regex_match(re, s, n, 0, w->md, w->mctx) >= 0;
}

bool tl_match_code(tl_worker *w, const tl_file *f, const pcre2_code *re) {
  /* the text was checked to be UTF-8 in phase 1, and blanking keeps it so */
  return tl_regex_match(re, f->code, f->len, PCRE2_NO_UTF_CHECK, w->md, w->mctx) >= 0;
}

static uint64_t tl_text_hash(const char *q, size_t n) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)q[i]) * 1099511628211u;
  return h;
}

/* A regex predicate on a short text (a resolved name, a callee), through the worker's cache (a
 * slot is taken over by another text on collision; texts longer than TL_RCACHE_NAME, and regexes
 * past the cache's TL_RCACHE_BITS, are not cached). */
static bool tl_match__cached_h(tl_worker *w, const tl_pred *p, const char *q, size_t n, uint64_t h) {
  if (!tl_rx_may(&p->rpre, q, n)) return false;
  if (n > TL_RCACHE_NAME || !p->rbit) return tl_match__re(w, p->re, q, n);
  struct tl_rcache_slot *sl = &w->rcache[h % TL_RCACHE_SLOTS];
  if (!sl->used || sl->len != n || memcmp(sl->name, q, n)) {
    memset(sl->known, 0, sizeof sl->known);
    memset(sl->value, 0, sizeof sl->value);
    sl->used = true;
    sl->len = (uint8_t)n;
    memcpy(sl->name, q, n);
  }
  unsigned b = p->rbit - 1u;
  uint64_t bit = UINT64_C(1) << (b % 64);
  if (sl->known[b / 64] & bit) return (sl->value[b / 64] & bit) != 0;
  bool r = tl_match__re(w, p->re, q, n);
  sl->known[b / 64] |= bit;
  if (r) sl->value[b / 64] |= bit;
  return r;
}

bool tl_match_re_cached(tl_match_env *e, const tl_pred *p, const char *q, size_t n) {
  if (!tl_rx_may(&p->rpre, q, n)) return false;
  if (n > TL_RCACHE_NAME || !p->rbit) return tl_match__re(e->w, p->re, q, n);
  return tl_match__cached_h(e->w, p, q, n, tl_text_hash(q, n));
}

/* #eq?/#any-of? on a text of src, #resolves-to? on a resolved name: one of the strings (also
 * tl_gate_open's test, which must give the same verdict). */
static bool tl_match__text_in(const char *src, uint32_t s, uint32_t len, char *const *strs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(strs[i]) == len && !memcmp(src + s, strs[i], len)) return true;
  return false;
}

/* ---- captures ---- */

/* A capture of the match; a binding predicate's capture takes precedence (the latest binding). */
TSNode tl_match_cap(const tl_match_env *e, uint32_t id) {
  for (unsigned i = e->nbound; i-- > 0;)
    if (e->bound[i].id == id) return e->bound[i].node;
  for (uint16_t i = 0; i < e->match->capture_count; i++)
    if (e->match->captures[i].index == id) return e->match->captures[i].node;
  return (TSNode){0};
}

bool tl_match_bind(tl_match_env *e, uint32_t id, TSNode node) {
  if (ts_node_is_null(node) || tl_node_is(node, "module")) return false;
  e->bound[e->nbound].id = id;
  e->bound[e->nbound].node = node;
  e->nbound++;
  return true;
}

/* ---- predicates ---- */

/* A predicate on the match: binding predicates bind (false: the match is dropped), project
 * predicates are deferred (true for now), the others give their verdict. A predicate whose first
 * capture is absent from the match holds. */
static bool tl_match__pred(tl_match_env *e, const tl_pred *p) {
  const tl_pred_def *d = p->def;
  if (d->flags & TL_PF_BIND) {
    TSNode a = tl_match_cap(e, p->cap[0]);
    if (ts_node_is_null(a) || e->nbound == TL_MAX_BOUND) return false;
    return d->eval(e, p, a) == TL_PRED_TRUE;
  }
  TSNode a = p->cap[0] != UINT32_MAX ? tl_match_cap(e, p->cap[0]) : (TSNode){0};
  if (p->cap[0] != UINT32_MAX && ts_node_is_null(a)) return true; /* optional capture absent */
  if (d->flags & TL_PF_PROJECT) {
    tl_deferred df = {p, ts_node_is_null(a) ? 0 : ts_node_start_byte(a), ts_node_is_null(a) ? 0 : ts_node_end_byte(a)};
    tl_vec_push(&e->deferred, df);
    return true;
  }
  tl_verdict v = d->eval(e, p, a);
  if (v == TL_PRED_VACUOUS) return true;
  return p->negated ? v == TL_PRED_FALSE : v == TL_PRED_TRUE;
}

/* ---- templates ---- */

static TSNode tl_named(const tl_match_env *e, const TSQuery *q, const char *name, size_t nl) {
  if (nl == 5 && !memcmp(name, "focus", 5)) return e->focus;
  if (nl == 10 && !memcmp(name, "configured", 10)) return e->configured;
  uint32_t cnt = ts_query_capture_count(q);
  for (uint32_t k = 0; k < cnt; k++) {
    uint32_t l;
    const char *cn = ts_query_capture_name_for_id(q, k, &l);
    if (l == nl && !memcmp(cn, name, nl)) return tl_match_cap(e, k);
  }
  return (TSNode){0};
}

/* Expands {{name}} in a template. `brief` shortens captures to one line for messages.
 * Returns NULL when a named capture is missing. */
static char *tl_expand(const tl_match_env *e, const TSQuery *q, const char *tmpl, bool brief) {
  tl_buf b = {0};
  for (const char *p = tmpl; *p;) {
    if (p[0] == '{' && p[1] == '{') {
      const char *end = strstr(p + 2, "}}");
      if (end) {
        TSNode n = tl_named(e, q, p + 2, (size_t)(end - p - 2));
        if (ts_node_is_null(n)) {
          tl_buf_free(&b);
          return NULL;
        }
        uint32_t s = ts_node_start_byte(n), l = ts_node_end_byte(n) - s;
        if (brief) {
          uint32_t cut = 0;
          while (cut < l && e->src[s + cut] != '\n' && e->src[s + cut] != '\r') cut++;
          bool shortened = cut < l;
          if (cut > 60) {
            cut = 57;
            shortened = true;
            while (cut > 0 && ((unsigned char)e->src[s + cut] & 0xC0) == 0x80) cut--;
          }
          tl_buf_put(&b, e->src + s, cut);
          if (shortened) tl_buf_puts(&b, "...");
        } else {
          tl_buf_put(&b, e->src + s, l);
        }
        p = end + 2;
        continue;
      }
    }
    tl_buf_putc(&b, *p++);
  }
  return tl_buf_take(&b);
}

/* ---- gates ---- */

/* What the gates of one match's patterns read, found once per match: the node of a capture (or
 * of the child a #field! binds from it), its range, and its resolved name with the name's hash. */
#define TL_GATE_NODES 6

static void tl_match__pattern(tl_analysis *a, tl_file *f, tl_worker *w, const TSQueryMatch *mt, const tl_pattern *pat,
                              tl_file_res *file_res);

typedef struct {
  uint32_t cap;
  TSFieldId field; /* 0: the capture's own node */
  bool found;      /* the capture is in the match */
  bool resolved;   /* q and qhash are set */
  TSNode node;     /* null when the #field! binds nothing */
  uint32_t start, len;
  const char *q; /* resolved name (in qbuf) or NULL */
  size_t qlen;
  uint64_t qhash;
  char qbuf[64]; /* a copy: the file's cache may drop its string when another name takes the slot */
} tl_gate_node;

typedef struct {
  uint32_t n;
  tl_gate_node v[TL_GATE_NODES];
} tl_gate_cache;

/* The gate node for (cap, field) of this match: from the cache, or made in it, or in *spare when
 * the cache is full. */
static tl_gate_node *tl_gate_node_of(const TSQueryMatch *mt, tl_gate_cache *gc, uint32_t cap, TSFieldId field,
                                     tl_gate_node *spare) {
  for (uint32_t k = 0; k < gc->n; k++)
    if (gc->v[k].cap == cap && gc->v[k].field == field) return &gc->v[k];
  tl_gate_node *g = gc->n < TL_GATE_NODES ? &gc->v[gc->n++] : spare;
  g->cap = cap;
  g->field = field;
  g->found = g->resolved = false;
  g->node = (TSNode){0};
  g->start = g->len = 0;
  for (uint16_t i = 0; i < mt->capture_count && !g->found; i++)
    if (mt->captures[i].index == cap) {
      g->found = true;
      g->node = mt->captures[i].node;
    }
  if (g->found && field) g->node = ts_node_child_by_field_id(g->node, field);
  if (!ts_node_is_null(g->node)) {
    g->start = ts_node_start_byte(g->node);
    g->len = ts_node_end_byte(g->node) - g->start;
  }
  return g;
}

static const char *tl_gate_text(const tl_file *f, tl_file_res *fr, tl_gate_node *gn, bool name, size_t *n, uint64_t *h);

static bool tl_gate_test(tl_worker *w, const tl_pred *g, const char *s, size_t n, uint64_t h);

/* A pattern's gate (tl_pattern.gate) on a match: false only when that predicate would be false
 * where tl_match__pattern evaluates it, or its #field! (gate_field) would bind nothing, and true
 * otherwise (also for an absent capture, which makes a predicate hold). tl_match__pattern relies on
 * this: it does not evaluate the gate again. */
static bool tl_gate_open(const tl_file *f, tl_worker *w, const TSQueryMatch *mt, const tl_pattern *pt, tl_file_res *fr,
                         tl_gate_cache *gc) {
  const tl_pred *g = pt->gate, *b = pt->gate_field;
  if (!g) return true;
  tl_gate_node spare;
  tl_gate_node *gn = tl_gate_node_of(mt, gc, b ? b->cap[0] : g->cap[0], b ? b->field : 0, &spare);
  if (!gn->found) return true;                 /* an absent capture: the predicate holds (tl_match__pred) */
  if (ts_node_is_null(gn->node)) return false; /* the #field! binds nothing: the match is dropped */
  if (g->def->gate == TL_GATE_TYPE) {
    TSNode u = tl_unparen(gn->node); /* as #type? reads it */
    for (size_t i = 0; i < g->nstrs; i++)
      if (tl_node_is(u, g->strs[i])) return true;
    return false;
  }
  size_t n;
  uint64_t h;
  const char *s = tl_gate_text(f, fr, gn, (g->def->flags & TL_PF_NAME) != 0, &n, &h);
  return s && tl_gate_test(w, g, s, n, h);
}

/* The text a gate reads on gn (not null): the node's text, or its resolved name (NULL when it has
 * none), with its length and, for texts the caches keep, its hash. A long name is owned by fr's
 * cache and valid until the next resolution. */
static const char *tl_gate_text(const tl_file *f, tl_file_res *fr, tl_gate_node *gn, bool name, size_t *n,
                                uint64_t *h) {
  if (!name) {
    uint32_t start = gn->start, len = gn->len;
    if (ts_node_type(gn->node)[0] == 'p' && tl_node_is(gn->node, "parenthesized_expression")) {
      TSNode u = tl_unparen(gn->node); /* `x = (False)`: the text predicates read what is inside */
      start = ts_node_start_byte(u);
      len = ts_node_end_byte(u) - start;
    }
    *n = len;
    *h = len <= TL_RCACHE_NAME ? tl_text_hash(f->text + start, len) : 0;
    return f->text + start;
  }
  if (!gn->resolved) {
    const char *q = tl_match__resolved(fr, &f->model, gn->node, f->text);
    size_t qn = q ? strlen(q) : 0;
    if (qn >= sizeof gn->qbuf) { /* too long to keep: used now, resolved again by the next gate */
      *n = qn;
      *h = 0;
      return q;
    }
    if (q) memcpy(gn->qbuf, q, qn + 1);
    gn->q = q ? gn->qbuf : NULL;
    gn->qlen = qn;
    gn->qhash = q ? tl_text_hash(q, qn) : 0;
    gn->resolved = true;
  }
  *n = gn->qlen;
  *h = gn->qhash;
  return gn->q;
}

/* A gate that tests a text or name (not #type?) on s: n bytes, hash h if n <= TL_RCACHE_NAME. */
static bool tl_gate_test(tl_worker *w, const tl_pred *g, const char *s, size_t n, uint64_t h) {
  if (g->def->gate == TL_GATE_REGEX) return tl_match__cached_h(w, g, s, n, h);
  return tl_match__text_in(s, 0, (uint32_t)n, g->strs, g->nstrs); /* TL_GATE_STRINGS */
}

/* The positions of rep's group whose gate reading key k passes on s (n bytes, hash h if n <=
 * TL_RCACHE_NAME), through the worker's cache. */
static uint64_t tl_gate_bits(tl_worker *w, const tl_ruleset *rs, const tl_pattern *rep, const tl_gate_key *k,
                             const char *s, size_t n, uint64_t h) {
  struct tl_gcache_slot *sl = NULL;
  if (n <= TL_GCACHE_TEXT) {
    sl = &w->gcache[(h ^ (k->id * UINT64_C(0x9E3779B97F4A7C15))) % TL_GCACHE_SLOTS];
    if (sl->key == k->id + 1 && sl->len == n && !memcmp(sl->text, s, n)) return sl->bits;
  }
  uint64_t bits = 0;
  for (uint64_t m = k->mask; m; m &= m - 1) {
    unsigned pos = (unsigned)__builtin_ctzll(m);
    const tl_pattern *pt = pos == 0 ? rep : &rs->patterns.v[rep->members.v[pos - 1]];
    if (tl_gate_test(w, pt->gate, s, n, h)) bits |= UINT64_C(1) << pos;
  }
  if (sl) {
    sl->bits = bits;
    sl->key = k->id + 1;
    sl->len = (uint8_t)n;
    memcpy(sl->text, s, n);
  }
  return bits;
}

/* The positions of pat's group whose keyed gate (tl_pattern.gkey) is open on this match: one text
 * per key, then a cache look-up; the same verdicts as tl_gate_open. */
static uint64_t tl_gates_open(const tl_ruleset *rs, const tl_file *f, tl_worker *w, const TSQueryMatch *mt,
                              const tl_pattern *pat, tl_file_res *fr, tl_gate_cache *gc) {
  uint64_t open = ~UINT64_C(0);
  for (size_t i = 0; i < pat->gkeys.n; i++) {
    const tl_gate_key *k = &pat->gkeys.v[i];
    tl_gate_node spare;
    tl_gate_node *gn = tl_gate_node_of(mt, gc, k->cap, k->field, &spare);
    if (!gn->found) continue; /* an absent capture: the predicates hold (tl_match__pred) */
    uint64_t bits = 0;        /* a #field! that binds nothing, or no resolved name: all closed */
    if (!ts_node_is_null(gn->node)) {
      size_t n;
      uint64_t h;
      const char *s = tl_gate_text(f, fr, gn, k->name, &n, &h);
      if (s) bits = tl_gate_bits(w, rs, pat, k, s, n, h);
    }
    open &= ~k->mask | bits;
  }
  return open;
}

/* ---- candidates ---- */

void tl_candidate_free(tl_candidate *c) {
  free(c->message);
  for (size_t j = 0; j < c->edits.n; j++) free(c->edits.v[j].text);
  tl_vec_free(&c->edits);
  tl_vec_free(&c->deferred);
}

/* ---- matches ---- */

/* An argument added after `n` (`text` is ", name=value") keeps the call's layout: when n is (or
 * ends) an argument that has a line of its own, the new one goes on a line of its own with n's indentation
 * (`num_workers=4,` then `persistent_workers=True,` below it), not at the end of n's line. Takes
 * `text` (returns it or a replacement, freeing it). */
static char *tl_match__own_line(const char *src, TSNode n, char *text) {
  TSNode arg = n, up = ts_node_parent(n); /* the argument, also when n is a keyword's value */
  if (tl_node_is(up, "keyword_argument") && ts_node_end_byte(up) == ts_node_end_byte(n)) arg = up;
  TSNode list = ts_node_parent(arg);
  if (strncmp(text, ", ", 2) || !tl_node_is(list, "argument_list")) return text;
  uint32_t s = ts_node_start_byte(arg), b = s;
  while (b > 0 && (src[b - 1] == ' ' || src[b - 1] == '\t')) b--;
  if (b == 0 || src[b - 1] != '\n' || b <= ts_node_start_byte(list)) return text;
  uint32_t e = ts_node_end_byte(arg); /* and it ends its line (a comma, a comment or the `)` may follow) */
  while (src[e] == ' ' || src[e] == '\t') e++;
  if (src[e] == ',') e++;
  while (src[e] == ' ' || src[e] == '\t') e++;
  if (src[e] != '\n' && src[e] != '\r' && src[e] != '#' && src[e] != ')') return text;
  char *out = tl_printf(",\n%.*s%s", (int)(s - b), src + b, text + 2);
  free(text);
  return out;
}

/* A match of one pattern, and of the patterns of the same structure compiled once with it. */
static void tl_match__one(tl_analysis *a, tl_file *f, tl_worker *w, const TSQueryMatch *mt, tl_file_res *file_res) {
  const tl_pattern *pat = &a->rules->patterns.v[mt->pattern_index];
  if (++w->memo_match == 0) { /* wrapped: old stamps could be taken for this match's */
    memset(w->memo, 0, (a->rules->memo_keys + 1) * sizeof *w->memo);
    w->memo_match = 1;
  }
  tl_gate_cache gc;
  gc.n = 0;
  uint64_t open = pat->gkeys.n ? tl_gates_open(a->rules, f, w, mt, pat, file_res, &gc) : 0;
  if (pat->gkey ? (open & 1) : tl_gate_open(f, w, mt, pat, file_res, &gc))
    tl_match__pattern(a, f, w, mt, pat, file_res);
  for (size_t i = 0; i < pat->members.n; i++) {
    const tl_pattern *mp = &a->rules->patterns.v[pat->members.v[i]];
    if (mp->gkey ? (open >> (i + 1)) & 1 : tl_gate_open(f, w, mt, mp, file_res, &gc))
      tl_match__pattern(a, f, w, mt, mp, file_res);
  }
}

static void tl_match__pattern(tl_analysis *a, tl_file *f, tl_worker *w, const TSQueryMatch *mt, const tl_pattern *pat,
                              tl_file_res *file_res) {
  const tl_ruleset *rs = a->rules;
  const tl_rule *rule = rs->rules.v[pat->rule];
  TSNode anchor = {0};
  /* field by field: `bound` is read only below `nbound`, and clearing it for every pattern of
   * every match showed in profiles */
  tl_match_env e;
  e.file = f;
  e.m = &f->model;
  e.src = f->text;
  e.func = 0;
  e.md = w->md;
  e.mctx = w->mctx;
  e.rules = rs;
  e.match = mt;
  e.w = w;
  e.focus = e.configured = (TSNode){0};
  e.severity = -1;
  e.vinfo = false;
  e.vneed = false;
  e.vsev = -1;
  e.vdep = TL_VDEP_NOTHING;
  e.frameworks = &a->frameworks;
  e.fmatch = &f->fmatch;
  e.deferred.v = NULL;
  e.deferred.n = e.deferred.cap = 0;
  e.file_res = file_res;
  e.nbound = 0;
  if (rs->finding_cap != UINT32_MAX) anchor = tl_match_cap(&e, rs->finding_cap);
  if (ts_node_is_null(anchor) && mt->capture_count) anchor = mt->captures[0].node;
  if (ts_node_is_null(anchor)) return;
  /* The enclosing function is looked up only when a predicate needs it: most matches fail on a
   * first predicate that only reads text (an #eq?, a resolved name). */
  bool have_func = false;
  /* The gate held (tl_file_match calls this only then): its predicate holds here too, unless it
   * compares a resolved name and the configuration limits the frameworks, which the gate does not
   * check. */
  const tl_pred *held = pat->gate && (!a->frameworks.n || !(pat->gate->def->flags & TL_PF_NAME)) ? pat->gate : NULL;
  for (size_t i = 0; i < pat->preds.n; i++) {
    const tl_pred *p = &pat->preds.v[i];
    if (p == held) continue;
    if (!have_func && !(p->def->flags & TL_PF_TEXT)) {
      e.func = tl_model_func_at(&f->model, ts_node_start_byte(anchor));
      have_func = true;
    }
    /* a verdict (or a binding) another pattern of this match already has; not once captures
     * were bound, since the predicate may read them */
    bool r, shared = p->memo && !e.nbound;
    struct tl_memo_entry *me = shared ? &w->memo[p->memo] : NULL;
    if (me && me->stamp == w->memo_match) {
      r = me->result;
      if (r && tl_pred_is_binding(p)) {
        e.bound[0].id = p->cap[1];
        e.bound[0].node = me->node;
        e.nbound = 1;
      }
    } else {
      r = tl_match__pred(&e, p);
      if (me) {
        me->stamp = w->memo_match;
        me->result = r;
        me->node = r && tl_pred_is_binding(p) ? e.bound[e.nbound - 1].node : (TSNode){0};
      }
    }
    if (!r) {
      tl_vec_free(&e.deferred);
      return;
    }
  }
  if (!have_func) e.func = tl_model_func_at(&f->model, ts_node_start_byte(anchor));
  if (rs->finding_cap != UINT32_MAX && e.nbound) { /* @finding bound by #parent!/#field! */
    TSNode fin = tl_match_cap(&e, rs->finding_cap);
    if (!ts_node_is_null(fin)) anchor = fin;
  }
  TSNode at = ts_node_is_null(e.focus) ? anchor : e.focus;
  tl_candidate c = {0};
  c.rule = pat->rule;
  c.start = ts_node_start_byte(at);
  c.end = ts_node_end_byte(at);
  c.func = tl_model_func_at(&f->model, c.start);
  c.severity = e.severity;
  c.vinfo = e.vinfo;
  c.vneed = e.vneed;
  c.vsev = e.vsev;
  c.vdep = e.vdep;
  c.vkind = TL_VAL_UNKNOWN;
  c.veval.file = -1;
  c.deferred.v = e.deferred.v; /* moved */
  c.deferred.n = e.deferred.n;
  c.deferred.cap = e.deferred.cap;
  /* The statement holding the finding: suppressions on its first or last line apply. */
  TSNode stmt = at;
  tl_up up;
  tl_up_init(&up, at);
  for (int guard = 0; guard < 256; guard++) {
    TSNode parent = tl_up_next(&up);
    if (ts_node_is_null(parent) || tl_node_is(parent, "block") || tl_node_is(parent, "module")) break;
    stmt = parent;
  }
  c.stmt_start = ts_node_start_byte(stmt);
  c.stmt_end = ts_node_end_byte(stmt);
  {
    /* a compound statement: only its header (up to its block) */
    uint32_t nch = ts_node_named_child_count(stmt);
    for (uint32_t i = 0; i < nch; i++) {
      TSNode ch = ts_node_named_child(stmt, i);
      if (tl_node_is(ch, "block")) {
        c.stmt_end = ts_node_start_byte(ch);
        break;
      }
    }
    while (c.stmt_end > c.stmt_start && (f->text[c.stmt_end - 1] == ' ' || f->text[c.stmt_end - 1] == '\n' ||
                                         f->text[c.stmt_end - 1] == '\r' || f->text[c.stmt_end - 1] == '\t'))
      c.stmt_end--;
    if (c.stmt_end > c.stmt_start) c.stmt_end--; /* the last character, not past it */
  }
  /* a compound statement is reported by its header line (for ...:), not its whole body */
  if (tl_node_is(at, "for_statement") || tl_node_is(at, "while_statement") || tl_node_is(at, "if_statement") ||
      tl_node_is(at, "with_statement")) {
    TSNode body = ts_node_child_by_field_name(at, tl_node_is(at, "if_statement") ? "consequence" : "body",
                                              tl_node_is(at, "if_statement") ? 11 : 4);
    if (!ts_node_is_null(body)) {
      uint32_t e2 = ts_node_start_byte(body);
      while (e2 > c.start && (f->text[e2 - 1] == ' ' || f->text[e2 - 1] == '\t' || f->text[e2 - 1] == '\n' ||
                              f->text[e2 - 1] == '\r' || f->text[e2 - 1] == ':'))
        e2--;
      c.report_end = e2;
    }
  }
  c.message = tl_expand(&e, rs->query, rule->message, true);
  if (!c.message) c.message = tl_strdup(rule->message);
  bool unplaced = false;
  for (size_t i = 0; i < rule->fix.n && !unplaced; i++) {
    const tl_fixop *op = &rule->fix.v[i];
    TSNode n = tl_named(&e, rs->query, op->capture, strlen(op->capture));
    if (ts_node_is_null(n)) continue;
    /* `(_) @last .` also matches a comment or a line continuation (extras): an insertion goes
     * beside the code next to it, and where there is none (`torch.zeros(\` + `)`: no argument)
     * the fix cannot be placed and none of its edits are made */
    if (op->kind == TL_FIXOP_INSERT_AFTER || op->kind == TL_FIXOP_INSERT_BEFORE) {
      while (!ts_node_is_null(n) && ts_node_is_extra(n))
        n = op->kind == TL_FIXOP_INSERT_AFTER ? ts_node_prev_named_sibling(n) : ts_node_next_named_sibling(n);
      if (ts_node_is_null(n)) {
        unplaced = true;
        continue;
      }
    }
    char *text = op->tmpl ? tl_expand(&e, rs->query, op->tmpl, false) : tl_strdup("");
    if (!text) continue;
    tl_edit ed = {ts_node_start_byte(n), ts_node_end_byte(n), text};
    if (op->kind == TL_FIXOP_INSERT_BEFORE) ed.end = ed.start;
    if (op->kind == TL_FIXOP_INSERT_AFTER) {
      ed.start = ed.end;
      ed.text = tl_match__own_line(f->text, n, text);
    }
    tl_vec_push(&c.edits, ed);
  }
  if (unplaced) {
    for (size_t i = 0; i < c.edits.n; i++) free(c.edits.v[i].text);
    c.edits.n = 0;
  }
  tl_vec_push(&f->cands, c);
}

bool tl_match_file(tl_analysis *a, tl_file *f, tl_worker *w, TSNode root, const char *src, uint32_t start,
                   uint32_t end) {
  const tl_ruleset *rs = a->rules;
  tl_file_res file_res = {0}; /* about 2 KiB */
  char *saved = f->text;
  f->text = (char *)src; /* predicates read node text from the parsed copy */
  TSQueryMatch mt;
  /* the range, less the top-level statements nested too deep to model (tl_file_model.deep_stmts):
   * no pattern spans two top-level statements, so each gap is matched on its own */
  const tl_file_model *m = &f->model;
  uint32_t from = start;
  for (size_t k = 0; k <= m->deep_stmts.n; k++) {
    uint32_t to = k < m->deep_stmts.n ? m->deep_stmts.v[k].start : end;
    if (to > end) to = end;
    if (from < to || (!m->deep_stmts.n && from == to)) {
      ts_query_cursor_set_byte_range(w->cursor, from, to);
      ts_query_cursor_exec(w->cursor, rs->query, root);
      for (unsigned n = 1; f->stopped_at == UINT32_MAX && ts_query_cursor_next_match(w->cursor, &mt); n++) {
        tl_match__one(a, f, w, &mt, &file_res);
        if (!(n & 63) && ((f->deadline_ns && tl_now_ns() > f->deadline_ns) || tl_analysis_stopping(a)))
          /* the file's time budget, or a cancelled run (tl_file.c throws the file's results away) */
          f->stopped_at = mt.capture_count ? ts_node_start_byte(mt.captures[0].node) : from;
      }
    }
    if (f->stopped_at != UINT32_MAX) break;
    if (k < m->deep_stmts.n && m->deep_stmts.v[k].end > from) from = m->deep_stmts.v[k].end;
  }
  ts_query_cursor_set_byte_range(w->cursor, 0, UINT32_MAX);
  f->text = saved;
  tl_file_res_free(&file_res);
  return ts_query_cursor_did_exceed_match_limit(w->cursor);
}
