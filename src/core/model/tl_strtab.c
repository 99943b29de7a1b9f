/* tl_strtab.c - a table of interned strings in an arena (tl_strtab.h). */
#include "tl_strtab.h"

#include <stdlib.h>
#include <string.h>

#include "tl_util.h"

#define TL_STRCHUNK_MIN 4096u

struct tl_strchunk {
  tl_strchunk *next;
  size_t used, size;
  char data[];
};

struct tl_strslot {
  const char *s; /* NULL: empty */
  uint32_t len, hash;
};

static uint32_t tl_strtab__hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static char *tl_strtab__store(tl_strtab *t, const char *s, size_t n) {
  tl_strchunk *c = t->chunks;
  if (!c || c->size - c->used < n + 1) {
    size_t size = n + 1 > TL_STRCHUNK_MIN ? n + 1 : TL_STRCHUNK_MIN;
    c = tl_malloc(sizeof *c + size);
    c->size = size;
    c->used = 0;
    c->next = t->chunks;
    t->chunks = c;
  }
  char *p = c->data + c->used;
  memcpy(p, s, n);
  p[n] = 0;
  c->used += n + 1;
  t->bytes += n + 1;
  return p;
}

static void tl_strtab__grow(tl_strtab *t) {
  size_t cap = t->cap ? t->cap * 2 : 256;
  struct tl_strslot *slots = tl_calloc(cap, sizeof *slots);
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slots[i].s) continue;
    size_t j = t->slots[i].hash & (cap - 1);
    while (slots[j].s) j = (j + 1) & (cap - 1);
    slots[j] = t->slots[i];
  }
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
}

const char *tl_strtab_intern(tl_strtab *t, const char *s, size_t n) {
  if ((t->count + 1) * 4 > t->cap * 3) tl_strtab__grow(t);
  uint32_t h = tl_strtab__hash(s, n);
  size_t j = h & (t->cap - 1);
  for (; t->slots[j].s; j = (j + 1) & (t->cap - 1))
    if (t->slots[j].hash == h && t->slots[j].len == n && !memcmp(t->slots[j].s, s, n)) return t->slots[j].s;
  t->slots[j].s = tl_strtab__store(t, s, n);
  t->slots[j].len = (uint32_t)n;
  t->slots[j].hash = h;
  t->count++;
  return t->slots[j].s;
}

const char *tl_strtab_take(tl_strtab *t, char *s) {
  if (!s) return NULL;
  const char *r = tl_strtab_intern(t, s, strlen(s));
  free(s);
  return r;
}

void tl_strtab_move(tl_strtab *to, tl_strtab *from) {
  *to = *from;
  memset(from, 0, sizeof *from);
}

void tl_strtab_free(tl_strtab *t) {
  for (tl_strchunk *c = t->chunks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(t->slots);
  memset(t, 0, sizeof *t);
}
