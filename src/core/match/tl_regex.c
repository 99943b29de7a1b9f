/* tl_regex.c - running regular expressions (PCRE2) with limits, JIT and a quick no (tl_regex.h). */
#include "tl_regex.h"

#include <ctype.h>
#include <string.h>

void tl_regex_jit(pcre2_code *re) {
  if (re) (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* on failure the interpreter runs */
}

void tl_rx_pre_init(tl_rx_pre *p, const pcre2_code *re) {
  memset(p, 0, sizeof *p);
  if (!re) return;
  uint32_t minlen = 0, all = 0, fct = 0, fcu = 0;
  const uint8_t *bm = NULL;
  if (pcre2_pattern_info(re, PCRE2_INFO_MINLENGTH, &minlen) == 0) p->minlen = minlen;
  /* a first byte only for a regex that matches at the start alone and never matches nothing */
  if (p->minlen == 0 || pcre2_pattern_info(re, PCRE2_INFO_ALLOPTIONS, &all) != 0 || !(all & PCRE2_ANCHORED)) return;
  if (pcre2_pattern_info(re, PCRE2_INFO_FIRSTBITMAP, (void *)&bm) == 0 && bm) {
    memcpy(p->first, bm, sizeof p->first);
    p->first_known = true;
  } else if (pcre2_pattern_info(re, PCRE2_INFO_FIRSTCODETYPE, &fct) == 0 && fct == 1 &&
             pcre2_pattern_info(re, PCRE2_INFO_FIRSTCODEUNIT, &fcu) == 0 && fcu < 256) {
    /* the unit may be caseless (PCRE2 does not tell): allow both cases of a letter */
    p->first[fcu >> 3] |= (uint8_t)(1u << (fcu & 7));
    if (isalpha((int)fcu)) {
      unsigned o = (unsigned)(isupper((int)fcu) ? tolower((int)fcu) : toupper((int)fcu));
      p->first[o >> 3] |= (uint8_t)(1u << (o & 7));
    }
    p->first_known = true;
  }
}

int tl_regex_match(const pcre2_code *re, const char *s, size_t n, uint32_t options, pcre2_match_data *md,
                   pcre2_match_context *mctx) {
  int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, options, md, mctx);
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT)
    rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, options | PCRE2_NO_JIT, md, mctx);
  return rc;
}
