/* tl_lsp.h - `trainlint server`: a Language Server Protocol server over stdio, and its testable parts. */
#ifndef TL_LSP_H
#define TL_LSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_util.h"

/* ---- the server ---- */

/* `trainlint server [options]`: argv[0] is "server". Serves on stdin/stdout until `exit` or the
 * end of input; stdout is reserved for the protocol (stray writes to it go to stderr).
 * Returns the process exit status (0 after shutdown + exit, 1 otherwise, 2 on a usage error). */
int tl_lsp_main(int argc, char **argv);

typedef struct tl_lsp tl_lsp;

typedef struct {
  int in_fd, out_fd; /* the protocol streams */
  int log_fd;        /* log lines ("trainlint server: ..."); -1: none */
  unsigned threads;  /* analysis threads; 0: all cores */
  int debounce_ms;   /* how long to wait for more input before analysing after a change; <0: default */
  bool verbose;      /* log each analysis with its duration */
  /* When set, every outgoing message (its JSON body, without framing) goes here instead of out_fd. */
  void (*write)(void *ctx, const char *body, size_t len);
  void *write_ctx;
} tl_lsp_opts;

tl_lsp *tl_lsp_new(const tl_lsp_opts *opts);
/* Serves until `exit` or the end of input. Returns 0 after shutdown + exit, 1 otherwise. */
int tl_lsp_serve(tl_lsp *s);
void tl_lsp_delete(tl_lsp *s);
/* In memory, without file descriptors (tests, fuzzing): handles one JSON-RPC message (its body,
 * without framing) through the same dispatch as tl_lsp_serve, then analyses at once when
 * documents changed (no debounce). Answers and notifications go to opts.write (or out_fd).
 * Returns false once the server has stopped (`exit`, a write error); tl_lsp_exit_code tells how. */
bool tl_lsp_server_handle(tl_lsp *s, const char *json, size_t len);
int tl_lsp_exit_code(const tl_lsp *s);

/* ---- documents: text with a line index, positions in UTF-16 code units ---- */

typedef struct {
  char *text; /* NUL-terminated */
  size_t len, cap;
  tl_lines lines; /* lines end at \n, \r\n or a lone \r, as in the protocol and in Python */
} tl_lsp_text;

void tl_lsp_text_set(tl_lsp_text *t, const char *s, size_t n);
void tl_lsp_text_free(tl_lsp_text *t);
/* The byte offset of a protocol position (0-based line, UTF-16 character). A character past the
 * end of its line means the line's end (before its terminator), a line past the last one the end
 * of the text; a character inside a surrogate pair rounds down to the code point's start. */
uint32_t tl_lsp_text_offset(const tl_lsp_text *t, uint32_t line, uint32_t character);
/* The protocol position of a byte offset (clamped to the text; inside a UTF-8 sequence: its start). */
void tl_lsp_text_position(const tl_lsp_text *t, uint32_t off, uint32_t *line, uint32_t *character);
/* The byte offset of a 1-based (line, column in code points) position, as findings carry. */
uint32_t tl_lsp_text_offset_cp(const tl_lsp_text *t, uint32_t line, uint32_t col);
/* Replaces bytes [start, end) by s[0, n) and updates the line index. */
void tl_lsp_text_replace(tl_lsp_text *t, uint32_t start, uint32_t end, const char *s, size_t n);

/* UTF-16 length of a UTF-8 string (4-byte sequences count 2). */
uint32_t tl_lsp_utf16_len(const char *s, size_t n);

/* ---- URIs ---- */

/* The local path of a `file:` URI (percent-decoded); NULL for other schemes or a bad URI. */
char *tl_lsp_uri_to_path(const char *uri);
/* The `file:` URI of an absolute path (percent-encoded as VS Code does). */
char *tl_lsp_path_to_uri(const char *path);

/* ---- framing: `Content-Length: N\r\n\r\n` + N bytes of JSON ---- */

#define TL_LSP_MAX_BODY (64u * 1024u * 1024u)

typedef struct {
  tl_buf buf;
  size_t pos;  /* start of the unconsumed bytes */
  size_t skip; /* body bytes still to discard (an oversized frame) */
} tl_lsp_reader;

typedef enum {
  TL_LSP_FRAME_NONE, /* no complete frame yet */
  TL_LSP_FRAME_OK,   /* *body / *len: one message (valid until the next feed) */
  TL_LSP_FRAME_BAD   /* a malformed header (skipped; *message says why, caller frees) */
} tl_lsp_frame;

void tl_lsp_reader_feed(tl_lsp_reader *r, const char *data, size_t n);
tl_lsp_frame tl_lsp_reader_next(tl_lsp_reader *r, const char **body, size_t *len, char **message);
/* Bytes received but not yet part of a frame (at the end of input: a truncated frame). */
size_t tl_lsp_reader_pending(const tl_lsp_reader *r);
void tl_lsp_reader_free(tl_lsp_reader *r);

/* Writes one framed message; false on a write error (the peer is gone). */
bool tl_lsp_write_frame(int fd, const char *body, size_t len);

#endif
