/* tl_cache.h - the persistent cache of phase 1 (docs/cache.md). For each file on disk it keeps what
 * phase 1 computed (the model, the candidates, the diagnostics), keyed by the file's path and
 * contents and by everything else phase 1 reads: trainlint's own build, the rules and the
 * options. Phases 2 and 3 run on every run that changed a file, over cached and freshly analysed
 * files alike, so a finding that depends on another file follows that file's current contents; a
 * run that changed none takes its results whole (tl_results.h).
 *
 * Ownership: tl_cache_open returns a cache the caller deletes with tl_cache_delete; it borrows
 * nothing. tl_cache_load fills the file it is given; tl_cache_store only reads it. */
#ifndef TL_CACHE_H
#define TL_CACHE_H

#include "tl_engine.h"

typedef struct tl_cache tl_cache;

/* A cache in directory `dir` (made, with its parents' last component, when missing) for the rules
 * and settings of `a`. NULL when it cannot be used (the directory cannot be made, or the running
 * executable cannot be identified): the run goes on without it. */
tl_cache *tl_cache_open(const char *dir, const tl_analysis *a);
void tl_cache_delete(tl_cache *c);

/* Fills f's model, candidates and diagnostics from the entry for f->path when that entry was
 * made from the same text (f->text, f->len) under the same key, and sets f->ok. False, with f
 * untouched, on a miss or an entry that does not validate (truncated, corrupt, another key).
 * Thread-safe for distinct files. */
bool tl_cache_load(tl_cache *c, tl_file *f, const tl_ruleset *rs);

/* The body of f's entry: what phase 1 computed for it (its tree gone), as a pack keeps it. */
void tl_cache_encode(const tl_file *f, const tl_ruleset *rs, tl_buf *out);
/* The reverse, for a body that may be anything (a damaged pack, a fuzzer's input): fills f's
 * model, candidates and diagnostics and sets f->ok when the body decodes whole and every index
 * and byte range in it is within bounds for a text of f->len bytes (f->path is only read); false,
 * with f untouched, otherwise. */
bool tl_cache_decode(const char *body, size_t len, const tl_ruleset *rs, tl_file *f);
/* Records what phase 1 computed for f (its tree gone) in the new pack. Thread-safe. */
void tl_cache_store(tl_cache *c, const tl_file *f, const tl_ruleset *rs);

/* After phase 1: when the run changed anything (an entry stored, or an old one stale), writes the
 * new pack: this run's entries, the old entries it took, and those of files it did not look at that
 * still exist. The pack is written to a temporary file renamed over the old one, so a reader sees
 * the old pack or the new, never a torn one. Errors are ignored: the next run analyses the files
 * again. Not thread-safe: call it once phase 1 is over. */
void tl_cache_flush(tl_cache *c);

/* Does the pack hold an entry for `path` (not checked against the file's text)? A run takes its
 * whole results from the cache only when every file has one, so that the run after an edit finds
 * the other files' entries. */
bool tl_cache_has(const tl_cache *c, const char *path);
/* The hashes of f's text that its entry is keyed by (f->text_hash), computed once per text. */
void tl_cache_text_hash(tl_file *f);
/* The cache's directory, and its key (trainlint's build, the rules, the options), for the results
 * of whole runs (tl_results.h) kept beside the packs. */
const char *tl_cache_dir(const tl_cache *c);
void tl_cache_key(const tl_cache *c, uint64_t key[2]);

#endif
