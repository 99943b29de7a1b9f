/* tl_rule_tests.c - testing rules on annotated fixtures (tl_rule_tests.h). */
#include "tl_rule_tests.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tl_fix.h"
#include "tl_fix_apply.h"
#include "tl_source.h"
#include "tl_walk.h"

typedef struct {
  char *path;
  uint32_t line; /* the annotated line */
  char code[8];
  int kind; /* 1 ruleid, 0 ok, 2 todoruleid */
} tl_rule_tests__annot;

typedef TL_VEC(tl_rule_tests__annot) tl_rule_tests__annots;

static bool tl_rule_tests__ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n > m && !strcmp(s + n - m, tail);
}

/* The annotations of one file; `codes` collects the codes they name (each once). An annotation
 * applies to the next line that is neither blank nor a comment. */
static void tl_rule_tests__parse(const char *path, const char *text, size_t len, tl_rule_tests__annots *out,
                                 tl_strvec *codes) {
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
      tl_rule_tests__annot a = {tl_strdup(path), t + 1, {0}, kind};
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

void tl_rule_tests_annotations(tl_rule_tests *st, FILE *out, const tl_analysis *a, const tl_strvec *files) {
  tl_rule_tests__annots an = {0};
  for (size_t fi = 0; fi < files->n; fi++) {
    size_t len;
    const char *text = tl_analysis_file_text(a, fi, &len);
    if (!text) continue;
    tl_strvec codes = {0};
    size_t first = an.n;
    tl_rule_tests__parse(files->v[fi], text, len, &an, &codes);
    /* Noisy: findings of an annotated code on a line without a ruleid for it */
    for (size_t k = 0; k < tl_analysis_finding_count(a); k++) {
      const tl_finding *f = tl_analysis_finding(a, k);
      if (f->file != fi) continue;
      bool checked = false, expected = false;
      for (size_t c = 0; c < codes.n; c++) checked = checked || !strcmp(codes.v[c], tl_rule_code(f->rule));
      if (!checked) continue;
      for (size_t x = first; x < an.n; x++)
        expected = expected ||
                   (an.v[x].kind == 1 && an.v[x].line == f->line && !strcmp(an.v[x].code, tl_rule_code(f->rule)));
      if (!expected) {
        fprintf(out, "Noisy: %s:%u: %s %s\n", f->path, f->line, tl_rule_code(f->rule), f->message);
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
        fprintf(out, "Missing: %s:%u: %s\n", an.v[x].path, an.v[x].line, an.v[x].code);
        st->missing++;
      }
      if (an.v[x].kind == 2 && found)
        fprintf(out, "note: %s:%u: %s is now found: turn `todoruleid` into `ruleid`\n", an.v[x].path, an.v[x].line,
                an.v[x].code);
    }
    tl_strvec_free(&codes);
  }
  for (size_t x = 0; x < an.n; x++) free(an.v[x].path);
  tl_vec_free(&an);
}

tl_analysis *tl_rule_tests_analyse(const tl_ruleset *rs, const tl_strvec *files, const char *const *texts,
                                   const size_t *lens) {
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < files->n; i++) {
    if (texts && texts[i]) tl_analysis_add_text(a, files->v[i], texts[i], lens[i]);
    else tl_analysis_add_path(a, files->v[i]);
  }
  tl_analysis_run(a);
  return a;
}

/* The fixed texts of a pass of fixes, by file index. */
typedef struct {
  char **texts;
  size_t *lens;
  size_t n; /* files fixed */
} tl_rule_tests__fixed;

static void tl_rule_tests__collect(void *ctx, size_t file, const char *old, size_t oldlen, const char *neu,
                                   size_t newlen) {
  tl_rule_tests__fixed *o = ctx;
  (void)old;
  (void)oldlen;
  free(o->texts[file]);
  o->texts[file] = tl_strndup(neu, newlen);
  o->lens[file] = newlen;
  o->n++;
}

void tl_rule_tests_fixed(tl_rule_tests *st, FILE *out, const tl_ruleset *rs, tl_analysis *a, const tl_strvec *files) {
  tl_rule_tests__fixed fo = {tl_calloc(files->n + 1, sizeof(char *)), tl_calloc(files->n + 1, sizeof(size_t)), 0};
  tl_fixes_apply_all(a, true, NULL, NULL, tl_rule_tests__collect, &fo);
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
      const char *got = fo.texts[fi] ? fo.texts[fi] : orig;
      size_t glen = fo.texts[fi] ? fo.lens[fi] : len;
      if (!got || glen != want.len || memcmp(got, want.text, glen)) {
        tl_buf diff = {0};
        tl_diff_unified(&diff, want_path, want.text, want.len, got ? got : "", got ? glen : 0);
        fprintf(out, "Fixed: %s after --fix --unsafe-fixes differs from %s:\n%s\n", files->v[fi], want_path,
                diff.data ? diff.data : "");
        tl_buf_free(&diff);
        st->fixed++;
      }
      tl_source_free(&want);
    } else if (fo.texts[fi]) {
      fprintf(out, "Fixed: %s has fixes but no %s beside it\n", files->v[fi], want_path);
      st->fixed++;
    }
    free(want_path);
  }
  if (fo.n) { /* fixing the fixed texts again changes nothing */
    st->checks++;
    tl_analysis *b = tl_rule_tests_analyse(rs, files, (const char *const *)fo.texts, fo.lens);
    tl_rule_tests__fixed again = {tl_calloc(files->n + 1, sizeof(char *)), tl_calloc(files->n + 1, sizeof(size_t)), 0};
    tl_fixes_apply(b, true, NULL, tl_rule_tests__collect, &again);
    for (size_t fi = 0; fi < files->n; fi++) {
      if (again.texts[fi] &&
          (!fo.texts[fi] || again.lens[fi] != fo.lens[fi] || memcmp(again.texts[fi], fo.texts[fi], fo.lens[fi]))) {
        fprintf(out, "Fixed: fixing %s a second time changes it again\n", files->v[fi]);
        st->fixed++;
      }
      free(again.texts[fi]);
    }
    free(again.texts);
    free(again.lens);
    tl_analysis_delete(b);
  }
  for (size_t fi = 0; fi < files->n; fi++) free(fo.texts[fi]);
  free(fo.texts);
  free(fo.lens);
}

void tl_rule_tests_files(const char *dir, tl_strvec *files, tl_diags *d) {
  tl_strvec all = {0};
  const char *arg[] = {dir};
  tl_walk(arg, 1, NULL, 0, &all, d);
  for (size_t i = 0; i < all.n; i++) {
    if (tl_rule_tests__ends_with(all.v[i], ".fixed.py") || !tl_rule_tests__ends_with(all.v[i], ".py")) free(all.v[i]);
    else tl_vec_push(files, all.v[i]);
  }
  tl_vec_free(&all);
}

static int tl_rule_tests__cmp(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void tl_rule_tests__visit(tl_rule_tests *st, FILE *out, const char *dir, int depth,
                                 void (*fn)(void *ctx, const char *dir), void *ctx) {
  DIR *dp = depth > 8 ? NULL : opendir(dir);
  if (!dp) {
    fprintf(out, "%s: cannot open: %s\n", dir, depth > 8 ? "nested too deep" : strerror(errno));
    st->other++;
    return;
  }
  bool has_py = false;
  tl_strvec subs = {0};
  struct dirent *e;
  while ((e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    char *p = tl_printf("%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && strcmp(e->d_name, "snapshots")) tl_vec_push(&subs, p);
    else {
      has_py = has_py || tl_rule_tests__ends_with(e->d_name, ".py");
      free(p);
    }
  }
  closedir(dp);
  if (subs.n) qsort(subs.v, subs.n, sizeof *subs.v, tl_rule_tests__cmp);
  if (has_py) fn(ctx, dir);
  for (size_t i = 0; i < subs.n; i++) {
    if (!has_py) tl_rule_tests__visit(st, out, subs.v[i], depth + 1, fn, ctx);
    free(subs.v[i]);
  }
  tl_vec_free(&subs);
}

void tl_rule_tests_projects(tl_rule_tests *st, FILE *out, const char *root, void (*fn)(void *ctx, const char *dir),
                            void *ctx) {
  tl_rule_tests__visit(st, out, root, 0, fn, ctx);
}
