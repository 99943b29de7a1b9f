/* tl_builtin.h - the rules embedded at build time (see cmake/embed_rules.cmake). */
#ifndef TL_BUILTIN_H
#define TL_BUILTIN_H

typedef struct {
  const char *path; /* "rules/TL101-sync-in-hot-path.md"; NULL ends the table */
  const char *text;
  unsigned len;
} tl_builtin_rule;

extern const tl_builtin_rule tl_builtin_rules[];
extern const unsigned tl_builtin_rule_count;

#endif
