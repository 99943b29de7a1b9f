/* test_rules_shared.c - patterns of the same structure run once in the query (their predicates are
 * checked on the first one's matches) and binding predicates: the same findings as separate
 * patterns, in every rule, whatever the predicates say and wherever they are written. */
#include <stdlib.h>
#include <string.h>

#include "tl_rules.h"
#include "tl_test.h"
#include "trainlint.h"

static const char *rule_a = /* two patterns of one structure in one rule, predicates inside the node */
    "---\ncode: TLA01\nname: a\nhot: none\nmessage: \"a {{fn}}\"\n---\n```query\n"
    "; a comment with ( and \" in it\n"
    "((call function: (identifier) @fn) @finding (#eq? @fn \"foo\"))\n"
    "((call\n   function: (identifier) @fn\n   (#match? @fn \"^ba[r;(]$\")) @finding)\n"
    "```\n";
static const char *rule_b = /* the same structure in another rule, and one that differs by a capture name */
    "---\ncode: TLB01\nname: b\nhot: none\nmessage: \"b {{finding}}\"\n---\n```query\n"
    "((call function: (identifier) @fn) @finding (#any-of? @fn \"foo\" \"baz\"))\n"
    "((call function: (identifier) @name) @finding (#eq? @name \"qux\"))\n"
    "```\n";
static const char *rule_c = /* a keyword argument reaching its call with #parent!/#field! */
    "---\ncode: TLC01\nname: c\nhot: none\nmessage: \"c {{callee}}\"\n---\n```query\n"
    "((keyword_argument name: (identifier) @k) @finding\n"
    " (#eq? @k \"lr\")\n (#parent! @finding @args \"argument_list\")\n (#parent! @args @call \"call\")\n"
    " (#field! @call \"function\" @callee))\n"
    "```\n";

static const char *rule_d = /* the same structure; a predicate equal to TLA01's but negated: not shared */
    "---\ncode: TLD01\nname: d\nhot: none\nmessage: \"d {{fn}}\"\n---\n```query\n"
    "((call function: (identifier) @fn) @finding (#not-eq? @fn \"foo\") (#not-eq? @fn \"qux\"))\n"
    "```\n";

static const char *src = "foo()\n"
                         "bar()\n"
                         "baz()\n"
                         "qux()\n"
                         "opt = SGD(p, lr=0.1)\n"
                         "class K(Base, lr=2):\n"
                         "    pass\n";

static char *run(tl_ruleset *rs) {
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, "m.py", src, strlen(src));
  tl_analysis_run(a);
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    tl_buf_printf(&b, "%u:%u %s %s\n", f->line, f->col, tl_rule_code(f->rule), f->message);
  }
  tl_analysis_delete(a);
  return tl_buf_take(&b);
}

int main(void) {
  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_text(rs, "a.md", rule_a, strlen(rule_a)));
  CHECK(tl_ruleset_add_text(rs, "b.md", rule_b, strlen(rule_b)));
  CHECK(tl_ruleset_add_text(rs, "c.md", rule_c, strlen(rule_c)));
  CHECK(tl_ruleset_add_text(rs, "d.md", rule_d, strlen(rule_d)));
  const char *all[] = {"ALL"};
  tl_ruleset_select(rs, all, 1, NULL, 0);
  CHECK(tl_ruleset_compile(rs));
  CHECK_INT(tl_ruleset_diag_count(rs), 0);

  /* The query: the declaration of bound captures, then TLA01's two patterns (one structure: the
   * second is a holder), TLB01's first (a holder of the same structure) and its second (another
   * capture name: its own structure), TLC01's. Three patterns run; the structure shared by three
   * rules' patterns has two members. */
  size_t members = 0;
  for (uint32_t p = 0; p < rs->patterns.n; p++) members += rs->patterns.v[p].members.n;
  CHECK_INT(rs->patterns.n, 7);
  CHECK_INT(members, 3);

  char *got = run(rs);
  CHECK_STR(got, "1:1 TLA01 a foo\n"
                 "1:1 TLB01 b foo()\n"
                 "2:1 TLA01 a bar\n"
                 "2:1 TLD01 d bar\n"
                 "3:1 TLB01 b baz()\n"
                 "3:1 TLD01 d baz\n"
                 "4:1 TLB01 b qux()\n"
                 "5:7 TLD01 d SGD\n"
                 "5:14 TLC01 c SGD\n");
  free(got);

  /* Each rule alone gives the same findings (no sharing across rules then). */
  const char *only[] = {"TLB01"};
  tl_ruleset_select(rs, only, 1, NULL, 0);
  CHECK(tl_ruleset_compile(rs));
  got = run(rs);
  CHECK_STR(got, "1:1 TLB01 b foo()\n3:1 TLB01 b baz()\n4:1 TLB01 b qux()\n");
  free(got);

  tl_ruleset_delete(rs);

  /* The built-in rules share structures too (a rule text the splitter could not follow would
   * make the whole query fall back to plain concatenation, with no members). */
  rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs));
  tl_ruleset_select(rs, all, 1, NULL, 0);
  CHECK(tl_ruleset_compile(rs));
  members = 0;
  for (uint32_t p = 0; p < rs->patterns.n; p++) members += rs->patterns.v[p].members.n;
  fprintf(stderr, "built-in rules: %zu patterns, %zu of them checked with a twin's matches\n", rs->patterns.n, members);
  CHECK(members > 0);
  tl_ruleset_delete(rs);
  TEST_DONE();
}
