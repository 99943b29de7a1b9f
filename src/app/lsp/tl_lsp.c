/* tl_lsp.c - `trainlint server`: the LSP lifecycle, message loop with debouncing, documents and workspace. */
#include "tl_lsp_internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tl_source.h"
#include "tl_notebook.h"
#include "tl_walk.h"

#define TL_LSP_DEBOUNCE_MS 3     /* quiet time on stdin before analysing after a change */
#define TL_LSP_MAX_DELAY_MS 150  /* analyse at the latest this long after a change, even while input keeps coming */
#define TL_LSP_MAX_STALE_MS 1000 /* a change cancels no analysis of changes older than this: results keep coming */

/* JSON-RPC and LSP error codes */
enum {
  TL_RPC_PARSE_ERROR = -32700,
  TL_RPC_INVALID_REQUEST = -32600,
  TL_RPC_METHOD_NOT_FOUND = -32601,
  TL_RPC_INVALID_PARAMS = -32602,
  TL_RPC_SERVER_NOT_INITIALIZED = -32002,
  TL_RPC_REQUEST_CANCELLED = -32800,
};

static double tl_lsp__now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- JSON helpers ---- */

const cJSON *tl_lsp_jpath(const cJSON *o, const char *path) {
  char key[128];
  while (o && *path) {
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    if (n >= sizeof key || !cJSON_IsObject(o)) return NULL;
    memcpy(key, path, n);
    key[n] = 0;
    o = cJSON_GetObjectItemCaseSensitive(o, key);
    path += n + (dot ? 1 : 0);
  }
  return o;
}

const char *tl_lsp_jstr(const cJSON *o, const char *key) {
  const cJSON *v = tl_lsp_jpath(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool tl_lsp_jbool(const cJSON *o, const char *path) { return cJSON_IsTrue(tl_lsp_jpath(o, path)); }

/* ---- output ---- */

void tl_lsp_log(tl_lsp *s, const char *fmt, ...) {
  if (s->o.log_fd < 0) return;
  tl_buf b = {0};
  tl_buf_puts(&b, "trainlint server: ");
  va_list ap;
  va_start(ap, fmt);
  tl_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  tl_buf_putc(&b, '\n');
  ssize_t w = write(s->o.log_fd, b.data, b.len);
  (void)w;
  tl_buf_free(&b);
}

static void tl_lsp__send_text(tl_lsp *s, const char *body, size_t len) {
  if (s->exit_now) return;
  if (s->o.write) {
    s->o.write(s->o.write_ctx, body, len);
    return;
  }
  if (!tl_lsp_write_frame(s->o.out_fd, body, len)) {
    tl_lsp_log(s, "cannot write to the client (%s): stopping", strerror(errno));
    s->exit_now = true;
    s->exit_code = 1;
  }
}

void tl_lsp_send(tl_lsp *s, cJSON *msg) {
  cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
  char *body = cJSON_PrintUnformatted(msg);
  if (body) tl_lsp__send_text(s, body, strlen(body));
  free(body);
  cJSON_Delete(msg);
}

void tl_lsp_send_raw(tl_lsp *s, const char *body, size_t len) { tl_lsp__send_text(s, body, len); }

void tl_lsp_reply(tl_lsp *s, const cJSON *id, cJSON *result) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
  cJSON_AddItemToObject(m, "result", result ? result : cJSON_CreateNull());
  tl_lsp_send(s, m);
}

void tl_lsp_reply_error(tl_lsp *s, const cJSON *id, int code, const char *message) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
  cJSON *e = cJSON_AddObjectToObject(m, "error");
  cJSON_AddNumberToObject(e, "code", code);
  cJSON_AddStringToObject(e, "message", message);
  tl_lsp_send(s, m);
}

void tl_lsp_notify(tl_lsp *s, const char *method, cJSON *params) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "method", method);
  cJSON_AddItemToObject(m, "params", params);
  tl_lsp_send(s, m);
}

static void tl_lsp__request(tl_lsp *s, const char *method, cJSON *params) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddNumberToObject(m, "id", (double)++s->next_request_id);
  cJSON_AddStringToObject(m, "method", method);
  cJSON_AddItemToObject(m, "params", params ? params : cJSON_CreateNull());
  tl_lsp_send(s, m);
}

void tl_lsp_request_refresh(tl_lsp *s) { tl_lsp__request(s, "workspace/diagnostic/refresh", NULL); }

/* window/showMessage (1 error, 2 warning, 3 info) and the log. */
static void tl_lsp__show(tl_lsp *s, int type, const char *text) {
  tl_lsp_log(s, "%s", text);
  cJSON *p = cJSON_CreateObject();
  cJSON_AddNumberToObject(p, "type", type);
  cJSON_AddStringToObject(p, "message", text);
  tl_lsp_notify(s, "window/showMessage", p);
}

/* ---- files ---- */

static bool tl_lsp__is_python_path(const char *p) {
  size_t n = p ? strlen(p) : 0;
  return (n > 3 && !strcmp(p + n - 3, ".py")) || (n > 4 && !strcmp(p + n - 4, ".pyi"));
}

static tl_lsp_file *tl_lsp__lookup(tl_lsp *s, const tl_map *m, const char *key) {
  intptr_t v;
  return key && tl_map_get(m, key, &v) && v > 0 ? s->files.v[v - 1] : NULL;
}

tl_lsp_file *tl_lsp_file_by_uri(tl_lsp *s, const char *uri) {
  tl_lsp_file *f = tl_lsp__lookup(s, &s->by_uri, uri);
  if (f) return f;
  char *abs = tl_lsp_uri_to_path(uri);
  f = tl_lsp__lookup(s, &s->by_abs, abs);
  free(abs);
  return f;
}

/* The analysis path of a file: relative to the innermost workspace folder holding it (so module
 * names are those the project imports), else absolute; unique among the known files. */
static char *tl_lsp__label_for(tl_lsp *s, const char *abs) {
  const char *best = NULL;
  size_t bl = 0;
  for (size_t i = 0; i < s->roots.n; i++) {
    const char *r = s->roots.v[i];
    size_t n = strlen(r);
    if (n > bl && !strncmp(abs, r, n) && abs[n] == '/' && abs[n + 1]) {
      best = abs + n + 1;
      bl = n;
    }
  }
  if (best && !tl_lsp__lookup(s, &s->by_label, best)) return tl_strdup(best);
  return tl_strdup(abs);
}

tl_lsp_file *tl_lsp_file_get(tl_lsp *s, const char *uri, const char *abs_in) {
  tl_lsp_file *f = uri ? tl_lsp__lookup(s, &s->by_uri, uri) : NULL;
  if (f) return f;
  char *abs = abs_in ? tl_strdup(abs_in) : tl_lsp_uri_to_path(uri);
  f = tl_lsp__lookup(s, &s->by_abs, abs);
  if (!f) {
    f = tl_calloc(1, sizeof *f);
    f->aidx = -1;
    f->abs = abs;
    abs = NULL;
    f->label = f->abs ? tl_lsp__label_for(s, f->abs) : tl_strdup(uri);
    f->uri = uri ? tl_strdup(uri) : tl_lsp_path_to_uri(f->abs);
    tl_vec_push(&s->files, f);
    intptr_t idx = (intptr_t)s->files.n;
    tl_map_set(&s->by_label, f->label, idx);
    tl_map_set(&s->by_uri, f->uri, idx);
    if (f->abs) tl_map_set(&s->by_abs, f->abs, idx);
  } else if (uri && strcmp(uri, f->uri)) {
    /* the client spells the URI differently from ours: answer in its spelling */
    intptr_t idx;
    tl_map_get(&s->by_abs, f->abs, &idx);
    free(f->uri);
    f->uri = tl_strdup(uri);
    tl_map_set(&s->by_uri, f->uri, idx);
  }
  free(abs);
  return f;
}

static void tl_lsp__mark_dirty(tl_lsp *s) {
  if (!s->dirty) s->dirty_since = tl_lsp__now();
  s->dirty = true;
}

void tl_lsp_sync_file(tl_lsp *s, tl_lsp_file *f) {
  if (!s->a) return; /* before initialize made the analysis: synced when it is made */
  if (f->open) {
    tl_analysis_set_text(s->a, f->label, f->doc.text, f->doc.len);
    f->present = true;
  } else if (f->on_disk && f->abs) {
    tl_source src;
    size_t off = 0;
    char *msg = NULL;
    if (tl_source_read(f->abs, &src, &off, &msg) == TL_SOURCE_OK) {
      tl_analysis_set_text(s->a, f->label, src.text, src.len);
      tl_source_free(&src);
      f->present = true;
    } else {
      tl_lsp_log(s, "%s: %s: not analysed", f->abs, msg ? msg : "cannot read");
      if (f->present) tl_analysis_remove(s->a, f->label);
      f->present = false;
    }
    free(msg);
  } else if (f->present) {
    tl_analysis_remove(s->a, f->label);
    f->present = false;
  }
  tl_lsp__mark_dirty(s);
}

/* The Python files of a workspace folder, without those the configuration excludes. */
static void tl_lsp__walk_root(tl_lsp *s, const char *r, tl_strvec *paths) {
  tl_diags d = {0};
  const char *arg[] = {r};
  TL_VEC(const char *) ex = {0};
  for (size_t k = 0; s->primary && k < s->primary->exclude.n; k++) tl_vec_push(&ex, s->primary->exclude.v[k]);
  for (size_t k = 0; s->primary && k < s->primary->extend_exclude.n; k++)
    tl_vec_push(&ex, s->primary->extend_exclude.v[k]);
  tl_walk(arg, 1, ex.v, ex.n, paths, &d);
  tl_vec_free(&ex);
  /* notebooks on disk are left out: the server analyses the notebooks the client opens, as
   * notebook documents whose cells it can publish to (tl_lsp_notebook.c) */
  size_t kept = 0;
  for (size_t i = 0; i < paths->n; i++) {
    if (tl_notebook_path(paths->v[i])) free(paths->v[i]);
    else paths->v[kept++] = paths->v[i];
  }
  paths->n = kept;
  for (size_t i = 0; i < d.n; i++) tl_lsp_log(s, "%s: %s", d.v[i].path ? d.v[i].path : r, d.v[i].message);
  tl_diags_free(&d);
}

static void tl_lsp__add_root(tl_lsp *s, const char *root) {
  char *r = tl_strdup(root);
  size_t n = strlen(r);
  while (n > 1 && r[n - 1] == '/') r[--n] = 0;
  for (size_t i = 0; i < s->roots.n; i++)
    if (!strcmp(s->roots.v[i], r)) {
      free(r);
      return;
    }
  tl_vec_push(&s->roots, r);
  tl_strvec paths = {0};
  tl_lsp__walk_root(s, r, &paths);
  size_t added = 0;
  for (size_t i = 0; i < paths.n; i++) {
    tl_lsp_file *f = tl_lsp_file_get(s, NULL, paths.v[i]);
    if (f->on_disk) continue;
    f->on_disk = true;
    if (!f->open) {
      tl_lsp_sync_file(s, f);
      added += f->present;
    }
  }
  tl_lsp_log(s, "workspace folder %s: %zu Python files", r, paths.n);
  (void)added;
  tl_strvec_free(&paths);
}

static void tl_lsp__remove_root(tl_lsp *s, const char *root) {
  size_t n = strlen(root);
  while (n > 1 && root[n - 1] == '/') n--;
  for (size_t i = 0; i < s->roots.n; i++) {
    if (strlen(s->roots.v[i]) != n || strncmp(s->roots.v[i], root, n)) continue;
    free(s->roots.v[i]);
    s->roots.v[i] = s->roots.v[--s->roots.n];
    break;
  }
  for (size_t i = 0; i < s->files.n; i++) {
    tl_lsp_file *f = s->files.v[i];
    if (!f->abs || strncmp(f->abs, root, n) || f->abs[n] != '/') continue;
    f->on_disk = false;
    if (!f->open) tl_lsp_sync_file(s, f);
  }
}

/* ---- rules and settings ---- */

static bool tl_lsp__strs_eq(const tl_strvec *a, const tl_strvec *b) {
  if (a->n != b->n) return false;
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->v[i], b->v[i])) return false;
  return true;
}

/* A list setting: an array of strings or one string of comma/space separated items. */
static void tl_lsp__strs_from_json(tl_strvec *out, const cJSON *v, bool split) {
  const cJSON *it;
  if (cJSON_IsArray(v)) {
    cJSON_ArrayForEach(it, v) if (cJSON_IsString(it) && *it->valuestring) tl_vec_push(out, tl_strdup(it->valuestring));
  } else if (cJSON_IsString(v)) {
    if (!split) {
      if (*v->valuestring) tl_vec_push(out, tl_strdup(v->valuestring));
      return;
    }
    char *copy = tl_strdup(v->valuestring), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) tl_vec_push(out, tl_strdup(t));
    free(copy);
  }
}

/* A setting under `trainlint.<key>`, `{"trainlint": {<key>}}` or `<key>` at the top. */
static const cJSON *tl_lsp__setting(const cJSON *o, const char *key, bool *found) {
  char dotted[64];
  snprintf(dotted, sizeof dotted, "trainlint.%s", key);
  const cJSON *v = NULL;
  if (cJSON_IsObject(o)) {
    const cJSON *inner = cJSON_GetObjectItemCaseSensitive(o, "trainlint");
    if (cJSON_IsObject(inner)) v = cJSON_GetObjectItemCaseSensitive(inner, key);
    if (!v) v = cJSON_GetObjectItemCaseSensitive(o, dotted);
    if (!v) v = cJSON_GetObjectItemCaseSensitive(o, key);
  }
  *found = v != NULL;
  return v;
}

/* Reads the settings in `o`; returns true when the rule selection changed. */
static bool tl_lsp__read_settings(tl_lsp *s, const cJSON *o) {
  bool found, changed = false;
  const char *keys[] = {"select", "ignore", "rules"};
  tl_strvec *dst[] = {&s->select, &s->ignore, &s->rule_dirs};
  for (int k = 0; k < 3; k++) {
    const cJSON *v = tl_lsp__setting(o, keys[k], &found);
    if (!found) continue;
    tl_strvec nv = {0};
    tl_lsp__strs_from_json(&nv, v, k < 2);
    if (!tl_lsp__strs_eq(&nv, dst[k])) {
      changed = true;
      tl_strvec_free(dst[k]);
      *dst[k] = nv;
    } else {
      tl_strvec_free(&nv);
    }
  }
  const cJSON *v = tl_lsp__setting(o, "docsBaseUrl", &found);
  if (found) {
    free(s->docs_base);
    s->docs_base = cJSON_IsString(v) && *v->valuestring ? tl_strdup(v->valuestring) : NULL;
  }
  v = tl_lsp__setting(o, "debounceMs", &found);
  if (found && cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 10000)
    s->o.debounce_ms = (int)v->valuedouble;
  return changed;
}

/* ---- pyproject.toml ---- */

tl_config *tl_lsp_file_config(tl_lsp *s, tl_lsp_file *f) {
  if (!f->cfg_known) {
    f->cfg = NULL;
    if (f->abs) tl_config_for(&s->cfg, f->abs, &f->cfg, &s->cfg_diags);
    f->cfg_known = true;
  }
  return f->cfg;
}

/* Forgets the loaded configurations and loads the first workspace folder's (the primary one). */
static void tl_lsp__config_load(tl_lsp *s) {
  tl_config_cache_free(&s->cfg);
  memset(&s->cfg, 0, sizeof s->cfg);
  tl_diags_free(&s->cfg_diags);
  for (size_t i = 0; i < s->files.n; i++) s->files.v[i]->cfg_known = false;
  s->primary = NULL;
  if (s->roots.n) tl_config_for(&s->cfg, s->roots.v[0], &s->primary, &s->cfg_diags);
}

/* Configuration errors as diagnostics on their pyproject.toml (positions from the TOML parser);
 * a file that had errors and has none now gets an empty list. */
static void tl_lsp__publish_config_errors(tl_lsp *s) {
  for (size_t i = 0; i < s->files.n; i++) tl_lsp_file_config(s, s->files.v[i]); /* load them all */
  tl_strvec now = {0};
  for (size_t i = 0; i < s->cfg_diags.n; i++) {
    const char *path = s->cfg_diags.v[i].path;
    if (!path || !*path) continue;
    bool seen = false;
    for (size_t k = 0; k < now.n && !seen; k++) seen = !strcmp(now.v[k], path);
    if (seen) continue;
    tl_vec_push(&now, tl_strdup(path));
    tl_lsp_text t = {0};
    tl_source src;
    size_t off = 0;
    char *msg = NULL;
    if (tl_source_read(path, &src, &off, &msg) == TL_SOURCE_OK) {
      tl_lsp_text_set(&t, src.text, src.len);
      tl_source_free(&src);
    } else {
      tl_lsp_text_set(&t, "", 0);
    }
    free(msg);
    cJSON *p = cJSON_CreateObject();
    char *uri = tl_lsp_path_to_uri(path);
    cJSON_AddStringToObject(p, "uri", uri);
    free(uri);
    cJSON *arr = cJSON_AddArrayToObject(p, "diagnostics");
    for (size_t j = 0; j < s->cfg_diags.n; j++) {
      const tl_diag *dg = &s->cfg_diags.v[j];
      if (!dg->path || strcmp(dg->path, path)) continue;
      uint32_t a = dg->line ? tl_lsp_text_offset_cp(&t, dg->line, dg->col ? dg->col : 1) : 0, b = a;
      while (b < t.len && t.text[b] != '\n' && t.text[b] != '\r') b++; /* to the end of the line */
      uint32_t l0, c0, l1, c1;
      tl_lsp_text_position(&t, a, &l0, &c0);
      tl_lsp_text_position(&t, b, &l1, &c1);
      cJSON *d = cJSON_CreateObject();
      cJSON *range = cJSON_AddObjectToObject(d, "range");
      cJSON *st = cJSON_AddObjectToObject(range, "start"), *en = cJSON_AddObjectToObject(range, "end");
      cJSON_AddNumberToObject(st, "line", l0);
      cJSON_AddNumberToObject(st, "character", c0);
      cJSON_AddNumberToObject(en, "line", l1);
      cJSON_AddNumberToObject(en, "character", c1);
      cJSON_AddNumberToObject(d, "severity", dg->level == TL_DIAG_ERROR ? 1 : 2);
      cJSON_AddStringToObject(d, "source", "trainlint");
      cJSON_AddStringToObject(d, "message", dg->message);
      cJSON_AddItemToArray(arr, d);
    }
    tl_lsp_text_free(&t);
    tl_lsp_notify(s, "textDocument/publishDiagnostics", p);
  }
  for (size_t i = 0; i < s->cfg_uris.n; i++) {
    bool still = false;
    for (size_t k = 0; k < now.n && !still; k++) still = !strcmp(now.v[k], s->cfg_uris.v[i]);
    if (still) continue;
    cJSON *p = cJSON_CreateObject();
    char *uri = tl_lsp_path_to_uri(s->cfg_uris.v[i]);
    cJSON_AddStringToObject(p, "uri", uri);
    free(uri);
    cJSON_AddArrayToObject(p, "diagnostics");
    tl_lsp_notify(s, "textDocument/publishDiagnostics", p);
  }
  tl_strvec_free(&s->cfg_uris);
  s->cfg_uris = now;
}

/* Builds the rule set of the current settings and configurations; NULL (with a message) on
 * errors. As in the CLI, only the rules that some file's configuration (or the defaults, for a
 * file without one) enables are compiled, and each file's configuration filters its findings
 * afterwards (tl_lsp_shown); the client's select/ignore settings act as --select/--ignore. */
static tl_ruleset *tl_lsp__make_rules(tl_lsp *s, char **message) {
  tl_ruleset *rs = tl_ruleset_new();
  bool ok = tl_ruleset_add_builtin(rs);
  for (size_t i = 0; i < s->rule_dirs.n; i++) ok = tl_ruleset_add_dir(rs, s->rule_dirs.v[i]) && ok;
  TL_VEC(tl_config *) seen = {0}; /* the workspace's and each file's configuration (NULL: the defaults) */
  tl_vec_push(&seen, s->primary);
  for (size_t i = 0; i < s->files.n; i++) tl_vec_push(&seen, tl_lsp_file_config(s, s->files.v[i]));
  tl_selection sel = {s->select, {0}, s->ignore};
  tl_config_select_wanted(rs, seen.v, seen.n, &sel);
  tl_vec_free(&seen);
  if (ok) ok = tl_ruleset_compile(rs);
  for (size_t k = 0; ok && s->primary && k < s->primary->severity.n; k++)
    tl_ruleset_set_severity(rs, s->primary->severity.v[k].code, s->primary->severity.v[k].severity);
  if (!ok) {
    tl_buf b = {0};
    tl_buf_puts(&b, "trainlint: the rules could not be loaded");
    for (size_t i = 0; i < tl_ruleset_diag_count(rs) && i < 5; i++) {
      const tl_diag *d = tl_ruleset_diag(rs, i);
      tl_buf_printf(&b, "; %s:%u:%u: %s", d->path ? d->path : "", d->line, d->col, d->message);
    }
    *message = tl_buf_take(&b);
    tl_ruleset_delete(rs);
    rs = NULL;
  }
  return rs;
}

static tl_analysis *tl_lsp__new_analysis(tl_lsp *s, const tl_ruleset *rs) {
  tl_options opts = {0};
  opts.threads = s->o.threads;
  opts.keep_trees = true;
  tl_analysis *a = tl_analysis_new(rs, &opts);
  if (s->primary) {
    tl_analysis_set_hot_names(a, (const char *const *)s->primary->hot_functions.v, s->primary->hot_functions.n,
                              (const char *const *)s->primary->step_iterables.v, s->primary->step_iterables.n);
    tl_analysis_set_frameworks(a, (const char *const *)s->primary->frameworks.v, s->primary->frameworks.n);
  }
  return a;
}

/* Applies new rule settings: a new rule set and analysis holding the same files. */
static void tl_lsp__reload_rules(tl_lsp *s) {
  char *err = NULL;
  tl_ruleset *rs = tl_lsp__make_rules(s, &err);
  if (!rs) {
    tl_lsp__show(s, 1, err);
    free(err);
    return;
  }
  tl_lsp_afiles_clear(s);
  tl_analysis_delete(s->a);
  tl_ruleset_delete(s->rules);
  s->rules = rs;
  s->a = tl_lsp__new_analysis(s, rs);
  for (size_t i = 0; i < s->files.n; i++) {
    tl_lsp_file *f = s->files.v[i];
    f->present = false;
    if (f->open || f->on_disk) tl_lsp_sync_file(s, f);
  }
  tl_lsp__mark_dirty(s);
}

/* A pyproject.toml changed: load the configurations again, walk the workspace folders again (the
 * excludes may have changed), rebuild the rules and the analysis, publish configuration errors. */
static void tl_lsp__reload_config(tl_lsp *s) {
  tl_lsp__config_load(s);
  for (size_t r = 0; r < s->roots.n; r++) {
    const char *root = s->roots.v[r];
    size_t n = strlen(root);
    tl_strvec paths = {0};
    tl_lsp__walk_root(s, root, &paths);
    for (size_t i = 0; i < s->files.n; i++) {
      tl_lsp_file *f = s->files.v[i];
      if (f->abs && !strncmp(f->abs, root, n) && f->abs[n] == '/') f->on_disk = false;
    }
    for (size_t i = 0; i < paths.n; i++) tl_lsp_file_get(s, NULL, paths.v[i])->on_disk = true;
    tl_strvec_free(&paths);
  }
  tl_lsp__reload_rules(s);
  tl_lsp__publish_config_errors(s);
}

static bool tl_lsp__is_pyproject(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n >= 14 && !strcmp(path + n - 14, "pyproject.toml") && (n == 14 || path[n - 15] == '/');
}

/* ---- the analysis ---- */

/* The start of an analysis of what the documents hold now: false when none is to run (after
 * shutdown, changes are not analysed). */
static bool tl_lsp__begin(tl_lsp *s) {
  if (s->shutdown) { /* changes that came before shutdown are not analysed after it */
    s->dirty = false;
    return false;
  }
  tl_lsp_afiles_clear(s); /* the findings they index are gone once the run starts */
  s->run_since = s->dirty_since;
  s->dirty = false;
  s->run_start = tl_lsp__now();
  tl_analysis_cancel(s->a, false);
  return true;
}

/* The end of an analysis: its findings published, or, when a later change cancelled it, the
 * documents dirty again since the changes it covered (so that TL_LSP_MAX_DELAY_MS still counts
 * from the first of them). */
static void tl_lsp__end(tl_lsp *s) {
  double engine_ms = (s->run_end - s->run_start) * 1e3;
  if (tl_analysis_cancelled(s->a)) {
    if (!s->dirty || s->run_since < s->dirty_since) s->dirty_since = s->run_since;
    s->dirty = true;
    if (s->o.verbose) tl_lsp_log(s, "analysis cancelled after %.2f ms: superseded by a change", engine_ms);
    return;
  }
  s->runs++;
  tl_lsp_after_run(s);
  s->last_run_ms = (tl_lsp__now() - s->run_start) * 1e3;
  if (s->o.verbose)
    tl_lsp_log(s, "analysis %llu: %zu files, %zu findings, %.2f ms (engine %.2f ms)", (unsigned long long)s->runs,
               tl_analysis_file_count(s->a), tl_analysis_finding_count(s->a), s->last_run_ms, engine_ms);
}

/* not inlined: bench/lsp/instructions.sh counts the instructions of each call (callgrind) */
__attribute__((noinline)) static void tl_lsp__run_engine(tl_lsp *s) {
  tl_analysis_run(s->a);
  s->run_end = tl_lsp__now();
}

static void *tl_lsp__work(void *p) {
  tl_lsp *s = p;
  tl_lsp__run_engine(s);
  char c = 1;
  while (write(s->done_fd[1], &c, 1) < 0 && errno == EINTR) {}
  return NULL;
}

/* Waits for the worker's analysis to end, first asking it to stop when `cancel`, and publishes
 * what it found (nothing when it was cancelled). */
static void tl_lsp__finish(tl_lsp *s, bool cancel) {
  if (!s->running) return;
  if (cancel) tl_analysis_cancel(s->a, true);
  pthread_join(s->worker, NULL);
  s->running = false;
  char c;
  while (read(s->done_fd[0], &c, 1) < 0 && errno == EINTR) {}
  tl_analysis_cancel(s->a, false);
  tl_lsp__end(s);
}

/* Analyses the documents now, on this thread (after the worker's run, if one is going). */
static void tl_lsp__analyse(tl_lsp *s) {
  tl_lsp__finish(s, false);
  if (!tl_lsp__begin(s)) return;
  tl_lsp__run_engine(s);
  tl_lsp__end(s);
}

/* Starts an analysis of the documents on the worker thread (on this one when there is none). */
static void tl_lsp__start(tl_lsp *s) {
  if (s->done_fd[1] < 0) {
    tl_lsp__analyse(s);
    return;
  }
  if (!tl_lsp__begin(s)) return;
  if (pthread_create(&s->worker, NULL, tl_lsp__work, s)) {
    tl_lsp__run_engine(s);
    tl_lsp__end(s);
    return;
  }
  s->running = true;
}

void tl_lsp_flush(tl_lsp *s) {
  tl_lsp__finish(s, false);
  if (s->dirty) tl_lsp__analyse(s);
}

/* Can a message be handled while the worker analyses? Only those that touch neither the documents
 * nor the findings: $/ notifications (a $/cancelRequest was recorded when it was read) and the
 * client's answers to our requests. */
static bool tl_lsp__harmless(const cJSON *msg) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
  if (!cJSON_IsObject(msg)) return false;
  if (!m) return cJSON_GetObjectItemCaseSensitive(msg, "id") != NULL;
  return cJSON_IsString(m) && !strncmp(m->valuestring, "$/", 2);
}

/* Does a message make the worker's analysis useless, so that it is cancelled rather than waited
 * for? A notification (a change of documents, files, folders or settings: its results would be
 * stale), shutdown and exit; not a request, which needs the results. A change does not cancel an
 * analysis of changes older than TL_LSP_MAX_STALE_MS: a client that types without pause still
 * gets results that often. */
static bool tl_lsp__supersedes(const tl_lsp *s, const cJSON *msg) {
  const char *method = tl_lsp_jstr(msg, "method");
  if (method && (!strcmp(method, "exit") || !strcmp(method, "shutdown"))) return true;
  if (!method || cJSON_GetObjectItemCaseSensitive(msg, "id")) return false;
  return (tl_lsp__now() - s->run_since) * 1e3 < TL_LSP_MAX_STALE_MS;
}

/* ---- lifecycle ---- */

static cJSON *tl_lsp__capabilities(tl_lsp *s) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "positionEncoding", "utf-16");
  cJSON *sync = cJSON_AddObjectToObject(c, "textDocumentSync");
  cJSON_AddBoolToObject(sync, "openClose", 1);
  cJSON_AddNumberToObject(sync, "change", 2); /* incremental */
  cJSON_AddItemToObject(sync, "save", cJSON_CreateObject());
  cJSON_AddBoolToObject(c, "hoverProvider", 1);
  cJSON *ca = cJSON_AddObjectToObject(c, "codeActionProvider");
  cJSON *kinds = cJSON_AddArrayToObject(ca, "codeActionKinds");
  cJSON_AddItemToArray(kinds, cJSON_CreateString("quickfix"));
  cJSON_AddItemToArray(kinds, cJSON_CreateString("source.fixAll.trainlint"));
  cJSON_AddBoolToObject(ca, "resolveProvider", 0);
  cJSON *dp = cJSON_AddObjectToObject(c, "diagnosticProvider");
  cJSON_AddStringToObject(dp, "identifier", "trainlint");
  cJSON_AddBoolToObject(dp, "interFileDependencies", 1);
  cJSON_AddBoolToObject(dp, "workspaceDiagnostics", 0);
  /* notebooks: every notebook, its Python cells (what a `.ipynb` file holds on disk) */
  cJSON *nsync = cJSON_AddObjectToObject(c, "notebookDocumentSync");
  cJSON *sel = cJSON_CreateObject();
  cJSON_AddStringToObject(sel, "notebook", "*");
  cJSON *lang = cJSON_CreateObject();
  cJSON_AddStringToObject(lang, "language", "python");
  cJSON_AddItemToArray(cJSON_AddArrayToObject(sel, "cells"), lang);
  cJSON_AddItemToArray(cJSON_AddArrayToObject(nsync, "notebookSelector"), sel);
  cJSON *ws = cJSON_AddObjectToObject(c, "workspace");
  cJSON *wf = cJSON_AddObjectToObject(ws, "workspaceFolders");
  cJSON_AddBoolToObject(wf, "supported", 1);
  cJSON_AddBoolToObject(wf, "changeNotifications", 1);
  (void)s;
  return c;
}

static bool tl_lsp__json_array_has(const cJSON *arr, const char *s) {
  const cJSON *it;
  if (!cJSON_IsArray(arr)) return false;
  cJSON_ArrayForEach(it, arr) if (cJSON_IsString(it) && !strcmp(it->valuestring, s)) return true;
  return false;
}

static void tl_lsp__on_initialize(tl_lsp *s, const cJSON *id, const cJSON *params) {
  if (s->initialize_seen) {
    tl_lsp_reply_error(s, id, TL_RPC_INVALID_REQUEST, "initialize was already received");
    return;
  }
  s->initialize_seen = true;
  const cJSON *caps = tl_lsp_jpath(params, "capabilities");
  s->cap_related = tl_lsp_jbool(caps, "textDocument.publishDiagnostics.relatedInformation");
  s->cap_tags = cJSON_IsObject(tl_lsp_jpath(caps, "textDocument.publishDiagnostics.tagSupport"));
  s->cap_pull = cJSON_IsObject(tl_lsp_jpath(caps, "textDocument.diagnostic"));
  s->cap_refresh = tl_lsp_jbool(caps, "workspace.diagnostics.refreshSupport");
  s->cap_doc_changes = tl_lsp_jbool(caps, "workspace.workspaceEdit.documentChanges");
  s->cap_markdown = tl_lsp__json_array_has(tl_lsp_jpath(caps, "textDocument.hover.contentFormat"), "markdown");
  s->cap_watch_dynamic = tl_lsp_jbool(caps, "workspace.didChangeWatchedFiles.dynamicRegistration");
  s->pull_mode = s->cap_pull;
  const cJSON *init = tl_lsp_jpath(params, "initializationOptions");
  if (init) tl_lsp__read_settings(s, init);

  cJSON *res = cJSON_CreateObject();
  cJSON_AddItemToObject(res, "capabilities", tl_lsp__capabilities(s));
  cJSON *info = cJSON_AddObjectToObject(res, "serverInfo");
  cJSON_AddStringToObject(info, "name", "trainlint");
  cJSON_AddStringToObject(info, "version", TL_VERSION);
  tl_lsp_reply(s, id, res);

  /* the workspace: folders, else rootUri, else rootPath; the first one's pyproject.toml applies
   * to the whole analysis (severity, hot names, frameworks, excludes), each file's nearest one to
   * its findings */
  tl_strvec roots = {0};
  const cJSON *folders = tl_lsp_jpath(params, "workspaceFolders"), *it;
  if (cJSON_IsArray(folders)) {
    cJSON_ArrayForEach(it, folders) {
      char *p = tl_lsp_uri_to_path(tl_lsp_jstr(it, "uri"));
      if (p) tl_vec_push(&roots, p);
    }
  }
  if (!roots.n) {
    char *p = tl_lsp_uri_to_path(tl_lsp_jstr(params, "rootUri"));
    if (!p && tl_lsp_jstr(params, "rootPath")) p = tl_strdup(tl_lsp_jstr(params, "rootPath"));
    if (p && *p) tl_vec_push(&roots, p);
    else free(p);
  }
  if (roots.n) tl_config_for(&s->cfg, roots.v[0], &s->primary, &s->cfg_diags);
  for (size_t i = 0; i < roots.n; i++) tl_lsp__add_root(s, roots.v[i]); /* no analysis yet: files are only listed */
  tl_strvec_free(&roots);

  char *err = NULL;
  s->rules = tl_lsp__make_rules(s, &err);
  if (!s->rules) {
    /* bad user settings: fall back to the built-in defaults and say so */
    tl_strvec_free(&s->select);
    tl_strvec_free(&s->ignore);
    tl_strvec_free(&s->rule_dirs);
    s->rules = tl_lsp__make_rules(s, &err);
  }
  s->a = tl_lsp__new_analysis(s, s->rules);
  for (size_t i = 0; i < s->files.n; i++) tl_lsp_sync_file(s, s->files.v[i]);
  if (err) {
    tl_lsp__show(s, 1, err);
    free(err);
  }
  tl_lsp__publish_config_errors(s);
}

static void tl_lsp__on_initialized(tl_lsp *s) {
  s->initialized = true;
  if (s->cap_watch_dynamic) {
    cJSON *p = cJSON_CreateObject();
    cJSON *regs = cJSON_AddArrayToObject(p, "registrations");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "id", "trainlint-watch-python");
    cJSON_AddStringToObject(r, "method", "workspace/didChangeWatchedFiles");
    cJSON *w = cJSON_AddArrayToObject(cJSON_AddObjectToObject(r, "registerOptions"), "watchers");
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "globPattern", "**/*.{py,pyi}");
    cJSON_AddItemToArray(w, g);
    g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "globPattern", "**/pyproject.toml");
    cJSON_AddItemToArray(w, g);
    cJSON_AddItemToArray(regs, r);
    tl_lsp__request(s, "client/registerCapability", p);
  }
}

/* ---- documents ---- */

static void tl_lsp__on_did_open(tl_lsp *s, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "textDocument.uri");
  const char *lang = tl_lsp_jstr(params, "textDocument.languageId");
  const char *text = tl_lsp_jstr(params, "textDocument.text");
  const cJSON *ver = tl_lsp_jpath(params, "textDocument.version");
  if (!uri || !text) {
    tl_lsp_log(s, "didOpen without uri or text: ignored");
    return;
  }
  char *path = tl_lsp_uri_to_path(uri);
  bool python = (lang && !strcmp(lang, "python")) || tl_lsp__is_python_path(path ? path : uri);
  free(path);
  if (!python) return;
  tl_lsp_file *f = tl_lsp_file_get(s, uri, NULL);
  f->open = true;
  f->version = cJSON_IsNumber(ver) ? (int64_t)ver->valuedouble : 0;
  tl_lsp_text_set(&f->doc, text, strlen(text));
  tl_lsp_sync_file(s, f);
}

bool tl_lsp_json_range(const tl_lsp_text *t, const cJSON *range, uint32_t *start, uint32_t *end) {
  const cJSON *sl = tl_lsp_jpath(range, "start.line"), *sc = tl_lsp_jpath(range, "start.character");
  const cJSON *el = tl_lsp_jpath(range, "end.line"), *ec = tl_lsp_jpath(range, "end.character");
  if (!cJSON_IsNumber(sl) || !cJSON_IsNumber(sc) || !cJSON_IsNumber(el) || !cJSON_IsNumber(ec)) return false;
  if (sl->valuedouble < 0 || sc->valuedouble < 0 || el->valuedouble < 0 || ec->valuedouble < 0) return false;
  *start = tl_lsp_text_offset(t, (uint32_t)sl->valuedouble, (uint32_t)sc->valuedouble);
  *end = tl_lsp_text_offset(t, (uint32_t)el->valuedouble, (uint32_t)ec->valuedouble);
  if (*end < *start) {
    uint32_t x = *start;
    *start = *end;
    *end = x;
  }
  return true;
}

static void tl_lsp__on_did_change(tl_lsp *s, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "textDocument.uri");
  tl_lsp_file *f = uri ? tl_lsp_file_by_uri(s, uri) : NULL;
  if (!f || !f->open || f->notebook) {
    if (uri) tl_lsp_log(s, "didChange for %s, which is not open: ignored", uri);
    return;
  }
  const cJSON *changes = tl_lsp_jpath(params, "contentChanges"), *ch;
  const cJSON *ver = tl_lsp_jpath(params, "textDocument.version");
  cJSON_ArrayForEach(ch, changes) {
    const char *text = tl_lsp_jstr(ch, "text");
    if (!text) continue;
    size_t n = strlen(text);
    const cJSON *range = tl_lsp_jpath(ch, "range");
    uint32_t start, end;
    if (range && !cJSON_IsNull(range)) {
      if (!tl_lsp_json_range(&f->doc, range, &start, &end)) {
        tl_lsp_log(s, "didChange for %s with a malformed range: change ignored", uri);
        continue;
      }
      tl_lsp_text_replace(&f->doc, start, end, text, n);
      tl_analysis_edit(s->a, f->label, start, end, start + (uint32_t)n, f->doc.text, f->doc.len);
    } else {
      tl_lsp_text_set(&f->doc, text, n);
      tl_analysis_set_text(s->a, f->label, f->doc.text, f->doc.len);
    }
  }
  if (cJSON_IsNumber(ver)) f->version = (int64_t)ver->valuedouble;
  f->present = true;
  tl_lsp__mark_dirty(s);
}

static void tl_lsp__on_did_close(tl_lsp *s, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "textDocument.uri");
  tl_lsp_file *f = uri ? tl_lsp_file_by_uri(s, uri) : NULL;
  if (!f || !f->open || f->notebook) return;
  f->open = false;
  tl_lsp_text_free(&f->doc);
  /* the disk's contents again (unsaved changes are gone); a file outside the workspace is forgotten */
  if (!f->on_disk && f->abs && access(f->abs, R_OK) == 0) {
    for (size_t i = 0; i < s->roots.n && !f->on_disk; i++) {
      size_t n = strlen(s->roots.v[i]);
      f->on_disk = !strncmp(f->abs, s->roots.v[i], n) && f->abs[n] == '/';
    }
  }
  tl_lsp_sync_file(s, f);
  tl_lsp_publish_empty(s, f);
}

static void tl_lsp__on_did_save(tl_lsp *s, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "textDocument.uri");
  char *path = uri ? tl_lsp_uri_to_path(uri) : NULL;
  bool config = tl_lsp__is_pyproject(path);
  free(path);
  if (config) {
    tl_lsp__reload_config(s);
    return;
  }
  tl_lsp_file *f = uri ? tl_lsp_file_by_uri(s, uri) : NULL;
  if (!f || !f->abs) return;
  /* a new file saved inside the workspace is now a workspace file */
  for (size_t i = 0; i < s->roots.n && !f->on_disk; i++) {
    size_t n = strlen(s->roots.v[i]);
    f->on_disk = !strncmp(f->abs, s->roots.v[i], n) && f->abs[n] == '/';
  }
}

static void tl_lsp__on_watched(tl_lsp *s, const cJSON *params) {
  const cJSON *ch;
  bool config = false;
  cJSON_ArrayForEach(ch, tl_lsp_jpath(params, "changes")) {
    const char *uri = tl_lsp_jstr(ch, "uri");
    const cJSON *type = tl_lsp_jpath(ch, "type");
    char *abs = tl_lsp_uri_to_path(uri);
    if (tl_lsp__is_pyproject(abs)) config = true;
    if (abs && tl_lsp__is_python_path(abs) && cJSON_IsNumber(type)) {
      tl_lsp_file *f = tl_lsp_file_get(s, uri, NULL);
      f->on_disk = type->valueint != 3;
      if (!f->open) tl_lsp_sync_file(s, f);
    }
    free(abs);
  }
  if (config) tl_lsp__reload_config(s);
}

static void tl_lsp__on_folders(tl_lsp *s, const cJSON *params) {
  const cJSON *it;
  cJSON_ArrayForEach(it, tl_lsp_jpath(params, "event.removed")) {
    char *p = tl_lsp_uri_to_path(tl_lsp_jstr(it, "uri"));
    if (p) tl_lsp__remove_root(s, p);
    free(p);
  }
  cJSON_ArrayForEach(it, tl_lsp_jpath(params, "event.added")) {
    char *p = tl_lsp_uri_to_path(tl_lsp_jstr(it, "uri"));
    if (p) tl_lsp__add_root(s, p);
    free(p);
  }
}

static void tl_lsp__on_configuration(tl_lsp *s, const cJSON *params) {
  const cJSON *settings = tl_lsp_jpath(params, "settings");
  char *old_base = s->docs_base ? tl_strdup(s->docs_base) : NULL;
  bool rules_changed = cJSON_IsObject(settings) && tl_lsp__read_settings(s, settings);
  if (rules_changed) tl_lsp__reload_rules(s);
  bool base_changed = (old_base == NULL) != (s->docs_base == NULL) || (old_base && strcmp(old_base, s->docs_base));
  free(old_base);
  if (base_changed && !rules_changed) tl_lsp__mark_dirty(s); /* the items change: publish them again */
}

/* ---- dispatch ---- */

static char *tl_lsp__id_key(const cJSON *id) { return cJSON_PrintUnformatted(id); }

static void tl_lsp__handle(tl_lsp *s, cJSON *msg) {
  if (!cJSON_IsObject(msg)) {
    tl_lsp_reply_error(s, NULL, TL_RPC_INVALID_REQUEST,
                       "a message must be a JSON object (batches are not used by LSP)");
    return;
  }
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
  if (id && !cJSON_IsNumber(id) && !cJSON_IsString(id)) {
    tl_lsp_reply_error(s, NULL, TL_RPC_INVALID_REQUEST, "the id must be a number or a string");
    return;
  }
  if (!m) {
    /* a response to one of our requests (refresh, registerCapability) */
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
    if (id && (err || cJSON_GetObjectItemCaseSensitive(msg, "result"))) {
      if (err)
        tl_lsp_log(s, "the client answered a request with an error: %s",
                   tl_lsp_jstr(err, "message") ? tl_lsp_jstr(err, "message") : "?");
      return;
    }
    if (id) tl_lsp_reply_error(s, id, TL_RPC_INVALID_REQUEST, "a request needs a method");
    else tl_lsp_log(s, "a message without method or id: ignored");
    return;
  }
  if (!cJSON_IsString(m)) {
    if (id) tl_lsp_reply_error(s, id, TL_RPC_INVALID_REQUEST, "the method must be a string");
    else tl_lsp_log(s, "a notification whose method is not a string: ignored");
    return;
  }
  const char *method = m->valuestring;
  bool request = id != NULL;
  if (!strcmp(method, "exit")) {
    s->exit_now = true;
    s->exit_code = s->shutdown ? 0 : 1;
    return;
  }
  if (request) {
    char *key = tl_lsp__id_key(id);
    intptr_t v = 0;
    bool cancelled = tl_map_get(&s->cancelled, key, &v) && v;
    if (cancelled) tl_map_set(&s->cancelled, key, 0);
    free(key);
    if (cancelled) {
      tl_lsp_reply_error(s, id, TL_RPC_REQUEST_CANCELLED, "request cancelled");
      return;
    }
  }
  if (!s->initialize_seen && strcmp(method, "initialize")) {
    if (request) tl_lsp_reply_error(s, id, TL_RPC_SERVER_NOT_INITIALIZED, "the server is not initialized");
    return;
  }
  if (s->shutdown && request) {
    tl_lsp_reply_error(s, id, TL_RPC_INVALID_REQUEST, "the server is shutting down");
    return;
  }
  if (request) {
    if (!strcmp(method, "initialize")) tl_lsp__on_initialize(s, id, params);
    else if (!strcmp(method, "shutdown")) {
      s->shutdown = true;
      tl_lsp_reply(s, id, NULL);
    } else if (!cJSON_IsObject(params)) {
      bool known = !strcmp(method, "textDocument/hover") || !strcmp(method, "textDocument/codeAction") ||
                   !strcmp(method, "textDocument/diagnostic");
      if (known) tl_lsp_reply_error(s, id, TL_RPC_INVALID_PARAMS, "params must be an object");
      else tl_lsp_reply_error(s, id, TL_RPC_METHOD_NOT_FOUND, "method not found");
    } else if (!strcmp(method, "textDocument/hover")) tl_lsp_on_hover(s, id, params);
    else if (!strcmp(method, "textDocument/codeAction")) tl_lsp_on_code_action(s, id, params);
    else if (!strcmp(method, "textDocument/diagnostic")) tl_lsp_on_diagnostic(s, id, params);
    else {
      char *msgtext = tl_printf("method not found: %s", method);
      tl_lsp_reply_error(s, id, TL_RPC_METHOD_NOT_FOUND, msgtext);
      free(msgtext);
    }
    return;
  }
  if (s->shutdown) { /* after shutdown only `exit` counts (handled above): no more analyses or diagnostics */
    if (strncmp(method, "$/", 2)) tl_lsp_log(s, "notification %s after shutdown: ignored", method);
    return;
  }
  if (!strcmp(method, "initialized")) tl_lsp__on_initialized(s);
  else if (!strcmp(method, "$/cancelRequest")) { /* recorded when it was read */ } else if (!cJSON_IsObject(params)) {
    if (strncmp(method, "$/", 2)) tl_lsp_log(s, "notification %s without params object: ignored", method);
  } else if (!strcmp(method, "textDocument/didOpen")) tl_lsp__on_did_open(s, params);
  else if (!strcmp(method, "textDocument/didChange")) tl_lsp__on_did_change(s, params);
  else if (!strcmp(method, "textDocument/didClose")) tl_lsp__on_did_close(s, params);
  else if (!strcmp(method, "textDocument/didSave")) tl_lsp__on_did_save(s, params);
  else if (!strcmp(method, "notebookDocument/didOpen")) tl_lsp_notebook_on_open(s, params);
  else if (!strcmp(method, "notebookDocument/didChange")) tl_lsp_notebook_on_change(s, params);
  else if (!strcmp(method, "notebookDocument/didClose")) tl_lsp_notebook_on_close(s, params);
  else if (!strcmp(method, "notebookDocument/didSave")) { /* the buffer is analysed; the disk adds nothing */
  } else if (!strcmp(method, "workspace/didChangeConfiguration")) tl_lsp__on_configuration(s, params);
  else if (!strcmp(method, "workspace/didChangeWatchedFiles")) tl_lsp__on_watched(s, params);
  else if (!strcmp(method, "workspace/didChangeWorkspaceFolders")) tl_lsp__on_folders(s, params);
  else if (strncmp(method, "$/", 2)) tl_lsp_log(s, "notification %s: not handled", method);
}

/* Parses the complete frames read so far into the queue. A $/cancelRequest is recorded at once,
 * so that a request queued before it is answered as cancelled. */
/* One message body: parsed, its cancellation noted, queued (false: not JSON, answered). */
static bool tl_lsp__enqueue(tl_lsp *s, const char *body, size_t len) {
  cJSON *msg = cJSON_ParseWithLength(body, len);
  if (!msg) {
    tl_lsp_log(s, "a message that is not valid JSON (%zu bytes)", len);
    tl_lsp_reply_error(s, NULL, TL_RPC_PARSE_ERROR, "parse error: the message is not valid JSON");
    return false;
  }
  const char *method = tl_lsp_jstr(msg, "method");
  if (method && !strcmp(method, "$/cancelRequest")) {
    const cJSON *cid = tl_lsp_jpath(msg, "params.id");
    if (cJSON_IsNumber(cid) || cJSON_IsString(cid)) {
      char *key = tl_lsp__id_key(cid);
      tl_map_set(&s->cancelled, key, 1);
      free(key);
    }
  }
  tl_vec_push(&s->queue, msg);
  return true;
}

bool tl_lsp_server_handle(tl_lsp *s, const char *json, size_t len) {
  if (s->exit_now) return false;
  tl_lsp__enqueue(s, json, len);
  while (s->qhead < s->queue.n && !s->exit_now) {
    cJSON *msg = s->queue.v[s->qhead++];
    tl_lsp__handle(s, msg);
    cJSON_Delete(msg);
  }
  for (size_t i = s->qhead; i < s->queue.n; i++) cJSON_Delete(s->queue.v[i]);
  s->queue.n = s->qhead = 0;
  if (!s->exit_now && s->dirty && s->initialize_seen) tl_lsp__analyse(s);
  return !s->exit_now;
}

int tl_lsp_exit_code(const tl_lsp *s) { return s->exit_code; }

static void tl_lsp__parse_frames(tl_lsp *s) {
  for (;;) {
    const char *body = NULL;
    size_t len = 0;
    char *error = NULL;
    tl_lsp_frame st = tl_lsp_reader_next(&s->rd, &body, &len, &error);
    if (st == TL_LSP_FRAME_NONE) break;
    if (st == TL_LSP_FRAME_BAD) {
      tl_lsp_log(s, "malformed message frame: %s", error);
      char *text = tl_printf("malformed message frame: %s", error);
      tl_lsp_reply_error(s, NULL, TL_RPC_PARSE_ERROR, text);
      free(text);
      free(error);
      continue;
    }
    tl_lsp__enqueue(s, body, len);
  }
}

/* Waits up to timeout_ms (-1: forever) for input, or for the worker's analysis to end, and reads
 * what is there; publishes the analysis when it ended. Returns true when something was read, the
 * input ended or the analysis did. */
static bool tl_lsp__read(tl_lsp *s, int timeout_ms) {
  struct pollfd p[2] = {{s->o.in_fd, POLLIN, 0}, {s->done_fd[0], POLLIN, 0}};
  int r = poll(p, s->running ? 2 : 1, timeout_ms);
  if (r < 0 && errno != EINTR) {
    s->eof = true;
    return true;
  }
  if (r <= 0) return false;
  if (s->running && (p[1].revents & POLLIN)) {
    tl_lsp__finish(s, false);
    return true;
  }
  char buf[65536];
  ssize_t n = read(s->o.in_fd, buf, sizeof buf);
  if (n < 0) {
    if (errno == EINTR || errno == EAGAIN) return false;
    s->eof = true;
    return true;
  }
  if (n == 0) {
    s->eof = true;
    return true;
  }
  tl_lsp_reader_feed(&s->rd, buf, (size_t)n);
  tl_lsp__parse_frames(s);
  return true;
}

int tl_lsp_serve(tl_lsp *s) {
  if (pipe(s->done_fd)) s->done_fd[0] = s->done_fd[1] = -1; /* no worker: analyses run here */
  while (!s->exit_now) {
    if (s->qhead < s->queue.n) {
      cJSON *msg = s->queue.v[s->qhead];
      /* a message that needs the analysis stops the worker's first: waits for it, or cancels it */
      if (s->running && !tl_lsp__harmless(msg)) tl_lsp__finish(s, tl_lsp__supersedes(s, msg));
      s->qhead++;
      tl_lsp__handle(s, msg);
      cJSON_Delete(msg);
      continue;
    }
    s->queue.n = s->qhead = 0;
    if (s->eof) break;
    if (s->running) {
      tl_lsp__read(s, -1); /* input, or the analysis' end */
    } else if (s->dirty && s->initialize_seen) {
      /* after a quiet time, or at once when the first change waits longer than TL_LSP_MAX_DELAY_MS
       * (a client that sends changes without pause) */
      int wait = s->o.debounce_ms;
      int left = TL_LSP_MAX_DELAY_MS - (int)((tl_lsp__now() - s->dirty_since) * 1e3);
      if (left < wait) wait = left < 0 ? 0 : left;
      if (!wait || !tl_lsp__read(s, wait)) tl_lsp__start(s);
    } else {
      tl_lsp__read(s, -1);
    }
  }
  tl_lsp__finish(s, true);
  for (int i = 0; i < 2; i++)
    if (s->done_fd[i] >= 0) close(s->done_fd[i]);
  s->done_fd[0] = s->done_fd[1] = -1;
  if (s->eof && !s->exit_now) {
    if (tl_lsp_reader_pending(&s->rd))
      tl_lsp_log(s, "end of input inside a message (%zu bytes dropped)", tl_lsp_reader_pending(&s->rd));
    tl_lsp_log(s, "end of input without exit notification");
    s->exit_code = 1;
  }
  for (size_t i = s->qhead; i < s->queue.n; i++) cJSON_Delete(s->queue.v[i]);
  s->queue.n = s->qhead = 0;
  return s->exit_code;
}

tl_lsp *tl_lsp_new(const tl_lsp_opts *opts) {
  tl_lsp *s = tl_calloc(1, sizeof *s);
  s->o = *opts;
  s->done_fd[0] = s->done_fd[1] = -1; /* tl_lsp_serve makes the worker's pipe */
  if (s->o.debounce_ms < 0) s->o.debounce_ms = TL_LSP_DEBOUNCE_MS;
  s->exit_code = 1;
  return s;
}

void tl_lsp_delete(tl_lsp *s) {
  if (!s) return;
  tl_lsp_afiles_clear(s);
  tl_vec_free(&s->afiles);
  tl_analysis_delete(s->a);
  tl_ruleset_delete(s->rules);
  for (size_t i = 0; i < s->files.n; i++) {
    tl_lsp_file *f = s->files.v[i];
    free(f->label);
    free(f->abs);
    free(f->uri);
    free(f->items);
    free(f->published);
    tl_lsp_notebook_clear(f);
    tl_lsp_text_free(&f->doc);
    free(f);
  }
  tl_vec_free(&s->files);
  tl_map_free(&s->by_uri);
  tl_map_free(&s->by_abs);
  tl_map_free(&s->by_label);
  tl_map_free(&s->cancelled);
  for (size_t i = s->qhead; i < s->queue.n; i++) cJSON_Delete(s->queue.v[i]);
  tl_vec_free(&s->queue);
  tl_lsp_reader_free(&s->rd);
  tl_strvec_free(&s->select);
  tl_strvec_free(&s->ignore);
  tl_strvec_free(&s->rule_dirs);
  tl_strvec_free(&s->roots);
  free(s->docs_base);
  free(s->hidden);
  tl_config_cache_free(&s->cfg);
  tl_diags_free(&s->cfg_diags);
  tl_strvec_free(&s->cfg_uris);
  free(s);
}

static void tl_lsp__usage(FILE *out) {
  fputs("usage: trainlint server [--stdio] [-j N] [--debounce MS] [--verbose]\n"
        "  speaks the Language Server Protocol on stdin/stdout (see docs/editors.md)\n"
        "  -j, --jobs N     analysis threads (default: all cores)\n"
        "  --debounce MS    quiet time on stdin before analysing after a change (default 3)\n"
        "  --verbose        log every analysis and its duration to stderr\n",
        out);
}

int tl_lsp_main(int argc, char **argv) {
  tl_lsp_opts o = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO, 0, -1, false, NULL, NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--stdio")) continue;
    if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) o.verbose = true;
    else if ((!strcmp(a, "-j") || !strcmp(a, "--jobs") || !strcmp(a, "--debounce")) && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 0 || v > 10000) {
        fprintf(stderr, "trainlint server: bad value '%s' for %s\n", argv[i], a);
        return 2;
      }
      if (a[1] == 'j' || a[2] == 'j') o.threads = (unsigned)v;
      else o.debounce_ms = (int)v;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      tl_lsp__usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "trainlint server: unknown option '%s'\n", a);
      tl_lsp__usage(stderr);
      return 2;
    }
  }
  /* stdout carries the protocol only: keep it for us and send stray writes to stderr */
  fflush(stdout);
  int out = dup(STDOUT_FILENO);
  if (out < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    fprintf(stderr, "trainlint server: cannot set up stdout: %s\n", strerror(errno));
    return 1;
  }
  o.out_fd = out;
  signal(SIGPIPE, SIG_IGN); /* a client that goes away is a write error, not a signal */
  tl_lsp *s = tl_lsp_new(&o);
  int rc = tl_lsp_serve(s);
  tl_lsp_delete(s);
  close(out);
  return rc;
}
