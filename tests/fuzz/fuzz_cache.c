/* fuzz_cache.c - libFuzzer harness: the body of a cache entry (tl_cache_decode), as a damaged or
 * crafted pack could hold it once its hashes match. The input is a text length (4 bytes, little
 * endian, taken modulo 64 KiB) and a body. A body that decodes and validates is then put through
 * the project pass (tl_project_analyze), which indexes arrays with what it holds: validation must
 * have caught every index and range out of bounds. A body that does not validate leaves the file
 * untouched.
 *
 * Seeds: with TL_FUZZ_CACHE_SEEDS=DIR set, the harness writes the bodies of the Python files given
 * after `--` (each analysed in memory) to DIR, each prefixed with its text's length, and exits. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tl_cache.h"
#include "tl_engine.h"

static tl_ruleset *rules;

/* Writes the seed of one Python file: its length, then the body of its phase 1 results. */
static void fuzz_cache__seed(const char *dir, const char *path, int n) {
  FILE *in = fopen(path, "rb");
  if (!in) return;
  tl_buf text = {0};
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, in)) > 0) tl_buf_put(&text, chunk, got);
  fclose(in);
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rules, &o);
  tl_analysis_add_text(a, "main.py", text.data ? text.data : "", text.len);
  tl_analysis_run(a);
  const tl_file *f = &a->files.v[0];
  if (f->ok) {
    tl_buf body = {0};
    uint32_t len = (uint32_t)f->len;
    tl_buf_put(&body, (const char *)&len, 4);
    tl_cache_encode(f, rules, &body);
    /* a seed decodes as it was written */
    tl_file back = {0};
    back.len = f->len;
    FUZZ_CHECK(tl_cache_decode(body.data + 4, body.len - 4, rules, &back));
    tl_file_reset(&back);
    char *out = tl_printf("%s/body_%03d", dir, n);
    FILE *fp = fopen(out, "wb");
    if (fp) {
      fwrite(body.data, 1, body.len, fp);
      fclose(fp);
    }
    free(out);
    tl_buf_free(&body);
  }
  tl_analysis_delete(a);
  tl_buf_free(&text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  rules = fuzz_all_rules();
  const char *dir = getenv("TL_FUZZ_CACHE_SEEDS");
  if (!dir) return 0;
  int n = 0;
  for (int i = 1, files = 0; i < *argc; i++) {
    if (files) fuzz_cache__seed(dir, (*argv)[i], n++);
    else files = !strcmp((*argv)[i], "--");
  }
  exit(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4 || size > 512 * 1024) return -1;
  uint32_t len;
  memcpy(&len, data, 4);
  len %= 64 * 1024;
  tl_file f = {0};
  f.path = tl_strdup("main.py");
  f.len = len;
  f.text = malloc((size_t)len + 1);
  for (uint32_t i = 0; i < len; i++) f.text[i] = i % 40 == 39 ? '\n' : 'x';
  f.text[len] = 0;
  if (tl_cache_decode((const char *)data + 4, size - 4, rules, &f)) {
    FUZZ_CHECK(f.ok && f.model.funcs.n > 0);
    tl_project pj = {0};
    tl_project_analyze(&pj, &f, 1, NULL);
    tl_project_free(&pj);
  } else {
    FUZZ_CHECK(!f.ok && f.model.funcs.n == 0 && f.cands.n == 0 && f.diags.n == 0);
  }
  tl_file_free(&f);
  return 0;
}
