/* fuzz_config.c - libFuzzer harness: a pyproject.toml (through a memfd, no temporary files) loaded and queried for every rule. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "tl_config.h"
#include "tl_output.h"
#include "trainlint.h"

static tl_ruleset *rules;
static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  rules = tl_ruleset_new();
  FUZZ_CHECK(tl_ruleset_add_builtin(rules));
  fd = memfd_create("pyproject.toml", MFD_CLOEXEC);
  FUZZ_CHECK(fd >= 0);
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return 0;
}

static const char *const files[] = {
    "train.py", "tests/test_x.py", "src/pkg/model.py", "/abs/train.py", "a b/ü.py", "", "../up.py", "deep/a/b/c/d.py",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 64 * 1024) return -1;
  FUZZ_CHECK(ftruncate(fd, 0) == 0);
  FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
  tl_diags d = {0};
  bool found = true;
  tl_config *c = tl_config_load(path, &found, &d);
  if (!c) {
    FUZZ_CHECK(d.n > 0); /* a refusal is always explained, with a position */
    for (size_t i = 0; i < d.n; i++) FUZZ_CHECK(d.v[i].level == TL_DIAG_ERROR && d.v[i].message);
  } else {
    FUZZ_CHECK(!strcmp(c->path, path) && c->dir);
    const char *cli[] = {"TL1", "ALL", "TL201"};
    for (size_t r = 0; r < tl_ruleset_count(rules); r++) {
      const tl_rule *rule = tl_ruleset_rule(rules, r);
      for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        tl_selection sel = {{(char **)cli, 1, 1}, {(char **)cli + 1, 1, 1}, {(char **)cli + 2, 1, 1}};
        (void)tl_config_enabled(c, rule, files[i], NULL);
        (void)tl_config_enabled(c, rule, files[i], &sel);
      }
    }
    if (c->severity.n) { /* on a ruleset of its own: the shared one stays as built */
      tl_ruleset *rs = tl_ruleset_new();
      FUZZ_CHECK(tl_ruleset_add_builtin(rs));
      for (size_t k = 0; k < c->severity.n; k++)
        tl_ruleset_set_severity(rs, c->severity.v[k].code, c->severity.v[k].severity);
      tl_ruleset_delete(rs);
    }
    tl_config_delete(c);
  }
  tl_output_diags(fuzz_devnull(), &d, false);
  tl_diags_free(&d);
  return 0;
}
