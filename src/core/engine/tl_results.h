/* tl_results.h - the cached results of whole runs (docs/cache.md). A run over files that were all
 * read from disk leaves its findings, diagnostics and count of suppressed findings in the cache
 * directory, keyed by the cache's key (trainlint's build, the rules, the options) and by every
 * file's path and text, in the run's order. A later run over the same files, all unchanged, takes
 * them as they are: it needs neither the files' entries nor phases 2 and 3.
 *
 *   results-<hash of the key and the paths>
 *           "TLR1", the key (16 bytes), the hash of the paths and texts (16 bytes), the body's
 *           length and hash (u64 each), the body, "TLR1"
 *
 * One file per set of paths (`check a/` and `check b/` keep one each), written to a temporary
 * file renamed over the old one. One that does not validate, or names a rule, a file or a byte
 * range that this run does not have, is a miss.
 *
 * Ownership: tl_results_load fills the analysis' findings (their strings owned by it, scopes in
 * a->result_strs) and diagnostics; tl_results_store only reads the analysis. */
#ifndef TL_RESULTS_H
#define TL_RESULTS_H

#include "tl_cache.h"

/* The results of the run over a's files, whose texts (read from disk) and hashes must be set: true
 * when found and valid (a's findings, diagnostics and suppressed count are then filled), else
 * false with a untouched. */
bool tl_results_load(const tl_cache *c, tl_analysis *a);
/* Records the last run's results, when every file was read from disk and analysed (no editor
 * buffer, notebook or file that could not be read). Errors are ignored. */
void tl_results_store(const tl_cache *c, const tl_analysis *a);

#endif
