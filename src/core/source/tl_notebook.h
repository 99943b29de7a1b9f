/* tl_notebook.h - a Jupyter notebook (nbformat 4 JSON) read as Python: its code cells joined, IPython
 * magics and shell lines made harmless, and the map from a line of that text back to its cell. */
#ifndef TL_NOTEBOOK_H
#define TL_NOTEBOOK_H

#include "tl_util.h"
#include "trainlint.h"

/* One code cell: where its source is in the JSON and its code in the joined text, and its source
 * as the notebook holds it (magics and shell lines unchanged). */
typedef struct {
  size_t json_start, json_end; /* the `source` value's bytes in the JSON ([0, 0): no `source` key) */
  size_t code_start, code_end; /* the cell's bytes in code (its lines, each newline included) */
  char *source;                /* decoded; NUL-terminated */
  size_t source_len;
} tl_notebook_cell;

/* The Python text of a notebook and where each code cell starts in it. Owns everything. */
typedef struct tl_notebook {
  char *code;      /* the code cells joined, each ending with a newline; NUL-terminated */
  size_t len;      /* bytes of code */
  uint32_t *first; /* per code cell: the line of code (1-based) where it starts */
  uint32_t ncells; /* code cells */
  tl_notebook_cell *cells;
  char *json; /* the notebook as read (what a rewrite starts from); NUL-terminated */
  size_t json_len;
} tl_notebook;

/* Is `path` named like a notebook (`.ipynb`)? */
bool tl_notebook_path(const char *path);
/* Reads the notebook JSON in json[0, len) into a new tl_notebook (the caller frees it with
 * tl_notebook_free). On failure returns NULL with a malloc'd message in *message and the byte
 * offset of the problem in *error_offset. Markdown and raw cells are left out; in code cells, a
 * line magic or shell line (`%matplotlib inline`, `!pip install x`, `files = !ls`) becomes `pass`
 * (or `None` on the right of an assignment) with its indentation kept, and a cell magic other than
 * %%time, %%timeit, %%capture and %%prun blanks its whole cell. */
tl_notebook *tl_notebook_parse(const char *json, size_t len, size_t *error_offset, char **message);
/* The code cell (1-based) holding `line` of the code, and the line within that cell (1-based). */
void tl_notebook_locate(const tl_notebook *nb, uint32_t line, uint32_t *cell, uint32_t *cell_line);
/* The notebook's JSON with `n` edits of its code applied (tl_edit: bytes of `code`; none may
 * overlap), each code cell's `source` rewritten as a list of lines and every other byte kept. NULL
 * (with a static reason in *why) when an edit spans two cells or touches a line that IPython syntax
 * made different from the notebook's (a magic, a shell line, a blanked cell). The caller frees. */
char *tl_notebook_apply(const tl_notebook *nb, const tl_edit *edits, size_t n, size_t *out_len, const char **why);
void tl_notebook_free(tl_notebook *nb);

#endif
