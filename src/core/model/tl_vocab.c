/* tl_vocab.c - the framework vocabulary the analysis recognises (see tl_vocab.h). */
#include "tl_vocab.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "tl_util.h"

/* The word lists are laid out by hand, a few words to a line. */
/* clang-format off */
const char *const tl_vocab_reduction_methods[] = {"max", "_max", "min", "_min", "sum", "item", "amax", "amin",
                                                  "argmax", "argmin", "count_nonzero", NULL};
const char *const tl_vocab_tensor_methods[] = {"sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin",
  "norm", "std", "var", "prod", "any", "all", "abs", "float", "double", "half", "detach", "clone", "_max", "_min",
  "logsumexp", "squeeze", "unsqueeze", "view", "reshape", "cuda", NULL};
const char *const tl_vocab_tensor_only_methods[] = {"detach", "detach_", "cuda", "cpu", "numpy", "contiguous",
  "permute", "unsqueeze", "type_as", "masked_fill", "masked_fill_", "masked_select", "expand", "expand_as", "clone",
  "half", "bfloat16", "long", "int", "float", "double", "bool", "byte", "size", "dim", "numel", "nelement",
  "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "index_select", "gather", "scatter", "scatter_",
  "scatter_add", "scatter_add_", "softmax", "log_softmax", "sigmoid", "topk", "backward", "requires_grad_",
  "pin_memory", "flatten", "transpose", "view_as", "reshape_as", "norm", "chunk", "unbind", NULL};
const char *const tl_vocab_host_value_methods[] = {"item", "tolist", "numpy", NULL};
const char *const tl_vocab_host_read_methods[] = {"item", "tolist", "numpy", "cpu", NULL};
const char *const tl_vocab_host_methods[] = {"cpu", "numpy", "pin_memory", NULL};
const char *const tl_vocab_host_libs[] = {"scipy", "sklearn", "cv2", "random", "lap", "lapx", "pycocotools",
  "skimage", "shapely", "networkx", "PIL", NULL};
const char *const tl_vocab_host_arg_calls[] = {"torch.nn.utils.rnn.pack_padded_sequence",
  "torch.nn.utils.rnn.pack_sequence", NULL};
const char *const tl_vocab_setting_words[] = {"weight", "scale", "coef", "factor", "ratio", "type", "func", "_fn",
  "name", "cfg", "config", "lambda", "alpha", "beta", "gamma", "mode", "reduction", "kwargs", "args", "params",
  "dict", "list", "names", "keys", "fns", NULL};
const char *const tl_vocab_number_setting_words[] = {"weight", "scale", "coef", "factor", "ratio", "lambda", "alpha",
  "beta", "gamma", NULL};
const char *const tl_vocab_meta_attrs[] = {"shape", "dtype", "device", "ndim", "is_cuda", "place", "size", NULL};
const char *const tl_vocab_module_self_methods[] = {"to", "cuda", "cpu", "eval", "train", "float", "half",
  "double", "bfloat16", "type", "requires_grad_", "share_memory", NULL};
const char *const tl_vocab_scalar_methods[] = {"item", "size", "dim", "ndimension", "numel", "nelement", "get_device",
  "element_size", "stride", "storage_offset", "data_ptr", "is_contiguous", "is_floating_point", "is_complex", NULL};
const char *const tl_vocab_truth_methods[] = {"any", "all", "max", "_max", "min", "_min", "sum", "amax", "amin",
                                              "equal", "allclose", "isnan", "isinf", NULL};
const char *const tl_vocab_mask_methods[] = {"bool", "eq", "ne", "gt", "ge", "lt", "le", "greater", "less",
  "greater_equal", "less_equal", "not_equal", "equal_", "isnan", "isinf", "isfinite", "isneginf", "isposinf",
  "isreal", "logical_and", "logical_or", "logical_not", "logical_xor", "isin", "signbit", NULL};
const char *const tl_vocab_dtype_keeping_methods[] = {"unsqueeze", "squeeze", "expand", "expand_as", "view",
  "reshape", "flatten", "transpose", "permute", "contiguous", "clone", "detach", "repeat", "tile", "t", NULL};
const char *const tl_vocab_graphless_methods[] = {"detach", "detach_", "item", "tolist", "numpy", "argmax",
  "argmin", "argsort", "eq", "ne", "gt", "ge", "lt", "le", "long", "int", "bool", "byte", "short", "nonzero",
  "size", "dim", "numel", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not", "any", "all",
  "count_nonzero", "data_ptr", "equal", "allclose", "element_size", "nelement", "get_device", "topk_indices",
  "bincount", "sign", NULL};
const char *const tl_vocab_graphless_attrs[] = {"data", "grad", "shape", "dtype", "device", "ndim", "is_cuda",
  "requires_grad", "grad_fn", "is_leaf", NULL};
const char *const tl_vocab_same_place_methods[] = {"type_as", "type", "to", "masked_fill", "masked_fill_",
  "clamp", "clamp_", "sigmoid", "softmax", "log_softmax", "exp", "log", "sqrt", "pow", "neg", "add", "sub", "mul",
  "div", "matmul", "mm", "bmm", "gather", "index_select", "masked_select", "topk", "sort", "cumsum", "flip", "roll",
  "narrow", "select", "split", "chunk", "unbind", "round", "floor", "ceil", "square", "cast", "flatten", NULL};
const char *const tl_vocab_same_place_attrs[] = {"data", "grad", "T", "mT", "H", "mH", "real", "imag", "values",
  "indices", NULL};

const char *const tl_vocab_torch_ctors[] = {
  "zeros", "ones", "empty", "full", "arange", "range", "linspace", "logspace", "eye", "rand", "randn",
  "randint", "randperm", "tensor", "as_tensor", "from_numpy", "FloatTensor", "LongTensor", "Tensor",
  "DoubleTensor", "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "zeros_like", "ones_like",
  "empty_like", "full_like", "rand_like", "randn_like", NULL};
const char *const tl_vocab_not_tensor_names[] = {"device", "Size", "dtype", "finfo", "iinfo", "typename", "numel",
  "result_type", "promote_types", "can_cast", "Generator", "Stream", "Event", "no_grad", "enable_grad",
  "inference_mode", "seed", "initial_seed", "manual_seed", "is_tensor", "is_floating_point", "is_complex",
  "get_default_dtype", "get_num_threads", "is_grad_enabled", "is_autocast_enabled", NULL};
const char *const tl_vocab_not_tensor_prefixes[] = {"torch.cuda.", "torch.distributed.", "torch.backends.",
  "torch.jit.", "torch.fx.", "torch.onnx.", "torch.utils.data.", "torch.utils.cpp_extension.",
  "torch.utils.tensorboard.", "torch.utils.benchmark.", "torch.utils.model_zoo.", "torch.hub.", "paddle.device.",
  "paddle.distributed.", "paddle.utils.cpp_extension.", NULL};
const char *const tl_vocab_no_grad_calls[] = {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
  "torch.autograd.inference_mode", "paddle.no_grad", "paddle.fluid.dygraph.no_grad", NULL};
const char *const tl_vocab_not_eager_tests[] = {
  "torch.jit.is_scripting",             /* TorchScript compiles the code: its Python never runs */
  "torch._jit_internal.is_scripting",
  "torch.jit.is_tracing",               /* torch.jit.trace records one run and replays the graph */
  "torch.jit._trace.is_tracing",
  "torch._C._is_tracing",
  "torch._C._get_tracing_state",
  "torch.onnx.is_in_onnx_export",       /* torch.onnx.export */
  "torch.onnx.utils.is_in_onnx_export",
  NULL};
const char *const tl_vocab_dataloader_classes[] = {"torch.utils.data.DataLoader",
  "torch.utils.data.dataloader.DataLoader", "paddle.io.DataLoader", NULL};
const char *const tl_vocab_module_bases[] = {"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module",
  "Module", "paddle.nn.Layer", "paddle.nn.layer.layers.Layer", "nn.Layer", "torch.nn.Sequential",
  "torch.nn.ModuleList", "lightning.LightningModule", "lightning.pytorch.LightningModule",
  "pytorch_lightning.LightningModule", "pl.LightningModule", "L.LightningModule", "LightningModule", NULL};

/* The calls that take sizes, one a row: which positional arguments (bits) and keywords are sizes. */
#define TL_ARG(i) (1u << (i))
#define TL_KW(...) ((const char *const[]){__VA_ARGS__, NULL})
const tl_vocab_sized tl_vocab_size_functions[] = {
  {.name = "arange",   .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("start", "end", "stop", "step")},
  {.name = "zeros",    .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size", "shape")},
  {.name = "ones",     .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size", "shape")},
  {.name = "empty",    .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size", "shape")},
  {.name = "full",     .args = TL_ARG(0),             .keywords = TL_KW("size", "shape")},
  {.name = "rand",     .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size", "shape")},
  {.name = "randn",    .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size", "shape")},
  {.name = "randint",  .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("low", "high", "size", "shape")},
  {.name = "randperm", .args = TL_ARG(0),             .keywords = TL_KW("n")},
  {.name = "linspace", .args = TL_ARG(2),             .keywords = TL_KW("steps", "num")},
  {.name = "logspace", .args = TL_ARG(2),             .keywords = TL_KW("steps", "num")},
  {.name = "eye",      .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("n", "m", "N", "M", "num_rows", "num_columns")},
  {.name = "reshape",  .args = TL_ARG(1),             .keywords = TL_KW("shape", "newshape")},
  {.name = "expand",   .args = TL_ARG(1),             .keywords = TL_KW("shape")},
  {.name = "tile",     .args = TL_ARG(1),             .keywords = TL_KW("dims", "reps", "repeat_times")},
  {.name = "narrow",   .args = TL_ARG(2) | TL_ARG(3), .keywords = TL_KW("start", "length")},
  {.name = "split",    .args = TL_ARG(1),             .keywords = TL_KW("split_size_or_sections", "num_or_sections",
                                                                      "indices_or_sections")},
  {.name = "pad",      .args = TL_ARG(1),             .keywords = TL_KW("pad", "pad_width")},
  {.name = NULL},
};
const tl_vocab_sized tl_vocab_size_methods[] = {
  {.name = "new_zeros", .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size")},
  {.name = "new_ones",  .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size")},
  {.name = "new_empty", .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size")},
  {.name = "new_full",  .args = TL_ARG(0),             .keywords = TL_KW("size")},
  {.name = "expand",    .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size", "shape")},
  {.name = "view",      .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("size", "shape")},
  {.name = "reshape",   .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("shape")},
  {.name = "repeat",    .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("repeats", "repeat_times")},
  {.name = "tile",      .args = TL_VOCAB_ALL_ARGS,     .keywords = TL_KW("dims", "repeat_times")},
  {.name = "narrow",    .args = TL_ARG(1) | TL_ARG(2), .keywords = TL_KW("start", "length")},
  {.name = "split",     .args = TL_ARG(0),             .keywords = TL_KW("split_size", "split_size_or_sections",
                                                                       "num_or_sections")},
  {.name = NULL},
};
const tl_vocab_sized tl_vocab_size_builtins[] = {
  {.name = "range", .args = TL_VOCAB_ALL_ARGS, .keywords = NULL},
  {.name = NULL},
};
#undef TL_KW
#undef TL_ARG
const char *const tl_vocab_size_modules[] = {
  "torch",
  "paddle",
  "numpy",
  "numpy.random",
  "torch.nn.functional",
  "paddle.nn.functional",
  NULL,
};
const char *const tl_vocab_size_value_calls[] = {
  "int",
  "round",
  "max",
  "min",
  "sum",
  "abs",
  "math.ceil",
  "math.floor",
  "numpy.max",
  "numpy.min",
  "numpy.amax",
  "numpy.amin",
  "numpy.sum",
  "numpy.prod",
  "numpy.ceil",
  "numpy.floor",
  NULL,
};

const char *const tl_vocab_py_scalar_builtins[] = {"len", "int", "float", "bool", "str", "round", "abs", "hash",
  "isinstance", "repr", "format", "ord", "chr", NULL};
const char *const tl_vocab_py_container_builtins[] = {"list", "dict", "tuple", "set", "sorted", "range",
  "enumerate", "zip", "defaultdict", "OrderedDict", NULL};
const char *const tl_vocab_py_graphless_builtins[] = {"float", "int", "bool", "len", "str", "round", "repr", "abs",
  "list", "tuple", "dict", "set", "sum", "max", "min", "isinstance", "format", "print", NULL};
const char *const tl_vocab_iter_wrappers[] = {"enumerate", "tqdm", "zip", "iter", "islice", "track",
  "progress_bar", NULL};

const char *const tl_vocab_config_names[] = {"args", "arg", "opt", "opts", "cfg", "config", "conf", "configs",
  "hparams", "hp", "hps", "hyp", "params", "options", "flags", "settings", "hyperparams", "training_args",
  "train_args", "train_cfg", "train_config", "model_args", NULL};
const char *const tl_vocab_batch_size_names[] = {"b", "bs", "bsz", "n_batch", "nbatch", "batch_size", "batchsize",
  NULL};
const char *const tl_vocab_model_words[] = {"model", "net", "network", "module", "generator", "discriminator",
  "encoder", "decoder", "backbone", "transformer", NULL};
const char *const tl_vocab_factory_verbs[] = {"get", "set", "build", "make", "create", "load", "save", "init", "to",
  "from", "find", "lookup", "register", "wrap", "unwrap", "prepare", "convert", "fuse", "swap", "replace", "named",
  "iter", "is", "has", "copy", "fqn", "print", "provider", "factory", "builder", NULL};
const char *const tl_vocab_accel_words[] = {"cuda", "cudnn", "nccl", "gpu", "gpus", "device", "devices",
  "accelerator", "accelerators", "accelerate", "xla", "mps", "npu", "tpu", "xpu", "hpu", "mlu", "ipu", "rocm",
  "paddle", "paddlepaddle", "lightning", "deepspeed", "transformers", "dataparallel", "distributeddataparallel",
  "fsdp", "megatron", "colossalai", "apex", "triton", NULL};
const char *const tl_vocab_structure_words[] = {"layer", "level", "stage", "head", "block", "scale", "encoder",
  "decoder", "tokenizer", "branch", "dim", "axis", "axe", "grid", "channel", "group", "feat", "feature", "fpn", "stride", "anchor",
  "class", "cls", "module", "model", "net", "network", "component", "prompt", "tile", "expert", "task", "loss",
  "criterion", "optimizer", "opt", "scheduler", "metric", "meter", "key", "name", "param", "parameter", "weight",
  "buffer", "child", "children", "part", "view", "camera", "modality", "embedding", "embed", "adapter", "lora",
  "hook", "callback", "pipeline", "transform", "aug", "augmentation", "resolution", "res", "size", "shape", "kernel",
  NULL};
const char *const tl_vocab_data_words[] = {"loader", "dataloader", "dataset", "data", "batch", "sample", "step",
  "iter", "iteration", "epoch", "timestep", "time", "token", "seq", "sequence", "episode", "frame", "example",
  "instance", "record", "item", "row", "line", "chunk", "shard", "micro", "microbatch", "round", "trial", "gen",
  "generation", NULL};
const char *const tl_vocab_structure_methods[] = {"parameters", "named_parameters", "modules", "named_modules",
  "children", "named_children", "buffers", "named_buffers", "state_dict", "items", "keys", "values", NULL};
const char tl_vocab_eval_names_re[] =
    "(?i)(^|[^a-z])(val|valid|validation|eval|evaluation|test|testing|dev|predict|prediction|infer|inference)"
    "([^a-z]|$|loader|set|data|dl)";
/* What the name of a class that holds settings contains (`MaeConfig`, `TrainingArguments`,
 * `RunOptions`, case aside): its dataclass fields are options (tl_model.c) */
const char *const tl_vocab_settings_words[] = {"config", "cfg", "args", "arguments", "options", "opts", "settings", "params",
  NULL};
const char *const tl_vocab_config_nodes[] = {"CN", "CfgNode", "ConfigNode", "ConfigDict", "EasyDict", "edict",
  "AttrDict", NULL};
/* clang-format on */

bool tl_vocab_name_part(const char *name, const char *const *words) {
  for (const char *p = name; *p;) {
    while (*p == '_') p++;
    const char *e = p;
    while (*e && *e != '_' && !(e > p && islower((unsigned char)e[-1]) && isupper((unsigned char)e[0]))) e++;
    for (const char *const *w = words; e > p && *w; w++)
      if (strlen(*w) == (size_t)(e - p) && !strncasecmp(p, *w, (size_t)(e - p))) return true;
    p = e;
  }
  return false;
}

bool tl_vocab_name_has(const char *name, size_t n, const char *const *words) {
  for (const char *const *w = words; *w; w++)
    if (tl_icontains(name, n, *w)) return true;
  return false;
}
