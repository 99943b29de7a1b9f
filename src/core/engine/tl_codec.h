/* tl_codec.h - the byte codec of the persistent cache (tl_cache.c, tl_results.c): one function per
 * structure both writes and reads it, so that the two directions cannot drift apart; reading
 * checks every count and length against the bytes left, and turns `bad` on instead of reading
 * past the end. And the 64-bit hash that keys and checks what the cache keeps.
 *
 * Ownership: a writing codec appends to the tl_buf it borrows; a reading codec borrows the bytes it
 * reads. Strings read are copied (tl_codec_ostr) or interned into the borrowed table (tl_codec_str). */
#ifndef TL_CODEC_H
#define TL_CODEC_H

#include "tl_engine.h"

typedef struct {
  bool load;                    /* reading (else writing) */
  tl_buf *out;                  /* writing */
  const unsigned char *p, *end; /* reading */
  bool bad;                     /* reading: past the end, or a value out of range */
  tl_strtab *strs;              /* reading: where strings are interned */
  const tl_ruleset *rs;
} tl_codec;

/* A 64-bit hash of n bytes, eight at a time; two seeds give two independent hashes. Not for
 * adversaries: what the cache keeps is also checked against paths, lengths and a second hash. */
uint64_t tl_hash64(const void *data, size_t n, uint64_t seed);

/* n plain bytes of v. */
void tl_codec_bytes(tl_codec *c, void *v, size_t n);
#define X_VAL(c, v) tl_codec_bytes((c), &(v), sizeof(v))
/* A count; when reading, false (and bad) unless that many elements of `size` bytes could follow. */
bool tl_codec_count(tl_codec *c, size_t *n, size_t size);
/* The bytes of a string; NULL is kept apart from "". Reading: a pointer into the bytes read and
 * its length (NULL for a NULL string). */
const char *tl_codec_text(tl_codec *c, const char *s, size_t *len);
/* A string interned into c->strs when read. */
void tl_codec_str(tl_codec *c, const char **s);
/* A malloc'd string. */
void tl_codec_ostr(tl_codec *c, char **s);
/* The count of a vector (TL_VEC) whose elements take at least `least` bytes each when written;
 * reading, the vector is made that long, zeroed. False when reading fails. */
bool tl_codec_room(tl_codec *c, size_t *n, size_t *cap, size_t least);
#define X_ROOM(c, vec, least) \
  (tl_codec_room((c), &(vec)->n, &(vec)->cap, (least)) && \
   (!(c)->load || ((vec)->v = (vec)->n ? tl_calloc((vec)->n, sizeof *(vec)->v) : NULL, true)))

/* A vector of plain values: its count, then its elements as they are in memory. */
#define X_VEC(c, vec) \
  do { \
    if (X_ROOM((c), (vec), sizeof *(vec)->v) && (vec)->n) tl_codec_bytes((c), (vec)->v, (vec)->n * sizeof *(vec)->v); \
  } while (0)

/* A vector of interned strings. */
#define X_STRS(c, vec) \
  do { \
    if (X_ROOM((c), (vec), 4)) \
      for (size_t i_ = 0; i_ < (vec)->n; i_++) tl_codec_str((c), &(vec)->v[i_]); \
  } while (0)

#endif
