/* tl_lsp_internal.h - the language server's state, shared by tl_lsp.c (protocol, documents) and tl_lsp_features.c. */
#ifndef TL_LSP_INTERNAL_H
#define TL_LSP_INTERNAL_H

#include <cjson/cJSON.h>
#include <pthread.h>

#include "tl_config.h"
#include "tl_lsp.h"
#include "tl_map.h"
#include "trainlint.h"

/* A cell of an open notebook document: its own text document, with the diagnostics of the
 * notebook's findings that fall in it. */
typedef struct {
  char *uri;       /* the cell's text document (a `vscode-notebook-cell:` URI, say) */
  bool code;       /* a code cell (NotebookCellKind 2); markup cells are not analysed */
  tl_lsp_text doc; /* its text as the client holds it */
  char *items;     /* its diagnostics after the last run, as JSON array text (code cells) */
  char *published; /* push: the items last published */
  uint64_t result_id;
} tl_lsp_cell;

/* A Python file the server knows: a workspace file on disk, an open buffer, or both; or an open
 * notebook document, analysed as the nbformat JSON of its cells (tl_lsp_notebook.c). */
typedef struct {
  char *label;  /* its path in the analysis: relative to its workspace folder, else absolute (or the URI) */
  char *abs;    /* absolute local path; NULL for a URI that is not `file:` */
  char *uri;    /* as the client spelled it when it opened the file, else built from abs */
  bool present; /* in the analysis */
  bool open;    /* an editor buffer (wins over the disk) */
  bool on_disk; /* came from the workspace walk or a watched-file event */
  long aidx;    /* its index in the analysis after the last run, -1 if none */
  tl_lsp_text doc;
  int64_t version;
  /* diagnostics: the items of the last analysis, as JSON array text */
  char *items;
  int64_t items_version; /* the version they were computed for */
  int64_t prev_version;  /* the version of the analysis before that */
  uint64_t result_id;    /* pull: bumped whenever `items` changes */
  char *published;       /* push: the items last published */
  int64_t published_version;
  tl_config *cfg; /* its nearest pyproject.toml configuration (owned by the server's cache) */
  bool cfg_known; /* cfg was looked up since the configurations were last loaded */
  bool notebook;  /* an open notebook document: doc is the JSON built from its cells */
  TL_VEC(tl_lsp_cell) cells;
} tl_lsp_file;

/* Per analysis file, rebuilt after each run: which known file it is, its findings, its lines. */
typedef struct {
  tl_lsp_file *file;
  size_t first, count; /* findings [first, first + count) */
  tl_lsp_text view;    /* non-owning text (the analysis' copy) with a lazily built line index */
  bool have_lines;
} tl_lsp_afile;

struct tl_lsp {
  tl_lsp_opts o;
  tl_lsp_reader rd;
  TL_VEC(cJSON *) queue;
  size_t qhead;
  tl_map cancelled; /* printed request id -> 1 while a $/cancelRequest for it is pending */
  bool eof, initialize_seen, initialized, shutdown, exit_now;
  int exit_code;
  int64_t next_request_id;

  /* what the client can do */
  bool cap_related, cap_tags, cap_pull, cap_refresh, cap_doc_changes, cap_markdown, cap_watch_dynamic;
  bool pull_mode;

  /* settings */
  tl_strvec select, ignore, rule_dirs;
  char *docs_base; /* trainlint.docsBaseUrl; NULL: no codeDescription */

  tl_ruleset *rules;
  tl_analysis *a;
  TL_VEC(tl_lsp_file *) files;
  tl_map by_uri, by_abs, by_label; /* -> index in files + 1 */
  tl_strvec roots;                 /* absolute workspace folder paths */

  bool dirty;         /* documents changed since the last analysis */
  double dirty_since; /* when the first unanalysed change arrived (seconds, monotonic) */
  uint64_t runs;
  double last_run_ms;

  /* The analysis on a worker thread (tl_lsp_serve): while it runs, the main thread reads input
   * and answers what needs no analysis; anything else waits for it, and a change cancels it. The
   * worker touches only `a` and writes one byte to done_fd[1] when it ends. */
  bool running; /* a worker thread is running tl_analysis_run(a) */
  pthread_t worker;
  int done_fd[2];   /* a pipe: readable when the worker has ended; -1: analyses run on the main thread */
  double run_since; /* the dirty_since of the changes the running analysis covers */
  double run_start; /* when it started, and (written by the worker) when tl_analysis_run returned */
  double run_end;
  TL_VEC(tl_lsp_afile) afiles;
  bool *hidden; /* per finding of the last run: disabled for its file by its configuration */

  /* pyproject.toml [tool.trainlint], as the CLI applies it */
  tl_config_cache cfg; /* configurations by directory */
  tl_config *primary;  /* the first workspace folder's: severity, hot names, frameworks, excludes */
  tl_diags cfg_diags;  /* configuration errors (file:line:col), published on the pyproject.toml */
  tl_strvec cfg_uris;  /* pyproject.toml URIs holding published errors */
};

/* tl_lsp.c */
void tl_lsp_log(tl_lsp *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_lsp_send(tl_lsp *s, cJSON *msg); /* takes ownership */
void tl_lsp_reply(tl_lsp *s, const cJSON *id, cJSON *result);
void tl_lsp_reply_error(tl_lsp *s, const cJSON *id, int code, const char *message);
void tl_lsp_notify(tl_lsp *s, const char *method, cJSON *params);
void tl_lsp_send_raw(tl_lsp *s, const char *body, size_t len); /* a complete JSON-RPC message */
void tl_lsp_request_refresh(tl_lsp *s);                        /* workspace/diagnostic/refresh */
tl_lsp_file *tl_lsp_file_by_uri(tl_lsp *s, const char *uri);
/* Analyses now when documents changed since the last analysis (before answering from findings). */
void tl_lsp_flush(tl_lsp *s);
/* The nearest configuration of a known file (cached; NULL: the defaults). */
tl_config *tl_lsp_file_config(tl_lsp *s, tl_lsp_file *f);
/* Is finding k of the last run shown (enabled for its file by the configuration and the settings)? */
bool tl_lsp_shown(const tl_lsp *s, size_t k);

/* Finds or adds the known file of a URI (or of an absolute path when uri is NULL). */
tl_lsp_file *tl_lsp_file_get(tl_lsp *s, const char *uri, const char *abs);
/* The analysis gets a file's current contents: the buffer when open, else the disk. */
void tl_lsp_sync_file(tl_lsp *s, tl_lsp_file *f);

/* tl_lsp_notebook.c: notebook documents (LSP 3.17 notebookDocument notifications) */
void tl_lsp_notebook_on_open(tl_lsp *s, const cJSON *params);
void tl_lsp_notebook_on_change(tl_lsp *s, const cJSON *params);
void tl_lsp_notebook_on_close(tl_lsp *s, const cJSON *params);
/* The cell whose text document is `uri`, and the notebook holding it; NULL if none. */
tl_lsp_cell *tl_lsp_notebook_cell(tl_lsp *s, const char *uri, tl_lsp_file **notebook);
/* The code cell `n` (1-based, counting code cells only, as findings do) of a notebook, or NULL. */
tl_lsp_cell *tl_lsp_notebook_code_cell(tl_lsp_file *f, uint32_t n);
/* Frees a notebook's cells (when it closes, or with the server). */
void tl_lsp_notebook_clear(tl_lsp_file *f);

/* tl_lsp_features.c */
/* After a run: index findings per file, recompute every open document's items and publish (push)
 * or ask the client to pull again (pull). */
void tl_lsp_after_run(tl_lsp *s);
/* The analysis file of a known file, or -1. */
long tl_lsp_afile_of(tl_lsp *s, const tl_lsp_file *f);
void tl_lsp_afiles_clear(tl_lsp *s);
void tl_lsp_on_diagnostic(tl_lsp *s, const cJSON *id, const cJSON *params);
void tl_lsp_on_code_action(tl_lsp *s, const cJSON *id, const cJSON *params);
void tl_lsp_on_hover(tl_lsp *s, const cJSON *id, const cJSON *params);
/* textDocument/publishDiagnostics for `uri` with the items (a JSON array text); version < 0: none. */
void tl_lsp_publish_uri(tl_lsp *s, const char *uri, int64_t version, const char *items);
/* Published for a closed file: no diagnostics. */
void tl_lsp_publish_empty(tl_lsp *s, tl_lsp_file *f);

/* JSON helpers */
const char *tl_lsp_jstr(const cJSON *o, const char *key);
const cJSON *tl_lsp_jpath(const cJSON *o, const char *path); /* "a.b.c" */
bool tl_lsp_jbool(const cJSON *o, const char *path);
/* A protocol Range as byte offsets of t (start <= end); false when it is missing or malformed. */
bool tl_lsp_json_range(const tl_lsp_text *t, const cJSON *range, uint32_t *start, uint32_t *end);

#endif
