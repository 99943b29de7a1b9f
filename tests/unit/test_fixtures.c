/* test_fixtures.c - runs every rule over fixture directories (arguments relative to the source tree;
 * default: fixtures/ and examples/) and checks, per project: the `# ruleid:` / `# ok:` annotations
 * (Noisy: a finding nobody expected; Missing: an expected finding that did not come), that X.py
 * after all fixes equals X.fixed.py and that fixing twice changes nothing, and that every finding
 * (code, span, severity, message, hot chain, fix as a diff) equals its snapshot in
 * <project>/snapshots/. TRAINLINT_UPDATE_SNAPSHOTS=1 rewrites the snapshots instead (tests/README.md). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl_fix.h"
#include "tl_fix_apply.h"
#include "tl_source.h"
#include "tl_test.h"
#include "tl_walk.h"
#include "trainlint.h"

typedef struct {
  char *path;
  uint32_t line; /* the annotated line */
  char code[8];
  int kind; /* 1 ruleid, 0 ok, 2 todoruleid */
} annot;

typedef TL_VEC(annot) annots;

typedef struct {
  bool update; /* rewrite snapshots that differ instead of failing */
  int checks;
  int noisy, missing, fixed, snapshots, other;
  int updated;
} run_state;

static void parse_annotations(const char *path, const char *text, size_t len, annots *out, tl_strvec *codes) {
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

static tl_analysis *run_project(tl_ruleset *rs, tl_strvec *files, const char *const *texts, const size_t *lens) {
  tl_options o = {1, false, 0, NULL, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < files->n; i++) {
    if (texts && texts[i]) tl_analysis_add_text(a, files->v[i], texts[i], lens[i]);
    else tl_analysis_add_path(a, files->v[i]);
  }
  tl_analysis_run(a);
  return a;
}

/* Noisy and Missing: the annotations of every file against the findings. */
static void check_annotations(run_state *st, tl_analysis *a, const tl_strvec *files) {
  annots an = {0};
  for (size_t fi = 0; fi < files->n; fi++) {
    size_t len;
    const char *text = tl_analysis_file_text(a, fi, &len);
    if (!text) continue;
    tl_strvec codes = {0};
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
        expected = expected ||
                   (an.v[x].kind == 1 && an.v[x].line == f->line && !strcmp(an.v[x].code, tl_rule_code(f->rule)));
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
        fprintf(stderr, "note: %s:%u: %s is now found: turn `todoruleid` into `ruleid`\n", an.v[x].path, an.v[x].line,
                an.v[x].code);
    }
    tl_strvec_free(&codes);
  }
  for (size_t x = 0; x < an.n; x++) free(an.v[x].path);
  tl_vec_free(&an);
}

/* Fixes (as --fix --unsafe-fixes makes them, round after round): every X.py with an X.fixed.py
 * beside it; then analysing the fixed texts again, not one fix applies. */
static void check_fixed(run_state *st, tl_ruleset *rs, tl_analysis *a, tl_strvec *files) {
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
        fprintf(stderr, "Fixed: %s after --fix --unsafe-fixes differs from %s:\n%s\n", files->v[fi], want_path,
                diff.data ? diff.data : "");
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
    tl_vec_free(&again.paths);
    tl_vec_free(&again.texts);
    tl_vec_free(&again.lens);
    tl_analysis_delete(b);
  }
  for (size_t k = 0; k < fo.paths.n; k++) {
    free(fo.paths.v[k]);
    free(fo.texts.v[k]);
  }
  tl_vec_free(&fo.paths);
  tl_vec_free(&fo.texts);
  tl_vec_free(&fo.lens);
  free(texts);
  free(lens);
}

/* ---- snapshots ----
 * A project directory P (analysed as one) has one snapshot per .py file directly in P
 * (P/snapshots/<name>.snap, <name> without .py) and one per subdirectory of P, whose files are
 * one fixture (P/snapshots/<subdir>.snap). */

static const char snap_banner[] =
    "# Generated by tests/unit/test_fixtures.c; do not edit. Regenerate: scripts/update-snapshots.sh [BUILD]\n";

/* The snapshot name of a file of project `dir` (a relative path below it). Caller frees. */
static char *snap_unit(const char *dir, const char *path) {
  const char *r = path + strlen(dir) + 1;
  const char *slash = strchr(r, '/');
  if (slash) return tl_strndup(r, (size_t)(slash - r));
  size_t n = strlen(r);
  return ends_with(r, ".py") ? tl_strndup(r, n - 3) : tl_strdup(r);
}

/* The finding's first line with a caret run under its span (to the end of that line). */
static void snap_source(tl_buf *b, const char *text, size_t len, const tl_finding *f) {
  size_t s = f->start_byte, e = f->start_byte;
  while (s > 0 && text[s - 1] != '\n' && text[s - 1] != '\r') s--;
  while (e < len && text[e] != '\n' && text[e] != '\r') e++;
  char num[16];
  int w = snprintf(num, sizeof num, "%u", f->line);
  tl_buf_printf(b, "    %s | %.*s\n    %*s | ", num, (int)(e - s), text + s, w, "");
  for (size_t i = s; i < f->start_byte; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80) tl_buf_putc(b, text[i] == '\t' ? '\t' : ' ');
  size_t stop = f->end_byte < e ? f->end_byte : e, n = 0;
  for (size_t i = f->start_byte; i < stop; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80) n++;
  for (size_t i = 0; i < (n ? n : 1); i++) tl_buf_putc(b, '^');
  tl_buf_putc(b, '\n');
}

/* The diff the finding's fix alone makes to its file. */
static void snap_fix(tl_buf *b, const char *text, size_t len, const tl_finding *f) {
  size_t nl;
  char *neu = tl_edits_apply(text, len, f->fix, f->nfix, &nl, NULL);
  tl_buf d = {0};
  tl_diff_unified(&d, f->path, text, len, neu, nl);
  for (char *line = d.data, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    tl_buf_printf(b, "    | %s\n", line);
  }
  tl_buf_free(&d);
  free(neu);
}

static void snap_finding(tl_buf *b, const tl_analysis *a, const tl_finding *f) {
  tl_buf_printf(b, "\n%s:%u:%u-%u:%u %s %s\n", f->path, f->line, f->col, f->end_line, f->end_col, tl_rule_code(f->rule),
                tl_severity_name(f->severity));
  tl_buf_printf(b, "  message: %s\n", f->message);
  size_t len;
  const char *text = tl_analysis_file_text(a, f->file, &len);
  if (text) snap_source(b, text, len, f);
  for (size_t i = 0; i < f->nhot; i++)
    tl_buf_printf(b, "  %s %s at %s:%u:%u\n", i ? "        " : "why hot:", f->hot[i].what, f->hot[i].path,
                  f->hot[i].line, f->hot[i].col);
  if (f->nfix) {
    const char *title = tl_rule_fix_title(f->rule);
    tl_buf_printf(b, "  fix (%s)%s%s\n", f->fix_safety == TL_FIXSAFE_SAFE ? "safe" : "unsafe", *title ? ": " : "",
                  title);
    if (text) snap_fix(b, text, len, f);
  }
}

/* Writes `path` through a temporary file and a rename, so that a reader never sees half of it. */
static bool write_all(const char *path, const char *data, size_t len) {
  char *tmp = tl_printf("%s.tmp.%ld", path, (long)getpid());
  FILE *fp = fopen(tmp, "wb");
  bool ok = fp && fwrite(data, 1, len, fp) == len;
  if (fp) ok = fclose(fp) == 0 && ok;
  ok = ok && rename(tmp, path) == 0;
  if (!ok) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    remove(tmp);
  }
  free(tmp);
  return ok;
}

static void snap_compare(run_state *st, const char *path, const char *got, size_t glen) {
  st->checks++;
  size_t wlen = 0;
  char *want = tl_test_read_file(path, &wlen);
  if (want && wlen == glen && !memcmp(want, got, glen)) {
    free(want);
    return;
  }
  if (st->update) {
    char *dir = tl_strndup(path, (size_t)(strrchr(path, '/') - path));
    mkdir(dir, 0777);
    free(dir);
    if (write_all(path, got, glen)) {
      fprintf(stderr, "updated: %s\n", path);
      st->updated++;
    } else st->other++;
  } else if (!want) {
    fprintf(stderr,
            "Snapshot: %s is missing; scripts/update-snapshots.sh (or TRAINLINT_UPDATE_SNAPSHOTS=1) writes it\n", path);
    st->snapshots++;
  } else {
    tl_buf diff = {0};
    tl_diff_unified(&diff, path, want, wlen, got, glen);
    fprintf(stderr,
            "Snapshot: %s differs (- snapshot, + this build); if the change is right, "
            "scripts/update-snapshots.sh (or TRAINLINT_UPDATE_SNAPSHOTS=1) accepts it:\n%s\n",
            path, diff.data);
    tl_buf_free(&diff);
    st->snapshots++;
  }
  free(want);
}

static void check_snapshots(run_state *st, const tl_analysis *a, const char *dir, const tl_strvec *files) {
  tl_strvec units = {0};
  for (size_t fi = 0; fi < files->n; fi++) {
    char *u = snap_unit(dir, files->v[fi]);
    bool have = units.n && !strcmp(units.v[units.n - 1], u);
    for (size_t k = 0; k < units.n && !have; k++)
      if (!strcmp(units.v[k], u)) {
        fprintf(stderr, "Snapshot: %s: a file and a directory of %s/ share the name %s\n", files->v[fi], dir, u);
        st->other++;
        have = true;
      }
    if (have) free(u);
    else tl_vec_push(&units, u);
  }
  for (size_t k = 0; k < units.n; k++) {
    tl_buf b = {0}, list = {0};
    size_t nfiles = 0, nfound = 0;
    bool is_dir = false;
    for (size_t fi = 0; fi < files->n; fi++) {
      char *u = snap_unit(dir, files->v[fi]);
      if (!strcmp(u, units.v[k])) {
        const char *rel = files->v[fi] + strlen(dir) + 1;
        is_dir = strchr(rel, '/') != NULL;
        tl_buf_printf(&list, "%s%s", nfiles++ ? ", " : "", is_dir ? strchr(rel, '/') + 1 : rel);
      }
      free(u);
    }
    tl_buf_puts(&b, snap_banner);
    if (is_dir) tl_buf_printf(&b, "# The findings in %s/%s/ (%s)", dir, units.v[k], list.data);
    else tl_buf_printf(&b, "# The findings in %s/%s", dir, list.data);
    tl_buf_printf(&b, ", with every rule enabled and %s/ analysed as one project\n", dir);
    for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
      const tl_finding *f = tl_analysis_finding(a, i);
      char *u = snap_unit(dir, files->v[f->file]);
      if (!strcmp(u, units.v[k])) {
        snap_finding(&b, a, f);
        nfound++;
      }
      free(u);
    }
    if (!nfound) tl_buf_puts(&b, "\nno findings\n");
    /* without trailing blanks (a diff's empty context lines), which editors and git diff --check dislike */
    tl_buf out = {0};
    for (const char *line = b.data; *line;) {
      const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
      const char *e = end;
      while (e > line && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
      tl_buf_put(&out, line, (size_t)(e - line));
      if (nl) tl_buf_putc(&out, '\n');
      line = nl ? nl + 1 : end;
    }
    char *path = tl_printf("%s/snapshots/%s.snap", dir, units.v[k]);
    snap_compare(st, path, out.data, out.len);
    tl_buf_free(&out);
    free(path);
    tl_buf_free(&b);
    tl_buf_free(&list);
  }
  /* a snapshot of no fixture: stale */
  char *sdir = tl_printf("%s/snapshots", dir);
  DIR *dp = opendir(sdir);
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    bool known = false;
    for (size_t k = 0; k < units.n && !known; k++) {
      char *name = tl_printf("%s.snap", units.v[k]);
      known = !strcmp(name, e->d_name);
      free(name);
    }
    if (known) continue;
    char *p = tl_printf("%s/%s", sdir, e->d_name);
    if (st->update && ends_with(e->d_name, ".snap") && remove(p) == 0) {
      fprintf(stderr, "removed: %s\n", p);
      st->updated++;
    } else {
      fprintf(stderr, "Snapshot: %s belongs to no fixture of %s/%s\n", p, dir,
              ends_with(e->d_name, ".snap") ? "; scripts/update-snapshots.sh removes it" : "");
      st->snapshots++;
    }
    free(p);
  }
  if (dp) closedir(dp);
  free(sdir);
  tl_strvec_free(&units);
}

/* One project: the files under `dir`, analysed together. An end-to-end project (its findings are
 * listed in expected-findings.txt, checked by tests/projects.sh or tests/examples.sh) has no
 * annotations or fixed files: only its snapshots are compared. */
static void check_project(run_state *st, tl_ruleset *rs, const char *dir, bool end_to_end) {
  tl_strvec all = {0}, files = {0};
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
  for (size_t i = 0; i < tl_analysis_diag_count(a); i++) {
    const tl_diag *ad = tl_analysis_diag(a, i);
    fprintf(stderr, "%s:%u: unexpected input problem: %s\n", ad->path, ad->line, ad->message);
    st->other++;
  }
  if (!end_to_end) check_annotations(st, a, &files);
  check_snapshots(st, a, dir, &files);
  if (!end_to_end) check_fixed(st, rs, a, &files); /* last: it leaves `a` at the fixed texts */
  tl_analysis_delete(a);
  tl_strvec_free(&files);
  tl_diags_free(&d);
}

/* A project is a directory holding .py files directly; a directory without any is a group of
 * projects (its subdirectories). snapshots/ directories hold no fixtures. */
static void visit(run_state *st, tl_ruleset *rs, const char *dir, int depth) {
  char *expected = tl_printf("%s/expected-findings.txt", dir);
  struct stat est;
  bool end_to_end = stat(expected, &est) == 0;
  free(expected);
  DIR *dp = opendir(dir);
  if (!dp || depth > 8) {
    if (dp) closedir(dp);
    else {
      fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno));
      st->other++;
    }
    return;
  }
  bool has_py = false;
  tl_strvec subs = {0};
  struct dirent *e;
  while ((e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    char *p = tl_printf("%s/%s", dir, e->d_name);
    struct stat st_;
    if (stat(p, &st_) == 0 && S_ISDIR(st_.st_mode) && strcmp(e->d_name, "snapshots")) tl_vec_push(&subs, p);
    else {
      has_py = has_py || ends_with(e->d_name, ".py");
      free(p);
    }
  }
  closedir(dp);
  if (has_py) check_project(st, rs, dir, end_to_end);
  for (size_t i = 0; i < subs.n; i++) {
    if (!has_py) visit(st, rs, subs.v[i], depth + 1);
    free(subs.v[i]);
  }
  tl_vec_free(&subs);
}

int main(int argc, char **argv) {
  /* relative paths, so that the snapshots name fixtures as the repository does */
  if (chdir(TL_SOURCE_DIR) != 0) {
    fprintf(stderr, "cannot enter %s: %s\n", TL_SOURCE_DIR, strerror(errno));
    return 1;
  }
  const char *env = getenv("TRAINLINT_UPDATE_SNAPSHOTS");
  run_state st = {.update = env && *env && strcmp(env, "0")};
  tl_ruleset *rs = tl_ruleset_new();
  bool ok = tl_ruleset_add_builtin(rs);
  const char *all[] = {"ALL"};
  tl_ruleset_select(rs, all, 1, NULL, 0);
  ok = ok && tl_ruleset_compile(rs);
  for (size_t i = 0; i < tl_ruleset_diag_count(rs); i++) {
    const tl_diag *d = tl_ruleset_diag(rs, i);
    fprintf(stderr, "%s:%u:%u: %s\n", d->path, d->line, d->col, d->message);
  }
  CHECK(ok);
  const char *defaults[] = {"fixtures", "examples"};
  const char *const *roots = argc > 1 ? (const char *const *)argv + 1 : defaults;
  size_t nroots = argc > 1 ? (size_t)argc - 1 : 2;
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
  fprintf(stderr,
          "fixtures: %d annotations, fixed files and snapshots checked; %d noisy, %d missing, %d fix mismatches, "
          "%d snapshot mismatches, %d other problems%s\n",
          st.checks, st.noisy, st.missing, st.fixed, st.snapshots, st.other,
          st.update ? "" : " (TRAINLINT_UPDATE_SNAPSHOTS=1 rewrites snapshots)");
  if (st.update) fprintf(stderr, "fixtures: %d snapshots written or removed\n", st.updated);
  tl_test_checks += st.checks;
  tl_test_failures += st.noisy + st.missing + st.fixed + st.snapshots + st.other;
  tl_ruleset_delete(rs);
  TEST_DONE();
}
