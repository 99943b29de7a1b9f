/* tl_fix.h - text edits, unified diffs and safe (atomic, checked) file rewriting. */
#ifndef TL_FIX_H
#define TL_FIX_H

#include "tl_util.h"
#include "trainlint.h"

/* Applies the n non-overlapping edits (in any order; they are taken by start, and are not
 * changed) to `src`. Edits that overlap an earlier one are skipped and counted in *skipped (may
 * be NULL). Returns the new text (malloc'd, NUL-terminated) and its length in *out_len. */
char *tl_edits_apply(const char *src, size_t len, const tl_edit *edits, size_t n, size_t *out_len, size_t *skipped);

/* Do two edits of one text clash (so that only one finding's fix may be taken)? They do when
 * their ranges overlap, and when one inserts at either end of (or inside) a range the other
 * replaces: the inserted text may depend on the text replaced (`x=v, y=f(v)` after `v` changed). */
bool tl_edits_clash(const tl_edit *a, const tl_edit *b);

/* Writes a unified diff of `a` -> `b` to `out`, with headers "--- a/<path>" and "+++ b/<path>"
 * (so `git apply` and `patch -p1` accept it when path is relative to the working directory),
 * 3 lines of context, hunks merged when their contexts touch. A text that does not end in a
 * newline gets the "\ No newline at end of file" marker. Nothing is written when a == b. */
void tl_diff_unified(tl_buf *out, const char *path, const char *a, size_t alen, const char *b, size_t blen);

typedef enum {
  TL_WRITE_OK = 0,
  TL_WRITE_CHANGED, /* the file on disk no longer holds `expect`: refused, nothing written */
  TL_WRITE_IO       /* an I/O error; the original file is untouched */
} tl_write_status;

/* Replaces the contents of `path` with `data` atomically: re-reads the file and refuses when it
 * differs from `expect` (the bytes the analysis saw), writes a temporary file in the same
 * directory, fsyncs it, copies the original's mode (and owner when permitted), and renames it
 * over the original. On any failure the temporary file is removed and the original is untouched.
 * `*message` gets a malloc'd explanation on failure (caller frees). */
tl_write_status tl_file_replace(const char *path, const char *expect, size_t expect_len, const char *data, size_t len,
                                char **message);

#endif
