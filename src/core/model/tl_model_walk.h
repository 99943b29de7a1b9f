/* tl_model_walk.h - the model's walk over a syntax tree, shared by tl_model.c (the walk) and
 * tl_incremental.c (the segments a rebuild copies instead of walking). Private to the two. */
#ifndef TL_MODEL_WALK_H
#define TL_MODEL_WALK_H

#include "tl_rules.h"

typedef struct tl_walk_ctx {
  tl_file_model *m;
  const char *src;
  tl_diags *diags;
  const char *path;
  int32_t func, cls, loop;
  uint32_t guard_depth;            /* >0 when inside a frequency-guarded block of this function */
  bool in_main;                    /* inside the module's `if __name__ == "__main__":` block */
  TL_VEC(const char *) guard_vars; /* names assigned a frequency test in the current function (in the model's strs) */
  TSTreeCursor cur;                /* reused to list children (ts_node_named_child(n, i) rescans from child 0) */
  TL_VEC(TSNode) kids;             /* a stack of the child lists being walked */
  TL_VEC(TSNode) call_nodes; /* per call of the model: its node, or a null node when copied (tl_values_summarise) */
  TL_VEC(TSNode) ret_nodes;  /* per return of the model: its value node, likewise */
  TL_VEC(uint32_t) call_old; /* per call: 1 + its index in the old model when copied, else 0 */
  bool walked_defs;          /* a walked statement added a module-level binding or a class */
  uint32_t stmt_call[2];     /* start and end byte of the call that is the current expression statement */
  uint64_t visits;           /* nodes visited (tl_file_model.walk_node_budget) */
} tl_walk_ctx;

/* Visits a node and its subtree at nesting depth `depth`, adding what it finds to c->m. */
void tl_walk_visit(tl_walk_ctx *c, TSNode n, int depth);
/* Binds an import alias to its qualified name (and logs it for rebuilds). */
void tl_walk_set_import(tl_file_model *m, const char *alias, const char *qual);

/* ---- segments (tl_incremental.c) ---- */

/* Copies old segment `os` (entries [b, e) of each list of `old`) into `m` after a segment walk or
 * copy: offsets move by `d`, rows by `dr`; `vals` holds its bindings' then its attributes' value
 * nodes in the new tree. The strings are not copied: they are in `m`'s table, which it took over
 * from `old`. */
typedef struct {
  const tl_file_model *old;
  tl_segment b, e;
  int64_t d, dr;
  uint32_t old_mod_start, new_mod_start;
} tl_seg_copy;

/* Where the entries of segment `i` of model `m` end in each list: the next segment's starts. */
tl_segment tl_segment_end(const tl_file_model *m, size_t i);
/* Records that the walk starts top-level statement `ch`: where its entries start in each list. */
void tl_segment_open(tl_file_model *m, TSNode ch);
/* Are the first n import bindings of the two models the same (alias and qualified name)? */
bool tl_segment_imports_same(const tl_file_model *m, const tl_file_model *old, size_t n);
/* Is the walk's state after the new model's entries so far the one `old` had before its segment
 * `oj`: the same imports bound in the same order, the same module-level frequency-test names? */
bool tl_segment_state_same(const tl_file_model *m, const tl_file_model *old, const tl_segment *oj);
/* Appends the entries of an old segment to c->m instead of walking its statement (see tl_seg_copy). */
void tl_segment_copy(tl_walk_ctx *c, const tl_seg_copy *k);

#endif
