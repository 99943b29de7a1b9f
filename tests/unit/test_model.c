/* test_model.c - the hot-code model: aliases, class bases across files, every kind of hot region,
 * frequency guards, device awareness and cross-file call chains, checked through the library. */
#include <stdio.h>
#include <string.h>

#include "tl_rules.h"
#include "tl_output.h"
#include "tl_test.h"

typedef struct {
  const char *path, *text;
} src_file;

static tl_ruleset *rules(void) {
  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs));
  CHECK(tl_ruleset_compile(rs));
  return rs;
}

/* Runs the files as one project; returns "path:line CODE | hot chain" lines joined by '\n'. */
static char *run(tl_ruleset *rs, const src_file *files, size_t n) {
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < n; i++) tl_analysis_add_text(a, files[i].path, files[i].text, strlen(files[i].text));
  tl_analysis_run(a);
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    char *hot = tl_hot_text(f);
    tl_buf_printf(&b, "%s:%u %s | %s\n", f->path, f->line, tl_rule_code(f->rule), hot);
    free(hot);
  }
  tl_analysis_delete(a);
  return tl_buf_take(&b);
}

/* A file's model built from source, for the tests that look at one model. */
typedef struct {
  TSParser *p;
  TSTree *t;
  tl_file_model m;
  tl_diags d;
} model_fx;

static void fx_build(model_fx *x, const char *src, const char *module, const char *path) {
  memset(x, 0, sizeof *x);
  x->p = ts_parser_new();
  ts_parser_set_language(x->p, tree_sitter_python());
  x->t = ts_parser_parse_string(x->p, NULL, src, (uint32_t)strlen(src));
  tl_model_build(&x->m, ts_tree_root_node(x->t), src, module, false, &x->d, path);
}

static void fx_free(model_fx *x) {
  tl_model_free(&x->m);
  tl_diags_free(&x->d);
  ts_tree_delete(x->t);
  ts_parser_delete(x->p);
}

static void test_resolve(void) {
  const char *src = "import torch as T\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader as DL\n"
                    "from .sibling import helper, other as o2\nimport paddle\nfrom paddle.io import DataLoader\n";
  model_fx x;
  fx_build(&x, src, "pkg.mod", "pkg/mod.py");
  tl_file_model *m = &x.m;
  struct {
    const char *in, *want;
  } cases[] = {
      {"T.arange", "torch.arange"},
      {"nn.Module", "torch.nn.Module"},
      {"DL", "torch.utils.data.DataLoader"},
      {"helper", "pkg.sibling.helper"},
      {"o2", "pkg.sibling.other"},
      {"paddle.io.DataLoader", "paddle.io.DataLoader"},
      {"DataLoader", "paddle.io.DataLoader"},
      {"unknown.thing", "unknown.thing"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *r = tl_model_resolve(m, cases[i].in);
    CHECK_STR(r, cases[i].want);
    free(r);
  }
  fx_free(&x);
}

/* The generated field ids (TL_FIELD_*) are the grammar's own. */
static void test_field_ids(void) {
  const TSLanguage *l = tree_sitter_python();
#define FIELD_IS(f) CHECK_INT(ts_language_field_id_for_name(l, #f, (uint32_t)strlen(#f)), TL_FIELD_##f)
  FIELD_IS(alias);
  FIELD_IS(alternative);
  FIELD_IS(argument);
  FIELD_IS(arguments);
  FIELD_IS(attribute);
  FIELD_IS(body);
  FIELD_IS(condition);
  FIELD_IS(consequence);
  FIELD_IS(function);
  FIELD_IS(left);
  FIELD_IS(module_name);
  FIELD_IS(name);
  FIELD_IS(object);
  FIELD_IS(operator);
  FIELD_IS(right);
  FIELD_IS(subscript);
  FIELD_IS(superclasses);
  FIELD_IS(value);
#undef FIELD_IS
  CHECK_INT(ts_language_field_count(l), TL_FIELD_value); /* the last one: none is missing */
}

/* tl_node_is with a literal (symbols, cached per literal) gives the verdict of comparing names, on
 * every node of a file with named and anonymous nodes of one name (`lambda`), an ERROR node, and a
 * name no node has; a non-literal type goes the way of the names. */
static void walk_is(TSNode n, int *checked) {
  const char *t = ts_node_type(n);
#define SAME(lit) CHECK_INT(tl_node_is(n, lit), !strcmp(t, lit))
  SAME("call");
  SAME("lambda");
  SAME("identifier");
  SAME("ERROR");
  SAME("no_such_type");
  SAME("=");
  SAME("string");
  SAME("attribute");
  SAME("block");
  SAME("module");
#undef SAME
  char dyn[32];
  snprintf(dyn, sizeof dyn, "%s", t);
  CHECK(tl_node_is(n, dyn));
  (*checked)++;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) walk_is(ts_node_child(n, i), checked);
}

static void test_node_is(void) {
  const char *src = "f = lambda x: x + 1\nif f(2) == 3:\n    print(obj.attr, 'text')\ndef g(:\n    pass\n";
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_python());
  TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)strlen(src));
  int checked = 0;
  walk_is(ts_tree_root_node(t), &checked);
  CHECK(checked > 40);
  CHECK(!tl_node_is((TSNode){0}, "call"));
  ts_tree_delete(t);
  ts_parser_delete(p);
}

/* tl_up gives the ancestors ts_node_parent gives, in the same order, for every node of a file
 * with comments, a syntax error (a zero-width missing node), empty statements and nesting deeper
 * than the iterator keeps. */
static void walk_up(TSNode n, int *checked, int *deep) {
  tl_up up;
  tl_up_init(&up, n);
  int k = 0;
  for (TSNode want = ts_node_parent(n);; want = ts_node_parent(want), k++) {
    TSNode got = tl_up_next(&up);
    CHECK(ts_node_is_null(got) == ts_node_is_null(want));
    if (ts_node_is_null(want) || ts_node_is_null(got)) break;
    CHECK(ts_node_eq(got, want));
    CHECK(ts_node_start_byte(got) == ts_node_start_byte(want) && ts_node_symbol(got) == ts_node_symbol(want));
  }
  CHECK(ts_node_is_null(tl_up_next(&up)));
  if (k > TL_UP_MAX) (*deep)++;
  (*checked)++;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) walk_up(ts_node_child(n, i), checked, deep);
}

static void test_up(void) {
  char src[4096];
  int o = snprintf(src, sizeof src,
                   "# c\nclass A(B):\n    def f(self, x):  # m\n        with torch.no_grad():\n"
                   "            for i in range(x.size(0)):\n                y = [x[i] for i in (1, 2)]\n"
                   "    ;\nprint(f(a, b\nz = (");
  for (int i = 0; i < 45; i++) o += snprintf(src + o, sizeof src - (size_t)o, "[");
  o += snprintf(src + o, sizeof src - (size_t)o, "1");
  for (int i = 0; i < 45; i++) o += snprintf(src + o, sizeof src - (size_t)o, "]");
  snprintf(src + o, sizeof src - (size_t)o, ")\nif x:\n    pass\n");
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_python());
  TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)strlen(src));
  int checked = 0, deep = 0;
  walk_up(ts_tree_root_node(t), &checked, &deep);
  CHECK(checked > 150);
  CHECK(deep > 10); /* the nested lists: past the kept ancestors */
  CHECK(ts_node_has_error(ts_tree_root_node(t)));
  tl_up up;
  tl_up_init(&up, (TSNode){0});
  CHECK(ts_node_is_null(tl_up_next(&up)));
  ts_tree_delete(t);
  ts_parser_delete(p);
}

/* tl_model_func_at (a binary search over the nested functions) agrees with a scan of all of them
 * at every byte of a file with nested functions, methods, a class in a function and blank gaps. */
static void test_func_at(void) {
  const char *src = "import os\n\ndef a():\n    def b():\n        def c():\n            pass\n        x = 1\n"
                    "    y = 2\n\nclass K:\n    def m(self):\n        class L:\n            def n(self):\n"
                    "                pass\n        return 1\n\n    def m2(self): pass\n\nz = 3\n";
  model_fx x;
  fx_build(&x, src, "mod", "mod.py");
  tl_file_model *m = &x.m;
  CHECK_INT(m->funcs.n, 7);
  CHECK(m->funcs_sorted);
  int hits[8] = {0};
  for (uint32_t byte = 0; byte <= strlen(src); byte++) {
    int32_t want = 0;
    for (size_t i = 1; i < m->funcs.n; i++)
      if (m->funcs.v[i].start <= byte && byte < m->funcs.v[i].end && m->funcs.v[i].start >= m->funcs.v[want].start)
        want = (int32_t)i;
    int32_t got = tl_model_func_at(m, byte);
    CHECK_INT(got, want);
    if (got >= 0 && got < 8) hits[got]++;
  }
  for (size_t i = 0; i < m->funcs.n; i++) CHECK(hits[i] > 0);
  m->funcs_sorted = false; /* the scan it falls back on */
  CHECK_INT(tl_model_func_at(m, (uint32_t)(strstr(src, "pass") - src)), 3);
  fx_free(&x);
}

/* Calls inside f-strings (any prefix with f/F, nested) are in the model; text in other strings
 * that looks like a call is not (the walk skips their pieces). Under an attribute or a keyword
 * argument the walk visits the object or value alone, unless a comment sits among the children. */
static void test_string_calls(void) {
  const char *src = "a = 'g()'\nb = f'{h()}'\nc = rF\"{i(f'{j()}')}\"\nd = b'k()' + \"\"\"l()\"\"\"\n"
                    "e = Rb'{m()}'\ng = (n()  # noqa\n     .o())\nh = p(q=r().s, t=  # noqa\n  u)\n";
  model_fx x;
  fx_build(&x, src, "mod", "mod.py");
  tl_file_model *m = &x.m;
  char got[256] = "";
  for (size_t i = 0; i < m->calls.n; i++) {
    strncat(got, m->calls.v[i].callee, sizeof got - strlen(got) - 2);
    strncat(got, " ", sizeof got - strlen(got) - 1);
  }
  CHECK_STR(got, "h i j n().o n p r ");
  CHECK_INT(m->suppressions.n, 2);
  fx_free(&x);
}

/* A call through a subscript is in the model, its callee written with "[]" ("opts[].step"): an
 * optimizer kept in a dict still steps; a subscript is no dotted name elsewhere. */
static void test_subscript_calls(void) {
  const char *src = "opts['g'].step()\nself.nets[k](x)\nsched[0][1].step()\nv = a[0].b\n";
  model_fx x;
  fx_build(&x, src, "mod", "mod.py");
  tl_file_model *m = &x.m;
  char got[256] = "";
  for (size_t i = 0; i < m->calls.n; i++) {
    strncat(got, m->calls.v[i].callee, sizeof got - strlen(got) - 2);
    strncat(got, " ", sizeof got - strlen(got) - 1);
  }
  CHECK_STR(got, "opts[].step self.nets[] sched[][].step ");
  CHECK_INT((int)m->calls.v[0].work, TL_WORK_OPT_STEP);
  CHECK_INT((int)m->calls.v[1].work, 0);
  const tl_binding *b = tl_model_binding(m, "v", 0, (uint32_t)strlen(src));
  CHECK(b != NULL);
  fx_free(&x);
}

/* An object made on one branch of a conditional expression, None on the other, is of that class. */
static void test_conditional_ctor(void) {
  const char *src = "ema = Ema(model).cuda() if rank == 0 else None\nalt = None if r else (Ema(m))\n"
                    "both = A() if r else B()\n";
  model_fx x;
  fx_build(&x, src, "mod", "mod.py");
  tl_file_model *m = &x.m;
  uint32_t end = (uint32_t)strlen(src);
  const tl_binding *b = tl_model_binding(m, "ema", 0, end);
  CHECK_STR(b && b->ctor ? b->ctor : "(null)", "Ema");
  b = tl_model_binding(m, "alt", 0, end);
  CHECK_STR(b && b->ctor ? b->ctor : "(null)", "Ema");
  b = tl_model_binding(m, "both", 0, end);
  CHECK(b && !b->ctor);
  fx_free(&x);
}

/* The counter of `for i, batch in enumerate(loader)` is a Python int; the batch is the loader's (in
 * host memory until moved), also through a progress bar around enumerate. */
static void test_enumerate_counter(void) {
  const char *src = "from torch.utils.data import DataLoader\nloader = DataLoader(ds)\n"
                    "for i, (x, y) in enumerate(loader):\n    pass\n"
                    "for j, b in tqdm(enumerate(loader)):\n    pass\n"
                    "for k, v in items:\n    pass\n";
  model_fx x;
  fx_build(&x, src, "mod", "mod.py");
  tl_file_model *m = &x.m;
  uint32_t end = (uint32_t)strlen(src);
  const tl_binding *b = tl_model_binding(m, "i", 0, end);
  CHECK_INT(b ? (int)b->kind : -1, TL_VAL_PY);
  b = tl_model_binding(m, "x", 0, end);
  CHECK_INT(b ? (int)b->kind : -1, TL_VAL_CPU);
  b = tl_model_binding(m, "j", 0, end);
  CHECK_INT(b ? (int)b->kind : -1, TL_VAL_PY);
  b = tl_model_binding(m, "b", 0, end);
  CHECK_INT(b ? (int)b->kind : -1, TL_VAL_CPU);
  b = tl_model_binding(m, "k", 0, end);
  CHECK_INT(b ? (int)b->kind : -1, TL_VAL_UNKNOWN);
  fx_free(&x);
}

static void test_crossfile_chain(tl_ruleset *rs) {
  src_file files[] = {
      {"proj/train.py", "from trainer import Trainer\n"
                        "def main(loader):\n"
                        "    trainer = Trainer()\n"
                        "    for batch in loader:\n"             /* line 4: the step loop */
                        "        trainer.step(batch.cuda())\n"}, /* a device batch: the helpers' reads sync */
      {"proj/trainer.py", "from model import Net\n"
                          "class Trainer:\n"
                          "    def __init__(self):\n"
                          "        self.model = Net()\n"
                          "    def step(self, batch):\n"
                          "        out = self.enc_dec_step(batch)\n" /* line 6 */
                          "        out.backward()\n"
                          "    def enc_dec_step(self, batch):\n"   /* line 8 */
                          "        y = self.model.fwd(batch)\n"    /* line 9 */
                          "        self.total += y.sum().item()\n" /* line 10: TL101 */
                          "        return y\n"},
      {"proj/model.py", "import torch.nn as nn\n"
                        "class Net(nn.Module):\n"
                        "    def fwd(self, x):\n"             /* line 3 */
                        "        return x * x.max().item()\n" /* line 4: TL101 via fwd */
                        "DEVICE = \"cuda\"\n"},               /* the project uses an accelerator */
  };
  char *got = run(rs, files, 3);
  CHECK_STR(
      got,
      "proj/model.py:4 TL101 | in `Net.fwd` at proj/model.py:3, called from `Trainer.enc_dec_step` at proj/trainer.py:9, "
      "called from `Trainer.step` at proj/trainer.py:6, called from the step loop at proj/train.py:4\n"
      "proj/trainer.py:10 TL101 | in `Trainer.enc_dec_step` at proj/trainer.py:8, called from `Trainer.step` at "
      "proj/trainer.py:6, called from the step loop at proj/train.py:4\n");
  free(got);
}

static void test_bases_across_files(tl_ruleset *rs) {
  src_file files[] = {
      {"p/base.py",
       "import torch\nclass Base(torch.nn.Module):\n    pass\nclass BaseSet(torch.utils.data.Dataset):\n    pass\n"
       "def place(m):\n    return m.cuda()\n"},
      {"p/net.py", "from base import Base, BaseSet\n"
                   "import torch\n"
                   "class Net(Base):\n"
                   "    def forward(self, x):\n"
                   "        return float(x.sum())\n" /* 5: TL101, forward of a project Module */
                   "class Data(BaseSet):\n"
                   "    def __getitem__(self, i):\n"
                   "        return torch.FloatTensor(self.rows[i])\n" /* 8: TL204 */
                   "class Plain:\n"
                   "    def forward(self, x):\n"
                   "        return float(x.sum())\n"}, /* 11: not a Module: silent */
  };
  char *got = run(rs, files, 2);
  CHECK_STR(got, "p/net.py:5 TL101 | `Net.forward` runs every step (forward of a Module/Layer subclass) at p/net.py:4\n"
                 "p/net.py:8 TL204 | `Data.__getitem__` runs once per sample (Dataset) at p/net.py:7\n");
  free(got);
}

/* A program (entry point + step loop) whose code never names an accelerator runs on the CPU: the
 * synchronisation rules (needs: accelerator) are silent; one file naming a device anywhere in the
 * project is enough to make them report, and so is the lack of an entry point (a fragment). */
static void test_cpu_only_project(tl_ruleset *rs) {
  src_file cpu[] = {
      {"c/train.py", "# comments may say .cuda() or device='cuda'\n"
                     "def fit(loader, net, opt):\n"
                     "    \"\"\"A docstring saying .to(device) is no code either.\"\"\"\n"
                     "    for x in loader:\n"
                     "        loss = net(x).mean()\n"
                     "        loss.backward()\n"
                     "        opt.step()\n"
                     "        print(loss.item())\n" /* line 8: silent, CPU only */
                     "if __name__ == '__main__':\n"
                     "    fit(None, None, None)\n"},
  };
  char *got = run(rs, cpu, 1);
  CHECK_STR(got, "");
  free(got);
  src_file gpu[] = {cpu[0], {"c/place.py", "def place(t):\n    return t.to(0)\n"}};
  got = run(rs, gpu, 2);
  CHECK_STR(got, "c/train.py:8 TL101 | in the step loop at c/train.py:4\n");
  free(got);
  src_file fragment[] = {{"c/train.py",
                          "def fit(loader, net, opt):\n    for x in loader:\n        loss = net(x).mean()\n"
                          "        loss.backward()\n        opt.step()\n        print(loss.item())\n"}};
  got = run(rs, fragment, 1);
  CHECK_STR(got, "c/train.py:6 TL101 | in the step loop at c/train.py:2\n");
  free(got);
}

/* An evaluation loop (over a DataLoader, no backward or optimizer step anywhere in it): its
 * findings are info, and a function called from a training loop and an evaluation loop keeps the
 * training loop's chain and severity. */
static void test_eval_loop(tl_ruleset *rs) {
  const char *text = "import torch\n"
                     "def record(loss):\n"
                     "    return loss.item()\n" /* 3: from both loops: training wins */
                     "def fit(model, train_loader, val_loader, opt):\n"
                     "    model.cuda()\n"
                     "    for x, y in logger.log_every(val_loader, 10):\n" /* 6: evaluation loop (comes first) */
                     "        loss = model(x.cuda(), y.cuda())\n"
                     "        record(loss)\n"
                     "        print(loss.item())\n"    /* 9: info */
                     "    for x, y in train_loader:\n" /* 10: training loop */
                     "        loss = model(x.cuda(), y.cuda())\n"
                     "        loss.backward()\n"
                     "        opt.step()\n"
                     "        record(loss)\n"
                     "        print(loss.item())\n"; /* 15: warning */
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  tl_analysis_add_text(a, "e/train.py", text, strlen(text));
  tl_analysis_run(a);
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    if (strcmp(tl_rule_code(f->rule), "TL101")) continue;
    char *hot = tl_hot_text(f);
    tl_buf_printf(&b, "%u %s | %s\n", f->line, f->severity == TL_SEVERITY_INFO ? "info" : "warning", hot);
    free(hot);
  }
  tl_analysis_delete(a);
  char *got = tl_buf_take(&b);
  CHECK_STR(got,
            "3 warning | in `record` at e/train.py:2, called from the step loop at e/train.py:10\n"
            "9 info | in the evaluation or inference loop (no backward pass or optimizer step in it) at e/train.py:6\n"
            "15 warning | in the step loop at e/train.py:10\n");
  free(got);
}

static void test_kinds_and_guards(tl_ruleset *rs) {
  src_file files[] = {
      {"k.py", "import torch\n"
               "def train(model, opt, data_iter, steps):\n"
               "    step = 0\n"
               "    while step < steps:\n" /* 4: while loop with backward */
               "        loss = model(next(data_iter))\n"
               "        loss.backward()\n"
               "        opt.step()\n"
               "        if step % 100 == 0:\n"
               "            print(loss.item())\n" /* 9: guarded */
               "        else:\n"
               "            last = loss.item()\n" /* 11: else branch: per step */
               "        log_now = step % 50 == 0\n"
               "        if log_now:\n"
               "            print(loss.item())\n" /* 14: guarded through a variable */
               "        cpu = torch.zeros(4)\n"
               "        cpu.sum().item()\n" /* 16: a CPU tensor: silent */
               "        step += 1\n"
               "def run_epochs(model, loader, opt):\n"
               "    for epoch in range(10):\n"                               /* 19: epoch loop, not a step loop */
               "        stats = torch.ones(3, device='cuda').sum().item()\n" /* 20: once per epoch */
               "        train_one_epoch(model, loader, opt)\n"
               "def train_one_epoch(model, loader, opt):\n"
               "    for x, y in loader:\n"    /* 23: no backward in it: an evaluation loop */
               "        n = y.sum().item()\n" /* 24: batch before .to(): CPU */
               "        x = x.to('cuda')\n"
               "        s = x.sum().item()\n" /* 26: on the device now */
               "def collate_fn(samples):\n"
               "    return torch.FloatTensor(samples[0])\n" /* 28: per-sample code */
               "def generate(model, x, max_len):\n"
               "    cur = 0\n"
               "    while cur < max_len:\n" /* 31: decoding loop: inference, not training */
               "        scores = model(x)\n"
               "        best = scores.max().item()\n" /* 33 */
               "        cur += 1\n"},
  };
  char *got = run(rs, files, 1);
  CHECK_STR(
      got,
      "k.py:4 TL601 | \n" /* the project's first CUDA training loop, no mixed precision anywhere */
      "k.py:11 TL101 | in the step loop at k.py:4\n"
      "k.py:26 TL101 | in the evaluation or inference loop (no backward pass or optimizer step in it) at k.py:23\n"
      "k.py:28 TL204 | `collate_fn` runs once per batch in the loader (collate_fn) at k.py:27\n"
      "k.py:33 TL101 | in the evaluation or inference loop (no backward pass or optimizer step in it) at k.py:31\n");
  free(got);
}

/* Comments (and, on request, triple-quoted string contents) are blanked in place; strings that
 * hold '#' and escaped quotes are code. */
static void test_code_text(void) {
  const char *src = "x = '#a\\'#b'  # c .cuda()\ns = \"\"\"doc .cuda()\n\\\"\"\" \"\"\"\ny = \"cuda\" # xy\n# last";
  size_t n = strlen(src);
  char *t = tl_code_text(src, n, false);
  CHECK_INT((int)strlen(t), (int)n);
  CHECK_STR(t, "x = '#a\\'#b'             \ns = \"\"\"doc .cuda()\n\\\"\"\" \"\"\"\ny = \"cuda\"     \n      ");
  free(t);
  t = tl_code_text(src, n, true);
  CHECK_STR(t, "x = '#a\\'#b'             \ns = \"\"\"           \n     \"\"\"\ny = \"cuda\"     \n      ");
  free(t);
  t = tl_code_text("'unterminated # not a comment\nz = 1 # c", 39, false);
  CHECK_STR(t, "'unterminated # not a comment\nz = 1    ");
  free(t);
  /* a NUL is an ordinary character: inside a comment, a docstring, a string; CRs end lines; a
   * backslash at the very end */
  static const char nul[] = "a # x\0y\r'''p\0q\\\n'''\r\n\"s\0t\" #\0\n\"\"\"e\\";
  size_t nn = sizeof nul - 1;
  t = tl_code_text(nul, nn, true);
  static const char want[] = "a      \r'''    \n'''\r\n\"s\0t\"   \n\"\"\"  ";
  CHECK_INT((int)sizeof want - 1, (int)nn);
  CHECK(!memcmp(t, want, nn) && t[nn] == 0);
  free(t);
}

/* tl_dotted: the dotted text of names, attributes and calls, also past its 256-byte buffer. */
static void test_dotted(void) {
  char src[2048];
  int o = snprintf(src, sizeof src, "x = ");
  for (int i = 0; i < 50; i++) o += snprintf(src + o, sizeof src - (size_t)o, "name_%02d_xyz . ", i); /* 50 deep */
  snprintf(src + o, sizeof src - (size_t)o, "f(1)\ny = a.b(c).d()\nz = (a).b\n");
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_python());
  TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)strlen(src));
  TSNode root = ts_tree_root_node(t);
  TSNode rhs[3];
  for (uint32_t i = 0; i < 3; i++) rhs[i] = TL_CHILD(ts_node_named_child(ts_node_named_child(root, i), 0), right);
  char *d = tl_dotted(rhs[0], src);
  CHECK(d && strlen(d) == 50 * 12 + 3 && !strncmp(d, "name_00_xyz.name_01_xyz.", 24) &&
        !strcmp(d + strlen(d) - 15, "name_49_xyz.f()"));
  free(d);
  d = tl_dotted(rhs[1], src);
  CHECK_STR(d ? d : "(null)", "a.b().d()");
  free(d);
  CHECK(tl_dotted(rhs[2], src) == NULL);
  ts_tree_delete(t);
  ts_parser_delete(p);
}

/* Line starts: \n, \r\n and a lone \r end lines; a file without \r takes the memchr path. */
static void test_lines(void) {
  static const char *const texts[] = {"", "a", "a\n", "a\nb\n\nc", "a\r\nb\rc\r", "\n\n"};
  static const uint32_t want[][6] = {{0}, {0}, {0, 2}, {0, 2, 4, 5}, {0, 3, 5, 7}, {0, 1, 2}};
  static const uint32_t count[] = {1, 1, 2, 4, 4, 3};
  for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
    tl_lines l;
    tl_lines_init(&l, texts[k], strlen(texts[k]));
    CHECK_INT((int)l.count, (int)count[k]);
    for (uint32_t i = 0; i < l.count && i < count[k]; i++) CHECK_INT((int)l.starts[i], (int)want[k][i]);
    tl_lines_free(&l);
  }
}

/* tl_rx_may: never "no" where the regex matches; "no" for texts that are too short or, for an
 * anchored regex, start with a byte no match starts with (caseless first units included). */
static void test_rx_pre(void) {
  static const char *const res[] = {"^(torch|paddle)\\.(arange|zeros)$",
                                    "^numpy\\.",
                                    "(?i)^Cuda",
                                    "(?i)^[é]x",
                                    "(^|\\.)([a-z]\\w*_)?tokenizer$",
                                    "^a?",
                                    "x|^y",
                                    "^(?:ab|c)+$",
                                    "(?m)^z",
                                    "^\\w+$",
                                    "^é"};
  static const char *const texts[] = {"torch.arange",
                                      "paddle.zeros",
                                      "torch.zeros_like",
                                      "self.arange",
                                      "numpy.x",
                                      "np.x",
                                      "cuda",
                                      "CUDA",
                                      "cUDA",
                                      "ÉX",
                                      "éx",
                                      "ex",
                                      "hf_tokenizer",
                                      "a.tokenizer",
                                      "",
                                      "b",
                                      "y",
                                      "xy",
                                      "abc",
                                      "cab",
                                      "q\nz",
                                      "z",
                                      "é",
                                      "e"};
  int rejected = 0;
  pcre2_match_data *md = pcre2_match_data_create(4, NULL);
  for (size_t i = 0; i < sizeof res / sizeof *res; i++) {
    int err;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)res[i], PCRE2_ZERO_TERMINATED, PCRE2_UTF, &err, &eo, NULL);
    CHECK(re != NULL);
    if (!re) continue;
    tl_regex_jit(re);
    tl_rx_pre p;
    tl_rx_pre_init(&p, re);
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
      size_t n = strlen(texts[k]);
      bool m = tl_regex_match(re, texts[k], n, 0, md, NULL) >= 0;
      bool may = tl_rx_may(&p, texts[k], n);
      if (m && !may) fprintf(stderr, "tl_rx_may said no: /%s/ on '%s'\n", res[i], texts[k]);
      CHECK(may || !m);
      rejected += !may;
    }
    pcre2_code_free(re);
  }
  pcre2_match_data_free(md);
  CHECK(rejected > 100); /* the filter does reject: 150 of the 264 pairs when written */
  tl_rx_pre p0;
  tl_rx_pre_init(&p0, NULL);
  CHECK(tl_rx_may(&p0, "", 0));
}

/* tl_ifind: ASCII case-insensitive search, also for a needle that does not start with a letter. */
static void test_ifind(void) {
  const char *s = "x = 1  # NoQA: TL101, Trainlint: ignore";
  CHECK(tl_ifind(s, strlen(s), "noqa") == strstr(s, "NoQA"));
  CHECK(tl_ifind(s, strlen(s), "trainlint:") == strstr(s, "Trainlint:"));
  CHECK(tl_ifind(s, strlen(s), "ignore") == s + strlen(s) - 6); /* at the very end */
  CHECK(tl_ifind(s, strlen(s) - 1, "ignore") == NULL);          /* cut by n */
  CHECK(tl_ifind(s, strlen(s), "tl101,") == strstr(s, "TL101,"));
  CHECK(tl_ifind(s, strlen(s), "# noqa") == strstr(s, "# NoQA"));
  CHECK(tl_ifind(s, strlen(s), "noqb") == NULL);
  CHECK(tl_ifind(s, strlen(s), "") == s);
  const char *t = "m.ACCUMULATE(x) no\0sync nO_sYnC";
  size_t tn = 31;
  CHECK(tl_ifind(t, tn, ".accumulate(") == t + 1);
  CHECK(tl_ifind(t, tn, "no_sync") == t + 24);
  const char *u = "@noqa`";
  CHECK(tl_ifind(u, 6, "`") == u + 5); /* a needle that is no letter: tolower, not | 0x20 */
  CHECK(tl_ifind("N", 1, "n") != NULL && tl_ifind("@", 1, "`") == NULL); /* '@' | 0x20 is '`' */
}

int main(void) {
  test_ifind();
  test_rx_pre();
  test_string_calls();
  test_subscript_calls();
  test_conditional_ctor();
  test_enumerate_counter();
  test_resolve();
  test_field_ids();
  test_node_is();
  test_up();
  test_func_at();
  test_code_text();
  test_lines();
  test_dotted();
  tl_ruleset *rs = rules();
  test_crossfile_chain(rs);
  test_bases_across_files(rs);
  test_cpu_only_project(rs);
  test_kinds_and_guards(rs);
  test_eval_loop(rs);
  tl_ruleset_delete(rs);
  TEST_DONE();
}
