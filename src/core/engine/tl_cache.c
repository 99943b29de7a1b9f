/* tl_cache.c - the persistent cache of phase 1 (tl_cache.h, docs/cache.md).
 *
 * One pack file per key, `pack-<key>` in the cache directory, written once per run that changed
 * anything (to a temporary file renamed over the old pack): a file per source file would cost a
 * file creation each, which on a cold run of a large tree costs more than the cache saves.
 *
 *   pack    "TLP1", the key, the entries, an index (per entry: path hash, offset, length),
 *           the index's offset, count and hash, "TLP1"
 *   entry   "TLC5", the key (16 bytes: trainlint's build, the rules, the options: x__run_key),
 *           16 bytes of hash and 8 of length of the file's text, the path (u32 length, bytes),
 *           the body's length (u64) and hash (8 bytes), the body
 *
 * The body is the file's phase 1 results as written by x__file. One function per structure both
 * writes and reads it (a tl_codec says which), so that the two directions cannot drift
 * apart. Plain structures are copied whole; their pointers are written after them as strings
 * (interned again into the model's string table when read, so that equal texts are again equal
 * pointers) and patched in when read. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "tl_cache.h"

#include "tl_codec.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TL_CACHE__MAGIC \
  "TLC5" /* 2: bind_order sorted by name within each function; 3: tl_loop.in_main;
                                  * 4: result slots (tl_vdep.slot, tl_binding.slot, tl_func.slot_kind);
                                  * 5: tl_candidate.veval, tl_flag_guard.when */
#define TL_CACHE__PACK_MAGIC "TLP1"
#define TL_CACHE__STALE_DAYS 30 /* packs of other keys untouched this long are removed */

typedef struct {
  uint64_t hash, off, len; /* the path's hash; the entry's place in its pack */
} tl_cache__slot;

struct tl_cache {
  char *dir, *pack; /* the directory, and the pack of this key in it */
  uint64_t key[2];
  /* the pack as the last run left it (mapped read-only), and its index sorted by path hash */
  const char *old;
  size_t old_len;
  tl_cache__slot *slots;
  size_t nslots;
  pthread_mutex_t lock;         /* guards what follows: phase 1 runs on several threads */
  bool *reused;                 /* per slot: this run took it */
  TL_VEC(uint64_t) seen;        /* path hashes of the files this run looked up */
  int fd;                       /* the new pack, being written (-1: not started) */
  char *tmp;                    /* its name */
  TL_VEC(tl_cache__slot) fresh; /* entries written to it */
  uint64_t end;                 /* its length so far */
  bool failed;                  /* a write failed: the new pack is dropped */
};

typedef struct {
  tl_buf b; /* everything that goes into the key, separated */
} tl_cache__keyb;

static void x__key_str(tl_cache__keyb *k, const char *s) {
  if (s) tl_buf_puts(&k->b, s);
  tl_buf_putc(&k->b, '\0');
  tl_buf_putc(&k->b, s ? '\1' : '\2');
}

static void x__key_u64(tl_cache__keyb *k, uint64_t v) { tl_buf_put(&k->b, (const char *)&v, sizeof v); }

/* dl_iterate_phdr's callback: the GNU build ID of each loaded object (the executable, then the
 * libraries: tree-sitter and PCRE2 decide parses and matches too), a hash the linker makes of its
 * contents, appended to the key's bytes. */
static int x__build_id(struct dl_phdr_info *info, size_t size, void *kp) {
  (void)size;
  tl_cache__keyb *k = kp;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      const char *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
      if (desc + nh->n_descsz > end) break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
        tl_buf_put(&k->b, desc, nh->n_descsz);
        return 0;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return 0;
}

/* The key of a run: what phase 1 reads besides the file. trainlint's own build is identified by
 * its executable's GNU build ID (any change of the code changes it), else by the executable
 * file's size, modification time and inode: a rebuild invalidates every entry. */
static bool x__run_key(const tl_analysis *a, uint64_t key[2]) {
  tl_cache__keyb k = {0};
  x__key_str(&k, "trainlint-cache " TL_CACHE__MAGIC " " TL_VERSION);
  size_t before = k.b.len;
  dl_iterate_phdr(x__build_id, &k);
  if (k.b.len == before) {
    struct stat st;
    if (stat("/proc/self/exe", &st)) {
      tl_buf_free(&k.b);
      return false;
    }
    x__key_u64(&k, (uint64_t)st.st_size);
    x__key_u64(&k, (uint64_t)st.st_mtim.tv_sec);
    x__key_u64(&k, (uint64_t)st.st_mtim.tv_nsec);
    x__key_u64(&k, (uint64_t)st.st_ino);
  }
  x__key_u64(&k, (uint64_t)a->opts.max_file_bytes);
  const tl_strvec *lists[] = {&a->hot_functions, &a->step_iterables, &a->frameworks};
  for (size_t l = 0; l < 3; l++) {
    x__key_u64(&k, lists[l]->n);
    for (size_t i = 0; i < lists[l]->n; i++) x__key_str(&k, lists[l]->v[i]);
  }
  const tl_ruleset *rs = a->rules;
  x__key_u64(&k, rs->rules.n);
  for (size_t i = 0; i < rs->rules.n; i++) {
    const tl_rule *r = rs->rules.v[i];
    const char *texts[] = {r->code, r->name, r->path, r->message, r->fix_title, r->help, r->query_src};
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) x__key_str(&k, texts[t]);
    x__key_u64(&k, (uint64_t)r->severity | (uint64_t)r->fix_safety << 8 | (uint64_t)r->hot << 16 |
                       (uint64_t)r->default_on << 40 | (uint64_t)r->enabled << 41 | (uint64_t)r->project_scope << 42 |
                       (uint64_t)r->needs_accel << 43 | (uint64_t)r->check << 44);
    for (size_t j = 0; j < r->fix.n; j++) {
      x__key_u64(&k, r->fix.v[j].kind);
      x__key_str(&k, r->fix.v[j].capture);
      x__key_str(&k, r->fix.v[j].tmpl);
    }
    for (size_t j = 0; j < r->supersedes.n; j++) x__key_str(&k, r->supersedes.v[j]);
  }
  key[0] = tl_hash64(k.b.data, k.b.len, 1);
  key[1] = tl_hash64(k.b.data, k.b.len, 2);
  tl_buf_free(&k.b);
  return true;
}

/* ---- the codec of an entry ---- */

static void x__binding(tl_codec *c, tl_binding *b) {
  tl_codec_str(c, &b->name);
  tl_codec_str(c, &b->ctor);
  if (c->load) b->value_ = (TSNode){0}; /* the tree is gone, as after phase 1 */
}

/* A vector of bindings (the model's, or a class's attributes): copied whole, then its strings. */
#define X_BINDINGS(c, vec) \
  do { \
    X_VEC((c), (vec)); \
    for (size_t i_ = 0; i_ < (vec)->n && !(c)->bad; i_++) x__binding((c), &(vec)->v[i_]); \
  } while (0)

static void x__imports(tl_codec *c, tl_map *m) {
  size_t n = m->count;
  if (!tl_codec_count(c, &n, 8)) return;
  size_t slot = 0;
  for (size_t i = 0; i < n && !c->bad; i++) {
    char *key = NULL;
    const char *val = NULL;
    if (!c->load) {
      while (!m->slots[slot].key) slot++;
      key = m->slots[slot].key;
      val = (const char *)m->slots[slot].value;
      slot++;
    }
    tl_codec_ostr(c, &key);
    tl_codec_str(c, &val);
    if (c->load) {
      if (key && val) tl_map_set(m, key, (intptr_t)val);
      else c->bad = true;
      free(key);
    }
  }
}

static void x__suppressions(tl_codec *c, tl_suppressions *s) {
  if (!X_ROOM(c, s, 26)) return; /* 26: the least one takes written */
  for (size_t i = 0; i < s->n && !c->bad; i++) {
    tl_suppression *x = &s->v[i];
    X_VAL(c, x->line);
    X_VAL(c, x->col);
    X_VAL(c, x->start);
    X_VAL(c, x->end);
    X_VAL(c, x->file_level);
    X_VAL(c, x->all);
    if (!X_ROOM(c, &x->codes, 4)) return;
    for (size_t j = 0; j < x->codes.n; j++) tl_codec_ostr(c, &x->codes.v[j]);
    X_VEC(c, &x->used);
  }
}

static void x__model(tl_codec *c, tl_file_model *m) {
  tl_codec_str(c, &m->module);
  X_VAL(c, m->is_package);
  x__imports(c, &m->imports);
  X_VEC(c, &m->funcs);
  for (size_t i = 0; i < m->funcs.n && !c->bad; i++) {
    tl_codec_str(c, &m->funcs.v[i].name);
    tl_codec_str(c, &m->funcs.v[i].qual);
    tl_codec_str(c, &m->funcs.v[i].display);
  }
  X_VAL(c, m->funcs_sorted);
  if (!X_ROOM(c, &m->classes, 8)) return;
  for (size_t i = 0; i < m->classes.n && !c->bad; i++) {
    tl_class *k = &m->classes.v[i];
    tl_codec_str(c, &k->name);
    tl_codec_str(c, &k->qual);
    X_STRS(c, &k->bases);
    X_BINDINGS(c, &k->attrs);
    X_VAL(c, k->line);
    X_VAL(c, k->decorated);
  }
  X_VEC(c, &m->loops);
  X_VEC(c, &m->calls);
  for (size_t i = 0; i < m->calls.n && !c->bad; i++) tl_codec_str(c, &m->calls.v[i].callee);
  X_BINDINGS(c, &m->bindings);
  X_STRS(c, &m->params);
  X_VEC(c, &m->param_off);
  X_STRS(c, &m->param_lit);
  X_VEC(c, &m->flag_guards);
  for (size_t i = 0; i < m->flag_guards.n && !c->bad; i++) {
    tl_codec_str(c, &m->flag_guards.v[i].flag);
    tl_codec_str(c, &m->flag_guards.v[i].lit);
  }
  X_STRS(c, &m->off_names);
  X_VEC(c, &m->rets);
  X_VEC(c, &m->args);
  for (size_t i = 0; i < m->args.n && !c->bad; i++) {
    tl_codec_str(c, &m->args.v[i].kw);
    tl_codec_str(c, &m->args.v[i].option);
    tl_codec_str(c, &m->args.v[i].lit);
  }
  X_VEC(c, &m->rdeps);
  uint8_t order = m->bind_first != NULL; /* (a byte: a body may hold any value) */
  X_VAL(c, order);
  if (order && !c->bad) {
    size_t nb = m->bindings.n ? m->bindings.n : 1, nf = m->funcs.n + 1;
    if (c->load) {
      m->bind_order = tl_calloc(nb, sizeof *m->bind_order);
      m->bind_first = tl_calloc(nf, sizeof *m->bind_first);
    }
    tl_codec_bytes(c, m->bind_order, nb * sizeof *m->bind_order);
    tl_codec_bytes(c, m->bind_first, nf * sizeof *m->bind_first);
  }
  X_VEC(c, &m->guards);
  X_VAL(c, m->uses_accel);
  X_VAL(c, m->has_main);
  X_VAL(c, m->registers_buffers);
  X_STRS(c, &m->loader_names);
  X_STRS(c, &m->collate_names);
  x__suppressions(c, &m->suppressions);
  X_STRS(c, &m->loop_iters);
  X_VAL(c, m->deep);
  X_VEC(c, &m->deep_stmts);
}

/* A deferred project predicate: the pattern and the position of its predicate there. */
static void x__deferred(tl_codec *c, tl_deferred *d) {
  const tl_ruleset *rs = c->rs;
  uint32_t at[2] = {UINT32_MAX, UINT32_MAX};
  for (size_t p = 0; !c->load && p < rs->patterns.n && at[0] == UINT32_MAX; p++) {
    const tl_pattern *pt = &rs->patterns.v[p];
    if (pt->preds.n && d->pred >= pt->preds.v && d->pred < pt->preds.v + pt->preds.n) {
      at[0] = (uint32_t)p;
      at[1] = (uint32_t)(d->pred - pt->preds.v);
    }
  }
  X_VAL(c, at);
  X_VAL(c, d->start);
  X_VAL(c, d->end);
  if (!c->load) return;
  if (at[0] >= rs->patterns.n || at[1] >= rs->patterns.v[at[0]].preds.n) {
    c->bad = true;
    d->pred = NULL;
    return;
  }
  d->pred = &rs->patterns.v[at[0]].preds.v[at[1]];
}

static void x__candidates(tl_codec *c, tl_file *f) {
  X_VEC(c, &f->cands);
  for (size_t i = 0; i < f->cands.n; i++) { /* every pointer patched, also past an error (for freeing) */
    tl_candidate *k = &f->cands.v[i];
    if (c->load) {
      k->message = NULL;
      memset(&k->edits, 0, sizeof k->edits);
      memset(&k->deferred, 0, sizeof k->deferred);
      if (c->bad) continue;
      if (k->rule >= c->rs->rules.n) c->bad = true;
    }
    tl_codec_ostr(c, &k->message);
    if (!X_ROOM(c, &k->edits, 12)) continue;
    for (size_t j = 0; j < k->edits.n; j++) {
      X_VAL(c, k->edits.v[j].start);
      X_VAL(c, k->edits.v[j].end);
      tl_codec_ostr(c, &k->edits.v[j].text);
    }
    if (!X_ROOM(c, &k->deferred, 16)) continue;
    for (size_t j = 0; j < k->deferred.n; j++) x__deferred(c, &k->deferred.v[j]);
  }
}

static void x__diags(tl_codec *c, tl_diags *d, const char *path) {
  size_t n = d->n;
  if (!tl_codec_count(c, &n, 16)) return;
  for (size_t i = 0; i < n && !c->bad; i++) {
    tl_diag x = c->load ? (tl_diag){0} : d->v[i];
    uint8_t level = (uint8_t)x.level;
    X_VAL(c, level);
    X_VAL(c, x.line);
    X_VAL(c, x.col);
    X_VAL(c, x.cell);
    tl_codec_ostr(c, &x.message);
    if (c->load) {
      if (!x.message) c->bad = true;
      x.level = (tl_diag_level)level;
      x.path = tl_strdup(path);
      tl_vec_push(d, x);
    }
  }
}

/* Are the indexes and byte ranges of a decoded file within bounds? The hashes catch damage; this
 * catches an entry that hashes right but was not written by x__file (a corrupted writer, a
 * crafted file), before the project pass indexes arrays with it. */
#define X_IN(i, lo, n) ((int64_t)(i) >= (lo) && (int64_t)(i) < (int64_t)(n))
#define X_SPAN(first, count, n) ((uint64_t)(first) + (uint64_t)(count) <= (uint64_t)(n))
/* Is a bool read from a body 0 or 1? (Read as its byte: any other value is no bool, and loading it
 * as one would be undefined.) */
static bool x__b(const bool *b) {
  unsigned char v;
  memcpy(&v, b, 1);
  return v <= 1;
}
static bool x__valid(const tl_file *f, const tl_ruleset *rs) {
  const tl_file_model *m = &f->model;
  size_t nf = m->funcs.n, nl = m->loops.n, nb = m->bindings.n, len = f->len;
  if (!nf || m->loop_iters.n != nl || m->param_off.n != m->params.n || m->param_lit.n != m->params.n) return false;
  if (!x__b(&m->is_package) || !x__b(&m->funcs_sorted) || !x__b(&m->uses_accel) || !x__b(&m->has_main) ||
      !x__b(&m->registers_buffers) || !x__b(&m->deep))
    return false;
  /* a function nests in one before it (the walk's order), a loop likewise: no cycle to follow */
  for (size_t i = 0; i < nf; i++) {
    const tl_func *x = &m->funcs.v[i];
    if (!X_IN(x->outer, -1, i) || !X_IN(x->cls, -1, m->classes.n) || x->start > x->end || x->end > len ||
        !X_SPAN(x->param_first, x->nparams, m->params.n) || !X_SPAN(x->rdep_first, x->nrdeps, m->rdeps.n) ||
        !x__b(&x->is_collate) || !x__b(&x->has_comp) || !x__b(&x->no_grad))
      return false;
  }
  for (size_t i = 0; i < m->classes.n; i++)
    if (!x__b(&m->classes.v[i].decorated)) return false;
  for (size_t i = 0; i < nl; i++) {
    const tl_loop *x = &m->loops.v[i];
    if (!X_IN(x->func, 0, nf) || !X_IN(x->parent, -1, i) || x->start > x->end || x->end > len || !x__b(&x->is_while) ||
        !x__b(&x->iterates_loader) || !x__b(&x->small) || !x__b(&x->in_main))
      return false;
  }
  for (size_t i = 0; i < m->calls.n; i++) {
    const tl_call *x = &m->calls.v[i];
    if (!X_IN(x->func, 0, nf) || !X_IN(x->loop, -1, nl) || !X_SPAN(x->arg_first, x->nargs, m->args.n) ||
        x->byte > x->end || x->end > len || !x__b(&x->splat) || !x__b(&x->top) || !x__b(&x->guarded) || !x__b(&x->stmt))
      return false;
  }
  for (size_t i = 0; i < m->args.n; i++)
    if (!x__b(&m->args.v[i].dep.elem) || m->args.v[i].dep.slot > TL_RET_SLOTS) return false;
  for (size_t i = 0; i < m->rdeps.n; i++)
    if (!x__b(&m->rdeps.v[i].dep.elem) || m->rdeps.v[i].dep.slot > TL_RET_SLOTS || m->rdeps.v[i].feeds > TL_RET_SLOTS)
      return false;
  for (size_t k = 0; k <= m->classes.n; k++) {
    const tl_binding *v = k < m->classes.n ? m->classes.v[k].attrs.v : m->bindings.v;
    size_t n = k < m->classes.n ? m->classes.v[k].attrs.n : nb;
    for (size_t i = 0; i < n; i++)
      if (!X_IN(v[i].func, 0, nf) || !X_IN(v[i].from_loop, -1, nl) || v[i].vstart > v[i].vend || v[i].vend > len ||
          !x__b(&v[i].lazy) || !x__b(&v[i].elem) || v[i].slot > TL_RET_SLOTS)
        return false;
  }
  for (size_t i = 0; i < m->flag_guards.n; i++)
    if (!X_IN(m->flag_guards.v[i].func, 0, nf) || !x__b(&m->flag_guards.v[i].inference) ||
        !x__b(&m->flag_guards.v[i].eq) || m->flag_guards.v[i].when > TL_FLAG_UNSET)
      return false;
  for (size_t i = 0; i < m->rets.n; i++)
    if (!X_IN(m->rets.v[i].func, 0, nf)) return false;
  if (m->bind_first) {
    if (m->bind_first[nf] != nb) return false;
    for (size_t i = 0; i < nf; i++)
      if (m->bind_first[i] > m->bind_first[i + 1]) return false;
    for (size_t i = 0; i < nb; i++)
      if (m->bind_order[i] >= nb) return false;
  }
  for (size_t i = 0; i < m->suppressions.n; i++) {
    const tl_suppression *x = &m->suppressions.v[i];
    if (!x__b(&x->all) || !x__b(&x->file_level) || x->used.n < (x->all ? 1 : x->codes.n)) return false;
    for (size_t j = 0; j < x->used.n; j++)
      if (!x__b(&x->used.v[j])) return false;
  }
  for (size_t i = 0; i < f->cands.n; i++) {
    const tl_candidate *x = &f->cands.v[i];
    if (x->rule >= rs->rules.n || !X_IN(x->func, 0, nf) || x->start > x->end || x->end > len ||
        x->stmt_start > x->stmt_end || x->stmt_end > len || x->report_end > len || !x__b(&x->vinfo) ||
        !x__b(&x->vneed) || !x__b(&x->vdep.elem) || x->vdep.slot > TL_RET_SLOTS)
      return false;
    for (size_t j = 0; j < x->edits.n; j++)
      if (x->edits.v[j].start > x->edits.v[j].end || x->edits.v[j].end > len || !x->edits.v[j].text) return false;
  }
  return true;
}

static void x__file(tl_codec *c, tl_file *f) {
  x__diags(c, &f->diags, f->path);
  x__model(c, &f->model);
  x__candidates(c, f);
}

/* ---- entries and packs ---- */

#define TL_CACHE__TRAILER 28 /* the index's offset, count and hash (u64 each), the magic */

static uint64_t x__path_hash(const char *path) { return tl_hash64(path, strlen(path), 3); }

/* The header of f's entry: everything before the body's length and hash. */
static void x__header(const tl_cache *c, const tl_file *f, tl_buf *out) {
  uint64_t text[3] = {f->hashed ? f->text_hash[0] : tl_hash64(f->text, f->len, 4),
                      f->hashed ? f->text_hash[1] : tl_hash64(f->text, f->len, 5), (uint64_t)f->len};
  uint32_t plen = (uint32_t)strlen(f->path);
  tl_buf_put(out, TL_CACHE__MAGIC, 4);
  tl_buf_put(out, (const char *)c->key, sizeof c->key);
  tl_buf_put(out, (const char *)text, sizeof text);
  tl_buf_put(out, (const char *)&plen, sizeof plen);
  tl_buf_put(out, f->path, plen);
}

static int x__slot_cmp(const void *a, const void *b) {
  const tl_cache__slot *x = a, *y = b;
  return x->hash < y->hash ? -1 : x->hash > y->hash ? 1 : x->off < y->off ? -1 : x->off > y->off;
}

static void x__unmap(tl_cache *c) {
  if (c->old) munmap((void *)c->old, c->old_len);
  c->old = NULL;
  c->old_len = 0;
  free(c->slots);
  free(c->reused);
  c->slots = NULL;
  c->reused = NULL;
  c->nslots = 0;
}

/* Maps this key's pack and reads its index. A missing pack, or one that does not validate, is an
 * empty one (the run writes a new one). */
static void x__map(tl_cache *c) {
  int fd = open(c->pack, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 20 + TL_CACHE__TRAILER) {
    close(fd);
    return;
  }
  size_t n = (size_t)st.st_size;
  void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return;
  const char *p = m;
  uint64_t t[3];
  memcpy(t, p + n - TL_CACHE__TRAILER, sizeof t);
  size_t index_end = n - TL_CACHE__TRAILER; /* the index runs from t[0] to here */
  bool ok = !memcmp(p, TL_CACHE__PACK_MAGIC, 4) && !memcmp(p + 4, c->key, 16) &&
            !memcmp(p + n - 4, TL_CACHE__PACK_MAGIC, 4) && t[0] >= 20 && t[0] <= index_end &&
            (index_end - t[0]) % 24 == 0 && t[1] == (index_end - t[0]) / 24 &&
            tl_hash64(p + t[0], (size_t)t[1] * 24, 7) == t[2];
  if (!ok) {
    munmap(m, n);
    return;
  }
  c->old = p;
  c->old_len = n;
  c->slots = tl_calloc((size_t)t[1] + 1, sizeof *c->slots);
  for (uint64_t i = 0; i < t[1]; i++) {
    tl_cache__slot s;
    memcpy(&s, p + t[0] + i * 24, 24);
    if (s.off >= 20 && s.len <= t[0] && s.off <= t[0] - s.len) c->slots[c->nslots++] = s;
  }
  qsort(c->slots, c->nslots, sizeof *c->slots, x__slot_cmp);
  c->reused = tl_calloc(c->nslots + 1, sizeof *c->reused);
}

tl_cache *tl_cache_open(const char *dir, const tl_analysis *a) {
  uint64_t key[2];
  if (!dir || !*dir || !x__run_key(a, key)) return NULL;
  if (mkdir(dir, 0777) && errno != EEXIST) return NULL;
  struct stat st;
  if (stat(dir, &st) || !S_ISDIR(st.st_mode)) return NULL;
  /* like .ruff_cache: the directory ignores itself in git, and says what it is to backup tools */
  static const char *const marks[][2] = {{".gitignore", "# Automatically created by trainlint.\n*\n"},
                                         {"CACHEDIR.TAG",
                                          "Signature: 8a477f597d28d172789f06886806bc55\n"
                                          "# This file is a cache directory tag created by trainlint.\n"}};
  for (size_t i = 0; i < 2; i++) {
    tl_buf name = {0};
    tl_buf_printf(&name, "%s/%s", dir, marks[i][0]);
    if (access(name.data, F_OK)) {
      FILE *fp = fopen(name.data, "w");
      if (fp) {
        fputs(marks[i][1], fp);
        fclose(fp);
      }
    }
    tl_buf_free(&name);
  }
  tl_cache *c = tl_calloc(1, sizeof *c);
  c->dir = tl_strdup(dir);
  c->key[0] = key[0];
  c->key[1] = key[1];
  tl_buf b = {0};
  tl_buf_printf(&b, "%s/pack-%016llx", dir, (unsigned long long)key[0]);
  c->pack = tl_buf_take(&b);
  c->fd = -1;
  pthread_mutex_init(&c->lock, NULL);
  x__map(c);
  return c;
}

static void x__abandon(tl_cache *c) { /* the new pack, if one was begun */
  if (c->fd >= 0) {
    close(c->fd);
    unlink(c->tmp);
  }
  c->fd = -1;
  free(c->tmp);
  c->tmp = NULL;
  c->fresh.n = 0;
  c->end = 0;
  c->failed = false;
}

void tl_cache_delete(tl_cache *c) {
  if (!c) return;
  x__abandon(c);
  x__unmap(c);
  tl_vec_free(&c->fresh);
  tl_vec_free(&c->seen);
  pthread_mutex_destroy(&c->lock);
  free(c->dir);
  free(c->pack);
  free(c);
}

/* Appends an entry to the new pack (begun on first use). Under the lock. */
static void x__append(tl_cache *c, uint64_t hash, const char *data, size_t len) {
  if (c->failed) return;
  if (c->fd < 0) {
    tl_buf b = {0};
    tl_buf_printf(&b, "%s.XXXXXX", c->pack);
    c->tmp = tl_buf_take(&b);
    c->fd = mkstemp(c->tmp);
    if (c->fd < 0 || !tl_write_all(c->fd, TL_CACHE__PACK_MAGIC, 4) || !tl_write_all(c->fd, c->key, 16)) {
      c->failed = true;
      return;
    }
    c->end = 20;
  }
  if (!tl_write_all(c->fd, data, len)) {
    c->failed = true;
    return;
  }
  tl_cache__slot s = {hash, c->end, len};
  tl_vec_push(&c->fresh, s);
  c->end += len;
}

bool tl_cache_has(const tl_cache *c, const char *path) {
  uint64_t h = x__path_hash(path);
  size_t lo = 0, hi = c->nslots;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->slots[mid].hash < h) lo = mid + 1;
    else hi = mid;
  }
  return lo < c->nslots && c->slots[lo].hash == h;
}

void tl_cache_text_hash(tl_file *f) {
  if (f->hashed || !f->text) return;
  f->text_hash[0] = tl_hash64(f->text, f->len, 4);
  f->text_hash[1] = tl_hash64(f->text, f->len, 5);
  f->hashed = true;
}

const char *tl_cache_dir(const tl_cache *c) { return c->dir; }
void tl_cache_key(const tl_cache *c, uint64_t key[2]) {
  key[0] = c->key[0];
  key[1] = c->key[1];
}

bool tl_cache_load(tl_cache *c, tl_file *f, const tl_ruleset *rs) {
  if (!c || !f->text) return false;
  tl_cache_text_hash(f);
  uint64_t h = x__path_hash(f->path);
  pthread_mutex_lock(&c->lock);
  tl_vec_push(&c->seen, h);
  pthread_mutex_unlock(&c->lock);
  size_t lo = 0, hi = c->nslots;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->slots[mid].hash < h) lo = mid + 1;
    else hi = mid;
  }
  tl_buf head = {0};
  bool ok = false;
  for (size_t i = lo; i < c->nslots && c->slots[i].hash == h && !ok; i++) {
    const char *e = c->old + c->slots[i].off;
    size_t len = (size_t)c->slots[i].len;
    if (!head.len) x__header(c, f, &head);
    if (len < head.len + 16 || memcmp(e, head.data, head.len)) continue;
    uint64_t blen, bhash;
    memcpy(&blen, e + head.len, 8);
    memcpy(&bhash, e + head.len + 8, 8);
    const char *body = e + head.len + 16;
    if (blen != len - head.len - 16 || tl_hash64(body, (size_t)blen, 6) != bhash) continue;
    if (!tl_cache_decode(body, (size_t)blen, rs, f)) continue;
    ok = true;
    pthread_mutex_lock(&c->lock);
    c->reused[i] = true;
    pthread_mutex_unlock(&c->lock);
  }
  tl_buf_free(&head);
  return ok;
}

void tl_cache_encode(const tl_file *f, const tl_ruleset *rs, tl_buf *out) {
  tl_codec cd = {.out = out, .rs = rs};
  x__file(&cd, (tl_file *)f); /* writing only reads the file */
}

bool tl_cache_decode(const char *body, size_t len, const tl_ruleset *rs, tl_file *f) {
  tl_file tmp = {0};
  tmp.path = f->path;
  tl_codec cd = {.load = true,
                 .p = (const unsigned char *)body,
                 .end = (const unsigned char *)body + len,
                 .strs = &tmp.model.strs,
                 .rs = rs};
  x__file(&cd, &tmp);
  tmp.path = NULL;
  tmp.len = f->len;
  if (cd.bad || cd.p != cd.end || !x__valid(&tmp, rs)) {
    tl_file_reset(&tmp);
    return false;
  }
  f->model = tmp.model;
  f->cands = tmp.cands;
  f->diags = tmp.diags;
  f->ok = true;
  return true;
}

void tl_cache_store(tl_cache *c, const tl_file *f, const tl_ruleset *rs) {
  if (!c || !f->text || !f->ok) return;
  tl_buf body = {0}, e = {0};
  tl_cache_encode(f, rs, &body);
  x__header(c, f, &e);
  uint64_t blen = body.len, bhash = tl_hash64(body.data, body.len, 6);
  tl_buf_put(&e, (const char *)&blen, 8);
  tl_buf_put(&e, (const char *)&bhash, 8);
  tl_buf_put(&e, body.data, body.len);
  tl_buf_free(&body);
  pthread_mutex_lock(&c->lock);
  x__append(c, x__path_hash(f->path), e.data, e.len);
  pthread_mutex_unlock(&c->lock);
  tl_buf_free(&e);
}

static int x__u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Does the file of an old entry (not looked up by this run) still exist? */
static bool x__entry_file_exists(const char *e, size_t len) {
  uint32_t plen;
  if (len < 48) return false;
  memcpy(&plen, e + 44, 4);
  if (plen > len - 48) return false;
  char *path = tl_strndup(e + 48, plen);
  bool ok = access(path, F_OK) == 0;
  free(path);
  return ok;
}

/* Removes the packs of other keys (an older trainlint, other rules) untouched for
 * TL_CACHE__STALE_DAYS, and temporary packs a killed run left a day ago or more. */
static void x__prune(const tl_cache *c) {
  DIR *d = opendir(c->dir);
  if (!d) return;
  time_t now = time(NULL);
  const char *own = strrchr(c->pack, '/') + 1;
  struct dirent *e;
  while ((e = readdir(d))) {
    if ((strncmp(e->d_name, "pack-", 5) && strncmp(e->d_name, "results-", 8)) || !strcmp(e->d_name, own)) continue;
    tl_buf b = {0};
    tl_buf_printf(&b, "%s/%s", c->dir, e->d_name);
    struct stat st;
    long age = strchr(e->d_name, '.') ? 86400L : TL_CACHE__STALE_DAYS * 86400L;
    if (!lstat(b.data, &st) && S_ISREG(st.st_mode) && now - st.st_mtime >= age) unlink(b.data);
    tl_buf_free(&b);
  }
  closedir(d);
}

void tl_cache_flush(tl_cache *c) {
  if (!c) return;
  if (c->seen.n) qsort(c->seen.v, c->seen.n, sizeof *c->seen.v, x__u64_cmp);
  bool changed = c->fresh.n > 0 || c->failed;
  bool *keep = tl_calloc(c->nslots + 1, sizeof *keep);
  for (size_t i = 0; i < c->nslots; i++) {
    const tl_cache__slot *s = &c->slots[i];
    keep[i] = c->reused[i] ||
              ((!c->seen.n || !bsearch(&s->hash, c->seen.v, c->seen.n, sizeof *c->seen.v, x__u64_cmp)) &&
               x__entry_file_exists(c->old + s->off, (size_t)s->len));
    changed = changed || !keep[i];
  }
  if (changed) {
    for (size_t i = 0; i < c->nslots; i++)
      if (keep[i]) x__append(c, c->slots[i].hash, c->old + c->slots[i].off, (size_t)c->slots[i].len);
    if (c->fd < 0 && !c->failed) {
      unlink(c->pack); /* nothing new and nothing left to keep: no pack */
    } else {
      bool ok = !c->failed && c->fd >= 0;
      if (ok) {
        uint64_t t[3] = {c->end, c->fresh.n, tl_hash64(c->fresh.v, c->fresh.n * 24, 7)};
        ok = tl_write_all(c->fd, c->fresh.v, c->fresh.n * 24) && tl_write_all(c->fd, t, sizeof t) &&
             tl_write_all(c->fd, TL_CACHE__PACK_MAGIC, 4);
      }
      if (c->fd >= 0) ok = close(c->fd) == 0 && ok;
      c->fd = -1;
      if (c->tmp && (!ok || rename(c->tmp, c->pack))) unlink(c->tmp);
    }
    x__prune(c);
  }
  free(keep);
  x__abandon(c);
  c->seen.n = 0;
  x__unmap(c); /* the next run of the same analysis reads what this one wrote */
  x__map(c);
}
