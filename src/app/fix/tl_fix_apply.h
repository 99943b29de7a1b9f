/* tl_fix_apply.h - applying the fixes of an analysis' findings: one pass (tl_fixes_apply), and the
 * rounds of `--fix` and `--diff` (tl_fixes_apply_all). */
#ifndef TL_FIX_APPLY_H
#define TL_FIX_APPLY_H

#include "trainlint.h"

/* Called for each file whose text the fixes change, with its text before and after: both are
 * borrowed for the call (nothing is written to disk here; the callback decides). */
typedef void tl_fixed_fn(void *ctx, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen);

/* Builds each file's fixed text from its findings' fixes (safe ones, plus unsafe when asked).
 * `fixed[i]` is set for findings whose fix was taken (fixed may be NULL); a finding whose entry is
 * already set on entry is not fixed (one the report hides). For every file with
 * edits calls cb(ctx, file, old, oldlen, new, newlen). Returns the number of fixes taken;
 * overlapping fixes are resolved deterministically (the earlier finding wins; the other stays
 * reported). */
size_t tl_fixes_apply(const tl_analysis *a, bool unsafe, bool *fixed, tl_fixed_fn *cb, void *ctx);

/* What `--fix` does: tl_fixes_apply, then the changed files are analysed again and fixed again,
 * until no fix applies or TL_FIX_ROUNDS rounds have run, so that a fix which clashed with another
 * one (two rules on one call) is made on the other's result. Before each round skip(skip_ctx, a,
 * flags) may set flags[i] for findings not to fix (disabled, in a baseline); flags has one entry
 * per finding and starts false. cb gets each changed file's text as first read and its final
 * text. The analysis is left at the final texts. Returns the number of fixes taken. */
#define TL_FIX_ROUNDS 8
size_t tl_fixes_apply_all(tl_analysis *a, bool unsafe, void (*skip)(void *skip_ctx, const tl_analysis *a, bool *flags),
                          void *skip_ctx, tl_fixed_fn *cb, void *ctx);

#endif
