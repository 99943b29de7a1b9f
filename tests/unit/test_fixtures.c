/* test_fixtures.c - runs every rule over fixture directories (arguments relative to the source tree;
 * default: fixtures/) and checks, per project: the `# ruleid:` / `# ok:` annotations (Noisy: a
 * finding nobody expected; Missing: an expected finding that did not come), that X.py after all
 * fixes equals X.fixed.py, and that fixing twice changes nothing. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl_output.h"
#include "tl_source.h"
#include "tl_test.h"
#include "tl_walk.h"
#include "trainlint.h"

typedef struct {
  char *path;
  uint32_t line;      /* the annotated line */
  char code[8];
  int kind;           /* 1 ruleid, 0 ok, 2 todoruleid */
} annot;

typedef TL_VEC(annot) annots;
typedef TL_VEC(char *) strvec;

typedef struct {
  int checks;
  int noisy, missing, fixed, other;
} run_state;

static void parse_annotations(const char *path, const char *text, size_t len, annots *out, strvec *codes) {
  tl_lines lines;
  tl_lines_init(&lines, text, len);
  for (uint32_t i = 0; i < lines.count; i++) {
    const char *s = text + lines.starts[i];
    const char *e = i + 1 < lines.count ? text + lines.starts[i + 1] : text + len;
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    int kind = -1;
    const char *p = NULL;
    if (!strncmp(s, "# ruleid:", 9)) kind = 1, p = s + 9;
    else if (!strncmp(s, "# ok:", 5)) kind = 0, p = s + 5;
    else if (!strncmp(s, "# todoruleid:", 13)) kind = 2, p = s + 13;
    if (kind < 0) continue;
    /* the target: the next line that is neither blank nor a comment */
    uint32_t t = i + 1;
    for (; t < lines.count; t++) {
      const char *q = text + lines.starts[t];
      while (*q == ' ' || *q == '\t') q++;
      if (*q != '#' && *q != '\n' && *q != '\r' && *q) break;
    }
    while (p < e && *p != '\n') {
      while (p < e && (*p == ' ' || *p == ',')) p++;
      const char *c = p;
      while (p < e && ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) p++;
      if (p == c) break;
      annot a = {tl_strdup(path), t + 1, {0}, kind};
      snprintf(a.code, sizeof a.code, "%.*s", (int)(p - c), c);
      tl_vec_push(out, a);
      bool have = false;
      for (size_t k = 0; k < codes->n; k++) have = have || !strcmp(codes->v[k], a.code);
      if (!have) tl_vec_push(codes, tl_strdup(a.code));
      while (p < e && *p != ',' && *p != '\n') p++;
    }
  }
  tl_lines_free(&lines);
}

typedef struct {
  TL_VEC(char *) paths;
  TL_VEC(char *) texts;
  TL_VEC(size_t) lens;
} fixed_out;

static void collect_fixed(void *ctx, size_t file, const char *old, size_t oldlen, const char *neu, size_t newlen) {
  fixed_out *o = ctx;
  (void)old;
  (void)oldlen;
  tl_vec_push(&o->paths, tl_printf("%zu", file));
  tl_vec_push(&o->texts, tl_strndup(neu, newlen));
  tl_vec_push(&o->lens, newlen);
}

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n > m && !strcmp(s + n - m, tail);
}

static tl_analysis *run_project(tl_ruleset *rs, tl_paths *files, const char *const *texts, const size_t *lens) {
  tl_options o = {1, false};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < files->n; i++) {
    if (texts && texts[i]) tl_analysis_add_text(a, files->v[i], texts[i], lens[i]);
    else tl_analysis_add_path(a, files->v[i]);
  }
  tl_analysis_run(a);
  return a;
}

/* Noisy and Missing: the annotations of every file against the findings. */
static void check_annotations(run_state *st, tl_analysis *a, const tl_paths *files) {
  annots an = {0};
  for (size_t fi = 0; fi < files->n; fi++) {
    size_t len;
    const char *text = tl_analysis_file_text(a, fi, &len);
    if (!text) continue;
    strvec codes = {0};
    size_t first = an.n;
    parse_annotations(files->v[fi], text, len, &an, &codes);
    /* Noisy: findings of a checked code on a line without a ruleid for it */
    for (size_t k = 0; k < tl_analysis_finding_count(a); k++) {
      const tl_finding *f = tl_analysis_finding(a, k);
      if (f->file != fi) continue;
      bool checked = false, expected = false;
      for (size_t c = 0; c < codes.n; c++) checked = checked || !strcmp(codes.v[c], tl_rule_code(f->rule));
      if (!checked) continue;
      for (size_t x = first; x < an.n; x++)
        expected = expected || (an.v[x].kind == 1 && an.v[x].line == f->line && !strcmp(an.v[x].code, tl_rule_code(f->rule)));
      if (!expected) {
        fprintf(stderr, "Noisy: %s:%u: %s %s\n", f->path, f->line, tl_rule_code(f->rule), f->message);
        st->noisy++;
      }
    }
    for (size_t x = first; x < an.n; x++) {
      st->checks++;
      bool found = false;
      for (size_t k = 0; k < tl_analysis_finding_count(a) && !found; k++) {
        const tl_finding *f = tl_analysis_finding(a, k);
        found = f->file == fi && f->line == an.v[x].line && !strcmp(tl_rule_code(f->rule), an.v[x].code);
      }
      if (an.v[x].kind == 1 && !found) {
        fprintf(stderr, "Missing: %s:%u: %s\n", an.v[x].path, an.v[x].line, an.v[x].code);
        st->missing++;
      }
      if (an.v[x].kind == 2 && found)
        fprintf(stderr, "note: %s:%u: %s is now found: turn `todoruleid` into `ruleid`\n", an.v[x].path, an.v[x].line, an.v[x].code);
    }
    for (size_t c = 0; c < codes.n; c++) free(codes.v[c]);
    tl_vec_free(&codes);
  }
  for (size_t x = 0; x < an.n; x++) free(an.v[x].path);
  tl_vec_free(&an);
}

/* Fixes (as --fix --unsafe-fixes makes them, round after round): every X.py with an X.fixed.py
 * beside it; then analysing the fixed texts again, not one fix applies. */
static void check_fixed(run_state *st, tl_ruleset *rs, tl_analysis *a, tl_paths *files) {
  fixed_out fo = {0};
  tl_fixes_apply_all(a, true, NULL, NULL, collect_fixed, &fo);
  char **texts = tl_calloc(files->n + 1, sizeof *texts);
  size_t *lens = tl_calloc(files->n + 1, sizeof *lens);
  for (size_t k = 0; k < fo.paths.n; k++) {
    size_t fi = (size_t)strtoul(fo.paths.v[k], NULL, 10);
    texts[fi] = fo.texts.v[k];
    lens[fi] = fo.lens.v[k];
  }
  for (size_t fi = 0; fi < files->n; fi++) {
    char *want_path = tl_printf("%.*s.fixed.py", (int)(strlen(files->v[fi]) - 3), files->v[fi]);
    tl_source want;
    size_t off;
    char *msg = NULL;
    bool have_want = tl_source_read(want_path, &want, &off, &msg) == TL_SOURCE_OK;
    free(msg);
    if (have_want) {
      st->checks++;
      size_t len;
      const char *orig = tl_analysis_file_text(a, fi, &len);
      const char *got = texts[fi] ? texts[fi] : orig;
      size_t glen = texts[fi] ? lens[fi] : len;
      if (glen != want.len || memcmp(got, want.text, glen)) {
        tl_buf diff = {0};
        tl_diff_unified(&diff, want_path, want.text, want.len, got, glen);
        fprintf(stderr, "Fixed: %s after --fix --unsafe-fixes differs from %s:\n%s\n", files->v[fi], want_path, diff.data ? diff.data : "");
        tl_buf_free(&diff);
        st->fixed++;
      }
      tl_source_free(&want);
    } else if (texts[fi]) {
      fprintf(stderr, "Fixed: %s has fixes but no %s beside it\n", files->v[fi], want_path);
      st->fixed++;
    }
    free(want_path);
  }
  if (fo.paths.n) {
    st->checks++;
    tl_analysis *b = run_project(rs, files, (const char *const *)texts, lens);
    fixed_out again = {0};
    tl_fixes_apply(b, true, NULL, collect_fixed, &again);
    for (size_t k = 0; k < again.paths.n; k++) {
      size_t fi = (size_t)strtoul(again.paths.v[k], NULL, 10);
      if (again.lens.v[k] != lens[fi] || memcmp(again.texts.v[k], texts[fi], lens[fi])) {
        fprintf(stderr, "Fixed: fixing %s a second time changes it again\n", files->v[fi]);
        st->fixed++;
      }
      free(again.paths.v[k]);
      free(again.texts.v[k]);
    }
    tl_vec_free(&again.paths); tl_vec_free(&again.texts); tl_vec_free(&again.lens);
    tl_analysis_delete(b);
  }
  for (size_t k = 0; k < fo.paths.n; k++) { free(fo.paths.v[k]); free(fo.texts.v[k]); }
  tl_vec_free(&fo.paths); tl_vec_free(&fo.texts); tl_vec_free(&fo.lens);
  free(texts);
  free(lens);
}

/* One project: the files under `dir`, analysed together. */
static void check_project(run_state *st, tl_ruleset *rs, const char *dir) {
  tl_paths all = {0}, files = {0};
  tl_diags d = {0};
  const char *arg[] = {dir};
  tl_walk(arg, 1, NULL, 0, &all, &d);
  for (size_t i = 0; i < all.n; i++) {
    if (ends_with(all.v[i], ".fixed.py")) free(all.v[i]);
    else tl_vec_push(&files, all.v[i]);
  }
  tl_vec_free(&all);
  for (size_t i = 0; i < d.n; i++) {
    fprintf(stderr, "%s:%u: unexpected problem listing %s: %s\n", d.v[i].path, d.v[i].line, dir, d.v[i].message);
    st->other++;
  }
  tl_analysis *a = run_project(rs, &files, NULL, NULL);
  const tl_diags *ad = tl_analysis_diags(a);
  for (size_t i = 0; i < ad->n; i++) {
    fprintf(stderr, "%s:%u: unexpected input problem: %s\n", ad->v[i].path, ad->v[i].line, ad->v[i].message);
    st->other++;
  }
  check_annotations(st, a, &files);
  check_fixed(st, rs, a, &files);
  tl_analysis_delete(a);
  tl_paths_free(&files);
  tl_diags_free(&d);
}

/* A project is a directory holding .py files directly; a directory without any is a group of
 * projects (its subdirectories). A directory with an expected-findings.txt is an end-to-end
 * project checked by tests/projects.sh or tests/examples.sh. */
static void visit(run_state *st, tl_ruleset *rs, const char *dir, int depth) {
  char *expected = tl_printf("%s/expected-findings.txt", dir);
  struct stat est;
  bool end_to_end = stat(expected, &est) == 0;
  free(expected);
  if (end_to_end) return;
  DIR *dp = opendir(dir);
  if (!dp || depth > 8) {
    if (dp) closedir(dp);
    else { fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno)); st->other++; }
    return;
  }
  bool has_py = false;
  strvec subs = {0};
  struct dirent *e;
  while ((e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    char *p = tl_printf("%s/%s", dir, e->d_name);
    struct stat st_;
    if (stat(p, &st_) == 0 && S_ISDIR(st_.st_mode)) tl_vec_push(&subs, p);
    else { has_py = has_py || ends_with(e->d_name, ".py"); free(p); }
  }
  closedir(dp);
  if (has_py) check_project(st, rs, dir);
  for (size_t i = 0; i < subs.n; i++) {
    if (!has_py) visit(st, rs, subs.v[i], depth + 1);
    free(subs.v[i]);
  }
  tl_vec_free(&subs);
}

int main(int argc, char **argv) {
  /* relative paths, as the fixtures are named in the repository */
  if (chdir(TL_SOURCE_DIR) != 0) {
    fprintf(stderr, "cannot enter %s: %s\n", TL_SOURCE_DIR, strerror(errno));
    return 1;
  }
  run_state st = {0};
  tl_diags d = {0};
  tl_ruleset *rs = tl_ruleset_new();
  bool ok = tl_ruleset_add_builtin(rs, &d);
  const char *all[] = {"ALL"};
  tl_ruleset_select(rs, all, 1, NULL, 0);
  ok = ok && tl_ruleset_compile(rs, &d);
  for (size_t i = 0; i < d.n; i++) fprintf(stderr, "%s:%u:%u: %s\n", d.v[i].path, d.v[i].line, d.v[i].col, d.v[i].message);
  CHECK(ok);
  const char *defaults[] = {"fixtures"};
  const char *const *roots = argc > 1 ? (const char *const *)argv + 1 : defaults;
  size_t nroots = argc > 1 ? (size_t)argc - 1 : 1;
  for (size_t i = 0; i < nroots && ok; i++) {
    char *root = tl_strdup(roots[i]);
    for (size_t n = strlen(root); n > 1 && root[n - 1] == '/'; n--) root[n - 1] = 0;
    int before = ++st.checks;
    visit(&st, rs, root, 0);
    if (st.checks == before) {
      fprintf(stderr, "%s: no fixture checked\n", root);
      st.other++;
    }
    free(root);
  }
  fprintf(stderr, "fixtures: %d annotations and fix files checked; %d noisy, %d missing, %d fix mismatches, %d other "
          "problems\n", st.checks, st.noisy, st.missing, st.fixed, st.other);
  tl_test_checks += st.checks;
  tl_test_failures += st.noisy + st.missing + st.fixed + st.other;
  tl_ruleset_delete(rs);
  tl_diags_free(&d);
  TEST_DONE();
}
