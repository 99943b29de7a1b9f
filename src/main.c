/* main.c - the trainlint command line: parses the options into a tl_cli and runs a subcommand
 * (tl_cli_*.c; `server` is the language server, tl_lsp.c). */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_cli.h"
#include "tl_lsp.h"

/* How an option sets its field of tl_cli. */
typedef enum {
  TL_MAIN__FLAG,   /* bool: true */
  TL_MAIN__TEXT,   /* char *: the value (a later one wins) */
  TL_MAIN__LIST,   /* tl_strvec: the value is appended */
  TL_MAIN__CODES,  /* tl_strvec: the comma- or space-separated codes of the value are appended */
  TL_MAIN__FORMAT, /* tl_format: by name */
  TL_MAIN__JOBS,   /* unsigned: 0 to 1024; also spelled -jN */
  TL_MAIN__COLOR,  /* int: auto -1, never 0, always 1 */
  TL_MAIN__SIZE,   /* size_t: bytes, with a K, M or G suffix (KiB, MiB, GiB); 1 KiB to 1 GiB */
  TL_MAIN__LEVEL,  /* int: a severity by name (info, warning, error), plus 1 */
} tl_main__kind;

/* The options, in the order --help lists them under "check options". `shown` is their spelling in
 * --help (NULL: not listed); a help text's second line starts under the first. */
static const struct {
  const char *name, *alias;
  tl_main__kind kind;
  size_t field; /* offsetof(tl_cli, ...) */
  const char *shown, *help;
} tl_main__options[] = {
    {"--format", "--output-format", TL_MAIN__FORMAT, offsetof(tl_cli, format), "--format FORMAT",
     "text (default), concise, json, sarif, github, gitlab\n(also spelled --output-format)"},
    {"--output", "-o", TL_MAIN__TEXT, offsetof(tl_cli, output), "--output FILE",
     "write the findings to FILE instead of standard output"},
    {"--statistics", NULL, TL_MAIN__FLAG, offsetof(tl_cli, statistics), "--statistics",
     "print the number of findings per rule instead"},
    {"--quiet", "-q", TL_MAIN__FLAG, offsetof(tl_cli, quiet), "--quiet",
     "no summary line, no warnings about inputs (errors still)"},
    {"--report-unused-suppressions", NULL, TL_MAIN__FLAG, offsetof(tl_cli, unused_supp), "--report-unused-suppressions",
     "also report `# noqa` comments that suppress nothing\n(TL001; the same as --extend-select TL001)"},
    {"--add-noqa", NULL, TL_MAIN__FLAG, offsetof(tl_cli, add_noqa), "--add-noqa",
     "add `# noqa: CODE` comments for the current findings"},
    {"--baseline", NULL, TL_MAIN__TEXT, offsetof(tl_cli, baseline), "--baseline FILE",
     "report only findings not recorded in FILE"},
    {"--write-baseline", NULL, TL_MAIN__TEXT, offsetof(tl_cli, write_baseline), "--write-baseline FILE",
     "record the current findings in FILE (JSON) and exit 0"},
    {"--diff-base", NULL, TL_MAIN__TEXT, offsetof(tl_cli, diff_base), "--diff-base REV",
     "report only findings on lines changed since git revision REV"},
    {"--diff", NULL, TL_MAIN__FLAG, offsetof(tl_cli, diff), "--diff",
     "print the fixes as a unified diff instead of findings"},
    {"--fix", NULL, TL_MAIN__FLAG, offsetof(tl_cli, fix), "--fix",
     "apply safe fixes in place (atomic, refuses changed files)"},
    {"--unsafe-fixes", NULL, TL_MAIN__FLAG, offsetof(tl_cli, unsafe), "--unsafe-fixes",
     "also apply/show fixes marked unsafe"},
    {"--select", NULL, TL_MAIN__CODES, offsetof(tl_cli, select), "--select CODES",
     "enable only these codes or prefixes (comma-separated; ALL)"},
    {"--extend-select", NULL, TL_MAIN__CODES, offsetof(tl_cli, extend_select), "--extend-select CODES",
     "enable these codes or prefixes as well"},
    {"--ignore", "--extend-ignore", TL_MAIN__CODES, offsetof(tl_cli, ignore), "--ignore CODES",
     "disable these codes or prefixes (also spelled --extend-ignore)"},
    {"--rules", NULL, TL_MAIN__LIST, offsetof(tl_cli, rule_dirs), "--rules DIR",
     "also load the rule files (*.md) of DIR"},
    {"--stdin-filename", NULL, TL_MAIN__TEXT, offsetof(tl_cli, stdin_filename), "--stdin-filename NAME",
     "with the path -: the source read from standard input is\nNAME's (its name in the report, its configuration)"},
    {"--show-files", NULL, TL_MAIN__FLAG, offsetof(tl_cli, show_files), "--show-files",
     "list the files that would be analysed, and stop"},
    {"--show-settings", NULL, TL_MAIN__FLAG, offsetof(tl_cli, show_settings), "--show-settings",
     "print the settings for the first path (as `trainlint config`)"},
    {"--config", NULL, TL_MAIN__TEXT, offsetof(tl_cli, config), "--config FILE",
     "use this pyproject.toml for every file (default: the nearest\n"
     "pyproject.toml with a [tool.trainlint] table above each file)"},
    {"--exclude", NULL, TL_MAIN__LIST, offsetof(tl_cli, excludes), "--exclude GLOB",
     "skip paths matching GLOB (repeatable)"},
    {"--no-cache", "-n", TL_MAIN__FLAG, offsetof(tl_cli, no_cache), "--no-cache",
     "neither read nor write the cache (also TRAINLINT_NO_CACHE=1)"},
    {"--cache-dir", NULL, TL_MAIN__TEXT, offsetof(tl_cli, cache_dir), "--cache-dir DIR",
     "keep the cache in DIR (default: TRAINLINT_CACHE_DIR, else\n.trainlint_cache beside the project's pyproject.toml, else\nin the current directory; docs/cache.md)"},
    {"--jobs", "-j", TL_MAIN__JOBS, offsetof(tl_cli, jobs), "-j, --jobs N", "threads (default: all cores)"},
    {"--max-file-size", NULL, TL_MAIN__SIZE, offsetof(tl_cli, max_file_bytes), "--max-file-size SIZE",
     "refuse files larger than SIZE bytes (K, M, G suffixes;\ndefault 16M, at most 1G)"},
    {"--min-severity", NULL, TL_MAIN__LEVEL, offsetof(tl_cli, min_severity), "--min-severity LEVEL",
     "report only findings of LEVEL or above (info, warning, error)"},
    {"--fail-on", NULL, TL_MAIN__LEVEL, offsetof(tl_cli, fail_severity), "--fail-on LEVEL",
     "exit 1 only for findings of LEVEL or above (default: any)"},
    {"--exit-zero", NULL, TL_MAIN__FLAG, offsetof(tl_cli, exit_zero), "--exit-zero",
     "exit 0 even when there are findings"},
    {"--no-source", NULL, TL_MAIN__FLAG, offsetof(tl_cli, no_source), "--no-source",
     "text format: do not print source lines"},
    {"--show-fixes", NULL, TL_MAIN__FLAG, offsetof(tl_cli, show_fixes), "--show-fixes",
     "text format: print each finding's fix as a diff"},
    {"--color", NULL, TL_MAIN__COLOR, offsetof(tl_cli, color), "--color auto|always|never",
     "colour (default auto: only on a terminal, not with NO_COLOR)"},
    {"--all", NULL, TL_MAIN__FLAG, offsetof(tl_cli, all), NULL, NULL}, /* rules --all */
};

static int tl_main__help(int argc, char **argv);
static int tl_main__version(int argc, char **argv);

/* The subcommands, in the order --help lists them (`args` NULL: not listed). A command runs with
 * the parsed options (run) or with its own arguments, argv[0] being its name (run_argv). */
static const struct {
  const char *name, *args, *help;
  int (*run)(tl_cli *c);
  int (*run_argv)(int argc, char **argv);
} tl_main__commands[] = {
    {"check", "[options] PATH...", "analyse Python files and directories", tl_cli_check, NULL},
    {"config", "[PATH]", "the effective settings for PATH (default .)", tl_cli_config, NULL},
    {"rules", "[--all]", "list the rules", tl_cli_rules, NULL},
    {"explain", "CODE", "show a rule's documentation", tl_cli_explain, NULL},
    {"test-rules", "DIR", "run the `# ruleid:`/`# ok:` fixtures of DIR's rules", tl_cli_test_rules, NULL},
    {"server", "[--stdio]", "run the language server (LSP on stdio; docs/editors.md)", NULL, tl_lsp_main},
    {"version", "", NULL, NULL, tl_main__version},
    {"--version", NULL, NULL, NULL, tl_main__version},
    {"-V", NULL, NULL, NULL, tl_main__version},
    {"help", NULL, NULL, NULL, tl_main__help},
    {"-h", NULL, NULL, NULL, tl_main__help},
    {"--help", NULL, NULL, NULL, tl_main__help},
};

#define TL_MAIN__COUNT(t) (sizeof(t) / sizeof((t)[0]))

static void tl_main__usage(FILE *out) {
  const char *lead = "usage: ";
  for (size_t i = 0; i < TL_MAIN__COUNT(tl_main__commands); i++) {
    if (!tl_main__commands[i].args) continue;
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", tl_main__commands[i].name, *tl_main__commands[i].args ? " " : "",
             tl_main__commands[i].args);
    if (tl_main__commands[i].help) fprintf(out, "%strainlint %-26s%s\n", lead, left, tl_main__commands[i].help);
    else fprintf(out, "%strainlint %s\n", lead, left);
    lead = "       ";
  }
  fputs("\ncheck options:\n", out);
  for (size_t i = 0; i < TL_MAIN__COUNT(tl_main__options); i++) {
    if (!tl_main__options[i].shown) continue;
    const char *h = tl_main__options[i].help;
    fprintf(out, "  %-28s ", tl_main__options[i].shown);
    for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1) fprintf(out, "%.*s\n%31s", (int)(nl - h), h, "");
    fprintf(out, "%s\n", h);
  }
  fputs("\n"
        "exit status: 0 no findings, 1 findings, 2 usage error, bad rule file, or an input that\n"
        "could not be analysed (unreadable, binary, invalid UTF-8).\n",
        out);
}

static int tl_main__help(int argc, char **argv) {
  tl_main__usage(stdout);
  return 0;
}

static int tl_main__version(int argc, char **argv) {
  printf("trainlint %s\n", TL_VERSION);
  return 0;
}

/* Appends the codes of "TL1,TL201 tl3" to `list`, in upper case (codes are case-insensitive). */
static void tl_main__split_codes(const char *s, tl_strvec *list) {
  char *copy = tl_strdup(s), *save = NULL;
  for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
    char *code = tl_strdup(t);
    tl_config_code_upper(code);
    tl_vec_push(list, code);
  }
  free(copy);
}

/* Sets the option at argv[*i] (and its value, argv[*i + 1] unless attached) in `c`. Returns false
 * after printing the error. */
static bool tl_main__option(tl_cli *c, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  size_t k = 0;
  const char *attached = NULL; /* -j4, --jobs=4 */
  const char *eq = !strncmp(a, "--", 2) ? strchr(a, '=') : NULL;
  size_t alen = eq ? (size_t)(eq - a) : strlen(a);
  for (; k < TL_MAIN__COUNT(tl_main__options); k++) {
    const char *alias = tl_main__options[k].alias;
    if (eq && ((strlen(tl_main__options[k].name) == alen && !strncmp(a, tl_main__options[k].name, alen)) ||
               (alias && alias[1] == '-' && strlen(alias) == alen && !strncmp(a, alias, alen)))) {
      attached = eq + 1; /* --opt=value, as with --opt value */
      break;
    }
    if (!strcmp(a, tl_main__options[k].name) || (alias && !strcmp(a, alias))) break;
    if (tl_main__options[k].kind == TL_MAIN__JOBS && !strncmp(a, alias, 2) && isdigit((unsigned char)a[2])) {
      attached = a + 2;
      break;
    }
  }
  if (k == TL_MAIN__COUNT(tl_main__options)) {
    fprintf(stderr, "trainlint: unknown option '%s'\n", a);
    tl_main__usage(stderr);
    return false;
  }
  void *field = (char *)c + tl_main__options[k].field;
  tl_main__kind kind = tl_main__options[k].kind;
  if (kind == TL_MAIN__FLAG) {
    if (attached) {
      fprintf(stderr, "trainlint: %.*s takes no value\n", (int)alen, a);
      return false;
    }
    *(bool *)field = true;
    return true;
  }
  const char *v = attached;
  if (!v && *i + 1 >= argc) {
    fprintf(stderr, "trainlint: %s needs a value\n", a);
    return false;
  }
  if (!v) v = argv[++*i];
  switch (kind) {
  case TL_MAIN__TEXT:
    free(*(char **)field);
    *(char **)field = tl_strdup(v);
    return true;
  case TL_MAIN__LIST: tl_vec_push((tl_strvec *)field, tl_strdup(v)); return true;
  case TL_MAIN__CODES: tl_main__split_codes(v, field); return true;
  case TL_MAIN__FORMAT:
    if (tl_format_parse(v, field)) return true;
    fprintf(stderr, "trainlint: unknown format '%s' (", v);
    for (int f = 0; tl_format_name((tl_format)f); f++)
      fprintf(stderr, "%s%s", f ? ", " : "", tl_format_name((tl_format)f));
    fprintf(stderr, ")\n");
    return false;
  case TL_MAIN__SIZE: {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned long long unit = !*end                                      ? 1
                              : (!strcmp(end, "K") || !strcmp(end, "k")) ? 1024ull
                              : (!strcmp(end, "M") || !strcmp(end, "m")) ? 1024ull * 1024
                              : (!strcmp(end, "G") || !strcmp(end, "g")) ? 1024ull * 1024 * 1024
                                                                         : 0;
    if (errno || end == v || !isdigit((unsigned char)v[0]) || !unit || n > (1ull << 30) / unit || n * unit < 1024) {
      fprintf(stderr, "trainlint: bad --max-file-size value '%s' (bytes, or with K, M or G: 1K to 1G)\n", v);
      return false;
    }
    *(size_t *)field = (size_t)(n * unit);
    return true;
  }
  case TL_MAIN__JOBS: {
    char *end;
    long j = strtol(v, &end, 10);
    if (*end || j < 0 || j > 1024) {
      fprintf(stderr, "trainlint: bad --jobs value '%s'\n", v);
      return false;
    }
    *(unsigned *)field = (unsigned)j;
    return true;
  }
  case TL_MAIN__COLOR: {
    int color = !strcmp(v, "always") ? 1 : !strcmp(v, "never") ? 0 : !strcmp(v, "auto") ? -1 : -2;
    if (color == -2) {
      fprintf(stderr, "trainlint: --color takes auto, always or never\n");
      return false;
    }
    *(int *)field = color;
    return true;
  }
  case TL_MAIN__LEVEL: {
    int level = !strcmp(v, "info")      ? TL_SEVERITY_INFO
                : !strcmp(v, "warning") ? TL_SEVERITY_WARNING
                : !strcmp(v, "error")   ? TL_SEVERITY_ERROR
                                        : -1;
    if (level < 0) {
      fprintf(stderr, "trainlint: %s takes info, warning or error\n", a);
      return false;
    }
    *(int *)field = level + 1;
    return true;
  }
  case TL_MAIN__FLAG: break;
  }
  return true;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    tl_main__usage(stderr);
    return 2;
  }
  size_t cmd = 0;
  while (cmd < TL_MAIN__COUNT(tl_main__commands) && strcmp(argv[1], tl_main__commands[cmd].name)) cmd++;
  bool known = cmd < TL_MAIN__COUNT(tl_main__commands);
  /* `trainlint check --help`, `rules -h`: the usage, on stdout (before the command reads options) */
  for (int i = 2; known && i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return tl_main__help(argc - 1, argv + 1);
  if (known && tl_main__commands[cmd].run_argv) return tl_main__commands[cmd].run_argv(argc - 1, argv + 1);
  tl_cli c = {0};
  c.color = -1;
  int rc = 0;
  for (int i = 2; i < argc && !rc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) rc = tl_main__option(&c, argc, argv, &i) ? 0 : 2;
    else tl_vec_push(&c.paths, tl_strdup(argv[i]));
  }
  if (!rc && known) rc = tl_main__commands[cmd].run(&c);
  else if (!rc) {
    fprintf(stderr, "trainlint: unknown command '%s'\n", argv[1]);
    tl_main__usage(stderr);
    rc = 2;
  }
  tl_cli_free(&c);
  return rc;
}
