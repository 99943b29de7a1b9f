/* test_walk.c - unit tests for tl_walk and tl_glob_match: .gitignore, skipped dirs, symlinks, order. */
#include "tl_walk.h"
#include "tl_test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what) {
  perror(what);
  exit(2);
}

static void mkdirs(const char *path) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) die(buf);
    *p = '/';
  }
  if (mkdir(buf, 0755) != 0 && errno != EEXIST) die(buf);
}

/* Writes a file, creating its parent directories. */
static void put(const char *path, const char *text) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = 0;
    mkdirs(dir);
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die(path);
  size_t n = strlen(text);
  if (write(fd, text, n) != (ssize_t)n) die(path);
  close(fd);
}

static void ln(const char *target, const char *path) {
  if (symlink(target, path) != 0) die(path);
}

typedef struct {
  tl_strvec out;
  tl_diags diags;
  size_t errors; /* diagnostics at the error level */
} result;

static result walk(const char *const *args, size_t n, const char *const *ex, size_t nex) {
  result r = {{0}, {0}, 0};
  bool ok = tl_walk(args, n, ex, nex, &r.out, &r.diags);
  for (size_t i = 0; i < r.diags.n; i++) r.errors += r.diags.v[i].level == TL_DIAG_ERROR;
  CHECK(ok == (r.errors == 0));
  return r;
}

static void result_free(result *r) {
  tl_strvec_free(&r->out);
  tl_diags_free(&r->diags);
}

static void check_paths(const result *r, const char *const *want, size_t nwant, int line) {
  bool ok = r->out.n == nwant;
  for (size_t i = 0; ok && i < nwant; i++) ok = strcmp(r->out.v[i], want[i]) == 0;
  CHECK(ok);
  if (!ok) {
    fprintf(stderr, "line %d: walk gave %zu paths:\n", line, r->out.n);
    for (size_t i = 0; i < r->out.n; i++) fprintf(stderr, "  %s\n", r->out.v[i]);
    fprintf(stderr, "wanted %zu:\n", nwant);
    for (size_t i = 0; i < nwant; i++) fprintf(stderr, "  %s\n", want[i]);
  }
}

/* Finds the diagnostic for `path`; checks its level and that the message holds `part`. */
static void check_diag(const result *r, const char *path, tl_diag_level level, const char *part) {
  for (size_t i = 0; i < r->diags.n; i++) {
    if (strcmp(r->diags.v[i].path, path) != 0) continue;
    CHECK_INT(r->diags.v[i].level, level);
    if (!strstr(r->diags.v[i].message, part)) {
      fprintf(stderr, "diag for %s: \"%s\" lacks \"%s\"\n", path, r->diags.v[i].message, part);
      CHECK(0);
    }
    return;
  }
  fprintf(stderr, "no diagnostic for %s (have %zu)\n", path, r->diags.n);
  for (size_t i = 0; i < r->diags.n; i++) fprintf(stderr, "  %s: %s\n", r->diags.v[i].path, r->diags.v[i].message);
  CHECK(0);
}

static void test_glob(void) {
  struct {
    const char *pat, *path;
    bool want;
  } cases[] = {
      {"*.py", "a.py", true},
      {"*.py", "d/a.py", false},
      {"*", "abc", true},
      {"*", "a/b", false},
      {"?.py", "a.py", true},
      {"?.py", "ab.py", false},
      {"a?b", "a/b", false},
      {"a/*/b", "a/x/b", true},
      {"a/*/b", "a/x/y/b", false},
      {"a/**/b", "a/b", true},
      {"a/**/b", "a/x/b", true},
      {"a/**/b", "a/x/y/b", true},
      {"a/**/b", "a/x/y/c", false},
      {"**/foo", "foo", true},
      {"**/foo", "x/y/foo", true},
      {"**/foo", "x/foo/y", false},
      {"**/foo/bar", "x/foo/bar", true},
      {"foo/**", "foo/a", true},
      {"foo/**", "foo/a/b", true},
      {"foo/**", "foo", false},
      {"**", "a/b/c", true},
      {"a**b", "axxb", true},
      {"a**b", "ax/b", false},
      {"[abc].py", "b.py", true},
      {"[abc].py", "d.py", false},
      {"[!abc].py", "b.py", false},
      {"[!abc].py", "d.py", true},
      {"[^abc].py", "d.py", true},
      {"[a-c]x", "bx", true},
      {"[a-c]x", "dx", false},
      {"[]]", "]", true},
      {"[[:digit:]]*", "1abc", true},
      {"[[:digit:]]*", "abc", false},
      {"a[/]b", "a/b", false},
      {"\\*.py", "*.py", true},
      {"\\*.py", "a.py", false},
      {"\\#x", "#x", true},
      {"a\\", "a", false},
      {"[abc", "a", false},
      {"data/**/cache", "data/cache", true},
      {"data/**/cache", "data/x/y/cache", true},
      {"", "", true},
      {"x", "", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bool got = tl_glob_match(cases[i].pat, cases[i].path);
    if (got != cases[i].want) fprintf(stderr, "glob %s vs %s: got %d\n", cases[i].pat, cases[i].path, (int)got);
    CHECK(got == cases[i].want);
  }
  /* Backtracking is bounded: this must answer at once, not after 2^20 steps. */
  CHECK(!tl_glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
  CHECK(!tl_glob_match("**/**/**/**/**/**/**/**/**/**/**/**/z", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/y"));
}

static void build_tree(void) {
  put("root/.gitignore", "# a comment\n"
                         "\n"
                         "build/\n"
                         "!build/keep.py\n"
                         "*.log\n"
                         "/top_only.py\n"
                         "gen_*.py\n"
                         "!gen_keep.py\n"
                         "data/**/cache\n"
                         "\\#hash.py\n"
                         "data_link\n"
                         "trailing.py   \n");
  put("root/a.py", "");
  put("root/b.pyi", "");
  put("root/c.txt", "");
  put("root/README.md", "");
  put("root/build.py", "");         /* "build/" matches directories only */
  put("root/build/gen.py", "");     /* ignored directory */
  put("root/build/keep.py", "");    /* cannot be re-included under an ignored directory */
  put("root/top_only.py", "");      /* anchored: ignored here ... */
  put("root/deep/top_only.py", ""); /* ... not here */
  put("root/gen_a.py", "");
  put("root/gen_keep.py", ""); /* negated */
  put("root/#hash.py", "");
  put("root/trailing.py", ""); /* trailing spaces of the line are dropped */
  put("root/x.log", "");
  put("root/local.py", "");
  put("root/deep/.gitignore", "!gen_b.py\nlocal.py\n/anch.py\n");
  put("root/deep/gen_b.py", ""); /* re-included by the deeper .gitignore */
  put("root/deep/gen_c.py", ""); /* ignored by the root one */
  put("root/deep/local.py", ""); /* ignored by the deeper one */
  put("root/deep/anch.py", "");  /* anchored in deep/ */
  put("root/deep/more/anch.py", "");
  put("root/data/x/cache/c.py", "");
  put("root/data/cache/d.py", "");
  put("root/data/x/keep.py", "");
  put("root/sub/z.py", "");
  put("root/sub/y.py", "");
  put("root/.git/hooks.py", "");
  put("root/__pycache__/m.py", "");
  put("root/node_modules/x.py", "");
  put("root/.tox/t.py", "");
  put("root/.mypy_cache/m.py", "");
  put("root/.pytest_cache/m.py", "");
  put("root/venvx/pyvenv.cfg", "home = /usr/bin\n"); /* any name: a virtualenv */
  put("root/venvx/lib/site.py", "");
  put("root/.venv/bin/activate", ""); /* a venv name with bin/activate */
  put("root/.venv/lib/x.py", "");
  put("root/env/plain.py", ""); /* "env" without markers is ordinary */
  put("outside/e.py", "");
  ln("sub/z.py", "root/linked.py");              /* symlink to a file of the tree: the same file, once */
  ln("sub", "root/alias");                       /* symlink to a directory walked already */
  ln("../outside", "root/ext");                  /* symlink to a directory outside */
  ln("../root", "outside/loop2");                /* ... which links back to the root: a loop */
  ln("..", "root/sub/loop");                     /* a loop */
  ln("nowhere.py", "root/sub/broken.py");        /* dangling */
  ln("/nonexistent/datasets", "root/data_link"); /* dangling but ignored: silent */
  if (mkfifo("root/fifo.py", 0644) != 0) die("mkfifo");
}

static const char *const tree_files[] = {
    "root/a.py",
    "root/b.pyi",
    "root/build.py",
    "root/data/x/keep.py",
    "root/deep/gen_b.py",
    "root/deep/more/anch.py",
    "root/deep/top_only.py",
    "root/env/plain.py",
    "root/ext/e.py",
    "root/gen_keep.py",
    "root/local.py",
    "root/sub/y.py",
    "root/sub/z.py",
};
#define NTREE (sizeof tree_files / sizeof tree_files[0])

static void test_tree(void) {
  const char *args[] = {"root"};
  result r = walk(args, 1, NULL, 0);
  check_paths(&r, tree_files, NTREE, __LINE__);
  CHECK_INT(r.errors, 0); /* a dangling link met while walking is a warning (e.g. data -> /mnt/...) */
  check_diag(&r, "root/sub/broken.py", TL_DIAG_WARNING, "dangling symbolic link");
  check_diag(&r, "root/sub/loop", TL_DIAG_WARNING, "loop");
  check_diag(&r, "root/ext/loop2", TL_DIAG_WARNING, "loop");
  CHECK_INT(r.diags.n, 3);
  for (size_t i = 1; i < r.out.n; i++) CHECK(strcmp(r.out.v[i - 1], r.out.v[i]) < 0);

  /* Deterministic: a second walk gives the same paths and the same diagnostics in the same order. */
  result r2 = walk(args, 1, NULL, 0);
  check_paths(&r2, (const char *const *)r.out.v, r.out.n, __LINE__);
  CHECK_INT(r2.diags.n, r.diags.n);
  for (size_t i = 0; i < r.diags.n && i < r2.diags.n; i++) {
    CHECK_STR(r2.diags.v[i].path, r.diags.v[i].path);
    CHECK_STR(r2.diags.v[i].message, r.diags.v[i].message);
  }
  result_free(&r);
  result_free(&r2);
}

static void test_spelling(const char *tmp) {
  const char *variants[][2] = {
      {"root/", "root/a.py"}, {"root//", "root/a.py"}, {"./root", "./root/a.py"}, {"./root/", "./root/a.py"}};
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    result r = walk(&variants[i][0], 1, NULL, 0);
    CHECK_INT(r.out.n, NTREE);
    if (r.out.n) CHECK_STR(r.out.v[0], variants[i][1]);
    result_free(&r);
  }
  char *abs = tl_printf("%s/root", tmp);
  char *want = tl_printf("%s/root/sub/z.py", tmp);
  const char *a1[] = {abs};
  result r = walk(a1, 1, NULL, 0);
  CHECK_INT(r.out.n, NTREE);
  if (r.out.n == NTREE) CHECK_STR(r.out.v[NTREE - 1], want);
  result_free(&r);
  free(abs);
  free(want);

  /* "." from inside the tree. */
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) die("getcwd");
  if (chdir("root/sub") != 0) die("chdir");
  const char *dot[] = {"."};
  r = walk(dot, 1, NULL, 0);
  const char *want_dot[] = {"./y.py", "./z.py"};
  check_paths(&r, want_dot, 2, __LINE__);
  check_diag(&r, "./loop", TL_DIAG_WARNING, "loop"); /* "loop -> .." leads above the argument */
  result_free(&r);
  if (chdir(cwd) != 0) die("chdir");
}

static void test_explicit(void) {
  ln("nowhere", "dangle.py");
  /* Sorted within each argument; arguments keep their order. Explicit files are taken whatever
   * their name or kind; missing and dangling arguments are errors; dangling links inside a walked directory are warnings. */
  const char *args[] = {"root/sub", "root/c.txt", "nope.py", "root/fifo.py", "dangle.py", "root/a.py"};
  result r = walk(args, 6, NULL, 0);
  const char *want[] = {"root/sub/y.py", "root/sub/z.py", "root/c.txt", "root/fifo.py", "root/a.py"};
  check_paths(&r, want, 5, __LINE__);
  CHECK_INT(r.errors, 2); /* nope.py, dangle.py (named); root/sub/broken.py is a warning */
  check_diag(&r, "nope.py", TL_DIAG_ERROR, "no such file or directory");
  check_diag(&r, "dangle.py", TL_DIAG_ERROR, "dangling symbolic link");
  check_diag(&r, "root/sub/broken.py", TL_DIAG_WARNING, "dangling symbolic link");
  check_diag(&r, "root/sub/loop", TL_DIAG_WARNING, "loop");
  result_free(&r);

  /* A link to "/" is a loop too (it would walk the whole filesystem). */
  ln("/", "root/env/rootfs");
  const char *env[] = {"root/env"};
  r = walk(env, 1, NULL, 0);
  const char *want_env[] = {"root/env/plain.py"};
  check_paths(&r, want_env, 1, __LINE__);
  check_diag(&r, "root/env/rootfs", TL_DIAG_WARNING, "loop");
  result_free(&r);
  if (unlink("root/env/rootfs") != 0) die("unlink");

  /* An explicitly named directory is walked even when it would be skipped inside a walk. */
  const char *venv[] = {"root/venvx"};
  r = walk(venv, 1, NULL, 0);
  const char *want_venv[] = {"root/venvx/lib/site.py"};
  check_paths(&r, want_venv, 1, __LINE__);
  result_free(&r);
}

static void test_excludes(void) {
  const char *args[] = {"root"};
  const char *ex[] = {"sub", "gen_keep.py", "/env", "ext/", "# not a pattern", "*.pyi"};
  result r = walk(args, 1, ex, 6);
  /* root/sub is excluded, but root/alias (a symlink to it) is another path and is now walked. */
  const char *want[] = {"root/a.py",           "root/alias/y.py",    "root/alias/z.py",        "root/build.py",
                        "root/data/x/keep.py", "root/deep/gen_b.py", "root/deep/more/anch.py", "root/deep/top_only.py",
                        "root/local.py"}; /* root/linked.py: root/alias/z.py's file */
  check_paths(&r, want, 9, __LINE__);
  CHECK_INT(r.errors, 0);
  check_diag(&r, "root/alias/broken.py", TL_DIAG_WARNING, "dangling symbolic link");
  check_diag(&r, "root/alias/loop", TL_DIAG_WARNING, "loop");
  result_free(&r);
}

static void test_excludes_spelled(void) {
  /* An exclude may also name the path as spelled from the current directory. */
  const char *args[] = {"root/deep", "./root/data"};
  const char *ex[] = {"root/deep/more", "root/data/x/keep.py"};
  result r = walk(args, 2, ex, 2);
  const char *want[] = {"root/deep/gen_b.py", "root/deep/top_only.py"};
  check_paths(&r, want, 2, __LINE__);
  result_free(&r);
  /* ... and relative to the argument's directory. */
  const char *ex2[] = {"more/", "/x"};
  r = walk(args, 2, ex2, 2);
  check_paths(&r, want, 2, __LINE__);
  result_free(&r);
  /* A negated exclude only undoes an earlier exclude line; .gitignore still applies. */
  const char *ex3[] = {"*.py", "!gen_*.py"};
  const char *deep[] = {"root/deep"};
  r = walk(deep, 1, ex3, 2);
  const char *want3[] = {"root/deep/gen_b.py"};
  check_paths(&r, want3, 1, __LINE__);
  result_free(&r);
}

static void test_parent_gitignore(void) {
  /* Inside a repository (root/ holds .git), walking a subdirectory still honours the .gitignore
   * files above it, up to the repository root. */
  const char *args[] = {"root/deep"};
  result r = walk(args, 1, NULL, 0);
  const char *want[] = {"root/deep/gen_b.py", "root/deep/more/anch.py", "root/deep/top_only.py"};
  check_paths(&r, want, 3, __LINE__);
  result_free(&r);
  const char *data[] = {"./root/data/"};
  r = walk(data, 1, NULL, 0);
  const char *want_data[] = {"./root/data/x/keep.py"}; /* the anchored data cache line of root/.gitignore */
  check_paths(&r, want_data, 1, __LINE__);
  result_free(&r);
  /* Outside a repository, a .gitignore above the argument is not looked at. */
  put("norepo/.gitignore", "*.py\n");
  put("norepo/sub/a.py", "");
  const char *norepo[] = {"norepo/sub"};
  r = walk(norepo, 1, NULL, 0);
  const char *want_norepo[] = {"norepo/sub/a.py"};
  check_paths(&r, want_norepo, 1, __LINE__);
  result_free(&r);
}

static void test_unreadable(void) {
  if (geteuid() == 0) return; /* root reads anything */
  mkdirs("locked/inner");
  put("locked/inner/a.py", "");
  put("locked/b.py", "");
  if (chmod("locked/inner", 0) != 0) die("chmod");
  const char *args[] = {"locked"};
  result r = walk(args, 1, NULL, 0);
  const char *want[] = {"locked/b.py"};
  check_paths(&r, want, 1, __LINE__);
  CHECK_INT(r.errors, 1);
  check_diag(&r, "locked/inner", TL_DIAG_ERROR, "permission denied");
  result_free(&r);
  if (chmod("locked/inner", 0755) != 0) die("chmod");
}

int main(void) {
  test_glob();

  char tmp[] = "/tmp/tl_test_walk_XXXXXX";
  if (!mkdtemp(tmp)) die("mkdtemp");
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) die("getcwd");
  if (chdir(tmp) != 0) die("chdir");

  build_tree();
  test_tree();
  test_spelling(tmp);
  test_explicit();
  test_excludes();
  test_excludes_spelled();
  test_parent_gitignore();
  test_unreadable();

  if (chdir(cwd) != 0) die("chdir");
  char *cmd = tl_printf("rm -rf '%s'", tmp);
  CHECK(system(cmd) == 0);
  free(cmd);
  TEST_DONE();
}
