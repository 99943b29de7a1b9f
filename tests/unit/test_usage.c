/* test_usage.c - models that nothing trains (tl_usage.c, docs/hot-code.md): a Module class that
 * only code which runs no training builds (an inference script, a test module, an evaluation
 * package, a helper only they call) runs its forward at evaluation frequency, so its syncs are info;
 * one a training builds, directly, inside another model, or through a subclass, stays per step, and
 * so does one the analysis cannot see every construction of (a registry, a name in a string, a
 * class named as a value, a project that trains nothing). */
#include <string.h>

#include "tl_test.h"
#include "tl_util.h"
#include "trainlint.h"

static const char *models = /* models.py: both forwards read a device value */
    "import torch\n"
    "from torch import nn\n"
    "class Trained(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x.cuda().sum().item()\n"
    "class Sampler(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x.cuda().mean().item()\n";
static const char *train = /* train.py: builds Trained and trains it */
    "import torch\n"
    "from models import Trained\n"
    "model = Trained().cuda()\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "for x in loader:\n"
    "    model(x.cuda()).backward()\n"
    "    opt.step()\n";
static const char *sample = /* sample.py: builds Sampler and trains nothing */
    "import torch\n"
    "from models import Sampler\n"
    "def main():\n"
    "    m = Sampler().cuda()\n"
    "    with torch.no_grad():\n"
    "        m(torch.randn(2, device='cuda'))\n"
    "if __name__ == '__main__':\n"
    "    main()\n";

/* "path:line severity" of each TL101 finding, then the chain's outermost step of the first one */
static char *run(tl_ruleset *rs, const char *const *files, size_t n) {
  tl_options o = {1, false, 0, NULL, 0, 0};
  tl_analysis *a = tl_analysis_new(rs, &o);
  for (size_t i = 0; i < n; i++) tl_analysis_add_text(a, files[2 * i], files[2 * i + 1], strlen(files[2 * i + 1]));
  tl_analysis_run(a);
  tl_buf b = {0};
  for (size_t i = 0; i < tl_analysis_finding_count(a); i++) {
    const tl_finding *f = tl_analysis_finding(a, i);
    tl_buf_printf(&b, "%s:%u %s\n", f->path, f->line, tl_severity_name(f->severity));
  }
  if (tl_analysis_finding_count(a) > 1) {
    const tl_finding *f = tl_analysis_finding(a, 1);
    if (f->nhot) tl_buf_printf(&b, "%s\n", f->hot[f->nhot - 1].what);
  }
  tl_analysis_delete(a);
  return tl_buf_take(&b);
}

#define EXPECT(want, ...) \
  do { \
    const char *const fs[] = {__VA_ARGS__}; \
    char *got = run(rs, fs, sizeof fs / sizeof *fs / 2); \
    CHECK_STR(got, want); \
    free(got); \
  } while (0)

static const char *both_warn = "models.py:5 warning\nmodels.py:8 warning\n"
                               "`Sampler.forward` runs every step (forward of a Module/Layer subclass)\n";
static const char *sampler_info = "models.py:5 warning\nmodels.py:8 info\n"
                                  "`Sampler.forward` runs when an evaluation or an inference does: only code that "
                                  "trains nothing builds `Sampler` (sample.py:4)\n";

int main(void) {
  tl_ruleset *rs = tl_ruleset_new();
  CHECK(tl_ruleset_add_builtin(rs));
  const char *sel[] = {"TL101"};
  tl_ruleset_select(rs, sel, 1, NULL, 0);
  CHECK(tl_ruleset_compile(rs));

  /* an inference script builds Sampler: info, naming the construction */
  EXPECT(sampler_info, "models.py", models, "train.py", train, "sample.py", sample);
  /* ... and so do a test module and an evaluation package */
  EXPECT("models.py:5 warning\nmodels.py:8 info\n"
         "`Sampler.forward` runs when an evaluation or an inference does: only code that trains nothing builds "
         "`Sampler` (eval/bench.py:2)\n",
         "models.py", models, "train.py", train, "sample.py", sample, "tests/test_models.py",
         "from models import Sampler\ndef test_sampler():\n    Sampler()\n", "eval/bench.py",
         "from models import Sampler\nSampler()\n");
  /* a project that trains nothing: nothing is known about how its models are used */
  EXPECT(both_warn, "models.py", models, "sample.py", sample);
  /* the training builds it too, inside a model it trains, or a subclass of it */
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "more.py",
         "from models import Sampler\nimport torch\ndef step(opt):\n    Sampler()\n    opt.step()\n");
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "wrap.py",
         "from models import Sampler, Trained\nclass Both(Trained):\n    def __init__(self):\n"
         "        self.s = Sampler()\n",
         "train2.py", "from wrap import Both\nm = Both()\nfor x in loader:\n    m(x).backward()\n    opt.step()\n");
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "sub.py",
         "from models import Sampler\nclass Fast(Sampler):\n    pass\n", "train3.py",
         "from sub import Fast\nm = Fast()\nfor x in loader:\n    m(x).backward()\n    opt.step()\n");
  /* a script that hands training to a library (`trainer.train()`) may train what it builds */
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "fit.py",
         "from models import Sampler\ntrainer = Trainer(model=Sampler())\ntrainer.train()\n");
  /* a module that others import builds it as they import it: their programs may train it */
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "defaults.py",
         "from models import Sampler\nDEFAULT = Sampler()\n", "train4.py", "import defaults\n");
  /* a helper that only the inference script calls builds it there; one the training calls, there */
  static const char *helper = "from models import Sampler\ndef load():\n    return Sampler()\n";
  EXPECT("models.py:5 warning\nmodels.py:8 info\n"
         "`Sampler.forward` runs when an evaluation or an inference does: only code that trains nothing builds "
         "`Sampler` (helper.py:3)\n",
         "models.py", models, "train.py", train, "helper.py", helper, "sample.py",
         "import helper\ndef main():\n    helper.load()\nmain()\n");
  EXPECT(both_warn, "models.py", models, "train.py", train, "helper.py", helper, "sample.py",
         "import helper\ndef main():\n    helper.load()\nmain()\n", "train5.py",
         "import helper\nm = helper.load()\nfor x in loader:\n    m(x).backward()\n    opt.step()\n");
  /* a name the analysis cannot follow: in a string (a registry by name), as a value, in an
   * annotation, or under a decorator */
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "auto.py",
         "MAPPING = {'sampler': 'Sampler'}\n");
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "reg.py",
         "from models import Sampler\nREGISTRY = [Sampler]\n");
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "ann.py",
         "from models import Sampler\ndef run(m: Sampler):\n    pass\n");
  static const char *decorated = "import torch\nfrom torch import nn\ndef register(c):\n    return c\n"
                                 "@register\nclass Sampler(nn.Module):\n    def forward(self, x):\n"
                                 "        return x.cuda().mean().item()\n";
  EXPECT("models.py:8 warning\n", "models.py", decorated, "train.py",
         "import torch\nimport models\nm = torch.nn.Linear(2, 2).cuda()\nfor x in loader:\n"
         "    m(x).backward()\n    opt.step()\n",
         "sample.py", sample);
  /* mentions that account for themselves: a docstring, a multi-line import, `__all__`, a comment */
  EXPECT(sampler_info, "models.py", models, "train.py", train, "sample.py", sample, "pkg.py",
         "\"\"\"Exports Sampler.\"\"\"\nfrom models import (\n    Trained,\n    Sampler,\n)\n"
         "__all__ = [\n    'Sampler',\n]\n# Sampler is built by sample.py\n");

  /* the class naming itself (`super(Sampler, self)`), and prose in a string, build nothing; a
   * string that ends a dotted path with the name may be a registry's target */
  EXPECT(sampler_info, "models.py", models, "train.py", train, "sample.py", sample, "more.py",
         "from models import Sampler\nclass Sub(Sampler):\n    def __init__(self):\n"
         "        super(Sub, self).__init__()\n        super(Sampler, self).__init__()\n"
         "def warn():\n    print('Sampler can only run on the GPU')\n",
         "sample2.py", "from more import Sub\nSub()\n");
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "cfg.py",
         "TARGET = {'target': 'models.Sampler'}\n");

  /* a test builds every model it tests: that says nothing of training (a registry or a
   * configuration may build it), and its call of a factory does not make the factory a callee */
  EXPECT(both_warn, "models.py", models, "train.py", train, "tests/test_models.py",
         "from models import Sampler\ndef test_sampler():\n    Sampler()\n");
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "zoo.py",
         "from models import Sampler\ndef sampler():\n    return Sampler()\n", "tests/test_zoo.py",
         "from zoo import sampler\ndef test_zoo():\n    sampler()\n");
  /* a decorator on several lines, and a class handed on under another name */
  static const char *decorated2 = "import torch\nfrom torch import nn\n@MODELS.register_module(\n"
                                  "    name='s')\nclass Sampler(nn.Module):\n    def forward(self, x):\n"
                                  "        return x.cuda().mean().item()\n";
  EXPECT("models.py:7 warning\n", "models.py", decorated2, "train.py",
         "import torch\nimport models\nm = torch.nn.Linear(2, 2).cuda()\nfor x in loader:\n"
         "    m(x).backward()\n    opt.step()\n",
         "sample.py", sample);
  EXPECT(both_warn, "models.py", models, "train.py", train, "sample.py", sample, "alias.py",
         "from models import Sampler as S\nREGISTRY = {'s': S}\n");
  /* the methods and parts of a model nothing trains run as often as it does: info, not gone */
  static const char *parts = "import torch\nfrom torch import nn\nclass Part(nn.Module):\n"
                             "    def forward(self, x):\n        return x.cuda().std().item()\n"
                             "class Whole(nn.Module):\n    def __init__(self):\n        self.part = Part()\n"
                             "    def head(self, x):\n        return x.cuda().sum().item()\n"
                             "    def forward(self, x):\n        self.head(x)\n        return self.part(x)\n";
  EXPECT("parts.py:5 info\nparts.py:10 info\n"
         "`Whole.forward` runs when an evaluation or an inference does: only code that trains nothing builds "
         "`Whole` (infer.py:2)\n",
         "parts.py", parts, "train.py", train, "infer.py", "from parts import Whole\nWhole()(torch.ones(2))\n");
  /* the construction the chain names is the first by path, whatever the order of the files */
  {
    const char *const fs[] = {"models.py", models, "train.py", train, "z_sample.py", sample, "a_sample.py", sample};
    const char *const rev[] = {"a_sample.py", sample, "z_sample.py", sample, "train.py", train, "models.py", models};
    char *g1 = run(rs, fs, 4), *g2 = run(rs, rev, 4);
    CHECK(strstr(g1, "(a_sample.py:4)") != NULL);
    CHECK_STR(g2, g1);
    free(g1);
    free(g2);
  }

  /* a model built only in a branch that a setting off by default opens: a dataclass field that
   * defaults to off, handed on as a keyword; one that defaults to on builds it in every step */
  static const char *layers = "import torch\nfrom dataclasses import dataclass, field\nfrom torch import nn\n"
                              "@dataclass\nclass Cfg:\n    use_probe: bool = field(default=False, metadata={})\n"
                              "class Probe(nn.Module):\n    def forward(self, x):\n"
                              "        return x.cuda().max().item()\n"
                              "class Layer(nn.Module):\n    def __init__(self, use_probe=False):\n"
                              "        if use_probe:\n            self.probe = Probe()\n"
                              "    def forward(self, x):\n        return self.probe(x)\n";
  static const char *fit = "import torch\nfrom layers import Cfg, Layer\ncfg = Cfg()\n"
                           "m = Layer(use_probe=cfg.use_probe).cuda()\nfor x in loader:\n"
                           "    m(x).backward()\n    opt.step()\n";
  EXPECT("layers.py:9 info\n", "layers.py", layers, "fit.py", fit);
  char *on = tl_strdup(layers);
  memcpy(strstr(on, "default=False"), "default=True ", 13);
  {
    const char *const fs[] = {"layers.py", on, "fit.py", fit};
    char *got = run(rs, fs, 2);
    CHECK_STR(got, "layers.py:9 warning\n");
    free(got);
  }
  free(on);
  /* a dataclass that holds data, not settings: its fields are no options */
  char *data = tl_strdup(layers);
  memcpy(strstr(data, "class Cfg"), "class Bat", 9);
  {
    char *fit2 = tl_strdup(fit);
    memcpy(strstr(fit2, "Cfg, Layer"), "Bat, Layer", 10);
    memcpy(strstr(fit2, "cfg = Cfg()"), "cfg = Bat()", 11);
    const char *const fs[] = {"layers.py", data, "fit.py", fit2};
    char *got = run(rs, fs, 2);
    CHECK_STR(got, "layers.py:9 warning\n");
    free(got);
    free(fit2);
  }
  free(data);

  tl_ruleset_delete(rs);
  TEST_DONE();
}
