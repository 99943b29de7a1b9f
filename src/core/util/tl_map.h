/* tl_map.h - a string-keyed hash map (open addressing) holding pointer-sized values. */
#ifndef TL_MAP_H
#define TL_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  char *key; /* owned copy */
  intptr_t value;
} tl_map_entry;

typedef struct {
  tl_map_entry *slots;
  size_t cap, count;
} tl_map;

/* Sets key -> value (replacing an existing value). The key is copied. */
void tl_map_set(tl_map *m, const char *key, intptr_t value);
/* Returns true and sets *value when the key is present. */
int tl_map_get(const tl_map *m, const char *key, intptr_t *value);
void tl_map_free(tl_map *m);

#endif
