/* tl_incremental.h - phase 1 after an edit (editors): the region of changed top-level statements,
 * the checks that let the rest of the last run stand, and the splice of old and new candidates. */
#ifndef TL_INCREMENTAL_H
#define TL_INCREMENTAL_H

#include "tl_match.h"

typedef struct {
  uint32_t rs, re_old, re_new; /* the region: [rs, re_old) of the old text is [rs, re_new) of the new */
  int64_t delta;               /* re_new - re_old: the shift of everything after the region */
  const char *old_text, *new_text;
} tl_region;

/* What the previous run of a file left for the incremental path. */
typedef struct {
  bool valid;
  tl_file_model model;
  tl_candidate *cands;
  size_t ncands;
  tl_range *vals;
  tl_filematches fmatch;
  char *text;
  size_t len;
  tl_lines lines; /* of `text` */
} tl_prev;

/* Moves what the last run of f left for the incremental path into `prev` (prev->valid: there is
 * such a run: f was edited since, with its tree kept). f's model, candidates, text and lines are
 * then empty. */
void tl_prev_take(tl_prev *prev, tl_file *f, bool keep_trees);
/* Frees `prev` once the new model was built (it may have taken prev's strings over). */
void tl_prev_free(tl_prev *prev);
/* tl_utf8_valid for f's text after edits, when the text before them was valid. */
bool tl_utf8_valid_edited(const tl_file *f, size_t *bad);
/* The region of the new tree to query again, with its extent in the old text: false when the
 * whole file must be queried. */
bool tl_region_find(const tl_file *f, const tl_prev *prev, TSTree *tree, tl_region *g);
/* With f's new model built (and its values snapshotted): may the last run's candidates outside the
 * region stand? Records #file-match? verdicts of the new text in f->fmatch. */
bool tl_region_holds(const tl_region *g, const tl_prev *prev, tl_file *f, tl_worker *w);
/* After the region was queried: f's candidates are the old ones before the region, the new ones in
 * it and the old ones after it (moved); f->call_map maps the new model's calls to the old ones. */
void tl_region_splice(tl_file *f, tl_prev *prev, const tl_region *g);
/* Records the byte ranges of the model's value nodes, for the next run's comparison. */
void tl_incremental_snapshot(tl_file *f);

#endif
