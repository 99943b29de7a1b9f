/* tl_suppress.c - parsing and matching suppression comments. */
#include "tl_suppress.h"

#include <ctype.h>
#include <string.h>

/* Reads codes "TL101, TL2 ..." up to `stop` (or the end). */
static void tl_read_codes(tl_suppression *sp, const char *p, const char *end, char stop) {
  while (p < end && *p != stop) {
    while (p < end && (*p == ' ' || *p == ',' || *p == '\t')) p++;
    const char *c = p;
    while (p < end && (isupper((unsigned char)*p) || isdigit((unsigned char)*p))) p++;
    if (p == c) break;
    tl_vec_push(&sp->codes, tl_strndup(c, (size_t)(p - c)));
    tl_vec_push(&sp->used, false);
  }
}

void tl_suppress_parse(tl_suppressions *out, const char *text, size_t len, uint32_t start, uint32_t line, uint32_t col) {
  const char *end = text + len;
  tl_suppression sp = {line, col, start, start + (uint32_t)len, false, false, {0}, {0}};
  const char *p;
  if ((p = tl_ifind(text, len, "trainlint:"))) {
    p += 10;
    while (p < end && *p == ' ') p++;
    if ((size_t)(end - p) >= 11 && !strncmp(p, "ignore-file", 11)) { sp.file_level = true; p += 11; }
    else if ((size_t)(end - p) >= 6 && !strncmp(p, "ignore", 6)) p += 6;
    else return;
    if (p < end && *p == '[') tl_read_codes(&sp, p + 1, end, ']');
  } else if ((p = tl_ifind(text, len, "noqa"))) {
    /* `noqa` must stand as its own word */
    if (p > text && isalnum((unsigned char)p[-1])) return;
    p += 4;
    if (p < end && *p == ':') tl_read_codes(&sp, p + 1, end, '#');
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
    if (sp->all) { sp->used.v[0] = true; hit = true; continue; }
    for (size_t k = 0; k < sp->codes.n; k++)
      if (!strncmp(code, sp->codes.v[k], strlen(sp->codes.v[k]))) { sp->used.v[k] = true; hit = true; }
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
