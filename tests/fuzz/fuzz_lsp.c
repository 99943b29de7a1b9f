/* fuzz_lsp.c - libFuzzer harness: the language server: framing (any chunking), document edits with UTF-16 positions, file URIs, and the message sequence through the real dispatch (tl_lsp_server_handle). */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "tl_lsp.h"
#include "tl_source.h"

static int devnull_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  devnull_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  FUZZ_CHECK(devnull_fd >= 0);
  return 0;
}

/* The frames of a byte stream, as "O<len>:<body>" / "B<error>" records: fed in pieces of `chunk`
 * bytes (0: all at once). */
static tl_buf frames(const char *data, size_t size, size_t chunk, size_t *pending, size_t *nbad) {
  tl_lsp_reader r = {0};
  tl_buf log = {0};
  tl_buf_put(&log, "", 0);
  size_t off = 0;
  *nbad = 0;
  do {
    size_t n = chunk ? (size - off < chunk ? size - off : chunk) : size - off;
    tl_lsp_reader_feed(&r, data + off, n);
    off += n;
    for (;;) {
      const char *body;
      size_t len;
      char *err;
      tl_lsp_frame fr = tl_lsp_reader_next(&r, &body, &len, &err);
      if (fr == TL_LSP_FRAME_NONE) {
        FUZZ_CHECK(!err);
        break;
      }
      if (fr == TL_LSP_FRAME_BAD) {
        FUZZ_CHECK(err);
        tl_buf_printf(&log, "B%s\n", err);
        (*nbad)++;
        free(err);
        continue;
      }
      FUZZ_CHECK(!err && len <= TL_LSP_MAX_BODY);
      tl_buf_printf(&log, "O%zu:", len);
      tl_buf_put(&log, body, len);
      tl_buf_putc(&log, '\n');
    }
  } while (off < size);
  *pending = tl_lsp_reader_pending(&r);
  tl_lsp_reader_free(&r);
  return log;
}

static uint32_t num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0)) return 0;
  return v->valuedouble >= 4294967295.0 ? UINT32_MAX : (uint32_t)v->valuedouble;
}

/* Offsets and positions agree with each other on a valid UTF-8 document. */
static void check_doc(const tl_lsp_text *t) {
  FUZZ_CHECK(t->text && t->text[t->len] == 0 && t->lines.count >= 1);
  tl_lines fresh;
  tl_lines_init(&fresh, t->text, t->len);
  FUZZ_CHECK(fresh.count == t->lines.count &&
             !memcmp(fresh.starts, t->lines.starts, fresh.count * sizeof *fresh.starts));
  tl_lines_free(&fresh);
  if (!tl_utf8_valid(t->text, t->len, NULL)) return;
  size_t step = t->len / 64 + 1;
  for (size_t off = 0; off <= t->len; off += step) {
    uint32_t o = (uint32_t)off;
    while (o < t->len && ((unsigned char)t->text[o] & 0xC0) == 0x80) o++;
    if (o > 0 && o < t->len && t->text[o - 1] == '\r' && t->text[o] == '\n') continue; /* inside a CRLF */
    uint32_t line, ch;
    tl_lsp_text_position(t, o, &line, &ch);
    FUZZ_CHECK(line < t->lines.count);
    FUZZ_CHECK(tl_lsp_text_offset(t, line, ch) == o || (o < t->len && (t->text[o] == '\n' || t->text[o] == '\r')) ||
               o == t->len);
    FUZZ_CHECK(tl_lsp_text_offset_cp(t, line + 1, 1) == t->lines.starts[line]);
  }
  FUZZ_CHECK(tl_lsp_text_offset(t, UINT32_MAX, 0) == t->len);
  FUZZ_CHECK(tl_lsp_text_offset(t, 0, UINT32_MAX) <= t->len);
  FUZZ_CHECK(tl_lsp_text_offset_cp(t, UINT32_MAX, 1) == t->len);
}

static void uri_roundtrip(const char *uri) {
  char *path = tl_lsp_uri_to_path(uri);
  if (!path) return;
  FUZZ_CHECK(path[0] == '/');
  char *back = tl_lsp_path_to_uri(path);
  char *again = tl_lsp_uri_to_path(back);
  FUZZ_CHECK(again && !strcmp(path, again));
  free(again);
  free(back);
  free(path);
}

/* Every "uri" string, every "text" (a whole document) and every {range, text} change of a message. */
static void walk(const cJSON *v, tl_lsp_text *doc, int depth) {
  if (depth > 64) return;
  if (cJSON_IsString(v) && v->string && !strcmp(v->string, "uri")) uri_roundtrip(v->valuestring);
  if (cJSON_IsObject(v)) {
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(v, "text");
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(v, "range");
    if (cJSON_IsString(text)) {
      size_t n = strlen(text->valuestring);
      if (cJSON_IsObject(range)) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(range, "start"),
                    *e = cJSON_GetObjectItemCaseSensitive(range, "end");
        uint32_t a = tl_lsp_text_offset(doc, num(s, "line"), num(s, "character"));
        uint32_t b = tl_lsp_text_offset(doc, num(e, "line"), num(e, "character"));
        FUZZ_CHECK(a <= doc->len && b <= doc->len);
        if (b < a) {
          uint32_t x = a;
          a = b;
          b = x;
        }
        size_t before = doc->len;
        tl_lsp_text_replace(doc, a, b, text->valuestring, n);
        FUZZ_CHECK(doc->len == before - (b - a) + n && !memcmp(doc->text + a, text->valuestring, n));
      } else {
        tl_lsp_text_set(doc, text->valuestring, n);
        FUZZ_CHECK(doc->len == n);
      }
      /* (a stray lead byte of invalid UTF-8 counts as a whole sequence: no bound there) */
      if (tl_utf8_valid(doc->text, doc->len, NULL)) FUZZ_CHECK(tl_lsp_utf16_len(doc->text, doc->len) <= doc->len);
      check_doc(doc);
    }
  }
  const cJSON *c;
  cJSON_ArrayForEach(c, v) walk(c, doc, depth + 1);
}

/* ---- the server's dispatch, in memory ---- */

/* Every message the server writes is one JSON object with "jsonrpc": "2.0". */
static void sink(void *ctx, const char *body, size_t len) {
  cJSON *j = cJSON_ParseWithLength(body, len);
  FUZZ_CHECK(j && cJSON_IsObject(j));
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "jsonrpc");
  FUZZ_CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "2.0"));
  cJSON_Delete(j);
  (*(size_t *)ctx)++;
}

static void drop_rules(cJSON *settings) {
  if (!cJSON_IsObject(settings)) return;
  cJSON_DeleteItemFromObjectCaseSensitive(settings, "rules");
  cJSON_DeleteItemFromObjectCaseSensitive(settings, "trainlint.rules");
  cJSON *inner = cJSON_GetObjectItemCaseSensitive(settings, "trainlint");
  if (cJSON_IsObject(inner)) cJSON_DeleteItemFromObjectCaseSensitive(inner, "rules");
}

/* Keeps a message inside the process and fast: no workspace folders to walk, no rule
 * directories or watched files read from disk, and `initialize` selects a few rules (compiling
 * every rule for each input would leave little time for fuzzing; fuzz_analyze runs them all).
 * Returns the JSON to send, NULL to send the bytes as they are (not JSON), or "" to skip it. */
static char *tame(const char *body, size_t len) {
  cJSON *j = cJSON_ParseWithLength(body, len);
  if (!j) return NULL;
  cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "method");
  const char *method = cJSON_IsString(m) ? m->valuestring : "";
  if (!strcmp(method, "workspace/didChangeWatchedFiles") || !strcmp(method, "workspace/didChangeWorkspaceFolders")) {
    cJSON_Delete(j);
    return strdup("");
  }
  if (cJSON_IsObject(params)) {
    cJSON_DeleteItemFromObjectCaseSensitive(params, "rootUri");
    cJSON_DeleteItemFromObjectCaseSensitive(params, "rootPath");
    cJSON_DeleteItemFromObjectCaseSensitive(params, "workspaceFolders");
    drop_rules(cJSON_GetObjectItemCaseSensitive(params, "settings"));
    if (!strcmp(method, "initialize")) {
      cJSON_DeleteItemFromObjectCaseSensitive(params, "initializationOptions");
      cJSON *opts = cJSON_AddObjectToObject(params, "initializationOptions");
      cJSON_AddStringToObject(opts, "select", "TL101, TL102, TL201, TL206");
    }
  }
  char *out = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return out;
}

/* The frame bodies of `log` (as made by frames()) through a fresh server, in order. */
static void dispatch(const tl_buf *log) {
  size_t written = 0;
  tl_lsp_opts o = {-1, -1, -1, 1, 0, false, sink, &written};
  tl_lsp *s = tl_lsp_new(&o);
  size_t nmsg = 0;
  bool running = true;
  for (const char *p = log->data, *end = log->data + log->len; p < end && running && nmsg < 48;) {
    const char *nl;
    if (*p == 'O') {
      char *colon;
      size_t len = strtoul(p + 1, &colon, 10);
      const char *body = colon + 1;
      char *t = tame(body, len);
      if (!t) running = tl_lsp_server_handle(s, body, len);
      else if (*t) running = tl_lsp_server_handle(s, t, strlen(t));
      free(t);
      nmsg++;
      nl = body + len;
    } else {
      nl = strchr(p, '\n');
    }
    p = nl + 1;
  }
  if (!running) FUZZ_CHECK(!tl_lsp_server_handle(s, "{}", 2)); /* stays stopped */
  tl_lsp_delete(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256 * 1024) return -1;
  const char *in = (const char *)data;
  size_t p0, p1, p7, bad0, bad1, bad7;
  tl_buf whole = frames(in, size, 0, &p0, &bad0);
  /* framing does not depend on how a well-formed stream is cut (after a malformed header the
   * reader resynchronises on the next "Content-Length" among the bytes it has: best effort) */
  tl_buf bytes = frames(in, size, 1, &p1, &bad1), sevens = frames(in, size, 7, &p7, &bad7);
  if (!bad0 && (whole.len != bytes.len || memcmp(whole.data, bytes.data, whole.len) || whole.len != sevens.len ||
                memcmp(whole.data, sevens.data, whole.len) || p0 != p1 || p0 != p7)) {
    fprintf(
        stderr,
        "fuzz: frames depend on how the input is cut\n--- at once (%zu pending)\n%.*s\n--- by 1 byte (%zu pending)\n%.*s\n"
        "--- by 7 bytes (%zu pending)\n%.*s\n",
        p0, (int)whole.len, whole.data, p1, (int)bytes.len, bytes.data, p7, (int)sevens.len, sevens.data);
    abort();
  }
  tl_buf_free(&bytes);
  tl_buf_free(&sevens);

  tl_lsp_text doc = {0};
  tl_lsp_text_set(&doc, "", 0);
  for (const char *p = whole.data, *end = whole.data + whole.len; p < end;) {
    const char *nl;
    if (*p == 'O') {
      char *colon;
      size_t len = strtoul(p + 1, &colon, 10);
      const char *body = colon + 1;
      cJSON *j = cJSON_ParseWithLength(body, len);
      if (j) {
        walk(j, &doc, 0);
        char *printed = cJSON_PrintUnformatted(j);
        if (printed) FUZZ_CHECK(tl_lsp_write_frame(devnull_fd, printed, strlen(printed)));
        cJSON_free(printed);
        cJSON_Delete(j);
      }
      nl = body + len;
    } else {
      nl = strchr(p, '\n');
    }
    p = nl + 1;
  }
  tl_lsp_text_free(&doc);
  if (size <= 64 * 1024) dispatch(&whole);
  tl_buf_free(&whole);
  return 0;
}
