/* tl_baseline.h - reporting only what a change adds: baselines of known findings, and findings
 * on the lines changed since a git revision. */
#ifndef TL_BASELINE_H
#define TL_BASELINE_H

#include "trainlint.h"

/* Writes the analysis' findings to `path` as a baseline (JSON: code, path, fingerprint, and the
 * line for humans). Returns false with a malloc'd message on failure. */
bool tl_baseline_write(const tl_analysis *a, const char *path, char **message);
/* Sets hidden[i] for each finding recorded in the baseline at `path`. Matching is by rule, path
 * and fingerprint (which ignores line numbers), as a multiset: two recorded findings hide at most
 * two equal ones. Returns false with a message when the file cannot be read or parsed. */
bool tl_baseline_filter(const tl_analysis *a, const char *path, bool *hidden, char **message);
/* Is `rev` a commit of the git working tree around the current directory? False with a message
 * (not a revision, not in a working tree, no such commit): checked before the analysis. */
bool tl_diff_base_check(const char *rev, char **message);
/* Sets hidden[i] for each finding none of whose statement lines changed since git revision `rev`
 * (`git diff --unified=0 REV` from the top of the working tree; files git does not track and does
 * not ignore are new, every line changed), matching files by their real paths, so it works from a
 * subdirectory and with any spelling of the paths. Returns false with a message when git fails:
 * then every finding is hidden. */
bool tl_diff_base_filter(const tl_analysis *a, const char *rev, bool *hidden, char **message);

#endif
