/* tl_lsp_rpc.c - the language server's message framing: Content-Length headers in, framed JSON out. */
#include "tl_lsp.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define TL_LSP_MAX_HEADER 8192u

void tl_lsp_reader_feed(tl_lsp_reader *r, const char *data, size_t n) {
  /* drop what was consumed before appending, so the buffer does not grow without bound */
  if (r->pos && (r->pos == r->buf.len || r->pos > 65536)) {
    memmove(r->buf.data, r->buf.data + r->pos, r->buf.len - r->pos);
    r->buf.len -= r->pos;
    r->buf.data[r->buf.len] = 0;
    r->pos = 0;
  }
  if (r->skip) {
    size_t k = n < r->skip ? n : r->skip;
    r->skip -= k;
    data += k;
    n -= k;
  }
  if (n) tl_buf_put(&r->buf, data, n);
}

size_t tl_lsp_reader_pending(const tl_lsp_reader *r) { return r->buf.len - r->pos; }

void tl_lsp_reader_free(tl_lsp_reader *r) {
  tl_buf_free(&r->buf);
  memset(r, 0, sizeof *r);
}

static const char *tl_lsp_rpc__memcasemem(const char *h, size_t hn, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= hn; i++)
    if (!strncasecmp(h + i, needle, k)) return h + i;
  return NULL;
}

/* After a malformed header: skip to the next "Content-Length" (past the current position). */
static void tl_lsp_rpc__resync(tl_lsp_reader *r) {
  const char *p = r->buf.data + r->pos;
  size_t avail = r->buf.len - r->pos;
  const char *next = avail > 1 ? tl_lsp_rpc__memcasemem(p + 1, avail - 1, "Content-Length") : NULL;
  if (next) {
    r->pos += (size_t)(next - p);
  } else {
    /* keep a tail that may be the start of a header still arriving */
    size_t keep = 0;
    for (size_t k = 1; k < 14 && k < avail; k++)
      if (!strncasecmp(p + avail - k, "Content-Length", k)) keep = k;
    r->pos += avail - keep;
  }
}

tl_lsp_frame tl_lsp_reader_next(tl_lsp_reader *r, const char **body, size_t *len, char **message) {
  *message = NULL;
  const char *p = r->buf.data ? r->buf.data + r->pos : "";
  size_t avail = r->buf.len - r->pos;
  /* skip blank lines between frames (some clients end bodies with a newline) */
  while (avail && (*p == '\r' || *p == '\n')) {
    p++;
    avail--;
    r->pos++;
  }
  if (!avail) return TL_LSP_FRAME_NONE;
  /* the header block ends with an empty line (CRLF CRLF; a bare LF is accepted too) */
  size_t hend = 0, bstart = 0;
  for (size_t i = 0; i < avail && i < TL_LSP_MAX_HEADER; i++) {
    if (p[i] != '\n') continue;
    if (i + 1 < avail && p[i + 1] == '\n') {
      hend = i;
      bstart = i + 2;
      break;
    }
    if (i + 2 < avail && p[i + 1] == '\r' && p[i + 2] == '\n') {
      hend = i;
      bstart = i + 3;
      break;
    }
  }
  if (!bstart) {
    if (avail < TL_LSP_MAX_HEADER) return TL_LSP_FRAME_NONE;
    *message = tl_strdup("header block too long or not terminated");
    tl_lsp_rpc__resync(r);
    return TL_LSP_FRAME_BAD;
  }
  /* parse the header lines */
  long long length = -1;
  const char *bad = NULL;
  for (size_t i = 0; i < hend;) {
    size_t j = i;
    while (j < hend && p[j] != '\n') j++;
    size_t e = j;
    if (e > i && p[e - 1] == '\r') e--;
    const char *colon = memchr(p + i, ':', e - i);
    if (!colon) {
      bad = "a header line without ':'";
      break;
    }
    size_t nlen = (size_t)(colon - (p + i));
    const char *v = colon + 1;
    while (v < p + e && (*v == ' ' || *v == '\t')) v++;
    if (nlen == 14 && !strncasecmp(p + i, "Content-Length", 14)) {
      long long n = 0;
      const char *d = v;
      while (d < p + e && isdigit((unsigned char)*d) && n <= (long long)TL_LSP_MAX_BODY * 16) n = n * 10 + (*d++ - '0');
      while (d < p + e && (*d == ' ' || *d == '\t')) d++;
      if (d == v || d != p + e) {
        bad = "a Content-Length that is not a number";
        break;
      }
      length = n;
    }
    i = j + 1;
  }
  if (!bad && length < 0) bad = "no Content-Length header";
  if (bad) {
    *message = tl_strdup(bad);
    tl_lsp_rpc__resync(r);
    return TL_LSP_FRAME_BAD;
  }
  if ((unsigned long long)length > TL_LSP_MAX_BODY) {
    *message = tl_printf("message of %lld bytes is larger than the limit (%u bytes): skipped", length, TL_LSP_MAX_BODY);
    r->pos += bstart;
    size_t have = r->buf.len - r->pos;
    size_t drop = have < (size_t)length ? have : (size_t)length;
    r->pos += drop;
    r->skip = (size_t)length - drop;
    return TL_LSP_FRAME_BAD;
  }
  if (avail - bstart < (size_t)length) return TL_LSP_FRAME_NONE;
  *body = p + bstart;
  *len = (size_t)length;
  r->pos += bstart + (size_t)length;
  return TL_LSP_FRAME_OK;
}

bool tl_lsp_write_frame(int fd, const char *body, size_t len) {
  char head[64];
  int h = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
  tl_buf b = {0};
  tl_buf_put(&b, head, (size_t)h);
  tl_buf_put(&b, body, len);
  bool ok = tl_write_all(fd, b.data, b.len);
  tl_buf_free(&b);
  return ok;
}
