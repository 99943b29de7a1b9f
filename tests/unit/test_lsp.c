/* test_lsp.c - unit tests of the language server's parts: UTF-16 positions, range edits, URIs, framing, a session in-process. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "tl_lsp.h"
#include "tl_test.h"

/* "x = '𝔘é'\r\ny\rz\n" : 𝔘 is U+1D518 (4 bytes, 2 UTF-16 units), é 2 bytes, 1 unit */
static const char k_text[] = "x = '\xF0\x9D\x94\x98\xC3\xA9'\r\ny\rz\n";

static void test_positions(void) {
  tl_lsp_text t = {0};
  tl_lsp_text_set(&t, k_text, strlen(k_text));
  CHECK_INT(t.lines.count, 4); /* \r\n, lone \r and \n end lines; the empty last line counts */
  CHECK_INT(tl_lsp_utf16_len("\xF0\x9D\x94\x98\xC3\xA9", 6), 3);
  /* line 0: x(0) ' '(1) =(2) ' '(3) '(4) 𝔘(5..7) é(7) '(8) */
  CHECK_INT(tl_lsp_text_offset(&t, 0, 5), 5);
  CHECK_INT(tl_lsp_text_offset(&t, 0, 7), 9);
  CHECK_INT(tl_lsp_text_offset(&t, 0, 8), 11);
  CHECK_INT(tl_lsp_text_offset(&t, 0, 6), 5);   /* inside the surrogate pair: the character's start */
  CHECK_INT(tl_lsp_text_offset(&t, 0, 99), 12); /* past the line: its end, before \r\n */
  CHECK_INT(tl_lsp_text_offset(&t, 1, 0), 14);
  CHECK_INT(tl_lsp_text_offset(&t, 1, 5), 15); /* before the lone \r */
  CHECK_INT(tl_lsp_text_offset(&t, 2, 1), 17);
  CHECK_INT(tl_lsp_text_offset(&t, 3, 0), 18);
  CHECK_INT(tl_lsp_text_offset(&t, 9, 0), 18); /* past the last line: the end */
  uint32_t l, c;
  tl_lsp_text_position(&t, 9, &l, &c);
  CHECK_INT(l, 0);
  CHECK_INT(c, 7);
  tl_lsp_text_position(&t, 11, &l, &c);
  CHECK_INT(c, 8);
  tl_lsp_text_position(&t, 7, &l, &c); /* inside 𝔘's UTF-8 sequence: its start */
  CHECK_INT(c, 5);
  tl_lsp_text_position(&t, 16, &l, &c);
  CHECK_INT(l, 2);
  CHECK_INT(c, 0);
  tl_lsp_text_position(&t, 100, &l, &c);
  CHECK_INT(l, 3);
  CHECK_INT(c, 0);
  /* 1-based code point columns (as findings carry) */
  CHECK_INT(tl_lsp_text_offset_cp(&t, 1, 7), 9);
  CHECK_INT(tl_lsp_text_offset_cp(&t, 1, 8), 11);
  CHECK_INT(tl_lsp_text_offset_cp(&t, 3, 2), 17);
  /* every offset at a character start round-trips */
  for (uint32_t off = 0; off <= t.len; off++) {
    if (off < t.len && ((unsigned char)t.text[off] & 0xC0) == 0x80) continue;
    if (off > 0 && t.text[off - 1] == '\r' && t.text[off] == '\n') continue; /* between \r and \n */
    tl_lsp_text_position(&t, off, &l, &c);
    CHECK_INT(tl_lsp_text_offset(&t, l, c), off);
  }
  /* a range edit: replace 𝔘 by "ab\n" and check the line index follows */
  tl_lsp_text_replace(&t, tl_lsp_text_offset(&t, 0, 5), tl_lsp_text_offset(&t, 0, 7), "ab\n", 3);
  CHECK_STR(t.text, "x = 'ab\n\xC3\xA9'\r\ny\rz\n");
  CHECK_INT(t.lines.count, 5);
  CHECK_INT(tl_lsp_text_offset(&t, 1, 1), 10);
  tl_lsp_text_replace(&t, 0, (uint32_t)t.len, "", 0);
  CHECK_INT(t.len, 0);
  CHECK_INT(tl_lsp_text_offset(&t, 3, 3), 0);
  tl_lsp_text_free(&t);
}

static void test_uris(void) {
  char *p = tl_lsp_uri_to_path("file:///home/u/my%20proj/gr%C3%BC%C3%9Fe.py");
  CHECK_STR(p, "/home/u/my proj/gr\xC3\xBC\xC3\x9F"
               "e.py");
  char *u = tl_lsp_path_to_uri(p);
  CHECK_STR(u, "file:///home/u/my%20proj/gr%C3%BC%C3%9Fe.py");
  free(u);
  free(p);
  p = tl_lsp_uri_to_path("file://localhost/a/b.py");
  CHECK_STR(p, "/a/b.py");
  free(p);
  p = tl_lsp_uri_to_path("FILE:///a/%3a%2B.py");
  CHECK_STR(p, "/a/:+.py");
  free(p);
  CHECK(tl_lsp_uri_to_path("untitled:Untitled-1") == NULL);
  CHECK(tl_lsp_uri_to_path("file://server/share/a.py") == NULL);
  CHECK(tl_lsp_uri_to_path("file:///a/%zz.py") == NULL);
  CHECK(tl_lsp_uri_to_path("file:///a/%00.py") == NULL);
  CHECK(tl_lsp_uri_to_path(NULL) == NULL);
  u = tl_lsp_path_to_uri("/a b/c#d?.py");
  CHECK_STR(u, "file:///a%20b/c%23d%3F.py");
  free(u);
}

static int next_frame(tl_lsp_reader *r, char *out, size_t cap) {
  const char *body;
  size_t len;
  char *err = NULL;
  tl_lsp_frame st = tl_lsp_reader_next(r, &body, &len, &err);
  out[0] = 0;
  if (st == TL_LSP_FRAME_OK) snprintf(out, cap, "%.*s", (int)len, body);
  if (st == TL_LSP_FRAME_BAD) snprintf(out, cap, "%s", err);
  free(err);
  return (int)st;
}

static void test_framing(void) {
  char got[256];
  tl_lsp_reader r = {0};
  /* byte by byte */
  const char *in = "Content-Length: 7\r\n\r\n{\"a\":1}Content-Type: x\r\ncontent-length:2\r\n\r\n[]";
  int frames = 0;
  for (const char *p = in; *p; p++) {
    tl_lsp_reader_feed(&r, p, 1);
    int st;
    while ((st = next_frame(&r, got, sizeof got)) != TL_LSP_FRAME_NONE) {
      CHECK_INT(st, TL_LSP_FRAME_OK);
      CHECK_STR(got, frames ? "[]" : "{\"a\":1}");
      frames++;
    }
  }
  CHECK_INT(frames, 2);
  CHECK_INT(tl_lsp_reader_pending(&r), 0);
  /* junk, then a frame: one error, then the frame; bare LF headers and blank lines are accepted */
  const char *junk = "garbage\r\n\r\n\nContent-Length: 2\n\n{}";
  tl_lsp_reader_feed(&r, junk, strlen(junk));
  CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_BAD);
  CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_OK);
  CHECK_STR(got, "{}");
  CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_NONE);
  /* an oversized body is skipped without being buffered, then framing goes on */
  char head[64];
  snprintf(head, sizeof head, "Content-Length: %u\r\n\r\n", TL_LSP_MAX_BODY + 10u);
  tl_lsp_reader_feed(&r, head, strlen(head));
  CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_BAD);
  CHECK(strstr(got, "larger than the limit") != NULL);
  char *chunk = calloc(1, 1 << 20);
  for (unsigned sent = 0; sent < TL_LSP_MAX_BODY + 10u;) {
    unsigned n = TL_LSP_MAX_BODY + 10u - sent < (1u << 20) ? TL_LSP_MAX_BODY + 10u - sent : (1u << 20);
    tl_lsp_reader_feed(&r, chunk, n);
    sent += n;
    CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_NONE);
  }
  free(chunk);
  CHECK(r.buf.cap < (4u << 20));
  tl_lsp_reader_feed(&r, "Content-Length: 4\r\n\r\nnull", 25);
  CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_OK);
  CHECK_STR(got, "null");
  /* a header that never ends */
  char *big = malloc(10000);
  memset(big, 'x', 10000);
  tl_lsp_reader_feed(&r, big, 10000);
  free(big);
  CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_BAD);
  tl_lsp_reader_feed(&r, "Content-Length: 1\r\n\r\n1", 23);
  CHECK_INT(next_frame(&r, got, sizeof got), TL_LSP_FRAME_OK);
  CHECK_STR(got, "1");
  tl_lsp_reader_free(&r);
}

/* ---- a whole session in-process: input and output are temporary files ---- */

static void put_msg(FILE *f, const char *json) { fprintf(f, "Content-Length: %zu\r\n\r\n%s", strlen(json), json); }

typedef struct {
  int in, out;
  int rc;
} session_arg;

static void *run_server(void *p) {
  session_arg *a = p;
  tl_lsp_opts o = {a->in, a->out, -1, 1, 0, false, NULL, NULL};
  tl_lsp *s = tl_lsp_new(&o);
  a->rc = tl_lsp_serve(s);
  tl_lsp_delete(s);
  return NULL;
}

static char *read_all(int fd) {
  tl_buf b = {0};
  char buf[4096];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, buf, sizeof buf)) > 0) tl_buf_put(&b, buf, (size_t)n);
  return tl_buf_take(&b);
}

static void test_session(void) {
  char in_path[] = "/tmp/tl-lsp-in-XXXXXX";
  int in = mkstemp(in_path);
  FILE *f = fdopen(dup(in), "w");
  put_msg(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{},"
             "\"initializationOptions\":{\"select\":[\"TL101\"]}}}");
  put_msg(f, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
  put_msg(
      f,
      "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{"
      "\"uri\":\"untitled:Untitled-1\",\"languageId\":\"python\",\"version\":3,\"text\":"
      "\"import torch.nn as nn\\nclass M(nn.Module):\\n    def forward(self, x):\\n        return '\xF0\x9D\x94\x98', x.sum().item()\\n\"}}}");
  put_msg(
      f,
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/diagnostic\",\"params\":{\"textDocument\":{\"uri\":\"untitled:Untitled-1\"}}}");
  put_msg(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}");
  put_msg(f, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
  fclose(f);
  lseek(in, 0, SEEK_SET);
  /* two servers at once over the same input: no shared state between them */
  char out_path[2][32] = {"/tmp/tl-lsp-out-XXXXXX", "/tmp/tl-lsp-out-XXXXXX"};
  session_arg args[2];
  pthread_t th[2];
  for (int i = 0; i < 2; i++) {
    args[i].in = open(in_path, O_RDONLY);
    args[i].out = mkstemp(out_path[i]);
    pthread_create(&th[i], NULL, run_server, &args[i]);
  }
  char *outs[2];
  for (int i = 0; i < 2; i++) {
    pthread_join(th[i], NULL);
    CHECK_INT(args[i].rc, 0);
    outs[i] = read_all(args[i].out);
    close(args[i].in);
    close(args[i].out);
    unlink(out_path[i]);
  }
  CHECK_STR(outs[0], outs[1]);
  /* pull diagnostics: `x.sum().item()` after the astral character: UTF-16 character 21..35 */
  CHECK(strstr(outs[0], "\"id\":2,\"result\":{\"kind\":\"full\"") != NULL);
  CHECK(strstr(outs[0], "\"range\":{\"start\":{\"line\":3,\"character\":21},\"end\":{\"line\":3,\"character\":35}}") !=
        NULL);
  CHECK(strstr(outs[0], "\"code\":\"TL101\"") != NULL);
  CHECK(strstr(outs[0], "\"uri\":\"untitled:Untitled-1\",\"version\":3") != NULL);
  CHECK(strstr(outs[0], "{\"id\":3,\"result\":null") != NULL);
  free(outs[0]);
  free(outs[1]);
  close(in);
  unlink(in_path);
}

static void collect(void *ctx, const char *body, size_t len) {
  tl_buf *b = ctx;
  tl_buf_put(b, body, len);
  tl_buf_putc(b, '\n');
}

/* The in-memory entry point: the same dispatch without file descriptors (fuzz_lsp uses it). */
static void test_in_memory(void) {
  tl_buf out = {0};
  tl_lsp_opts o = {-1, -1, -1, 1, 0, false, collect, &out};
  tl_lsp *s = tl_lsp_new(&o);
  const char *msgs[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{},"
      "\"initializationOptions\":{\"select\":[\"TL101\"]}}}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{"
      "\"uri\":\"untitled:a\",\"languageId\":\"python\",\"version\":1,\"text\":"
      "\"import torch.nn as nn\\nclass M(nn.Module):\\n    def forward(self, x):\\n        return x.sum().item()\\n\"}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"untitled:a\"},"
      "\"position\":{\"line\":3,\"character\":16}}}",
      "not json",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/codeAction\",\"params\":{\"textDocument\":{\"uri\":7}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}",
  };
  for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) CHECK(tl_lsp_server_handle(s, msgs[i], strlen(msgs[i])));
  CHECK(!tl_lsp_server_handle(s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}", 34));
  CHECK_INT(tl_lsp_exit_code(s), 0);
  CHECK(!tl_lsp_server_handle(s, "{}", 2)); /* stopped */
  tl_lsp_delete(s);
  tl_buf_putc(&out, 0);
  CHECK(strstr(out.data, "\"uri\":\"untitled:a\",\"version\":1,\"diagnostics\":[{") != NULL);
  CHECK(strstr(out.data, "\"code\":\"TL101\"") != NULL);
  CHECK(strstr(out.data, "{\"id\":2,\"result\":{\"contents\"") != NULL);
  CHECK(strstr(out.data, "\"code\":-32700") != NULL);
  CHECK(strstr(out.data, "{\"id\":3,\"result\":[]") != NULL); /* a malformed uri: no actions */
  CHECK(strstr(out.data, "{\"id\":4,\"result\":null") != NULL);
  tl_buf_free(&out);
}

int main(void) {
  test_positions();
  test_uris();
  test_framing();
  test_session();
  test_in_memory();
  TEST_DONE();
}
