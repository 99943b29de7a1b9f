/* tl_regex.h - running regular expressions (PCRE2): JIT when PCRE2 can, the interpreter when the
 * JIT stops at one of its own limits, and a quick no from PCRE2's own analysis of a pattern. */
#ifndef TL_REGEX_H
#define TL_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* Limits of every regex match (user rules' regexes included): PCRE2's backtracking steps and depth. */
#define TL_REGEX_MATCH_LIMIT 100000u
#define TL_REGEX_DEPTH_LIMIT 2000u

/* Rule regexes are JIT-compiled (tl_regex_jit) when PCRE2 can; tl_regex_match runs the JIT code
 * and, when the JIT stops at one of its own limits (match limit, JIT stack), runs the
 * interpreter, so that a verdict never depends on whether JIT was available. */
void tl_regex_jit(pcre2_code *re);
/* What PCRE2's own analysis of a regex (pcre2_pattern_info) says every match needs: at least
 * `minlen` characters and, for an anchored regex, a first byte among `first`. tl_rx_may is false
 * only when the regex cannot match a text: a quick no before a match call, which costs several
 * hundred instructions even on a short name. */
typedef struct {
  uint32_t minlen;
  bool first_known;
  uint8_t first[32]; /* bit b: a match may start with byte b */
} tl_rx_pre;
void tl_rx_pre_init(tl_rx_pre *p, const pcre2_code *re);
static inline bool tl_rx_may(const tl_rx_pre *p, const char *s, size_t n) {
  if (n < p->minlen) return false; /* n bytes hold at most n characters */
  if (p->first_known) {
    unsigned char b = (unsigned char)s[0]; /* n >= minlen >= 1 */
    return (p->first[b >> 3] >> (b & 7)) & 1;
  }
  return true;
}
/* `options`: pcre2_match options (PCRE2_NO_UTF_CHECK for text already checked). */
int tl_regex_match(const pcre2_code *re, const char *s, size_t n, uint32_t options, pcre2_match_data *md,
                   pcre2_match_context *mctx);

#endif
