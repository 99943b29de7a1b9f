/* tl_codec.c - the byte codec and the hash of the persistent cache (tl_codec.h). */
#include "tl_codec.h"

#include <string.h>

static uint64_t tl_hash64__mix(uint64_t h) { /* the finaliser of MurmurHash3 */
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t tl_hash64(const void *data, size_t n, uint64_t seed) {
  const unsigned char *p = data;
  uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ (w * 0x87c37b91114253d5ULL)) * 0x4cf5ad432745937fULL;
    h = (h << 31) | (h >> 33);
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  if (n) memcpy(&w, p, n);
  h ^= w * 0x87c37b91114253d5ULL;
  return tl_hash64__mix(h);
}

/* n plain bytes of v. */
void tl_codec_bytes(tl_codec *c, void *v, size_t n) {
  if (!c->load) {
    tl_buf_put(c->out, v, n);
    return;
  }
  if (c->bad || (size_t)(c->end - c->p) < n) {
    c->bad = true;
    memset(v, 0, n);
    return;
  }
  memcpy(v, c->p, n);
  c->p += n;
}

bool tl_codec_count(tl_codec *c, size_t *n, size_t size) {
  uint32_t v = (uint32_t)*n;
  X_VAL(c, v);
  if (!c->load) return true;
  if (c->bad || (uint64_t)v * (size ? size : 1) > (uint64_t)(c->end - c->p)) {
    c->bad = true;
    return false;
  }
  *n = v;
  return true;
}

const char *tl_codec_text(tl_codec *c, const char *s, size_t *len) {
  uint32_t n = !c->load && s ? (uint32_t)strlen(s) + 1 : 0; /* reading: s is not looked at */
  X_VAL(c, n);
  if (!c->load) {
    if (n) tl_buf_put(c->out, s, n - 1);
    return NULL;
  }
  if (!n || c->bad || (size_t)(c->end - c->p) < n - 1) {
    c->bad = c->bad || n;
    return NULL;
  }
  const char *t = (const char *)c->p;
  c->p += n - 1;
  *len = n - 1;
  return t;
}

void tl_codec_str(tl_codec *c, const char **s) {
  size_t n;
  const char *t = tl_codec_text(c, *s, &n);
  if (c->load) *s = t ? tl_strtab_intern(c->strs, t, n) : NULL;
}

void tl_codec_ostr(tl_codec *c, char **s) {
  size_t n;
  const char *t = tl_codec_text(c, *s, &n);
  if (c->load) *s = t ? tl_strndup(t, n) : NULL;
}

bool tl_codec_room(tl_codec *c, size_t *n, size_t *cap, size_t least) {
  size_t k = *n;
  if (!tl_codec_count(c, &k, least)) return false;
  if (c->load) *n = *cap = k;
  return true;
}
