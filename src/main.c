/* main.c - the trainlint command line: parses the options into a tl_cli and runs a subcommand
 * (tl_cli_*.c; `server` is the language server, tl_lsp.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_cli.h"
#include "tl_lsp.h"

static void usage(FILE *out) {
  fputs("usage: trainlint check [options] PATH...   analyse Python files and directories\n"
        "       trainlint config [PATH]             the effective settings for PATH (default .)\n"
        "       trainlint rules [--all]             list the rules\n"
        "       trainlint explain CODE              show a rule's documentation\n"
        "       trainlint server [--stdio]          run the language server (LSP on stdio; docs/editors.md)\n"
        "       trainlint version\n"
        "\n"
        "check options:\n"
        "  --format FORMAT              text (default), concise, json, sarif, github, gitlab\n"
        "  --output FILE                write the findings to FILE instead of standard output\n"
        "  --statistics                 print the number of findings per rule instead\n"
        "  --quiet                      no summary line, no warnings about inputs (errors still)\n"
        "  --report-unused-suppressions also report `# noqa` comments that suppress nothing\n"
        "  --add-noqa                   add `# noqa: CODE` comments for the current findings\n"
        "  --baseline FILE              report only findings not recorded in FILE\n"
        "  --write-baseline FILE        record the current findings in FILE (JSON) and exit 0\n"
        "  --diff-base REV              report only findings on lines changed since git revision REV\n"
        "  --diff                       print the fixes as a unified diff instead of findings\n"
        "  --fix                        apply safe fixes in place (atomic, refuses changed files)\n"
        "  --unsafe-fixes               also apply/show fixes marked unsafe\n"
        "  --select CODES               enable only these codes or prefixes (comma-separated; ALL)\n"
        "  --ignore CODES               disable these codes or prefixes\n"
        "  --rules DIR                  also load the rule files (*.md) of DIR\n"
        "  --config FILE                use this pyproject.toml for every file (default: the nearest\n"
        "                               pyproject.toml with a [tool.trainlint] table above each file)\n"
        "  --exclude GLOB               skip paths matching GLOB (repeatable)\n"
        "  -j, --jobs N                 threads (default: all cores)\n"
        "  --exit-zero                  exit 0 even when there are findings\n"
        "  --no-source                  text format: do not print source lines\n"
        "  --show-fixes                 text format: print each finding's fix as a diff\n"
        "  --color auto|always|never    colour (default auto: only on a terminal, not with NO_COLOR)\n"
        "\n"
        "exit status: 0 no findings, 1 findings, 2 usage error, bad rule file, or an input that\n"
        "could not be analysed (unreadable, binary, invalid UTF-8).\n",
        out);
}

static void split_codes(const char *s, void *vec) {
  TL_VEC(char *) *v = vec;
  char *copy = tl_strdup(s), *save = NULL;
  for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) tl_vec_push(v, tl_strdup(t));
  free(copy);
}

int main(int argc, char **argv) {
  tl_cli c = {0};
  c.color = -1;
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "server")) return tl_lsp_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("trainlint %s\n", TL_VERSION);
    return 0;
  }
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (fprintf(stderr, "trainlint: %s needs a value\n", a), tl_cli_free(&c), exit(2), ""))
    if (!strcmp(a, "--format")) {
      const char *v = NEXT();
      if (!tl_format_parse(v, &c.format)) {
        fprintf(stderr, "trainlint: unknown format '%s' (", v);
        for (int f = 0; tl_format_name((tl_format)f); f++) fprintf(stderr, "%s%s", f ? ", " : "", tl_format_name((tl_format)f));
        fprintf(stderr, ")\n");
        tl_cli_free(&c);
        return 2;
      }
    } else if (!strcmp(a, "--diff")) c.diff = true;
    else if (!strcmp(a, "--fix")) c.fix = true;
    else if (!strcmp(a, "--unsafe-fixes")) c.unsafe = true;
    else if (!strcmp(a, "--exit-zero")) c.exit_zero = true;
    else if (!strcmp(a, "--no-source")) c.no_source = true;
    else if (!strcmp(a, "--show-fixes")) c.show_fixes = true;
    else if (!strcmp(a, "--statistics")) c.statistics = true;
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) c.quiet = true;
    else if (!strcmp(a, "--report-unused-suppressions")) c.unused_supp = true;
    else if (!strcmp(a, "--add-noqa")) c.add_noqa = true;
    else if (!strcmp(a, "--output") || !strcmp(a, "-o")) { free(c.output); c.output = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--baseline")) { free(c.baseline); c.baseline = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--write-baseline")) { free(c.write_baseline); c.write_baseline = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--diff-base")) { free(c.diff_base); c.diff_base = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--config")) { free(c.config); c.config = tl_strdup(NEXT()); }
    else if (!strcmp(a, "--all")) c.all = true;
    else if (!strcmp(a, "--select")) split_codes(NEXT(), &c.select);
    else if (!strcmp(a, "--ignore")) split_codes(NEXT(), &c.ignore);
    else if (!strcmp(a, "--exclude")) tl_vec_push(&c.excludes, tl_strdup(NEXT()));
    else if (!strcmp(a, "--rules")) tl_vec_push(&c.rule_dirs, tl_strdup(NEXT()));
    else if (!strcmp(a, "-j") || !strcmp(a, "--jobs") || (!strncmp(a, "-j", 2) && a[2] >= '0' && a[2] <= '9')) {
      const char *v = a[1] == 'j' && a[2] ? a + 2 : NEXT(); /* -j4, or -j 4 and --jobs 4 */
      char *end;
      long j = strtol(v, &end, 10);
      if (*end || j < 0 || j > 1024) { fprintf(stderr, "trainlint: bad --jobs value '%s'\n", v); tl_cli_free(&c); return 2; }
      c.jobs = (unsigned)j;
    } else if (!strcmp(a, "--color")) {
      const char *v = NEXT();
      c.color = !strcmp(v, "always") ? 1 : !strcmp(v, "never") ? 0 : !strcmp(v, "auto") ? -1 : -2;
      if (c.color == -2) { fprintf(stderr, "trainlint: --color takes auto, always or never\n"); tl_cli_free(&c); return 2; }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "trainlint: unknown option '%s'\n", a);
      usage(stderr);
      tl_cli_free(&c);
      return 2;
    } else {
      tl_vec_push(&c.paths, tl_strdup(a));
    }
#undef NEXT
  }
  int rc;
  if (!strcmp(cmd, "check")) rc = tl_cli_check(&c);
  else if (!strcmp(cmd, "config")) rc = tl_cli_config(&c);
  else if (!strcmp(cmd, "rules")) rc = tl_cli_rules(&c);
  else if (!strcmp(cmd, "explain")) rc = tl_cli_explain(&c);
  else {
    fprintf(stderr, "trainlint: unknown command '%s'\n", cmd);
    usage(stderr);
    rc = 2;
  }
  tl_cli_free(&c);
  return rc;
}
