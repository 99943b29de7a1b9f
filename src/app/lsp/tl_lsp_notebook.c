/* tl_lsp_notebook.c - notebook documents in the language server (LSP 3.17 notebookDocument/...).
 *
 * A notebook the client opens is a known file (tl_lsp_file, `notebook` set) whose buffer is the
 * nbformat 4 JSON built from its cells, so the analysis reads it as it reads a `.ipynb` file from
 * disk: code cells joined, magics made harmless, findings located by cell (tl_notebook.h). The
 * cells keep their own texts and URIs; tl_lsp_features.c publishes each code cell's diagnostics on
 * the cell's URI. Markup cells are kept (they hold places in the cell list) but not analysed. */
#include <stdlib.h>
#include <string.h>

#include "tl_lsp_internal.h"
#include "tl_util.h"

/* NotebookCellKind: 1 Markup, 2 Code */
#define TL_LSP__CELL_CODE 2

static void tl_lsp_notebook__cell_free(tl_lsp_cell *c) {
  free(c->uri);
  tl_lsp_text_free(&c->doc);
  free(c->items);
  free(c->published);
  memset(c, 0, sizeof *c);
}

/* A cell that goes (removed, or its notebook closed): the diagnostics pushed for it are cleared. */
static void tl_lsp_notebook__unpublish(tl_lsp *s, const tl_lsp_cell *c) {
  if (c->published && !s->pull_mode) tl_lsp_publish_uri(s, c->uri, -1, "[]");
}

void tl_lsp_notebook_clear(tl_lsp_file *f) {
  for (size_t i = 0; i < f->cells.n; i++) tl_lsp_notebook__cell_free(&f->cells.v[i]);
  tl_vec_free(&f->cells);
  f->notebook = false;
}

static tl_lsp_file *tl_lsp_notebook__find(tl_lsp *s, const char *uri) {
  tl_lsp_file *f = uri ? tl_lsp_file_by_uri(s, uri) : NULL;
  return f && f->notebook ? f : NULL;
}

tl_lsp_cell *tl_lsp_notebook_cell(tl_lsp *s, const char *uri, tl_lsp_file **notebook) {
  for (size_t i = 0; uri && i < s->files.n; i++) {
    tl_lsp_file *f = s->files.v[i];
    for (size_t k = 0; f->notebook && k < f->cells.n; k++)
      if (!strcmp(f->cells.v[k].uri, uri)) {
        if (notebook) *notebook = f;
        return &f->cells.v[k];
      }
  }
  return NULL;
}

tl_lsp_cell *tl_lsp_notebook_code_cell(tl_lsp_file *f, uint32_t n) {
  for (size_t k = 0; n && k < f->cells.n; k++)
    if (f->cells.v[k].code && --n == 0) return &f->cells.v[k];
  return NULL;
}

/* A NotebookCell ({kind, document}) as a cell with empty text (its text comes with the cell text
 * documents); false when it is malformed. */
static bool tl_lsp_notebook__cell_from(const cJSON *j, tl_lsp_cell *c) {
  const char *uri = tl_lsp_jstr(j, "document");
  const cJSON *kind = tl_lsp_jpath(j, "kind");
  if (!uri || !cJSON_IsNumber(kind)) return false;
  memset(c, 0, sizeof *c);
  c->uri = tl_strdup(uri);
  c->code = (int)kind->valuedouble == TL_LSP__CELL_CODE;
  tl_lsp_text_set(&c->doc, "", 0);
  return true;
}

/* Sets the texts of the cells named by an array of TextDocumentItems ({uri, text, ...}). */
static void tl_lsp_notebook__texts(tl_lsp_file *f, const cJSON *items) {
  const cJSON *it;
  cJSON_ArrayForEach(it, items) {
    const char *uri = tl_lsp_jstr(it, "uri"), *text = tl_lsp_jstr(it, "text");
    for (size_t k = 0; uri && text && k < f->cells.n; k++)
      if (!strcmp(f->cells.v[k].uri, uri)) tl_lsp_text_set(&f->cells.v[k].doc, text, strlen(text));
  }
}

/* The notebook's buffer: nbformat 4 JSON of its cells, which the analysis reads as a `.ipynb`. */
static void tl_lsp_notebook__rebuild(tl_lsp *s, tl_lsp_file *f) {
  cJSON *nb = cJSON_CreateObject();
  cJSON *cells = cJSON_AddArrayToObject(nb, "cells");
  for (size_t k = 0; k < f->cells.n; k++) {
    const tl_lsp_cell *c = &f->cells.v[k];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "cell_type", c->code ? "code" : "markdown");
    cJSON_AddItemToObject(j, "metadata", cJSON_CreateObject());
    cJSON_AddStringToObject(j, "source", c->doc.text ? c->doc.text : "");
    if (c->code) {
      cJSON_AddNullToObject(j, "execution_count");
      cJSON_AddItemToObject(j, "outputs", cJSON_CreateArray());
    }
    cJSON_AddItemToArray(cells, j);
  }
  cJSON_AddItemToObject(nb, "metadata", cJSON_CreateObject());
  cJSON_AddNumberToObject(nb, "nbformat", 4);
  cJSON_AddNumberToObject(nb, "nbformat_minor", 5);
  char *text = cJSON_PrintUnformatted(nb);
  cJSON_Delete(nb);
  tl_lsp_text_set(&f->doc, text ? text : "{}", text ? strlen(text) : 2);
  free(text);
  tl_lsp_sync_file(s, f);
}

static void tl_lsp_notebook__version(tl_lsp_file *f, const cJSON *params) {
  const cJSON *v = tl_lsp_jpath(params, "notebookDocument.version");
  if (cJSON_IsNumber(v)) f->version = (int64_t)v->valuedouble;
}

void tl_lsp_notebook_on_open(tl_lsp *s, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "notebookDocument.uri");
  const cJSON *cells = tl_lsp_jpath(params, "notebookDocument.cells"), *it;
  if (!uri || !cJSON_IsArray(cells)) {
    tl_lsp_log(s, "notebookDocument/didOpen without uri or cells: ignored");
    return;
  }
  tl_lsp_file *f = tl_lsp_file_get(s, uri, NULL);
  if (f->open && !f->notebook) {
    tl_lsp_log(s, "notebookDocument/didOpen for %s, open as a text document: ignored", uri);
    return;
  }
  tl_lsp_notebook_clear(f);
  f->notebook = true;
  f->open = true;
  cJSON_ArrayForEach(it, cells) {
    tl_lsp_cell c;
    if (tl_lsp_notebook__cell_from(it, &c)) tl_vec_push(&f->cells, c);
  }
  tl_lsp_notebook__texts(f, tl_lsp_jpath(params, "cellTextDocuments"));
  tl_lsp_notebook__version(f, params);
  tl_lsp_notebook__rebuild(s, f);
}

/* change.cells.structure: `array` replaces deleteCount cells at start by `cells`; the new cells'
 * texts come in didOpen, and the cells of didClose are gone. */
static void tl_lsp_notebook__structure(tl_lsp *s, tl_lsp_file *f, const cJSON *st) {
  const cJSON *start = tl_lsp_jpath(st, "array.start"), *del = tl_lsp_jpath(st, "array.deleteCount");
  const cJSON *add = tl_lsp_jpath(st, "array.cells"), *it;
  if (!cJSON_IsNumber(start) || !cJSON_IsNumber(del) || start->valuedouble < 0 || del->valuedouble < 0 ||
      start->valuedouble > (double)f->cells.n || start->valuedouble + del->valuedouble > (double)f->cells.n) {
    tl_lsp_log(s, "notebookDocument/didChange for %s with a malformed cell array change: ignored", f->uri);
    return;
  }
  size_t at = (size_t)start->valuedouble, n = (size_t)del->valuedouble;
  TL_VEC(tl_lsp_cell) next = {0};
  for (size_t k = 0; k < at; k++) tl_vec_push(&next, f->cells.v[k]);
  cJSON_ArrayForEach(it, add) {
    tl_lsp_cell c;
    if (tl_lsp_notebook__cell_from(it, &c)) tl_vec_push(&next, c);
  }
  for (size_t k = at + n; k < f->cells.n; k++) tl_vec_push(&next, f->cells.v[k]);
  for (size_t k = at; k < at + n; k++) {
    tl_lsp_notebook__unpublish(s, &f->cells.v[k]); /* its diagnostics go with it */
    tl_lsp_notebook__cell_free(&f->cells.v[k]);
  }
  tl_vec_free(&f->cells);
  f->cells.v = next.v;
  f->cells.n = next.n;
  f->cells.cap = next.cap;
  tl_lsp_notebook__texts(f, tl_lsp_jpath(st, "didOpen"));
}

void tl_lsp_notebook_on_change(tl_lsp *s, const cJSON *params) {
  const char *uri = tl_lsp_jstr(params, "notebookDocument.uri");
  tl_lsp_file *f = tl_lsp_notebook__find(s, uri);
  if (!f) {
    if (uri) tl_lsp_log(s, "notebookDocument/didChange for %s, which is not open: ignored", uri);
    return;
  }
  const cJSON *cells = tl_lsp_jpath(params, "change.cells"), *it;
  const cJSON *st = tl_lsp_jpath(cells, "structure");
  if (cJSON_IsObject(st)) tl_lsp_notebook__structure(s, f, st);
  /* data: a cell's kind may change (code to markup) */
  cJSON_ArrayForEach(it, tl_lsp_jpath(cells, "data")) {
    tl_lsp_cell c;
    if (!tl_lsp_notebook__cell_from(it, &c)) continue;
    for (size_t k = 0; k < f->cells.n; k++)
      if (!strcmp(f->cells.v[k].uri, c.uri)) f->cells.v[k].code = c.code;
    tl_lsp_notebook__cell_free(&c);
  }
  cJSON_ArrayForEach(it, tl_lsp_jpath(cells, "textContent")) {
    const char *curi = tl_lsp_jstr(it, "document.uri");
    tl_lsp_cell *c = NULL;
    for (size_t k = 0; curi && k < f->cells.n && !c; k++)
      if (!strcmp(f->cells.v[k].uri, curi)) c = &f->cells.v[k];
    if (!c) {
      tl_lsp_log(s, "notebookDocument/didChange for a cell %s does not hold: ignored", f->uri);
      continue;
    }
    const cJSON *ch;
    cJSON_ArrayForEach(ch, tl_lsp_jpath(it, "changes")) {
      const char *text = tl_lsp_jstr(ch, "text");
      const cJSON *range = tl_lsp_jpath(ch, "range");
      uint32_t a, b;
      if (!text) continue;
      if (!range || cJSON_IsNull(range)) tl_lsp_text_set(&c->doc, text, strlen(text));
      else if (tl_lsp_json_range(&c->doc, range, &a, &b)) tl_lsp_text_replace(&c->doc, a, b, text, strlen(text));
      else tl_lsp_log(s, "notebookDocument/didChange for %s with a malformed range: change ignored", curi);
    }
  }
  tl_lsp_notebook__version(f, params);
  tl_lsp_notebook__rebuild(s, f);
}

void tl_lsp_notebook_on_close(tl_lsp *s, const cJSON *params) {
  tl_lsp_file *f = tl_lsp_notebook__find(s, tl_lsp_jstr(params, "notebookDocument.uri"));
  if (!f) return;
  for (size_t k = 0; k < f->cells.n; k++) tl_lsp_notebook__unpublish(s, &f->cells.v[k]);
  tl_lsp_notebook_clear(f);
  f->open = false;
  tl_lsp_text_free(&f->doc);
  tl_lsp_sync_file(s, f); /* notebooks on disk are not in the workspace's analysis: it leaves */
  free(f->items);
  f->items = NULL;
  f->result_id++;
}
