/* tl_rules.c - loading rule files (Markdown with front matter, a query block and a fix block)
 * and compiling every enabled rule into one tree-sitter query. */
#include "tl_rules.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tl_builtin.h"
#include "tl_source.h"
#include "tl_vocab.h"

tl_ruleset *tl_ruleset_new(void) {
  tl_ruleset *rs = tl_calloc(1, sizeof *rs);
  rs->finding_cap = UINT32_MAX;
  int err;
  PCRE2_SIZE eo;
  rs->eval_re = pcre2_compile((PCRE2_SPTR)tl_vocab_eval_names_re, PCRE2_ZERO_TERMINATED, 0, &err, &eo, NULL);
  if (!rs->eval_re) abort(); /* a constant of the program */
  tl_regex_jit(rs->eval_re);
  pthread_mutex_init(&rs->lock, NULL);
  return rs;
}

static void tl_rules__preds_free(tl_pattern *p) {
  for (size_t i = 0; i < p->preds.n; i++) {
    tl_pred *pr = &p->preds.v[i];
    for (size_t j = 0; j < pr->nstrs; j++) free(pr->strs[j]);
    free(pr->strs);
    if (pr->re) pcre2_code_free(pr->re);
  }
  tl_vec_free(&p->preds);
}

static void tl_rules__rule_free(tl_rule *r) {
  if (!r) return;
  free(r->code);
  free(r->name);
  free(r->path);
  free(r->message);
  free(r->fix_title);
  free(r->help);
  free(r->doc);
  free(r->query_src);
  for (size_t i = 0; i < r->fix.n; i++) {
    free(r->fix.v[i].capture);
    free(r->fix.v[i].tmpl);
  }
  tl_vec_free(&r->fix);
  for (size_t i = 0; i < r->supersedes.n; i++) free(r->supersedes.v[i]);
  tl_vec_free(&r->supersedes);
  free(r);
}

static void tl_rules__ruleset_clear_query(tl_ruleset *rs) {
  if (rs->query) ts_query_delete(rs->query);
  rs->query = NULL;
  for (size_t i = 0; i < rs->patterns.n; i++) {
    tl_rules__preds_free(&rs->patterns.v[i]);
    tl_vec_free(&rs->patterns.v[i].members);
    tl_vec_free(&rs->patterns.v[i].gkeys);
  }
  tl_vec_free(&rs->patterns);
}

void tl_ruleset_delete(tl_ruleset *rs) {
  if (!rs) return;
  tl_rules__ruleset_clear_query(rs);
  for (size_t i = 0; i < rs->rules.n; i++) tl_rules__rule_free(rs->rules.v[i]);
  tl_vec_free(&rs->rules);
  pcre2_code_free(rs->eval_re);
  tl_diags_free(&rs->diags);
  pthread_mutex_destroy(&rs->lock);
  free(rs);
}

/* ---- rule file parsing ---- */

/* A front-matter value without its surrounding blanks and quotes; in a double-quoted value, `\"`
 * and `\\` stand for `"` and `\` (as in YAML), so a help text can quote code. */
static char *tl_rules__trim(const char *s, size_t n) {
  while (n && (*s == ' ' || *s == '\t')) s++, n--;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  bool dq = n >= 2 && s[0] == '"' && s[n - 1] == '"';
  if (dq || (n >= 2 && s[0] == '\'' && s[n - 1] == '\'')) s++, n -= 2;
  char *out = tl_strndup(s, n);
  if (dq) {
    char *w = out;
    for (const char *r = out; *r; r++) {
      if (r[0] == '\\' && (r[1] == '"' || r[1] == '\\')) r++;
      *w++ = *r;
    }
    *w = 0;
  }
  return out;
}

/* Iterates lines: returns the next line's start and sets *n to its length without the newline. */
static const char *tl_rules__next_line(const char *text, size_t len, size_t *pos, size_t *n) {
  if (*pos >= len) return NULL;
  const char *s = text + *pos;
  const char *e = memchr(s, '\n', len - *pos);
  size_t l = e ? (size_t)(e - s) : len - *pos;
  *pos += l + (e ? 1 : 0);
  *n = l;
  if (l && s[l - 1] == '\r') (*n)--;
  return s;
}

static bool tl_rules__parse_fixop(tl_rule *r, const char *line, size_t n, uint32_t lineno, tl_diags *diags) {
  char *l = tl_rules__trim(line, n);
  bool ok = true;
  if (!*l || *l == '#') {
    free(l);
    return true;
  }
  static const struct {
    const char *kw;
    tl_fixop_kind kind;
  } kws[] = {{"replace", TL_FIXOP_REPLACE},
             {"delete", TL_FIXOP_DELETE},
             {"insert-before", TL_FIXOP_INSERT_BEFORE},
             {"insert-after", TL_FIXOP_INSERT_AFTER}};
  size_t k;
  for (k = 0; k < 4; k++) {
    size_t kl = strlen(kws[k].kw);
    if (strncmp(l, kws[k].kw, kl) == 0 && l[kl] == ' ') break;
  }
  if (k == 4) {
    tl_diags_add(diags, TL_DIAG_ERROR, r->path, lineno, 1,
                 "unknown fix operation (expected replace/delete/insert-before/insert-after @capture)");
    free(l);
    return false;
  }
  char *p = l + strlen(kws[k].kw);
  while (*p == ' ') p++;
  if (*p != '@') {
    tl_diags_add(diags, TL_DIAG_ERROR, r->path, lineno, (uint32_t)(p - l + 1), "expected @capture");
    free(l);
    return false;
  }
  char *cap = ++p;
  while (*p && *p != ':' && *p != ' ') p++;
  tl_fixop op = {kws[k].kind, tl_strndup(cap, (size_t)(p - cap)), NULL};
  while (*p == ' ') p++;
  if (op.kind != TL_FIXOP_DELETE) {
    if (*p != ':') {
      tl_diags_add(diags, TL_DIAG_ERROR, r->path, lineno, (uint32_t)(p - l + 1), "expected ': template'");
      ok = false;
    } else {
      p++;
      if (*p == ' ') p++;
      /* "\n" in a template is a newline. */
      tl_buf t = {0};
      for (; *p; p++) {
        if (p[0] == '\\' && p[1] == 'n') {
          tl_buf_putc(&t, '\n');
          p++;
        } else tl_buf_putc(&t, *p);
      }
      op.tmpl = tl_buf_take(&t);
    }
  }
  if (ok) tl_vec_push(&r->fix, op);
  else {
    free(op.capture);
    free(op.tmpl);
  }
  free(l);
  return ok;
}

static tl_rule *tl_rules__rule_parse(const char *path, const char *text, size_t len, tl_diags *diags) {
  tl_rule *r = tl_calloc(1, sizeof *r);
  r->path = tl_strdup(path);
  r->severity = TL_SEVERITY_WARNING;
  r->default_on = true;
  bool ok = true;
  size_t pos = 0, n;
  uint32_t lineno = 0;
  const char *line = tl_rules__next_line(text, len, &pos, &n);
  lineno++;
  if (!line || n != 3 || memcmp(line, "---", 3) != 0) {
    tl_diags_add(diags, TL_DIAG_ERROR, path, 1, 1, "a rule file must start with a '---' front-matter line");
    tl_rules__rule_free(r);
    return NULL;
  }
  bool closed = false;
  while ((line = tl_rules__next_line(text, len, &pos, &n))) {
    lineno++;
    if (n == 3 && memcmp(line, "---", 3) == 0) {
      closed = true;
      break;
    }
    if (n == 0 || line[0] == '#') continue;
    const char *colon = memchr(line, ':', n);
    if (!colon) {
      tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, 1, "expected 'key: value'");
      ok = false;
      continue;
    }
    char *key = tl_rules__trim(line, (size_t)(colon - line));
    char *val = tl_rules__trim(colon + 1, n - (size_t)(colon - line) - 1);
    uint32_t vcol = (uint32_t)(colon - line) + 3;
    if (!strcmp(key, "code")) {
      free(r->code);
      r->code = val;
      val = NULL;
    } else if (!strcmp(key, "name")) {
      free(r->name);
      r->name = val;
      val = NULL;
    } else if (!strcmp(key, "message")) {
      free(r->message);
      r->message = val;
      val = NULL;
    } else if (!strcmp(key, "fix-title")) {
      free(r->fix_title);
      r->fix_title = val;
      val = NULL;
    } else if (!strcmp(key, "help")) {
      free(r->help);
      r->help = val;
      val = NULL;
    } else if (!strcmp(key, "synopsis")) {
    } /* the README's one-line summary (scripts/readme-rules.sh); unused here */
    else if (!strcmp(key, "severity")) {
      if (!strcmp(val, "error")) r->severity = TL_SEVERITY_ERROR;
      else if (!strcmp(val, "warning")) r->severity = TL_SEVERITY_WARNING;
      else if (!strcmp(val, "info")) r->severity = TL_SEVERITY_INFO;
      else {
        tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, vcol, "severity must be error, warning or info");
        ok = false;
      }
    } else if (!strcmp(key, "hot")) {
      r->hot = 0;
      char *save = NULL;
      for (char *t = strtok_r(val, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (!strcmp(t, "step")) r->hot |= TL_HOT_STEP;
        else if (!strcmp(t, "sample")) r->hot |= TL_HOT_SAMPLE;
        else if (!strcmp(t, "any")) r->hot |= TL_HOT_STEP | TL_HOT_SAMPLE;
        else if (!strcmp(t, "none")) r->hot = 0;
        else {
          tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, vcol, "hot must list step, sample, any or none");
          ok = false;
        }
      }
    } else if (!strcmp(key, "fix")) {
      if (!strcmp(val, "none")) r->fix_safety = TL_FIXSAFE_NONE;
      else if (!strcmp(val, "safe")) r->fix_safety = TL_FIXSAFE_SAFE;
      else if (!strcmp(val, "unsafe")) r->fix_safety = TL_FIXSAFE_UNSAFE;
      else {
        tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, vcol, "fix must be none, safe or unsafe");
        ok = false;
      }
    } else if (!strcmp(key, "default")) {
      if (!strcmp(val, "on")) r->default_on = true;
      else if (!strcmp(val, "off")) r->default_on = false;
      else {
        tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, vcol, "default must be on or off");
        ok = false;
      }
    } else if (!strcmp(key, "scope")) {
      if (!strcmp(val, "file")) r->project_scope = false;
      else if (!strcmp(val, "project")) r->project_scope = true;
      else {
        tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, vcol, "scope must be file or project");
        ok = false;
      }
    } else if (!strcmp(key, "needs")) {
      if (!strcmp(val, "accelerator")) r->needs_accel = true;
      else if (strcmp(val, "none")) {
        tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, vcol, "needs must be accelerator or none");
        ok = false;
      }
    } else if (!strcmp(key, "check")) {
      if (!strcmp(val, "query")) r->check = TL_CHECK_QUERY;
      else if (!strcmp(val, "unused-suppressions")) r->check = TL_CHECK_UNUSED_SUPPRESSIONS;
      else {
        tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, vcol, "check must be query or unused-suppressions");
        ok = false;
      }
    } else if (!strcmp(key, "supersedes")) {
      char *save = NULL;
      for (char *t = strtok_r(val, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        tl_vec_push(&r->supersedes, tl_strdup(t));
    } else {
      tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, 1, "unknown front-matter key '%s'", key);
      ok = false;
    }
    free(key);
    free(val);
  }
  if (!closed) {
    tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, 1, "front matter is not closed by '---'");
    tl_rules__rule_free(r);
    return NULL;
  }
  static const char *const required[] = {"code", "name", "message"};
  const char *have[] = {r->code, r->name, r->message};
  for (int i = 0; i < 3; i++)
    if (!have[i] || !*have[i]) {
      tl_diags_add(diags, TL_DIAG_ERROR, path, 1, 1, "front matter lacks '%s'", required[i]);
      ok = false;
    }

  /* The Markdown body: docs, then "```query" and "```fix" fenced blocks. */
  size_t doc_start = pos, doc_end = len;
  tl_buf query = {0};
  int in_block = 0; /* 1 query, 2 fix, 3 other */
  bool have_query = false;
  uint32_t block_line = 0;
  while ((line = tl_rules__next_line(text, len, &pos, &n))) {
    lineno++;
    size_t line_start = (size_t)(line - text);
    if (n >= 3 && memcmp(line, "```", 3) == 0) {
      if (in_block) {
        in_block = 0;
        continue;
      }
      char *info = tl_rules__trim(line + 3, n - 3);
      block_line = lineno;
      if (!strcmp(info, "query")) {
        if (have_query) {
          tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, 1, "a rule file has exactly one ```query block");
          ok = false;
        }
        in_block = 1;
        have_query = true;
        r->query_line = lineno + 1;
      } else if (!strcmp(info, "fix")) {
        in_block = 2;
      } else {
        in_block = 3;
      }
      free(info);
      continue;
    }
    if (!in_block && n >= 8 && memcmp(line, "## Query", 8) == 0 && doc_end == len) doc_end = line_start;
    if (in_block == 1) {
      tl_buf_put(&query, line, n);
      tl_buf_putc(&query, '\n');
    } else if (in_block == 2) ok = tl_rules__parse_fixop(r, line, n, lineno, diags) && ok;
  }
  if (in_block) {
    tl_diags_add(diags, TL_DIAG_ERROR, path, block_line, 1, "fenced block is not closed");
    ok = false;
  }
  if (!have_query && r->check == TL_CHECK_QUERY) {
    tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, 1, "no ```query block");
    ok = false;
  } else if (have_query && r->check != TL_CHECK_QUERY) {
    tl_diags_add(diags, TL_DIAG_ERROR, path, r->query_line - 1, 1,
                 "a rule with a `check` of the engine has no ```query block");
    ok = false;
  }
  if (r->check != TL_CHECK_QUERY && r->fix.n) {
    tl_diags_add(diags, TL_DIAG_ERROR, path, lineno, 1, "a rule with a `check` of the engine has no ```fix block");
    ok = false;
  }
  if (r->fix.n && r->fix_safety == TL_FIXSAFE_NONE) r->fix_safety = TL_FIXSAFE_UNSAFE;
  r->query_src = tl_buf_take(&query);
  while (doc_start < doc_end && (text[doc_start] == '\n' || text[doc_start] == '\r')) doc_start++;
  while (doc_end > doc_start && (text[doc_end - 1] == '\n' || text[doc_end - 1] == '\r')) doc_end--;
  r->doc = tl_strndup(text + doc_start, doc_end - doc_start);
  if (!r->fix_title) r->fix_title = tl_strdup("");
  if (!r->help) r->help = tl_strdup("");
  if (!ok) {
    tl_rules__rule_free(r);
    return NULL;
  }
  return r;
}

/* ---- query compilation ---- */

static void tl_rules__query_offset_pos(const tl_rule *r, uint32_t offset, uint32_t *line, uint32_t *col) {
  *line = r->query_line;
  *col = 1;
  for (uint32_t i = 0; i < offset && r->query_src[i]; i++) {
    if (r->query_src[i] == '\n') {
      (*line)++;
      *col = 1;
    } else (*col)++;
  }
}

static const char *tl_rules__query_error_name(TSQueryError e) {
  switch (e) {
  case TSQueryErrorSyntax: return "syntax error";
  case TSQueryErrorNodeType: return "unknown node type";
  case TSQueryErrorField: return "unknown field";
  case TSQueryErrorCapture: return "unknown capture";
  case TSQueryErrorStructure: return "impossible pattern structure";
  case TSQueryErrorLanguage: return "language mismatch";
  default: return "error";
  }
}

/* Locates "#name" of pattern `pi`'s predicate in the rule's query text for messages. */
static void tl_rules__pred_pos(const tl_rule *r, const TSQuery *q, uint32_t pi, uint32_t base, const char *name,
                               uint32_t *line, uint32_t *col) {
  uint32_t start = ts_query_start_byte_for_pattern(q, pi) - base;
  const char *s = strstr(r->query_src + start, name);
  tl_rules__query_offset_pos(r, s ? (uint32_t)(s - r->query_src) - 1 : start, line, col);
}

/* Parses the predicates of one pattern into `out`. Reports errors against the rule's file. */
static bool tl_rules__preds_parse(const tl_rule *r, const TSQuery *q, uint32_t pi, uint32_t text_at, tl_pattern *out,
                                  tl_diags *diags) {
  uint32_t nsteps;
  const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(q, pi, &nsteps);
  bool ok = true;
  for (uint32_t i = 0; i < nsteps;) {
    if (st[i].type != TSQueryPredicateStepTypeString) {
      i++;
      continue;
    }
    uint32_t nl;
    const char *name = ts_query_string_value_for_id(q, st[i].value_id, &nl);
    uint32_t j = i + 1;
    while (j < nsteps && st[j].type != TSQueryPredicateStepTypeDone) j++;
    tl_pred p = {0};
    p.cap[0] = p.cap[1] = UINT32_MAX;
    const char *base = name;
    if (!strncmp(base, "not-", 4)) {
      p.negated = true;
      base += 4;
    }
    const tl_pred_def *d = tl_pred_lookup(base, strlen(base));
    uint32_t line, col;
    if (!d) {
      tl_rules__pred_pos(r, q, pi, text_at, name, &line, &col);
      tl_diags_add(diags, TL_DIAG_ERROR, r->path, line, col, "unknown predicate #%s", name);
      ok = false;
      i = j + 1;
      continue;
    }
    p.def = d;
    if (p.negated && (d->flags & TL_PF_BIND)) {
      tl_rules__pred_pos(r, q, pi, text_at, name, &line, &col);
      tl_diags_add(diags, TL_DIAG_ERROR, r->path, line, col, "#%s: a binding predicate has no not- form", name);
      ok = false;
    }
    int ncaps = 0;
    TL_VEC(char *) strs = {0};
    for (uint32_t k = i + 1; k < j; k++) {
      if (st[k].type == TSQueryPredicateStepTypeCapture) {
        if (ncaps < 2) p.cap[ncaps] = st[k].value_id;
        ncaps++;
      } else {
        uint32_t sl;
        const char *s = ts_query_string_value_for_id(q, st[k].value_id, &sl);
        tl_vec_push(&strs, tl_strndup(s, sl));
      }
    }
    p.strs = strs.v;
    p.nstrs = strs.n;
    int want_caps = d->caps, want_strs = d->strs;
    bool arity_ok = (ncaps == want_caps &&
                     (want_strs == -2 || (want_strs < 0 ? strs.n >= 1 : (int)strs.n == want_strs))) ||
                    ((d->flags & TL_PF_OR_CAPTURE) && ncaps == want_caps + 1 && strs.n == 0);
    if (!arity_ok) {
      tl_rules__pred_pos(r, q, pi, text_at, name, &line, &col);
      tl_diags_add(diags, TL_DIAG_ERROR, r->path, line, col, "#%s takes %d capture(s) and %s string(s)", name,
                   want_caps,
                   want_strs == -2 ? "any number of"
                   : want_strs < 0 ? "one or more"
                   : want_strs     ? "one"
                                   : "no");
      ok = false;
    }
    if (arity_ok && d->regex >= 0) {
      int err;
      PCRE2_SIZE eoff;
      const char *pattern = p.strs[d->regex];
      p.re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                           PCRE2_UTF | (d->flags & TL_PF_MULTILINE ? PCRE2_MULTILINE : 0), &err, &eoff, NULL);
      tl_regex_jit(p.re);
      tl_rx_pre_init(&p.rpre, p.re);
      if (!p.re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        tl_rules__pred_pos(r, q, pi, text_at, name, &line, &col);
        tl_diags_add(diags, TL_DIAG_ERROR, r->path, line, col, "bad regular expression at offset %zu: %s", (size_t)eoff,
                     (char *)msg);
        ok = false;
      }
    }
    char *bad = arity_ok && d->prepare ? d->prepare(&p) : NULL;
    if (bad) {
      tl_rules__pred_pos(r, q, pi, text_at, name, &line, &col);
      tl_diags_add(diags, TL_DIAG_ERROR, r->path, line, col, "%s", bad);
      free(bad);
      ok = false;
    }
    if (d->flags & TL_PF_BIND) {
      size_t nb = 1;
      for (size_t k = 0; k < out->preds.n; k++) nb += tl_pred_is_binding(&out->preds.v[k]);
      if (nb == TL_MAX_BOUND + 1) { /* reported once, at the first binding past the limit */
        tl_rules__pred_pos(r, q, pi, text_at, name, &line, &col);
        tl_diags_add(diags, TL_DIAG_ERROR, r->path, line, col,
                     "#%s: a pattern has at most %d binding predicates (#parent!, #field!, ...)", name, TL_MAX_BOUND);
        ok = false;
      }
    }
    tl_vec_push(&out->preds, p);
    i = j + 1;
  }
  return ok;
}

static bool tl_rules__ruleset_insert(tl_ruleset *rs, tl_rule *r) {
  for (size_t i = 0; i < rs->rules.n; i++)
    if (!strcmp(rs->rules.v[i]->code, r->code)) {
      tl_rules__rule_free(rs->rules.v[i]);
      rs->rules.v[i] = r;
      return true;
    }
  tl_vec_push(&rs->rules, r);
  return true;
}

/* Skips a comment or a string at q[i]; returns the index after it, or i when there is none. */
static size_t tl_rules__query_skip(const char *q, size_t i) {
  if (q[i] == ';') {
    while (q[i] && q[i] != '\n') i++;
    return i;
  }
  if (q[i] == '"') {
    for (i++; q[i] && q[i] != '"'; i++)
      if (q[i] == '\\' && q[i + 1]) i++;
    return q[i] ? i + 1 : i;
  }
  return i;
}

/* Captures bound by the binding predicates (#parent!, #field!, ...: tl_pred_is_binding) are not
 * matched by their pattern, but tree-sitter refuses a predicate naming a capture it does not know.
 * So the names those predicates use are declared in a pattern put before the rules' text,
 * `((ERROR) @a @b ...)`, which is disabled once compiled: it never runs. Appends the names used by
 * q's binding predicates to `out`. */
static void tl_rules__query_bound_names(const char *q, tl_buf *out) {
  size_t i = 0;
  int bind_depth = -1, depth = 0; /* depth of the binding predicate's group while inside one */
  while (q[i]) {
    size_t j = tl_rules__query_skip(q, i);
    if (j != i) {
      i = j;
      continue;
    }
    char c = q[i];
    if (c == '(') depth++;
    else if (c == ')') {
      if (depth == bind_depth) bind_depth = -1;
      depth--;
    } else if (c == '#') { /* a predicate: a binding one by the table of names */
      size_t k = i + 1;
      while (q[k] && !isspace((unsigned char)q[k]) && q[k] != '(' && q[k] != ')') k++;
      const tl_pred_def *d = tl_pred_lookup(q + i + 1, k - i - 1);
      if (d && (d->flags & TL_PF_BIND)) bind_depth = depth;
      i = k;
      continue;
    } else if (c == '@' && bind_depth >= 0) {
      j = i + 1;
      while (isalnum((unsigned char)q[j]) || (q[j] && strchr("_-.", q[j]))) j++;
      if (j > i + 1) {
        tl_buf_putc(out, ' ');
        tl_buf_put(out, q + i, j - i);
      }
      i = j;
      continue;
    }
    i++;
  }
}

/* The declaration pattern for `names` (from tl_rules__query_bound_names), or "" when there are none. */
static void tl_rules__query_decl(tl_buf *out, const tl_buf *names) {
  if (!names->len) return;
  tl_buf_puts(out, "((ERROR)");
  tl_buf_put(out, names->data, names->len);
  tl_buf_puts(out, ")\n");
}

/* Compiles one rule's query alone: validates it with located errors and checks its predicates. */
static bool tl_rules__rule_check_query(tl_rule *r, tl_diags *diags) {
  uint32_t eoff;
  TSQueryError etype;
  tl_buf names = {0}, src = {0};
  tl_rules__query_bound_names(r->query_src, &names);
  tl_rules__query_decl(&src, &names);
  uint32_t skip = (uint32_t)src.len, decl_patterns = names.len ? 1 : 0;
  tl_buf_puts(&src, r->query_src);
  TSQuery *q = ts_query_new(tree_sitter_python(), src.data, (uint32_t)src.len, &eoff, &etype);
  tl_buf_free(&names);
  tl_buf_free(&src);
  if (!q) {
    uint32_t line, col;
    tl_rules__query_offset_pos(r, eoff > skip ? eoff - skip : 0, &line, &col);
    tl_diags_add(diags, TL_DIAG_ERROR, r->path, line, col, "query: %s", tl_rules__query_error_name(etype));
    return false;
  }
  bool ok = true;
  if (ts_query_pattern_count(q) <= decl_patterns) {
    tl_diags_add(diags, TL_DIAG_ERROR, r->path, r->query_line, 1, "query has no pattern");
    ok = false;
  }
  for (uint32_t i = decl_patterns; i < ts_query_pattern_count(q); i++) {
    tl_pattern tmp = {0};
    ok = tl_rules__preds_parse(r, q, i, skip, &tmp, diags) && ok;
    tl_rules__preds_free(&tmp);
  }
  /* Fix operations must name captures of the query (or names bound by predicates). */
  for (size_t i = 0; i < r->fix.n; i++) {
    const char *c = r->fix.v[i].capture;
    bool found = !strcmp(c, "focus") || !strcmp(c, "configured");
    for (uint32_t k = 0; k < ts_query_capture_count(q) && !found; k++) {
      uint32_t l;
      const char *nm = ts_query_capture_name_for_id(q, k, &l);
      found = strlen(c) == l && !memcmp(nm, c, l);
    }
    if (!found) {
      tl_diags_add(diags, TL_DIAG_ERROR, r->path, r->query_line, 1, "fix names @%s, which the query does not capture",
                   c);
      ok = false;
    }
  }
  ts_query_delete(q);
  return ok;
}

/* tree-sitter 0.20 writes past its array of query steps when a field's value holds only
 * predicates (`function: (#eq? @f "x")`, also grouped or quantified): a heap overflow, or a crash
 * on a query's first pattern. Such a query is refused before it is compiled. Returns the offset
 * of the field name, or -1. */
static long tl_rules__query_field_of_predicates(const char *q) {
  long ident = -1; /* start of the field name just read, while nothing else followed it */
  size_t i = 0;
  while (q[i]) {
    unsigned char c = (unsigned char)q[i];
    if (c == ';') {
      while (q[i] && q[i] != '\n') i++;
      continue;
    }
    if (isspace(c)) {
      i++;
      continue;
    }
    if (c == '"') {
      for (i++; q[i] && q[i] != '"'; i++)
        if (q[i] == '\\' && q[i + 1]) i++;
      if (q[i]) i++;
      ident = -1;
      continue;
    }
    if (isalnum(c) || c == '_' || c == '-') {
      bool sigil = i > 0 && (q[i - 1] == '@' || q[i - 1] == '#' || q[i - 1] == '!');
      size_t start = i;
      while (isalnum((unsigned char)q[i]) || (q[i] && strchr("_-.?!", q[i]))) i++;
      ident = sigil ? -1 : (long)start;
      continue;
    }
    if (c == ':' && ident >= 0) {
      size_t j = i + 1;
      bool paren = false;
      for (;;) {
        while (isspace((unsigned char)q[j])) j++;
        if (q[j] == ';') {
          while (q[j] && q[j] != '\n') j++;
          continue;
        }
        if (q[j] != '(') break;
        paren = true;
        j++;
      }
      if (paren && q[j] == '#') return ident;
    }
    ident = -1;
    i++;
  }
  return -1;
}

static bool tl_rules__add_text(tl_ruleset *rs, const char *path, const char *text, size_t len) {
  tl_diags *diags = &rs->diags;
  tl_rule *r = tl_rules__rule_parse(path, text, len, diags);
  if (!r) return false;
  long bad = tl_rules__query_field_of_predicates(r->query_src);
  if (bad >= 0) {
    uint32_t line, col;
    tl_rules__query_offset_pos(r, (uint32_t)bad, &line, &col);
    tl_diags_add(diags, TL_DIAG_ERROR, path, line, col, "query: a field needs a node pattern, not only predicates");
    tl_rules__rule_free(r);
    return false;
  }
  /* The query is checked by tl_ruleset_compile: one compilation of all rules together. */
  return tl_rules__ruleset_insert(rs, r);
}

bool tl_ruleset_add_text(tl_ruleset *rs, const char *path, const char *text, size_t len) {
  rs->user_rules = true;
  return tl_rules__add_text(rs, path, text, len);
}

bool tl_ruleset_add_builtin(tl_ruleset *rs) {
  bool ok = true;
  for (unsigned i = 0; i < tl_builtin_rule_count; i++)
    ok = tl_rules__add_text(rs, tl_builtin_rules[i].path, tl_builtin_rules[i].text, tl_builtin_rules[i].len) && ok;
  return ok;
}

static int tl_rules__cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

bool tl_ruleset_add_dir(tl_ruleset *rs, const char *dir) {
  tl_diags *diags = &rs->diags;
  DIR *d = opendir(dir);
  if (!d) {
    tl_diags_add(diags, TL_DIAG_ERROR, dir, 0, 0, "cannot open rules directory: %s", strerror(errno));
    return false;
  }
  TL_VEC(char *) names = {0};
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l > 3 && !strcmp(e->d_name + l - 3, ".md") && e->d_name[0] != '.')
      tl_vec_push(&names, tl_printf("%s/%s", dir, e->d_name));
  }
  closedir(d);
  if (names.n) qsort(names.v, names.n, sizeof *names.v, tl_rules__cmp_str);
  bool ok = true;
  for (size_t i = 0; i < names.n; i++) {
    tl_source src;
    size_t off;
    char *msg = NULL;
    if (tl_source_read(names.v[i], &src, &off, &msg) != TL_SOURCE_OK) {
      tl_diags_add(diags, TL_DIAG_ERROR, names.v[i], 0, 0, "%s", msg ? msg : "cannot read");
      ok = false;
    } else {
      ok = tl_ruleset_add_text(rs, names.v[i], src.text, src.len) && ok;
      tl_source_free(&src);
    }
    free(msg);
    free(names.v[i]);
  }
  tl_vec_free(&names);
  return ok;
}

static bool tl_rules__code_matches(const char *code, const char *sel, bool default_on) {
  if (!strcmp(sel, "ALL")) return true;
  size_t n = strlen(sel);
  if (strncmp(code, sel, n) != 0) return false;
  /* A prefix selects only rules that are on by default; an opt-in rule needs its full code. */
  return code[n] == 0 || default_on;
}

void tl_ruleset_select(tl_ruleset *rs, const char *const *select, size_t nselect, const char *const *ignore,
                       size_t nignore) {
  for (size_t i = 0; i < rs->rules.n; i++) {
    tl_rule *r = rs->rules.v[i];
    bool on = nselect ? false : r->default_on;
    for (size_t k = 0; k < nselect; k++) on = on || tl_rules__code_matches(r->code, select[k], r->default_on);
    for (size_t k = 0; k < nignore; k++) {
      size_t n = strlen(ignore[k]);
      if (!strcmp(ignore[k], "ALL") || !strncmp(r->code, ignore[k], n)) on = false;
    }
    r->enabled = on;
  }
  rs->selected = true;
}

static int tl_rules__rule_cmp(const void *a, const void *b) {
  return strcmp((*(tl_rule *const *)a)->code, (*(tl_rule *const *)b)->code);
}

/* ---- one query for every enabled rule ----
 *
 * Patterns with the same structure (the same text once comments, whitespace and predicates are
 * left out, captures named alike) match the same nodes, so the query runs each structure once:
 * the second and later ones are compiled as `((ERROR) <their predicates>)`, disabled, and every
 * match of the first is also checked against their predicates (tl_pattern.members). Compiling
 * and matching cost grow with the patterns (docs/rules.md, "Writing cheap queries"). */

typedef struct {
  uint32_t start, end;
} tl_rules__span;
typedef TL_VEC(tl_rules__span) tl_rules__spans;


/* The top-level patterns of a query text: a parenthesised or bracketed group with the captures
 * and quantifiers after it. False when the text does not split cleanly. */
static bool tl_rules__query_split(const char *q, tl_rules__spans *out) {
  size_t i = 0;
  int depth = 0;
  while (q[i]) {
    size_t j = tl_rules__query_skip(q, i);
    if (j != i) {
      i = j;
      continue;
    }
    char c = q[i];
    if (c == '(' || c == '[') {
      if (depth == 0) {
        tl_rules__span sp = {(uint32_t)i, 0};
        tl_vec_push(out, sp);
      }
      depth++;
    } else if (c == ')' || c == ']') {
      if (--depth < 0) return false;
      if (depth == 0) out->v[out->n - 1].end = (uint32_t)i + 1;
    } else if (depth == 0 && !isspace((unsigned char)c)) {
      if (!out->n) return false;
      if (c == '@') { /* a capture of the whole pattern */
        i++;
        while (isalnum((unsigned char)q[i]) || (q[i] && strchr("_-.", q[i]))) i++;
        out->v[out->n - 1].end = (uint32_t)i;
        continue;
      }
      if (c == '?' || c == '*' || c == '+') out->v[out->n - 1].end = (uint32_t)i + 1;
      else return false;
    }
    i++;
  }
  return depth == 0;
}

/* The structure of q[sp]: no comments, no predicate groups, single spaces. *preds gets the
 * predicate groups. */
static void tl_rules__query_structure(const char *q, tl_rules__span sp, tl_buf *shape, tl_buf *preds) {
  size_t i = sp.start;
  bool space = false;
  while (i < sp.end) {
    if (q[i] == ';') {
      i = tl_rules__query_skip(q, i);
      space = true;
      continue;
    }
    if (q[i] == '(' && q[i + 1 + strspn(q + i + 1, " \t\r\n")] == '#') {
      size_t k = i;
      int d = 0;
      while (k < sp.end) {
        size_t j = tl_rules__query_skip(q, k);
        if (j != k) {
          k = j;
          continue;
        }
        if (q[k] == '(') d++;
        else if (q[k] == ')' && --d == 0) {
          k++;
          break;
        }
        k++;
      }
      tl_buf_putc(preds, ' ');
      tl_buf_put(preds, q + i, k - i);
      i = k;
      space = true;
      continue;
    }
    if (q[i] == '"') {
      size_t j = tl_rules__query_skip(q, i);
      if (space && shape->len) tl_buf_putc(shape, ' ');
      space = false;
      tl_buf_put(shape, q + i, j - i);
      i = j;
      continue;
    }
    if (isspace((unsigned char)q[i])) {
      space = true;
      i++;
      continue;
    }
    if (space && shape->len && !strchr(")]", q[i]) && !strchr("([", shape->data[shape->len - 1]))
      tl_buf_putc(shape, ' ');
    space = false;
    tl_buf_putc(shape, q[i++]);
  }
}

typedef struct {
  tl_buf src;
  TL_VEC(uint32_t) owners, starts; /* enabled rules and where their text starts in src */
  TL_VEC(uint32_t) rep;            /* per piece emitted: UINT32_MAX, or the offset of its twin */
  TL_VEC(uint32_t) piece_at;       /* per piece emitted: its offset in src */
  uint32_t decl_end;
} tl_rules__qsrc;

static void tl_rules__qsrc_free(tl_rules__qsrc *s) {
  tl_buf_free(&s->src);
  tl_vec_free(&s->owners);
  tl_vec_free(&s->starts);
  tl_vec_free(&s->rep);
  tl_vec_free(&s->piece_at);
}

/* Builds the query source; with `dedupe`, patterns whose structure came before become holders. */
static bool tl_rules__qsrc_build(tl_ruleset *rs, bool dedupe, tl_rules__qsrc *out) {
  tl_buf names = {0};
  for (size_t i = 0; i < rs->rules.n; i++)
    if (rs->rules.v[i]->enabled && rs->rules.v[i]->check == TL_CHECK_QUERY)
      tl_rules__query_bound_names(rs->rules.v[i]->query_src, &names);
  tl_rules__query_decl(&out->src, &names);
  out->decl_end = (uint32_t)out->src.len;
  tl_buf_free(&names);
  TL_VEC(char *) shapes = {0};
  TL_VEC(uint32_t) shape_at = {0};
  bool ok = true;
  for (size_t i = 0; i < rs->rules.n && ok; i++) {
    tl_rule *r = rs->rules.v[i];
    if (!r->enabled || r->check != TL_CHECK_QUERY) continue; /* the engine's checks have no query */
    tl_vec_push(&out->owners, (uint32_t)i);
    tl_vec_push(&out->starts, (uint32_t)out->src.len);
    tl_rules__spans spans = {0};
    if (!dedupe || !tl_rules__query_split(r->query_src, &spans)) {
      if (dedupe) ok = false;
      tl_buf_puts(&out->src, r->query_src);
      tl_buf_putc(&out->src, '\n');
      tl_vec_free(&spans);
      continue;
    }
    for (size_t k = 0; k < spans.n; k++) {
      tl_buf shape = {0}, preds = {0};
      tl_rules__query_structure(r->query_src, spans.v[k], &shape, &preds);
      char *key = tl_buf_take(&shape);
      size_t twin = 0;
      while (twin < shapes.n && strcmp(shapes.v[twin], key)) twin++;
      tl_vec_push(&out->piece_at, (uint32_t)out->src.len);
      if (twin < shapes.n) {
        tl_vec_push(&out->rep, shape_at.v[twin]);
        tl_buf_puts(&out->src, "((ERROR)");
        tl_buf_put(&out->src, preds.data, preds.len);
        tl_buf_puts(&out->src, ")\n");
        free(key);
      } else {
        tl_vec_push(&out->rep, UINT32_MAX);
        tl_vec_push(&shapes, key);
        tl_vec_push(&shape_at, (uint32_t)out->src.len);
        tl_buf_put(&out->src, r->query_src + spans.v[k].start, spans.v[k].end - spans.v[k].start);
        tl_buf_putc(&out->src, '\n');
      }
      tl_buf_free(&preds);
    }
    tl_vec_free(&spans);
  }
  for (size_t i = 0; i < shapes.n; i++) free(shapes.v[i]);
  tl_vec_free(&shapes);
  tl_vec_free(&shape_at);
  return ok;
}

/* A pure predicate: its verdict (for a binding predicate: the node it binds) depends only on the
 * match (no focus or severity set, not deferred), so patterns checked on the same match may
 * share it. */
static bool tl_rules__pred_pure(const tl_pred *p) { return !(p->def->flags & (TL_PF_PROJECT | TL_PF_IMPURE)); }

static bool tl_rules__pred_same(const tl_pred *a, const tl_pred *b) {
  if (a->def != b->def || a->negated != b->negated || a->cap[0] != b->cap[0] || a->cap[1] != b->cap[1] ||
      a->nstrs != b->nstrs)
    return false;
  for (size_t i = 0; i < a->nstrs; i++)
    if (strcmp(a->strs[i], b->strs[i])) return false;
  return true;
}

/* Gives equal pure predicates of a pattern and its members one key, for tl_file_match's memo. */
static void tl_rules__memo_keys(tl_ruleset *rs) {
  uint32_t next = 1;
  for (size_t p = 0; p < rs->patterns.n; p++) {
    tl_pattern *rep = &rs->patterns.v[p];
    if (!rep->members.n) continue;
    TL_VEC(tl_pred *) all = {0};
    for (size_t m = 0; m <= rep->members.n; m++) {
      tl_pattern *pt = m == 0 ? rep : &rs->patterns.v[rep->members.v[m - 1]];
      for (size_t i = 0; i < pt->preds.n; i++)
        if (tl_rules__pred_pure(&pt->preds.v[i])) tl_vec_push(&all, &pt->preds.v[i]);
    }
    for (size_t i = 0; i < all.n; i++) {
      if (all.v[i]->memo) continue;
      for (size_t j = i + 1; j < all.n; j++)
        if (!all.v[j]->memo && tl_rules__pred_same(all.v[i], all.v[j])) all.v[i]->memo = all.v[j]->memo = next;
      if (all.v[i]->memo) next++;
    }
    tl_vec_free(&all);
  }
  rs->memo_keys = next - 1;
}

/* The pattern's gate: its first predicate that only tests the text, resolved name or type of one
 * capture, where that capture is a matched one or the child a #field! binds from a matched one.
 * All predicates must hold, and such a one reads nothing the predicates before it set, so
 * tl_file_match tries it before it sets a match up for the pattern: most matches of a shared
 * structure fail there. */
static void tl_rules__pattern_gate(tl_pattern *pt) {
  uint32_t bound[TL_MAX_BOUND];
  const tl_pred *by[TL_MAX_BOUND];
  size_t nb = 0;
  for (size_t i = 0; i < pt->preds.n; i++) {
    const tl_pred *g = &pt->preds.v[i];
    if (tl_pred_is_binding(g)) {
      if (nb == TL_MAX_BOUND) return;
      bound[nb] = g->cap[1];
      by[nb++] = g;
      continue;
    }
    bool test = !g->negated && g->cap[0] != UINT32_MAX && g->cap[1] == UINT32_MAX && g->def->gate != TL_GATE_NONE;
    if (!test) continue;
    /* the latest binding of its capture, if any (a binding may re-point a matched capture) */
    const tl_pred *b = NULL;
    for (size_t k = nb; k-- > 0 && !b;)
      if (bound[k] == g->cap[0]) b = by[k];
    if (b && !(b->def->flags & TL_PF_BIND_FIELD)) continue;
    if (b) { /* its source must be a matched capture: not bound before the #field! */
      bool src_bound = false;
      for (size_t k = 0; k < nb && by[k] != b; k++) src_bound = src_bound || bound[k] == b->cap[0];
      if (src_bound || b->negated) continue;
    }
    pt->gate = g;
    pt->gate_field = b;
    return;
  }
}

/* The texts the gates of each group (a pattern and its members) read: gates that test a text or
 * resolved name against strings or a regex share one verdict cache entry per text (tl_file_match);
 * #type? gates, and positions past TL_GATE_POSITIONS, keep tl_gate_open. */
static void tl_rules__gate_keys(tl_ruleset *rs) {
  uint32_t next = 0;
  for (size_t p = 0; p < rs->patterns.n; p++) {
    tl_pattern *rep = &rs->patterns.v[p];
    if (!rep->members.n) continue;
    for (size_t m = 0; m <= rep->members.n && m < TL_GATE_POSITIONS; m++) {
      tl_pattern *pt = m == 0 ? rep : &rs->patterns.v[rep->members.v[m - 1]];
      const tl_pred *g = pt->gate, *b = pt->gate_field;
      if (!g || g->def->gate == TL_GATE_TYPE) continue;
      tl_gate_key k = {b ? b->cap[0] : g->cap[0], b ? b->field : 0, (g->def->flags & TL_PF_NAME) != 0, 0, 0};
      size_t i = 0;
      while (i < rep->gkeys.n &&
             !(rep->gkeys.v[i].cap == k.cap && rep->gkeys.v[i].field == k.field && rep->gkeys.v[i].name == k.name))
        i++;
      if (i == rep->gkeys.n) {
        if (i == UINT8_MAX) continue;
        k.id = next++;
        tl_vec_push(&rep->gkeys, k);
      }
      rep->gkeys.v[i].mask |= UINT64_C(1) << m;
      pt->gkey = (uint8_t)(i + 1);
    }
  }
}

/* Compiles `qs` into rs->query and rs->patterns. Errors go to diags. */
static bool tl_rules__ruleset_build(tl_ruleset *rs, const tl_rules__qsrc *qs, tl_diags *diags) {
  uint32_t eoff;
  TSQueryError et;
  rs->query = ts_query_new(tree_sitter_python(), qs->src.data, (uint32_t)qs->src.len, &eoff, &et);
  if (!rs->query) {
    bool located = false;
    for (size_t k = 0; k < qs->owners.n; k++)
      located = !tl_rules__rule_check_query(rs->rules.v[qs->owners.v[k]], diags) || located;
    if (!located)
      tl_diags_add(diags, TL_DIAG_ERROR, "<rules>", 0, 0, "the rules' queries do not compile together (offset %u: %s)",
                   eoff, tl_rules__query_error_name(et));
    return false;
  }
  bool ok = true;
  uint32_t np = ts_query_pattern_count(rs->query);
  TL_VEC(uint32_t) at_of = {0};
  for (uint32_t p = 0; p < np; p++) {
    uint32_t at = ts_query_start_byte_for_pattern(rs->query, p);
    tl_vec_push(&at_of, at);
    if (at < qs->decl_end) { /* the declaration of bound captures: never run */
      ts_query_disable_pattern(rs->query, p);
      tl_pattern none = {.rule = UINT32_MAX};
      tl_vec_push(&rs->patterns, none);
      continue;
    }
    size_t k = 0;
    while (k + 1 < qs->starts.n && qs->starts.v[k + 1] <= at) k++;
    tl_rule *r = rs->rules.v[qs->owners.v[k]];
    tl_pattern pat = {.rule = qs->owners.v[k]};
    ok = tl_rules__preds_parse(r, rs->query, p, qs->starts.v[k], &pat, diags) && ok;
    tl_vec_push(&rs->patterns, pat);
  }
  /* holders: disabled, checked with their twin's matches */
  for (size_t i = 0; i < qs->piece_at.n; i++) {
    if (qs->rep.v[i] == UINT32_MAX) continue;
    uint32_t holder = UINT32_MAX, twin = UINT32_MAX;
    for (uint32_t p = 0; p < np; p++) {
      if (at_of.v[p] == qs->piece_at.v[i]) holder = p;
      if (at_of.v[p] == qs->rep.v[i]) twin = p;
    }
    if (holder == UINT32_MAX || twin == UINT32_MAX) {
      ok = false;
      continue;
    }
    ts_query_disable_pattern(rs->query, holder);
    tl_vec_push(&rs->patterns.v[twin].members, holder);
  }
  tl_vec_free(&at_of);
  tl_rules__memo_keys(rs);
  for (size_t p = 0; p < rs->patterns.n; p++) tl_rules__pattern_gate(&rs->patterns.v[p]);
  tl_rules__gate_keys(rs);
  /* numbers for the regexes of #match?/#resolves-match? (one per distinct regex): a worker caches
   * their verdicts on a text together (tl_cached_match) */
  TL_VEC(const char *) rx = {0};
  for (size_t p = 0; p < rs->patterns.n; p++)
    for (size_t i = 0; i < rs->patterns.v[p].preds.n; i++) {
      tl_pred *pr = &rs->patterns.v[p].preds.v[i];
      if (pr->def->gate != TL_GATE_REGEX || !pr->re || !pr->nstrs) continue;
      size_t k = 0;
      while (k < rx.n && strcmp(rx.v[k], pr->strs[0])) k++;
      if (k == rx.n && rx.n < TL_RCACHE_BITS) tl_vec_push(&rx, pr->strs[0]);
      pr->rbit = k < TL_RCACHE_BITS ? (uint8_t)(k + 1) : 0;
    }
  tl_vec_free(&rx);
  /* a rule without any pattern, and fixes naming captures no pattern has */
  for (size_t k = 0; k < qs->owners.n; k++) {
    tl_rule *r = rs->rules.v[qs->owners.v[k]];
    bool any = false;
    for (size_t p = 0; p < rs->patterns.n && !any; p++) any = rs->patterns.v[p].rule == qs->owners.v[k];
    if (!any) {
      tl_diags_add(diags, TL_DIAG_ERROR, r->path, r->query_line, 1, "query has no pattern");
      ok = false;
    }
    for (size_t i = 0; i < r->fix.n; i++) {
      const char *c = r->fix.v[i].capture;
      bool found = !strcmp(c, "focus") || !strcmp(c, "configured");
      for (uint32_t n = 0; n < ts_query_capture_count(rs->query) && !found; n++) {
        uint32_t l;
        const char *nm = ts_query_capture_name_for_id(rs->query, n, &l);
        found = strlen(c) == l && !memcmp(nm, c, l);
      }
      if (!found) {
        tl_diags_add(diags, TL_DIAG_ERROR, r->path, r->query_line, 1, "fix names @%s, which the query does not capture",
                     c);
        ok = false;
      }
    }
  }
  rs->finding_cap = UINT32_MAX;
  for (uint32_t k = 0; k < ts_query_capture_count(rs->query); k++) {
    uint32_t l;
    const char *nm = ts_query_capture_name_for_id(rs->query, k, &l);
    if (l == 7 && !memcmp(nm, "finding", 7)) rs->finding_cap = k;
  }
  return ok;
}

/* What compiling does before the query: the rules sorted by code, the default selection. */
static void tl_rules__prepare(tl_ruleset *rs) {
  tl_rules__ruleset_clear_query(rs);
  rs->deferred = false;
  if (rs->rules.n) qsort(rs->rules.v, rs->rules.n, sizeof *rs->rules.v, tl_rules__rule_cmp);
  if (!rs->selected) tl_ruleset_select(rs, NULL, 0, NULL, 0);
}

bool tl_ruleset_compile_lazy(tl_ruleset *rs) {
  if (rs->user_rules) return tl_ruleset_compile(rs);
  tl_rules__prepare(rs);
  rs->deferred = true;
  return true;
}

static bool tl_rules__compile_query(tl_ruleset *rs);

bool tl_ruleset_ready(const tl_ruleset *crs) {
  tl_ruleset *rs = (tl_ruleset *)crs; /* the one change a shared rule set allows, under its lock */
  pthread_mutex_lock(&rs->lock);
  bool ok = true;
  if (rs->deferred) {
    rs->deferred = false;
    ok = tl_rules__compile_query(rs);
  }
  pthread_mutex_unlock(&rs->lock);
  return ok;
}

bool tl_ruleset_compile(tl_ruleset *rs) {
  tl_rules__prepare(rs);
  return tl_rules__compile_query(rs);
}

/* The query of the enabled rules, and its patterns. */
static bool tl_rules__compile_query(tl_ruleset *rs) {
  /* One query for every enabled rule; each rule's text is a known range of the source, which is
   * how patterns are mapped back to rules. The shared structures are tried first; anything
   * wrong there (a text the splitter does not follow, a bad predicate) is reported from the
   * plain concatenation, where every position is the rule file's own. */
  tl_rules__qsrc qs = {0};
  bool ok = true;
  if (tl_rules__qsrc_build(rs, true, &qs) && qs.owners.n) {
    tl_diags quiet = {0};
    ok = tl_rules__ruleset_build(rs, &qs, &quiet);
    tl_diags_free(&quiet);
    if (ok) {
      tl_rules__qsrc_free(&qs);
      return true;
    }
    tl_rules__ruleset_clear_query(rs);
  }
  tl_rules__qsrc_free(&qs);
  memset(&qs, 0, sizeof qs);
  tl_rules__qsrc_build(rs, false, &qs);
  if (qs.owners.n) ok = tl_rules__ruleset_build(rs, &qs, &rs->diags);
  tl_rules__qsrc_free(&qs);
  return ok;
}

void tl_ruleset_set_severity(tl_ruleset *rs, const char *code, tl_severity severity) {
  size_t n = strlen(code);
  for (size_t i = 0; i < rs->rules.n; i++)
    if (!strncmp(rs->rules.v[i]->code, code, n) || !strcmp(code, "ALL")) rs->rules.v[i]->severity = severity;
}

size_t tl_ruleset_count(const tl_ruleset *rs) { return rs->rules.n; }
size_t tl_ruleset_diag_count(const tl_ruleset *rs) { return rs->diags.n; }
const tl_diag *tl_ruleset_diag(const tl_ruleset *rs, size_t i) { return i < rs->diags.n ? &rs->diags.v[i] : NULL; }
const tl_rule *tl_ruleset_rule(const tl_ruleset *rs, size_t i) { return i < rs->rules.n ? rs->rules.v[i] : NULL; }
const tl_rule *tl_ruleset_find(const tl_ruleset *rs, const char *code) {
  for (size_t i = 0; i < rs->rules.n; i++)
    if (!strcasecmp(rs->rules.v[i]->code, code) || !strcmp(rs->rules.v[i]->name, code)) return rs->rules.v[i];
  return NULL;
}
const char *tl_rule_code(const tl_rule *r) { return r->code; }
const char *tl_rule_name(const tl_rule *r) { return r->name; }
const char *tl_rule_path(const tl_rule *r) { return r->path; }
const char *tl_rule_summary(const tl_rule *r) { return r->message; }
const char *tl_rule_doc(const tl_rule *r) { return r->doc; }
const char *tl_rule_fix_title(const tl_rule *r) { return r->fix_title; }
const char *tl_rule_help(const tl_rule *r) { return r->help; }
tl_severity tl_rule_severity(const tl_rule *r) { return r->severity; }
tl_fix_safety tl_rule_fix_safety(const tl_rule *r) { return r->fix_safety; }
bool tl_rule_enabled(const tl_rule *r) { return r->enabled; }
bool tl_rule_default_enabled(const tl_rule *r) { return r->default_on; }
unsigned tl_rule_hot(const tl_rule *r) { return r->hot; }
const char *tl_rule_check(const tl_rule *r) {
  return r->check == TL_CHECK_UNUSED_SUPPRESSIONS ? "unused-suppressions" : NULL;
}
const char *tl_severity_name(tl_severity s) {
  return s == TL_SEVERITY_ERROR ? "error" : s == TL_SEVERITY_WARNING ? "warning" : "info";
}
