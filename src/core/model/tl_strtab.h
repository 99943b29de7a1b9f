/* tl_strtab.h - a table of interned strings in an arena (as Lua's lstring.c interns its short
 * strings): each distinct text is stored once, NUL-terminated, in chunks that never move, so the
 * pointers it hands out stay valid until the table is freed and equal texts get equal pointers.
 * A file's model keeps its names here (tl_file_model.strs). */
#ifndef TL_STRTAB_H
#define TL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct tl_strchunk tl_strchunk;

typedef struct {
  tl_strchunk *chunks;      /* newest first */
  size_t bytes;             /* text stored, terminators included */
  struct tl_strslot *slots; /* open addressing, by hash */
  size_t cap, count;
} tl_strtab;

/* The interned copy of s[0, n) (which need not be NUL-terminated): owned by the table. */
const char *tl_strtab_intern(tl_strtab *t, const char *s, size_t n);
/* The interned copy of a malloc'd string, which is freed; NULL stays NULL. */
const char *tl_strtab_take(tl_strtab *t, char *s);
/* Moves every string of `from` into `to` (which must be empty): pointers into `from` stay valid,
 * now owned by `to`; `from` is left empty. */
void tl_strtab_move(tl_strtab *to, tl_strtab *from);
/* Frees every string of the table (pointers into it become invalid) and empties it. */
void tl_strtab_free(tl_strtab *t);

#endif
