/* test_source.c - unit tests for tl_source: FIFOs, size limit, NUL bytes, UTF-8 validation, BOM. */
#include "tl_source.h"
#include "tl_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[64];

static char *tpath(const char *name) { return tl_printf("%s/%s", tmpdir, name); }

static void write_file(const char *name, const char *data, size_t len) {
  char *p = tpath(name);
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
    perror(p);
    exit(2);
  }
  close(fd);
  free(p);
}

/* Reads `name`, expects status `want`; returns the error offset (or (size_t)-1 when none). */
static size_t read_status(const char *name, tl_source_status want, const char *msg_part) {
  char *p = tpath(name);
  tl_source src;
  size_t off = (size_t)-1;
  char *msg = NULL;
  tl_source_status st = tl_source_read(p, &src, &off, &msg);
  CHECK_INT(st, want);
  if (want == TL_SOURCE_OK) {
    CHECK(msg == NULL);
  } else {
    CHECK(msg != NULL);
    CHECK(src.text == NULL && src.len == 0);
    if (msg && msg_part && !strstr(msg, msg_part)) {
      fprintf(stderr, "message for %s: \"%s\" lacks \"%s\"\n", name, msg, msg_part);
      CHECK(0);
    }
    if (msg && strstr(msg, tmpdir)) { /* the caller prefixes the path: the message must not */
      fprintf(stderr, "message holds the path: %s\n", msg);
      CHECK(0);
    }
  }
  free(msg);
  tl_source_free(&src);
  free(p);
  return off;
}

static void on_alarm(int sig) {
  (void)sig;
  static const char m[] = "test_source: tl_source_read blocked on a FIFO\n";
  (void)!write(2, m, sizeof m - 1);
  _exit(3);
}

static void test_utf8(void) {
  size_t bad = 999;
  /* Valid: ASCII, 2/3/4-byte forms, the edges around the surrogates and U+10FFFF. */
  CHECK(tl_utf8_valid("", 0, &bad));
  CHECK(tl_utf8_valid("abc", 3, &bad));
  CHECK(tl_utf8_valid("\xC3\xA9", 2, &bad));         /* é */
  CHECK(tl_utf8_valid("\xE2\x82\xAC", 3, &bad));     /* € */
  CHECK(tl_utf8_valid("\xF0\x9F\x98\x80", 4, &bad)); /* 😀 */
  CHECK(tl_utf8_valid("\xED\x9F\xBF", 3, &bad));     /* U+D7FF */
  CHECK(tl_utf8_valid("\xEE\x80\x80", 3, &bad));     /* U+E000 */
  CHECK(tl_utf8_valid("\xF4\x8F\xBF\xBF", 4, &bad)); /* U+10FFFF */
  CHECK(tl_utf8_valid("\xEF\xBB\xBFx", 4, &bad));    /* BOM */

  struct {
    const char *s;
    size_t len, bad;
  } cases[] = {
      {"ab\xC0\x80", 4, 2},       /* overlong NUL (2 bytes) */
      {"ab\xC1\xBF", 4, 2},       /* overlong (2 bytes) */
      {"x\xE0\x80\xAF", 4, 1},    /* overlong '/' (3 bytes) */
      {"\xF0\x80\x80\xAF", 4, 0}, /* overlong (4 bytes) */
      {"x\xED\xA0\x80y", 5, 1},   /* surrogate U+D800 */
      {"xy\xED\xBF\xBF", 5, 2},   /* surrogate U+DFFF */
      {"abc\xE2\x82", 5, 3},      /* truncated at end of text */
      {"abc\xF0\x9F\x98", 6, 3},  /* truncated 4-byte at end */
      {"\xE2\x82"
       "A",
       3, 0},                      /* truncated before ASCII */
      {"ok\x80", 3, 2},            /* stray continuation byte */
      {"\xF4\x90\x80\x80", 4, 0},  /* U+110000 */
      {"a\xF5\x80\x80\x80", 5, 1}, /* lead byte F5 */
      {"a\xFF", 2, 1},
      {"\xC3\xA9\xC3", 3, 2}, /* valid then truncated */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bad = 999;
    bool ok = tl_utf8_valid(cases[i].s, cases[i].len, &bad);
    CHECK(!ok);
    if (bad != cases[i].bad) fprintf(stderr, "utf8 case %zu: bad=%zu\n", i, bad);
    CHECK_INT(bad, cases[i].bad);
  }
  CHECK(!tl_utf8_valid("\xC0", 1, NULL)); /* `bad` may be NULL */
}

int main(void) {
  strcpy(tmpdir, "/tmp/tl_test_source_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 2;
  }
  test_utf8();

  /* A plain file. */
  write_file("ok.py", "x = 1\n", 6);
  {
    char *p = tpath("ok.py");
    tl_source src;
    size_t off = 42;
    char *msg = (char *)"unchanged";
    CHECK_INT(tl_source_read(p, &src, &off, &msg), TL_SOURCE_OK);
    CHECK(msg == NULL);
    CHECK_INT(src.len, 6);
    CHECK_STR(src.text, "x = 1\n");
    CHECK(!src.has_bom);
    CHECK(S_ISREG(src.st.st_mode));
    CHECK_INT(src.st.st_size, 6);
    tl_source_free(&src);
    CHECK(src.text == NULL && src.len == 0);
    free(p);
  }

  /* An empty file: text is "" (not NULL). */
  write_file("empty.py", "", 0);
  {
    char *p = tpath("empty.py");
    tl_source src;
    CHECK_INT(tl_source_read(p, &src, NULL, NULL), TL_SOURCE_OK);
    CHECK(src.text != NULL && src.len == 0 && src.text[0] == 0);
    tl_source_free(&src);
    free(p);
  }

  /* A UTF-8 BOM is detected and kept in the text. */
  write_file("bom.py", "\xEF\xBB\xBFx = 'é'\n", 12);
  {
    char *p = tpath("bom.py");
    tl_source src;
    CHECK_INT(tl_source_read(p, &src, NULL, NULL), TL_SOURCE_OK);
    CHECK(src.has_bom);
    CHECK_INT(src.len, 12);
    CHECK(memcmp(src.text, "\xEF\xBB\xBFx", 4) == 0);
    tl_source_free(&src);
    free(p);
  }
  write_file("short.py", "\xEF\xBB", 2); /* a truncated BOM is invalid UTF-8, not a BOM */
  CHECK_INT(read_status("short.py", TL_SOURCE_BAD_UTF8, "UTF-8"), 0);

  /* A named pipe called x.py: refused at once, never read (an alarm catches a block). */
  {
    char *p = tpath("x.py");
    CHECK(mkfifo(p, 0644) == 0);
    signal(SIGALRM, on_alarm);
    alarm(5);
    read_status("x.py", TL_SOURCE_NOT_FILE, "pipe");
    alarm(0);
    free(p);
  }

  /* A directory. */
  {
    char *p = tpath("pkg.py");
    CHECK(mkdir(p, 0755) == 0);
    read_status("pkg.py", TL_SOURCE_NOT_FILE, "directory");
    free(p);
  }

  /* A missing file: an I/O error with strerror. */
  read_status("missing.py", TL_SOURCE_IO, "no such file");

  /* A NUL byte: binary, with the offset of the first NUL. */
  write_file("nul.py", "abc\ndef\0gh\0", 11);
  CHECK_INT(read_status("nul.py", TL_SOURCE_BINARY, "NUL"), 7);
  write_file("nul0.py", "\0", 1);
  CHECK_INT(read_status("nul0.py", TL_SOURCE_BINARY, "offset 0"), 0);

  /* Invalid UTF-8 through the reader: offset of the first bad byte. */
  write_file("overlong.py", "s = '\xC0\xAF'\n", 9);
  CHECK_INT(read_status("overlong.py", TL_SOURCE_BAD_UTF8, "offset 5"), 5);
  write_file("surrogate.py", "# \xED\xA0\x80\n", 6);
  CHECK_INT(read_status("surrogate.py", TL_SOURCE_BAD_UTF8, "0xed"), 2);
  write_file("truncated.py", "x = 1\n# \xE2\x82", 10);
  CHECK_INT(read_status("truncated.py", TL_SOURCE_BAD_UTF8, "UTF-8"), 8);
  write_file("latin1.py", "# caf\xE9\n", 7);
  CHECK_INT(read_status("latin1.py", TL_SOURCE_BAD_UTF8, "UTF-8"), 5);

  /* Too large: a sparse file one byte over the limit (the size is in the message). */
  {
    char *p = tpath("big.py");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, (off_t)TL_MAX_FILE_BYTES + 1) == 0);
    close(fd);
    read_status("big.py", TL_SOURCE_TOO_LARGE, "16777217");
    /* Exactly at the limit is not too large (it is all NUL bytes, so binary at offset 0). */
    fd = open(p, O_WRONLY);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, (off_t)TL_MAX_FILE_BYTES) == 0);
    close(fd);
    CHECK_INT(read_status("big.py", TL_SOURCE_BINARY, NULL), 0);
    free(p);
  }

  /* A symlink to a file is read through. */
  {
    char *p = tpath("link.py");
    CHECK(symlink("ok.py", p) == 0);
    read_status("link.py", TL_SOURCE_OK, NULL);
    free(p);
  }

  /* An unreadable file (only meaningful when not root). */
  if (geteuid() != 0) {
    write_file("secret.py", "x\n", 2);
    char *p = tpath("secret.py");
    CHECK(chmod(p, 0) == 0);
    read_status("secret.py", TL_SOURCE_IO, "permission denied");
    free(p);
  }

  char *cmd = tl_printf("rm -rf '%s'", tmpdir);
  CHECK(system(cmd) == 0);
  free(cmd);
  TEST_DONE();
}
