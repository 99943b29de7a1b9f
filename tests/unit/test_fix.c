/* test_fix.c - unit tests for tl_fix: edit application, unified diffs checked with patch and git apply,
 * and atomic file replacement. */
#include "tl_fix.h"
#include "tl_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/tl_test_fix_XXXXXX";

static void die(const char *what) {
  perror(what);
  exit(2);
}

static void write_bytes(const char *path, const char *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die(path);
  if (len && write(fd, data, len) != (ssize_t)len) die(path);
  close(fd);
}

/* The file's bytes (malloc'd, NUL-terminated), or NULL when it cannot be read. */
static char *read_bytes(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  tl_buf b = {0};
  tl_buf_put(&b, "", 0);
  char chunk[4096];
  ssize_t n;
  while ((n = read(fd, chunk, sizeof chunk)) > 0) tl_buf_put(&b, chunk, (size_t)n);
  close(fd);
  *len = b.len;
  return tl_buf_take(&b);
}

static bool file_is(const char *path, const char *want, size_t wlen) {
  size_t len = 0;
  char *got = read_bytes(path, &len);
  bool ok = got && len == wlen && memcmp(got, want, wlen) == 0;
  free(got);
  return ok;
}

/* Counts the directory's entries whose name holds `part`. */
static int count_named(const char *dir, const char *part) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) n += strstr(de->d_name, part) != NULL;
  closedir(d);
  return n;
}

/* ---- edits ---- */

static char *apply(const char *src, tl_edits *e, size_t *skipped) {
  size_t len = 0;
  char *r = tl_edits_apply(src, strlen(src), e->v, e->n, &len, skipped);
  CHECK_INT(len, strlen(r));
  return r;
}

static void add_edit(tl_edits *e, uint32_t s, uint32_t end, const char *text) {
  tl_edit x = {s, end, text ? tl_strdup(text) : NULL};
  tl_vec_push(e, x);
}

static void edits_free(tl_edits *e) {
  for (size_t i = 0; i < e->n; i++) free(e->v[i].text);
  tl_vec_free(e);
}

static void test_edits(void) {
  size_t skipped = 99;
  tl_edits e = {0};
  char *r = apply("hello world", &e, &skipped); /* no edits: a copy */
  CHECK_STR(r, "hello world");
  CHECK_INT(skipped, 0);
  free(r);

  add_edit(&e, 6, 11, "there"); /* given out of order */
  add_edit(&e, 0, 5, "HELLO");
  r = apply("hello world", &e, &skipped);
  CHECK_STR(r, "HELLO there");
  CHECK_INT(skipped, 0);
  CHECK_INT(e.v[0].start, 6); /* the caller's vector is left in its order */
  free(r);
  edits_free(&e);

  /* Overlaps: the later-sorted edit is skipped and counted. */
  add_edit(&e, 0, 5, "X");
  add_edit(&e, 3, 8, "Y");
  add_edit(&e, 0, 5, "Z"); /* same range as the first: overlaps */
  add_edit(&e, 9, 11, "!");
  r = apply("hello world", &e, &skipped);
  CHECK_STR(r, "X wor!");
  CHECK_INT(skipped, 2);
  free(r);
  edits_free(&e);

  /* Zero-width inserts at one position apply in the given order; an insert at the start of a
   * replacement goes before it; adjacent edits both apply. */
  add_edit(&e, 5, 5, "1");
  add_edit(&e, 0, 5, "bye");
  add_edit(&e, 5, 5, "2");
  add_edit(&e, 0, 0, ">>");
  add_edit(&e, 5, 5, "3");
  add_edit(&e, 5, 6, "_");
  add_edit(&e, 11, 11, "<<");
  r = apply("hello world", &e, &skipped);
  CHECK_STR(r, ">>bye123_world<<");
  CHECK_INT(skipped, 0);
  free(r);
  edits_free(&e);

  /* Out of range and reversed edits are skipped; a NULL text deletes. */
  add_edit(&e, 3, 100, "no");
  add_edit(&e, 4, 2, "no");
  add_edit(&e, 0, 6, NULL);
  r = apply("hello world", &e, NULL);
  CHECK_STR(r, "world");
  free(r);
  r = apply("hello world", &e, &skipped);
  CHECK_INT(skipped, 2);
  free(r);
  edits_free(&e);

  /* Everything deleted. */
  add_edit(&e, 0, 3, "");
  r = apply("abc", &e, NULL);
  CHECK_STR(r, "");
  free(r);
  edits_free(&e);
}

/* ---- diffs ---- */

static char *diff(const char *path, const char *a, size_t alen, const char *b, size_t blen) {
  tl_buf out = {0};
  tl_diff_unified(&out, path, a, alen, b, blen);
  return tl_buf_take(&out);
}

static char *diffs(const char *a, const char *b) { return diff("m.py", a, strlen(a), b, strlen(b)); }

static int count_hunks(const char *d) {
  int n = 0;
  for (const char *p = d; (p = strstr(p, "\n@@ ")); p++) n++;
  return n;
}

static int apply_counter = 0;

/* Writes `a` as pkg/m.py in a fresh directory, applies the diff with `patch -p1` and then (on a
 * fresh copy) with `git apply`, and checks that both give `b` byte for byte. */
static void check_applies(const char *a, size_t alen, const char *b, size_t blen, const char *label) {
  char *d = diff("pkg/m.py", a, alen, b, blen);
  if (alen == blen && memcmp(a, b, alen) == 0) {
    CHECK_STR(d, "");
    free(d);
    return;
  }
  CHECK(strncmp(d, "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -", 34) == 0);
  static const char *const tools[] = {"patch -p1 -s --batch --no-backup-if-mismatch -i p.diff", "git apply p.diff"};
  for (size_t t = 0; t < 2; t++) {
    char *w = tl_printf("%s/apply%d", tmp, apply_counter++);
    char *pkg = tl_printf("%s/pkg", w);
    char *file = tl_printf("%s/pkg/m.py", w);
    char *pd = tl_printf("%s/p.diff", w);
    if (mkdir(w, 0755) != 0 || mkdir(pkg, 0755) != 0) die(w);
    write_bytes(file, a, alen);
    write_bytes(pd, d, strlen(d));
    char *cmd = tl_printf("cd '%s' && %s > log 2>&1", w, tools[t]);
    int rc = system(cmd);
    bool ok = rc == 0 && file_is(file, b, blen);
    CHECK(ok);
    if (!ok) {
      fprintf(stderr, "%s: `%s` gave rc=%d or different bytes; diff was:\n%s", label, tools[t], rc, d);
      char *show = tl_printf("cat '%s/log' >&2", w);
      (void)!system(show);
      free(show);
    }
    free(cmd);
    free(w);
    free(pkg);
    free(file);
    free(pd);
  }
  free(d);
}

static void check_applies_s(const char *a, const char *b, const char *label) {
  check_applies(a, strlen(a), b, strlen(b), label);
}

static void test_diff_text(void) {
  char *d = diffs("same\n", "same\n");
  CHECK_STR(d, ""); /* equal texts: nothing */
  free(d);

  d = diffs("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  free(d);

  /* At the top and the bottom, the context is cut short. */
  d = diffs("a\nb\n", "z\na\nb\n");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n+z\n a\n b\n");
  free(d);
  d = diffs("", "x\ny\n");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  free(d);
  d = diffs("x\ny\n", "");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -1,2 +0,0 @@\n-x\n-y\n");
  free(d);

  /* Missing final newlines. */
  d = diffs("x\ny", "x\nz");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n"
               "+z\n\\ No newline at end of file\n");
  free(d);
  d = diffs("x\n", "x");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n-x\n+x\n\\ No newline at end of file\n");
  free(d);
  d = diffs("a\nb\nc", "A\nb\nc");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n");
  free(d);

  /* CRLF lines stay byte-exact. */
  d = diffs("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n");
  CHECK_STR(d, "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n");
  free(d);

  /* "./" is dropped from the path (so -p1 works); odd characters are quoted as git does. */
  d = diff("./x.py", "a\n", 2, "b\n", 2);
  CHECK(strncmp(d, "--- a/x.py\n+++ b/x.py\n", 22) == 0);
  free(d);
  d = diff("we\"ird.py", "a\n", 2, "b\n", 2);
  CHECK(strncmp(d, "--- \"a/we\\\"ird.py\"\n+++ \"b/we\\\"ird.py\"\n", 38) == 0);
  free(d);

  /* Hunks: changes 6 lines apart share one hunk (their contexts touch); 7 apart, two. */
  tl_buf a = {0}, b1 = {0}, b2 = {0}, b3 = {0};
  for (int i = 1; i <= 30; i++) {
    tl_buf_printf(&a, "line %d\n", i);
    tl_buf_printf(&b1, i == 5 || i == 12 ? "changed %d\n" : "line %d\n", i);
    tl_buf_printf(&b2, i == 5 || i == 13 ? "changed %d\n" : "line %d\n", i);
    tl_buf_printf(&b3, i == 2 || i == 29 ? "changed %d\n" : "line %d\n", i);
  }
  d = diff("m.py", a.data, a.len, b1.data, b1.len);
  CHECK_INT(count_hunks(d), 1);
  CHECK(strstr(d, "@@ -2,14 +2,14 @@\n") != NULL);
  free(d);
  d = diff("m.py", a.data, a.len, b2.data, b2.len);
  CHECK_INT(count_hunks(d), 2);
  CHECK(strstr(d, "@@ -2,7 +2,7 @@\n") != NULL && strstr(d, "@@ -10,7 +10,7 @@\n") != NULL);
  free(d);
  d = diff("m.py", a.data, a.len, b3.data, b3.len);
  CHECK_INT(count_hunks(d), 2);
  CHECK(strstr(d, "@@ -1,5 +1,5 @@\n") != NULL && strstr(d, "@@ -26,5 +26,5 @@\n") != NULL);
  free(d);
  check_applies(a.data, a.len, b1.data, b1.len, "hunks 1");
  check_applies(a.data, a.len, b2.data, b2.len, "hunks 2");
  check_applies(a.data, a.len, b3.data, b3.len, "hunks 3");
  tl_buf_free(&a);
  tl_buf_free(&b1);
  tl_buf_free(&b2);
  tl_buf_free(&b3);
}

static void test_diff_applies(void) {
  check_applies_s("import torch\n\nfor x in loader:\n    y = x.item()\n    print(y)\n",
                  "import torch\n\nfor x in loader:\n    y = x\n    print(y)\n", "simple");
  check_applies_s("x\ny", "x\nz", "no final newline, both");
  check_applies_s("x\ny\n", "x\ny", "newline removed");
  check_applies_s("x\ny", "x\ny\n", "newline added");
  check_applies_s("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\nd\r\n", "CRLF");
  check_applies_s("a\r\nb\r\nc", "a\nb\r\nc\r\n", "mixed line ends");
  check_applies_s("", "new\nfile\n", "from empty");
  check_applies_s("old\nfile\n", "", "to empty");
  check_applies_s("x", "", "no newline to empty");
  check_applies_s("a\nb\nc\n", "c\nb\na\n", "reversed");
  check_applies_s("same\n", "same\n", "equal");

  /* Random texts and random mutations, each checked with both tools. */
  static const char *const pool[] = {"a\n", "b\n", "c\n", "x = 1\n", "\n", "    pass\n", "d\r\n", "\r\n"};
  unsigned seed = 12345;
#define RND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)
  for (int iter = 0; iter < 80; iter++) {
    tl_buf a = {0}, b = {0};
    tl_buf_put(&a, "", 0);
    tl_buf_put(&b, "", 0);
    int n = (int)(RND() % 40) + 1;
    int rate = (int)(RND() % 5) + 1; /* from sparse to dense changes */
    for (int i = 0; i < n; i++) {
      const char *line = pool[RND() % 8];
      tl_buf_puts(&a, line);
      unsigned r = RND() % 10;
      if ((int)r < rate) {
        unsigned kind = RND() % 3;
        if (kind == 0) continue;                         /* deleted */
        if (kind == 1) tl_buf_puts(&b, pool[RND() % 8]); /* replaced */
        else { /* inserted before */ tl_buf_puts(&b, pool[RND() % 8]);
          tl_buf_puts(&b, line);
        }
      } else {
        tl_buf_puts(&b, line);
      }
    }
    if (RND() % 4 == 0 && a.len && a.data[a.len - 1] == '\n') a.data[--a.len] = 0;
    if (RND() % 4 == 0 && b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = 0;
    if (RND() % 8 == 0) tl_buf_puts(&b, "tail without newline");
    char label[32];
    snprintf(label, sizeof label, "random %d", iter);
    check_applies(a.data, a.len, b.data, b.len, label);
    tl_buf_free(&a);
    tl_buf_free(&b);
  }
#undef RND
}

static void test_diff_large(void) {
  /* Big inputs with many scattered changes: the diff must stay correct (checked by patch). */
  tl_buf a = {0}, b = {0};
  for (int i = 0; i < 20000; i++) {
    tl_buf_printf(&a, "row %d\n", i);
    if (i % 97 == 0) tl_buf_printf(&b, "changed %d\n", i);
    else if (i % 101 != 0) tl_buf_printf(&b, "row %d\n", i);
  }
  check_applies(a.data, a.len, b.data, b.len, "large");
  char *d = diff("m.py", a.data, a.len, b.data, b.len);
  /* Minimal: 207 changed lines (multiples of 97) removed and added, 196 lines dropped (multiples
   * of 101 that are not multiples of 97: 0, 9797 and 19594 are both). */
  int minus = 0, plus = 0;
  for (const char *p = strchr(d, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
    if (p[1] == '-' && p[2] != '-') minus++;
    if (p[1] == '+' && p[2] != '+') plus++;
  }
  CHECK_INT(minus, 207 + 196);
  CHECK_INT(plus, 207);
  free(d);
  tl_buf_free(&a);
  tl_buf_free(&b);

  /* Two unrelated texts: all lines differ. */
  for (int i = 0; i < 3000; i++) {
    tl_buf_printf(&a, "a%d\n", i);
    tl_buf_printf(&b, "b%d\n", i);
  }
  check_applies(a.data, a.len, b.data, b.len, "unrelated");
  tl_buf_free(&a);
  tl_buf_free(&b);

  /* Half of 60000 lines rewritten: past the cost limit, the split heuristic takes over; the diff
   * must still apply exactly and stay close to minimal. */
  unsigned seed = 7;
  int replaced = 0;
  for (int i = 0; i < 60000; i++) {
    seed = seed * 1103515245u + 12345u;
    tl_buf_printf(&a, "x%d\n", i);
    if ((seed >> 16) & 1) {
      tl_buf_printf(&b, "y%d\n", i);
      replaced++;
    } else {
      tl_buf_printf(&b, "x%d\n", i);
    }
  }
  d = diff("m.py", a.data, a.len, b.data, b.len);
  minus = 0;
  for (const char *p = strchr(d, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
    if (p[1] == '-' && p[2] != '-') minus++;
  CHECK(minus >= replaced && minus <= replaced + replaced / 20);
  free(d);
  check_applies(a.data, a.len, b.data, b.len, "heuristic");
  tl_buf_free(&a);
  tl_buf_free(&b);
}

/* ---- file replacement ---- */

static void test_replace(void) {
  char *dir = tl_printf("%s/rep", tmp);
  if (mkdir(dir, 0755) != 0) die(dir);
  char *f = tl_printf("%s/model.py", dir);
  char *msg = NULL;

  /* Success: new bytes, same mode 0640, a new inode (renamed over), no temporary left. */
  write_bytes(f, "old\n", 4);
  CHECK(chmod(f, 0640) == 0);
  struct stat before, after;
  CHECK(stat(f, &before) == 0);
  CHECK_INT(tl_file_replace(f, "old\n", 4, "new text\n", 9, &msg), TL_WRITE_OK);
  CHECK(msg == NULL);
  CHECK(file_is(f, "new text\n", 9));
  CHECK(stat(f, &after) == 0);
  CHECK_INT(after.st_mode & 07777, 0640);
  CHECK(after.st_ino != before.st_ino);
  CHECK_INT(count_named(dir, "trainlint"), 0);

  /* The file changed since the analysis: refused, untouched, no temporary left. */
  write_bytes(f, "edited by the user\n", 19);
  CHECK_INT(tl_file_replace(f, "new text\n", 9, "fixed\n", 6, &msg), TL_WRITE_CHANGED);
  CHECK(msg != NULL && strstr(msg, "changed") != NULL);
  free(msg);
  msg = NULL;
  CHECK(file_is(f, "edited by the user\n", 19));
  CHECK_INT(count_named(dir, "trainlint"), 0);
  /* A prefix of the file or a longer text is a change too. */
  CHECK_INT(tl_file_replace(f, "edited", 6, "x", 1, NULL), TL_WRITE_CHANGED);
  CHECK_INT(tl_file_replace(f, "edited by the user\n!", 20, "x", 1, NULL), TL_WRITE_CHANGED);
  CHECK(file_is(f, "edited by the user\n", 19));

  /* To empty and from empty. */
  CHECK_INT(tl_file_replace(f, "edited by the user\n", 19, "", 0, NULL), TL_WRITE_OK);
  CHECK(file_is(f, "", 0));
  CHECK_INT(tl_file_replace(f, "", 0, "back\n", 5, NULL), TL_WRITE_OK);
  CHECK(file_is(f, "back\n", 5));

  /* A missing file: an I/O error with a message. */
  char *missing = tl_printf("%s/missing.py", dir);
  CHECK_INT(tl_file_replace(missing, "", 0, "x", 1, &msg), TL_WRITE_IO);
  CHECK(msg != NULL);
  free(msg);
  msg = NULL;
  CHECK(access(missing, F_OK) != 0);
  free(missing);

  /* Through a symlink: the link stays a link and its target gets the new bytes. */
  char *link = tl_printf("%s/link.py", dir);
  CHECK(symlink("model.py", link) == 0);
  CHECK_INT(tl_file_replace(link, "back\n", 5, "via link\n", 9, NULL), TL_WRITE_OK);
  struct stat lst;
  CHECK(lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode));
  CHECK(file_is(f, "via link\n", 9));
  free(link);

  /* Ownership is kept when running as root. */
  if (geteuid() == 0) {
    CHECK(chown(f, 1234, 5678) == 0);
    CHECK_INT(tl_file_replace(f, "via link\n", 9, "owned\n", 6, NULL), TL_WRITE_OK);
    CHECK(stat(f, &after) == 0);
    CHECK_INT(after.st_uid, 1234);
    CHECK_INT(after.st_gid, 5678);
    CHECK_INT(after.st_mode & 07777, 0640);
  } else {
    /* Without write access to the directory: refused with an I/O error, original untouched. */
    CHECK(chmod(dir, 0555) == 0);
    CHECK_INT(tl_file_replace(f, "via link\n", 9, "nope\n", 5, &msg), TL_WRITE_IO);
    CHECK(msg != NULL && strstr(msg, "temporary") != NULL);
    free(msg);
    msg = NULL;
    CHECK(file_is(f, "via link\n", 9));
    CHECK(chmod(dir, 0755) == 0);
  }
  CHECK_INT(count_named(dir, "trainlint"), 0);

  /* A relative path with no directory part. */
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) die("getcwd");
  if (chdir(dir) != 0) die("chdir");
  write_bytes("plain.py", "p\n", 2);
  CHECK_INT(tl_file_replace("plain.py", "p\n", 2, "q\n", 2, NULL), TL_WRITE_OK);
  CHECK(file_is("plain.py", "q\n", 2));
  if (chdir(cwd) != 0) die("chdir");
  CHECK_INT(count_named(dir, "trainlint"), 0);

  free(f);
  free(dir);
}

/* Which fixes may be taken together: overlapping ranges, and an insertion touching a replaced range. */
static void test_clash(void) {
  tl_edit rep = {10, 20, "x"}, ins_end = {20, 20, ", y=v"}, ins_start = {10, 10, "("}, ins_in = {15, 15, "z"};
  tl_edit ins_away = {21, 21, "w"}, rep_next = {20, 25, "u"}, rep_over = {19, 22, "v"}, ins_same = {20, 20, "q"};
  CHECK(tl_edits_clash(&rep, &rep_over) && tl_edits_clash(&rep_over, &rep));
  CHECK(tl_edits_clash(&rep, &ins_end) && tl_edits_clash(&ins_end, &rep));
  CHECK(tl_edits_clash(&rep, &ins_start) && tl_edits_clash(&ins_start, &rep));
  CHECK(tl_edits_clash(&rep, &ins_in));
  CHECK(!tl_edits_clash(&rep, &ins_away) && !tl_edits_clash(&ins_away, &rep));
  CHECK(!tl_edits_clash(&rep, &rep_next) && !tl_edits_clash(&rep_next, &rep)); /* adjacent replacements */
  CHECK(!tl_edits_clash(&ins_end, &ins_same));                                 /* two insertions at one point */
}

int main(void) {
  if (!mkdtemp(tmp)) die("mkdtemp");
  test_clash();
  test_edits();
  test_diff_text();
  test_diff_applies();
  test_diff_large();
  test_replace();
  char *cmd = tl_printf("rm -rf '%s'", tmp);
  CHECK(system(cmd) == 0);
  free(cmd);
  TEST_DONE();
}
