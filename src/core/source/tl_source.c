/* tl_source.c - reading one input file safely: size limits, binary and UTF-8 checks. */
#include "tl_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static const char *tl_source__kind_name(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a named pipe";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "an unknown kind";
}

char *tl_source_too_large_message(unsigned long long size, size_t max) {
  return tl_printf("file too large: %llu bytes (%.1f MiB), over the limit of %zu bytes (%.1f MiB; --max-file-size)",
                   size, (double)size / (1024.0 * 1024.0), max, (double)max / (1024.0 * 1024.0));
}

bool tl_utf8_valid(const char *text, size_t len, size_t *bad) {
  const unsigned char *s = (const unsigned char *)text;
  size_t i = 0;
  while (i < len) {
    /* ASCII, the common case, eight bytes at a time. */
    while (len - i >= 8) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (w & UINT64_C(0x8080808080808080)) break;
      i += 8;
    }
    if (i >= len) break;
    unsigned c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t need;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c == 0xE0) need = 2, lo = 0xA0; /* no overlongs */
    else if (c == 0xED) need = 2, hi = 0x9F; /* no surrogates U+D800..DFFF */
    else if (c >= 0xE1 && c <= 0xEF) need = 2;
    else if (c == 0xF0) need = 3, lo = 0x90; /* no overlongs */
    else if (c >= 0xF1 && c <= 0xF3) need = 3;
    else if (c == 0xF4) need = 3, hi = 0x8F; /* nothing above U+10FFFF */
    else {                                   /* 80..C1, F5..FF */
      if (bad) *bad = i;
      return false;
    }
    /* A truncated or malformed sequence is reported at its lead byte, as Python does. */
    if (len - i <= need) {
      if (bad) *bad = i;
      return false;
    }
    if (s[i + 1] < lo || s[i + 1] > hi) {
      if (bad) *bad = i;
      return false;
    }
    for (size_t k = 2; k <= need; k++) {
      if ((s[i + k] & 0xC0) != 0x80) {
        if (bad) *bad = i;
        return false;
      }
    }
    i += need + 1;
  }
  return true;
}

char *tl_utf8_repair(const char *s) {
  size_t len = strlen(s), bad;
  if (tl_utf8_valid(s, len, &bad)) return NULL;
  tl_buf b = {0};
  size_t from = 0;
  while (!tl_utf8_valid(s + from, len - from, &bad)) {
    tl_buf_put(&b, s + from, bad);
    tl_buf_puts(&b, "\xEF\xBF\xBD"); /* U+FFFD for the one byte that starts no valid sequence */
    from += bad + 1;
  }
  tl_buf_put(&b, s + from, len - from);
  return tl_buf_take(&b);
}

static tl_source_status tl_source__fail(tl_source_status st, char **message, char *msg) {
  if (message) *message = msg;
  else free(msg);
  return st;
}

size_t tl_source_max_bytes(size_t max) { return !max || max > TL_MAX_FILE_BYTES_LIMIT ? TL_MAX_FILE_BYTES : max; }

tl_source_status tl_source_read(const char *path, tl_source *out, size_t *error_offset, char **message) {
  return tl_source_read_max(path, TL_MAX_FILE_BYTES, out, error_offset, message);
}

tl_source_status tl_source_read_max(const char *path, size_t max, tl_source *out, size_t *error_offset,
                                    char **message) {
  char err[256];
  max = tl_source_max_bytes(max);
  memset(out, 0, sizeof *out);
  if (error_offset) *error_offset = 0;
  if (message) *message = NULL;

  /* Look before opening: opening a device or a socket can have effects of its own. */
  struct stat pre;
  if (stat(path, &pre) != 0) {
    int e = errno;
    tl_strerror(e, err, sizeof err);
    return tl_source__fail(TL_SOURCE_IO, message, tl_printf("cannot open: %s", err));
  }
  if (!S_ISREG(pre.st_mode))
    return tl_source__fail(TL_SOURCE_NOT_FILE, message,
                           tl_printf("not a regular file (%s)", tl_source__kind_name(pre.st_mode)));
  if ((unsigned long long)pre.st_size > max)
    return tl_source__fail(TL_SOURCE_TOO_LARGE, message,
                           tl_source_too_large_message((unsigned long long)pre.st_size, max));

  int fd;
  do fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int e = errno;
    tl_strerror(e, err, sizeof err);
    return tl_source__fail(TL_SOURCE_IO, message, tl_printf("cannot open: %s", err));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    tl_strerror(e, err, sizeof err);
    return tl_source__fail(TL_SOURCE_IO, message, tl_printf("cannot stat: %s", err));
  }
  /* The path may have been replaced between stat and open: check the descriptor too. */
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return tl_source__fail(TL_SOURCE_NOT_FILE, message,
                           tl_printf("not a regular file (%s)", tl_source__kind_name(st.st_mode)));
  }
  if ((unsigned long long)st.st_size > max) {
    close(fd);
    return tl_source__fail(TL_SOURCE_TOO_LARGE, message,
                           tl_source_too_large_message((unsigned long long)st.st_size, max));
  }

  /* Read to end of file; the file may be shorter or longer than fstat said (it may be changing). */
  /* Room for the file, its NUL and one more byte, so that the read that finds the end of an
     unchanged file does not double the buffer first. */
  size_t cap = (size_t)st.st_size + 2, len = 0;
  if (cap < 4096) cap = 4096;
  char *buf = tl_malloc(cap);
  for (;;) {
    if (len + 1 >= cap) {
      size_t ncap = cap * 2;
      if (ncap > max + 2) ncap = max + 2;
      buf = tl_realloc(buf, ncap);
      cap = ncap;
    }
    ssize_t n = read(fd, buf + len, cap - 1 - len);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      int e = errno;
      close(fd);
      free(buf);
      tl_strerror(e, err, sizeof err);
      return tl_source__fail(TL_SOURCE_IO, message, tl_printf("cannot read: %s", err));
    }
    if (n == 0) break;
    len += (size_t)n;
    if (len > max) { /* grew past the limit while we read it */
      close(fd);
      free(buf);
      return tl_source__fail(TL_SOURCE_TOO_LARGE, message, tl_source_too_large_message((unsigned long long)len, max));
    }
  }
  close(fd);
  buf[len] = 0;

  const char *nul = memchr(buf, 0, len);
  if (nul) {
    size_t off = (size_t)(nul - buf);
    free(buf);
    if (error_offset) *error_offset = off;
    return tl_source__fail(TL_SOURCE_BINARY, message, tl_printf("binary file (NUL byte at byte offset %zu)", off));
  }
  size_t bad = 0;
  if (!tl_utf8_valid(buf, len, &bad)) {
    unsigned char b = (unsigned char)buf[bad];
    free(buf);
    if (error_offset) *error_offset = bad;
    return tl_source__fail(TL_SOURCE_BAD_UTF8, message,
                           tl_printf("invalid UTF-8 (byte 0x%02x at byte offset %zu)", b, bad));
  }

  out->text = buf;
  out->len = len;
  out->has_bom = len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
                 (unsigned char)buf[2] == 0xBF;
  out->st = st;
  return TL_SOURCE_OK;
}

void tl_source_free(tl_source *s) {
  if (!s) return;
  free(s->text);
  memset(s, 0, sizeof *s);
}
