/* fuzz_notebook.c - libFuzzer harness: a Jupyter notebook read as Python (tl_notebook), its line
 * map checked against the code it made, then analysed as `nb.ipynb` with every rule; every fix
 * kept writes back into a notebook with as many code cells. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tl_notebook.h"

static tl_ruleset *rules;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  rules = fuzz_all_rules();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256 * 1024) return -1;
  size_t off = (size_t)-1;
  char *msg = NULL;
  tl_notebook *nb = tl_notebook_parse((const char *)data, size, &off, &msg);
  if (!nb) {
    FUZZ_CHECK(msg && !strncmp(msg, "not a valid notebook: ", 22) && off <= size);
    free(msg);
  } else {
    FUZZ_CHECK(nb->code && strlen(nb->code) == nb->len);
    FUZZ_CHECK(nb->len == 0 || nb->code[nb->len - 1] == '\n');
    uint32_t lines = 0;
    for (size_t i = 0; i < nb->len; i++) lines += nb->code[i] == '\n';
    FUZZ_CHECK(nb->ncells <= lines);
    uint32_t prev = 0, prev_line = 0;
    for (uint32_t l = 1; l <= lines; l++) {
      uint32_t cell, cl;
      tl_notebook_locate(nb, l, &cell, &cl);
      FUZZ_CHECK(cell >= 1 && cell <= nb->ncells && cell >= prev && cl >= 1);
      FUZZ_CHECK(cell != prev || cl == prev_line + 1); /* lines of a cell are consecutive */
      prev = cell;
      prev_line = cl;
    }
    tl_notebook_free(nb);
  }
  tl_analysis *a = tl_analysis_new(rules, NULL);
  tl_analysis_add_text(a, "nb.ipynb", (const char *)data, size);
  tl_analysis_run(a);
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    FUZZ_CHECK(f->cell >= 1 && f->line >= 1 && f->end_cell >= f->cell);
    if (f->nfix) { /* a fix kept is one that writes back into a notebook */
      const tl_notebook *fnb = tl_analysis_file_notebook(a, f->file);
      size_t flen, foff;
      const char *why;
      char *fmsg = NULL, *json = tl_notebook_apply(fnb, f->fix, f->nfix, &flen, &why);
      FUZZ_CHECK(json != NULL);
      tl_notebook *again = tl_notebook_parse(json, flen, &foff, &fmsg);
      FUZZ_CHECK(again != NULL && again->ncells == fnb->ncells);
      tl_notebook_free(again);
      free(json);
    }
  }
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) FUZZ_CHECK(tl_analysis_diag(a, i)->message != NULL);
  tl_analysis_delete(a);
  return 0;
}
