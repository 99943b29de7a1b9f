/* tl_lsp_features.c - the language server's answers from findings: diagnostics (push and pull), code actions, hover. */
#include "tl_lsp_internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "tl_fix.h"
#include "tl_output.h"
#include "tl_suppress.h"

/* ---- per-run index ---- */

void tl_lsp_afiles_clear(tl_lsp *s) {
  for (size_t i = 0; i < s->afiles.n; i++)
    if (s->afiles.v[i].have_lines) tl_lines_free(&s->afiles.v[i].view.lines);
  s->afiles.n = 0;
  for (size_t i = 0; i < s->files.n; i++) s->files.v[i]->aidx = -1;
}

static void tl_lsp_features__index(tl_lsp *s) {
  tl_lsp_afiles_clear(s);
  size_t n = tl_analysis_file_count(s->a);
  for (size_t i = 0; i < n; i++) {
    tl_lsp_afile af = {0};
    intptr_t v;
    if (tl_map_get(&s->by_label, tl_analysis_file_path(s->a, i), &v) && v > 0) {
      af.file = s->files.v[v - 1];
      af.file->aidx = (long)i;
    }
    size_t len = 0;
    const char *text = tl_analysis_file_text(s->a, i, &len);
    af.view.text = (char *)(text ? text : "");
    af.view.len = text ? len : 0;
    tl_vec_push(&s->afiles, af);
  }
  size_t nf = tl_analysis_finding_count(s->a);
  /* the configuration of each finding's file decides whether it is shown, as in the CLI */
  free(s->hidden);
  s->hidden = tl_calloc(nf + 1, sizeof *s->hidden);
  for (size_t k = 0; k < nf; k++) {
    const tl_finding *fd = tl_analysis_finding(s->a, k);
    if (fd->file >= s->afiles.n) continue;
    tl_lsp_file *lf = s->afiles.v[fd->file].file;
    tl_config *c = lf ? tl_lsp_file_config(s, lf) : NULL;
    tl_selection sel = {s->select, {0}, s->ignore};
    s->hidden[k] = !tl_config_enabled(c, fd->rule, lf && lf->abs ? lf->abs : fd->path, &sel);
  }
  for (size_t k = 0; k < nf; k++) {
    size_t fi = tl_analysis_finding(s->a, k)->file;
    if (fi >= s->afiles.n) continue;
    tl_lsp_afile *af = &s->afiles.v[fi];
    if (!af->count) af->first = k;
    af->count++;
  }
}

bool tl_lsp_shown(const tl_lsp *s, size_t k) {
  return !s->hidden || k >= tl_analysis_finding_count(s->a) || !s->hidden[k];
}

long tl_lsp_afile_of(tl_lsp *s, const tl_lsp_file *f) {
  (void)s;
  return f ? f->aidx : -1;
}

/* The text of an analysis file with its line index (an open buffer's own index when it has one). */
static const tl_lsp_text *tl_lsp_features__view(tl_lsp *s, size_t ai) {
  tl_lsp_afile *af = &s->afiles.v[ai];
  if (af->file && af->file->open && af->file->doc.len == af->view.len) return &af->file->doc;
  if (!af->have_lines) {
    tl_lines_init(&af->view.lines, af->view.text, af->view.len);
    af->have_lines = true;
  }
  return &af->view;
}

/* ---- JSON building ---- */

static cJSON *tl_lsp_features__pos_json(const tl_lsp_text *t, uint32_t off) {
  uint32_t line, ch;
  tl_lsp_text_position(t, off, &line, &ch);
  cJSON *p = cJSON_CreateObject();
  cJSON_AddNumberToObject(p, "line", line);
  cJSON_AddNumberToObject(p, "character", ch);
  return p;
}

static cJSON *tl_lsp_features__range_json(const tl_lsp_text *t, uint32_t a, uint32_t b) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddItemToObject(r, "start", tl_lsp_features__pos_json(t, a));
  cJSON_AddItemToObject(r, "end", tl_lsp_features__pos_json(t, b));
  return r;
}

static char *tl_lsp_features__docs_href(const char *base, const tl_rule *r) {
  const char *code = tl_rule_code(r), *name = tl_rule_name(r);
  tl_buf b = {0};
  bool placeholder = strstr(base, "{code}") || strstr(base, "{name}");
  for (const char *p = base; *p;) {
    if (!strncmp(p, "{code}", 6)) {
      tl_buf_puts(&b, code);
      p += 6;
    } else if (!strncmp(p, "{name}", 6)) {
      tl_buf_puts(&b, name);
      p += 6;
    } else tl_buf_putc(&b, *p++);
  }
  if (!placeholder) {
    if (b.len && b.data[b.len - 1] != '/') tl_buf_putc(&b, '/');
    tl_buf_puts(&b, code);
  }
  return tl_buf_take(&b);
}

/* The end of the word (identifier or keyword) at `off`, or of the one character there. */
static uint32_t tl_lsp_features__word_end(const tl_lsp_text *t, uint32_t off) {
  uint32_t e = off;
  while (e < t->len && (isalnum((unsigned char)t->text[e]) || t->text[e] == '_' || (unsigned char)t->text[e] >= 0x80))
    e++;
  if (e == off && e < t->len && t->text[e] != '\n' && t->text[e] != '\r') e++;
  while (e < t->len && ((unsigned char)t->text[e] & 0xC0) == 0x80) e++;
  return e;
}

/* A finding whose fix only deletes the flagged code: the code is unnecessary. */
static bool tl_lsp_features__is_unnecessary(const tl_finding *fd) {
  return fd->nfix == 1 && fd->fix[0].text && !fd->fix[0].text[0] && fd->fix[0].start <= fd->start_byte &&
         fd->fix[0].end >= fd->end_byte;
}

/* A JSON string, escaped as cJSON prints it (UTF-8 as is; quotes, backslashes and control
 * characters escaped). */
static void tl_lsp_features__json_put_str(tl_buf *b, const char *s) {
  tl_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': tl_buf_puts(b, "\\\""); break;
    case '\\': tl_buf_puts(b, "\\\\"); break;
    case '\b': tl_buf_puts(b, "\\b"); break;
    case '\f': tl_buf_puts(b, "\\f"); break;
    case '\n': tl_buf_puts(b, "\\n"); break;
    case '\r': tl_buf_puts(b, "\\r"); break;
    case '\t': tl_buf_puts(b, "\\t"); break;
    default:
      if (*p < 32) tl_buf_printf(b, "\\u%04x", *p);
      else tl_buf_putc(b, (char)*p);
    }
  }
  tl_buf_putc(b, '"');
}

static void tl_lsp_features__range_put(tl_buf *b, const tl_lsp_text *t, uint32_t from, uint32_t to) {
  uint32_t l1, c1, l2, c2;
  tl_lsp_text_position(t, from, &l1, &c1);
  tl_lsp_text_position(t, to, &l2, &c2);
  tl_buf_printf(b, "{\"start\":{\"line\":%u,\"character\":%u},\"end\":{\"line\":%u,\"character\":%u}}", l1, c1, l2, c2);
}

/* The range of a finding in a notebook cell: its cell-relative lines and code-point columns in the
 * cell's own text (the analysis' text has magics made harmless, which moves bytes, not lines). A
 * finding that runs into the next cell ends where it starts. */
static void tl_lsp_features__cell_range_put(tl_buf *b, const tl_lsp_text *cell, const tl_finding *fd) {
  uint32_t a = tl_lsp_text_offset_cp(cell, fd->line, fd->col);
  uint32_t e = fd->end_cell == fd->cell ? tl_lsp_text_offset_cp(cell, fd->end_line, fd->end_col) : a;
  tl_lsp_features__range_put(b, cell, a, e < a ? a : e);
}

/* A hot-chain step's location: in a known file, or in a cell of an open notebook (its line is
 * cell-relative there). False when the step is in no file the server knows. */
static bool tl_lsp_features__hot_put(tl_buf *b, tl_lsp *s, const tl_hot_step *h) {
  intptr_t v;
  if (!h->path || !tl_map_get(&s->by_label, h->path, &v) || v <= 0) return false;
  tl_lsp_file *hf = s->files.v[v - 1];
  const tl_lsp_text *ht = NULL;
  const char *uri = hf->uri;
  if (hf->notebook) {
    tl_lsp_cell *c = tl_lsp_notebook_code_cell(hf, h->cell);
    if (!c) return false;
    ht = &c->doc;
    uri = c->uri;
  } else {
    if (hf->aidx < 0) return false;
    ht = tl_lsp_features__view(s, (size_t)hf->aidx);
  }
  uint32_t a = tl_lsp_text_offset_cp(ht, h->line, h->col), e = tl_lsp_features__word_end(ht, a);
  tl_buf_puts(b, "{\"location\":{\"uri\":");
  tl_lsp_features__json_put_str(b, uri);
  tl_buf_puts(b, ",\"range\":");
  tl_lsp_features__range_put(b, ht, a, e);
  tl_buf_puts(b, "},\"message\":");
  tl_lsp_features__json_put_str(b, h->what ? h->what : "");
  tl_buf_putc(b, '}');
  return true;
}

/* A finding as an LSP Diagnostic, written as JSON text (the diagnostics of a whole file are
 * written on every keystroke: building cJSON objects for them cost more than the text). In a
 * notebook, `cell` is the text of the cell holding it; else NULL. */
static void tl_lsp_features__diagnostic_put(tl_buf *b, tl_lsp *s, size_t ai, const tl_finding *fd,
                                            const tl_lsp_text *cell) {
  tl_buf_puts(b, "{\"range\":");
  if (cell) tl_lsp_features__cell_range_put(b, cell, fd);
  else tl_lsp_features__range_put(b, tl_lsp_features__view(s, ai), fd->start_byte, fd->end_byte);
  int sev = fd->severity == TL_SEVERITY_ERROR ? 1 : fd->severity == TL_SEVERITY_WARNING ? 2 : 3;
  tl_buf_printf(b, ",\"severity\":%d,\"code\":", sev);
  tl_lsp_features__json_put_str(b, tl_rule_code(fd->rule));
  if (s->docs_base) {
    char *href = tl_lsp_features__docs_href(s->docs_base, fd->rule);
    tl_buf_puts(b, ",\"codeDescription\":{\"href\":");
    tl_lsp_features__json_put_str(b, href);
    tl_buf_putc(b, '}');
    free(href);
  }
  tl_buf_puts(b, ",\"source\":\"trainlint\",\"message\":");
  if (fd->nhot && !s->cap_related) {
    /* a client without relatedInformation still learns why the code is hot */
    char *hot = tl_hot_text(fd);
    char *msg = tl_printf("%s (hot: %s)", fd->message, hot);
    tl_lsp_features__json_put_str(b, msg);
    free(msg);
    free(hot);
  } else {
    tl_lsp_features__json_put_str(b, fd->message);
  }
  if (fd->nhot && s->cap_related) {
    tl_buf_puts(b, ",\"relatedInformation\":[");
    for (size_t k = 0; k < fd->nhot; k++) {
      size_t mark = b->len;
      if (b->data[b->len - 1] != '[') tl_buf_putc(b, ',');
      if (!tl_lsp_features__hot_put(b, s, &fd->hot[k])) b->len = mark;
    }
    tl_buf_putc(b, ']');
  }
  if (s->cap_tags) {
    bool unnecessary = tl_lsp_features__is_unnecessary(fd);
    bool deprecated = strstr(tl_rule_name(fd->rule), "deprecated") != NULL;
    if (unnecessary || deprecated)
      tl_buf_printf(b, ",\"tags\":[%s%s%s]", unnecessary ? "1" : "", unnecessary && deprecated ? "," : "",
                    deprecated ? "2" : "");
  }
  tl_buf_putc(b, '}');
}

/* The same Diagnostic as a cJSON object (code actions carry it). */
static cJSON *tl_lsp_features__diagnostic(tl_lsp *s, size_t ai, const tl_finding *fd, const tl_lsp_text *cell) {
  tl_buf b = {0};
  tl_lsp_features__diagnostic_put(&b, s, ai, fd, cell);
  cJSON *d = cJSON_ParseWithLength(b.data, b.len);
  tl_buf_free(&b);
  return d ? d : cJSON_CreateObject();
}

/* The diagnostics of one analysis file as a JSON array text. */
static char *tl_lsp_features__items(tl_lsp *s, long ai) {
  if (ai < 0 || (size_t)ai >= s->afiles.n) return tl_strdup("[]");
  const tl_lsp_afile *af = &s->afiles.v[ai];
  tl_buf out = {0};
  tl_buf_putc(&out, '[');
  for (size_t k = af->first; k < af->first + af->count; k++)
    if (tl_lsp_shown(s, k)) {
      if (out.len > 1) tl_buf_putc(&out, ',');
      tl_lsp_features__diagnostic_put(&out, s, (size_t)ai, tl_analysis_finding(s->a, k), NULL);
    }
  /* inputs that could not be analysed (syntax errors are left to the Python language servers) */
  const char *label = tl_analysis_file_path(s->a, (size_t)ai);
  for (size_t i = 0; i < tl_analysis_diag_count(s->a); i++) {
    const tl_diag *dg = tl_analysis_diag(s->a, i);
    if (dg->level != TL_DIAG_ERROR || !dg->path || strcmp(dg->path, label)) continue;
    const tl_lsp_text *t = tl_lsp_features__view(s, (size_t)ai);
    uint32_t off = dg->line ? tl_lsp_text_offset_cp(t, dg->line, dg->col) : 0;
    if (out.len > 1) tl_buf_putc(&out, ',');
    tl_buf_puts(&out, "{\"range\":");
    tl_lsp_features__range_put(&out, t, off, off);
    tl_buf_puts(&out, ",\"severity\":1,\"source\":\"trainlint\",\"message\":");
    tl_lsp_features__json_put_str(&out, dg->message);
    tl_buf_putc(&out, '}');
  }
  tl_buf_putc(&out, ']');
  return tl_buf_take(&out);
}

static char *tl_lsp_features__json_string(const char *s) {
  cJSON *j = cJSON_CreateString(s);
  char *t = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return t;
}

void tl_lsp_publish_uri(tl_lsp *s, const char *uri_text, int64_t version, const char *items) {
  char *uri = tl_lsp_features__json_string(uri_text);
  tl_buf b = {0};
  tl_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":%s,", uri);
  if (version >= 0) tl_buf_printf(&b, "\"version\":%lld,", (long long)version);
  tl_buf_puts(&b, "\"diagnostics\":"); /* (not through printf: the items are long) */
  tl_buf_puts(&b, items);
  tl_buf_puts(&b, "}}");
  tl_lsp_send_raw(s, b.data, b.len);
  tl_buf_free(&b);
  free(uri);
}

static void tl_lsp_features__publish(tl_lsp *s, tl_lsp_file *f, const char *items, bool with_version) {
  tl_lsp_publish_uri(s, f->uri, with_version ? f->version : -1, items);
}

/* The diagnostics of code cell n (1-based) of a notebook as a JSON array text. */
static char *tl_lsp_features__cell_items(tl_lsp *s, tl_lsp_file *f, uint32_t n, const tl_lsp_cell *c) {
  tl_buf out = {0};
  tl_buf_putc(&out, '[');
  long ai = f->aidx;
  if (ai >= 0 && (size_t)ai < s->afiles.n) {
    const tl_lsp_afile *af = &s->afiles.v[ai];
    for (size_t k = af->first; k < af->first + af->count; k++) {
      const tl_finding *fd = tl_analysis_finding(s->a, k);
      if (fd->cell != n || !tl_lsp_shown(s, k)) continue;
      if (out.len > 1) tl_buf_putc(&out, ',');
      tl_lsp_features__diagnostic_put(&out, s, (size_t)ai, fd, &c->doc);
    }
  }
  tl_buf_putc(&out, ']');
  return tl_buf_take(&out);
}

/* After a run: each code cell of an open notebook gets its items, published on the cell's URI when
 * they changed or the notebook has a new version. True when a cell's items changed while the
 * notebook did not (a change elsewhere): a pull client should ask again. */
static bool tl_lsp_features__notebook_after_run(tl_lsp *s, tl_lsp_file *f) {
  bool refresh = false, new_version = f->items_version != f->version;
  uint32_t n = 0;
  for (size_t k = 0; k < f->cells.n; k++) {
    tl_lsp_cell *c = &f->cells.v[k];
    if (!c->code) continue;
    char *items = tl_lsp_features__cell_items(s, f, ++n, c);
    bool changed = !c->items || strcmp(items, c->items);
    if (changed) {
      free(c->items);
      c->items = items;
      c->result_id++;
      if (!new_version) refresh = true;
    } else {
      free(items);
    }
    if (s->pull_mode || (!changed && c->published && !new_version)) continue;
    tl_lsp_publish_uri(s, c->uri, -1, c->items);
    free(c->published);
    c->published = tl_strdup(c->items);
  }
  f->items_version = f->version;
  return refresh;
}

void tl_lsp_after_run(tl_lsp *s) {
  tl_lsp_features__index(s);
  bool refresh = false;
  for (size_t i = 0; i < s->files.n; i++) {
    tl_lsp_file *f = s->files.v[i];
    if (!f->open) continue;
    if (f->notebook) {
      refresh |= tl_lsp_features__notebook_after_run(s, f);
      continue;
    }
    char *items = tl_lsp_features__items(s, f->aidx);
    bool changed = !f->items || strcmp(items, f->items);
    if (changed) {
      free(f->items);
      f->items = items;
      f->result_id++;
      /* changed although the document did not: a change elsewhere (another file, the settings) */
      if (f->version == f->items_version) refresh = true;
    } else {
      free(items);
    }
    f->items_version = f->version;
    if (s->pull_mode) continue;
    /* publish what changed, and once for every new version (the client learns it is analysed) */
    if (changed || !f->published || f->published_version != f->version) {
      tl_lsp_features__publish(s, f, f->items, true);
      free(f->published);
      f->published = tl_strdup(f->items);
      f->published_version = f->version;
    }
  }
  if (s->pull_mode && refresh && s->cap_refresh) tl_lsp_request_refresh(s);
}

void tl_lsp_publish_empty(tl_lsp *s, tl_lsp_file *f) {
  free(f->items);
  f->items = NULL;
  f->result_id++;
  if (s->pull_mode) return;
  if (f->published) tl_lsp_features__publish(s, f, "[]", false);
  free(f->published);
  f->published = NULL;
}

/* ---- pull diagnostics ---- */

void tl_lsp_on_diagnostic(tl_lsp *s, const cJSON *id, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "textDocument.uri");
  if (!uri) {
    tl_lsp_reply_error(s, id, -32602, "textDocument.uri is missing");
    return;
  }
  tl_lsp_flush(s);
  tl_lsp_file *f = tl_lsp_file_by_uri(s, uri);
  tl_lsp_cell *cell = f ? NULL : tl_lsp_notebook_cell(s, uri, NULL);
  const char *prev = tl_lsp_jstr(params, "previousResultId");
  char *ids = cJSON_PrintUnformatted(id);
  tl_buf b = {0};
  tl_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":", ids);
  if (cell) { /* a notebook's cell: its items of the last run (none for markup) */
    char rid[32];
    snprintf(rid, sizeof rid, "%llu", (unsigned long long)cell->result_id);
    if (prev && !strcmp(prev, rid)) tl_buf_printf(&b, "{\"kind\":\"unchanged\",\"resultId\":\"%s\"}}", rid);
    else
      tl_buf_printf(&b, "{\"kind\":\"full\",\"resultId\":\"%s\",\"items\":%s}}", rid, cell->items ? cell->items : "[]");
  } else if (f && f->open && f->items && !f->notebook) {
    char rid[32];
    snprintf(rid, sizeof rid, "%llu", (unsigned long long)f->result_id);
    if (prev && !strcmp(prev, rid)) tl_buf_printf(&b, "{\"kind\":\"unchanged\",\"resultId\":\"%s\"}}", rid);
    else tl_buf_printf(&b, "{\"kind\":\"full\",\"resultId\":\"%s\",\"items\":%s}}", rid, f->items);
  } else {
    char *items = f && f->notebook ? tl_strdup("[]") : tl_lsp_features__items(s, f ? f->aidx : -1);
    tl_buf_printf(&b, "{\"kind\":\"full\",\"items\":%s}}", items);
    free(items);
  }
  tl_lsp_send_raw(s, b.data, b.len);
  tl_buf_free(&b);
  free(ids);
}

/* ---- the document of a request: a file, or a code cell of an open notebook ---- */

/* A request's document. For a cell: the notebook's analysis file holds the cells' code joined
 * (`code`, with its line index); the cell's findings are those with its number (`n`, counting code
 * cells), and a line of the joined code is a line of the cell less `first` - 1 (the cell starts at
 * line `first` of the code, found from one of its findings). */
typedef struct {
  tl_lsp_file *file; /* the file, or the notebook */
  tl_lsp_cell *cell; /* NULL for a file */
  uint32_t n;
  size_t ai;
  const tl_lsp_text *text; /* the document's text: the file's view, or the cell's */
  const tl_lsp_text *code; /* for a cell: the joined code */
} tl_lsp_features__target;

static bool tl_lsp_features__target_of(tl_lsp *s, const char *uri, tl_lsp_features__target *tg) {
  memset(tg, 0, sizeof *tg);
  tl_lsp_file *f = uri ? tl_lsp_file_by_uri(s, uri) : NULL;
  if (f && !f->notebook) {
    if (f->aidx < 0) return false;
    tg->file = f;
    tg->ai = (size_t)f->aidx;
    tg->text = tl_lsp_features__view(s, tg->ai);
    return true;
  }
  tl_lsp_file *nb = NULL;
  tl_lsp_cell *c = uri ? tl_lsp_notebook_cell(s, uri, &nb) : NULL;
  if (!c || !c->code || nb->aidx < 0) return false;
  for (size_t k = 0; k < nb->cells.n; k++) {
    tg->n += nb->cells.v[k].code;
    if (&nb->cells.v[k] == c) break;
  }
  tg->file = nb;
  tg->cell = c;
  tg->ai = (size_t)nb->aidx;
  tg->text = &c->doc;
  tl_lsp_afile *af = &s->afiles.v[tg->ai];
  if (!af->have_lines) {
    tl_lines_init(&af->view.lines, af->view.text, af->view.len);
    af->have_lines = true;
  }
  tg->code = &af->view;
  return true;
}

/* A finding's bytes in the target's text; false when it is in another cell. */
static bool tl_lsp_features__span(const tl_lsp_features__target *tg, const tl_finding *fd, uint32_t *a, uint32_t *b) {
  if (!tg->cell) {
    *a = fd->start_byte;
    *b = fd->end_byte;
    return true;
  }
  if (fd->cell != tg->n) return false;
  *a = tl_lsp_text_offset_cp(tg->text, fd->line, fd->col);
  *b = fd->end_cell == fd->cell ? tl_lsp_text_offset_cp(tg->text, fd->end_line, fd->end_col) : *a;
  if (*b < *a) *b = *a;
  return true;
}

/* A line of the joined code (1-based) as a line of the target's text (0 when it is outside the
 * cell); 0 stands for the finding's own line. */
static uint32_t tl_lsp_features__line(const tl_lsp_features__target *tg, const tl_finding *fd, uint32_t code_line) {
  if (!tg->cell) return code_line ? code_line : fd->line;
  if (!code_line) return fd->line;
  uint32_t first = tl_lines_line(&tg->code->lines, fd->start_byte) - fd->line + 1;
  if (code_line < first || code_line - first + 1 > tg->text->lines.count) return 0;
  return code_line - first + 1;
}

/* An edit's bytes of the joined code as bytes of the target's text: the same line and byte column
 * in the cell (IPython syntax moves no byte of a line a fix may touch: such fixes are dropped). */
static void tl_lsp_features__edit_span(const tl_lsp_features__target *tg, const tl_finding *fd, const tl_edit *ed,
                                       uint32_t *a, uint32_t *b) {
  if (!tg->cell) {
    *a = ed->start;
    *b = ed->end;
    return;
  }
  uint32_t at[2] = {ed->start, ed->end};
  for (int k = 0; k < 2; k++) {
    uint32_t cl = tl_lines_line(&tg->code->lines, at[k]);
    uint32_t col = at[k] - tg->code->lines.starts[cl - 1];
    uint32_t line = tl_lsp_features__line(tg, fd, cl);
    uint32_t start = line ? tg->text->lines.starts[line - 1] : (uint32_t)tg->text->len;
    at[k] = start + col > tg->text->len ? (uint32_t)tg->text->len : start + col;
  }
  *a = at[0];
  *b = at[1] < at[0] ? at[0] : at[1];
}

/* Can each edit of the finding's fix be placed in the target's text: in the cell, on a line of the
 * cell whose bytes are those of the joined code? */
static bool tl_lsp_features__fix_maps(const tl_lsp_features__target *tg, const tl_finding *fd) {
  if (!tg->cell) return true;
  for (size_t j = 0; j < fd->nfix; j++) {
    uint32_t at[2] = {fd->fix[j].start, fd->fix[j].end};
    for (int k = 0; k < 2; k++) {
      uint32_t cl = tl_lines_line(&tg->code->lines, at[k]), line = tl_lsp_features__line(tg, fd, cl);
      if (!line) return false;
      uint32_t cs = tg->code->lines.starts[cl - 1], ts = tg->text->lines.starts[line - 1];
      uint32_t ce = cl < tg->code->lines.count ? tg->code->lines.starts[cl] : (uint32_t)tg->code->len;
      uint32_t te = line < tg->text->lines.count ? tg->text->lines.starts[line] : (uint32_t)tg->text->len;
      /* the line's bytes, less a last newline the cell's last line may lack */
      uint32_t cn = ce - cs, tn = te - ts;
      if (cn && tg->code->text[ce - 1] == '\n' && !(tn && tg->text->text[te - 1] == '\n')) cn--;
      if (cn != tn || memcmp(tg->code->text + cs, tg->text->text + ts, cn)) return false;
    }
  }
  return true;
}

/* ---- code actions ---- */

static bool tl_lsp_features__kind_wanted(const cJSON *only, const char *kind) {
  if (!cJSON_IsArray(only) || !cJSON_GetArraySize(only)) return true;
  const cJSON *o;
  cJSON_ArrayForEach(o, only) {
    if (!cJSON_IsString(o)) continue;
    size_t n = strlen(o->valuestring);
    if (!strncmp(kind, o->valuestring, n) && (kind[n] == 0 || kind[n] == '.')) return true;
  }
  return false;
}

static cJSON *tl_lsp_features__text_edit(const tl_lsp_text *t, uint32_t a, uint32_t b, const char *text) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddItemToObject(e, "range", tl_lsp_features__range_json(t, a, b));
  cJSON_AddStringToObject(e, "newText", text ? text : "");
  return e;
}

/* The edits of one document: the file's, or a notebook cell's (whose version the server does not
 * track: null, as for a file not open). */
static cJSON *tl_lsp_features__workspace_edit(tl_lsp *s, const tl_lsp_file *f, const tl_lsp_cell *cell, cJSON *edits) {
  cJSON *we = cJSON_CreateObject();
  const char *uri = cell ? cell->uri : f->uri;
  if (s->cap_doc_changes) {
    cJSON *dc = cJSON_AddArrayToObject(we, "documentChanges");
    cJSON *tde = cJSON_CreateObject();
    cJSON *td = cJSON_AddObjectToObject(tde, "textDocument");
    cJSON_AddStringToObject(td, "uri", uri);
    if (f->open && !cell) cJSON_AddNumberToObject(td, "version", (double)f->version);
    else cJSON_AddNullToObject(td, "version");
    cJSON_AddItemToObject(tde, "edits", edits);
    cJSON_AddItemToArray(dc, tde);
  } else {
    cJSON_AddItemToObject(cJSON_AddObjectToObject(we, "changes"), uri, edits);
  }
  return we;
}

static cJSON *tl_lsp_features__action(const char *title, const char *kind, cJSON *diag, cJSON *edit, bool preferred) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "title", title);
  cJSON_AddStringToObject(a, "kind", kind);
  if (diag) cJSON_AddItemToArray(cJSON_AddArrayToObject(a, "diagnostics"), diag);
  if (preferred) cJSON_AddBoolToObject(a, "isPreferred", 1);
  cJSON_AddItemToObject(a, "edit", edit);
  return a;
}

void tl_lsp_on_code_action(tl_lsp *s, const cJSON *id, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "textDocument.uri");
  tl_lsp_flush(s);
  tl_lsp_features__target tg;
  cJSON *out = cJSON_CreateArray();
  if (!tl_lsp_features__target_of(s, uri, &tg)) {
    tl_lsp_reply(s, id, out);
    return;
  }
  tl_lsp_file *f = tg.file;
  tl_lsp_cell *cell = tg.cell;
  size_t ai = tg.ai;
  const tl_lsp_text *t = tg.text;
  uint32_t ra, rb;
  if (!tl_lsp_json_range(t, tl_lsp_jpath(params, "range"), &ra, &rb)) {
    cJSON_Delete(out);
    tl_lsp_reply_error(s, id, -32602, "range is missing or invalid");
    return;
  }
  const cJSON *only = tl_lsp_jpath(params, "context.only");
  bool want_fix = tl_lsp_features__kind_wanted(only, "quickfix");
  bool want_all = tl_lsp_features__kind_wanted(only, "source.fixAll.trainlint");
  const tl_lsp_afile *af = &s->afiles.v[ai];
  /* the findings in the range, and those of the diagnostics the client sends as context (Neovim
   * sends the cursor's position with the diagnostics of its line) */
  bool *hit = tl_calloc(af->count + 1, sizeof *hit);
  for (size_t k = af->first; k < af->first + af->count; k++) {
    const tl_finding *fd = tl_analysis_finding(s->a, k);
    uint32_t fa, fb;
    hit[k - af->first] = tl_lsp_features__span(&tg, fd, &fa, &fb) && tl_lsp_shown(s, k) && !(fa > rb || ra > fb);
  }
  const cJSON *cd;
  cJSON_ArrayForEach(cd, tl_lsp_jpath(params, "context.diagnostics")) {
    const char *code = tl_lsp_jstr(cd, "code");
    uint32_t da, db;
    if (!code || !tl_lsp_json_range(t, tl_lsp_jpath(cd, "range"), &da, &db)) continue;
    for (size_t k = af->first; k < af->first + af->count; k++) {
      const tl_finding *fd = tl_analysis_finding(s->a, k);
      uint32_t fa, fb;
      if (tl_lsp_features__span(&tg, fd, &fa, &fb) && fa == da && !strcmp(code, tl_rule_code(fd->rule)) &&
          tl_lsp_shown(s, k))
        hit[k - af->first] = true;
    }
  }
  for (size_t k = af->first; want_fix && k < af->first + af->count; k++) {
    const tl_finding *fd = tl_analysis_finding(s->a, k);
    if (!hit[k - af->first]) continue;
    const char *code = tl_rule_code(fd->rule);
    if (fd->nfix && fd->fix_safety != TL_FIXSAFE_NONE && tl_lsp_features__fix_maps(&tg, fd)) {
      cJSON *edits = cJSON_CreateArray();
      for (size_t j = 0; j < fd->nfix; j++) {
        uint32_t ea, eb;
        tl_lsp_features__edit_span(&tg, fd, &fd->fix[j], &ea, &eb);
        cJSON_AddItemToArray(edits, tl_lsp_features__text_edit(t, ea, eb, fd->fix[j].text));
      }
      const char *ft = tl_rule_fix_title(fd->rule);
      bool safe = fd->fix_safety == TL_FIXSAFE_SAFE;
      char *title = *ft ? tl_printf("%s (%s)%s", ft, code, safe ? "" : " [unsafe]")
                        : tl_printf("Fix %s: %s%s", code, tl_rule_name(fd->rule), safe ? "" : " [unsafe]");
      cJSON_AddItemToArray(out, tl_lsp_features__action(
                                    title, "quickfix", tl_lsp_features__diagnostic(s, ai, fd, cell ? &cell->doc : NULL),
                                    tl_lsp_features__workspace_edit(s, f, cell, edits), safe));
      free(title);
    }
    /* `  # noqa: CODE` at the end of the statement's last line, or the code merged into its comment */
    tl_edit sup = {0, 0, NULL};
    uint32_t sl = tl_lsp_features__line(&tg, fd, fd->stmt_last_line ? fd->stmt_last_line : 0);
    if (sl && tl_suppress_add(t->text, t->len, &t->lines, sl, code, &sup)) {
      /* one suppression per code and line, however many findings it covers */
      bool dup = false;
      for (size_t m = af->first; m < k && !dup; m++) {
        const tl_finding *o = tl_analysis_finding(s->a, m);
        dup = hit[m - af->first] && o->rule == fd->rule && o->stmt_last_line == fd->stmt_last_line;
      }
      if (!dup) {
        cJSON *edits = cJSON_CreateArray();
        cJSON_AddItemToArray(edits, tl_lsp_features__text_edit(t, sup.start, sup.end, sup.text));
        char *title = tl_printf("Suppress %s on this line", code);
        cJSON_AddItemToArray(out,
                             tl_lsp_features__action(title, "quickfix",
                                                     tl_lsp_features__diagnostic(s, ai, fd, cell ? &cell->doc : NULL),
                                                     tl_lsp_features__workspace_edit(s, f, cell, edits), false));
        free(title);
      }
    }
    free(sup.text);
  }
  free(hit);
  if (want_all && !cell) { /* a cell's fixes are offered one by one */
    /* the safe fixes of the file; a finding whose edits overlap one already taken waits (as --fix does) */
    tl_edits taken = {0};
    cJSON *edits = cJSON_CreateArray();
    for (size_t k = af->first; k < af->first + af->count; k++) {
      const tl_finding *fd = tl_analysis_finding(s->a, k);
      if (!fd->nfix || fd->fix_safety != TL_FIXSAFE_SAFE || !tl_lsp_shown(s, k)) continue;
      bool clash = false;
      for (size_t j = 0; j < fd->nfix && !clash; j++)
        for (size_t m = 0; m < taken.n && !clash; m++) clash = tl_edits_clash(&fd->fix[j], &taken.v[m]);
      if (clash) continue;
      for (size_t j = 0; j < fd->nfix; j++) {
        tl_vec_push(&taken, fd->fix[j]);
        cJSON_AddItemToArray(edits, tl_lsp_features__text_edit(t, fd->fix[j].start, fd->fix[j].end, fd->fix[j].text));
      }
    }
    if (taken.n)
      cJSON_AddItemToArray(out,
                           tl_lsp_features__action("Fix all trainlint issues in this file", "source.fixAll.trainlint",
                                                   NULL, tl_lsp_features__workspace_edit(s, f, NULL, edits), false));
    else cJSON_Delete(edits);
    tl_vec_free(&taken);
  }
  tl_lsp_reply(s, id, out);
}

/* ---- hover ---- */

void tl_lsp_on_hover(tl_lsp *s, const cJSON *id, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "textDocument.uri");
  const cJSON *line = tl_lsp_jpath(params, "position.line"), *ch = tl_lsp_jpath(params, "position.character");
  if (!uri || !cJSON_IsNumber(line) || !cJSON_IsNumber(ch) || line->valuedouble < 0 || ch->valuedouble < 0) {
    tl_lsp_reply_error(s, id, -32602, "textDocument.uri or position is missing or invalid");
    return;
  }
  tl_lsp_flush(s);
  tl_lsp_features__target tg;
  if (!tl_lsp_features__target_of(s, uri, &tg)) {
    tl_lsp_reply(s, id, NULL);
    return;
  }
  const tl_lsp_text *t = tg.text;
  uint32_t off = tl_lsp_text_offset(t, (uint32_t)line->valuedouble, (uint32_t)ch->valuedouble);
  const tl_lsp_afile *af = &s->afiles.v[tg.ai];
  tl_buf md = {0};
  const tl_finding *first = NULL;
  uint32_t first_a = 0, first_b = 0;
  for (size_t k = af->first; k < af->first + af->count; k++) {
    const tl_finding *fd = tl_analysis_finding(s->a, k);
    uint32_t fa, fb;
    if (!tl_lsp_features__span(&tg, fd, &fa, &fb) || off < fa || off > fb || !tl_lsp_shown(s, k)) continue;
    if (first) {
      tl_buf_puts(&md, "\n\n---\n\n");
    } else {
      first = fd;
      first_a = fa;
      first_b = fb;
    }
    tl_buf_printf(&md, "**%s** `%s` (%s)\n\n%s\n", tl_rule_code(fd->rule), tl_rule_name(fd->rule),
                  tl_severity_name(fd->severity), fd->message);
    if (fd->nhot) {
      char *hot = tl_hot_text(fd);
      tl_buf_printf(&md, "\n*Why hot:* %s\n", hot);
      free(hot);
    }
    if (*tl_rule_help(fd->rule)) tl_buf_printf(&md, "\n*Help:* %s\n", tl_rule_help(fd->rule));
    tl_buf_printf(&md, "\n%s\n", tl_rule_doc(fd->rule));
  }
  if (!first) {
    tl_lsp_reply(s, id, NULL);
    return;
  }
  cJSON *res = cJSON_CreateObject();
  cJSON *c = cJSON_AddObjectToObject(res, "contents");
  cJSON_AddStringToObject(c, "kind", s->cap_markdown ? "markdown" : "plaintext");
  cJSON_AddStringToObject(c, "value", md.data);
  cJSON_AddItemToObject(res, "range", tl_lsp_features__range_json(t, first_a, first_b));
  tl_buf_free(&md);
  tl_lsp_reply(s, id, res);
}
