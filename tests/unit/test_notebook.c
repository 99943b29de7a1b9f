/* test_notebook.c - unit tests for tl_notebook: code cells joined, magics and shell lines, the line
 * map back to cells, JSON escapes, and located errors on what is not a notebook. */
#include "tl_notebook.h"
#include "tl_test.h"

#include <stdlib.h>
#include <string.h>

static tl_notebook *parse(const char *json) {
  size_t off = 0;
  char *msg = NULL;
  tl_notebook *nb = tl_notebook_parse(json, strlen(json), &off, &msg);
  if (!nb) fprintf(stderr, "unexpected error at %zu: %s\n", off, msg);
  free(msg);
  return nb;
}

/* Expects an error whose message holds `part`; returns its offset. */
static size_t parse_error(const char *json, const char *part) {
  size_t off = (size_t)-1;
  char *msg = NULL;
  tl_notebook *nb = tl_notebook_parse(json, strlen(json), &off, &msg);
  CHECK(nb == NULL);
  CHECK(msg && strstr(msg, part));
  if (msg && !strstr(msg, part)) fprintf(stderr, "  message: %s\n", msg);
  tl_notebook_free(nb);
  free(msg);
  return off;
}

static void test_cells_joined_with_a_line_map(void) {
  tl_notebook *nb = parse("{\"cells\": ["
                          "{\"cell_type\": \"markdown\", \"source\": [\"# Title\\n\", \"text\"]},"
                          "{\"cell_type\": \"code\", \"metadata\": {\"a\": [1, {\"b\": null}]}, \"outputs\": [],"
                          " \"source\": [\"import torch\\n\", \"x = 1\"]},"
                          "{\"cell_type\": \"raw\", \"source\": \"not python\"},"
                          "{\"source\": \"y = 2\\nz = 3\\n\", \"cell_type\": \"code\"},"
                          "{\"cell_type\": \"code\", \"source\": []}"
                          "], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}");
  CHECK(nb != NULL);
  if (!nb) return;
  CHECK_STR(nb->code, "import torch\nx = 1\ny = 2\nz = 3\n\n");
  CHECK_INT(nb->len, strlen(nb->code));
  CHECK_INT(nb->ncells, 3);
  uint32_t cell, line;
  tl_notebook_locate(nb, 1, &cell, &line);
  CHECK_INT(cell, 1);
  CHECK_INT(line, 1);
  tl_notebook_locate(nb, 2, &cell, &line);
  CHECK_INT(cell, 1);
  CHECK_INT(line, 2);
  tl_notebook_locate(nb, 4, &cell, &line); /* `z = 3`: the second code cell's second line */
  CHECK_INT(cell, 2);
  CHECK_INT(line, 2);
  tl_notebook_locate(nb, 5, &cell, &line); /* the empty third code cell keeps one line */
  CHECK_INT(cell, 3);
  CHECK_INT(line, 1);
  tl_notebook_free(nb);
}

static void test_magics_and_shell_lines(void) {
  tl_notebook *nb = parse("{\"cells\": ["
                          "{\"cell_type\": \"code\", \"source\": [\"%matplotlib inline\\n\", \"!pip install x\\n\","
                          " \"for i in range(3):\\n\", \"    !echo $i\\n\", \"files = !ls\\n\", \"t = %time f()\\n\","
                          " \"a == !b\"]},"
                          "{\"cell_type\": \"code\", \"source\": \"%%bash\\nls -la\\nfor x in y\\n\"},"
                          "{\"cell_type\": \"code\", \"source\": \"%%time\\nz = f(1)\\n\"}"
                          "], \"nbformat\": 4}");
  CHECK(nb != NULL);
  if (!nb) return;
  CHECK_STR(nb->code, "pass\npass\nfor i in range(3):\n    pass\nfiles = None\nt = None\na == !b\n"
                      "\n\n\n"
                      "pass\nz = f(1)\n");
  tl_notebook_free(nb);
}

static void test_escapes_bom_and_crlf(void) {
  tl_notebook *nb = parse("\xEF\xBB\xBF{\"cells\": [{\"cell_type\": \"code\", \"source\":"
                          " [\"s = \\\"\\u00e9\\ud83d\\ude00\\\\t\\\"\\r\\n\", \"u = '\\/'\"]}]}");
  CHECK(nb != NULL);
  if (!nb) return;
  CHECK_STR(nb->code, "s = \"\xC3\xA9\xF0\x9F\x98\x80\\t\"\nu = '/'\n");
  tl_notebook_free(nb);
}

static void test_errors_are_located(void) {
  CHECK_INT(parse_error("", "not a JSON object"), 0);
  CHECK_INT(parse_error("[1, 2]", "not a JSON object"), 0);
  CHECK_INT(parse_error("{\"nbformat\": 3, \"worksheets\": []}", "no `cells` list"), 0);
  CHECK_INT(parse_error("{\"cells\": {}}", "`cells` must be a list"), 10);
  CHECK_INT(parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"x\", 5]}]}", "expected a string"), 49);
  CHECK_INT(parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": 7}]}", "`source` must be"), 43);
  parse_error("{\"cells\": [\"x\"]}", "a cell must be an object");
  parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"\\ud800x\"}]}", "lone surrogate");
  parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"a\\u0000b\"}]}", "NUL");
  parse_error("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"abc", "unterminated string");
  parse_error("{\"cells\": []} trailing", "text after");
  parse_error("{\"cells\": [], \"x\": tru}", "expected a value");
  parse_error("{\"cells\": [{\"cell_type\": \"code\" \"source\": \"\"}]}", "expected `,` or `}`");
  /* nesting deep enough to exhaust a recursive reader's stack is an error, not a crash */
  size_t depth = 100000;
  char *deep = malloc(depth * 2 + 64);
  strcpy(deep, "{\"metadata\": ");
  size_t n = strlen(deep);
  for (size_t i = 0; i < depth; i++) deep[n++] = '[';
  for (size_t i = 0; i < depth; i++) deep[n++] = ']';
  strcpy(deep + n, ", \"cells\": []}");
  parse_error(deep, "nested too deeply");
  free(deep);
}

/* The offset of the first `what` in the notebook's code. */
static uint32_t at(const tl_notebook *nb, const char *what) { return (uint32_t)(strstr(nb->code, what) - nb->code); }

static void test_fixes_written_back(void) {
  const char *json =
      "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {},\n   \"outputs\": [],\n"
      "   \"source\": [\n    \"%time x = 1\\n\",\n    \"total += loss\\n\",\n    \"y = \\\"\\u00e9\\\"\"\n   ]\n  },\n"
      "  {\n   \"cell_type\": \"code\",\n   \"source\": \"a = 1\\nb = 2\"\n  }\n ],\n \"nbformat\": 4\n}\n";
  tl_notebook *nb = parse(json);
  CHECK(nb != NULL);
  if (!nb) return;
  CHECK_STR(nb->code, "pass\ntotal += loss\ny = \"\xC3\xA9\"\na = 1\nb = 2\n");
  size_t len;
  const char *why;
  /* an edit of a plain line: that cell's source becomes a list laid out as before, the rest stays */
  uint32_t s = at(nb, "loss") + 4;
  tl_edit e1 = {s, s, ".detach()"};
  char *out = tl_notebook_apply(nb, &e1, 1, &len, &why);
  CHECK(out != NULL);
  if (out) {
    CHECK_INT(len, strlen(out));
    CHECK(strstr(out, "   \"source\": [\n    \"%time x = 1\\n\",\n    \"total += loss.detach()\\n\",\n"
                      "    \"y = \\\"\xC3\xA9\\\"\"\n   ]\n") != NULL);
    CHECK(strstr(out, "\"source\": \"a = 1\\nb = 2\"") != NULL); /* the other cell's bytes untouched */
    CHECK(!strncmp(out, json, (size_t)(strstr(json, "\"source\"") - json)));
    tl_notebook *again = parse(out); /* still a notebook, with the edit in its code */
    CHECK(again && strstr(again->code, "total += loss.detach()\n"));
    tl_notebook_free(again);
  }
  free(out);
  /* the second cell, a string: becomes a one-line list */
  uint32_t b = at(nb, "b = 2");
  tl_edit e2 = {b + 4, b + 5, "3"};
  out = tl_notebook_apply(nb, &e2, 1, &len, &why);
  CHECK(out && strstr(out, "\"source\": [\"a = 1\\n\", \"b = 3\"]"));
  free(out);
  /* a line that a magic became `pass` cannot be edited; nor can two cells at once */
  tl_edit e3 = {0, 4, "x"};
  CHECK(tl_notebook_apply(nb, &e3, 1, &len, &why) == NULL);
  CHECK(why && strstr(why, "IPython"));
  tl_edit e4 = {at(nb, "y = "), b, ""};
  CHECK(tl_notebook_apply(nb, &e4, 1, &len, &why) == NULL);
  CHECK(why && strstr(why, "two cells"));
  /* no edits: the JSON as read */
  out = tl_notebook_apply(nb, NULL, 0, &len, &why);
  CHECK_STR(out, json);
  free(out);
  tl_notebook_free(nb);
}

static void test_names(void) {
  CHECK(tl_notebook_path("a/train.ipynb"));
  CHECK(!tl_notebook_path("train.py"));
  CHECK(!tl_notebook_path("ipynb"));
}

int main(void) {
  test_cells_joined_with_a_line_map();
  test_magics_and_shell_lines();
  test_escapes_bom_and_crlf();
  test_errors_are_located();
  test_fixes_written_back();
  test_names();
  TEST_DONE();
}
