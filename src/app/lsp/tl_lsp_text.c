/* tl_lsp_text.c - the language server's document texts: line index, UTF-16 positions, range edits, file URIs. */
#include "tl_lsp.h"

#include <string.h>

/* Length of the UTF-8 sequence starting with byte c (1 for stray continuation bytes). */
static unsigned tl_lsp_text__u8_seqlen(unsigned char c) { return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

uint32_t tl_lsp_utf16_len(const char *s, size_t n) {
  uint32_t units = 0;
  for (size_t i = 0; i < n;) {
    unsigned k = tl_lsp_text__u8_seqlen((unsigned char)s[i]);
    units += k == 4 ? 2 : 1;
    i += k;
  }
  return units;
}

void tl_lsp_text_set(tl_lsp_text *t, const char *s, size_t n) {
  if (n + 1 > t->cap) {
    t->cap = n + 1 + n / 4;
    t->text = tl_realloc(t->text, t->cap);
  }
  memcpy(t->text, s, n);
  t->text[n] = 0;
  t->len = n;
  tl_lines_free(&t->lines);
  tl_lines_init(&t->lines, t->text, t->len);
}

void tl_lsp_text_free(tl_lsp_text *t) {
  free(t->text);
  tl_lines_free(&t->lines);
  memset(t, 0, sizeof *t);
}

/* Bounds of 0-based line `line`: [*start, *end) without its terminator. */
static void tl_lsp_text__line_bounds(const tl_lsp_text *t, uint32_t line, uint32_t *start, uint32_t *end) {
  uint32_t s = t->lines.starts[line];
  uint32_t e = line + 1 < t->lines.count ? t->lines.starts[line + 1] : (uint32_t)t->len;
  if (e > s && t->text[e - 1] == '\n') e--;
  if (e > s && t->text[e - 1] == '\r') e--;
  *start = s;
  *end = e;
}

uint32_t tl_lsp_text_offset(const tl_lsp_text *t, uint32_t line, uint32_t character) {
  if (!t->lines.starts || line >= t->lines.count) return (uint32_t)t->len;
  uint32_t s, e;
  tl_lsp_text__line_bounds(t, line, &s, &e);
  uint32_t units = 0, i = s;
  while (i < e) {
    unsigned k = tl_lsp_text__u8_seqlen((unsigned char)t->text[i]);
    unsigned u = k == 4 ? 2 : 1;
    if (units + u > character) break;
    units += u;
    i += k;
  }
  return i < e ? i : e;
}

void tl_lsp_text_position(const tl_lsp_text *t, uint32_t off, uint32_t *line, uint32_t *character) {
  if (off > t->len) off = (uint32_t)t->len;
  while (off > 0 && off < t->len && ((unsigned char)t->text[off] & 0xC0) == 0x80) off--;
  if (!t->lines.starts) {
    *line = *character = 0;
    return;
  }
  uint32_t l = tl_lines_line(&t->lines, off) - 1;
  /* An offset between \r and \n belongs to the line the pair ends. */
  uint32_t s = t->lines.starts[l];
  *line = l;
  *character = tl_lsp_utf16_len(t->text + s, off - s);
}

uint32_t tl_lsp_text_offset_cp(const tl_lsp_text *t, uint32_t line, uint32_t col) {
  if (!t->lines.starts || line == 0) return 0;
  if (line > t->lines.count) return (uint32_t)t->len;
  uint32_t s, e;
  tl_lsp_text__line_bounds(t, line - 1, &s, &e);
  uint32_t i = s;
  for (uint32_t c = 1; c < col && i < e; c++) i += tl_lsp_text__u8_seqlen((unsigned char)t->text[i]);
  return i < e ? i : e;
}

void tl_lsp_text_replace(tl_lsp_text *t, uint32_t start, uint32_t end, const char *s, size_t n) {
  if (end > t->len) end = (uint32_t)t->len;
  if (start > end) start = end;
  size_t nl = t->len - (end - start) + n;
  if (nl + 1 > t->cap) {
    t->cap = nl + 1 + nl / 4;
    t->text = tl_realloc(t->text, t->cap);
  }
  memmove(t->text + start + n, t->text + end, t->len - end + 1);
  memcpy(t->text + start, s, n);
  t->len = nl;
  tl_lines_free(&t->lines);
  tl_lines_init(&t->lines, t->text, t->len);
}

/* ---- URIs ---- */

static int tl_lsp_text__hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *tl_lsp_uri_to_path(const char *uri) {
  if (!uri || strncasecmp(uri, "file://", 7)) return NULL;
  const char *p = uri + 7;
  if (!strncasecmp(p, "localhost/", 10)) p += 9;
  if (*p != '/') return NULL; /* a remote host: not a local path */
  tl_buf b = {0};
  for (; *p && *p != '?' && *p != '#'; p++) {
    if (*p == '%') {
      int h = tl_lsp_text__hexval(p[1]), l = h < 0 ? -1 : tl_lsp_text__hexval(p[2]);
      if (h < 0 || l < 0) {
        tl_buf_free(&b);
        return NULL;
      }
      char c = (char)(h * 16 + l);
      if (!c) {
        tl_buf_free(&b);
        return NULL;
      }
      tl_buf_putc(&b, c);
      p += 2;
    } else {
      tl_buf_putc(&b, *p);
    }
  }
  return tl_buf_take(&b);
}

char *tl_lsp_path_to_uri(const char *path) {
  static const char hex[] = "0123456789ABCDEF";
  tl_buf b = {0};
  tl_buf_puts(&b, "file://");
  if (path[0] != '/') tl_buf_putc(&b, '/');
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    unsigned char c = *p;
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_' || c == '~' || c == '/';
    if (keep) {
      tl_buf_putc(&b, (char)c);
    } else {
      tl_buf_putc(&b, '%');
      tl_buf_putc(&b, hex[c >> 4]);
      tl_buf_putc(&b, hex[c & 15]);
    }
  }
  return tl_buf_take(&b);
}
