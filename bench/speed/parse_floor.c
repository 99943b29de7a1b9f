/* parse_floor.c - the parse-only floor for trainlint's speed benchmark.
 *
 * usage: tl_parse_floor [-j N] PATH...
 *
 * Collects the files named and the *.py files below the directories named, then for each file:
 * reads it, parses it with tree-sitter-python and walks the whole tree once with a TSTreeCursor,
 * visiting every node (named and anonymous). Nothing else: no rules, no model, no output per file.
 * With -j N it runs N threads, each with its own parser, taking files from a shared atomic counter
 * (the same scheme as trainlint's pool), so it can be compared with `trainlint check -j N`.
 *
 * It prints the totals: files, lines, bytes, nodes visited, files whose tree holds a syntax error,
 * files that could not be read, and the wall time of the parse phase. Exit status 0, or 1 when a
 * file could not be read or parsed, 2 on a usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

typedef struct {
  char **v;
  size_t n, cap;
} path_list;

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) {
    fputs("tl_parse_floor: out of memory\n", stderr);
    exit(2);
  }
  return p;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(xrealloc(NULL, n), s, n);
}

static void push(path_list *l, char *p) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 1024;
    l->v = xrealloc(l->v, l->cap * sizeof *l->v);
  }
  l->v[l->n++] = p;
}

static int is_py(const char *name) {
  size_t n = strlen(name);
  return n >= 3 && strcmp(name + n - 3, ".py") == 0;
}

static size_t walk_errors;

/* Recurses into `dir`, adding its *.py regular files. Symbolic links to directories are not
 * followed (no loops); links to files are taken like files. */
static void collect_dir(const char *dir, path_list *out) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "%s: cannot read directory: %s\n", dir, strerror(errno));
    walk_errors++;
    return;
  }
  struct dirent *de;
  while ((de = readdir(d))) {
    const char *nm = de->d_name;
    if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0))) continue;
    size_t len = strlen(dir) + 1 + strlen(nm) + 1;
    char *p = xrealloc(NULL, len);
    snprintf(p, len, "%s/%s", dir, nm);
    struct stat lst, st;
    if (lstat(p, &lst) != 0) {
      free(p);
      continue;
    }
    if (S_ISDIR(lst.st_mode)) {
      collect_dir(p, out);
      free(p);
    } else if (is_py(nm) && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
      push(out, p);
    } else {
      free(p);
    }
  }
  closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
  uint64_t files, lines, bytes, nodes, syntax_errors, read_errors;
} totals;

typedef struct {
  const path_list *files;
  atomic_size_t next;
} job;

typedef struct {
  job *job;
  totals t;
} worker;

/* Reads the whole file into a NUL-terminated buffer; returns NULL (errno set) on failure. */
static char *read_file(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return NULL;
  }
  size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
  char *buf = xrealloc(NULL, cap);
  for (;;) {
    if (n + 1 >= cap) {
      cap *= 2;
      buf = xrealloc(buf, cap);
    }
    ssize_t r = read(fd, buf + n, cap - 1 - n);
    if (r < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      free(buf);
      close(fd);
      errno = e;
      return NULL;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = 0;
  *len = n;
  return buf;
}

static uint64_t count_lines(const char *s, size_t n) {
  uint64_t lines = 0;
  const char *p = s, *end = s + n;
  while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
    lines++;
    p++;
  }
  if (n && s[n - 1] != '\n') lines++; /* a last line without its newline */
  return lines;
}

/* Visits every node of the tree once, depth first, and returns how many. */
static uint64_t walk_tree(TSTreeCursor *c) {
  uint64_t nodes = 1; /* the root */
  for (;;) {
    if (ts_tree_cursor_goto_first_child(c) || ts_tree_cursor_goto_next_sibling(c)) {
      nodes++;
      continue;
    }
    for (;;) {
      if (!ts_tree_cursor_goto_parent(c)) return nodes;
      if (ts_tree_cursor_goto_next_sibling(c)) {
        nodes++;
        break;
      }
    }
  }
}

static void *worker_main(void *arg) {
  worker *w = arg;
  const path_list *files = w->job->files;
  TSParser *parser = ts_parser_new();
  if (!ts_parser_set_language(parser, tree_sitter_python())) {
    fputs("tl_parse_floor: grammar/library ABI mismatch\n", stderr);
    exit(2);
  }
  for (;;) {
    size_t i = atomic_fetch_add(&w->job->next, 1);
    if (i >= files->n) break;
    const char *path = files->v[i];
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) {
      fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
      w->t.read_errors++;
      continue;
    }
    if (len > UINT32_MAX) {
      fprintf(stderr, "%s: larger than 4 GiB: skipped\n", path);
      w->t.read_errors++;
      free(text);
      continue;
    }
    ts_parser_reset(parser);
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
    if (!tree) {
      fprintf(stderr, "%s: not parsed\n", path);
      w->t.read_errors++;
      free(text);
      continue;
    }
    TSNode root = ts_tree_root_node(tree);
    TSTreeCursor c = ts_tree_cursor_new(root);
    w->t.nodes += walk_tree(&c);
    ts_tree_cursor_delete(&c);
    if (ts_node_has_error(root)) w->t.syntax_errors++;
    ts_tree_delete(tree);
    w->t.files++;
    w->t.bytes += len;
    w->t.lines += count_lines(text, len);
    free(text);
  }
  ts_parser_delete(parser);
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f) {
  fputs("usage: tl_parse_floor [-j N] PATH...\n"
        "  parse every file named and every *.py below the directories named with tree-sitter-python\n"
        "  and walk each tree once with a cursor; print files, lines, bytes and nodes visited.\n"
        "  -j N  threads (default 1; 0 means one per online CPU)\n",
        f);
}

int main(int argc, char **argv) {
  long jobs = 1;
  path_list files = {0};
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
      char *end;
      if (i + 1 >= argc) {
        usage(stderr);
        return 2;
      }
      jobs = strtol(argv[++i], &end, 10);
      if (*end || jobs < 0 || jobs > 1024) {
        fprintf(stderr, "tl_parse_floor: bad -j value '%s'\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(a, "--")) {
      i++;
      break;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "tl_parse_floor: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else {
      break;
    }
  }
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  if (jobs == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    jobs = n > 0 ? n : 1;
  }
  for (; i < argc; i++) {
    const char *arg = argv[i];
    struct stat st;
    if (stat(arg, &st) != 0) {
      fprintf(stderr, "%s: %s\n", arg, strerror(errno));
      walk_errors++;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      size_t first = files.n;
      size_t n = strlen(arg);
      while (n > 1 && arg[n - 1] == '/') n--;
      char *root = xstrdup(arg);
      root[n] = 0;
      collect_dir(root, &files);
      free(root);
      if (files.n - first > 1) qsort(files.v + first, files.n - first, sizeof *files.v, cmp_str);
    } else {
      push(&files, xstrdup(arg));
    }
  }

  size_t nt = (size_t)jobs;
  if (nt > files.n) nt = files.n ? files.n : 1;
  job jb = {&files, 0};
  worker *ws = calloc(nt, sizeof *ws);
  pthread_t *tids = calloc(nt, sizeof *tids);
  if (!ws || !tids) {
    fputs("tl_parse_floor: out of memory\n", stderr);
    return 2;
  }
  double t0 = now_s();
  for (size_t k = 0; k < nt; k++) {
    ws[k].job = &jb;
    int e = pthread_create(&tids[k], NULL, worker_main, &ws[k]);
    if (e) {
      fprintf(stderr, "tl_parse_floor: cannot start thread %zu: %s\n", k, strerror(e));
      return 2;
    }
  }
  totals t = {0};
  for (size_t k = 0; k < nt; k++) {
    pthread_join(tids[k], NULL);
    t.files += ws[k].t.files;
    t.lines += ws[k].t.lines;
    t.bytes += ws[k].t.bytes;
    t.nodes += ws[k].t.nodes;
    t.syntax_errors += ws[k].t.syntax_errors;
    t.read_errors += ws[k].t.read_errors;
  }
  double secs = now_s() - t0;

  printf("threads %zu\n", nt);
  printf("files %llu\n", (unsigned long long)t.files);
  printf("lines %llu\n", (unsigned long long)t.lines);
  printf("bytes %llu\n", (unsigned long long)t.bytes);
  printf("nodes %llu\n", (unsigned long long)t.nodes);
  printf("syntax_error_files %llu\n", (unsigned long long)t.syntax_errors);
  printf("unreadable %llu\n", (unsigned long long)(t.read_errors + walk_errors));
  printf("parse_seconds %.3f\n", secs);

  for (size_t k = 0; k < files.n; k++) free(files.v[k]);
  free(files.v);
  free(ws);
  free(tids);
  return t.read_errors || walk_errors ? 1 : 0;
}
