/* tl_notebook.h - a Jupyter notebook (nbformat 4 JSON) read as Python: its code cells joined, IPython
 * magics and shell lines made harmless, and the map from a line of that text back to its cell. */
#ifndef TL_NOTEBOOK_H
#define TL_NOTEBOOK_H

#include "tl_util.h"

/* The Python text of a notebook and where each code cell starts in it. Owns everything. */
typedef struct tl_notebook {
  char *code;      /* the code cells joined, each ending with a newline; NUL-terminated */
  size_t len;      /* bytes of code */
  uint32_t *first; /* per code cell: the line of code (1-based) where it starts */
  uint32_t ncells; /* code cells */
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
void tl_notebook_free(tl_notebook *nb);

#endif
