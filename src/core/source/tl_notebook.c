/* tl_notebook.c - reading a Jupyter notebook as Python (tl_notebook.h): a small JSON scanner that
 * keeps the code cells' sources, and the rewriting of IPython's magics and shell lines. */
#include "tl_notebook.h"

#include <string.h>

#define TL_NB_MAX_DEPTH 256

/* The scanner: json[i..n), the first error (with its offset) wins. */
typedef struct {
  const char *s;
  size_t n, i;
  const char *err;
  size_t err_at;
} tl_nb__scan;

static bool tl_nb__fail(tl_nb__scan *j, const char *why) {
  if (!j->err) {
    j->err = why;
    j->err_at = j->i < j->n ? j->i : j->n;
  }
  return false;
}

static void tl_nb__ws(tl_nb__scan *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r')) j->i++;
}

static bool tl_nb__eat(tl_nb__scan *j, char c) {
  tl_nb__ws(j);
  if (j->i < j->n && j->s[j->i] == c) {
    j->i++;
    return true;
  }
  return false;
}

static int tl_nb__hex(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

static bool tl_nb__u4(tl_nb__scan *j, unsigned *out) {
  if (j->i + 4 > j->n) return tl_nb__fail(j, "truncated \\u escape");
  unsigned v = 0;
  for (int k = 0; k < 4; k++) {
    int h = tl_nb__hex(j->s[j->i + k]);
    if (h < 0) return tl_nb__fail(j, "bad \\u escape");
    v = v * 16 + (unsigned)h;
  }
  j->i += 4;
  *out = v;
  return true;
}

static void tl_nb__utf8(tl_buf *b, unsigned cp) {
  if (cp < 0x80) tl_buf_putc(b, (char)cp);
  else if (cp < 0x800) {
    tl_buf_putc(b, (char)(0xC0 | (cp >> 6)));
    tl_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    tl_buf_putc(b, (char)(0xE0 | (cp >> 12)));
    tl_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
    tl_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
  } else {
    tl_buf_putc(b, (char)(0xF0 | (cp >> 18)));
    tl_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
    tl_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
    tl_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
  }
}

/* A JSON string at j->i, decoded into b (NULL: skipped). */
static bool tl_nb__string(tl_nb__scan *j, tl_buf *b) {
  tl_nb__ws(j);
  if (j->i >= j->n || j->s[j->i] != '"') return tl_nb__fail(j, "expected a string");
  j->i++;
  while (j->i < j->n) {
    unsigned char c = (unsigned char)j->s[j->i];
    if (c == '"') {
      j->i++;
      return true;
    }
    if (c < 0x20) return tl_nb__fail(j, "control character in a string");
    if (c != '\\') {
      size_t k = j->i;
      while (k < j->n && j->s[k] != '"' && j->s[k] != '\\' && (unsigned char)j->s[k] >= 0x20) k++;
      if (b) tl_buf_put(b, j->s + j->i, k - j->i);
      j->i = k;
      continue;
    }
    if (++j->i >= j->n) break;
    char e = j->s[j->i++];
    unsigned cp;
    switch (e) {
    case '"': cp = '"'; break;
    case '\\': cp = '\\'; break;
    case '/': cp = '/'; break;
    case 'b': cp = '\b'; break;
    case 'f': cp = '\f'; break;
    case 'n': cp = '\n'; break;
    case 'r': cp = '\r'; break;
    case 't': cp = '\t'; break;
    case 'u':
      if (!tl_nb__u4(j, &cp)) return false;
      if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair */
        unsigned lo;
        if (j->i + 2 > j->n || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u') return tl_nb__fail(j, "lone surrogate");
        j->i += 2;
        if (!tl_nb__u4(j, &lo)) return false;
        if (lo < 0xDC00 || lo > 0xDFFF) return tl_nb__fail(j, "lone surrogate");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return tl_nb__fail(j, "lone surrogate");
      } else if (cp == 0) {
        return tl_nb__fail(j, "NUL character in a string");
      }
      break;
    default: j->i--; return tl_nb__fail(j, "bad escape in a string");
    }
    if (b) tl_nb__utf8(b, cp);
  }
  return tl_nb__fail(j, "unterminated string");
}

static bool tl_nb__value(tl_nb__scan *j, int depth);

/* Skips an object or array whose opening bracket is at j->i. */
static bool tl_nb__container(tl_nb__scan *j, int depth) {
  if (depth > TL_NB_MAX_DEPTH) return tl_nb__fail(j, "nested too deeply");
  char close = j->s[j->i] == '{' ? '}' : ']';
  bool obj = close == '}';
  j->i++;
  if (tl_nb__eat(j, close)) return true;
  do {
    if (obj && (!tl_nb__string(j, NULL) || !tl_nb__eat(j, ':'))) return tl_nb__fail(j, "expected `\"key\":`");
    if (!tl_nb__value(j, depth + 1)) return false;
  } while (tl_nb__eat(j, ','));
  return tl_nb__eat(j, close) || tl_nb__fail(j, obj ? "expected `,` or `}`" : "expected `,` or `]`");
}

static bool tl_nb__value(tl_nb__scan *j, int depth) {
  tl_nb__ws(j);
  if (j->i >= j->n) return tl_nb__fail(j, "unexpected end of the file");
  char c = j->s[j->i];
  if (c == '"') return tl_nb__string(j, NULL);
  if (c == '{' || c == '[') return tl_nb__container(j, depth);
  size_t k = j->i;
  while (k < j->n &&
         (strchr("+-.eE", j->s[k]) || (j->s[k] >= '0' && j->s[k] <= '9') || (j->s[k] >= 'a' && j->s[k] <= 'z')))
    k++;
  if (k == j->i) return tl_nb__fail(j, "expected a value");
  const char *w = j->s + j->i;
  size_t wn = k - j->i;
  bool lit = (wn == 4 && (!memcmp(w, "true", 4) || !memcmp(w, "null", 4))) || (wn == 5 && !memcmp(w, "false", 5)) ||
             (w[0] == '-' || (w[0] >= '0' && w[0] <= '9'));
  if (!lit) return tl_nb__fail(j, "expected a value");
  j->i = k;
  return true;
}

/* A cell's "source": a string or a list of strings, joined into b. */
static bool tl_nb__source(tl_nb__scan *j, tl_buf *b) {
  tl_nb__ws(j);
  if (j->i < j->n && j->s[j->i] == '"') return tl_nb__string(j, b);
  if (!tl_nb__eat(j, '[')) return tl_nb__fail(j, "a cell's `source` must be a string or a list of strings");
  if (tl_nb__eat(j, ']')) return true;
  do {
    if (!tl_nb__string(j, b)) return false;
  } while (tl_nb__eat(j, ','));
  return tl_nb__eat(j, ']') || tl_nb__fail(j, "expected `,` or `]`");
}

/* ---- magics ---- */

static size_t tl_nb__indent(const char *s, size_t n) {
  size_t k = 0;
  while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
  return k;
}

/* The length of a leading `name = ` / `a, b = ` before a shell or magic right-hand side, or 0. */
static size_t tl_nb__assign_prefix(const char *s, size_t n) {
  size_t k = 0;
  while (k < n && (s[k] == '_' || s[k] == '.' || s[k] == ',' || s[k] == ' ' || (s[k] >= 'a' && s[k] <= 'z') ||
                   (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9')))
    k++;
  if (k == 0 || k >= n || s[k] != '=' || (k + 1 < n && s[k + 1] == '=')) return 0;
  k++;
  while (k < n && s[k] == ' ') k++;
  return k < n && (s[k] == '!' || s[k] == '%') ? k : 0;
}

/* Appends one line of a code cell (without its newline), made Python. */
static void tl_nb__line(tl_buf *out, const char *s, size_t n) {
  size_t ind = tl_nb__indent(s, n);
  if (ind < n && (s[ind] == '%' || s[ind] == '!')) {
    tl_buf_put(out, s, ind);
    tl_buf_puts(out, "pass");
    return;
  }
  size_t a = tl_nb__assign_prefix(s + ind, n - ind);
  if (a) {
    tl_buf_put(out, s, ind + a);
    tl_buf_puts(out, "None");
    return;
  }
  tl_buf_put(out, s, n);
}

static bool tl_nb__python_cell_magic(const char *s, size_t n) {
  static const char *const ok[] = {"time", "timeit", "capture", "prun"};
  size_t k = 2;
  while (k < n && s[k] != ' ' && s[k] != '\t' && s[k] != '\n' && s[k] != '\r') k++;
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (k - 2 == strlen(ok[i]) && !memcmp(s + 2, ok[i], k - 2)) return true;
  return false;
}

/* Appends a code cell's source to the notebook's code, ending with a newline. */
static void tl_nb__cell(tl_buf *out, const char *src, size_t n) {
  size_t ind = tl_nb__indent(src, n);
  bool blank_all = n - ind >= 2 && src[ind] == '%' && src[ind + 1] == '%' &&
                   !tl_nb__python_cell_magic(src + ind, n - ind);
  size_t start = out->len;
  for (size_t i = 0; i < n;) {
    size_t e = i;
    while (e < n && src[e] != '\n' && src[e] != '\r') e++;
    if (!blank_all) tl_nb__line(out, src + i, e - i);
    if (e < n && src[e] == '\r' && e + 1 < n && src[e + 1] == '\n') e++;
    tl_buf_putc(out, '\n');
    i = e < n ? e + 1 : e;
  }
  if (out->len == start) tl_buf_putc(out, '\n'); /* an empty cell still has a line */
}

/* ---- the notebook ---- */

bool tl_notebook_path(const char *path) {
  size_t n = strlen(path);
  return n >= 6 && !strcmp(path + n - 6, ".ipynb");
}

tl_notebook *tl_notebook_parse(const char *json, size_t len, size_t *error_offset, char **message) {
  tl_nb__scan j = {json, len, 0, NULL, 0};
  tl_buf code = {0}, src = {0}, type = {0};
  TL_VEC(uint32_t) first = {0};
  TL_VEC(tl_notebook_cell) cells = {0};
  uint32_t line = 1;
  bool have_cells = false;
  if (len >= 3 && !memcmp(json, "\xEF\xBB\xBF", 3)) j.i = 3;
  if (!tl_nb__eat(&j, '{')) {
    tl_nb__fail(&j, "not a JSON object");
    goto fail;
  }
  bool empty_top = tl_nb__eat(&j, '}');
  if (!empty_top) do {
      tl_buf key = {0};
      bool ok = tl_nb__string(&j, &key) && tl_nb__eat(&j, ':');
      bool is_cells = ok && key.len == 5 && !memcmp(key.data, "cells", 5);
      tl_buf_free(&key);
      if (!ok) {
        tl_nb__fail(&j, "expected `\"key\":`");
        goto fail;
      }
      if (!is_cells) {
        if (!tl_nb__value(&j, 1)) goto fail;
        continue;
      }
      have_cells = true;
      if (!tl_nb__eat(&j, '[')) {
        tl_nb__fail(&j, "`cells` must be a list");
        goto fail;
      }
      if (tl_nb__eat(&j, ']')) continue;
      do { /* one cell */
        if (!tl_nb__eat(&j, '{')) {
          tl_nb__fail(&j, "a cell must be an object");
          goto fail;
        }
        src.len = type.len = 0;
        bool has_source = false;
        size_t src_start = 0, src_end = 0;
        bool empty_cell = tl_nb__eat(&j, '}');
        if (!empty_cell) do {
            tl_buf k = {0};
            bool kok = tl_nb__string(&j, &k) && tl_nb__eat(&j, ':');
            bool is_src = kok && k.len == 6 && !memcmp(k.data, "source", 6);
            bool is_type = kok && k.len == 9 && !memcmp(k.data, "cell_type", 9);
            tl_buf_free(&k);
            if (!kok) {
              tl_nb__fail(&j, "expected `\"key\":`");
              goto fail;
            }
            if (is_src) {
              src.len = 0;
              tl_nb__ws(&j);
              src_start = j.i;
              if (!tl_nb__source(&j, &src)) goto fail;
              src_end = j.i;
              has_source = true;
            } else if (is_type) {
              type.len = 0;
              if (!tl_nb__string(&j, &type)) goto fail;
            } else if (!tl_nb__value(&j, 2)) {
              goto fail;
            }
          } while (tl_nb__eat(&j, ','));
        if (!empty_cell && !tl_nb__eat(&j, '}')) {
          tl_nb__fail(&j, "expected `,` or `}`");
          goto fail;
        }
        if (type.len == 4 && !memcmp(type.data, "code", 4)) {
          tl_vec_push(&first, line);
          size_t before = code.len;
          tl_nb__cell(&code, has_source ? src.data : "", has_source ? src.len : 0);
          for (size_t k = before; k < code.len; k++)
            if (code.data[k] == '\n') line++;
          tl_notebook_cell c = {src_start,
                                src_end,
                                before,
                                code.len,
                                tl_strndup(has_source && src.data ? src.data : "", has_source ? src.len : 0),
                                has_source ? src.len : 0};
          tl_vec_push(&cells, c);
        }
      } while (tl_nb__eat(&j, ','));
      if (!tl_nb__eat(&j, ']')) {
        tl_nb__fail(&j, "expected `,` or `]`");
        goto fail;
      }
    } while (tl_nb__eat(&j, ','));
  if (!empty_top && !tl_nb__eat(&j, '}')) {
    tl_nb__fail(&j, "expected `,` or `}`");
    goto fail;
  }
  tl_nb__ws(&j);
  if (j.i < j.n) {
    tl_nb__fail(&j, "text after the notebook's JSON object");
    goto fail;
  }
  if (!have_cells) {
    j.i = 0;
    tl_nb__fail(&j, "no `cells` list: not a Jupyter notebook of nbformat 4");
    goto fail;
  }
  if (code.len > UINT32_MAX / 2) {
    j.i = 0;
    tl_nb__fail(&j, "the notebook's code is too large");
    goto fail;
  }
  tl_buf_free(&src);
  tl_buf_free(&type);
  tl_notebook *nb = tl_calloc(1, sizeof *nb);
  nb->len = code.len;
  nb->code = code.data ? tl_buf_take(&code) : tl_strdup("");
  nb->first = first.v;
  nb->ncells = (uint32_t)first.n;
  nb->cells = cells.v;
  nb->json = tl_strndup(json, len);
  nb->json_len = len;
  return nb;
fail:
  *error_offset = j.err_at;
  *message = tl_printf("not a valid notebook: %s", j.err ? j.err : "bad JSON");
  tl_buf_free(&code);
  tl_buf_free(&src);
  tl_buf_free(&type);
  tl_vec_free(&first);
  for (size_t k = 0; k < cells.n; k++) free(cells.v[k].source);
  tl_vec_free(&cells);
  return NULL;
}

void tl_notebook_locate(const tl_notebook *nb, uint32_t line, uint32_t *cell, uint32_t *cell_line) {
  uint32_t lo = 0, hi = nb->ncells; /* the last cell whose first line is <= line */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (nb->first[mid] <= line) lo = mid;
    else hi = mid;
  }
  if (nb->ncells == 0) {
    *cell = 0;
    *cell_line = line;
    return;
  }
  *cell = lo + 1;
  *cell_line = line >= nb->first[lo] ? line - nb->first[lo] + 1 : 1;
}

/* ---- writing fixes back ---- */

/* The byte offsets where the lines of t[0, n) start (a line ends at \n, \r\n or \r), and the
 * number of lines: a text that does not end with a line end has one more. */
static size_t tl_nb__lines(const char *t, size_t n, size_t **starts) {
  TL_VEC(size_t) v = {0};
  size_t z = 0;
  tl_vec_push(&v, z);
  for (size_t i = 0; i < n; i++) {
    if (t[i] == '\r' && i + 1 < n && t[i + 1] == '\n') i++;
    if ((t[i] == '\n' || t[i] == '\r') && i + 1 < n) tl_vec_push(&v, i + 1);
  }
  *starts = v.v;
  return v.n;
}

/* The length of the line at t[s..n) without its line end. */
static size_t tl_nb__line_len(const char *t, size_t n, size_t s) {
  size_t e = s;
  while (e < n && t[e] != '\n' && t[e] != '\r') e++;
  return e - s;
}

/* Appends s[0, n) as a JSON string (what nbformat writes: non-ASCII as is). */
static void tl_nb__json_string(tl_buf *b, const char *s, size_t n) {
  tl_buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"') tl_buf_puts(b, "\\\"");
    else if (c == '\\') tl_buf_puts(b, "\\\\");
    else if (c == '\n') tl_buf_puts(b, "\\n");
    else if (c == '\r') tl_buf_puts(b, "\\r");
    else if (c == '\t') tl_buf_puts(b, "\\t");
    else if (c < 0x20) tl_buf_printf(b, "\\u%04x", c);
    else tl_buf_putc(b, (char)c);
  }
  tl_buf_putc(b, '"');
}

/* A cell's new source as a JSON list of its lines, laid out as the old `source` value was: one
 * line per element on lines of their own with the old indentation, or all on one line. */
static void tl_nb__source_json(tl_buf *b, const tl_notebook *nb, const tl_notebook_cell *c, const char *s, size_t n) {
  const char *old = nb->json + c->json_start;
  size_t oldn = c->json_end - c->json_start;
  /* the indentation of the first element and of the closing bracket, when the old list had them */
  const char *ind = NULL, *close_ind = NULL;
  size_t indn = 0, close_indn = 0;
  if (oldn > 2 && old[0] == '[') {
    size_t k = 1;
    while (k < oldn && (old[k] == ' ' || old[k] == '\t' || old[k] == '\r')) k++;
    if (k < oldn && old[k] == '\n') {
      ind = old + k + 1;
      while (ind + indn < old + oldn && (ind[indn] == ' ' || ind[indn] == '\t')) indn++;
      size_t e = oldn - 1; /* the `]` */
      size_t q = e;
      while (q > 0 && (old[q - 1] == ' ' || old[q - 1] == '\t')) q--;
      if (q > 0 && old[q - 1] == '\n') {
        close_ind = old + q;
        close_indn = e - q;
      }
    }
  }
  tl_buf_putc(b, '[');
  size_t i = 0, count = 0;
  while (i < n) {
    size_t e = i;
    while (e < n && s[e] != '\n') e++;
    if (e < n) e++; /* keep the line's end, as nbformat does */
    if (count++) tl_buf_putc(b, ',');
    if (ind) {
      tl_buf_putc(b, '\n');
      tl_buf_put(b, ind, indn);
    } else if (count > 1) {
      tl_buf_putc(b, ' ');
    }
    tl_nb__json_string(b, s + i, e - i);
    i = e;
  }
  if (ind && count) {
    tl_buf_putc(b, '\n');
    if (close_ind) tl_buf_put(b, close_ind, close_indn);
  }
  tl_buf_putc(b, ']');
}

char *tl_notebook_apply(const tl_notebook *nb, const tl_edit *edits, size_t n, size_t *out_len, const char **why) {
  *why = NULL;
  tl_buf out = {0};
  size_t copied = 0; /* bytes of the JSON written so far */
  for (uint32_t ci = 0; ci < nb->ncells; ci++) {
    const tl_notebook_cell *c = &nb->cells[ci];
    TL_VEC(tl_edit) mine = {0};
    for (size_t k = 0; k < n; k++) {
      const tl_edit *ed = &edits[k];
      bool in = ed->start >= c->code_start && ed->start < c->code_end;
      if (!in) continue;
      if (ed->end > c->code_end) {
        *why = "the fix spans two cells";
        goto fail_cell;
      }
      tl_vec_push(&mine, *ed);
    }
    if (!mine.n) {
      tl_vec_free(&mine);
      continue;
    }
    if (c->json_end == c->json_start) {
      *why = "the cell has no `source` to rewrite";
      goto fail_cell;
    }
    {
      const char *code = nb->code + c->code_start;
      size_t codelen = c->code_end - c->code_start;
      size_t *cl = NULL, *sl = NULL;
      size_t ncl = tl_nb__lines(code, codelen, &cl), nsl = tl_nb__lines(c->source, c->source_len, &sl);
      /* each edit's offsets in the cell's source, through lines the magics did not change */
      TL_VEC(tl_edit) mapped = {0};
      for (size_t k = 0; k < mine.n && !*why; k++) {
        size_t pos[2] = {mine.v[k].start - c->code_start, mine.v[k].end - c->code_start}, res[2];
        for (int w = 0; w < 2 && !*why; w++) {
          size_t li = 0;
          while (li + 1 < ncl && cl[li + 1] <= pos[w]) li++;
          size_t col = pos[w] - cl[li];
          size_t clen = tl_nb__line_len(code, codelen, cl[li]);
          if (li >= nsl) {
            /* past the source's last line: only the end of the cell (its added newline) maps */
            if (pos[w] >= codelen - 1) res[w] = c->source_len;
            else *why = "the fix touches a line the notebook does not have";
            continue;
          }
          size_t slen = tl_nb__line_len(c->source, c->source_len, sl[li]);
          if (clen != slen || memcmp(code + cl[li], c->source + sl[li], clen)) {
            *why = "the fix touches a line with IPython syntax (a magic or a shell command)";
            continue;
          }
          res[w] = sl[li] + (col <= slen ? col : slen);
          if (col > slen) res[w] = sl[li] + slen + (sl[li] + slen < c->source_len ? 1 : 0); /* after its line end */
        }
        if (!*why) {
          tl_edit m = {(uint32_t)res[0], (uint32_t)res[1], mine.v[k].text};
          tl_vec_push(&mapped, m);
        }
      }
      free(cl);
      free(sl);
      if (*why) {
        tl_vec_free(&mapped);
        goto fail_cell;
      }
      /* apply back to front */
      for (size_t a = 1; a < mapped.n; a++)
        for (size_t b2 = a; b2 > 0 && mapped.v[b2].start > mapped.v[b2 - 1].start; b2--) {
          tl_edit t = mapped.v[b2];
          mapped.v[b2] = mapped.v[b2 - 1];
          mapped.v[b2 - 1] = t;
        }
      tl_buf src = {0};
      tl_buf_put(&src, c->source, c->source_len);
      for (size_t k = 0; k < mapped.n; k++) {
        const tl_edit *m = &mapped.v[k];
        if (m->end > src.len || m->start > m->end || (k && m->end > mapped.v[k - 1].start)) {
          *why = "the fix's edits overlap";
          break;
        }
        size_t tl = strlen(m->text);
        tl_buf rest = {0};
        tl_buf_put(&rest, src.data + m->end, src.len - m->end);
        src.len = m->start;
        tl_buf_put(&src, m->text, tl);
        tl_buf_put(&src, rest.data ? rest.data : "", rest.len);
        tl_buf_free(&rest);
      }
      tl_vec_free(&mapped);
      if (*why) {
        tl_buf_free(&src);
        goto fail_cell;
      }
      tl_buf_put(&out, nb->json + copied, c->json_start - copied);
      tl_nb__source_json(&out, nb, c, src.data ? src.data : "", src.len);
      copied = c->json_end;
      tl_buf_free(&src);
    }
    tl_vec_free(&mine);
    continue;
  fail_cell:
    tl_vec_free(&mine);
    tl_buf_free(&out);
    return NULL;
  }
  tl_buf_put(&out, nb->json + copied, nb->json_len - copied);
  *out_len = out.len;
  return out.data ? tl_buf_take(&out) : tl_strdup("");
}

void tl_notebook_free(tl_notebook *nb) {
  if (!nb) return;
  for (uint32_t i = 0; i < nb->ncells; i++) free(nb->cells[i].source);
  free(nb->cells);
  free(nb->json);
  free(nb->code);
  free(nb->first);
  free(nb);
}
