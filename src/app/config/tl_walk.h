/* tl_walk.h - turning command-line paths into the sorted list of Python files to analyse. */
#ifndef TL_WALK_H
#define TL_WALK_H

#include "tl_util.h"

/* Expands `paths` (files or directories, as given) into Python files:
 * - a path given explicitly is taken whatever its extension (unless it is a directory);
 * - directories are walked recursively; only `*.py` and `*.pyi` files are taken;
 * - skipped directories: .git, .hg, .svn, __pycache__, node_modules, .tox, .nox, .mypy_cache,
 *   .ruff_cache, .pytest_cache, build dirs named by a `.gitignore`, and virtualenvs
 *   (any directory holding a `pyvenv.cfg`, plus names venv, .venv, env, .env when they hold one
 *   or hold bin/activate);
 * - `.gitignore` files found while walking are honoured for their directory and below
 *   (patterns with *, ?, **, leading / anchoring, trailing / for directories, ! negation);
 *   so are those above a directory argument, up to the root of its git repository (the nearest
 *   directory above holding a `.git`), when it is inside one;
 * - `extra_excludes` (may be NULL) are glob patterns matched like .gitignore lines at the root
 *   (each directory argument), and also against the path as spelled (less a leading "./");
 *   they win over .gitignore re-includes; they do not apply to files named explicitly;
 * - symlinks to files are followed; symlinked directories are followed only once
 *   (a loop is detected by device+inode and reported as a warning); dangling symlinks are
 *   reported as errors with their path;
 * - unreadable directories and missing paths are reported in `diags` and the walk goes on.
 * Output paths keep the spelling of the argument they came from ("./a" stays "./a/x.py")
 * and are sorted bytewise within each argument, so the output order is deterministic.
 * Returns false when it added an error to `diags` (warnings do not count); `out` has every file
 * found either way. */
bool tl_walk(const char *const *paths, size_t npaths, const char *const *extra_excludes, size_t nexcludes,
             tl_strvec *out, tl_diags *diags);

/* Glob match in .gitignore style: `*` and `?` do not cross '/', `**` does. */
bool tl_glob_match(const char *pattern, const char *path);
/* Does a .gitignore line match the file `path` ('/'-separated, relative to the pattern's base; a
 * leading "./" is ignored) or a directory above it? A pattern without a '/' but at its end matches
 * any component by name ("tests", "test_*.py"); one with a '/' is anchored at the base ("tests/x*",
 * "/setup.py"); a trailing '/' matches directories only ("tests/"). No '!' negation. */
bool tl_glob_path_match(const char *pattern, const char *path);

#endif
