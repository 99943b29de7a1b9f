/* test_suppress.c - unit tests for tl_suppress: parsing suppression comments, and tl_suppress_add,
 * the edit that adds codes to a line's comment (--add-noqa and the editor's action share it). */
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

int main(void) {
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
