/* tl_callgraph.h - the project's call graph (phase 2): what each call of every file runs, and
 * what kind each class is. Built by tl_callgraph_build from the files' models, read by the project
 * pass (tl_project.c), freed by tl_callgraph_free. */
#ifndef TL_CALLGRAPH_H
#define TL_CALLGRAPH_H

#include "tl_engine.h"

typedef TL_VEC(tl_ref) tl_refs;

typedef struct {
  tl_file *files; /* the run's files (borrowed) */
  size_t nfiles;
  tl_map modules;      /* full module name -> file index + 1 */
  tl_map suffixes;     /* module name suffix -> file index + 1, or -1 when ambiguous */
  tl_map paths;        /* a file's path without `.py` -> file index + 1 (a package: its directory) */
  tl_map packages;     /* a directory that holds an `__init__.py` -> 1 */
  tl_map *locals;      /* per file: "Class", "Class.method", "func" -> encoded entity */
  int8_t **class_kind; /* per file, per class: TL_CK_* */
  tl_target **targets; /* per file, per call */
  tl_refs **overrides; /* per file, per function: the methods of project subclasses that override it */
  bool stopped;        /* the run was cancelled while calls were resolved: some files have no targets */
} tl_callgraph;

/* Class kinds (tl_callgraph_class_kind); BUSY and DONE mark the computation. */
enum { TL_CK_MODULE = 1, TL_CK_DATASET = 2, TL_CK_BUSY = 0x20, TL_CK_DONE = 0x40 };

/* The most functions one call may run (its target and the overrides of it). */
#define TL_MAX_TARGETS 16

/* Indexes the files and resolves every call; targets kept from the last run (tl_file.targets)
 * are reused where the files allow it, and counted in *kept. When *cancel (read atomically; cancel
 * may be NULL) turns nonzero, it stops between files with cg->stopped set: the graph is then good
 * only for tl_callgraph_free, which leaves the files' kept targets as they were. */
void tl_callgraph_build(tl_callgraph *cg, tl_file *files, size_t nfiles, size_t *kept, const size_t *cancel);
/* The functions call c of file fi may run: its target, and for `self.m()` the overrides of the
 * target in project subclasses. Returns how many (at most max) in out. */
size_t tl_callgraph_targets(const tl_callgraph *cg, int32_t fi, size_t c, tl_ref *out, size_t max);
/* TL_CK_MODULE and TL_CK_DATASET of a class, through its project bases. */
int tl_callgraph_class_kind(tl_callgraph *cg, tl_ref c);
/* A class named by `name` as seen from file fi ("Net", "models.Net", "nn.Module"). */
bool tl_callgraph_class_ref(const tl_callgraph *cg, int32_t fi, const char *name, tl_ref *out);
/* The project class a call constructs, into *out: `Net(...)`, `models.Net(...)`,
 * `Net.from_pretrained(...)`. Only a CapWords name is looked up (a class named in lower case is left
 * unbuilt). */
bool tl_callgraph_constructs(const tl_callgraph *cg, int32_t fi, const tl_call *cl, tl_ref *out);
/* Function summaries (tl_summaries.c): where each function's parameters and result live, solved
 * over the graph; then the place of every candidate's unknown value (tl_candidate.vdep). */
void tl_summaries_solve(tl_project *pj, const tl_callgraph *cg);
void tl_summaries_resolve(tl_project *pj, const tl_callgraph *cg);

/* Frees the graph; every file keeps its calls' targets for the next run. */
/* The programs of the project: out[i] is, for file i, the smallest index of the files connected
 * to it by imports that resolve to project modules, in either direction (a file that imports
 * nothing of the project and that nothing imports is a program of its own). imported[i]: file i
 * is a package's __init__.py, or another project file imports it (a module, not a script run on
 * its own). */
void tl_callgraph_programs(const tl_callgraph *cg, int32_t *out, bool *imported);
/* The method `name` of class cls or of its project bases. */
bool tl_callgraph_method(tl_callgraph *cg, tl_ref cls, const char *name, tl_ref *out);
/* Once per run before the two passes below, when the project keeps mentions (editors): each file's
 * index of the names its text mentions is dropped when the text changed, and built when the text
 * is the one the last run saw (tl_usage.c). */
void tl_usage_keep_mentions(const tl_project *pj);
/* Classes that only code which trains nothing builds, or only a branch taken on request (tl_usage.c):
 * out[i][k], for class k of file i, is one construction of it (file, call index), {i, -1} when the
 * class is a Module of an application and nothing builds or names it, or {-1, -1} when the class is
 * built where a training may run, or where the analysis cannot tell. Models; any other object (a
 * runner wrapping the step, a logger) only when every construction is in a branch taken on request:
 * what their methods do runs when that code does. */
void tl_usage_untrained(const tl_project *pj, tl_callgraph *cg, tl_ref **out);
/* Functions nothing in the project runs (tl_usage.c): out[i][f] (allocated here, one array per
 * file) for a function of a module's body, outside tests and not a dunder (`__getattr__`), that no
 * resolved call reaches and whose name the project's code mentions nowhere but at its definition,
 * in imports and in `__all__` (a decorator keeps it). Only in a program (tl_project.program) with
 * an entry point (a `__main__` test): a library's functions are there to be called from outside. */
void tl_usage_uncalled(const tl_project *pj, const tl_callgraph *cg, bool **out);
void tl_callgraph_free(tl_callgraph *cg);

#endif
