/* tl_baseline.c - baselines (known findings) and --diff-base (changed lines only). */
#include "tl_baseline.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tl_source.h"
#include "tl_util.h"

static const char *tl_baseline__rel(const char *p) {
  while (p[0] == '.' && p[1] == '/') p += 2;
  return p;
}

bool tl_baseline_write(const tl_analysis *a, const char *path, char **message) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "tool", "trainlint");
  cJSON_AddNumberToObject(root, "baseline_version", 1);
  cJSON *arr = cJSON_AddArrayToObject(root, "findings");
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", tl_rule_code(f->rule));
    cJSON_AddStringToObject(o, "path", tl_baseline__rel(f->path));
    cJSON_AddStringToObject(o, "fingerprint", f->fingerprint);
    cJSON_AddNumberToObject(o, "line", f->line); /* informative only: not used for matching */
    cJSON_AddItemToArray(arr, o);
  }
  char *s = cJSON_Print(root);
  cJSON_Delete(root);
  FILE *fp = fopen(path, "w");
  bool ok = fp && fputs(s, fp) >= 0 && fputc('\n', fp) != EOF;
  if (fp && fclose(fp) != 0) ok = false;
  if (!ok) *message = tl_printf("cannot write baseline %s: %s", path, strerror(errno));
  cJSON_free(s);
  return ok;
}

bool tl_baseline_filter(const tl_analysis *a, const char *path, bool *hidden, char **message) {
  tl_source src;
  size_t off;
  char *msg = NULL;
  if (tl_source_read(path, &src, &off, &msg) != TL_SOURCE_OK) {
    *message = tl_printf("cannot read baseline %s: %s", path, msg ? msg : "");
    free(msg);
    return false;
  }
  cJSON *root = cJSON_ParseWithLength(src.text, src.len);
  tl_source_free(&src);
  cJSON *arr = root ? cJSON_GetObjectItemCaseSensitive(root, "findings") : NULL;
  if (!cJSON_IsArray(arr)) {
    *message = tl_printf("%s: not a trainlint baseline (expected {\"findings\": [...]})", path);
    cJSON_Delete(root);
    return false;
  }
  size_t n = (size_t)cJSON_GetArraySize(arr);
  bool *used = tl_calloc(n + 1, sizeof *used);
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    size_t k = 0;
    for (cJSON *e = arr->child; e; e = e->next, k++) {
      if (used[k]) continue;
      const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "code"));
      const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path"));
      const char *fp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "fingerprint"));
      if (code && p && fp && !strcmp(code, tl_rule_code(f->rule)) && !strcmp(p, tl_baseline__rel(f->path)) &&
          !strcmp(fp, f->fingerprint)) {
        used[k] = true;
        hidden[i] = true;
        break;
      }
    }
  }
  free(used);
  cJSON_Delete(root);
  return true;
}

typedef struct {
  char *path;             /* absolute: the working tree's top, "/", git's path */
  TL_VEC(uint32_t) lines; /* pairs: first, last */
} tl_baseline__changed;

/* The standard output of a git command line (its errors dropped), without the last newline; false
 * when it cannot run or fails. */
static bool tl_baseline__git(const char *cmd, tl_buf *out) {
  char *full = tl_printf("%s 2>/dev/null", cmd);
  FILE *p = popen(full, "r");
  free(full);
  if (!p) return false;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) tl_buf_put(out, chunk, n);
  int st = pclose(p);
  if (out->len && out->data[out->len - 1] == '\n') out->data[--out->len] = 0;
  return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The top of the git working tree around the current directory (malloc'd), or NULL. */
static char *tl_baseline__top(void) {
  tl_buf top = {0};
  if (!tl_baseline__git("git rev-parse --show-toplevel", &top) || !top.len || strchr(top.data, '\'')) {
    tl_buf_free(&top);
    return NULL;
  }
  return tl_buf_take(&top);
}

bool tl_diff_base_check(const char *rev, char **message) {
  if (!rev[0] || rev[0] == '-' || strpbrk(rev, " \t\n'\"`$;|&<>\\")) {
    *message = tl_printf("--diff-base: not a revision: '%s'", rev);
    return false;
  }
  char *top = tl_baseline__top();
  if (!top) {
    *message = tl_printf("--diff-base %s: the current directory is not in a git working tree (or git cannot run)", rev);
    return false;
  }
  free(top);
  char *cmd = tl_printf("git rev-parse --verify --quiet '%s^{commit}'", rev);
  tl_buf out = {0};
  bool ok = tl_baseline__git(cmd, &out);
  free(cmd);
  tl_buf_free(&out);
  if (!ok) *message = tl_printf("--diff-base %s: no such commit in this repository", rev);
  return ok;
}

bool tl_diff_base_filter(const tl_analysis *a, const char *rev, bool *hidden, char **message) {
  if (!tl_diff_base_check(rev, message)) return false;
  char *top = tl_baseline__top();
  if (!top) {
    *message = tl_printf("--diff-base %s: the current directory is not in a git working tree", rev);
    return false;
  }
  /* the changed lines, with paths from the top of the working tree whatever the current directory */
  char *cmd = tl_printf("git -C '%s' -c core.quotePath=false diff --unified=0 --no-color --no-ext-diff '%s' --", top,
                        rev);
  tl_buf diff = {0}, untracked = {0};
  bool ok = tl_baseline__git(cmd, &diff);
  free(cmd);
  /* files git does not track yet (and does not ignore) are new: every line of them changed */
  cmd = tl_printf("git -C '%s' -c core.quotePath=false ls-files --others --exclude-standard", top);
  ok = tl_baseline__git(cmd, &untracked) && ok;
  free(cmd);
  TL_VEC(tl_baseline__changed) files = {0};
  for (char *line = diff.data; ok && line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (!strncmp(line, "+++ ", 4)) {
      const char *name = line + 4;
      if (!strncmp(name, "b/", 2)) name += 2;
      tl_baseline__changed c = {tl_concat(top, "/", name), {0}};
      tl_vec_push(&files, c);
    } else if (!strncmp(line, "@@ ", 3) && files.n) {
      const char *plus = strchr(line, '+');
      unsigned long start = plus ? strtoul(plus + 1, NULL, 10) : 0, count = 1;
      const char *comma = plus ? strpbrk(plus, ", ") : NULL;
      if (comma && *comma == ',') count = strtoul(comma + 1, NULL, 10);
      if (count) {
        tl_vec_push(&files.v[files.n - 1].lines, (uint32_t)start);
        tl_vec_push(&files.v[files.n - 1].lines, (uint32_t)(start + count - 1));
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  for (char *line = untracked.data; ok && line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    tl_baseline__changed c = {tl_concat(top, "/", line), {0}};
    tl_vec_push(&c.lines, 1);
    tl_vec_push(&c.lines, UINT32_MAX);
    tl_vec_push(&files, c);
    line = nl ? nl + 1 : NULL;
  }
  if (!ok) *message = tl_printf("--diff-base %s: git diff failed", rev);
  /* each finding's file by its real path, so that `check ../x`, `./a.py` and absolute paths all match */
  size_t nfiles = tl_analysis_file_count(a);
  char **real = tl_calloc(nfiles + 1, sizeof *real);
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    if (!ok) { /* nothing is known to be new */
      hidden[i] = true;
      continue;
    }
    if (f->file < nfiles && !real[f->file]) {
      char *r = realpath(f->path, NULL);
      real[f->file] = r ? r : tl_strdup(f->path);
    }
    const char *path = f->file < nfiles ? real[f->file] : f->path;
    bool touched = false;
    for (size_t k = 0; k < files.n && !touched; k++) {
      if (strcmp(files.v[k].path, path)) continue;
      for (size_t j = 0; j + 1 < files.v[k].lines.n && !touched; j += 2)
        touched = files.v[k].lines.v[j] <= f->stmt_last_line && f->stmt_first_line <= files.v[k].lines.v[j + 1];
    }
    if (!touched) hidden[i] = true;
  }
  for (size_t i = 0; i < nfiles; i++) free(real[i]);
  free(real);
  for (size_t k = 0; k < files.n; k++) {
    free(files.v[k].path);
    tl_vec_free(&files.v[k].lines);
  }
  tl_vec_free(&files);
  tl_buf_free(&diff);
  tl_buf_free(&untracked);
  free(top);
  return ok;
}
