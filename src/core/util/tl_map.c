/* tl_map.c - string-keyed open-addressing hash map. */
#include "tl_map.h"
#include "tl_util.h"

#include <string.h>

static uint64_t tl_map__hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void tl_map__grow(tl_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 16;
  tl_map_entry *slots = tl_calloc(cap, sizeof *slots);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].key) continue;
    size_t j = tl_map__hash(m->slots[i].key) & (cap - 1);
    while (slots[j].key) j = (j + 1) & (cap - 1);
    slots[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
}

void tl_map_set(tl_map *m, const char *key, intptr_t value) {
  if ((m->count + 1) * 2 > m->cap) tl_map__grow(m);
  size_t j = tl_map__hash(key) & (m->cap - 1);
  while (m->slots[j].key) {
    if (strcmp(m->slots[j].key, key) == 0) {
      m->slots[j].value = value;
      return;
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->slots[j].key = tl_strdup(key);
  m->slots[j].value = value;
  m->count++;
}

int tl_map_get(const tl_map *m, const char *key, intptr_t *value) {
  if (!m->cap) return 0;
  size_t j = tl_map__hash(key) & (m->cap - 1);
  while (m->slots[j].key) {
    if (strcmp(m->slots[j].key, key) == 0) {
      if (value) *value = m->slots[j].value;
      return 1;
    }
    j = (j + 1) & (m->cap - 1);
  }
  return 0;
}

void tl_map_free(tl_map *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->slots[i].key);
  free(m->slots);
  m->slots = NULL;
  m->cap = m->count = 0;
}
