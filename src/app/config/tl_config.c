/* tl_config.c - pyproject.toml [tool.trainlint] tables: TOML parsed by tree-sitter-toml, checked
 * key by key with located errors, and looked up per analysed file. */
#include "tl_config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <tree_sitter/api.h>

#include "tl_source.h"
#include "tl_walk.h"

const TSLanguage *tree_sitter_toml(void);

static bool tl_config__is(TSNode n, const char *t) { return !ts_node_is_null(n) && !strcmp(ts_node_type(n), t); }

/* The decoded value of a TOML string node (basic, literal, multi-line). */
static char *tl_config__toml_string(TSNode n, const char *src) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  const char *p = src + s;
  size_t len = e - s;
  bool literal = p[0] == '\'';
  size_t q = (len >= 6 && (!strncmp(p, "\"\"\"", 3) || !strncmp(p, "'''", 3))) ? 3 : 1;
  if (len < 2 * q) return tl_strdup("");
  p += q;
  len -= 2 * q;
  if (q == 3 && len && p[0] == '\n') p++, len--; /* a newline right after the opening quotes */
  tl_buf b = {0};
  for (size_t i = 0; i < len; i++) {
    if (literal || p[i] != '\\' || i + 1 >= len) {
      tl_buf_putc(&b, p[i]);
      continue;
    }
    char c = p[++i];
    switch (c) {
    case 'n': tl_buf_putc(&b, '\n'); break;
    case 't': tl_buf_putc(&b, '\t'); break;
    case 'r': tl_buf_putc(&b, '\r'); break;
    case '"': tl_buf_putc(&b, '"'); break;
    case '\\': tl_buf_putc(&b, '\\'); break;
    case 'u':
    case 'U': {
      size_t nd = c == 'u' ? 4 : 8;
      unsigned long cp = 0;
      for (size_t k = 0; k < nd && i + 1 < len; k++) {
        char h = p[++i];
        cp = cp * 16 + (unsigned long)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
      }
      char u[4];
      size_t un = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (un == 1) u[0] = (char)cp;
      else if (un == 2) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 63));
      } else if (un == 3) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 63));
        u[2] = (char)(0x80 | (cp & 63));
      } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 63));
        u[2] = (char)(0x80 | ((cp >> 6) & 63));
        u[3] = (char)(0x80 | (cp & 63));
      }
      tl_buf_put(&b, u, un);
      break;
    }
    default: tl_buf_putc(&b, c); break;
    }
  }
  return tl_buf_take(&b);
}

/* A key (bare, quoted or dotted) as a dotted path. */
static void tl_config__toml_key(TSNode n, const char *src, tl_buf *out) {
  if (tl_config__is(n, "dotted_key")) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      if (i) tl_buf_putc(out, '.');
      tl_config__toml_key(ts_node_named_child(n, i), src, out);
    }
  } else if (tl_config__is(n, "quoted_key")) {
    char *s = tl_config__toml_string(n, src);
    tl_buf_puts(out, s);
    free(s);
  } else {
    tl_buf_put(out, src + ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }
}

typedef struct {
  tl_config *c;
  const char *src;
  tl_diags *diags;
  bool ok;
} tl_config__ctx;

static void tl_config__error(tl_config__ctx *x, TSNode n, const char *fmt, const char *arg) {
  TSPoint p = ts_node_start_point(n);
  tl_diags_add(x->diags, TL_DIAG_ERROR, x->c->path, p.row + 1, p.column + 1, fmt, arg);
  x->ok = false;
}

static bool tl_config__strings(tl_config__ctx *x, TSNode v, const char *key, tl_strvec *out) {
  if (!tl_config__is(v, "array")) {
    tl_config__error(x, v, "`%s` must be an array of strings", key);
    return false;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(v); i++) {
    TSNode e = ts_node_named_child(v, i);
    if (tl_config__is(e, "comment")) continue;
    if (!tl_config__is(e, "string")) {
      tl_config__error(x, e, "`%s` must be an array of strings", key);
      return false;
    }
    tl_vec_push(out, tl_config__toml_string(e, x->src));
  }
  return true;
}

static bool tl_config__code_like(const char *s) {
  if (!*s) return false;
  if (!strcmp(s, "ALL")) return true;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) return false;
  return true;
}

void tl_config_code_upper(char *code) {
  for (char *p = code; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
}

/* Records where `code` was written (node n), for tl_config_check_codes. */
static void tl_config__code_at(tl_config__ctx *x, const char *key, const char *code, TSNode n) {
  static const char *const keys[] = {"select", "ignore", "extend-select", "per-file-ignores", "severity"};
  const char *k = "per-file-ignores"; /* `key` may be a temporary: keep the static spelling */
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (!strcmp(key, keys[i])) k = keys[i];
  TSPoint p = ts_node_start_point(n);
  tl_code_at at = {tl_strdup(code), k, p.row + 1, p.column + 1};
  tl_vec_push(&x->c->codes_at, at);
}

static void tl_config__codes(tl_config__ctx *x, TSNode v, const char *key, tl_strvec *out) {
  size_t first = out->n;
  if (!tl_config__strings(x, v, key, out)) return;
  size_t i = first;
  for (uint32_t k = 0; k < ts_node_named_child_count(v) && i < out->n; k++) {
    TSNode e = ts_node_named_child(v, k);
    if (tl_config__is(e, "comment")) continue;
    tl_config_code_upper(out->v[i]);
    if (!tl_config__code_like(out->v[i])) {
      tl_config__error(x, e, "`%s`: not a rule code or prefix", out->v[i]);
      return;
    }
    tl_config__code_at(x, key, out->v[i], e);
    i++;
  }
}

/* One key = value of [tool.trainlint] (key relative to the table). */
static void tl_config__pair(tl_config__ctx *x, const char *key, TSNode keynode, TSNode v) {
  tl_config *c = x->c;
  if (!strcmp(key, "select")) {
    c->has_select = true;
    tl_config__codes(x, v, key, &c->select);
  } else if (!strcmp(key, "ignore")) tl_config__codes(x, v, key, &c->ignore);
  else if (!strcmp(key, "extend-select")) tl_config__codes(x, v, key, &c->extend_select);
  else if (!strcmp(key, "exclude")) tl_config__strings(x, v, key, &c->exclude);
  else if (!strcmp(key, "extend-exclude")) tl_config__strings(x, v, key, &c->extend_exclude);
  else if (!strcmp(key, "hot-functions")) tl_config__strings(x, v, key, &c->hot_functions);
  else if (!strcmp(key, "step-loop-iterables")) tl_config__strings(x, v, key, &c->step_iterables);
  else if (!strcmp(key, "frameworks")) {
    size_t first = c->frameworks.n;
    if (tl_config__strings(x, v, key, &c->frameworks))
      for (size_t i = first; i < c->frameworks.n; i++)
        if (strcmp(c->frameworks.v[i], "torch") && strcmp(c->frameworks.v[i], "paddle"))
          tl_config__error(x, v, "`frameworks`: unknown framework '%s' (torch, paddle)", c->frameworks.v[i]);
  } else if (!strncmp(key, "per-file-ignores.", 17)) {
    tl_per_file_ignore p = {tl_strdup(key + 17), {0}};
    tl_config__codes(x, v, "per-file-ignores", &p.codes);
    tl_vec_push(&c->per_file_ignores, p);
  } else if (!strncmp(key, "severity.", 9)) {
    char *s = tl_config__is(v, "string") ? tl_config__toml_string(v, x->src) : NULL;
    tl_severity sev = TL_SEVERITY_WARNING;
    if (!s || (strcmp(s, "error") && strcmp(s, "warning") && strcmp(s, "info"))) {
      tl_config__error(x, v, "`%s` must be \"error\", \"warning\" or \"info\"", key);
    } else {
      sev = !strcmp(s, "error") ? TL_SEVERITY_ERROR : !strcmp(s, "info") ? TL_SEVERITY_INFO : TL_SEVERITY_WARNING;
      tl_severity_override o = {tl_strdup(key + 9), sev};
      tl_config_code_upper(o.code);
      tl_config__code_at(x, "severity", o.code, keynode);
      tl_vec_push(&c->severity, o);
    }
    free(s);
  } else if (!strcmp(key, "per-file-ignores") || !strcmp(key, "severity")) {
    /* an inline table: per-file-ignores = { "tests/..." = ["TL101"] } */
    if (!tl_config__is(v, "inline_table")) {
      tl_config__error(x, v, "`%s` must be a table", key);
      return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(v); i++) {
      TSNode pair = ts_node_named_child(v, i);
      if (!tl_config__is(pair, "pair")) continue;
      tl_buf k = {0};
      tl_buf_printf(&k, "%s.", key);
      tl_config__toml_key(ts_node_named_child(pair, 0), x->src, &k);
      tl_config__pair(x, k.data, ts_node_named_child(pair, 0), ts_node_named_child(pair, 1));
      tl_buf_free(&k);
    }
  } else {
    tl_config__error(x, keynode, "unknown key `%s` in [tool.trainlint]", key);
  }
}

/* What TOML forbids defining twice (toml.io, "Table"): a table header, a key, and a table header
 * for a table that dotted keys already defined. One name of each kind, with its line. */
typedef struct {
  tl_strvec names;
  TL_VEC(uint32_t) lines;
} tl_config__defs;

static uint32_t tl_config__defined(const tl_config__defs *d, const char *name) {
  for (size_t i = 0; i < d->names.n; i++)
    if (!strcmp(d->names.v[i], name)) return d->lines.v[i];
  return 0;
}

static void tl_config__define(tl_config__defs *d, const char *name, uint32_t line) {
  tl_vec_push(&d->names, tl_strdup(name));
  tl_vec_push(&d->lines, line);
}

/* The pairs of one table (prefix: its name, "" for the top): the settings under tool.trainlint, a
 * key defined twice (an error), and the tables their dotted keys define. */
static void tl_config__pairs(tl_config__ctx *x, TSNode parent, const char *prefix, bool *found, tl_config__defs *keys,
                             tl_config__defs *dotted) {
  for (uint32_t i = 0; i < ts_node_named_child_count(parent); i++) {
    TSNode pair = ts_node_named_child(parent, i);
    if (!tl_config__is(pair, "pair")) continue;
    TSNode keynode = ts_node_named_child(pair, 0);
    tl_buf k = {0};
    if (*prefix) tl_buf_printf(&k, "%s.", prefix);
    size_t base = k.len;
    tl_config__toml_key(keynode, x->src, &k);
    uint32_t line = ts_node_start_point(pair).row + 1, first = tl_config__defined(keys, k.data);
    if (first) {
      char *msg = tl_printf("`%s` is defined twice (first on line %u): TOML allows one definition", k.data, first);
      tl_config__error(x, keynode, "%s", msg);
      free(msg);
    } else {
      tl_config__define(keys, k.data, line);
    }
    /* `a.b.c = 1` inside [t] defines the tables t.a and t.a.b */
    for (size_t j = base; j < k.len; j++)
      if (k.data[j] == '.' && tl_config__is(keynode, "dotted_key")) {
        k.data[j] = 0;
        if (!tl_config__defined(dotted, k.data)) tl_config__define(dotted, k.data, line);
        k.data[j] = '.';
      }
    TSNode value = ts_node_named_child(pair, 1);
    if (!strncmp(k.data, "tool.trainlint.", 15)) {
      *found = true;
      tl_config__pair(x, k.data + 15, keynode, value);
    } else if ((!strcmp(k.data, "tool") || !strcmp(k.data, "tool.trainlint")) && tl_config__is(value, "inline_table")) {
      /* `trainlint = { select = [...] }` in [tool], or `tool = { trainlint = {...} }`: the same table */
      if (!strcmp(k.data, "tool.trainlint")) *found = true;
      tl_config__pairs(x, value, k.data, found, keys, dotted);
    } else if (!strcmp(k.data, "tool.trainlint")) {
      tl_config__error(x, value, "`%s` must be a table", "tool.trainlint");
    }
    tl_buf_free(&k);
  }
}

tl_config *tl_config_load(const char *path, bool *found, tl_diags *diags) {
  *found = false;
  tl_source src;
  size_t off;
  char *msg = NULL;
  if (tl_source_read(path, &src, &off, &msg) != TL_SOURCE_OK) {
    tl_diags_add(diags, TL_DIAG_ERROR, path, 0, 0, "cannot read configuration: %s", msg ? msg : "");
    free(msg);
    return NULL;
  }
  tl_config *c = tl_calloc(1, sizeof *c);
  c->path = tl_strdup(path);
  const char *slash = strrchr(path, '/');
  c->dir = slash ? tl_strndup(path, (size_t)(slash - path)) : tl_strdup(".");
  if (slash == path) {
    free(c->dir);
    c->dir = tl_strdup("/");
  }
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_toml());
  TSTree *tree = ts_parser_parse_string(parser, NULL, src.text, (uint32_t)src.len);
  tl_config__ctx x = {c, src.text, diags, true};
  TSNode root = tree ? ts_tree_root_node(tree) : (TSNode){0};
  if (!tree || ts_node_has_error(root)) {
    /* the first error node */
    TSNode n = root;
    for (int depth = 0; !ts_node_is_null(n) && depth < 256; depth++) {
      if (tl_config__is(n, "ERROR") || ts_node_is_missing(n)) break;
      TSNode next = {0};
      for (uint32_t i = 0; i < ts_node_child_count(n); i++)
        if (ts_node_has_error(ts_node_child(n, i))) {
          next = ts_node_child(n, i);
          break;
        }
      if (ts_node_is_null(next)) break;
      n = next;
    }
    if (ts_node_is_null(n)) tl_diags_add(diags, TL_DIAG_ERROR, path, 1, 1, "invalid TOML");
    else tl_config__error(&x, n, "invalid TOML%s", ts_node_is_missing(n) ? " (something is missing here)" : "");
    x.ok = false;
  } else {
    tl_config__defs keys = {0}, headers = {0}, dotted = {0};
    tl_config__pairs(&x, root, "", found, &keys, &dotted);
    for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
      TSNode t = ts_node_named_child(root, i);
      bool array = tl_config__is(t, "table_array_element");
      if (!tl_config__is(t, "table") && !array) continue;
      tl_buf k = {0};
      TSNode name = ts_node_named_child(t, 0);
      tl_config__toml_key(name, src.text, &k);
      bool ours = !strcmp(k.data, "tool.trainlint") || !strncmp(k.data, "tool.trainlint.", 15);
      if (array) { /* [[...]]: another tool's arrays of tables are its own; ours are said, not ignored */
        if (ours) {
          *found = true;
          char *why = tl_printf("`[[%s]]` is an array of tables: trainlint's settings are one table, `[%s]`", k.data,
                                k.data);
          tl_config__error(&x, name, "%s", why);
          free(why);
        }
        tl_buf_free(&k);
        continue;
      }
      if (ours && k.data[14] == '.') {
        /* a sub-table of [tool.trainlint]: per-file-ignores and severity are the only ones */
        const char *sub = k.data + 15;
        size_t n = strcspn(sub, ".");
        bool known = (n == 16 && !strncmp(sub, "per-file-ignores", 16)) || (n == 8 && !strncmp(sub, "severity", 8));
        if (!known) {
          *found = true;
          tl_config__error(&x, name, "unknown table `[%s]` (tool.trainlint has per-file-ignores and severity)", k.data);
          tl_buf_free(&k);
          continue;
        }
      }
      uint32_t line = ts_node_start_point(t).row + 1, first;
      if ((first = tl_config__defined(&headers, k.data)) || (first = tl_config__defined(&keys, k.data))) {
        char *why = tl_printf("`[%s]` is defined twice (first on line %u): TOML allows one definition", k.data, first);
        tl_config__error(&x, name, "%s", why);
        free(why);
      } else if ((first = tl_config__defined(&dotted, k.data))) {
        char *why = tl_printf("`[%s]` redefines the table that dotted keys on line %u defined: TOML does not allow it",
                              k.data, first);
        tl_config__error(&x, name, "%s", why);
        free(why);
      }
      tl_config__define(&headers, k.data, line);
      if (!strcmp(k.data, "tool.trainlint")) *found = true;
      tl_config__pairs(&x, t, k.data, found, &keys, &dotted);
      tl_buf_free(&k);
    }
    tl_config__defs *all[] = {&keys, &headers, &dotted};
    for (size_t d = 0; d < 3; d++) {
      tl_strvec_free(&all[d]->names);
      tl_vec_free(&all[d]->lines);
    }
  }
  if (tree) ts_tree_delete(tree);
  ts_parser_delete(parser);
  tl_source_free(&src);
  if (!x.ok) {
    tl_config_delete(c);
    return NULL;
  }
  return c;
}

void tl_config_delete(tl_config *c) {
  if (!c) return;
  free(c->path);
  free(c->dir);
  tl_strvec *all[] = {&c->select,         &c->ignore,        &c->extend_select,  &c->exclude,
                      &c->extend_exclude, &c->hot_functions, &c->step_iterables, &c->frameworks};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) tl_strvec_free(all[i]);
  for (size_t i = 0; i < c->per_file_ignores.n; i++) {
    free(c->per_file_ignores.v[i].glob);
    tl_strvec_free(&c->per_file_ignores.v[i].codes);
  }
  tl_vec_free(&c->per_file_ignores);
  for (size_t i = 0; i < c->severity.n; i++) free(c->severity.v[i].code);
  tl_vec_free(&c->severity);
  for (size_t i = 0; i < c->codes_at.n; i++) free(c->codes_at.v[i].code);
  tl_vec_free(&c->codes_at);
  free(c);
}

/* The configuration governing directory `dir` (absolute). */
static tl_config *tl_config__dir(tl_config_cache *cache, const char *dir, tl_diags *diags, bool *failed, int depth) {
  for (size_t i = 0; i < cache->dirs.n; i++)
    if (!strcmp(cache->dirs.v[i], dir)) return cache->configs.v[i];
  tl_config *found_cfg = NULL;
  char *py = tl_printf("%s/pyproject.toml", strcmp(dir, "/") ? dir : "");
  struct stat st;
  bool here = false;
  bool exists = stat(py, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    /* a FIFO would block, a device (a link to /dev/zero) never ends: never read, but said */
    tl_diags_add(diags, TL_DIAG_WARNING, py, 0, 0, "not a regular file (%s): not read as configuration",
                 S_ISDIR(st.st_mode)    ? "a directory"
                 : S_ISFIFO(st.st_mode) ? "a FIFO"
                 : S_ISCHR(st.st_mode)  ? "a character device"
                 : S_ISBLK(st.st_mode)  ? "a block device"
                 : S_ISSOCK(st.st_mode) ? "a socket"
                                        : "not a file");
  } else if (exists) {
    bool found = false;
    tl_config *c = tl_config_load(py, &found, diags);
    if (!c) *failed = true;
    else if (found) {
      found_cfg = c;
      tl_vec_push(&cache->owned, c);
      here = true;
    } else tl_config_delete(c);
    if (!c) here = true; /* a broken file stops the search: it was meant to configure this tree */
  }
  free(py);
  if (!here && strcmp(dir, "/") && depth < 64) {
    char *parent = tl_strdup(dir);
    char *slash = strrchr(parent, '/');
    if (slash == parent) parent[1] = 0;
    else if (slash) *slash = 0;
    found_cfg = tl_config__dir(cache, parent, diags, failed, depth + 1);
    free(parent);
  }
  tl_vec_push(&cache->dirs, tl_strdup(dir));
  tl_vec_push(&cache->configs, found_cfg);
  return found_cfg;
}

bool tl_config_for(tl_config_cache *cache, const char *file, tl_config **config, tl_diags *diags) {
  char *copy = tl_strdup(file);
  char *slash = strrchr(copy, '/');
  struct stat st;
  if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) { /* a directory names itself */
  } else if (slash) *slash = 0;
  else strcpy(copy, ".");
  char abs[PATH_MAX];
  bool failed = false;
  *config = realpath(copy, abs) ? tl_config__dir(cache, abs, diags, &failed, 0) : NULL;
  free(copy);
  return !failed;
}

void tl_config_cache_free(tl_config_cache *cache) {
  tl_strvec_free(&cache->dirs);
  tl_vec_free(&cache->configs);
  for (size_t i = 0; i < cache->owned.n; i++) tl_config_delete(cache->owned.v[i]);
  tl_vec_free(&cache->owned);
}

static bool tl_config__code_in(const char *code, const tl_strvec *list, bool default_on) {
  for (size_t i = 0; i < list->n; i++) {
    const char *s = list->v[i];
    size_t n = strlen(s);
    if (!strcmp(s, "ALL") || (!strncmp(code, s, n) && (code[n] == 0 || default_on))) return true;
  }
  return false;
}

/* `file` relative to the configuration's directory, for per-file-ignores. */
static char *tl_config__rel_to(const char *file, const char *dir) {
  char abs[PATH_MAX], absdir[PATH_MAX];
  if (!realpath(file, abs) || !realpath(dir, absdir)) return tl_strdup(file);
  size_t n = strlen(absdir);
  if (!strncmp(abs, absdir, n) && abs[n] == '/') return tl_strdup(abs + n + 1);
  return tl_strdup(abs);
}

bool tl_config_code_known(const tl_ruleset *rs, const char *code) {
  if (!strcmp(code, "ALL")) return true;
  size_t n = strlen(code);
  for (size_t r = 0; r < tl_ruleset_count(rs); r++)
    if (!strncmp(tl_rule_code(tl_ruleset_rule(rs, r)), code, n)) return true;
  return false;
}

bool tl_config_check_codes(const tl_config *c, const tl_ruleset *rs, tl_diags *diags) {
  bool ok = true;
  for (size_t i = 0; c && i < c->codes_at.n; i++) {
    const tl_code_at *a = &c->codes_at.v[i];
    if (tl_config_code_known(rs, a->code)) continue;
    tl_diags_add(diags, TL_DIAG_ERROR, c->path, a->line, a->col,
                 "`%s`: no rule has the code or prefix '%s' (`trainlint rules` lists them)", a->key, a->code);
    ok = false;
  }
  return ok;
}

bool tl_config_enabled(const tl_config *c, const tl_rule *rule, const char *file, const tl_selection *cli) {
  static const tl_selection none = {{0}, {0}, {0}};
  if (!cli) cli = &none;
  const char *code = tl_rule_code(rule);
  bool def = tl_rule_default_enabled(rule);
  bool on;
  size_t ncli_select = cli->select.n;
  if (ncli_select) on = tl_config__code_in(code, &cli->select, def);
  else if (c && c->has_select) on = tl_config__code_in(code, &c->select, def);
  else on = def;
  /* an explicit --select is the user's choice for this run: the file's select and ignore yield */
  if (!ncli_select && c && tl_config__code_in(code, &c->extend_select, def)) on = true;
  if (tl_config__code_in(code, &cli->extend_select, def)) on = true;
  if (!ncli_select && c && tl_config__code_in(code, &c->ignore, true)) on = false;
  if (tl_config__code_in(code, &cli->ignore, true)) on = false;
  if (on && c && c->per_file_ignores.n) {
    char *rel = tl_config__rel_to(file, c->dir);
    for (size_t i = 0; i < c->per_file_ignores.n && on; i++)
      if (tl_glob_path_match(c->per_file_ignores.v[i].glob, rel) &&
          tl_config__code_in(code, &c->per_file_ignores.v[i].codes, true))
        on = false;
    free(rel);
  }
  return on;
}

void tl_config_select_wanted(tl_ruleset *rs, tl_config *const *configs, size_t n, const tl_selection *cli) {
  TL_VEC(tl_config *) distinct = {0};
  for (size_t i = 0; i < n; i++) {
    bool have = false;
    for (size_t k = 0; k < distinct.n && !have; k++) have = distinct.v[k] == configs[i];
    if (!have) tl_vec_push(&distinct, configs[i]);
  }
  TL_VEC(const char *) wanted = {0};
  for (size_t r = 0; r < tl_ruleset_count(rs); r++) {
    const tl_rule *rule = tl_ruleset_rule(rs, r);
    bool want = false;
    for (size_t k = 0; k < distinct.n && !want; k++) want = tl_config_enabled(distinct.v[k], rule, "", cli);
    if (want) tl_vec_push(&wanted, tl_rule_code(rule));
  }
  const char *all[] = {"ALL"};
  if (wanted.n) tl_ruleset_select(rs, wanted.v, wanted.n, NULL, 0);
  else tl_ruleset_select(rs, NULL, 0, all, 1); /* nothing at all */
  tl_vec_free(&wanted);
  tl_vec_free(&distinct);
}
