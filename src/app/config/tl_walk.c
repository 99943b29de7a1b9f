/* tl_walk.c - expanding command-line paths into the sorted list of Python files, honouring .gitignore. */
#include "tl_walk.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------
 * Glob matching, after git's wildmatch (WM_PATHNAME): `*`, `?` and `[...]` never match '/',
 * `**` does when it stands as a whole path component ("**" + "/", "/" + "**" or "/" + "**" + "/").
 * The ABORT results cut the backtracking so that a hostile pattern cannot take exponential time.
 * ---------------------------------------------------------------------------------------------- */

enum { GM_MATCH, GM_NOMATCH, GM_ABORT_ALL, GM_ABORT_TO_STARSTAR };

static bool tl_walk__class_by_name(const char *name, size_t n, unsigned char c) {
#define TL_CLASS(s, f) \
  if (n == sizeof(s) - 1 && memcmp(name, s, n) == 0) return f(c) != 0
  TL_CLASS("alnum", isalnum);
  TL_CLASS("alpha", isalpha);
  TL_CLASS("blank", isblank);
  TL_CLASS("cntrl", iscntrl);
  TL_CLASS("digit", isdigit);
  TL_CLASS("graph", isgraph);
  TL_CLASS("lower", islower);
  TL_CLASS("print", isprint);
  TL_CLASS("punct", ispunct);
  TL_CLASS("space", isspace);
  TL_CLASS("upper", isupper);
  TL_CLASS("xdigit", isxdigit);
#undef TL_CLASS
  return false;
}

/* A bracket expression starting just after '['. Returns 1 (matches c), 0 (does not) or -1
 * (malformed: no closing ']'); *end is set past the ']'. */
static int tl_walk__match_class(const char *p, unsigned char c, const char **end) {
  bool neg = false, matched = false, first = true;
  if (*p == '!' || *p == '^') {
    neg = true;
    p++;
  }
  for (;;) {
    unsigned char lo = (unsigned char)*p;
    if (lo == 0) return -1;
    if (lo == ']' && !first) break;
    first = false;
    if (lo == '[' && p[1] == ':') {
      const char *q = p + 2;
      while (*q >= 'a' && *q <= 'z') q++;
      if (q[0] == ':' && q[1] == ']') {
        if (tl_walk__class_by_name(p + 2, (size_t)(q - (p + 2)), c)) matched = true;
        p = q + 2;
        continue;
      }
    }
    if (lo == '\\') {
      p++;
      lo = (unsigned char)*p;
      if (lo == 0) return -1;
    }
    p++;
    if (p[0] == '-' && p[1] != ']' && p[1] != 0) {
      unsigned char hi = (unsigned char)p[1];
      p += 2;
      if (hi == '\\') {
        hi = (unsigned char)*p;
        if (hi == 0) return -1;
        p++;
      }
      if (lo <= c && c <= hi) matched = true;
    } else if (c == lo) {
      matched = true;
    }
  }
  *end = p + 1;
  return matched != neg;
}

static int tl_walk__dowild(const char *pat, const char *p, const char *t) {
  for (; *p; p++, t++) {
    unsigned char pc = (unsigned char)*p, tc = (unsigned char)*t;
    if (tc == 0 && pc != '*') return GM_ABORT_ALL;
    switch (pc) {
    case '\\':
      p++;
      if (*p == 0) return GM_NOMATCH; /* a trailing backslash never matches (as in git) */
      if ((unsigned char)*p != tc) return GM_NOMATCH;
      break;
    case '?':
      if (tc == '/') return GM_NOMATCH;
      break;
    case '[': {
      if (tc == '/') return GM_NOMATCH;
      const char *end = NULL;
      int r = tl_walk__match_class(p + 1, tc, &end);
      if (r < 0) return GM_ABORT_ALL;
      if (r == 0) return GM_NOMATCH;
      p = end - 1;
      break;
    }
    case '*': {
      bool match_slash = false;
      const char *star = p;
      while (p[1] == '*') p++;
      if (p > star) { /* two or more stars */
        if ((star == pat || star[-1] == '/') && (p[1] == 0 || p[1] == '/')) {
          /* "**" + "/" may match no directory at all: try the rest right here first. */
          if (p[1] == '/' && tl_walk__dowild(pat, p + 2, t) == GM_MATCH) return GM_MATCH;
          match_slash = true;
        }
      }
      p++; /* the first character after the stars */
      if (*p == 0) {
        if (!match_slash && strchr(t, '/')) return GM_ABORT_TO_STARSTAR;
        return GM_MATCH;
      }
      if (!match_slash && *p == '/') {
        /* A single star followed by '/' matches the rest of this path component. */
        const char *slash = strchr(t, '/');
        if (!slash) return GM_NOMATCH;
        t = slash; /* the loop step consumes the '/' in both */
        break;
      }
      for (;; t++) {
        unsigned char c = (unsigned char)*t;
        if (c == 0) break;
        int m = tl_walk__dowild(pat, p, t);
        if (m != GM_NOMATCH) {
          if (!match_slash || m != GM_ABORT_TO_STARSTAR) return m;
        } else if (!match_slash && c == '/') {
          return GM_ABORT_TO_STARSTAR;
        }
      }
      return GM_ABORT_ALL;
    }
    default:
      if (pc != tc) return GM_NOMATCH;
      break;
    }
  }
  return *t ? GM_NOMATCH : GM_MATCH;
}

bool tl_glob_match(const char *pattern, const char *path) {
  return tl_walk__dowild(pattern, pattern, path) == GM_MATCH;
}

bool tl_glob_path_match(const char *pattern, const char *path) {
  while (path[0] == '.' && path[1] == '/') path += 2;
  while (pattern[0] == '.' && pattern[1] == '/') pattern += 2;
  size_t n = strlen(pattern);
  bool dir_only = n && pattern[n - 1] == '/';
  char *pat = tl_strndup(pattern, dir_only ? n - 1 : n);
  bool anchored = strchr(pat, '/') != NULL;
  const char *p = pat[0] == '/' ? pat + 1 : pat;
  bool hit = false;
  /* each directory above the file (its path from the base), then the file itself */
  for (const char *end = path; !hit; end++) {
    bool last = *end == 0;
    if (*end != '/' && !last) continue;
    if (!(dir_only && last)) {
      char *prefix = tl_strndup(path, (size_t)(end - path));
      const char *base = strrchr(prefix, '/');
      hit = anchored ? tl_glob_match(p, prefix) : tl_glob_match(p, base ? base + 1 : prefix);
      free(prefix);
    }
    if (last) break;
  }
  free(pat);
  return hit;
}

/* ------------------------------------------------------------------------------------------------
 * .gitignore pattern sets
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  char *pat;     /* without the '!', the leading '/' and the trailing '/' */
  bool neg;      /* "!pattern": re-includes */
  bool dir_only; /* "pattern/": matches directories only */
  bool anchored; /* held a '/': matched against the path below the base, else against the basename */
} ign_pat;

typedef struct ign_frame {
  TL_VEC(ign_pat) pats;
  char *base; /* directory of the .gitignore relative to the walk root; "" for the root */
  size_t base_len;
  char *above; /* for a .gitignore above the walk root: the path from its directory down to the
                  root, with a trailing '/' (then `base` is ""); NULL otherwise */
  struct ign_frame *parent;
} ign_frame;

/* Parses one .gitignore line; returns false for blank lines and comments. */
static bool tl_walk__ign_parse_line(const char *line, size_t n, ign_pat *out) {
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
  if (n == 0 || line[0] == '#') return false;
  /* Trailing spaces are dropped unless escaped with a backslash. */
  while (n > 0 && line[n - 1] == ' ') {
    size_t bs = 0;
    while (bs + 1 < n && line[n - 2 - bs] == '\\') bs++;
    if (bs % 2 == 1) break;
    n--;
  }
  bool neg = false;
  if (n > 0 && line[0] == '!') {
    neg = true;
    line++;
    n--;
  }
  bool dir_only = false;
  while (n > 0 && line[n - 1] == '/') {
    dir_only = true;
    n--;
  }
  bool anchored = false;
  if (n > 0 && line[0] == '/') {
    anchored = true;
    while (n > 0 && line[0] == '/') {
      line++;
      n--;
    }
  }
  if (n == 0) return false;
  if (memchr(line, '/', n)) anchored = true;
  out->pat = tl_strndup(line, n);
  out->neg = neg;
  out->dir_only = dir_only;
  out->anchored = anchored;
  return true;
}

static ign_frame *tl_walk__ign_frame_new(const char *base, const char *above, ign_frame *parent) {
  ign_frame *f = tl_calloc(1, sizeof *f);
  f->base = tl_strdup(base);
  f->base_len = strlen(base);
  f->above = above ? tl_strdup(above) : NULL;
  f->parent = parent;
  return f;
}

static void tl_walk__ign_parse_text(ign_frame *f, const char *text, size_t len) {
  size_t i = 0;
  while (i < len) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t end = nl ? (size_t)(nl - text) : len;
    ign_pat p;
    if (tl_walk__ign_parse_line(text + i, end - i, &p)) tl_vec_push(&f->pats, p);
    i = end + 1;
  }
}

static void tl_walk__ign_frame_free(ign_frame *f) {
  if (!f) return;
  for (size_t i = 0; i < f->pats.n; i++) free(f->pats.v[i].pat);
  tl_vec_free(&f->pats);
  free(f->base);
  free(f->above);
  free(f);
}

/* 1: ignored, 0: re-included by a '!' line, -1: no line of this set matches. */
static int tl_walk__ign_frame_decide(const ign_frame *f, const char *rel, const char *name, bool is_dir) {
  const char *sub = rel + (f->base_len ? f->base_len + 1 : 0);
  char *joined = NULL;
  if (f->above) sub = joined = tl_printf("%s%s", f->above, rel);
  int r = -1;
  for (size_t i = f->pats.n; i-- > 0;) {
    const ign_pat *p = &f->pats.v[i];
    if (p->dir_only && !is_dir) continue;
    if (tl_glob_match(p->pat, p->anchored ? sub : name)) {
      r = p->neg ? 0 : 1;
      break;
    }
  }
  free(joined);
  return r;
}

/* ------------------------------------------------------------------------------------------------
 * The walk
 * ---------------------------------------------------------------------------------------------- */

typedef struct dirnode {
  dev_t dev;
  ino_t ino;
  const struct dirnode *parent;
} dirnode;

typedef struct {
  char *path, *rel;
  const dirnode *parent;
  ign_frame *ign;
  struct stat st; /* the link's target */
} deferred_dir;

typedef struct {
  dev_t dev;
  ino_t ino;
  bool used;
} visit_slot;

typedef struct {
  tl_strvec *out;
  tl_diags *diags;
  size_t errors;
  const ign_frame *extra;     /* --exclude patterns, matched at the root; may be NULL */
  TL_VEC(ign_frame *) frames; /* every frame loaded, freed at the end */
  TL_VEC(dirnode *) nodes;
  TL_VEC(deferred_dir) deferred; /* symlinked directories, walked after the real tree */
  size_t next_deferred;
  visit_slot *set;
  size_t set_n, set_cap;
} walker;

static void tl_walk__report(walker *w, tl_diag_level level, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void tl_walk__report(walker *w, tl_diag_level level, const char *path, const char *fmt, ...) {
  tl_buf b = {0};
  va_list ap;
  va_start(ap, fmt);
  tl_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  tl_diags_add(w->diags, level, path, 0, 0, "%s", b.data ? b.data : "");
  tl_buf_free(&b);
  if (level == TL_DIAG_ERROR) w->errors++;
}

static size_t tl_walk__visit_hash(dev_t dev, ino_t ino) {
  uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)dev + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
  return (size_t)(h ^ (h >> 29));
}

/* Adds (dev, ino) to the visited set; returns false when it was there already. */
static bool tl_walk__visit_add(walker *w, dev_t dev, ino_t ino) {
  if ((w->set_n + 1) * 2 > w->set_cap) {
    size_t ncap = w->set_cap ? w->set_cap * 2 : 64;
    visit_slot *ns = tl_calloc(ncap, sizeof *ns);
    for (size_t i = 0; i < w->set_cap; i++) {
      if (!w->set[i].used) continue;
      size_t j = tl_walk__visit_hash(w->set[i].dev, w->set[i].ino) & (ncap - 1);
      while (ns[j].used) j = (j + 1) & (ncap - 1);
      ns[j] = w->set[i];
    }
    free(w->set);
    w->set = ns;
    w->set_cap = ncap;
  }
  size_t j = tl_walk__visit_hash(dev, ino) & (w->set_cap - 1);
  while (w->set[j].used) {
    if (w->set[j].dev == dev && w->set[j].ino == ino) return false;
    j = (j + 1) & (w->set_cap - 1);
  }
  w->set[j] = (visit_slot){dev, ino, true};
  w->set_n++;
  return true;
}

static char *tl_walk__path_join(const char *dir, const char *name) {
  size_t n = strlen(dir);
  if (n == 0) return tl_strdup(name);
  return tl_printf("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}

/* `path` is the entry as spelled for output; `rel` the same below the argument's directory. */
static bool tl_walk__ignored(const walker *w, const ign_frame *f, const char *path, const char *rel, const char *name,
                             bool is_dir) {
  if (w->extra) {
    /* Extra excludes are tried against the path below the argument and against the path as
     * spelled (without "./"), so "tests/fixtures" works for the argument "." and for "tests". */
    if (tl_walk__ign_frame_decide(w->extra, rel, name, is_dir) == 1) return true;
    while (path[0] == '.' && path[1] == '/') {
      path += 2;
      while (path[0] == '/') path++;
    }
    if (path[0] != '/' && strcmp(path, rel) != 0 && tl_walk__ign_frame_decide(w->extra, path, name, is_dir) == 1)
      return true;
  }
  for (; f; f = f->parent) {
    int d = tl_walk__ign_frame_decide(f, rel, name, is_dir);
    if (d >= 0) return d == 1;
  }
  return false;
}

/* Directories a walk never enters (ruff's default exclusions): version control, caches, build
 * outputs, installed packages and notebook checkpoints. A path given on the command line is still
 * analysed. */
static bool tl_walk__skipped_dir_name(const char *name) {
  static const char *const names[] = {
      ".git",         ".hg",     ".svn",   ".bzr",          ".git-rewrite",      ".trainlint_cache", "__pycache__",
      "node_modules", ".tox",    ".nox",   ".mypy_cache",   ".ruff_cache",       ".pytest_cache",    ".pytype",
      ".eggs",        ".direnv", ".pyenv", ".pants.d",      ".vscode",           "__pypackages__",   "_build",
      "buck-out",     "build",   "dist",   "site-packages", ".ipynb_checkpoints"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return true;
  return false;
}

static bool tl_walk__exists_in(const char *dir, const char *rel) {
  char *p = tl_walk__path_join(dir, rel);
  struct stat st;
  bool r = stat(p, &st) == 0;
  free(p);
  return r;
}

static bool tl_walk__is_virtualenv(const char *path, const char *name) {
  if (tl_walk__exists_in(path, "pyvenv.cfg")) return true;
  if (strcmp(name, "venv") == 0 || strcmp(name, ".venv") == 0 || strcmp(name, "env") == 0 || strcmp(name, ".env") == 0)
    return tl_walk__exists_in(path, "bin/activate") || tl_walk__exists_in(path, "Scripts/activate");
  return false;
}

static bool tl_walk__is_python_name(const char *name) {
  size_t n = strlen(name);
  return (n >= 3 && strcmp(name + n - 3, ".py") == 0) || (n >= 4 && strcmp(name + n - 4, ".pyi") == 0) ||
         (n >= 6 && strcmp(name + n - 6, ".ipynb") == 0);
}

static int tl_walk__cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

#define TL_GITIGNORE_MAX (1024u * 1024u)

/* Reads dir/.gitignore; returns the new innermost frame (or `parent` when there is nothing).
 * `rel` and `above` are as in ign_frame. */
static ign_frame *tl_walk__load_gitignore(walker *w, const char *dir, const char *rel, const char *above,
                                          ign_frame *parent) {
  char *path = tl_walk__path_join(dir, ".gitignore");
  char err[256];
  int fd;
  do fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int e = errno;
    if (e != ENOENT && e != ENOTDIR) {
      tl_strerror(e, err, sizeof err);
      tl_walk__report(w, TL_DIAG_WARNING, path, "cannot read .gitignore: %s", err);
    }
    free(path);
    return parent;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    free(path);
    return parent;
  }
  tl_buf b = {0};
  char chunk[8192];
  for (;;) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      int e = errno;
      tl_strerror(e, err, sizeof err);
      tl_walk__report(w, TL_DIAG_WARNING, path, "cannot read .gitignore: %s", err);
      break;
    }
    if (n == 0) break;
    tl_buf_put(&b, chunk, (size_t)n);
    if (b.len > TL_GITIGNORE_MAX) {
      tl_walk__report(w, TL_DIAG_WARNING, path, ".gitignore is larger than %u bytes; only its start is used",
                      TL_GITIGNORE_MAX);
      break;
    }
  }
  close(fd);
  free(path);
  ign_frame *f = tl_walk__ign_frame_new(rel, above, parent);
  if (b.data) tl_walk__ign_parse_text(f, b.data, b.len);
  tl_buf_free(&b);
  if (f->pats.n == 0) {
    tl_walk__ign_frame_free(f);
    return parent;
  }
  tl_vec_push(&w->frames, f);
  return f;
}

static void tl_walk__dir(walker *w, const char *path, const char *rel, const dirnode *parent, ign_frame *ign,
                         const struct stat *st, bool via_link);

static void tl_walk__entry(walker *w, const char *path, const char *rel, const char *name, const dirnode *parent,
                           ign_frame *ign) {
  char err[256];
  struct stat lst, st;
  if (lstat(path, &lst) != 0) {
    int e = errno;
    if (e == ENOENT) return; /* removed while we walked */
    tl_strerror(e, err, sizeof err);
    tl_walk__report(w, TL_DIAG_ERROR, path, "cannot stat: %s", err);
    return;
  }
  bool is_link = S_ISLNK(lst.st_mode);
  if (is_link) {
    if (stat(path, &st) != 0) {
      int e = errno;
      /* The target's kind is unknown: an ignore line for either kind silences it. */
      if (tl_walk__ignored(w, ign, path, rel, name, false) || tl_walk__ignored(w, ign, path, rel, name, true)) return;
      if (e == ENOENT || e == ENOTDIR) {
        tl_walk__report(w, TL_DIAG_WARNING, path, "dangling symbolic link: skipped");
      } else if (e == ELOOP) {
        tl_walk__report(w, TL_DIAG_WARNING, path,
                        "symbolic link loop (too many levels of symbolic links); not followed");
      } else {
        tl_strerror(e, err, sizeof err);
        tl_walk__report(w, TL_DIAG_ERROR, path, "cannot follow symbolic link: %s", err);
      }
      return;
    }
  } else {
    st = lst;
  }
  if (S_ISDIR(st.st_mode)) {
    if (tl_walk__skipped_dir_name(name)) return;
    if (tl_walk__ignored(w, ign, path, rel, name, true)) return;
    if (tl_walk__is_virtualenv(path, name)) return;
    if (is_link) {
      deferred_dir d = {tl_strdup(path), tl_strdup(rel), parent, ign, st};
      tl_vec_push(&w->deferred, d);
    } else {
      tl_walk__dir(w, path, rel, parent, ign, &st, false);
    }
  } else if (S_ISREG(st.st_mode)) {
    if (!tl_walk__is_python_name(name)) return;
    if (tl_walk__ignored(w, ign, path, rel, name, false)) return;
    char *p = tl_strdup(path);
    tl_vec_push(w->out, p);
  }
  /* FIFOs, sockets and devices found while walking are not source files: skipped silently. */
}

/* The kind of a pseudo file system the kernel makes up (proc, sysfs, ...) that `path` is on, or NULL.
 * Walking one reads no source file and can take forever: /proc alone lists every process's
 * tree, and reading some of its entries blocks. */
static const char *tl_walk__special_fs(const char *path) {
  static const struct {
    unsigned long magic;
    const char *name;
  } kinds[] = {
      {0x9fa0, "proc"},          {0x62656572, "sysfs"},       {0x1cd1, "devpts"},        {0x64626720, "debugfs"},
      {0x74726163, "tracefs"},   {0x27e0eb, "cgroup"},        {0x63677270, "cgroup2"},   {0x73636673, "securityfs"},
      {0xcafe4a11, "bpf"},       {0x42494e4d, "binfmt_misc"}, {0x6e736673, "nsfs"},      {0x19800202, "mqueue"},
      {0xf97cff8c, "selinuxfs"}, {0x65735543, "fusectl"},     {0x67596969, "rpc_pipefs"}};
  struct statfs fs;
  if (statfs(path, &fs) != 0) return NULL;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if ((unsigned long)fs.f_type == kinds[i].magic) return kinds[i].name;
  return NULL;
}

static void tl_walk__dir(walker *w, const char *path, const char *rel, const dirnode *parent, ign_frame *ign,
                         const struct stat *st, bool via_link) {
  char err[256];
  for (const dirnode *a = parent; a; a = a->parent) {
    if (a->dev == st->st_dev && a->ino == st->st_ino) {
      tl_walk__report(w, TL_DIAG_WARNING, path, "%s loop: it leads back to a directory that contains it; not followed",
                      via_link ? "symbolic link" : "directory");
      return;
    }
  }
  if (!tl_walk__visit_add(w, st->st_dev, st->st_ino)) return; /* reached already by another path */
  if (!parent || parent->dev != st->st_dev) {                 /* a file system of its own: is it one of the kernel's? */
    const char *kind = tl_walk__special_fs(path);
    if (kind) {
      tl_walk__report(w, TL_DIAG_WARNING, path, "%s file system (the kernel's, no source files): not walked", kind);
      return;
    }
  }

  dirnode *node = tl_malloc(sizeof *node);
  node->dev = st->st_dev;
  node->ino = st->st_ino;
  node->parent = parent;
  tl_vec_push(&w->nodes, node);

  DIR *d = opendir(path);
  if (!d) {
    int e = errno;
    tl_strerror(e, err, sizeof err);
    tl_walk__report(w, TL_DIAG_ERROR, path, "cannot read directory: %s", err);
    return;
  }
  TL_VEC(char *) names = {0};
  bool has_gitignore = false;
  for (;;) {
    errno = 0;
    struct dirent *de = readdir(d);
    if (!de) {
      if (errno) {
        int e = errno;
        tl_strerror(e, err, sizeof err);
        tl_walk__report(w, TL_DIAG_ERROR, path, "cannot read directory: %s", err);
      }
      break;
    }
    const char *nm = de->d_name;
    if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0))) continue;
    if (strcmp(nm, ".gitignore") == 0) has_gitignore = true;
    char *copy = tl_strdup(nm);
    tl_vec_push(&names, copy);
  }
  closedir(d);
  if (names.n > 1) qsort(names.v, names.n, sizeof *names.v, tl_walk__cmp_str);

  if (has_gitignore) ign = tl_walk__load_gitignore(w, path, rel, NULL, ign);
  for (size_t i = 0; i < names.n; i++) {
    char *child = tl_walk__path_join(path, names.v[i]);
    char *child_rel = rel[0] ? tl_printf("%s/%s", rel, names.v[i]) : tl_strdup(names.v[i]);
    tl_walk__entry(w, child, child_rel, names.v[i], node, ign);
    free(child);
    free(child_rel);
    free(names.v[i]);
  }
  tl_vec_free(&names);
}

/* The .gitignore files above the argument's directory, from the root of its git repository (the
 * nearest directory above holding a .git) down; none when it is not inside a repository. */
static ign_frame *tl_walk__parent_gitignores(walker *w, const char *dir) {
  char *real = realpath(dir, NULL);
  if (!real) return NULL;
  size_t n = strlen(real);
  /* Find the repository root: the longest proper prefix of `real` (at a '/') holding ".git". */
  size_t top = 0;
  bool found = false;
  struct stat st;
  char *probe = tl_printf("%s/.git", real);
  bool root_itself = lstat(probe, &st) == 0;
  free(probe);
  for (size_t i = n; !root_itself && i-- > 0;) {
    if (real[i] != '/') continue;
    char *p = tl_printf("%.*s/.git", (int)i, real);
    bool has = lstat(p, &st) == 0;
    free(p);
    if (has) {
      top = i;
      found = true;
      break;
    }
  }
  ign_frame *f = NULL;
  if (found) {
    /* Each directory from the repository root down to the argument's parent. */
    for (size_t i = top; i < n; i++) {
      if (i != top && real[i] != '/') continue;
      char *d = i ? tl_strndup(real, i) : tl_strdup("/");
      char *above = tl_printf("%s/", real + i + 1);
      f = tl_walk__load_gitignore(w, d, "", above, f);
      free(d);
      free(above);
    }
  }
  free(real);
  return f;
}

/* The argument as the prefix of the paths below it: trailing slashes dropped ("a/" -> "a"),
 * but "/" stays "/". */
static char *tl_walk__root_prefix(const char *arg) {
  size_t n = strlen(arg);
  while (n > 1 && arg[n - 1] == '/') n--;
  return tl_strndup(arg, n);
}

static void tl_walk__root(walker *w, const char *arg, const struct stat *st) {
  char *prefix = tl_walk__root_prefix(arg);
  /* The directories above the argument (physically, as ".." leads) count as ancestors too: a link
   * back to one of them (`sub/up -> ..`, `all -> /`) is a loop even when it leads out of the walk. */
  const dirnode *above = NULL;
  dirnode *prev = NULL;
  tl_buf up = {0};
  tl_buf_puts(&up, prefix);
  dev_t last_dev = st->st_dev;
  ino_t last_ino = st->st_ino;
  for (size_t depth = 0; depth < 4096; depth++) {
    tl_buf_puts(&up, up.data[up.len - 1] == '/' ? ".." : "/..");
    struct stat ast;
    if (stat(up.data, &ast) != 0 || (ast.st_dev == last_dev && ast.st_ino == last_ino)) break;
    dirnode *n = tl_malloc(sizeof *n);
    n->dev = last_dev = ast.st_dev;
    n->ino = last_ino = ast.st_ino;
    n->parent = NULL;
    tl_vec_push(&w->nodes, n);
    if (prev) prev->parent = n; /* the chain goes from the nearest ancestor outwards */
    else above = n;
    prev = n;
  }
  tl_buf_free(&up);
  tl_walk__dir(w, prefix, "", above, tl_walk__parent_gitignores(w, prefix), st, false);
  while (w->next_deferred < w->deferred.n) {
    deferred_dir d = w->deferred.v[w->next_deferred++];
    tl_walk__dir(w, d.path, d.rel, d.parent, d.ign, &d.st, true);
    free(d.path);
    free(d.rel);
  }
  free(prefix);
}

static void tl_walk__reset(walker *w) {
  for (size_t i = 0; i < w->frames.n; i++) tl_walk__ign_frame_free(w->frames.v[i]);
  tl_vec_free(&w->frames);
  for (size_t i = 0; i < w->nodes.n; i++) free(w->nodes.v[i]);
  tl_vec_free(&w->nodes);
  for (size_t i = w->next_deferred; i < w->deferred.n; i++) {
    free(w->deferred.v[i].path);
    free(w->deferred.v[i].rel);
  }
  tl_vec_free(&w->deferred);
  w->next_deferred = 0;
  free(w->set);
  w->set = NULL;
  w->set_n = w->set_cap = 0;
}

typedef struct {
  dev_t dev;
  ino_t ino;
  bool link; /* the name is a symbolic link */
  size_t at;
} tl_walk__ident;

/* By file, then names that are no links first, then in the walk's order. */
static int tl_walk__cmp_ident(const void *a, const void *b) {
  const tl_walk__ident *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
  if (x->link != y->link) return x->link ? 1 : -1;
  return x->at < y->at ? -1 : x->at > y->at;
}

/* Drops from out[first..] every name of a file that another entry names too (the same device and
 * inode: a symbolic link to a file of the tree, a file given again after its directory, `./a.py`
 * and `a.py`): a file is analysed, reported and fixed once, under its first name that is not a
 * symbolic link (or its first name, when all are). */
static void tl_walk__dedupe(tl_strvec *out, size_t first) {
  size_t n = out->n - first, k = 0;
  if (n < 2) return;
  tl_walk__ident *ids = tl_malloc(n * sizeof *ids);
  for (size_t i = 0; i < n; i++) {
    struct stat st, lst;
    if (stat(out->v[first + i], &st) != 0) continue;
    bool link = lstat(out->v[first + i], &lst) == 0 && S_ISLNK(lst.st_mode);
    ids[k++] = (tl_walk__ident){st.st_dev, st.st_ino, link, first + i};
  }
  qsort(ids, k, sizeof *ids, tl_walk__cmp_ident);
  bool *drop = tl_calloc(out->n, sizeof *drop);
  for (size_t i = 1; i < k; i++)
    if (ids[i].dev == ids[i - 1].dev && ids[i].ino == ids[i - 1].ino) drop[ids[i].at] = true;
  size_t to = first;
  for (size_t i = first; i < out->n; i++) {
    if (drop[i]) free(out->v[i]);
    else out->v[to++] = out->v[i];
  }
  out->n = to;
  free(drop);
  free(ids);
}

bool tl_walk(const char *const *paths, size_t npaths, const char *const *extra_excludes, size_t nexcludes,
             tl_strvec *out, tl_diags *diags) {
  size_t out_first = out->n;
  walker w = {0};
  w.out = out;
  w.diags = diags;
  ign_frame *extra = NULL;
  if (extra_excludes && nexcludes) {
    extra = tl_walk__ign_frame_new("", NULL, NULL);
    for (size_t i = 0; i < nexcludes; i++) {
      ign_pat p;
      if (extra_excludes[i] && tl_walk__ign_parse_line(extra_excludes[i], strlen(extra_excludes[i]), &p))
        tl_vec_push(&extra->pats, p);
    }
    w.extra = extra;
  }
  char err[256];
  for (size_t i = 0; i < npaths; i++) {
    const char *arg = paths[i];
    size_t first = out->n;
    struct stat lst, st;
    if (lstat(arg, &lst) != 0) {
      int e = errno;
      if (e == ENOENT) {
        tl_walk__report(&w, TL_DIAG_ERROR, arg, "no such file or directory");
      } else {
        tl_strerror(e, err, sizeof err);
        tl_walk__report(&w, TL_DIAG_ERROR, arg, "cannot stat: %s", err);
      }
      continue;
    }
    if (S_ISLNK(lst.st_mode)) {
      if (stat(arg, &st) != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR) {
          tl_walk__report(&w, TL_DIAG_ERROR, arg, "dangling symbolic link");
        } else {
          tl_strerror(e, err, sizeof err);
          tl_walk__report(&w, TL_DIAG_ERROR, arg, "cannot follow symbolic link: %s", err);
        }
        continue;
      }
    } else {
      st = lst;
    }
    if (S_ISDIR(st.st_mode)) {
      tl_walk__root(&w, arg, &st);
      tl_walk__reset(&w);
    } else {
      /* Named explicitly: taken whatever its name or kind (the reader refuses non-files). */
      char *p = tl_strdup(arg);
      tl_vec_push(out, p);
    }
    if (out->n - first > 1) qsort(out->v + first, out->n - first, sizeof *out->v, tl_walk__cmp_str);
  }
  tl_walk__dedupe(out, out_first);
  tl_walk__ign_frame_free(extra);
  return w.errors == 0;
}
