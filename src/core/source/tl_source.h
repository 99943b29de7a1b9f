/* tl_source.h - reading one input file safely: size limits, binary and UTF-8 checks. */
#ifndef TL_SOURCE_H
#define TL_SOURCE_H

#include "tl_util.h"
#include <sys/stat.h>

/* Limits on one input file (documented in docs/limits.md): the default, and the most that
 * --max-file-size may raise it to (offsets are 32-bit; a tree takes about 150 bytes per byte). */
#define TL_MAX_FILE_BYTES (16u * 1024u * 1024u)
#define TL_MAX_FILE_BYTES_LIMIT ((size_t)1024u * 1024u * 1024u)

typedef enum {
  TL_SOURCE_OK = 0,
  TL_SOURCE_IO,        /* open/read failed; message has strerror */
  TL_SOURCE_NOT_FILE,  /* a FIFO, socket, device or directory: never opened for reading */
  TL_SOURCE_TOO_LARGE, /* bigger than the limit (TL_MAX_FILE_BYTES unless given) */
  TL_SOURCE_BINARY,    /* holds NUL bytes in its first 8 KiB (or anywhere): not Python text */
  TL_SOURCE_BAD_UTF8   /* invalid UTF-8; error_offset is the first bad byte */
} tl_source_status;

/* A file's bytes as read. `text` is NUL-terminated and owned by the tl_source.
 * `has_bom` tells that the text starts with a UTF-8 byte-order mark (kept in `text`). */
typedef struct tl_source {
  char *text;
  size_t len;
  bool has_bom;
  struct stat st; /* as seen by fstat on the opened descriptor */
} tl_source;

/* Reads `path` into `out`. On failure returns the status, fills `*error_offset` (byte offset,
 * for TL_SOURCE_BAD_UTF8 and TL_SOURCE_BINARY) and a malloc'd message in `*message`
 * (caller frees); `out` is then left empty. Never blocks on FIFOs (opens with O_NONBLOCK and
 * checks S_ISREG before reading). */
tl_source_status tl_source_read(const char *path, tl_source *out, size_t *error_offset, char **message);
/* "file too large: N bytes (... MiB), over the limit of M bytes (...)": the message for a file or
 * an editor's buffer over the limit (caller frees). */
char *tl_source_too_large_message(unsigned long long size, size_t max);
/* The size limit that `max` asks for: `max`, or TL_MAX_FILE_BYTES for 0 or one over
 * TL_MAX_FILE_BYTES_LIMIT. */
size_t tl_source_max_bytes(size_t max);
/* The same with a size limit of `max` bytes (tl_source_max_bytes). */
tl_source_status tl_source_read_max(const char *path, size_t max, tl_source *out, size_t *error_offset, char **message);

/* Checks text for UTF-8 validity (no overlongs, no surrogates, max U+10FFFF).
 * Returns true when valid; otherwise sets *bad to the first invalid byte's offset. */
bool tl_utf8_valid(const char *text, size_t len, size_t *bad);
/* A copy of the NUL-terminated `s` with each byte that is not part of valid UTF-8 replaced by
 * U+FFFD (a file name with byte 0xFF, in JSON that must be UTF-8), or NULL when `s` is valid as it
 * is. The caller frees the copy. */
char *tl_utf8_repair(const char *s);

void tl_source_free(tl_source *s);

#endif
