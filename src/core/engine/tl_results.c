/* tl_results.c - the cached results of whole runs (tl_results.h, docs/cache.md). */
#include "tl_results.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl_codec.h"

#define TL_RESULTS__MAGIC "TLR1"
#define TL_RESULTS__HEAD 52 /* magic, key, content hash, body length and hash */

/* A file's text hashes, whether or not f has kept them. */
static void x__text_hash(const tl_file *f, uint64_t h[2]) {
  if (f->hashed) {
    h[0] = f->text_hash[0];
    h[1] = f->text_hash[1];
  } else {
    h[0] = tl_hash64(f->text, f->len, 4);
    h[1] = tl_hash64(f->text, f->len, 5);
  }
}

/* The name of a's results (from the key and the paths) and the hash of the paths and texts. */
static char *x__keys(const tl_cache *c, const tl_analysis *a, uint64_t content[2]) {
  uint64_t key[2];
  tl_cache_key(c, key);
  tl_buf names = {0}, all = {0};
  tl_buf_put(&names, (const char *)key, sizeof key);
  for (size_t i = 0; i < a->files.n; i++) {
    const tl_file *f = &a->files.v[i];
    uint64_t h[3];
    x__text_hash(f, h);
    h[2] = (uint64_t)f->len;
    tl_buf_put(&names, f->path, strlen(f->path) + 1);
    tl_buf_put(&all, f->path, strlen(f->path) + 1);
    tl_buf_put(&all, (const char *)h, sizeof h);
  }
  content[0] = tl_hash64(all.data, all.len, 8);
  content[1] = tl_hash64(all.data, all.len, 9);
  char *name = tl_printf("%s/results-%016llx", tl_cache_dir(c),
                         (unsigned long long)tl_hash64(names.data, names.len, 10));
  tl_buf_free(&names);
  tl_buf_free(&all);
  return name;
}

/* ---- the codec of the body ---- */

/* A path that is one of the run's files, by its index. */
static void x__file_path(tl_codec *c, const tl_analysis *a, const tl_map *index, const char **path) {
  intptr_t i = -1;
  if (!c->load) tl_map_get(index, *path, &i);
  uint32_t v = (uint32_t)i;
  X_VAL(c, v);
  if (!c->load) return;
  if (v >= a->files.n) c->bad = true;
  else *path = a->files.v[v].path;
}

static void x__finding(tl_codec *c, const tl_analysis *a, const tl_map *index, tl_finding *fd) {
  size_t n = 0;
  const char *code = tl_codec_text(c, c->load ? NULL : fd->rule->code, &n);
  if (c->load) {
    char *k = code ? tl_strndup(code, n) : NULL;
    fd->rule = k ? tl_ruleset_find(a->rules, k) : NULL;
    if (!fd->rule || strcmp(fd->rule->code, k)) c->bad = true;
    free(k);
  }
  uint32_t v[14] = {(uint32_t)fd->file,
                    fd->line,
                    fd->col,
                    fd->end_line,
                    fd->end_col,
                    fd->start_byte,
                    fd->end_byte,
                    (uint32_t)fd->severity,
                    (uint32_t)fd->fix_safety,
                    fd->stmt_first_line,
                    fd->stmt_last_line,
                    fd->cell,
                    fd->end_cell,
                    0};
  tl_codec_bytes(c, v, sizeof v);
  tl_codec_ostr(c, &fd->message);
  tl_codec_str(c, &fd->scope);
  tl_codec_bytes(c, fd->fingerprint, 16);
  if (c->load) {
    fd->fingerprint[16] = 0;
    fd->file = v[0];
    fd->line = v[1];
    fd->col = v[2];
    fd->end_line = v[3];
    fd->end_col = v[4];
    fd->start_byte = v[5];
    fd->end_byte = v[6];
    fd->severity = v[7] <= TL_SEVERITY_ERROR ? (tl_severity)v[7] : TL_SEVERITY_INFO;
    fd->fix_safety = v[8] <= TL_FIXSAFE_UNSAFE ? (tl_fix_safety)v[8] : TL_FIXSAFE_NONE;
    fd->stmt_first_line = v[9];
    fd->stmt_last_line = v[10];
    fd->cell = v[11];
    fd->end_cell = v[12];
    size_t len = v[0] < a->files.n ? a->files.v[v[0]].len : 0;
    if (v[0] >= a->files.n || v[7] > TL_SEVERITY_ERROR || v[8] > TL_FIXSAFE_UNSAFE || v[5] > v[6] || v[6] > len ||
        !fd->message || !fd->scope)
      c->bad = true;
    else fd->path = a->files.v[v[0]].path;
  }
  size_t nhot = fd->nhot;
  if (tl_codec_count(c, &nhot, 20) && c->load) {
    fd->hot = nhot ? tl_calloc(nhot, sizeof *fd->hot) : NULL;
    fd->nhot = nhot;
  }
  for (size_t i = 0; i < fd->nhot && !c->bad; i++) {
    tl_hot_step *s = &fd->hot[i];
    x__file_path(c, a, index, &s->path);
    uint32_t w[3] = {s->line, s->col, s->cell};
    tl_codec_bytes(c, w, sizeof w);
    tl_codec_ostr(c, &s->what);
    if (c->load) {
      s->line = w[0];
      s->col = w[1];
      s->cell = w[2];
      c->bad = c->bad || !s->what;
    }
  }
  size_t nfix = fd->nfix;
  if (tl_codec_count(c, &nfix, 12) && c->load) {
    fd->fix = nfix ? tl_calloc(nfix, sizeof *fd->fix) : NULL;
    fd->nfix = nfix;
  }
  for (size_t i = 0; i < fd->nfix && !c->bad; i++) {
    tl_edit *e = &fd->fix[i];
    uint32_t w[2] = {e->start, e->end};
    tl_codec_bytes(c, w, sizeof w);
    tl_codec_ostr(c, &e->text);
    if (c->load) {
      e->start = w[0];
      e->end = w[1];
      size_t len = fd->file < a->files.n ? a->files.v[fd->file].len : 0;
      c->bad = c->bad || !e->text || w[0] > w[1] || w[1] > len;
    }
  }
}

static void x__diag(tl_codec *c, tl_diag *d) {
  uint32_t v[4] = {(uint32_t)d->level, d->line, d->col, d->cell};
  tl_codec_bytes(c, v, sizeof v);
  tl_codec_ostr(c, &d->path);
  tl_codec_ostr(c, &d->message);
  if (!c->load) return;
  d->level = v[0] <= TL_DIAG_NOTE ? (tl_diag_level)v[0] : TL_DIAG_NOTE;
  d->line = v[1];
  d->col = v[2];
  d->cell = v[3];
  c->bad = c->bad || v[0] > TL_DIAG_NOTE || !d->path || !d->message;
}

/* The body: the suppressed count, the diagnostics, the findings. Reading fills a. */
static void x__body(tl_codec *c, tl_analysis *a, const tl_map *index) {
  uint64_t suppressed = a->suppressed;
  X_VAL(c, suppressed);
  if (c->load) a->suppressed = (size_t)suppressed;
  if (X_ROOM(c, &a->diags, 24))
    for (size_t i = 0; i < a->diags.n && !c->bad; i++) x__diag(c, &a->diags.v[i]);
  if (X_ROOM(c, &a->findings, 80))
    for (size_t i = 0; i < a->findings.n && !c->bad; i++) x__finding(c, a, index, &a->findings.v[i]);
}

/* ---- loading and storing ---- */

bool tl_results_load(const tl_cache *c, tl_analysis *a) {
  if (!c || !a->files.n) return false;
  uint64_t content[2], key[2];
  char *name = x__keys(c, a, content);
  tl_cache_key(c, key);
  int fd = open(name, O_RDONLY | O_CLOEXEC);
  free(name);
  if (fd < 0) return false;
  struct stat st;
  char *data = NULL;
  size_t n = 0;
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size >= TL_RESULTS__HEAD + 4 && st.st_size < (1LL << 32)) {
    n = (size_t)st.st_size;
    data = tl_malloc(n);
    if (!tl_read_all(fd, data, n)) n = 0;
  }
  close(fd);
  uint64_t blen = 0, bhash = 0;
  if (n) {
    memcpy(&blen, data + 36, 8);
    memcpy(&bhash, data + 44, 8);
  }
  bool ok = n && !memcmp(data, TL_RESULTS__MAGIC, 4) && !memcmp(data + 4, key, 16) && !memcmp(data + 20, content, 16) &&
            blen == n - TL_RESULTS__HEAD - 4 && !memcmp(data + n - 4, TL_RESULTS__MAGIC, 4) &&
            tl_hash64(data + TL_RESULTS__HEAD, (size_t)blen, 11) == bhash;
  if (ok) {
    tl_codec cd = {.load = true,
                   .p = (const unsigned char *)data + TL_RESULTS__HEAD,
                   .end = (const unsigned char *)data + TL_RESULTS__HEAD + blen,
                   .strs = &a->result_strs,
                   .rs = a->rules};
    x__body(&cd, a, NULL);
    ok = !cd.bad && cd.p == cd.end;
    if (!ok) {
      tl_findings_clear(a);
      tl_diags_free(&a->diags);
      a->suppressed = 0;
    }
  }
  free(data);
  return ok;
}

void tl_results_store(const tl_cache *c, const tl_analysis *a) {
  if (!c || !a->files.n) return;
  for (size_t i = 0; i < a->files.n; i++) {
    const tl_file *f = &a->files.v[i];
    if (f->in_memory || f->nb || !f->ok || !f->text || f->stopped_at != UINT32_MAX) return;
  }
  uint64_t content[2], key[2];
  char *name = x__keys(c, a, content);
  tl_cache_key(c, key);
  tl_map index = {0};
  for (size_t i = 0; i < a->files.n; i++) tl_map_set(&index, a->files.v[i].path, (intptr_t)i);
  tl_buf body = {0};
  tl_codec cd = {.out = &body, .rs = a->rules};
  x__body(&cd, (tl_analysis *)a, &index); /* writing only reads the analysis */
  tl_map_free(&index);
  uint64_t blen = body.len, bhash = tl_hash64(body.data, body.len, 11);
  tl_buf out = {0};
  tl_buf_put(&out, TL_RESULTS__MAGIC, 4);
  tl_buf_put(&out, (const char *)key, sizeof key);
  tl_buf_put(&out, (const char *)content, 16);
  tl_buf_put(&out, (const char *)&blen, 8);
  tl_buf_put(&out, (const char *)&bhash, 8);
  tl_buf_put(&out, body.data, body.len);
  tl_buf_put(&out, TL_RESULTS__MAGIC, 4);
  tl_buf_free(&body);
  char *tmp = tl_concat(name, "", ".XXXXXX");
  int fd = mkstemp(tmp);
  if (fd >= 0) {
    bool ok = tl_write_all(fd, out.data, out.len);
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, name)) unlink(tmp);
  }
  free(tmp);
  free(name);
  tl_buf_free(&out);
}
