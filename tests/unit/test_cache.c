/* test_cache.c - the persistent cache (tl_cache.h, tl_results.h): over a copy of every fixture, a
 * run with the cache must report exactly what a run without it reports (findings, severities, hot
 * chains, fixes, diagnostics), cold and warm; it must take every unchanged file from the cache and
 * no changed one, through random edits, and the whole run's results when nothing changed; and
 * entries or results that are truncated, corrupted, replaced, crafted or made under another key,
 * or written by two processes at once, must cost a re-analysis, never a wrong or missing
 * finding. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <stdint.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tl_codec.h"
#include "tl_engine.h"
#include "tl_rules.h"
#include "tl_output.h"
#include "tl_test.h"
#include "trainlint.h"

static tl_strvec files;   /* the copies, relative to the working directory */
static bool took_results; /* the last run took the whole run's results from the cache */

static char *render(const tl_analysis *a) {
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    char *hot = tl_hot_text(f);
    tl_buf_printf(&b, "%s:%u:%u-%u:%u %s %s %s | %s | %s\n", f->path, f->line, f->col, f->end_line, f->end_col,
                  tl_rule_code(f->rule), tl_severity_name(f->severity), f->message, hot, f->scope);
    free(hot);
    for (size_t k = 0; k < f->nfix; k++)
      tl_buf_printf(&b, "  fix %u-%u %s\n", f->fix[k].start, f->fix[k].end, f->fix[k].text);
  }
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    const tl_diag *d = tl_analysis_diag(a, i);
    tl_buf_printf(&b, "diag %d %s:%u:%u %s\n", (int)d->level, d->path, d->line, d->col, d->message);
  }
  return tl_buf_take(&b);
}

/* One run over the copies; the rendering, and the files the cache gave in *hits. */
static char *run(const tl_ruleset *rs, const char *cache_dir, size_t *hits) {
  tl_options o = {2, false, 0, cache_dir, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < files.n; i++) tl_analysis_add_path(a, files.v[i]);
  tl_analysis_run(a);
  if (hits) *hits = a->cache_hits;
  took_results = a->results_cached;
  char *r = render(a);
  tl_analysis_delete(a);
  return r;
}

static void spit(const char *path, const char *text, size_t len) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return;
  fwrite(text, 1, len, fp);
  fclose(fp);
}

/* Copies every fixture (not the .fixed.py files) to src/<rule>/<name>. */
static void copy_fixtures(void) {
  mkdir("src", 0777);
  DIR *top = opendir(TL_SOURCE_DIR "/fixtures");
  if (!top) return;
  struct dirent *e;
  tl_strvec dirs = {0};
  while ((e = readdir(top))) {
    if (e->d_name[0] != '.') tl_vec_push(&dirs, tl_strdup(e->d_name));
  }
  closedir(top);
  for (size_t d = 0; d < dirs.n; d++) {
    tl_buf from = {0}, to = {0};
    tl_buf_printf(&from, TL_SOURCE_DIR "/fixtures/%s", dirs.v[d]);
    tl_buf_printf(&to, "src/%s", dirs.v[d]);
    DIR *dd = opendir(from.data);
    if (dd) {
      mkdir(to.data, 0777);
      while ((e = readdir(dd))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".py") || (n > 9 && !strcmp(e->d_name + n - 9, ".fixed.py"))) continue;
        tl_buf src = {0}, dst = {0};
        tl_buf_printf(&src, "%s/%s", from.data, e->d_name);
        tl_buf_printf(&dst, "%s/%s", to.data, e->d_name);
        size_t len;
        char *text = tl_test_read_file(src.data, &len);
        if (text) {
          spit(dst.data, text, len);
          tl_vec_push(&files, tl_buf_take(&dst));
        } else {
          tl_buf_free(&dst);
        }
        free(text);
        tl_buf_free(&src);
      }
      closedir(dd);
    }
    tl_buf_free(&from);
    tl_buf_free(&to);
  }
  tl_strvec_free(&dirs);
}

/* The pack of the cache directory `dir` (its one file named pack-<key>), or NULL. */
static char *pack_path(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char *out = NULL;
  while (d && (e = readdir(d)))
    if (!strncmp(e->d_name, "pack-", 5) && !strchr(e->d_name, '.') && !out) {
      tl_buf b = {0};
      tl_buf_printf(&b, "%s/%s", dir, e->d_name);
      out = tl_buf_take(&b);
    }
  if (d) closedir(d);
  return out;
}

/* The entries of a pack as (offset, length) pairs, from its index (tl_cache.c's format). */
static size_t pack_entries(const char *pack, const char *text, size_t len, uint64_t (*out)[2], size_t max) {
  (void)pack;
  if (len < 48) return 0;
  uint64_t t[2];
  memcpy(t, text + len - 28, sizeof t);
  size_t n = 0;
  for (uint64_t i = 0; i < t[1] && n < max; i++) {
    uint64_t s[3];
    memcpy(s, text + t[0] + i * 24, sizeof s);
    out[n][0] = s[1];
    out[n][1] = s[2];
    n++;
  }
  return n;
}

/* The results file of the cache directory `dir` (results-<hash>), or NULL. */
static char *results_path(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char *out = NULL;
  while (d && (e = readdir(d)))
    if (!strncmp(e->d_name, "results-", 8) && !strchr(e->d_name, '.') && !out) out = tl_concat(dir, "/", e->d_name);
  if (d) closedir(d);
  return out;
}

/* Removes the results of whole runs from `dir`: the next run goes through the per-file entries. */
static void drop_results(const char *dir) {
  char *p;
  while ((p = results_path(dir))) {
    remove(p);
    free(p);
  }
}

/* Skips a string of the results' body (a u32 of its length plus one, then its bytes). */
static size_t skip_text(const char *b, size_t at) {
  uint32_t n;
  memcpy(&n, b + at, 4);
  return at + 4 + (n ? n - 1 : 0);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(p);
}

static const char *const snippets[] = {
    "x = loss.item()\n",
    "    print(loss.item())\n",
    "torch.cuda.synchronize()\n",
    "for b in loader:\n    loss = model(b).sum()\n    loss.backward()\n    print(loss.item())\n",
    "import torch\n",
    "def helper(t):\n    return t.sum().item()\n",
    "loader = DataLoader(ds, batch_size=8, num_workers=1)\n",
    "if step % 10 == 0:\n    pass\n",
    "x = (\n",
    "# noqa: TL101\n",
};

int main(void) {
  char tmpl[] = "/tmp/tl_cache_test.XXXXXX";
  char *root = mkdtemp(tmpl);
  CHECK(root != NULL);
  if (!root || chdir(root)) TEST_DONE();
  copy_fixtures();
  CHECK(files.n > 100);

  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs));
  const char *all[] = {"ALL"};
  tl_ruleset_select(rs, all, 1, NULL, 0);
  CHECK(tl_ruleset_compile(rs));

  /* cold, warm and uncached runs agree; the warm run takes every file from the cache */
  size_t hits = 0;
  char *want = run(rs, NULL, &hits);
  CHECK(strstr(want, "TL101") != NULL);
  char *got = run(rs, "cache", &hits);
  CHECK_STR(got, want);
  CHECK_INT(hits, 0);
  free(got);
  char *pack = pack_path("cache");
  CHECK(pack != NULL);
  size_t plen = 0;
  char *ptext = pack ? tl_test_read_file(pack, &plen) : NULL;
  static uint64_t ents[4096][2];
  size_t nents = ptext ? pack_entries(pack, ptext, plen, ents, 4096) : 0;
  CHECK_INT(nents, files.n);
  CHECK(!took_results);
  got = run(rs, "cache", &hits);
  CHECK_STR(got, want);
  CHECK_INT(hits, files.n);
  CHECK(took_results);
  free(got);
  struct stat st;
  CHECK(stat("cache/.gitignore", &st) == 0 && stat("cache/CACHEDIR.TAG", &st) == 0);
  CHECK(stat(pack, &st) == 0);

  /* a lazily compiled rule set: a run that takes its results from the cache never compiles the
   * query; one that analyses a file compiles it once, and reports the same */
  tl_ruleset *lazy = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(lazy));
  tl_ruleset_select(lazy, all, 1, NULL, 0);
  CHECK(tl_ruleset_compile_lazy(lazy));
  CHECK(lazy->query == NULL && lazy->deferred);
  got = run(lazy, "cache", &hits);
  CHECK_STR(got, want);
  CHECK(took_results);
  CHECK(lazy->query == NULL);
  free(got);
  got = run(lazy, "lazy-cache", &hits);
  CHECK_STR(got, want);
  CHECK(!took_results && lazy->query != NULL && !lazy->deferred);
  free(got);
  tl_ruleset_delete(lazy);
  nftw("lazy-cache", rm_one, 16, FTW_DEPTH | FTW_PHYS);
  /* a rule that is not built in is compiled at once: its errors are the compile's */
  tl_ruleset *user = tl_ruleset_new();
  static const char bad_rule[] =
      "---\ncode: TL990\nname: broken\nsynopsis: x\nseverity: warning\nhot: none\n"
      "message: \"x\"\n---\n# TL990\n\n## Query\n```query\n(call function: (identifier) @f\n```\n";
  CHECK(tl_ruleset_add_text(user, "broken.md", bad_rule, sizeof bad_rule - 1));
  CHECK(!tl_ruleset_compile_lazy(user));
  CHECK(tl_ruleset_diag_count(user) > 0);
  tl_ruleset_delete(user);

  /* the whole run's results: damaged, truncated, crafted or replaced, they are a miss (the files
   * come from their entries, and the output stays right), and the next run writes them again */
  char *res = results_path("cache");
  CHECK(res != NULL);
  for (int mode = 0; mode < 7 && res; mode++) {
    size_t len = 0;
    char *text = tl_test_read_file(res, &len);
    CHECK(text != NULL && len > 60);
    if (!text || len <= 60) break;
    char *body = text + 52;
    size_t blen = len - 56;
    if (mode == 0) text[len / 2] ^= 0x10;   /* a byte of the body */
    if (mode == 1) len -= 5;                /* truncated */
    if (mode == 2) text[21] ^= 1;           /* the hash of the paths and texts */
    if (mode == 3) memcpy(text, "TLX1", 4); /* not results */
    if (mode >= 5) {                        /* crafted: right hashes, a value out of range */
      size_t at = 8, nd;
      uint32_t n;
      memcpy(&n, body + at, 4);
      nd = n;
      at += 4;
      for (size_t i = 0; i < nd; i++) at = skip_text(body, skip_text(body, at + 16));
      memcpy(&n, body + at, 4); /* the findings */
      CHECK(n > 0);
      at = skip_text(body, at + 4);                            /* the first one's rule code */
      uint32_t bad = mode == 5 ? (uint32_t)files.n : 1u << 30; /* no such file; a byte past its end */
      memcpy(body + at + (mode == 5 ? 0 : 24), &bad, 4);
      uint64_t h = tl_hash64(body, blen, 11);
      memcpy(text + 44, &h, 8);
    }
    if (mode == 4) {
      remove(res);
      mkdir(res, 0777); /* a directory in its place */
    } else {
      spit(res, text, len);
    }
    free(text);
    got = run(rs, "cache", &hits);
    CHECK_STR(got, want);
    CHECK_INT(hits, files.n);
    CHECK(!took_results);
    free(got);
    if (mode == 4) rmdir(res);
    got = run(rs, "cache", &hits); /* written again */
    free(got);
    got = run(rs, "cache", &hits);
    CHECK_STR(got, want);
    CHECK(took_results);
    free(got);
  }
  free(res);

  /* damaged entries: each costs a re-analysis of its file, and the run after takes all again */
  size_t damaged = 0;
  for (size_t i = 0; ptext && i < nents; i += 7, damaged++) {
    char *e = ptext + ents[i][0];
    size_t len = (size_t)ents[i][1];
    switch (damaged % 3) {
    case 0: e[len - 1] ^= 0x40; break;       /* the body's last byte */
    case 1: e[5] ^= 1; break;                /* the key */
    default: memset(e + 60, 0xFF, 4); break; /* the text's hash or the path */
    }
  }
  CHECK(damaged >= 6);
  spit(pack, ptext, plen);
  drop_results("cache");
  got = run(rs, "cache", &hits);
  CHECK_STR(got, want);
  CHECK_INT(hits, files.n - damaged);
  free(got);
  got = run(rs, "cache", &hits);
  CHECK_STR(got, want);
  CHECK_INT(hits, files.n);
  free(got);

  /* a damaged pack, or something else in its place: nothing is taken from it, nothing is wrong */
  for (int mode = 0; mode < 5 && pack; mode++) {
    size_t len = 0;
    char *text = tl_test_read_file(pack, &len);
    CHECK(text != NULL);
    if (!text) break;
    if (mode == 0) spit(pack, text, len / 2);                /* truncated */
    if (mode == 1) spit(pack, text, len - 1);                /* its last byte lost */
    if (mode == 2) spit(pack, "TLP1 not a pack at all", 22); /* garbage */
    if (mode == 3) remove(pack), mkdir(pack, 0777);          /* a directory */
    if (mode == 4 && len >= 20) {                            /* the right head, and an index offset that wraps around */
      char crafted[4800] = {0};
      memcpy(crafted, text, 20);
      uint64_t t[3] = {UINT64_MAX - 27, sizeof crafted / 24, 0};
      memcpy(crafted + sizeof crafted - 28, t, sizeof t);
      memcpy(crafted + sizeof crafted - 4, "TLP1", 4);
      spit(pack, crafted, sizeof crafted);
    }
    free(text);
    drop_results("cache");
    got = run(rs, "cache", &hits);
    CHECK_STR(got, want);
    CHECK_INT(hits, 0);
    free(got);
    if (mode == 3) rmdir(pack);
    got = run(rs, "cache", &hits); /* written again */
    free(got);
  }
  got = run(rs, "cache", &hits);
  CHECK_STR(got, want);
  CHECK_INT(hits, files.n);
  free(got);
  free(ptext);

  /* a warm run that changes nothing writes nothing */
  CHECK(stat(pack, &st) == 0);
  ino_t ino = st.st_ino;
  res = results_path("cache");
  struct stat rst;
  CHECK(res && stat(res, &rst) == 0);
  got = run(rs, "cache", &hits);
  free(got);
  CHECK(took_results);
  CHECK(stat(pack, &st) == 0 && st.st_ino == ino);
  CHECK(res && stat(res, &st) == 0 && st.st_ino == rst.st_ino);
  free(res);

  /* random edits: the edited file is analysed again, its callers' findings follow it, and the
   * output equals an uncached run's */
  srand(7);
  for (int round = 0; round < 25; round++) {
    const char *path = files.v[(size_t)rand() % files.n];
    size_t len;
    char *text = tl_test_read_file(path, &len);
    if (!text) continue;
    size_t at = len ? (size_t)rand() % len : 0;
    while (at > 0 && text[at - 1] != '\n') at--; /* a line start */
    tl_buf b = {0};
    tl_buf_put(&b, text, at);
    if (rand() % 3) {
      tl_buf_puts(&b, snippets[(size_t)rand() % (sizeof snippets / sizeof *snippets)]);
      tl_buf_put(&b, text + at, len - at);
    } else { /* delete a line */
      const char *nl = memchr(text + at, '\n', len - at);
      size_t from = nl ? (size_t)(nl - text) + 1 : len;
      tl_buf_put(&b, text + from, len - from);
    }
    bool changed = b.len != len || memcmp(b.data ? b.data : "", text, len);
    spit(path, b.data ? b.data : "", b.len);
    tl_buf_free(&b);
    free(text);
    char *w = run(rs, NULL, NULL);
    got = run(rs, "cache", &hits);
    CHECK_STR(got, w);
    CHECK_INT(hits, files.n - (changed ? 1 : 0));
    CHECK(took_results == !changed);
    free(got);
    free(w);
  }
  /* a run over some of the files keeps the entries of the others while they exist */
  char *last = files.v[--files.n];
  got = run(rs, "cache", &hits);
  CHECK_INT(hits, files.n);
  free(got);
  files.v[files.n++] = last;
  got = run(rs, "cache", &hits);
  CHECK_INT(hits, files.n);
  free(got);
  remove(last); /* gone from the disk: its entry is dropped by the next run that writes the pack (one that
                 * takes its whole results from the cache writes nothing) */
  free(files.v[--files.n]);
  got = run(rs, "cache", &hits);
  CHECK(took_results);
  free(got);
  drop_results("cache");
  got = run(rs, "cache", &hits);
  free(got);
  size_t len2 = 0;
  char *ptext2 = pack ? tl_test_read_file(pack, &len2) : NULL;
  CHECK_INT(ptext2 ? pack_entries(pack, ptext2, len2, ents, 4096) : 0, files.n);
  free(ptext2);
  char *edited = run(rs, NULL, NULL);

  /* another rule selection is another key: nothing is taken from entries made under the first */
  tl_ruleset *one = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(one));
  const char *sel[] = {"TL101"};
  tl_ruleset_select(one, sel, 1, NULL, 0);
  CHECK(tl_ruleset_compile(one));
  char *w1 = run(one, NULL, NULL);
  got = run(one, "cache", &hits);
  CHECK_STR(got, w1);
  CHECK_INT(hits, 0);
  free(got);
  free(w1);
  tl_ruleset_delete(one);

  /* two processes filling one empty cache at once: both right, and the cache whole afterwards */
  nftw("cache", rm_one, 16, FTW_DEPTH | FTW_PHYS);
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    if (kids[k] == 0) {
      char *g = run(rs, "cache", NULL);
      int same = !strcmp(g, edited);
      free(g);
      _exit(same ? 0 : 1);
    }
  }
  for (int k = 0; k < 2; k++) {
    int status = 1;
    CHECK(kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k]);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  got = run(rs, "cache", &hits);
  CHECK_STR(got, edited);
  CHECK_INT(hits, files.n);
  free(got);

  free(edited);
  free(want);
  free(pack);
  tl_ruleset_delete(rs);
  tl_strvec_free(&files);
  if (chdir("/") == 0) nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  TEST_DONE();
}
