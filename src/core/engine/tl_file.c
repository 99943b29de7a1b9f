/* tl_file.c - phase 1 for one file: read it (or take the editor's text), check it, parse it,
 * build its model and run the rule query over it; after an edit, only over the changed region
 * (tl_incremental.c). Runs on a worker thread: it touches only its file. */
#include "tl_incremental.h"

#include <stdio.h>
#include <string.h>

#include "tl_cache.h"
#include "tl_notebook.h"
#include "tl_source.h"

/* Drops what phase 1 computed for a file (its text and path stay). */
void tl_file_reset(tl_file *f) {
  tl_lines_free(&f->lines);
  tl_model_free(&f->model);
  memset(&f->model, 0, sizeof f->model);
  for (size_t i = 0; i < f->cands.n; i++) tl_candidate_free(&f->cands.v[i]);
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

void tl_file_take_source(tl_file *f, tl_source *s) {
  free(f->text);
  f->text = s->text;
  f->len = s->len;
  s->text = NULL;
  tl_source_free(s);
}

void tl_file_free(tl_file *f) {
  tl_notebook_free(f->nb);
  free(f->path);
  free(f->text);
  free(f->mem);
  if (f->tree) ts_tree_delete(f->tree);
  tl_mentions_free(f->mentions);
  tl_file_reset(f);
  free(f->targets);
}

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

/* Makes a worker's parser parse the next text as a new parser would. ts_parser_reset is not enough:
 * it resets the external scanner through deserialize(NULL, 0), which in tree-sitter-python 0.23.6
 * leaves the scanner's "inside an f-string" flag as the last text left it, so a file ending inside an
 * unterminated f-string made the next file parsed by the same worker lose its dedents (a syntax
 * error and lost findings that depended on which files a worker had parsed before). Setting the
 * language again destroys the scanner and creates a new one (one small allocation). */
static void tl_parser__renew(TSParser *p) { ts_parser_set_language(p, ts_parser_language(p)); }

/* The syntax errors of a file, as located warnings: one per top-level statement holding an ERROR or
 * MISSING node (up to TL_SYNTAX_REPORTS), at the first such node, naming the statement's lines.
 * tree-sitter's recovery can read valid code around an error with another structure (a
 * continuation line indented less than its statement ends the loop it is in), so findings of that
 * statement may be missing; those of the other statements are not affected. */
#define TL_SYNTAX_REPORTS 8
static void tl_report_syntax(tl_file *f, TSNode root) {
  TSTreeCursor cur = ts_tree_cursor_new(root);
  size_t reported = 0, more = 0;
  uint32_t last_top = UINT32_MAX; /* the start of the statement reported last */
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    bool error = !strcmp(ts_node_type(n), "ERROR"), missing = ts_node_is_missing(n);
    if (error || missing) {
      TSNode top = n;
      for (TSNode p = ts_node_parent(top); !ts_node_is_null(p) && !ts_node_eq(p, root); p = ts_node_parent(p)) top = p;
      uint32_t ts = ts_node_start_byte(top), te = ts_node_end_byte(top);
      if (ts == last_top) {
        /* the same statement: said already */
      } else if (reported == TL_SYNTAX_REPORTS) {
        more++;
      } else {
        uint32_t s = ts_node_start_byte(n);
        uint32_t line = tl_lines_line(&f->lines, s), col = tl_lines_col(&f->lines, f->text, s);
        uint32_t a = tl_lines_line(&f->lines, ts), z = te > ts ? tl_lines_line(&f->lines, te - 1) : a;
        char *what = missing ? tl_printf("syntax error: missing '%s'", ts_node_type(n)) : tl_strdup("syntax error");
        if (z > a)
          tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, line, col,
                       "%s: the statement at lines %u-%u may be read with another structure, and findings in "
                       "it may be missing; findings elsewhere in the file are still reported",
                       what, a, z);
        else
          tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, line, col,
                       "%s: findings on line %u may be missing; findings elsewhere in the file are still reported",
                       what, a);
        free(what);
        reported++;
      }
      last_top = ts;
    }
    if (!error && ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cur)) continue;
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cur)) moved = true;
      else if (!ts_tree_cursor_goto_parent(&cur)) break;
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cur);
  if (more) tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, 1, 1, "%zu more statements hold syntax errors", more);
  if (!reported) tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, 1, 1, "syntax error");
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
    if (ch == '\n') {
      (*line)++;
      *col = 1;
    } else if ((ch & 0xC0) != 0x80) (*col)++;
  }
  fclose(fp);
}

/* A notebook's JSON in f->text becomes the Python of its code cells, with f->nb mapping its lines
 * back to cells; false (with a located diagnostic) when it is no valid notebook. */
static bool tl_file__notebook(tl_file *f) {
  tl_notebook_free(f->nb);
  f->nb = NULL;
  size_t off = 0;
  char *msg = NULL;
  tl_notebook *nb = tl_notebook_parse(f->text, f->len, &off, &msg);
  if (!nb) {
    tl_lines jl;
    tl_lines_init(&jl, f->text, f->len);
    tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, tl_lines_line(&jl, (uint32_t)off),
                 tl_lines_col(&jl, f->text, (uint32_t)off), "%s: not analysed", msg);
    tl_lines_free(&jl);
    free(msg);
    return false;
  }
  free(f->text);
  f->text = tl_strndup(nb->code, nb->len); /* the notebook keeps its own: tl_notebook_apply maps from it */
  f->len = nb->len;
  f->nb = nb;
  tl_lines_free(&f->lines);
  memset(&f->lines, 0, sizeof f->lines);
  return true;
}

static void tl_file__run(tl_analysis *a, tl_worker *w, tl_file *f, tl_prev *prev) {
  if (f->mem || f->in_memory) {
    bool fresh = f->mem != NULL;
    f->hashed = f->preread = false;
    if (f->mem) {
      free(f->text);
      f->text = f->mem;
      f->mem = NULL;
    }
    if (!f->text) f->text = tl_strdup("");
    size_t bad, max = tl_source_max_bytes(a->opts.max_file_bytes);
    if (f->len > max) { /* an editor's buffer: the limit of a file on disk */
      char *msg = tl_source_too_large_message((unsigned long long)f->len, max);
      tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, 0, 0, "%s: not analysed", msg);
      free(msg);
      return;
    }
    if (memchr(f->text, 0, f->len)) {
      tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, 0, 0, "binary file (contains NUL bytes): not analysed");
      return;
    }
    if (!(prev->valid ? tl_utf8_valid_edited(f, &bad) : tl_utf8_valid(f->text, f->len, &bad))) {
      tl_lines_init(&f->lines, f->text, f->len);
      uint32_t off = (uint32_t)bad;
      tl_diags_add(&f->diags, TL_DIAG_ERROR, f->path, tl_lines_line(&f->lines, off),
                   tl_lines_col(&f->lines, f->text, off), "invalid UTF-8 (byte 0x%02x): not analysed",
                   (unsigned char)f->text[bad]);
      return;
    }
    if (fresh && tl_notebook_path(f->path) && !tl_file__notebook(f)) return;
  } else {
    tl_source s = {0};
    size_t off = 0;
    char *msg = NULL;
    /* read by the look-up of the run's results (tl_analysis.c), with its hashes; else read now */
    tl_source_status st = f->preread ? TL_SOURCE_OK
                                     : tl_source_read_max(f->path, a->opts.max_file_bytes, &s, &off, &msg);
    if (f->preread) {
      s.text = f->text;
      s.len = f->len;
      f->text = NULL;
    } else {
      f->hashed = false;
    }
    f->preread = false;
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
    tl_file_take_source(f, &s);
    if (tl_notebook_path(f->path)) {
      if (!tl_file__notebook(f)) return;
    } else if (tl_cache_load(a->cache, f, a->rules)) { /* phase 1 as an earlier run did it */
      for (size_t i = 0; i < a->step_iterables.n; i++) tl_vec_push(&f->model.step_iterables, a->step_iterables.v[i]);
      tl_lines_init(&f->lines, f->text, f->len);
      f->cached = true;
      return;
    }
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
  tl_parser__renew(w->parser);
  TSTree *tree = ts_parser_parse_string(w->parser, f->tree, parse_text, (uint32_t)f->len);
  /* Error recovery can parse the same erroneous text differently from scratch and from an edited
   * tree; the findings must not depend on the edits that led to the text: such a text is parsed
   * again from scratch (valid text, the usual case while typing, parses the same both ways). */
  if (tree && f->tree && ts_node_has_error(ts_tree_root_node(tree))) {
    ts_tree_delete(tree);
    tl_parser__renew(w->parser);
    tree = ts_parser_parse_string(w->parser, NULL, parse_text, (uint32_t)f->len);
  }
  tl_region g;
  bool partial = tl_region_find(f, prev, tree, &g);
  if (f->tree) {
    ts_tree_delete(f->tree);
    f->tree = NULL;
  }
  if (!tree && tl_analysis_stopping(a)) { /* a cancelled run: the next one parses the file again */
    f->dirty = true;
    if (parse_text != f->text) free(parse_text);
    return;
  }
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
  /* one budget of time for the model and the matching, and one of nodes for the model */
  unsigned budget = a->opts.file_budget_ms ? a->opts.file_budget_ms : TL_FILE_BUDGET_MS;
  f->deadline_ns = tl_now_ns() + (uint64_t)budget * 1000000u;
  f->model.walk_deadline_ns = f->deadline_ns;
  f->model.walk_node_budget = a->opts.file_node_budget ? a->opts.file_node_budget : TL_FILE_NODE_BUDGET;
  f->model.walk_cancel = &a->cancel;
  /* the model: the top-level statements outside the region copied from the last run's */
  long copied = partial ? tl_model_rebuild(&f->model, &prev->model, root, parse_text, code, module, is_pkg, &f->diags,
                                           f->path, g.rs, g.re_old, g.re_new)
                        : -1;
  if (copied < 0)
    tl_model_rebuild(&f->model, NULL, root, parse_text, code, module, is_pkg, &f->diags, f->path, 0, 0, 0);
  f->model_copied = copied > 0 ? (size_t)copied : 0;
  free(module);
  f->ok = true;

  const tl_ruleset *rs = a->rules;
  if (a->opts.keep_trees) tl_incremental_snapshot(f); /* for the next run's tl_region_holds: editors only */
  if (partial) partial = tl_region_holds(&g, prev, f, w);
  bool exceeded = false;
  if (f->model.walk_stopped) { /* too complex to model: nothing of the file is matched */
    partial = false;
    f->stopped_at = f->model.walk_stop_byte;
    tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, tl_lines_line(&f->lines, f->stopped_at),
                 tl_lines_col(&f->lines, f->text, f->stopped_at),
                 "too complex to analyse: modelling the file took longer than %u ms or visited more than %u syntax "
                 "nodes and stopped here; none of the file's findings are reported",
                 budget, f->model.walk_node_budget);
  } else if (rs->query) {
    if (partial && tl_match_file(a, f, w, root, parse_text, g.rs, g.re_new)) { /* redo it all, as a fresh run would */
      partial = false;
      for (size_t i = 0; i < f->cands.n; i++) tl_candidate_free(&f->cands.v[i]);
      tl_vec_free(&f->cands);
    }
    if (!partial) exceeded = tl_match_file(a, f, w, root, parse_text, 0, UINT32_MAX);
    if (exceeded)
      tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, 0, 0,
                   "query match limit (%u) exceeded: some findings may be missing", TL_QUERY_MATCH_LIMIT);
    if (f->stopped_at != UINT32_MAX) { /* too complex to analyse in the time budget */
      partial = false;
      tl_diags_add(&f->diags, TL_DIAG_WARNING, f->path, tl_lines_line(&f->lines, f->stopped_at),
                   tl_lines_col(&f->lines, f->text, f->stopped_at),
                   "too complex to analyse: matching the rules took longer than %u ms and stopped here; findings "
                   "from here to the end of the file are not reported",
                   budget);
    }
  }
  if (partial) tl_region_splice(f, prev, &g);
  f->partial = partial;
  f->reusable = a->opts.keep_trees && !exceeded && f->stopped_at == UINT32_MAX;
  /* The tree is gone after this: drop the model's node references. */
  for (size_t i = 0; i < f->model.bindings.n; i++) f->model.bindings.v[i].value_ = (TSNode){0};
  for (size_t i = 0; i < f->model.classes.n; i++)
    for (size_t j = 0; j < f->model.classes.v[i].attrs.n; j++) f->model.classes.v[i].attrs.v[j].value_ = (TSNode){0};
  f->model.lazy_root = (TSNode){0}; /* lazy bindings now have no value node either */
  f->model.walk_cancel = NULL;
  if (tl_analysis_stopping(a)) {
    /* A cancelled run (the walk or the matching may have stopped short): what it made of the file
     * is thrown away, and the next run analyses the file again in full, as if it had changed. */
    f->dirty = true;
    f->reusable = f->partial = false;
    f->stopped_at = UINT32_MAX;
    tl_diags_free(&f->diags);
    if (a->opts.keep_trees) f->tree = tree; /* the text's tree, for the next run's parse */
    else ts_tree_delete(tree);
    if (parse_text != f->text) free(parse_text);
    return;
  }
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
    if (!f->in_memory && !f->nb && f->stopped_at == UINT32_MAX) tl_cache_store(a->cache, f, rs);
  }
  if (parse_text != f->text) free(parse_text);
}

void tl_file_analyze(tl_analysis *a, tl_file *f, tl_worker *w) {
  if (tl_analysis_stopping(a)) return; /* a cancelled run: the file stays changed, for the next one */
  tl_prev prev;
  tl_prev_take(&prev, f, a->opts.keep_trees);
  tl_file_reset(f);
  f->rerun = true;
  f->cached = false;
  f->dirty = false;
  f->reusable = f->partial = false;
  f->model_copied = 0;
  f->stopped_at = UINT32_MAX;
  f->deadline_ns = 0;
  tl_file__run(a, w, f, &prev);
  f->edited = false;
  tl_prev_free(&prev);
}
