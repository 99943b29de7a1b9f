/* test_suppress.c - unit tests for tl_suppress: parsing suppression comments, tl_suppress_add,
 * the edit that adds codes to a line's comment (--add-noqa and the editor's action share it), and
 * tl_suppress_unused_edit, the edit that takes unused codes out of it (TL001's fix). */
#include "tl_fix.h"
#include "tl_suppress.h"
#include "tl_test.h"

#include <string.h>

/* `src` after adding `codes` to its line `line`; "(none)" when no edit is made. Caller frees. */
static char *added(const char *src, uint32_t line, const char *codes) {
  size_t len = strlen(src);
  tl_lines lines;
  tl_lines_init(&lines, src, len);
  tl_edit e = {0, 0, NULL};
  char *out;
  if (tl_suppress_add(src, len, &lines, line, codes, &e)) {
    size_t n;
    out = tl_edits_apply(src, len, &e, 1, &n, NULL);
    free(e.text);
  } else {
    out = tl_strdup("(none)");
  }
  tl_lines_free(&lines);
  return out;
}

#define CHECK_ADD(src, line, codes, want) \
  do { \
    char *got_ = added(src, line, codes); \
    CHECK_STR(got_, want); \
    free(got_); \
  } while (0)

/* Does the first comment of `src` suppress `code` on its line? As the analysis reads it. */
static bool suppresses(const char *src, const char *code) {
  const char *c = strchr(src, '#');
  if (!c) return false;
  tl_suppressions s = {0};
  tl_suppress_parse(&s, c, strcspn(c, "\n"), (uint32_t)(c - src), 1, 1);
  bool hit = tl_suppress_match(&s, code, 1, 1);
  tl_suppress_free(&s);
  return hit;
}

/* `src` after taking the codes listed in `unused_codes` ("*" for a bare comment) out of its
 * first suppression comment; "(none)" when no edit is made. Caller frees. */
static char *removed(const char *src, const char *unused_codes) {
  size_t len = strlen(src);
  tl_lines lines;
  tl_lines_init(&lines, src, len);
  tl_suppressions s = {0};
  for (uint32_t i = 0; i < lines.count && !s.n; i++) {
    const char *ls = src + lines.starts[i];
    const char *le = i + 1 < lines.count ? src + lines.starts[i + 1] : src + len;
    const char *c = memchr(ls, '#', (size_t)(le - ls));
    if (!c) continue;
    size_t n = (size_t)(le - c);
    while (n && (c[n - 1] == '\n' || c[n - 1] == '\r')) n--;
    tl_suppress_parse(&s, c, n, (uint32_t)(c - src), i + 1, (uint32_t)(c - ls) + 1);
  }
  char *out = tl_strdup("(none)");
  if (s.n) {
    const tl_suppression *sp = &s.v[0];
    size_t ncodes = sp->all ? 1 : sp->codes.n;
    bool *unused = tl_calloc(ncodes + 1, sizeof *unused);
    for (size_t k = 0; k < ncodes; k++) {
      const char *code = sp->all ? "*" : sp->codes.v[k];
      for (const char *p = strstr(unused_codes, code); p && !unused[k]; p = strstr(p + 1, code))
        unused[k] = (p == unused_codes || p[-1] == ' ') && (p[strlen(code)] == 0 || p[strlen(code)] == ' ');
    }
    tl_edit e = {0, 0, NULL};
    uint32_t rs = 0, re = 0;
    if (tl_suppress_unused_edit(src, len, sp, unused, &e, &rs, &re)) {
      CHECK(rs < re && re <= sp->end && src[rs] != '#');
      size_t n;
      free(out);
      out = tl_edits_apply(src, len, &e, 1, &n, NULL);
      free(e.text);
    }
    free(unused);
  }
  tl_suppress_free(&s);
  tl_lines_free(&lines);
  return out;
}

#define CHECK_REMOVE(src, unused, want) \
  do { \
    char *got_ = removed(src, unused); \
    CHECK_STR(got_, want); \
    free(got_); \
  } while (0)

int main(void) {
  /* the whole comment goes, with the blanks before it; the newline stays */
  CHECK_REMOVE("x = 1  # noqa: TL101\n", "TL101", "x = 1\n");
  CHECK_REMOVE("x = 1  # noqa\r\n", "*", "x = 1\r\n");
  CHECK_REMOVE("x = 1\t# NOQA:TL101,TL205", "TL101 TL205", "x = 1");
  CHECK_REMOVE("x = 1  # trainlint: ignore[TL101]\n", "TL101", "x = 1\n");
  CHECK_REMOVE("x = 1  # trainlint: ignore\n", "*", "x = 1\n");
  /* some codes stay: the list is written again without the unused ones */
  CHECK_REMOVE("x = 1  # noqa: TL101, TL205\n", "TL205", "x = 1  # noqa: TL101\n");
  CHECK_REMOVE("x = 1  # noqa:TL101,TL205,TL301\n", "TL205", "x = 1  # noqa: TL101, TL301\n");
  CHECK_REMOVE("x = 1  # noqa: E501, TL101\n", "TL101", "x = 1  # noqa: E501\n");
  CHECK_REMOVE("x = 1  # trainlint: ignore[TL205, TL101]\n", "TL205", "x = 1  # trainlint: ignore[TL101]\n");
  CHECK_REMOVE("x = 1  # noqa: TL101, TL205 slow on purpose\n", "TL101", "x = 1  # noqa: TL205 slow on purpose\n");
  /* other comments and prose stay */
  CHECK_REMOVE("x = 1  # noqa: TL101  # type: ignore\n", "TL101", "x = 1  # type: ignore\n");
  CHECK_REMOVE("x = 1  # noqa  # type: ignore[attr]\n", "*", "x = 1  # type: ignore[attr]\n");
  CHECK_REMOVE("x = 1  # type: ignore  # noqa: TL101\n", "TL101", "x = 1  # type: ignore\n");
  CHECK_REMOVE("x = 1  # noqa: TL101 slow on purpose\n", "TL101", "x = 1  # slow on purpose\n");
  CHECK_REMOVE("x = 1  # trainlint: ignore[TL101] see #12\n", "TL101", "x = 1  # see #12\n");
  /* a comment on a line of its own: the line goes */
  CHECK_REMOVE("a = 1\n    # noqa: TL205\nb = 2\n", "TL205", "a = 1\nb = 2\n");
  CHECK_REMOVE("# trainlint: ignore-file[TL201]\r\nimport torch\r\n", "TL201", "import torch\r\n");
  CHECK_REMOVE("# trainlint: ignore-file[TL201, TL603]\n", "TL603", "# trainlint: ignore-file[TL201]\n");
  CHECK_REMOVE("a = 1\n# noqa", "*", "a = 1\n");
  /* nothing unused: no edit */
  CHECK_REMOVE("x = 1  # noqa: TL101\n", "", "(none)");

  /* a new comment; trailing blanks give way to it, the newline stays */
  CHECK_ADD("x = f()\n", 1, "TL101", "x = f()  # noqa: TL101\n");
  CHECK_ADD("x = f()   \t\r\n", 1, "TL101, TL204", "x = f()  # noqa: TL101, TL204\r\n");
  CHECK_ADD("a = 1\nb = 2", 2, "TL101", "a = 1\nb = 2  # noqa: TL101");
  /* merged into an existing noqa: after its last code, not at the end of the line */
  CHECK_ADD("x = f()  # noqa: TL204\n", 1, "TL101", "x = f()  # noqa: TL204, TL101\n");
  CHECK_ADD("x = f()  # noqa: TL204 slow but needed\n", 1, "TL101", "x = f()  # noqa: TL204, TL101 slow but needed\n");
  CHECK_ADD("x = f()  # NOQA:TL204\n", 1, "TL101", "x = f()  # NOQA:TL204, TL101\n");
  CHECK_ADD("x = f()  # noqa:\n", 1, "TL101", "x = f()  # noqa: TL101\n");
  /* and into `# trainlint: ignore[...]`, which a `# noqa` after it would not extend */
  CHECK_ADD("x = f()  # trainlint: ignore[TL204]\n", 1, "TL101", "x = f()  # trainlint: ignore[TL204, TL101]\n");
  CHECK_ADD("x = f()  # trainlint: ignore[]\n", 1, "TL101", "x = f()  # trainlint: ignore[TL101]\n");
  CHECK(suppresses("x = f()  # trainlint: ignore[TL204, TL101]", "TL101"));
  CHECK(!suppresses("x = f()  # trainlint: ignore[TL204]  # noqa: TL101", "TL101"));
  /* comments that suppress every code already: nothing to add */
  CHECK_ADD("x = f()  # noqa\n", 1, "TL101", "(none)");
  CHECK_ADD("x = f()  # trainlint: ignore\n", 1, "TL101", "(none)");
  /* a `#` in a string is no comment */
  CHECK_ADD("f(\"# noqa\")\n", 1, "TL101", "f(\"# noqa\")  # noqa: TL101\n");
  CHECK_ADD("f('# noqa: TL204')\n", 1, "TL101", "f('# noqa: TL204')  # noqa: TL101\n");
  CHECK_ADD("f(\"\"\"a # b\"\"\", 'it\\'s # c')  # noqa: TL204\n", 1, "TL101",
            "f(\"\"\"a # b\"\"\", 'it\\'s # c')  # noqa: TL204, TL101\n");
  /* any other comment stays, the suppression follows it */
  CHECK_ADD("x = f()  # type: ignore\n", 1, "TL101", "x = f()  # type: ignore  # noqa: TL101\n");
  CHECK(suppresses("x = f()  # type: ignore  # noqa: TL101", "TL101"));
  /* no such line */
  CHECK_ADD("x = f()\n", 0, "TL101", "(none)");
  CHECK_ADD("x = f()\n", 3, "TL101", "(none)");
  TEST_DONE();
}
