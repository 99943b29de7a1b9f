/* tl_suppress.c - suppression comments: parsing and matching them, and the edit that adds a code
 * to a line's comment (--add-noqa, the editor's "Suppress" action). */
#include "tl_suppress.h"

#include <ctype.h>
#include <string.h>

/* Reads codes "TL101, TL2 ..." up to `stop` (or the end). */
static void tl_suppress__read_codes(tl_suppression *sp, const char *p, const char *end, char stop) {
  while (p < end && *p != stop) {
    while (p < end && (*p == ' ' || *p == ',' || *p == '\t')) p++;
    const char *c = p;
    while (p < end && (isupper((unsigned char)*p) || isdigit((unsigned char)*p))) p++;
    if (p == c) break;
    tl_vec_push(&sp->codes, tl_strndup(c, (size_t)(p - c)));
    tl_vec_push(&sp->used, false);
  }
}

void tl_suppress_parse(tl_suppressions *out, const char *text, size_t len, uint32_t start, uint32_t line,
                       uint32_t col) {
  const char *end = text + len;
  tl_suppression sp = {line, col, start, start + (uint32_t)len, false, false, {0}, {0}};
  const char *p;
  if ((p = tl_ifind(text, len, "trainlint:"))) {
    p += 10;
    while (p < end && *p == ' ') p++;
    if ((size_t)(end - p) >= 11 && !strncmp(p, "ignore-file", 11)) {
      sp.file_level = true;
      p += 11;
    } else if ((size_t)(end - p) >= 6 && !strncmp(p, "ignore", 6)) p += 6;
    else return;
    if (p < end && *p == '[') tl_suppress__read_codes(&sp, p + 1, end, ']');
  } else if ((p = tl_ifind(text, len, "noqa"))) {
    /* `noqa` must stand as its own word */
    if (p > text && isalnum((unsigned char)p[-1])) return;
    p += 4;
    if (p < end && *p == ':') tl_suppress__read_codes(&sp, p + 1, end, '#');
    else if (p < end && isalnum((unsigned char)*p)) return;
  } else {
    return;
  }
  if (!sp.codes.n) {
    sp.all = true;
    tl_vec_push(&sp.used, false);
  }
  tl_vec_push(out, sp);
}

bool tl_suppress_match(tl_suppressions *s, const char *code, uint32_t first, uint32_t last) {
  bool hit = false;
  for (size_t i = 0; i < s->n; i++) {
    tl_suppression *sp = &s->v[i];
    if (!sp->file_level && (sp->line < first || sp->line > last)) continue;
    if (sp->all) {
      sp->used.v[0] = true;
      hit = true;
      continue;
    }
    for (size_t k = 0; k < sp->codes.n; k++)
      if (!strncmp(code, sp->codes.v[k], strlen(sp->codes.v[k]))) {
        sp->used.v[k] = true;
        hit = true;
      }
  }
  return hit;
}

void tl_suppress_free(tl_suppressions *s) {
  for (size_t i = 0; i < s->n; i++) {
    for (size_t k = 0; k < s->v[i].codes.n; k++) free(s->v[i].codes.v[k]);
    tl_vec_free(&s->v[i].codes);
    tl_vec_free(&s->v[i].used);
  }
  tl_vec_free(s);
}

/* Where a comment starts on [s, e) (outside string literals), or UINT32_MAX. */
static uint32_t tl_suppress__comment_start(const char *text, uint32_t s, uint32_t e) {
  char q = 0;
  bool triple = false;
  for (uint32_t i = s; i < e; i++) {
    char c = text[i];
    if (q) {
      if (c == '\\') {
        i++;
        continue;
      }
      if (c == q && (!triple || (i + 2 < e && text[i + 1] == q && text[i + 2] == q))) {
        if (triple) i += 2;
        q = 0;
      }
      continue;
    }
    if (c == '#') return i;
    if (c == '\'' || c == '"') {
      q = c;
      triple = i + 2 < e && text[i + 1] == c && text[i + 2] == c;
      if (triple) i += 2;
    }
  }
  return UINT32_MAX;
}

bool tl_suppress_add(const char *text, size_t len, const tl_lines *lines, uint32_t line, const char *codes,
                     tl_edit *edit) {
  if (!line || line > lines->count) return false;
  uint32_t s = lines->starts[line - 1];
  uint32_t e = line < lines->count ? lines->starts[line] : (uint32_t)len;
  while (e > s && (text[e - 1] == '\n' || text[e - 1] == '\r')) e--;
  uint32_t c = tl_suppress__comment_start(text, s, e);
  if (c != UINT32_MAX) {
    const char *cs = text + c, *ce = text + e;
    const char *p = tl_ifind(cs, (size_t)(ce - cs), "trainlint:");
    if (p) {
      p += 10;
      while (p < ce && *p == ' ') p++;
      if ((size_t)(ce - p) >= 6 && !strncmp(p, "ignore", 6) && (p + 6 == ce || p[6] == '[' || p[6] == ' ')) {
        const char *open = p + 6 < ce && p[6] == '[' ? p + 6 : NULL;
        const char *close = open ? memchr(open, ']', (size_t)(ce - open)) : NULL;
        if (!close) return false; /* `# trainlint: ignore` suppresses every code */
        edit->start = edit->end = (uint32_t)(close - text);
        edit->text = tl_printf(close > open + 1 ? ", %s" : "%s", codes);
        return true;
      }
    }
    p = tl_ifind(cs, (size_t)(ce - cs), "noqa");
    if (p && !(p > cs && isalnum((unsigned char)p[-1]))) {
      const char *colon = p + 4;
      if (colon >= ce || *colon != ':') return false; /* a bare `# noqa` suppresses every code */
      const char *last = NULL;
      for (p = colon + 1;;) {
        while (p < ce && (*p == ' ' || *p == ',' || *p == '\t')) p++;
        const char *st = p;
        while (p < ce && (isupper((unsigned char)*p) || isdigit((unsigned char)*p))) p++;
        if (p == st) break;
        last = p;
      }
      edit->start = edit->end = (uint32_t)((last ? last : colon + 1) - text);
      edit->text = tl_printf(last ? ", %s" : " %s", codes);
      return true;
    }
  }
  uint32_t trimmed = e;
  while (trimmed > s && (text[trimmed - 1] == ' ' || text[trimmed - 1] == '\t')) trimmed--;
  edit->start = trimmed;
  edit->end = e;
  edit->text = tl_printf("  # noqa: %s", codes);
  return true;
}

/* The code list of a directive at [p, end) (up to `stop`): [*first, *last) from its first code's
 * start to its last code's end; both p when it lists none. Reads as tl_suppress__read_codes. */
static void tl_suppress__code_span(const char *p, const char *end, char stop, const char **first, const char **last) {
  *first = *last = p;
  bool any = false;
  while (p < end && *p != stop) {
    while (p < end && (*p == ' ' || *p == ',' || *p == '\t')) p++;
    const char *c = p;
    while (p < end && (isupper((unsigned char)*p) || isdigit((unsigned char)*p))) p++;
    if (p == c) break;
    if (!any) *first = c;
    any = true;
    *last = p;
  }
}

bool tl_suppress_unused_edit(const char *text, size_t len, const tl_suppression *sp, const bool *unused, tl_edit *edit,
                             uint32_t *range_start, uint32_t *range_end) {
  size_t ncodes = sp->all ? 1 : sp->codes.n, nunused = 0;
  for (size_t k = 0; k < ncodes; k++) nunused += unused[k];
  if (!nunused || sp->end > len || sp->start >= sp->end || text[sp->start] != '#') return false;
  const char *cs = text + sp->start, *ce = text + sp->end;
  while (ce > cs && (ce[-1] == '\r' || ce[-1] == ' ' || ce[-1] == '\t')) ce--;
  /* the directive [word, de): as tl_suppress_parse found it; its codes [first, last) */
  const char *word, *de, *first, *last, *p;
  bool bracket = false;
  if ((word = tl_ifind(cs, (size_t)(ce - cs), "trainlint:"))) {
    p = word + 10;
    while (p < ce && *p == ' ') p++;
    if ((size_t)(ce - p) >= 11 && !strncmp(p, "ignore-file", 11)) p += 11;
    else if ((size_t)(ce - p) >= 6 && !strncmp(p, "ignore", 6)) p += 6;
    else return false;
    de = p;
    first = last = p;
    if (p < ce && *p == '[') {
      const char *close = memchr(p, ']', (size_t)(ce - p));
      if (!close) return false;
      tl_suppress__code_span(p + 1, close, ']', &first, &last);
      if (first == p + 1 && last == p + 1) first = last = close;
      de = close + 1;
      bracket = true;
    }
  } else if ((word = tl_ifind(cs, (size_t)(ce - cs), "noqa"))) {
    if (word > cs && isalnum((unsigned char)word[-1])) return false;
    de = first = last = word + 4;
    if (de < ce && *de == ':') {
      tl_suppress__code_span(de + 1, ce, '#', &first, &last);
      if (first == de + 1 && last == de + 1) first = last = de + 1;
      de = last > de + 1 ? last : de + 1;
    }
  } else {
    return false;
  }
  *range_start = (uint32_t)(word - text);
  *range_end = (uint32_t)(de - text);
  if (nunused < ncodes) { /* some codes stay: write the list again without the unused ones */
    tl_buf b = {0};
    if (!bracket) tl_buf_putc(&b, ' ');
    bool sep = false;
    for (size_t k = 0; k < ncodes; k++) {
      if (unused[k]) continue;
      if (sep) tl_buf_puts(&b, ", ");
      tl_buf_puts(&b, sp->codes.v[k]);
      sep = true;
    }
    edit->start = (uint32_t)((bracket ? first : word + 5) - text); /* noqa's codes follow `noqa:` */
    edit->end = (uint32_t)(last - text);
    edit->text = tl_buf_take(&b);
    return true;
  }
  /* the whole directive goes; `hash` is its own `#` when only blanks stand between them */
  const char *hash = word;
  while (hash > cs && (hash[-1] == ' ' || hash[-1] == '\t')) hash--;
  hash = hash > cs && hash[-1] == '#' ? hash - 1 : NULL;
  const char *q = de;
  while (q < ce && (*q == ' ' || *q == '\t')) q++;
  const char *from, *to;
  if (q < ce) { /* something follows: another comment (`# type: ignore`) or prose */
    from = hash && *q == '#' ? hash : word;
    to = q;
  } else { /* the comment ends with it: the blanks before it go too */
    from = hash ? hash : word;
    while (from > text && (from[-1] == ' ' || from[-1] == '\t')) from--;
    to = text + sp->end;
    while (to > de && to[-1] == '\r') to--;
    if (hash && (from == text || from[-1] == '\n' || from[-1] == '\r')) { /* a line of its own: the line goes */
      while (to < text + len && *to != '\n') to++;
      if (to < text + len) to++;
    }
  }
  edit->start = (uint32_t)(from - text);
  edit->end = (uint32_t)(to - text);
  edit->text = tl_strdup("");
  return true;
}
