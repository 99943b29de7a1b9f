/* tl_engine.c - running an analysis: reading and parsing files in parallel, one query pass per
 * file with the rules' predicates, then the project pass and the final list of findings. */
#include "tl_engine.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tl_pool.h"
#include "tl_source.h"
#include "tl_vocab.h"

#define TL_PARSE_TIMEOUT_US (20u * 1000u * 1000u)
#define TL_QUERY_MATCH_LIMIT 4096u

tl_analysis *tl_analysis_new(const tl_ruleset *rules, const tl_options *opts) {
  tl_analysis *a = tl_calloc(1, sizeof *a);
  a->rules = rules;
  if (opts) a->opts = *opts;
  return a;
}

/* Drops what phase 1 computed for a file (its text and path stay). */
static void tl_file_reset(tl_file *f) {
  tl_lines_free(&f->lines);
  tl_model_free(&f->model);
  memset(&f->model, 0, sizeof f->model);
  for (size_t i = 0; i < f->cands.n; i++) {
    free(f->cands.v[i].message);
    for (size_t j = 0; j < f->cands.v[i].edits.n; j++) free(f->cands.v[i].edits.v[j].text);
    tl_vec_free(&f->cands.v[i].edits);
    tl_vec_free(&f->cands.v[i].deferred);
  }
  tl_vec_free(&f->cands);
  tl_diags_free(&f->diags);
  tl_vec_free(&f->vals);
  tl_vec_free(&f->fmatch);
  tl_vec_free(&f->pfmatch);
  free(f->code);
  f->code = NULL;
  free(f->call_map);
  f->call_map = NULL;
  f->ok = false;
}

static void tl_file_free(tl_file *f) {
  free(f->path);
  free(f->text);
  free(f->mem);
  if (f->tree) ts_tree_delete(f->tree);
  tl_file_reset(f);
  free(f->targets);
}

static void tl_findings_clear(tl_analysis *a) {
  for (size_t i = 0; i < a->findings.n; i++) {
    tl_finding *f = &a->findings.v[i];
    free(f->message);
    for (size_t j = 0; j < f->nhot; j++) free(f->hot[j].what);
    free(f->hot);
    for (size_t j = 0; j < f->fix.n; j++) free(f->fix.v[j].text);
    tl_vec_free(&f->fix);
  }
  tl_vec_free(&a->findings);
}

void tl_analysis_delete(tl_analysis *a) {
  if (!a) return;
  tl_project_free(a);
  tl_findings_clear(a);
  for (size_t i = 0; i < a->files.n; i++) tl_file_free(&a->files.v[i]);
  tl_vec_free(&a->files);
  tl_diags_free(&a->diags);
  for (size_t i = 0; i < a->hot_functions.n; i++) free(a->hot_functions.v[i]);
  tl_vec_free(&a->hot_functions);
  for (size_t i = 0; i < a->step_iterables.n; i++) free(a->step_iterables.v[i]);
  tl_vec_free(&a->step_iterables);
  for (size_t i = 0; i < a->frameworks.n; i++) free(a->frameworks.v[i]);
  tl_vec_free(&a->frameworks);
  free(a);
}

void tl_analysis_add_path(tl_analysis *a, const char *path) {
  tl_file f = {0};
  f.path = tl_strdup(path);
  f.dirty = true;
  tl_vec_push(&a->files, f);
}

void tl_analysis_add_text(tl_analysis *a, const char *path, const char *text, size_t len) {
  tl_file f = {0};
  f.path = tl_strdup(path);
  f.mem = tl_strndup(text, len);
  f.len = len;
  f.dirty = f.in_memory = true;
  tl_vec_push(&a->files, f);
}

void tl_analysis_set_hot_names(tl_analysis *a, const char *const *hot_functions, size_t nhot,
                               const char *const *step_iterables, size_t nsteps) {
  for (size_t i = 0; i < nhot; i++) tl_vec_push(&a->hot_functions, tl_strdup(hot_functions[i]));
  for (size_t i = 0; i < nsteps; i++) tl_vec_push(&a->step_iterables, tl_strdup(step_iterables[i]));
}

void tl_analysis_set_frameworks(tl_analysis *a, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++) tl_vec_push(&a->frameworks, tl_strdup(names[i]));
}

static tl_file *tl_find_file(tl_analysis *a, const char *path) {
  for (size_t i = 0; i < a->files.n; i++)
    if (!strcmp(a->files.v[i].path, path)) return &a->files.v[i];
  return NULL;
}

void tl_analysis_set_text(tl_analysis *a, const char *path, const char *text, size_t len) {
  tl_file *f = tl_find_file(a, path);
  if (!f) { tl_analysis_add_text(a, path, text, len); return; }
  free(f->mem);
  f->mem = tl_strndup(text, len);
  f->len = len;
  f->dirty = f->in_memory = true;
  f->edited = f->reusable = false; /* no edit description: analyse afresh */
  if (f->tree) { ts_tree_delete(f->tree); f->tree = NULL; }
}

/* Row and byte column of an offset. */
static TSPoint tl_point_at(const char *text, size_t len, uint32_t off) {
  TSPoint p = {0, 0};
  uint32_t line_start = 0;
  for (uint32_t i = 0; i < off && i < len; i++) /* rows end where the parsed copy has LF (a lone CR too) */
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))) { p.row++; line_start = i + 1; }
  p.column = off - line_start;
  return p;
}

void tl_analysis_edit(tl_analysis *a, const char *path, uint32_t start, uint32_t old_end, uint32_t new_end,
                      const char *text, size_t len) {
  tl_file *f = tl_find_file(a, path);
  if (!f) { tl_analysis_add_text(a, path, text, len); return; }
  const char *old = f->mem ? f->mem : f->text;
  size_t oldlen = f->len;
  /* the incremental path trusts the edit: it must describe the change (the text outside it unchanged) */
  if (f->tree && old && start <= old_end && old_end <= oldlen && start <= new_end && new_end <= len &&
      (int64_t)len - (int64_t)oldlen == (int64_t)new_end - (int64_t)old_end && !memcmp(old, text, start) &&
      !memcmp(old + old_end, text + new_end, oldlen - old_end)) {
    TSInputEdit e = {start, old_end, new_end, tl_point_at(old, oldlen, start), tl_point_at(old, oldlen, old_end),
                     tl_point_at(text, len, new_end)};
    ts_tree_edit(f->tree, &e);
    /* The hull of every change since the last run, in the new text's offsets: the text before
     * edit_start is unchanged, the text from edit_end on is the old text from edit_end - delta. */
    if (!f->edited) {
      f->edit_start = start;
      f->edit_end = new_end;
      f->edit_delta = 0;
      f->edited = true;
    } else {
      uint32_t e0 = f->edit_end;
      uint32_t moved = e0 >= old_end ? e0 - old_end + new_end : (e0 > start ? new_end : e0);
      if (start < f->edit_start) f->edit_start = start;
      f->edit_end = moved > new_end ? moved : new_end;
    }
    f->edit_delta += (int64_t)new_end - (int64_t)old_end;
  } else {
    if (f->tree) ts_tree_delete(f->tree);
    f->tree = NULL;
    f->edited = f->reusable = false;
  }
  free(f->mem);
  f->mem = tl_strndup(text, len);
  f->len = len;
  f->dirty = f->in_memory = true;
}

void tl_analysis_remove(tl_analysis *a, const char *path) {
  tl_file *f = tl_find_file(a, path);
  if (!f) return;
  tl_project_free(a); /* indexed by file: rebuilt by the next run */
  tl_findings_clear(a);
  for (size_t k = 0; k < a->files.n; k++) { /* they name files by index */
    free(a->files.v[k].targets);
    a->files.v[k].targets = NULL;
  }
  size_t i = (size_t)(f - a->files.v);
  tl_file_free(f);
  memmove(&a->files.v[i], &a->files.v[i + 1], (a->files.n - i - 1) * sizeof *a->files.v);
  a->files.n--;
}

/* ---- per-thread state ---- */

/* Verdicts of pure predicates shared by the patterns checked on one match, by tl_pred.memo key:
 * an entry holds for the match whose number is its stamp (node: what a binding predicate bound). */
typedef struct {
  uint32_t stamp;
  bool result;
  TSNode node;
} tl_memo_entry;
typedef struct {
  tl_memo_entry *v; /* memo_keys + 1 entries */
  uint32_t match;   /* the current match's number */
} tl_memo;

/* Verdicts of #resolves-match? and #match? by text: the same few hundred names ("torch.zeros",
 * "self.linear") come back in every file, each checked against a dozen regexes. A slot holds one
 * text and the verdicts of the regexes checked on it so far (tl_pred.rbit numbers them). */
#define TL_RCACHE_SLOTS 4096u
#define TL_RCACHE_NAME 47u
typedef struct {
  uint64_t known[TL_RCACHE_BITS / 64], value[TL_RCACHE_BITS / 64];
  bool used;
  uint8_t len;
  char name[TL_RCACHE_NAME + 1];
} tl_rcache_slot;

/* Verdicts of the gates of a group of patterns on one text (tl_pattern.gkeys): a slot holds the
 * text and the set of the group's positions whose gate passes on it. A call pattern's group has
 * thirty gates, and the same callee names come back in every file. */
#define TL_GCACHE_SLOTS 2048u
#define TL_GCACHE_TEXT TL_RCACHE_NAME
typedef struct {
  uint64_t bits;
  uint32_t key; /* 1 + tl_gate_key.id; 0: empty */
  uint8_t len;
  char text[TL_GCACHE_TEXT];
} tl_gcache_slot;

typedef struct {
  TSParser *parser;
  TSQueryCursor *cursor;
  pcre2_match_data *md;
  pcre2_match_context *mctx;
  tl_rcache_slot *rcache; /* TL_RCACHE_SLOTS */
  tl_gcache_slot *gcache; /* TL_GCACHE_SLOTS */
  tl_memo memo;           /* shared predicate verdicts of the current match */
} tl_worker;

typedef struct {
  tl_analysis *a;
  tl_worker *workers;
  size_t *todo; /* file indexes to analyse */
} tl_run_ctx;

/* ---- predicates ---- */

/* A name resolved through the imports (#resolves-to?, #resolves-match?), by node: several
 * patterns test the same callee. q is NULL when the node is not a dotted name. */
typedef struct {
  const void *id;
  uint32_t start, end;
  char *q;
} tl_resolved_slot;
#define TL_RESOLVED_SLOTS 64u
/* Per-file results of the query pass that do not depend on the match (a local of tl_file_phase1;
 * #file-match? verdicts are kept in the file, for the incremental path). */
typedef struct tl_file_res {
  tl_resolved_slot resolved[TL_RESOLVED_SLOTS];
} tl_file_res;

static void tl_file_res_free(tl_file_res *fr) {
  for (size_t i = 0; i < TL_RESOLVED_SLOTS; i++) free(fr->resolved[i].q);
}

/* #file-match?: the regex over the code only (comments and docstrings blanked, same offsets): a
 * comment saying "never calls .cuda()" is no evidence. The blanked text is made once per file. */
static bool tl_re_match(tl_worker *w, pcre2_code *re, const char *s, size_t n);
static bool tl_code_match(tl_worker *w, const tl_file *f, pcre2_code *re) {
  /* the text was checked to be UTF-8 in phase 1, and blanking keeps it so */
  return tl_regex_match(re, f->code, f->len, PCRE2_NO_UTF_CHECK, w->md, w->mctx) >= 0;
}

/* A regex predicate on a short text (a resolved name, a callee), through the worker's cache (a
 * slot is taken over by another text on collision; texts longer than TL_RCACHE_NAME, and regexes
 * past the cache's TL_RCACHE_BITS, are not cached). */
static bool tl_cached_match_h(tl_worker *w, const tl_pred *p, const char *q, size_t n, uint64_t h) {
  if (!tl_rx_may(&p->rpre, q, n)) return false;
  if (n > TL_RCACHE_NAME || !p->rbit) return tl_re_match(w, p->re, q, n);
  tl_rcache_slot *sl = &w->rcache[h % TL_RCACHE_SLOTS];
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
  bool r = tl_re_match(w, p->re, q, n);
  sl->known[b / 64] |= bit;
  if (r) sl->value[b / 64] |= bit;
  return r;
}

static uint64_t tl_text_hash(const char *q, size_t n);
static bool tl_cached_match(tl_worker *w, const tl_pred *p, const char *q, size_t n) {
  if (!tl_rx_may(&p->rpre, q, n)) return false;
  if (n > TL_RCACHE_NAME || !p->rbit) return tl_re_match(w, p->re, q, n);
  return tl_cached_match_h(w, p, q, n, tl_text_hash(q, n));
}

/* #eq?/#any-of? on a text of src, #resolves-to? on a resolved name: one of the strings (also
 * tl_gate_open's test, which must give the same verdict). */
static bool tl_text_in(const char *src, uint32_t s, uint32_t len, char *const *strs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(strs[i]) == len && !memcmp(src + s, strs[i], len)) return true;
  return false;
}

static bool tl_name_in(const char *q, char *const *strs, size_t n) {
  for (size_t i = 0; q && i < n; i++)
    if (!strcmp(q, strs[i])) return true;
  return false;
}

/* The resolved dotted name of `n` (owned by the cache), or NULL when n is no dotted name. */
static const char *tl_resolved(tl_file_res *fr, const tl_file_model *m, TSNode n, const char *src) {
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

typedef struct {
  const tl_file *file;
  const tl_file_model *m;
  const char *src;
  const TSQueryMatch *match;
  tl_worker *w;
  int32_t func;
  TSNode focus, configured;
  int severity;
  const tl_strlist *frameworks; /* configured frameworks, or empty: all */
  tl_filematches *fmatch;       /* #file-match? verdicts of this file, computed once each */
  TL_VEC(tl_deferred) deferred; /* project predicates, checked after the project pass */
  struct tl_file_res *file_res; /* resolved callee names of this file's query pass */
  struct { uint32_t id; TSNode node; } bound[TL_MAX_BOUND]; /* captures set by binding predicates */
  unsigned nbound;
} tl_match_env;

/* A capture of the match; a binding predicate's capture takes precedence (the latest binding). */
static TSNode tl_cap(const tl_match_env *e, uint32_t id) {
  for (unsigned i = e->nbound; i-- > 0;)
    if (e->bound[i].id == id) return e->bound[i].node;
  for (uint16_t i = 0; i < e->match->capture_count; i++)
    if (e->match->captures[i].index == id) return e->match->captures[i].node;
  return (TSNode){0};
}

/* #parent!, #field!, #child!, #last-child!, #next-sibling!: bind p->cap[1] from the node of p->cap[0]. False (the match is dropped)
 * when there is nothing to bind. The module node is never bound, nor the statement after a
 * top-level one: predicates stay inside the top-level statement of their match, which the
 * editor's partial re-analysis relies on. */
static bool tl_bind(tl_match_env *e, const tl_pred *p) {
  TSNode a = tl_cap(e, p->cap[0]), b = {0};
  if (ts_node_is_null(a) || e->nbound == TL_MAX_BOUND) return false;
  if (p->op == TL_PRED_PARENT) {
    b = ts_node_parent(a);
    bool typed = false;
    for (size_t i = 0; i < p->nstrs && !ts_node_is_null(b) && !typed; i++) typed = tl_node_is(b, p->strs[i]);
    if (!typed) return false;
  } else if (p->op == TL_PRED_FIELD) {
    b = ts_node_child_by_field_id(a, p->field);
  } else if (p->op == TL_PRED_CHILD) {
    uint32_t n = ts_node_named_child_count(a);
    if (!p->nstrs && n) b = ts_node_named_child(a, 0);
    for (uint32_t i = 0; i < n && ts_node_is_null(b) && p->nstrs; i++) {
      TSNode ch = ts_node_named_child(a, i);
      for (size_t k = 0; k < p->nstrs && ts_node_is_null(b); k++)
        if (tl_node_is(ch, p->strs[k])) b = ch;
    }
  } else if (p->op == TL_PRED_LAST_CHILD) {
    uint32_t n = ts_node_named_child_count(a);
    if (n) b = ts_node_named_child(a, n - 1);
  } else { /* not across top-level statements: see above */
    TSNode up = ts_node_parent(a);
    if (!ts_node_is_null(up) && !tl_node_is(up, "module")) b = ts_node_next_named_sibling(a);
  }
  if (ts_node_is_null(b) || tl_node_is(b, "module")) return false;
  e->bound[e->nbound].id = p->cap[1];
  e->bound[e->nbound].node = b;
  e->nbound++;
  return true;
}

static bool tl_re_match(tl_worker *w, pcre2_code *re, const char *s, size_t n) {
  int rc = tl_regex_match(re, s, n, 0, w->md, w->mctx);
  return rc >= 0;
}

/* Finds a tensor reduction inside n (a method like x.max() or a function like torch.max(x)). */
static bool tl_find_reduction(const tl_match_env *e, TSNode n, int depth, TSNode *out) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      TSNode obj = TL_CHILD(fn, object);
      uint32_t s = ts_node_start_byte(attr), l = ts_node_end_byte(attr) - s;
      char *callee = tl_dotted(fn, e->src);
      char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
      bool lib = q && !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
      bool hit = false;
      if (tl_str_in(e->src + s, l, tl_vocab_reduction_methods)) {
        if (lib) {
          /* torch.max(t) / paddle.max(t): the value of a device tensor */
          TSNode a0 = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : (TSNode){0};
          hit = !ts_node_is_null(a0) && tl_model_classify(e->m, a0, e->src, e->func, 0) != TL_VAL_CPU &&
                tl_model_classify(e->m, a0, e->src, e->func, 0) != TL_VAL_PY &&
                tl_model_classify(e->m, a0, e->src, e->func, 0) != TL_VAL_LIST;
        } else {
          tl_valkind k = tl_model_classify(e->m, obj, e->src, e->func, 0);
          hit = k != TL_VAL_CPU && k != TL_VAL_PY && k != TL_VAL_LIST;
          /* np.max(...) and friends are host values */
          if (q && (!strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3) || !strncmp(q, "math.", 5))) hit = false;
        }
      }
      free(q);
      free(callee);
      if (hit) { *out = n; return true; }
    }
  }
  if (tl_node_is(n, "lambda")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_find_reduction(e, ts_node_named_child(n, i), depth + 1, out)) return true;
  return false;
}

static bool tl_contains_call_to(TSNode n, const char *src, const char *const *methods, int depth) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t s = ts_node_start_byte(attr);
      if (tl_str_in(src + s, ts_node_end_byte(attr) - s, methods)) return true;
    }
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_contains_call_to(ts_node_named_child(n, i), src, methods, depth + 1)) return true;
  return false;
}


/* Library calls that do not make a tensor: torch.cuda.memory_reserved(), torch.device("cuda"),
 * torch.nn.Linear(...) (a module), torch.distributed.get_rank(), torch.is_tensor(x), ... */
static bool tl_lib_not_tensor(const char *q) {
  const char *last = strrchr(q, '.');
  last = last ? last + 1 : q;
  if (tl_str_in(last, strlen(last), tl_vocab_not_tensor_names) || !strncmp(last, "is_", 3) || !strncmp(last, "get_", 4)) return true;
  for (const char *const *p = tl_vocab_not_tensor_prefixes; *p; p++)
    if (!strncmp(q, *p, strlen(*p))) return true;
  /* torch.nn.Linear(...) makes a module; torch.nn.functional.* and torch.nn.utils.* make tensors */
  return !strncmp(q, "torch.nn.", 9) && strncmp(q, "torch.nn.functional.", 20) && strncmp(q, "torch.nn.utils.", 15);
}

/* Is `n` (the receiver of an attribute) a configuration object by its name: `args`, `opt`,
 * `cfg`, `self.config`, `hparams`, `FLAGS`? */
static bool tl_config_receiver(TSNode n, const char *src) {
  if (tl_node_is(n, "attribute")) n = ts_node_child_by_field_name(n, "attribute", 9);
  if (!tl_node_is(n, "identifier")) return false;
  uint32_t s = ts_node_start_byte(n), len = ts_node_end_byte(n) - s;
  char low[32];
  if (len >= sizeof low) return false;
  for (uint32_t i = 0; i < len; i++) low[i] = (char)tolower((unsigned char)src[s + i]);
  low[len] = 0;
  return tl_str_in(low, len, tl_vocab_config_names);
}

/* Positive evidence that an expression is a tensor (for float()/int()/bool() conversions). */
static bool tl_is_tensor_at(const tl_match_env *e, TSNode n, int depth);
static bool tl_is_tensor(const tl_match_env *e, TSNode n) { return tl_is_tensor_at(e, n, 0); }

static bool tl_is_tensor_at(const tl_match_env *e, TSNode n, int depth) {
  if (depth > 8 || ts_node_is_null(n)) return false;
  if (tl_contains_call_to(n, e->src, tl_vocab_host_value_methods, 0)) return false;
  tl_valkind k = tl_model_classify(e->m, n, e->src, e->func, 0);
  if (k == TL_VAL_DEVICE) return true;
  if (k != TL_VAL_UNKNOWN) return false;
  n = tl_unparen(n);
  if (tl_node_is(n, "binary_operator")) {
    /* arithmetic on a tensor is a tensor: `running / n`, `loss * 2` (not "%s" % x) */
    TSNode left = TL_CHILD(n, left);
    if (tl_node_is(left, "string") || tl_node_is(left, "concatenated_string")) return false;
    return tl_is_tensor_at(e, left, depth + 1) || tl_is_tensor_at(e, TL_CHILD(n, right), depth + 1);
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t s = ts_node_start_byte(attr);
      char *callee = tl_dotted(fn, e->src);
      char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
      bool lib = q && !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7)) &&
                 !tl_lib_not_tensor(q);
      bool hit = lib || tl_str_in(e->src + s, ts_node_end_byte(attr) - s, tl_vocab_tensor_methods);
      free(q);
      free(callee);
      return hit;
    }
    return false;
  }
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) {
    /* bound to a library call: torch.nn.utils.clip_grad_norm_(...), F.cross_entropy(...) */
    char *d = tl_dotted(n, e->src);
    TSNode v = d ? tl_model_binding_value(e->m, d, e->func, ts_node_start_byte(n)) : (TSNode){0};
    free(d);
    /* bound to an expression (not a call): that expression's evidence, not the name's */
    if (!ts_node_is_null(v) && !tl_node_is(v, "call")) return tl_is_tensor_at(e, v, depth + 1);
    if (tl_node_is(v, "call")) {
      char *callee = tl_dotted(TL_CHILD(v, function), e->src);
      char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
      bool lib = q && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7)) && !tl_lib_not_tensor(q);
      /* losses_m = AverageMeter(): a CapWords callee outside torch/paddle constructs a Python
       * object; the name says nothing then */
      const char *cl = callee && !strchr(callee, '(') ? strrchr(callee, '.') : NULL;
      cl = cl ? cl + 1 : callee;
      bool ctor = !lib && cl && isupper((unsigned char)cl[0]) && strpbrk(cl + 1, "abcdefghijklmnopqrstuvwxyz");
      free(q);
      free(callee);
      if (lib) return true;
      if (ctor) return false;
    }
    /* args.loss_scale, cfg.loss_weight, self.opt.loss_type: a setting of a configuration object */
    if (tl_node_is(n, "attribute") && tl_config_receiver(ts_node_child_by_field_name(n, "object", 6), e->src)) return false;
    size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
    const char *s = e->src + ts_node_start_byte(n);
    const char *last = s + len;
    while (last > s && last[-1] != '.') last--;
    size_t ll = (size_t)(s + len - last);
    return (ll >= 4 && !strncasecmp(last, "loss", 4)) || (ll >= 5 && !strncasecmp(last + ll - 5, "_loss", 5));
  }
  return false;
}

/* #passes-tensor? @args: the call passes a tensor (#tensor?) to be converted or formatted: one of
 * its arguments, an f-string interpolation in one, an argument of a `.format(...)` call in one, or
 * the right operand of `%` in one (or an element of it, when it is a tuple). What a pattern with
 * those four alternatives under the argument list would find, in one pass over the arguments. */
static bool tl_passes_tensor(const tl_match_env *e, TSNode args) {
  uint32_t n = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < n; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (tl_is_tensor(e, a)) return true;
    if (tl_node_is(a, "string")) {
      uint32_t k = ts_node_named_child_count(a);
      for (uint32_t j = 0; j < k; j++) {
        TSNode ip = ts_node_named_child(a, j), v;
        if (tl_node_is(ip, "interpolation") && !ts_node_is_null(v = TL_CHILD(ip, expression)) && tl_is_tensor(e, v))
          return true;
      }
    } else if (tl_node_is(a, "call")) {
      TSNode f = TL_CHILD(a, function), fa = TL_CHILD(a, arguments);
      if (!tl_node_is(f, "attribute") || !tl_node_is(fa, "argument_list")) continue;
      TSNode at = TL_CHILD(f, attribute);
      if (!tl_node_is(at, "identifier") || !tl_node_text_eq(at, e->src, "format")) continue;
      uint32_t k = ts_node_named_child_count(fa);
      for (uint32_t j = 0; j < k; j++)
        if (tl_is_tensor(e, ts_node_named_child(fa, j))) return true;
    } else if (tl_node_is(a, "binary_operator")) {
      TSNode op = TL_CHILD(a, operator), r = TL_CHILD(a, right);
      if (!tl_node_is(op, "%") || ts_node_is_null(r)) continue;
      if (tl_is_tensor(e, r)) return true;
      if (tl_node_is(r, "tuple")) {
        uint32_t k = ts_node_named_child_count(r);
        for (uint32_t j = 0; j < k; j++)
          if (tl_is_tensor(e, ts_node_named_child(r, j))) return true;
      }
    }
  }
  return false;
}

static bool tl_name_is_batchlike(const char *s, size_t n) {
  char low[64];
  if (n >= sizeof low) return false;
  for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)s[i]);
  low[n] = 0;
  if (tl_str_in(low, n, tl_vocab_batch_size_names)) return true;
  return strstr(low, "batch") != NULL && strstr(low, "batches") == NULL && strstr(low, "idx") == NULL;
}

static bool tl_is_batch_bound(const tl_match_env *e, TSNode n) {
  n = tl_unparen(n);
  const char *src = e->src;
  if (tl_node_is(n, "identifier")) {
    uint32_t s = ts_node_start_byte(n);
    return tl_name_is_batchlike(src + s, ts_node_end_byte(n) - s);
  }
  if (tl_node_is(n, "attribute")) {
    TSNode a = TL_CHILD(n, attribute);
    uint32_t s = ts_node_start_byte(a);
    return tl_name_is_batchlike(src + s, ts_node_end_byte(a) - s);
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
        if ((ll >= 4 && !strncasecmp(src + ls + ll - 4, "list", 4)) || (ll >= 4 && !strncasecmp(src + ls + ll - 4, "_lst", 4)))
          return false;
      }
      tl_valkind k = tl_model_classify(e->m, x, src, e->func, 0);
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
      if (tl_node_is(fn, "attribute") && tl_node_text_eq(TL_CHILD(fn, attribute), src, "size"))
        return true;
    }
  }
  return false;
}

static bool tl_mentions(TSNode n, const char *src, const char *var, int depth) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "identifier")) return tl_node_text_eq(n, src, var);
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_mentions(ts_node_named_child(n, i), src, var, depth + 1)) return true;
  return false;
}

/* Does `body` index a tensor with `var` (t[i], t[i, j], t[i][j]) outside a call of the result? */
static bool tl_indexes_with(const tl_match_env *e, TSNode n, const char *var, int depth) {
  if (depth > 60 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "subscript")) {
    TSNode v = TL_CHILD(n, value);
    bool uses = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(n) && !uses; i++) {
      TSNode ch = ts_node_named_child(n, i);
      /* t[i : i + mb] takes a chunk, not an element */
      if (!ts_node_eq(ch, v) && !tl_node_is(ch, "slice")) uses = tl_mentions(ch, e->src, var, 0);
    }
    TSNode parent = ts_node_parent(n);
    bool called = tl_node_is(parent, "call") && ts_node_eq(TL_CHILD(parent, function), n);
    if (uses && !called) {
      /* the indexed value itself: names[i] of a list is fine, batch["labels"][i] is a tensor;
       * a host array (`.numpy()`, `np.zeros(...)`, `.cpu()`) launches no kernel */
      tl_valkind k = tl_model_classify(e->m, v, e->src, e->func, 0);
      if (k != TL_VAL_LIST && k != TL_VAL_PY && k != TL_VAL_CPU) return true;
    }
  }
  if (tl_node_is(n, "function_definition") || tl_node_is(n, "lambda")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_indexes_with(e, ts_node_named_child(n, i), var, depth + 1)) return true;
  return false;
}

/* Does deciding this condition need a device value? (`if (x == pad).any():`, `while t.max() > 0`) */
/* `x % n == k` (not string formatting). */
static bool tl_is_modulo_test(TSNode n, const char *src) {
  n = tl_unparen(n);
  if (!tl_node_is(n, "comparison_operator")) return false;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode ch = ts_node_named_child(n, i);
    ch = tl_unparen(ch);
    if (!tl_node_is(ch, "binary_operator")) continue;
    TSNode op = TL_CHILD(ch, operator);
    TSNode left = TL_CHILD(ch, left);
    if (!ts_node_is_null(op) && src[ts_node_start_byte(op)] == '%' && !tl_node_is(left, "string")) return true;
  }
  return false;
}

static bool tl_tensor_condition(const tl_match_env *e, TSNode n, int depth) {
  if (depth > 16 || ts_node_is_null(n)) return false;
  if (tl_contains_call_to(n, e->src, tl_vocab_host_value_methods, 0)) return false; /* .item() in it: TL101's */
  const char *t = ts_node_type(n);
  if (!strcmp(t, "parenthesized_expression") || !strcmp(t, "not_operator"))
    return tl_tensor_condition(e, ts_node_named_child(n, 0), depth + 1);
  if (!strcmp(t, "comparison_operator")) {
    /* `x is None`, `a is not b`: identity, no value is read */
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
      TSNode ch = ts_node_child(n, i);
      if (!ts_node_is_named(ch) && (!strcmp(ts_node_type(ch), "is") || !strcmp(ts_node_type(ch), "is not")))
        return false;
    }
  }
  if (!strcmp(t, "boolean_operator") || !strcmp(t, "comparison_operator")) {
    /* `step % N == 0 and t.max() == 0`: the right side runs only every N steps */
    if (!strcmp(t, "boolean_operator") && tl_is_modulo_test(TL_CHILD(n, left), e->src)) {
      TSNode op = TL_CHILD(n, operator);
      if (!ts_node_is_null(op) && !strncmp(e->src + ts_node_start_byte(op), "and", 3)) return false;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode ch = ts_node_named_child(n, i);
      if (tl_tensor_condition(e, ch, depth + 1)) return true;
      if (!strcmp(t, "comparison_operator") && tl_is_tensor(e, ch) && !tl_node_is(ch, "identifier")) return true;
      if (!strcmp(t, "comparison_operator") && tl_node_is(ch, "identifier") &&
          tl_model_classify(e->m, ch, e->src, e->func, 0) == TL_VAL_DEVICE) return true;
    }
    return false;
  }
  if (!strcmp(t, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (!tl_node_is(fn, "attribute")) return false;
    TSNode attr = TL_CHILD(fn, attribute);
    uint32_t s = ts_node_start_byte(attr);
    if (!tl_str_in(e->src + s, ts_node_end_byte(attr) - s, tl_vocab_truth_methods)) return false;
    char *callee = tl_dotted(fn, e->src);
    char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
    bool lib = q && !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
    bool np = q && (!strncmp(q, "numpy.", 6) || !strncmp(q, "math.", 5));
    free(q);
    free(callee);
    if (np) return false;
    TSNode subject = TL_CHILD(fn, object);
    if (lib) {
      TSNode args = TL_CHILD(n, arguments);
      subject = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : (TSNode){0};
    }
    if (ts_node_is_null(subject)) return false;
    tl_valkind k = tl_model_classify(e->m, subject, e->src, e->func, 0);
    return k == TL_VAL_UNKNOWN || k == TL_VAL_DEVICE;
  }
  if (!strcmp(t, "identifier") || !strcmp(t, "attribute"))
    return tl_model_classify(e->m, n, e->src, e->func, 0) == TL_VAL_DEVICE;
  return false;
}

/* Does evaluating this expression as a Python value read a device value? A host read inside
 * (`x.item()`, `.tolist()`, `.numpy()`, `.cpu()` of a value not known to be on the host,
 * `float(t)`), or a truth value that needs one (`(x == pad).all()`, `t.max() > 0`). */
static bool tl_find_host_read(const tl_match_env *e, TSNode n, int depth) {
  if (depth > 40 || ts_node_is_null(n) || tl_node_is(n, "lambda")) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t s = ts_node_start_byte(attr);
      if (tl_str_in(e->src + s, ts_node_end_byte(attr) - s, tl_vocab_host_read_methods) && ts_node_named_child_count(args) == 0) {
        tl_valkind k = tl_model_classify(e->m, TL_CHILD(fn, object), e->src, e->func, 0);
        if (k == TL_VAL_UNKNOWN || k == TL_VAL_DEVICE) return true;
      }
    } else if (tl_node_is(fn, "identifier") && ts_node_named_child_count(args) == 1 &&
               (tl_node_text_eq(fn, e->src, "float") || tl_node_text_eq(fn, e->src, "int") ||
                tl_node_text_eq(fn, e->src, "bool")) &&
               tl_is_tensor(e, ts_node_named_child(args, 0))) {
      return true;
    }
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_find_host_read(e, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

static bool tl_is_01(TSNode n, const char *src) {
  return tl_node_is(n, "integer") && (tl_node_text_eq(n, src, "0") || tl_node_text_eq(n, src, "1"));
}

static bool tl_forced_const(tl_match_env *e, TSNode n) {
  n = tl_unparen(n);
  const char *src = e->src;
  if (tl_is_01(n, src)) return true;
  if (tl_node_is(n, "conditional_expression") && ts_node_named_child_count(n) == 3) {
    TSNode a = ts_node_named_child(n, 0), b = ts_node_named_child(n, 2);
    bool ca = tl_is_01(a, src), cb = tl_is_01(b, src);
    if (ca && !tl_node_is(b, "integer")) e->configured = b;
    else if (cb && !tl_node_is(a, "integer")) e->configured = a;
    return ca || cb;
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "identifier") && tl_node_text_eq(fn, src, "min") && ts_node_named_child_count(args) == 2) {
      TSNode a = ts_node_named_child(args, 0), b = ts_node_named_child(args, 1);
      if (tl_is_01(a, src)) { e->configured = b; return true; }
      if (tl_is_01(b, src)) { e->configured = a; return true; }
    }
  }
  return false;
}

static bool tl_is_eval_name(tl_worker *w, pcre2_code *re, const char *s, size_t n) { return tl_re_match(w, re, s, n); }

static bool tl_training_loader(tl_match_env *e, TSNode call, pcre2_code *eval_re) {
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
    if (tl_is_eval_name(e->w, eval_re, src + s, ts_node_end_byte(a) - s)) return false;
  }
  TSNode p = ts_node_parent(call);
  if (tl_node_is(p, "assignment")) {
    TSNode l = TL_CHILD(p, left);
    uint32_t s = ts_node_start_byte(l);
    if (tl_is_eval_name(e->w, eval_re, src + s, ts_node_end_byte(l) - s)) return false;
  }
  const tl_func *f = &e->m->funcs.v[e->func];
  if (e->func > 0 && tl_is_eval_name(e->w, eval_re, f->name, strlen(f->name))) return false;
  return true;
}

static bool tl_eval_pred(tl_match_env *e, const tl_pred *p, pcre2_code *eval_re) {
  if (tl_pred_is_binding(p->op)) return tl_bind(e, p);
  TSNode a = p->cap[0] != UINT32_MAX ? tl_cap(e, p->cap[0]) : (TSNode){0};
  if (p->cap[0] != UINT32_MAX && ts_node_is_null(a)) return true; /* optional capture absent */
  if (tl_pred_is_project(p->op)) {
    tl_deferred d = {p, ts_node_is_null(a) ? 0 : ts_node_start_byte(a), ts_node_is_null(a) ? 0 : ts_node_end_byte(a)};
    tl_vec_push(&e->deferred, d);
    return true;
  }
  const char *src = e->src;
  uint32_t s = ts_node_is_null(a) ? 0 : ts_node_start_byte(a), len = ts_node_is_null(a) ? 0 : ts_node_end_byte(a) - s;
  bool r = false;
  switch (p->op) {
  case TL_PRED_EQ:
    if (p->cap[1] != UINT32_MAX) {
      TSNode b = tl_cap(e, p->cap[1]);
      if (ts_node_is_null(b)) return true; /* optional capture absent, as for the first one */
      uint32_t bs = ts_node_start_byte(b), bl = ts_node_end_byte(b) - bs;
      r = bl == len && !memcmp(src + s, src + bs, len);
    } else {
      r = tl_text_in(src, s, len, p->strs, 1);
    }
    break;
  case TL_PRED_MATCH: r = tl_cached_match(e->w, p, src + s, len); break;
  case TL_PRED_ANY_OF: r = tl_text_in(src, s, len, p->strs, p->nstrs); break;
  case TL_PRED_RESOLVES_TO:
  case TL_PRED_RESOLVES_MATCH: {
    const char *q = tl_resolved(e->file_res, e->m, a, src);
    if (!q) break;
    if (p->op == TL_PRED_RESOLVES_MATCH) r = tl_cached_match(e->w, p, q, strlen(q));
    else
      r = tl_name_in(q, p->strs, p->nstrs);
    /* `frameworks` in the configuration: APIs of the other framework are not recognised */
    if (r && e->frameworks && e->frameworks->n) {
      size_t top = strcspn(q, ".");
      bool known = (top == 5 && !strncmp(q, "torch", 5)) || (top == 6 && !strncmp(q, "paddle", 6));
      bool listed = false;
      for (size_t i = 0; i < e->frameworks->n && !listed; i++)
        listed = strlen(e->frameworks->v[i]) == top && !strncmp(q, e->frameworks->v[i], top);
      if (known && !listed) r = false;
    }
    break;
  }
  case TL_PRED_MAYBE_DEVICE: {
    tl_valkind k = tl_model_classify(e->m, a, src, e->func, 0);
    r = k == TL_VAL_UNKNOWN || k == TL_VAL_DEVICE;
    break;
  }
  case TL_PRED_TENSOR: r = tl_is_tensor(e, a); break;
  case TL_PRED_PASSES_TENSOR: r = tl_passes_tensor(e, a); break;
  case TL_PRED_HAS_REDUCTION: {
    TSNode f = {0};
    r = tl_find_reduction(e, a, 0, &f);
    if (r) e->focus = f;
    break;
  }
  case TL_PRED_BATCH_BOUND: {
    /* range(B) or range(0, B): the stop argument; range(0, B, mb) with a step other than 1
     * walks chunks (micro-batches), not elements */
    TSNode n = a;
    if (tl_node_is(a, "argument_list")) {
      uint32_t k = ts_node_named_child_count(a);
      n = k == 1 ? ts_node_named_child(a, 0) : k >= 2 ? ts_node_named_child(a, 1) : (TSNode){0};
      if (k == 3 && !tl_node_text_eq(ts_node_named_child(a, 2), src, "1")) n = (TSNode){0};
    }
    r = !ts_node_is_null(n) && tl_is_batch_bound(e, n);
    break;
  }
  case TL_PRED_INDEXES_WITH: {
    TSNode v = tl_cap(e, p->cap[1]);
    char *var = tl_node_text(v, src);
    r = tl_indexes_with(e, a, var, 0);
    free(var);
    break;
  }
  case TL_PRED_FORCED_CONST: r = tl_forced_const(e, a); break;
  case TL_PRED_TRAINING_LOADER: r = tl_training_loader(e, a, eval_re); break;
  case TL_PRED_ARG_COUNT: {
    long want = strtol(p->strs[0], NULL, 10), n = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(a); i++)
      if (!tl_node_is(ts_node_named_child(a, i), "keyword_argument")) n++;
    r = n == want;
    break;
  }
  case TL_PRED_TENSOR_COND: r = tl_tensor_condition(e, a, 0); break;
  case TL_PRED_EARLY_EXIT: {
    TSNode body = TL_CHILD(a, consequence);
    r = !ts_node_is_null(body) && ts_node_named_child_count(body) == 1 &&
        (tl_node_is(ts_node_named_child(body, 0), "break_statement") ||
         tl_node_is(ts_node_named_child(body, 0), "return_statement"));
    break;
  }
  case TL_PRED_HAS_KWARG:
  case TL_PRED_KWARG_MATCH: {
    TSNode v = tl_kwarg_value(a, src, p->strs[0]);
    r = !ts_node_is_null(v);
    if (r && p->op == TL_PRED_KWARG_MATCH) {
      uint32_t vs = ts_node_start_byte(v);
      r = tl_re_match(e->w, p->re, src + vs, ts_node_end_byte(v) - vs);
    }
    break;
  }
  case TL_PRED_FILE_MATCH: {
    size_t i = 0;
    while (i < e->fmatch->n && e->fmatch->v[i].pred != p) i++;
    if (i == e->fmatch->n) {
      tl_filematch fm = {p, tl_code_match(e->w, e->file, p->re)};
      tl_vec_push(e->fmatch, fm);
    }
    r = e->fmatch->v[i].result;
    break;
  }
  case TL_PRED_NEEDS_DEVICE: r = tl_find_host_read(e, a, 0) || tl_tensor_condition(e, a, 0); break;
  case TL_PRED_IN_IF:
  case TL_PRED_INSIDE:
  case TL_PRED_NEXT_STMT:
  case TL_PRED_VALUE_FROM:
  case TL_PRED_BOOL_MASK:
  case TL_PRED_ASSIGN_TARGET:
  case TL_PRED_KEEPS_GRAPH:
  case TL_PRED_STEP_ACCUM:
  case TL_PRED_ACCUM_STEP:
  case TL_PRED_IN_NO_SYNC:
  case TL_PRED_LOOP_MODEL_FROM:
  case TL_PRED_LOOP_MODEL_PARAM: {
    tl_pred_ctx pc = {e->m, src, e->func, e->w->md, e->w->mctx};
    switch (p->op) {
    case TL_PRED_IN_IF: r = tl_pred_in_if(&pc, a, p->re); break;
    case TL_PRED_INSIDE: r = tl_pred_inside(a, p->strs, p->nstrs); break;
    case TL_PRED_NEXT_STMT: r = tl_pred_next_statement(&pc, a, p->re); break;
    case TL_PRED_VALUE_FROM: r = tl_pred_value_from(&pc, a, p->re); break;
    case TL_PRED_BOOL_MASK: r = tl_pred_bool_mask(&pc, a); break;
    case TL_PRED_ASSIGN_TARGET: r = tl_pred_assignment_target(a); break;
    case TL_PRED_KEEPS_GRAPH: r = tl_pred_keeps_graph(&pc, a); break;
    case TL_PRED_ACCUM_STEP: r = tl_pred_accumulation_step(&pc, a); break;
    case TL_PRED_IN_NO_SYNC: r = tl_pred_in_no_sync(&pc, a); break;
    case TL_PRED_LOOP_MODEL_FROM: r = tl_pred_loop_model_from(&pc, a, p->re); break;
    case TL_PRED_LOOP_MODEL_PARAM: r = tl_pred_loop_model_param(&pc, a); break;
    default: r = tl_pred_step_accumulator(&pc, a); break;
    }
    break;
  }
  case TL_PRED_IN_BLOCK: r = tl_pred_in_block(a, p->strs, p->nstrs); break;
  case TL_PRED_TYPE:
    for (size_t i = 0; i < p->nstrs && !r; i++) r = tl_node_is(a, p->strs[i]);
    break;
  case TL_PRED_CHILD_COUNT: r = ts_node_named_child_count(a) == (uint32_t)strtoul(p->strs[0], NULL, 10); break;
  case TL_PRED_BRANCH_COND:
  case TL_PRED_BRANCH_BLOCK: {
    /* vacuous (true, negated or not) when the statement is not in an if/elif branch, as a
     * predicate on an optional capture that is absent */
    TSNode block, owner = tl_pred_branch_owner(a, &block);
    if (ts_node_is_null(owner)) return true;
    TSNode t = p->op == TL_PRED_BRANCH_COND ? TL_CHILD(owner, condition) : block;
    if (ts_node_is_null(t)) return true;
    uint32_t ts = ts_node_start_byte(t);
    r = tl_re_match(e->w, p->re, src + ts, ts_node_end_byte(t) - ts);
    break;
  }
  case TL_PRED_SET_SEVERITY:
    e->severity = !strcmp(p->strs[0], "error") ? TL_SEVERITY_ERROR : !strcmp(p->strs[0], "info") ? TL_SEVERITY_INFO
                                                                                                  : TL_SEVERITY_WARNING;
    return true;
  case TL_PRED_RECEIVER_MATCH: {
    TSNode obj = tl_node_is(a, "attribute") ? TL_CHILD(a, object) : a;
    if (tl_node_is(obj, "attribute")) obj = TL_CHILD(obj, attribute);
    if (tl_node_is(obj, "identifier")) {
      uint32_t os = ts_node_start_byte(obj);
      r = tl_re_match(e->w, p->re, src + os, ts_node_end_byte(obj) - os);
    }
    break;
  }
  default: break;
  }
  return p->negated ? !r : r;
}

/* ---- templates ---- */

static TSNode tl_named(const tl_match_env *e, const TSQuery *q, const char *name, size_t nl) {
  if (nl == 5 && !memcmp(name, "focus", 5)) return e->focus;
  if (nl == 10 && !memcmp(name, "configured", 10)) return e->configured;
  uint32_t cnt = ts_query_capture_count(q);
  for (uint32_t k = 0; k < cnt; k++) {
    uint32_t l;
    const char *cn = ts_query_capture_name_for_id(q, k, &l);
    if (l == nl && !memcmp(cn, name, nl)) return tl_cap(e, k);
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
        if (ts_node_is_null(n)) { tl_buf_free(&b); return NULL; }
        uint32_t s = ts_node_start_byte(n), l = ts_node_end_byte(n) - s;
        if (brief) {
          uint32_t cut = 0;
          while (cut < l && e->src[s + cut] != '\n' && e->src[s + cut] != '\r') cut++;
          bool shortened = cut < l;
          if (cut > 60) { cut = 57; shortened = true; while (cut > 0 && ((unsigned char)e->src[s + cut] & 0xC0) == 0x80) cut--; }
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

/* ---- phase 1: one file ---- */

static char *tl_module_name(const char *path, bool *is_package) {
  const char *p = path;
  while (p[0] == '.' && p[1] == '/') p += 2;
  while (*p == '/') p++;
  size_t n = strlen(p);
  if (n > 3 && !strcmp(p + n - 3, ".py")) n -= 3;
  else if (n > 4 && !strcmp(p + n - 4, ".pyi")) n -= 4;
  char *m = tl_strndup(p, n);
  for (char *c = m; *c; c++)
    if (*c == '/') *c = '.';
  *is_package = false;
  size_t ml = strlen(m);
  if (ml >= 8 && !strcmp(m + ml - 8, "__init__")) {
    *is_package = true;
    m[ml >= 9 ? ml - 9 : 0] = 0;
  }
  return m;
}

static void tl_report_syntax(tl_file *f, TSNode root) {
  /* The first ERROR or MISSING node, found without recursion. */
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool found = false;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    if (!strcmp(ts_node_type(n), "ERROR") || ts_node_is_missing(n)) {
      TSPoint p = ts_node_start_point(n);
      uint32_t line = p.row + 1, col = tl_lines_col(&f->lines, f->text, ts_node_start_byte(n));
      if (ts_node_is_missing(n))
        tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, line, col, "syntax error: missing '%s'; findings elsewhere in the file are still reported", ts_node_type(n));
      else
        tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, line, col, "syntax error; findings elsewhere in the file are still reported");
      found = true;
      break;
    }
    if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cur)) continue;
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cur)) moved = true;
      else if (!ts_tree_cursor_goto_parent(&cur)) break;
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cur);
  if (!found) tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, 1, 1, "syntax error");
}


static void tl_pattern_match(tl_analysis *a, tl_file *f, tl_worker *w, const TSQueryMatch *mt, const tl_pattern *pat,
                             pcre2_code *eval_re, tl_file_res *file_res, tl_memo *memo);

/* Predicates that read only the text and shape of their captures, not the enclosing function. */
static bool tl_pred_text_only(tl_pred_op op) {
  switch (op) {
  case TL_PRED_EQ: case TL_PRED_MATCH: case TL_PRED_ANY_OF: case TL_PRED_RESOLVES_TO: case TL_PRED_RESOLVES_MATCH:
  case TL_PRED_ARG_COUNT: case TL_PRED_HAS_KWARG: case TL_PRED_KWARG_MATCH: case TL_PRED_RECEIVER_MATCH:
  case TL_PRED_FILE_MATCH: case TL_PRED_SET_SEVERITY: case TL_PRED_PARENT: case TL_PRED_FIELD: case TL_PRED_IN_BLOCK:
  case TL_PRED_BRANCH_COND: case TL_PRED_BRANCH_BLOCK: case TL_PRED_INSIDE: case TL_PRED_TYPE:
  case TL_PRED_CHILD_COUNT: case TL_PRED_CHILD: case TL_PRED_LAST_CHILD: case TL_PRED_NEXT_SIBLING:
    return true;
  default:
    return false;
  }
}

/* What the gates of one match's patterns read, found once per match: the node of a capture (or
 * of the child a #field! binds from it), its range, and its resolved name with the name's hash. */
#define TL_GATE_NODES 6
typedef struct {
  uint32_t cap;
  TSFieldId field;   /* 0: the capture's own node */
  bool found;        /* the capture is in the match */
  bool resolved;     /* q and qhash are set */
  TSNode node;       /* null when the #field! binds nothing */
  uint32_t start, len;
  const char *q;     /* resolved name (in qbuf) or NULL */
  size_t qlen;
  uint64_t qhash;
  char qbuf[64];     /* a copy: the file's cache may drop its string when another name takes the slot */
} tl_gate_node;
typedef struct {
  uint32_t n;
  tl_gate_node v[TL_GATE_NODES];
} tl_gate_cache;

static uint64_t tl_text_hash(const char *q, size_t n) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)q[i]) * 1099511628211u;
  return h;
}

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

static const char *tl_gate_text(const tl_file *f, tl_file_res *fr, tl_gate_node *gn, bool name, size_t *n,
                                uint64_t *h);
static bool tl_gate_test(tl_worker *w, const tl_pred *g, const char *s, size_t n, uint64_t h);

/* A pattern's gate (tl_pattern.gate) on a match: false only when that predicate would be false
 * where tl_pattern_match evaluates it, or its #field! (gate_field) would bind nothing, and true
 * otherwise (also for an absent capture, which makes a predicate hold). tl_pattern_match relies on
 * this: it does not evaluate the gate again. */
static bool tl_gate_open(const tl_file *f, tl_worker *w, const TSQueryMatch *mt, const tl_pattern *pt, tl_file_res *fr,
                         tl_gate_cache *gc) {
  const tl_pred *g = pt->gate, *b = pt->gate_field;
  if (!g) return true;
  tl_gate_node spare;
  tl_gate_node *gn = tl_gate_node_of(mt, gc, b ? b->cap[0] : g->cap[0], b ? b->field : 0, &spare);
  if (!gn->found) return true; /* an absent capture: the predicate holds (tl_eval_pred) */
  if (ts_node_is_null(gn->node)) return false; /* the #field! binds nothing: the match is dropped */
  if (g->op == TL_PRED_TYPE) {
    for (size_t i = 0; i < g->nstrs; i++)
      if (tl_node_is(gn->node, g->strs[i])) return true;
    return false;
  }
  size_t n;
  uint64_t h;
  const char *s = tl_gate_text(f, fr, gn, g->op == TL_PRED_RESOLVES_TO || g->op == TL_PRED_RESOLVES_MATCH, &n, &h);
  return s && tl_gate_test(w, g, s, n, h);
}

/* The text a gate reads on gn (not null): the node's text, or its resolved name (NULL when it has
 * none), with its length and, for texts the caches keep, its hash. A long name is owned by fr's
 * cache and valid until the next resolution. */
static const char *tl_gate_text(const tl_file *f, tl_file_res *fr, tl_gate_node *gn, bool name, size_t *n,
                                uint64_t *h) {
  if (!name) {
    *n = gn->len;
    *h = gn->len <= TL_RCACHE_NAME ? tl_text_hash(f->text + gn->start, gn->len) : 0;
    return f->text + gn->start;
  }
  if (!gn->resolved) {
    const char *q = tl_resolved(fr, &f->model, gn->node, f->text);
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
  switch (g->op) {
  case TL_PRED_MATCH:
  case TL_PRED_RESOLVES_MATCH: return tl_cached_match_h(w, g, s, n, h);
  case TL_PRED_EQ: return tl_text_in(s, 0, (uint32_t)n, g->strs, 1);
  default: return tl_text_in(s, 0, (uint32_t)n, g->strs, g->nstrs); /* #any-of?, #resolves-to? */
  }
}

/* The positions of rep's group whose gate reading key k passes on s (n bytes, hash h if n <=
 * TL_RCACHE_NAME), through the worker's cache. */
static uint64_t tl_gate_bits(tl_worker *w, const tl_ruleset *rs, const tl_pattern *rep, const tl_gate_key *k,
                             const char *s, size_t n, uint64_t h) {
  tl_gcache_slot *sl = NULL;
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
    if (!gn->found) continue; /* an absent capture: the predicates hold (tl_eval_pred) */
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

/* A match of one pattern, and of the patterns of the same structure compiled once with it. */
static void tl_file_match(tl_analysis *a, tl_file *f, tl_worker *w, const TSQueryMatch *mt, pcre2_code *eval_re,
                          tl_file_res *file_res) {
  const tl_pattern *pat = &a->rules->patterns.v[mt->pattern_index];
  tl_memo *memo = &w->memo;
  if (++memo->match == 0) { /* wrapped: old stamps could be taken for this match's */
    memset(memo->v, 0, (a->rules->memo_keys + 1) * sizeof *memo->v);
    memo->match = 1;
  }
  tl_gate_cache gc;
  gc.n = 0;
  uint64_t open = pat->gkeys.n ? tl_gates_open(a->rules, f, w, mt, pat, file_res, &gc) : 0;
  if (pat->gkey ? (open & 1) : tl_gate_open(f, w, mt, pat, file_res, &gc))
    tl_pattern_match(a, f, w, mt, pat, eval_re, file_res, memo);
  for (size_t i = 0; i < pat->members.n; i++) {
    const tl_pattern *mp = &a->rules->patterns.v[pat->members.v[i]];
    if (mp->gkey ? (open >> (i + 1)) & 1 : tl_gate_open(f, w, mt, mp, file_res, &gc))
      tl_pattern_match(a, f, w, mt, mp, eval_re, file_res, memo);
  }
}

static void tl_pattern_match(tl_analysis *a, tl_file *f, tl_worker *w, const TSQueryMatch *mt, const tl_pattern *pat,
                             pcre2_code *eval_re, tl_file_res *file_res, tl_memo *memo) {
  const tl_ruleset *rs = a->rules;
  const tl_rule *rule = rs->rules.v[pat->rule];
  TSNode anchor = {0};
  /* field by field: `bound` is read only below `nbound`, and clearing it for every pattern of
   * every match showed in profiles */
  tl_match_env e;
  e.file = f;
  e.m = &f->model;
  e.src = f->text;
  e.match = mt;
  e.w = w;
  e.func = 0;
  e.focus = e.configured = (TSNode){0};
  e.severity = -1;
  e.frameworks = &a->frameworks;
  e.fmatch = &f->fmatch;
  e.deferred.v = NULL;
  e.deferred.n = e.deferred.cap = 0;
  e.file_res = file_res;
  e.nbound = 0;
  if (rs->finding_cap != UINT32_MAX) anchor = tl_cap(&e, rs->finding_cap);
  if (ts_node_is_null(anchor) && mt->capture_count) anchor = mt->captures[0].node;
  if (ts_node_is_null(anchor)) return;
  /* The enclosing function is looked up only when a predicate needs it: most matches fail on a
   * first predicate that only reads text (an #eq?, a resolved name). */
  bool have_func = false;
  /* The gate held (tl_file_match calls this only then): its predicate holds here too, unless it
   * compares a resolved name and the configuration limits the frameworks, which the gate does not
   * check. */
  const tl_pred *held = pat->gate && (!a->frameworks.n || (pat->gate->op != TL_PRED_RESOLVES_TO &&
                                                           pat->gate->op != TL_PRED_RESOLVES_MATCH)) ? pat->gate : NULL;
  for (size_t i = 0; i < pat->preds.n; i++) {
    const tl_pred *p = &pat->preds.v[i];
    if (p == held) continue;
    if (!have_func && !tl_pred_text_only(p->op)) {
      e.func = tl_model_func_at(&f->model, ts_node_start_byte(anchor));
      have_func = true;
    }
    /* a verdict (or a binding) another pattern of this match already has; not once captures
     * were bound, since the predicate may read them */
    bool r, shared = p->memo && !e.nbound;
    tl_memo_entry *me = shared ? &memo->v[p->memo] : NULL;
    if (me && me->stamp == memo->match) {
      r = me->result;
      if (r && tl_pred_is_binding(p->op)) {
        e.bound[0].id = p->cap[1];
        e.bound[0].node = me->node;
        e.nbound = 1;
      }
    } else {
      r = tl_eval_pred(&e, p, eval_re);
      if (me) {
        me->stamp = memo->match;
        me->result = r;
        me->node = r && tl_pred_is_binding(p->op) ? e.bound[e.nbound - 1].node : (TSNode){0};
      }
    }
    if (!r) { tl_vec_free(&e.deferred); return; }
  }
  if (!have_func) e.func = tl_model_func_at(&f->model, ts_node_start_byte(anchor));
  if (rs->finding_cap != UINT32_MAX && e.nbound) { /* @finding bound by #parent!/#field! */
    TSNode fin = tl_cap(&e, rs->finding_cap);
    if (!ts_node_is_null(fin)) anchor = fin;
  }
  TSNode at = ts_node_is_null(e.focus) ? anchor : e.focus;
  tl_candidate c = {0};
  c.rule = pat->rule;
  c.start = ts_node_start_byte(at);
  c.end = ts_node_end_byte(at);
  c.func = tl_model_func_at(&f->model, c.start);
  c.severity = e.severity;
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
  for (size_t i = 0; i < rule->fix.n; i++) {
    const tl_fixop *op = &rule->fix.v[i];
    TSNode n = tl_named(&e, rs->query, op->capture, strlen(op->capture));
    if (ts_node_is_null(n)) continue;
    char *text = op->tmpl ? tl_expand(&e, rs->query, op->tmpl, false) : tl_strdup("");
    if (!text) continue;
    tl_edit ed = {ts_node_start_byte(n), ts_node_end_byte(n), text};
    if (op->kind == TL_FIXOP_INSERT_BEFORE) ed.end = ed.start;
    if (op->kind == TL_FIXOP_INSERT_AFTER) ed.start = ed.end;
    tl_vec_push(&c.edits, ed);
  }
  tl_vec_push(&f->cands, c);
}

/* Line and column (in code points) of a byte offset of a file, read in chunks. */
static void tl_offset_position(const char *path, size_t off, uint32_t *line, uint32_t *col) {
  FILE *fp = fopen(path, "rb");
  *line = 1;
  *col = 1;
  if (!fp) return;
  for (size_t i = 0; i < off; i++) {
    int ch = fgetc(fp);
    if (ch == EOF) break;
    if (ch == '\n') { (*line)++; *col = 1; }
    else if ((ch & 0xC0) != 0x80) (*col)++;
  }
  fclose(fp);
}

/* ---- phase 1, incremental: re-query only the changed top-level statements ----
 *
 * After an edit the whole file is re-parsed (incrementally) and its model rebuilt, but the rule
 * query with its predicates (most of the time of a run) runs only over the region of the changed
 * top-level statements, widened by one statement (not counting comments) on each side
 * (#next-statement-match? looks at the statement after a match: predicates must not look
 * further outside their own top-level statement). Candidates outside the region are kept, their offsets shifted.
 * That is right only while a candidate outside the region would get the same verdict from every
 * predicate, so the region is used only when the new model equals the old one except for what
 * is local to functions inside the region (their bindings and calls; both models' entries are
 * compared with offsets mapped across the region), every #file-match? gives the same verdict
 * on the new text and no kept candidate's statement reaches into the region; otherwise the whole
 * file is queried. tl_model_same_outside lists what is
 * compared: a new field of tl_file_model that predicates read must be compared there too.
 * tests/unit/test_incremental_random.c checks the result against fresh analyses. */

typedef struct {
  uint32_t rs, re_old, re_new; /* the region: [rs, re_old) of the old text is [rs, re_new) of the new */
  int64_t delta;               /* re_new - re_old: the shift of everything after the region */
  const char *old_text, *new_text;
} tl_region;

static bool tl_in_old(const tl_region *g, uint32_t o) { return o >= g->rs && o < g->re_old; }
static bool tl_in_new(const tl_region *g, uint32_t n) { return n >= g->rs && n < g->re_new; }

/* Old offset `o` and new offset `n` are the same place: unchanged before the region, shifted after
 * it; inside it, both must be inside. */
static bool tl_pos_eq(const tl_region *g, uint32_t o, uint32_t n) {
  if (o < g->rs) return n == o;
  if (o >= g->re_old) return (int64_t)n == (int64_t)o + g->delta;
  return n >= g->rs && n < g->re_new;
}

static bool tl_str_eq0(const char *x, const char *y) { return x == y || (x && y && !strcmp(x, y)); }

static bool tl_text_eq(const tl_region *g, tl_range o, tl_range n) {
  return o.end - o.start == n.end - n.start && !memcmp(g->old_text + o.start, g->new_text + n.start, o.end - o.start);
}

/* A function inside the region: its bindings and calls are seen only by matches inside it. */
static bool tl_func_local(const tl_file_model *m, int32_t func, uint32_t lo, uint32_t hi) {
  return func > 0 && (size_t)func < m->funcs.n && m->funcs.v[func].start >= lo && m->funcs.v[func].start < hi;
}

static bool tl_binding_eq(const tl_region *g, const tl_binding *x, tl_range xv, const tl_binding *y, tl_range yv) {
  return !strcmp(x->name, y->name) && x->func == y->func && x->kind == y->kind && tl_str_eq0(x->ctor, y->ctor) &&
         x->from_loop == y->from_loop && tl_pos_eq(g, x->byte, y->byte) && tl_text_eq(g, xv, yv) &&
         (xv.end == xv.start) == (yv.end == yv.start) && (xv.end == xv.start || tl_pos_eq(g, xv.start, yv.start));
}

static bool tl_names_eq(char *const *x, size_t nx, char *const *y, size_t ny) {
  if (nx != ny) return false;
  for (size_t i = 0; i < nx; i++)
    if (!tl_str_eq0(x[i], y[i])) return false;
  return true;
}

/* Does the new model `b` equal the old model `a` for every match outside the region? */
static bool tl_model_same_outside(const tl_region *g, const tl_file_model *a, const tl_range *av,
                                  const tl_file_model *b, const tl_range *bv) {
  if (!tl_str_eq0(a->module, b->module) || a->is_package != b->is_package) return false;
  /* imports: the same aliases for the same names */
  if (a->imports.count != b->imports.count) return false;
  for (size_t i = 0; i < b->imports.cap; i++) {
    const tl_map_entry *e = &b->imports.slots[i];
    intptr_t v;
    if (e->key && (!tl_map_get(&a->imports, e->key, &v) || !tl_str_eq0((const char *)v, (const char *)e->value)))
      return false;
  }
  /* functions: the same list (indexes are kept in candidates), the same places */
  if (a->funcs.n != b->funcs.n) return false;
  for (size_t i = 0; i < a->funcs.n; i++) {
    const tl_func *x = &a->funcs.v[i], *y = &b->funcs.v[i];
    if (!tl_str_eq0(x->name, y->name) || !tl_str_eq0(x->qual, y->qual) || !tl_str_eq0(x->display, y->display) ||
        x->cls != y->cls || x->is_collate != y->is_collate || !tl_pos_eq(g, x->start, y->start) ||
        (x->end > 0 ? !tl_pos_eq(g, x->end - 1, y->end - 1) : y->end != 0))
      return false;
  }
  /* classes, with every attribute assignment (read from any method, and by other classes) */
  if (a->classes.n != b->classes.n) return false;
  size_t ai = a->bindings.n, bi = b->bindings.n; /* attribute values follow the bindings' in vals */
  for (size_t i = 0; i < a->classes.n; i++) {
    const tl_class *x = &a->classes.v[i], *y = &b->classes.v[i];
    if (!tl_str_eq0(x->name, y->name) || !tl_str_eq0(x->qual, y->qual) ||
        !tl_names_eq(x->bases.v, x->bases.n, y->bases.v, y->bases.n) || x->attrs.n != y->attrs.n)
      return false;
    for (size_t j = 0; j < x->attrs.n; j++)
      if (!tl_binding_eq(g, &x->attrs.v[j], av[ai + j], &y->attrs.v[j], bv[bi + j])) return false;
    ai += x->attrs.n;
    bi += y->attrs.n;
  }
  /* loops: the same list (bindings and calls name them by index) */
  if (a->loops.n != b->loops.n) return false;
  for (size_t i = 0; i < a->loops.n; i++) {
    const tl_loop *x = &a->loops.v[i], *y = &b->loops.v[i];
    if (!tl_pos_eq(g, x->start, y->start)) return false;
    if (tl_in_old(g, x->start)) continue;
    if (x->func != y->func || x->parent != y->parent || x->is_while != y->is_while ||
        x->iterates_loader != y->iterates_loader || x->work != y->work || !tl_pos_eq(g, x->end - 1, y->end - 1))
      return false;
  }
  /* bindings and calls, except those of functions inside the region */
  size_t i = 0, j = 0;
  for (;;) {
    while (i < a->bindings.n && tl_func_local(a, a->bindings.v[i].func, g->rs, g->re_old)) i++;
    while (j < b->bindings.n && tl_func_local(b, b->bindings.v[j].func, g->rs, g->re_new)) j++;
    if (i == a->bindings.n || j == b->bindings.n) break;
    if (!tl_binding_eq(g, &a->bindings.v[i], av[i], &b->bindings.v[j], bv[j])) return false;
    i++, j++;
  }
  if (i != a->bindings.n || j != b->bindings.n) return false;
  for (i = 0, j = 0;;) {
    while (i < a->calls.n && tl_func_local(a, a->calls.v[i].func, g->rs, g->re_old)) i++;
    while (j < b->calls.n && tl_func_local(b, b->calls.v[j].func, g->rs, g->re_new)) j++;
    if (i == a->calls.n || j == b->calls.n) break;
    const tl_call *x = &a->calls.v[i], *y = &b->calls.v[j];
    if (!tl_str_eq0(x->callee, y->callee) || x->func != y->func || x->loop != y->loop || x->top != y->top ||
        x->guarded != y->guarded || x->work != y->work || !tl_pos_eq(g, x->byte, y->byte))
      return false;
    i++, j++;
  }
  if (i != a->calls.n || j != b->calls.n) return false;
  /* frequency guards: by place; those inside the region hold only places inside it */
  for (i = 0, j = 0;;) {
    while (i < a->guards.n && tl_in_old(g, a->guards.v[i].start)) i++;
    while (j < b->guards.n && tl_in_new(g, b->guards.v[j].start)) j++;
    if (i == a->guards.n || j == b->guards.n) break;
    if (!tl_pos_eq(g, a->guards.v[i].start, b->guards.v[j].start) ||
        !tl_pos_eq(g, a->guards.v[i].end - 1, b->guards.v[j].end - 1) ||
        (a->guards.v[i].scope == 0) != (b->guards.v[j].scope == 0) ||
        (a->guards.v[i].scope && !tl_pos_eq(g, a->guards.v[i].scope, b->guards.v[j].scope)))
      return false;
    i++, j++;
  }
  if (i != a->guards.n || j != b->guards.n) return false;
  return tl_names_eq(a->loader_names.v, a->loader_names.n, b->loader_names.v, b->loader_names.n) &&
         tl_names_eq(a->collate_names.v, a->collate_names.n, b->collate_names.v, b->collate_names.n);
}

/* The byte ranges of the model's value nodes, kept after the tree is gone (a binding has a value
 * node exactly when it has a symbol, and the node's range is the one recorded). */
static void tl_snapshot_values(tl_file *f) {
  f->vals.n = 0;
  for (size_t i = 0; i < f->model.bindings.n; i++) {
    const tl_binding *x = &f->model.bindings.v[i];
    tl_range r = {x->vsym ? x->vstart : 0, x->vsym ? x->vend : 0, 0};
    tl_vec_push(&f->vals, r);
  }
  for (size_t i = 0; i < f->model.classes.n; i++)
    for (size_t j = 0; j < f->model.classes.v[i].attrs.n; j++) {
      const tl_binding *x = &f->model.classes.v[i].attrs.v[j];
      tl_range r = {x->vsym ? x->vstart : 0, x->vsym ? x->vend : 0, 0};
      tl_vec_push(&f->vals, r);
    }
}

/* The region: the top-level statements that the edits touched or whose parse changed, and one more
 * on each side. A statement before the edits whose range is the same as in the last run's model,
 * or one after them whose range is the same shifted, with no syntax error then or now, has the
 * same text and the same start state (the module level: tree-sitter-python's scanner holds no
 * indentation or open bracket there), so it parsed the same: what tree-sitter's changed ranges
 * would find, found without comparing the two trees. Returns false when the file has no
 * statements. */
static bool tl_find_region(const tl_file *f, const tl_file_model *old, TSTree *tree, uint32_t *rs, uint32_t *re) {
  uint32_t lo = f->edit_start, hi = f->edit_end;
  TSNode root = ts_tree_root_node(tree);
  /* the top-level statements, with a cursor: ts_node_child(root, i) walks i siblings each time */
  TL_VEC(TSNode) kids = {0};
  TSTreeCursor cur = ts_tree_cursor_new(root);
  if (ts_tree_cursor_goto_first_child(&cur)) do tl_vec_push(&kids, ts_tree_cursor_current_node(&cur));
    while (ts_tree_cursor_goto_next_sibling(&cur));
  ts_tree_cursor_delete(&cur);
  uint32_t n = (uint32_t)kids.n;
  if (!n) {
    tl_vec_free(&kids);
    return false;
  }
  /* the model's segments are the named statements: compare those (comments included) */
  TL_VEC(uint32_t) named = {0};
  for (uint32_t i = 0; i < n; i++)
    if (ts_node_is_named(kids.v[i])) tl_vec_push(&named, i);
  size_t nn = named.n, no = old ? old->segs.n : 0, p = 0, q = 0;
  while (p < nn && p < no) {
    TSNode c = kids.v[named.v[p]];
    const tl_segment *os = &old->segs.v[p];
    if (ts_node_end_byte(c) > lo || os->start != ts_node_start_byte(c) || os->end != ts_node_end_byte(c) ||
        os->error || ts_node_has_error(c))
      break;
    p++;
  }
  while (q < nn - p && q < no - p) {
    TSNode c = kids.v[named.v[nn - 1 - q]];
    const tl_segment *os = &old->segs.v[no - 1 - q];
    if (ts_node_start_byte(c) < hi || (int64_t)os->start + f->edit_delta != (int64_t)ts_node_start_byte(c) ||
        (int64_t)os->end + f->edit_delta != (int64_t)ts_node_end_byte(c) || os->error || ts_node_has_error(c))
      break;
    q++;
  }
  if (p < nn - q) { /* the statements between the kept ones changed */
    uint32_t cs = ts_node_start_byte(kids.v[named.v[p]]), ce = ts_node_end_byte(kids.v[named.v[nn - 1 - q]]);
    if (cs < lo) lo = cs;
    if (ce > hi) hi = ce;
  }
  /* (statements removed with none in their place: the edit's own range marks the spot) */
  tl_vec_free(&named);
  uint32_t first = n, last = 0;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = kids.v[i];
    if (ts_node_end_byte(c) >= lo && first == n) first = i;
    if (ts_node_start_byte(c) <= hi) { last = i; any = true; }
  }
  if (first == n) first = n - 1;
  if (!any) last = 0;
  /* one statement more on each side, comments skipped (#next-statement-match? skips them) */
  if (first > 0) do first--; while (first > 0 && tl_node_is(kids.v[first], "comment"));
  if (last + 1 < n) do last++; while (last + 1 < n && tl_node_is(kids.v[last], "comment"));
  uint32_t s = ts_node_start_byte(kids.v[first]), e = ts_node_end_byte(kids.v[last]);
  tl_vec_free(&kids);
  *rs = s < lo ? s : lo;
  *re = e > hi ? e : hi;
  if (*re > f->len) *re = (uint32_t)f->len;
  if (*rs > *re) *rs = *re;
  return true;
}

static void tl_cand_free(tl_candidate *c) {
  free(c->message);
  for (size_t j = 0; j < c->edits.n; j++) free(c->edits.v[j].text);
  tl_vec_free(&c->edits);
  tl_vec_free(&c->deferred);
}

static void tl_cand_shift(tl_candidate *c, int64_t d) {
  c->start = (uint32_t)(c->start + d);
  c->end = (uint32_t)(c->end + d);
  if (c->report_end) c->report_end = (uint32_t)(c->report_end + d);
  c->stmt_start = (uint32_t)(c->stmt_start + d);
  c->stmt_end = (uint32_t)(c->stmt_end + d);
  for (size_t j = 0; j < c->edits.n; j++) {
    c->edits.v[j].start = (uint32_t)(c->edits.v[j].start + d);
    c->edits.v[j].end = (uint32_t)(c->edits.v[j].end + d);
  }
  for (size_t j = 0; j < c->deferred.n; j++) {
    c->deferred.v[j].start = (uint32_t)(c->deferred.v[j].start + d);
    c->deferred.v[j].end = (uint32_t)(c->deferred.v[j].end + d);
  }
}

/* What the previous run of a file left for the incremental path. */
typedef struct {
  bool valid;
  tl_file_model model;
  tl_candidate *cands;
  size_t ncands;
  tl_range *vals;
  tl_filematches fmatch;
  char *text;
  size_t len;
  tl_lines lines;         /* of `text` */
} tl_prev;

/* After a partial run: per call of the new model `b`, the index of the same call in the old model
 * `a`, or UINT32_MAX for the calls inside the region or of a function inside it. The others are
 * the calls tl_model_same_outside found equal, in the same order: they resolve as before (the
 * bindings of their functions, the classes and the functions are the same). */
static uint32_t *tl_map_calls(const tl_region *g, const tl_file_model *a, const tl_file_model *b) {
  uint32_t *map = tl_malloc((b->calls.n + 1) * sizeof *map);
  size_t i = 0;
  for (size_t j = 0; j < b->calls.n; j++) {
    const tl_call *y = &b->calls.v[j];
    map[j] = UINT32_MAX;
    if (tl_func_local(b, y->func, g->rs, g->re_new) || tl_in_new(g, y->byte)) continue;
    while (i < a->calls.n && (tl_func_local(a, a->calls.v[i].func, g->rs, g->re_old) || tl_in_old(g, a->calls.v[i].byte))) i++;
    if (i < a->calls.n) map[j] = (uint32_t)i++;
  }
  return map;
}

/* Candidates: the old ones before the region, the new ones inside it, the old ones after it
 * (shifted): the order a query over the whole file gives. */
static void tl_splice_cands(tl_file *f, tl_prev *p, const tl_region *g) {
  tl_candidate *nv = f->cands.v;
  size_t nn = f->cands.n;
  memset(&f->cands, 0, sizeof f->cands);
  for (size_t i = 0; i < p->ncands; i++)
    if (p->cands[i].start < g->rs) tl_vec_push(&f->cands, p->cands[i]);
  for (size_t i = 0; i < nn; i++) {
    if (tl_in_new(g, nv[i].start)) tl_vec_push(&f->cands, nv[i]);
    else tl_cand_free(&nv[i]);
  }
  free(nv);
  for (size_t i = 0; i < p->ncands; i++) {
    tl_candidate *c = &p->cands[i];
    if (c->start < g->rs) continue;
    if (c->start >= g->re_old) {
      tl_cand_shift(c, g->delta);
      tl_vec_push(&f->cands, *c);
    } else {
      tl_cand_free(c);
    }
  }
  p->ncands = 0;
}

static void tl_file_phase1_run(tl_run_ctx *ctx, tl_worker *w, tl_file *f, tl_prev *prev);

/* tl_utf8_valid for a text that was valid before the edits in [edit_start, edit_end): only the
 * characters around the changed bytes are read. The unchanged text before them ends, and the one
 * after them starts, at a character boundary of the old text: the window starts at the character
 * holding the byte before the edits and ends before the first non-continuation byte after them. */
static bool tl_utf8_valid_edited(const tl_file *f, size_t *bad) {
  const unsigned char *t = (const unsigned char *)f->text;
  size_t s = f->edit_start < f->len ? f->edit_start : f->len, e = f->edit_end < f->len ? f->edit_end : f->len;
  if (e < s) e = s;
  if (s > 0) {
    s--;
    while (s > 0 && (t[s] & 0xC0) == 0x80) s--;
  }
  while (e < f->len && (t[e] & 0xC0) == 0x80) e++;
  size_t b = 0;
  if (tl_utf8_valid(f->text + s, e - s, &b)) return true;
  *bad = s + b;
  return false;
}

static void tl_file_phase1(void *ctxp, unsigned worker, size_t idx) {
  tl_run_ctx *ctx = ctxp;
  tl_analysis *a = ctx->a;
  tl_file *f = &a->files.v[ctx->todo[idx]];
  tl_worker *w = &ctx->workers[worker];
  tl_prev prev = {0};
  if (a->opts.keep_trees && f->tree && f->edited && f->reusable && f->mem && f->text) {
    prev.valid = true;
    prev.model = f->model;
    memset(&f->model, 0, sizeof f->model);
    prev.cands = f->cands.v;
    prev.ncands = f->cands.n;
    memset(&f->cands, 0, sizeof f->cands);
    prev.vals = f->vals.v;
    memset(&f->vals, 0, sizeof f->vals);
    prev.fmatch = f->fmatch;
    memset(&f->fmatch, 0, sizeof f->fmatch);
    prev.text = f->text;
    prev.lines = f->lines; /* valid for prev.text */
    memset(&f->lines, 0, sizeof f->lines);
    prev.len = (size_t)((int64_t)f->len - f->edit_delta);
    f->text = NULL;
  }
  tl_file_reset(f);
  f->rerun = true;
  f->dirty = false;
  f->reusable = f->partial = false;
  f->model_copied = 0;
  tl_file_phase1_run(ctx, w, f, &prev);
  f->edited = false;
  if (prev.valid) {
    tl_model_disown(&prev.model, &f->model); /* the strings the new model took over */
    tl_model_free(&prev.model);
    for (size_t i = 0; i < prev.ncands; i++) tl_cand_free(&prev.cands[i]);
    free(prev.cands);
    free(prev.vals);
    tl_vec_free(&prev.fmatch);
    free(prev.text);
    tl_lines_free(&prev.lines);
  }
}

static void tl_file_phase1_run(tl_run_ctx *ctx, tl_worker *w, tl_file *f, tl_prev *prev) {
  tl_analysis *a = ctx->a;
  if (f->mem || f->in_memory) {
    if (f->mem) {
      free(f->text);
      f->text = f->mem;
      f->mem = NULL;
    }
    if (!f->text) f->text = tl_strdup("");
    size_t bad;
    if (memchr(f->text, 0, f->len)) {
      tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, 0, 0, "binary file (contains NUL bytes): not analysed");
      return;
    }
    if (!(prev->valid ? tl_utf8_valid_edited(f, &bad) : tl_utf8_valid(f->text, f->len, &bad))) {
      tl_lines_init(&f->lines, f->text, f->len);
      uint32_t off = (uint32_t)bad;
      tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, tl_lines_line(&f->lines, off), tl_lines_col(&f->lines, f->text, off),
                   "invalid UTF-8 (byte 0x%02x): not analysed", (unsigned char)f->text[bad]);
      return;
    }
  } else {
    tl_source s;
    size_t off = 0;
    char *msg = NULL;
    tl_source_status st = tl_source_read(f->path, &s, &off, &msg);
    if (st != TL_SOURCE_OK) {
      uint32_t line = 0, col = 0;
      if (st == TL_SOURCE_BAD_UTF8 || st == TL_SOURCE_BINARY) {
        tl_offset_position(f->path, off, &line, &col);
        tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, line, col, "%s: not analysed", msg ? msg : "bad text");
      } else {
        tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, line, col, "%s: not analysed", msg ? msg : "cannot read");
      }
      free(msg);
      return;
    }
    free(f->text);
    f->text = s.text;
    f->len = s.len;
    s.text = NULL;
    tl_source_free(&s);
  }
  if (!f->lines.starts && prev->valid && prev->lines.starts)
    tl_lines_update(&f->lines, &prev->lines, f->text, f->len, f->edit_start, f->edit_end, f->edit_delta);
  if (!f->lines.starts) tl_lines_init(&f->lines, f->text, f->len);
  /* A UTF-8 BOM is not Python syntax to the grammar: parse a copy with it blanked. A lone CR (an
   * old Mac line end) ends a line for Python but not for the grammar: the copy has LF there. */
  char *parse_text = f->text;
  bool bom = f->len >= 3 && !memcmp(f->text, "\xEF\xBB\xBF", 3);
  if (bom || memchr(f->text, '\r', f->len)) {
    parse_text = tl_malloc(f->len + 1);
    memcpy(parse_text, f->text, f->len + 1);
    if (bom) memcpy(parse_text, "   ", 3);
    for (size_t i = 0; i < f->len; i++)
      if (parse_text[i] == '\r' && (i + 1 == f->len || parse_text[i + 1] != '\n')) parse_text[i] = '\n';
  }
  ts_parser_reset(w->parser);
  TSTree *tree = ts_parser_parse_string(w->parser, f->tree, parse_text, (uint32_t)f->len);
  tl_region g = {0};
  bool partial = false;
  if (tree && prev->valid && tl_find_region(f, &prev->model, tree, &g.rs, &g.re_new)) {
    int64_t re_old = (int64_t)g.re_new - f->edit_delta;
    if (re_old >= g.rs && re_old <= (int64_t)prev->len) {
      g.re_old = (uint32_t)re_old;
      g.delta = f->edit_delta;
      g.old_text = prev->text;
      g.new_text = f->text;
      partial = true;
    }
  }
  if (f->tree) { ts_tree_delete(f->tree); f->tree = NULL; }
  if (!tree) {
    tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, 0, 0, "parsing took longer than %u s: not analysed",
                 TL_PARSE_TIMEOUT_US / 1000000u);
    if (parse_text != f->text) free(parse_text);
    return;
  }
  TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) tl_report_syntax(f, root);
  bool is_pkg;
  char *module = tl_module_name(f->path, &is_pkg);
  for (size_t i = 0; i < a->step_iterables.n; i++) tl_vec_push(&f->model.step_iterables, a->step_iterables.v[i]);
  free(f->code);
  /* the code without comments and docstrings, made once for the model, #file-match? and #project-match? */
  f->code = tl_code_text(parse_text, f->len, true);
  f->code_is_text = parse_text == f->text;
  const char *code = ts_node_end_byte(root) == f->len ? f->code : NULL;
  /* the model: the top-level statements outside the region copied from the last run's */
  long copied = partial ? tl_model_rebuild(&f->model, &prev->model, root, parse_text, code, module, is_pkg,
                                           &f->diags, f->path, g.rs, g.re_old, g.re_new)
                        : -1;
  if (copied < 0) tl_model_rebuild(&f->model, NULL, root, parse_text, code, module, is_pkg, &f->diags, f->path, 0, 0, 0);
  f->model_copied = copied > 0 ? (size_t)copied : 0;
  free(module);
  f->ok = true;

  const tl_ruleset *rs = a->rules;
  if (a->opts.keep_trees) tl_snapshot_values(f); /* for the next run's tl_model_same_outside: editors only */
  if (partial) partial = tl_model_same_outside(&g, &prev->model, prev->vals, &f->model, f->vals.v);
  /* #file-match? reads the whole text: every verdict the last run used must stand */
  tl_file_res file_res = {0}; /* about 2 KiB */
  for (size_t i = 0; partial && i < prev->fmatch.n; i++) {
    tl_filematch fm = {prev->fmatch.v[i].pred, tl_code_match(w, f, prev->fmatch.v[i].pred->re)};
    tl_vec_push(&f->fmatch, fm);
    if (fm.result != prev->fmatch.v[i].result) partial = false;
  }
  /* A kept candidate's statement (its first and last lines are reported) must lie outside the
   * region: an ERROR node of a syntax error can hold a kept candidate and grow or shrink with the
   * edit. */
  for (size_t i = 0; partial && i < prev->ncands; i++) {
    const tl_candidate *c = &prev->cands[i];
    if (c->start >= g.rs && c->start < g.re_old) continue; /* dropped: queried again */
    if (c->stmt_start < g.re_old && c->stmt_end >= g.rs) partial = false;
  }
  bool exceeded = false;
  if (rs->query) {
    pcre2_code *eval_re = rs->eval_re;
    char *saved = f->text;
    f->text = parse_text; /* predicates read node text from the parsed copy */
    TSQueryMatch mt;
    if (partial) {
      ts_query_cursor_set_byte_range(w->cursor, g.rs, g.re_new);
      ts_query_cursor_exec(w->cursor, rs->query, root);
      while (ts_query_cursor_next_match(w->cursor, &mt)) tl_file_match(a, f, w, &mt, eval_re, &file_res);
      ts_query_cursor_set_byte_range(w->cursor, 0, UINT32_MAX);
      if (ts_query_cursor_did_exceed_match_limit(w->cursor)) { /* redo it all, as a fresh run would */
        partial = false;
        for (size_t i = 0; i < f->cands.n; i++) tl_cand_free(&f->cands.v[i]);
        tl_vec_free(&f->cands);
      }
    }
    if (!partial) {
      ts_query_cursor_exec(w->cursor, rs->query, root);
      while (ts_query_cursor_next_match(w->cursor, &mt)) tl_file_match(a, f, w, &mt, eval_re, &file_res);
      exceeded = ts_query_cursor_did_exceed_match_limit(w->cursor);
    }
    f->text = saved;
    if (exceeded)
      tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, 0, 0, "query match limit (%u) exceeded: some findings may be missing",
                   TL_QUERY_MATCH_LIMIT);
  }
  tl_file_res_free(&file_res);
  if (partial) {
    tl_splice_cands(f, prev, &g);
    f->call_map = tl_map_calls(&g, &prev->model, &f->model);
  }
  f->partial = partial;
  f->reusable = a->opts.keep_trees && !exceeded;
  /* The tree is gone after this: drop the model's node references. */
  for (size_t i = 0; i < f->model.bindings.n; i++) f->model.bindings.v[i].value_ = (TSNode){0};
  for (size_t i = 0; i < f->model.classes.n; i++)
    for (size_t j = 0; j < f->model.classes.v[i].attrs.n; j++) f->model.classes.v[i].attrs.v[j].value_ = (TSNode){0};
  f->model.lazy_root = (TSNode){0}; /* lazy bindings now have no value node either */
  if (a->opts.keep_trees) {
    f->tree = tree;
  } else {
    ts_tree_delete(tree);
    /* Past phase 1 only #project-match? reads the code text, and it makes it again when missing
     * (tl_project_deferred_hold): not keeping it saves a copy of every file (peak memory, and the
     * page faults that fill it). An editor keeps it, for its next run's #file-match? checks. */
    free(f->code);
    f->code = NULL;
    tl_model_compact(&f->model);
    tl_vec_shrink(&f->cands);
  }
  if (parse_text != f->text) free(parse_text);
}

/* ---- phase 3: findings ---- */

static int tl_finding_cmp(const void *x, const void *y) {
  const tl_finding *a = x, *b = y;
  int c = strcmp(a->path, b->path);
  if (c) return c;
  if (a->file != b->file) return a->file < b->file ? -1 : 1;
  if (a->start_byte != b->start_byte) return a->start_byte < b->start_byte ? -1 : 1;
  c = strcmp(a->rule->code, b->rule->code);
  if (c) return c;
  return a->end_byte < b->end_byte ? -1 : a->end_byte > b->end_byte;
}

/* FNV-1a over the rule, the path, the scope and the finding's line with spaces removed: survives
 * edits elsewhere in the file (line numbers are not part of it). Duplicates are told apart later. */
static void tl_fingerprint(tl_finding *fd, const tl_file *f) {
  uint64_t h = 1469598103934665603ull;
  const char *parts[] = {fd->rule->code, fd->path, fd->scope};
  for (size_t i = 0; i < 3; i++) {
    for (const char *p = parts[i]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  }
  uint32_t s = f->lines.starts[fd->line - 1];
  uint32_t e = fd->line < f->lines.count ? f->lines.starts[fd->line] : (uint32_t)f->len;
  for (uint32_t i = s; i < e; i++) {
    unsigned char ch = (unsigned char)f->text[i];
    if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') h = (h ^ ch) * 1099511628211ull;
  }
  snprintf(fd->fingerprint, sizeof fd->fingerprint, "%016llx", (unsigned long long)h);
}

static bool tl_supersedes(const tl_rule *outer, const tl_rule *inner) {
  for (size_t i = 0; i < outer->supersedes.n; i++)
    if (!strcmp(outer->supersedes.v[i], inner->code)) return true;
  return false;
}

/* Does a candidate hold once the project is known: its project predicates and its hotness? */
static bool tl_candidate_holds(tl_analysis *a, size_t fi, const tl_candidate *c, pcre2_match_data *md) {
  const tl_rule *rule = a->rules->rules.v[c->rule];
  if (c->deferred.n && !tl_project_deferred_hold(a, fi, c, md)) return false;
  if (!rule->hot) return true;
  tl_hot_step *chain = NULL;
  size_t nchain = 0;
  bool hot = tl_project_hot_at(a, fi, c->func, c->start, rule->hot, &chain, &nchain) != 0;
  for (size_t j = 0; j < nchain; j++) free(chain[j].what);
  free(chain);
  return hot;
}

/* For each `scope: project` rule, the candidate reported: the first that holds by path, then
 * position (the order of files given does not matter: -j1, -jN and editors agree). picks[rule]
 * is file + 1 and cand[rule] the candidate index; 0 when none. */
static void tl_project_scope_picks(tl_analysis *a, size_t *picks, size_t *cand, pcre2_match_data *md) {
  const tl_ruleset *rs = a->rules;
  for (size_t fi = 0; fi < a->files.n; fi++) {
    const tl_file *f = &a->files.v[fi];
    for (size_t ci = 0; ci < f->cands.n; ci++) {
      const tl_candidate *c = &f->cands.v[ci];
      if (!rs->rules.v[c->rule]->project_scope) continue;
      size_t *pk = &picks[c->rule];
      if (*pk) {
        const tl_file *bf = &a->files.v[*pk - 1];
        int cmp = strcmp(f->path, bf->path);
        if (cmp > 0 || (cmp == 0 && c->start >= bf->cands.v[cand[c->rule]].start)) continue;
      }
      if (!tl_candidate_holds(a, fi, c, md)) continue;
      *pk = fi + 1;
      cand[c->rule] = ci;
    }
  }
}

static void tl_make_findings(tl_analysis *a) {
  const tl_ruleset *rs = a->rules;
  pcre2_match_data *md = pcre2_match_data_create(16, NULL);
  size_t *picks = tl_calloc(rs->rules.n + 1, sizeof *picks), *pick_cand = tl_calloc(rs->rules.n + 1, sizeof *pick_cand);
  tl_project_scope_picks(a, picks, pick_cand, md);
  for (size_t fi = 0; fi < a->files.n; fi++) {
    tl_file *f = &a->files.v[fi];
    for (size_t ci = 0; ci < f->cands.n; ci++) {
      tl_candidate *c = &f->cands.v[ci];
      const tl_rule *rule = rs->rules.v[c->rule];
      tl_hot_step *chain = NULL;
      size_t nchain = 0;
      if (rule->needs_accel && a->cpu_only) continue;
      if (rule->project_scope && (picks[c->rule] != fi + 1 || pick_cand[c->rule] != ci)) continue;
      if (c->deferred.n && !tl_project_deferred_hold(a, fi, c, md)) continue;
      unsigned hot_bits = rule->hot ? tl_project_hot_at(a, fi, c->func, c->start, rule->hot, &chain, &nchain) : 0;
      if (rule->hot && !hot_bits) continue;
      /* Drop a match inside another match of the same rule, or of a rule that supersedes it. */
      bool dropped = false;
      for (size_t k = 0; k < f->cands.n && !dropped; k++) {
        if (k == ci) continue;
        const tl_candidate *o = &f->cands.v[k];
        const tl_rule *orule = rs->rules.v[o->rule];
        bool contains = o->start <= c->start && c->end <= o->end && (o->end - o->start) > (c->end - c->start);
        bool same = o->start == c->start && o->end == c->end;
        if (o->rule == c->rule && (contains || (same && k < ci))) {
          /* a project-scope rule reports one match; an outer match whose project predicates fail hides nothing */
          dropped = !rule->project_scope && (!o->deferred.n || tl_project_deferred_hold(a, fi, o, md));
        }
        else if (tl_supersedes(orule, rule) && (contains || same)) {
          /* only when the superseding finding is itself reported */
          tl_hot_step *oc = NULL;
          size_t on = 0;
          bool ohot = (!orule->needs_accel || !a->cpu_only) &&
                      (!orule->project_scope || (picks[o->rule] == fi + 1 && pick_cand[o->rule] == k)) &&
                      (!o->deferred.n || tl_project_deferred_hold(a, fi, o, md)) &&
                      (!orule->hot || tl_project_hot_at(a, fi, o->func, o->start, orule->hot, &oc, &on));
          for (size_t j = 0; j < on; j++) free(oc[j].what);
          free(oc);
          dropped = ohot;
        }
      }
      uint32_t first = tl_lines_line(&f->lines, c->stmt_start), last = tl_lines_line(&f->lines, c->stmt_end);
      uint32_t fline = tl_lines_line(&f->lines, c->start);
      if (fline < first) first = fline;
      if (fline > last) last = fline;
      if (!dropped && tl_suppress_match(&f->model.suppressions, rule->code, first, last)) {
        a->suppressed++;
        dropped = true;
      }
      if (dropped) {
        for (size_t j = 0; j < nchain; j++) free(chain[j].what);
        free(chain);
        continue;
      }
      tl_finding fd = {0};
      fd.rule = rule;
      fd.path = f->path;
      fd.file = fi;
      fd.start_byte = c->start;
      fd.end_byte = c->end;
      fd.line = tl_lines_line(&f->lines, c->start);
      fd.col = tl_lines_col(&f->lines, f->text, c->start);
      uint32_t rend = c->report_end ? c->report_end : c->end;
      fd.end_byte = rend;
      fd.end_line = tl_lines_line(&f->lines, rend);
      fd.end_col = tl_lines_col(&f->lines, f->text, rend);
      fd.severity = c->severity >= 0 ? (tl_severity)c->severity : rule->severity;
      if (hot_bits & TL_HOT_EVAL) fd.severity = TL_SEVERITY_INFO; /* paid per evaluation, not per training step */
      fd.message = tl_strdup(c->message);
      fd.hot = chain;
      fd.nhot = nchain;
      for (size_t k = 0; k < c->edits.n; k++) {
        tl_edit ed = {c->edits.v[k].start, c->edits.v[k].end, tl_strdup(c->edits.v[k].text)};
        tl_vec_push(&fd.fix, ed);
      }
      fd.fix_safety = fd.fix.n ? rule->fix_safety : TL_FIXSAFE_NONE;
      fd.scope = c->func > 0 ? f->model.funcs.v[c->func].display : f->model.module;
      fd.stmt_first_line = first;
      fd.stmt_last_line = last;
      tl_fingerprint(&fd, f);
      tl_vec_push(&a->findings, fd);
    }
  }
  free(picks);
  free(pick_cand);
  pcre2_match_data_free(md);
  if (a->findings.n) qsort(a->findings.v, a->findings.n, sizeof *a->findings.v, tl_finding_cmp);
}

void tl_analysis_run(tl_analysis *a) {
  tl_project_free(a);
  tl_findings_clear(a);
  tl_diags_free(&a->diags);
  a->suppressed = 0;
  size_t *todo = tl_calloc(a->files.n + 1, sizeof *todo), ntodo = 0;
  for (size_t i = 0; i < a->files.n; i++) {
    a->files.v[i].rerun = false;
    if (a->files.v[i].dirty) todo[ntodo++] = i;
  }
  unsigned nt = tl_pool_threads(a->opts.threads, ntodo);
  tl_worker *ws = tl_calloc(nt, sizeof *ws);
  for (unsigned i = 0; i < nt; i++) {
    ws[i].parser = ts_parser_new();
    ts_parser_set_language(ws[i].parser, tree_sitter_python());
    ts_parser_set_timeout_micros(ws[i].parser, TL_PARSE_TIMEOUT_US);
    ws[i].cursor = ts_query_cursor_new();
    ts_query_cursor_set_match_limit(ws[i].cursor, TL_QUERY_MATCH_LIMIT);
    ws[i].md = pcre2_match_data_create(16, NULL);
    ws[i].mctx = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(ws[i].mctx, TL_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(ws[i].mctx, TL_REGEX_DEPTH_LIMIT);
    ws[i].rcache = tl_calloc(TL_RCACHE_SLOTS, sizeof *ws[i].rcache);
    ws[i].gcache = tl_calloc(TL_GCACHE_SLOTS, sizeof *ws[i].gcache);
    ws[i].memo.v = tl_calloc(a->rules->memo_keys + 1, sizeof *ws[i].memo.v);
  }
  tl_run_ctx ctx = {a, ws, todo};
  tl_pool_run(nt, ntodo, tl_file_phase1, &ctx);
  for (size_t i = 0; i < ntodo; i++) {
    a->partial_runs += a->files.v[todo[i]].partial;
    a->model_copied += a->files.v[todo[i]].model_copied;
  }
  free(todo);
  for (unsigned i = 0; i < nt; i++) {
    ts_parser_delete(ws[i].parser);
    ts_query_cursor_delete(ws[i].cursor);
    pcre2_match_data_free(ws[i].md);
    pcre2_match_context_free(ws[i].mctx);
    free(ws[i].rcache);
    free(ws[i].gcache);
    free(ws[i].memo.v);
  }
  free(ws);
  for (size_t i = 0; i < a->files.n; i++) {
    const tl_diags *d = &a->files.v[i].diags;
    for (size_t j = 0; j < d->n; j++) {
      tl_diag x = d->v[j];
      x.path = tl_strdup(x.path);
      x.message = tl_strdup(x.message);
      tl_vec_push(&a->diags, x);
    }
    tl_suppressions *sp = &a->files.v[i].model.suppressions;
    for (size_t j = 0; j < sp->n; j++)
      for (size_t k = 0; k < sp->v[j].used.n; k++) sp->v[j].used.v[k] = false;
  }
  tl_project_analyze(a);
  tl_make_findings(a);
  for (size_t i = 0; i < a->files.n; i++) { /* made again when the file changes */
    free(a->files.v[i].code);
    a->files.v[i].code = NULL;
  }
}

size_t tl_analysis_finding_count(const tl_analysis *a) { return a->findings.n; }
size_t tl_analysis_suppressed_count(const tl_analysis *a) { return a->suppressed; }

tl_unused_suppression *tl_analysis_unused_suppressions(const tl_analysis *a, size_t *n) {
  TL_VEC(tl_unused_suppression) out = {0};
  const tl_ruleset *rs = a->rules;
  for (size_t fi = 0; fi < a->files.n; fi++) {
    const tl_file *f = &a->files.v[fi];
    for (size_t i = 0; i < f->model.suppressions.n; i++) {
      const tl_suppression *sp = &f->model.suppressions.v[i];
      if (sp->all) {
        if (!sp->used.v[0]) {
          tl_unused_suppression u = {f->path, sp->line, sp->col, NULL};
          tl_vec_push(&out, u);
        }
        continue;
      }
      for (size_t k = 0; k < sp->codes.n; k++) {
        if (sp->used.v[k]) continue;
        bool known = false; /* only codes of enabled rules: a disabled rule suppresses nothing by design */
        for (size_t r = 0; r < rs->rules.n && !known; r++)
          known = rs->rules.v[r]->enabled && !strncmp(rs->rules.v[r]->code, sp->codes.v[k], strlen(sp->codes.v[k]));
        if (!known) continue;
        tl_unused_suppression u = {f->path, sp->line, sp->col, sp->codes.v[k]};
        tl_vec_push(&out, u);
      }
    }
  }
  *n = out.n;
  return out.v;
}
const tl_finding *tl_analysis_finding(const tl_analysis *a, size_t i) { return i < a->findings.n ? &a->findings.v[i] : NULL; }
const tl_diags *tl_analysis_diags(const tl_analysis *a) { return &a->diags; }
size_t tl_analysis_file_count(const tl_analysis *a) { return a->files.n; }
const char *tl_analysis_file_path(const tl_analysis *a, size_t i) { return i < a->files.n ? a->files.v[i].path : NULL; }
const char *tl_analysis_file_text(const tl_analysis *a, size_t i, size_t *len) {
  if (i >= a->files.n || !a->files.v[i].text) return NULL;
  if (len) *len = a->files.v[i].len;
  return a->files.v[i].text;
}
