/* tl_vocab.h - the framework vocabulary the analysis recognises: method, function and name word
 * lists of PyTorch, PaddlePaddle, NumPy and Python, in one place. Every list is NULL-terminated,
 * read-only and lives as long as the program; test membership with tl_str_in. */
#ifndef TL_VOCAB_H
#define TL_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

/* ---- tensor methods ---- */
/* Reductions whose result is a device value that a Python use reads: `x.max()`, `x.sum()`. */
extern const char *const tl_vocab_reduction_methods[];
/* Methods that return a tensor: evidence that their receiver is one (`t.mean()`, `t.cuda()`). */
extern const char *const tl_vocab_tensor_methods[];
/* Methods only framework tensors have (NumPy arrays and Python values have none of them). */
extern const char *const tl_vocab_tensor_only_methods[];
/* Methods that copy a tensor's value to the host as a Python value or array. */
extern const char *const tl_vocab_host_value_methods[];
/* The same and `.cpu()`: every method that reads a device tensor on the host. */
extern const char *const tl_vocab_host_read_methods[];
/* Methods whose result is in host memory wherever the tensor was (`.cpu()`, `.numpy()`). */
extern const char *const tl_vocab_host_methods[];
/* Attributes that read a tensor's metadata only, no kernel (`t.shape`; `t.size` in Paddle). */
extern const char *const tl_vocab_meta_attrs[];
/* Words that make a name a setting rather than a value (`loss_weight`, `loss_type`, `loss_fn`). */
extern const char *const tl_vocab_setting_words[];
/* Those of them that name a number (`loss_scale`, `loss_weight`; not `loss_fn`, a callable). */
extern const char *const tl_vocab_number_setting_words[];
/* Does the name (n bytes, any case) hold one of the words? */
bool tl_vocab_name_has(const char *name, size_t n, const char *const *words);
/* Is one of the parts of `name`, split at `_` and at a lower-case letter followed by a capital
 * (`val_step`, `testEpoch`), one of `words` (any case)? */
bool tl_vocab_name_part(const char *name, const char *const *words);
/* Libraries that compute on the host only: a value handed to them must be there (`linear_sum_assignment`). */
extern const char *const tl_vocab_host_libs[];
/* Framework functions that take an argument on the host only (`pack_padded_sequence`'s lengths
 * must be a CPU tensor or a list). */
extern const char *const tl_vocab_host_arg_calls[];
/* Methods of a Module that return the module itself (`Net(cfg).to(device)`, `net = net.cuda()`): a
 * binding to their result binds the object the call before made. */
extern const char *const tl_vocab_module_self_methods[];
/* Methods whose result is a Python scalar or size (`.item()`, `.size()`, `.numel()`). */
extern const char *const tl_vocab_scalar_methods[];
/* Methods whose truth value in a condition needs the tensor's value (`if t.any():`). */
extern const char *const tl_vocab_truth_methods[];
/* Methods that give a boolean tensor (a mask). */
extern const char *const tl_vocab_mask_methods[];
/* Methods that keep a tensor's dtype (a reshaped or copied mask is still a mask). */
extern const char *const tl_vocab_dtype_keeping_methods[];
/* Methods whose result carries no autograd history (integer or boolean results, host copies,
 * detached values), and attributes likewise. */
extern const char *const tl_vocab_graphless_methods[];
extern const char *const tl_vocab_graphless_attrs[];
/* Methods whose result lives where their tensor does (`x.type_as(y)`, `x.to(torch.float16)`,
 * `x.masked_fill(m, 0)`), besides the reductions and the ones listed above. */
extern const char *const tl_vocab_same_place_methods[];
/* Attributes that live where their tensor lives: `x.data`, `p.grad`, `x.T`. */
extern const char *const tl_vocab_same_place_attrs[];

/* ---- library functions ---- */
/* torch.<ctor>(...) builds a tensor, on the CPU unless `device=` says otherwise. */
extern const char *const tl_vocab_torch_ctors[];
/* The last component of torch/paddle names that do not make a tensor (`torch.device`,
 * `torch.finfo`), and the module prefixes whose functions do not (`torch.cuda.`). */
extern const char *const tl_vocab_not_tensor_names[];
extern const char *const tl_vocab_not_tensor_prefixes[];
/* Context managers and decorators that turn gradients off (resolved names). */
extern const char *const tl_vocab_no_grad_calls[];
/* Calls that are true only while a model is scripted, traced or exported, never in an eager
 * training step (resolved names): `torch.jit.is_scripting()`, `torch.onnx.is_in_onnx_export()`.
 * Not torch.compiler.is_compiling() nor torch.fx's is_fx_tracing() (also true under
 * torch.compile): compiled code trains. */
extern const char *const tl_vocab_not_eager_tests[];
/* DataLoader classes (resolved names). */
extern const char *const tl_vocab_dataloader_classes[];
/* Base classes that make a class a Module/Layer (resolved or as written). */
extern const char *const tl_vocab_module_bases[];
/* A call that takes sizes: the positional arguments whose bit is set in `args` (bit i: argument i;
 * TL_VOCAB_ALL_ARGS: every one) and the keyword arguments named in `keywords` (NULL-terminated;
 * NULL: none). */
typedef struct {
  const char *name;
  unsigned args;
  const char *const *keywords;
} tl_vocab_sized;
#define TL_VOCAB_ALL_ARGS (~0u)
/* Calls that size the tensor they make or shape (`torch.arange(n)`, `x.new_zeros(b, n)`,
 * `x.view(1, n)`, `range(n)`): a value given to one of them as a size is needed on the host. The
 * functions by their last component, in the modules of tl_vocab_size_modules (resolved names); the
 * tensor methods by name; the builtins by name. NULL-terminated (a row with a NULL name). */
extern const tl_vocab_sized tl_vocab_size_functions[];
extern const tl_vocab_sized tl_vocab_size_methods[];
extern const tl_vocab_sized tl_vocab_size_builtins[];
extern const char *const tl_vocab_size_modules[];
/* Calls whose result is a number computed from their arguments (resolved names): a size derived
 * from a value read on the host (`int(x)`, `max(n, 1)`, `math.ceil(n / 8)`, `np.max(lengths)`). */
extern const char *const tl_vocab_size_value_calls[];

/* ---- Python ---- */
/* Builtins that return a Python scalar or string, and ones that return a container. */
extern const char *const tl_vocab_py_scalar_builtins[];
extern const char *const tl_vocab_py_container_builtins[];
/* Builtins whose result has no autograd graph (`float(loss)`, `len(x)`). */
extern const char *const tl_vocab_py_graphless_builtins[];
/* Calls that wrap an iterable and yield its items (`enumerate(loader)`, `tqdm(loader)`). */
extern const char *const tl_vocab_iter_wrappers[];

/* ---- names ---- */
/* Receivers that are configuration objects (`args`, `cfg`, `hparams`), in lower case. */
extern const char *const tl_vocab_config_names[];
/* Names of a batch size (`bs`, `batch_size`), in lower case. */
extern const char *const tl_vocab_batch_size_names[];
/* Words that name a model object (`model`, `net`, `encoder`), in lower case. */
extern const char *const tl_vocab_model_words[];
/* Verbs of functions that look a model up or make one (`get_module`, `build_model`). */
extern const char *const tl_vocab_factory_verbs[];
/* Words of code that may run on an accelerator (see docs/hot-code.md, CPU-only projects). */
extern const char *const tl_vocab_accel_words[];
/* Words of names that count parts of a model or a pipeline (`num_layers`, `self.blocks`,
 * `text_encoders`): a loop over such a count or collection is no step loop. In lower case, singular. */
extern const char *const tl_vocab_structure_words[];
/* Words of names that count data or time (`num_steps`, `max_iters`, `timesteps`, `batches`): a loop
 * over such a count may be a step loop whatever else its name says. In lower case, singular. */
extern const char *const tl_vocab_data_words[];
/* Methods that list a model's parts (`model.parameters()`, `named_modules()`, `.items()`). */
extern const char *const tl_vocab_structure_methods[];
/* A regular expression (PCRE2) for names of validation, test or prediction data (`val_loader`,
 * `test_set`, `predict_dataloader`). */
extern const char tl_vocab_eval_names_re[];

extern const char *const tl_vocab_settings_words[];
/* The classes of configuration trees whose module-level nodes declare settings (`_C = CN()`, then
 * `_C.TRAIN.CLIP_GRAD = 5.0`: yacs, fvcore, ml_collections, easydict), by the callee's last name. */
extern const char *const tl_vocab_config_nodes[];

#endif
