/* tl_values.c - where a value lives: an expression classified as a device tensor, a host tensor
 * or array, a Python value, a container, or unknown, from its syntax and the bindings of the
 * file's model (docs/hot-code.md, "Device awareness"). */
#include "tl_rules.h"

#include <ctype.h>
#include <string.h>

#include "tl_vocab.h"

/* Library calls that do not make a tensor: torch.cuda.memory_reserved(), torch.device("cuda"),
 * torch.nn.Linear(...) (a module), torch.distributed.get_rank(), torch.is_tensor(x), ... */
bool tl_value_lib_not_tensor(const char *q) {
  const char *last = strrchr(q, '.');
  last = last ? last + 1 : q;
  if (tl_str_in(last, strlen(last), tl_vocab_not_tensor_names) || !strncmp(last, "is_", 3) || !strncmp(last, "get_", 4))
    return true;
  for (const char *const *p = tl_vocab_not_tensor_prefixes; *p; p++)
    if (!strncmp(q, *p, strlen(*p))) return true;
  /* torch.nn.Linear(...) makes a module; torch.nn.functional.* and torch.nn.utils.* make tensors */
  return !strncmp(q, "torch.nn.", 9) && strncmp(q, "torch.nn.functional.", 20) && strncmp(q, "torch.nn.utils.", 15);
}

/* Evidence that an expression is a tensor (of a framework), wherever it lives: a call of a torch or
 * paddle function that makes one, a method only tensors have (`.detach()`, `.cuda()`, `.view()`,
 * `.numpy()`: NumPy arrays and Python values have none of them), an element or arithmetic of a
 * tensor, or a name bound to one. */
bool tl_value_is_tensor(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth) {
  n = tl_unparen(n);
  if (depth > 12 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (tl_node_is(fn, "attribute") && tl_node_text_in(TL_CHILD(fn, attribute), src, tl_vocab_tensor_only_methods))
      return true;
    char *d = tl_dotted(fn, src);
    char *q = d ? tl_model_resolve(m, d) : NULL;
    bool lib = q && !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7)) &&
               (!tl_value_lib_not_tensor(q) || !strcmp(q, "torch.nn.Parameter") ||
                !strcmp(q, "torch.nn.parameter.Parameter") || !strcmp(q, "torch.nn.Buffer"));
    free(q);
    free(d);
    if (lib) return true;
    /* a method that keeps its tensor's kind: x.sum(), x.mean() of a tensor */
    if (tl_node_is(fn, "attribute") && (tl_node_text_in(TL_CHILD(fn, attribute), src, tl_vocab_reduction_methods) ||
                                        tl_node_text_in(TL_CHILD(fn, attribute), src, tl_vocab_tensor_methods) ||
                                        tl_node_text_in(TL_CHILD(fn, attribute), src, tl_vocab_same_place_methods) ||
                                        tl_node_text_in(TL_CHILD(fn, attribute), src, tl_vocab_mask_methods)))
      return tl_value_is_tensor(m, TL_CHILD(fn, object), src, func, depth + 1);
    return false;
  }
  if (tl_node_is(n, "subscript")) return tl_value_is_tensor(m, TL_CHILD(n, value), src, func, depth + 1);
  if (tl_node_is(n, "conditional_expression")) /* `paddle.concat(ls) if len(ls) > 1 else ls[0]` */
    return tl_value_is_tensor(m, ts_node_named_child(n, 0), src, func, depth + 1) ||
           tl_value_is_tensor(m, ts_node_named_child(n, 2), src, func, depth + 1);
  if (tl_node_is(n, "binary_operator")) {
    TSNode l = TL_CHILD(n, left);
    if (tl_node_is(l, "string") || tl_node_is(l, "concatenated_string")) return false;
    return tl_value_is_tensor(m, l, src, func, depth + 1) ||
           tl_value_is_tensor(m, TL_CHILD(n, right), src, func, depth + 1);
  }
  if (tl_node_is(n, "attribute") && tl_node_text_in(TL_CHILD(n, attribute), src, tl_vocab_same_place_attrs))
    return tl_value_is_tensor(m, TL_CHILD(n, object), src, func, depth + 1);
  if (!tl_node_is(n, "identifier") && !tl_node_is(n, "attribute")) return false;
  char *d = tl_dotted(n, src);
  const tl_binding *b = d ? tl_model_binding(m, d, func, ts_node_start_byte(n)) : NULL;
  if (!b && d && !strncmp(d, "self.", 5) && !strchr(d + 5, '.') && func >= 0 && (size_t)func < m->funcs.n &&
      m->funcs.v[func].cls >= 0) { /* an attribute set in a method of the class: self.gain = nn.Parameter(...) */
    const tl_class *k = &m->classes.v[m->funcs.v[func].cls];
    for (size_t i = 0; i < k->attrs.n && !b; i++)
      if (!strcmp(k->attrs.v[i].name, d + 5)) b = &k->attrs.v[i];
  }
  free(d);
  TSNode v = b && !b->elem ? tl_bvalue(m, b) : (TSNode){0};
  return !ts_node_is_null(v) && tl_value_is_tensor(m, v, src, b->func, depth + 1);
}

static tl_valkind tl_combine(tl_valkind a, tl_valkind b) {
  if (a == TL_VAL_DEVICE || b == TL_VAL_DEVICE) return TL_VAL_DEVICE;
  if (a == TL_VAL_UNKNOWN || b == TL_VAL_UNKNOWN) return TL_VAL_UNKNOWN;
  if (a == TL_VAL_CPU || b == TL_VAL_CPU) return TL_VAL_CPU;
  if (a == TL_VAL_LIST || b == TL_VAL_LIST) return TL_VAL_UNKNOWN;
  return TL_VAL_PY;
}

/* Which text names a device: "cuda", "device", "gpu", rank/local_rank ids. */
static tl_valkind tl_device_arg(const char *src, TSNode arg) {
  uint32_t s = ts_node_start_byte(arg), e = ts_node_end_byte(arg);
  if (tl_icontains(src + s, e - s, "cpu")) return TL_VAL_CPU;
  if (tl_icontains(src + s, e - s, "cuda") || tl_icontains(src + s, e - s, "device") ||
      tl_icontains(src + s, e - s, "gpu") || tl_icontains(src + s, e - s, "rank"))
    return TL_VAL_DEVICE;
  return TL_VAL_UNKNOWN;
}

/* Is `callee` (called at `at` in function `func`) a layer of the framework: a name or attribute made
 * by `torch.nn.Linear(...)`, `nn.Sequential(...)`, `paddle.nn.Conv2D(...)`? Calling one runs its
 * forward: its result lives where the layer's parameters do, on the device in a training program. */
static bool tl_values__calls_layer(const tl_file_model *m, const char *callee, int32_t func, uint32_t at) {
  const char *ctor = NULL;
  const tl_binding *b = tl_model_binding(m, callee, func, at);
  if (b) ctor = b->ctor;
  else if (!strncmp(callee, "self.", 5) && !strchr(callee + 5, '.') && func >= 0 && (size_t)func < m->funcs.n &&
           m->funcs.v[func].cls >= 0) {
    const tl_class *k = &m->classes.v[m->funcs.v[func].cls];
    for (size_t i = 0; i < k->attrs.n && !ctor; i++)
      if (!strcmp(k->attrs.v[i].name, callee + 5)) ctor = k->attrs.v[i].ctor;
  }
  if (!ctor) return false;
  char *q = tl_model_resolve(m, ctor);
  const char *rest = !strncmp(q, "torch.nn.", 9) ? q + 9 : !strncmp(q, "paddle.nn.", 10) ? q + 10 : NULL;
  bool layer = rest && rest[0] >= 'A' && rest[0] <= 'Z' && !strchr(rest, '.');
  free(q);
  return layer;
}

static tl_valkind tl_values__elements(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth);

/* The place a method's result has whatever its receiver (n bytes of name): host for `.cpu()` and
 * `.numpy()`, a list for `.tolist()`, a Python value for `.item()`, `.size()`, ..., the device for
 * `.cuda()`; else unknown. */
static tl_valkind tl_values__method_place(const char *name, size_t n) {
  if (tl_str_in(name, n, tl_vocab_host_methods)) return TL_VAL_CPU;
  if (n == 6 && !memcmp(name, "tolist", 6)) return TL_VAL_LIST;
  if (tl_str_in(name, n, tl_vocab_scalar_methods)) return TL_VAL_PY;
  if (n == 4 && !memcmp(name, "cuda", 4)) return TL_VAL_DEVICE;
  return TL_VAL_UNKNOWN;
}

static tl_valkind tl_classify_call(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth) {
  TSNode fn = TL_CHILD(n, function);
  TSNode args = TL_CHILD(n, arguments);
  char *callee = tl_dotted(fn, src);
  tl_valkind out = TL_VAL_UNKNOWN;
  if (!callee) {
    /* a method of a value no dotted name spells (`batch["gt"].numpy()`, `f(x).cpu()`) */
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t as = ts_node_start_byte(attr);
      out = tl_values__method_place(src + as, ts_node_end_byte(attr) - as);
      if (out != TL_VAL_UNKNOWN) return out;
      out = tl_value_classify(m, TL_CHILD(fn, object), src, func, depth + 1);
    }
    return out == TL_VAL_LIST || out == TL_VAL_PY ? TL_VAL_UNKNOWN : out;
  }
  char *q = tl_model_resolve(m, callee);
  size_t ln;
  const char *last = tl_dotted_last(callee, &ln);
  char *meth = tl_strndup(last, ln);
  if (!strcmp(callee, "sum") &&
      (tl_node_is(args, "generator_expression") ||
       (ts_node_named_child_count(args) >= 1 && !tl_node_is(ts_node_named_child(args, 0), "keyword_argument")))) {
    /* sum(loss_dict.values()), sum(l * w for l in losses): where the elements live (a start
     * value is a number added to them) */
    TSNode it = tl_node_is(args, "generator_expression") ? args : ts_node_named_child(args, 0);
    out = tl_values__elements(m, it, src, func, depth + 1);
    if (out == TL_VAL_LIST) out = TL_VAL_UNKNOWN;
  } else if (!strchr(callee, '.') && tl_str_in(callee, strlen(callee), tl_vocab_py_scalar_builtins)) out = TL_VAL_PY;
  else if (!strchr(callee, '.') && tl_str_in(callee, strlen(callee), tl_vocab_py_container_builtins)) out = TL_VAL_LIST;
  else if (!strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3) || !strncmp(q, "math.", 5)) out = TL_VAL_CPU;
  else if (!strcmp(q, "paddle.shape")) out = TL_VAL_CPU; /* its kernel writes the shape in host memory */
  else if (!strncmp(q, "torch.", 6) && !strchr(q + 6, '.') && tl_str_in(q + 6, strlen(q + 6), tl_vocab_torch_ctors)) {
    if (!strcmp(q + 6, "from_numpy")) out = TL_VAL_CPU;
    else if (strstr(q + 6, "_like")) {
      TSNode a0 = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : (TSNode){0};
      out = ts_node_is_null(a0) ? TL_VAL_UNKNOWN : tl_value_classify(m, a0, src, func, depth + 1);
      TSNode dev = tl_kwarg_value(args, src, "device");
      if (!ts_node_is_null(dev)) out = tl_device_arg(src, dev);
    } else {
      TSNode dev = tl_kwarg_value(args, src, "device");
      out = ts_node_is_null(dev) ? TL_VAL_CPU : tl_device_arg(src, dev);
      if (out == TL_VAL_UNKNOWN) out = TL_VAL_DEVICE;
    }
  } else if (tl_node_is(fn, "attribute")) {
    TSNode obj = TL_CHILD(fn, object);
    out = tl_values__method_place(meth, ln);
    if (out != TL_VAL_UNKNOWN) {
      /* .cpu(), .numpy(), .item(), .tolist(), .cuda(): the method decides */
    } else if (!strcmp(meth, "to")) {
      out = TL_VAL_UNKNOWN;
      for (uint32_t i = 0; i < ts_node_named_child_count(args) && out == TL_VAL_UNKNOWN; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (tl_node_is(a, "keyword_argument")) {
          TSNode k = TL_CHILD(a, name);
          if (ts_node_end_byte(k) - ts_node_start_byte(k) != 6 || memcmp(src + ts_node_start_byte(k), "device", 6))
            continue;
          a = TL_CHILD(a, value);
        }
        out = tl_device_arg(src, a);
      }
      if (out == TL_VAL_UNKNOWN) out = tl_value_classify(m, obj, src, func, depth + 1);
    } else if (!strcmp(q, "torch.nn.Parameter") || !strcmp(q, "torch.nn.parameter.Parameter") ||
               !strcmp(q, "torch.nn.Buffer") || !strcmp(q, "paddle.create_parameter")) {
      out = TL_VAL_UNKNOWN; /* moves with its module (`model.to(device)`), wherever it was made */
    } else if (!strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7) || !strncmp(q, "F.", 2))) {
      /* A library function: device of its tensor arguments. */
      out = TL_VAL_UNKNOWN;
      bool any = false;
      for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (tl_node_is(a, "keyword_argument")) continue;
        tl_valkind k = tl_value_classify(m, a, src, func, depth + 1);
        /* torch.stack([a, b]), torch.meshgrid(*[torch.linspace(...) for s in sizes]): the elements */
        if (k == TL_VAL_LIST)
          k = tl_values__elements(m, tl_node_is(a, "list_splat") ? ts_node_named_child(a, 0) : a, src, func, depth + 1);
        out = any ? tl_combine(out, k) : k;
        any = true;
      }
      if (out == TL_VAL_PY || out == TL_VAL_LIST) out = TL_VAL_UNKNOWN;
    } else {
      /* A method of a value keeps the value's place: x.sum(), x.float(), x.detach(). */
      out = tl_value_classify(m, obj, src, func, depth + 1);
      if (out == TL_VAL_LIST || out == TL_VAL_PY) out = TL_VAL_UNKNOWN;
    }
  }
  if (out == TL_VAL_UNKNOWN && (tl_model_call_work(callee) & TL_WORK_MODEL)) out = TL_VAL_DEVICE;
  if (out == TL_VAL_UNKNOWN && tl_values__calls_layer(m, callee, func, ts_node_start_byte(n))) out = TL_VAL_DEVICE;
  if (out == TL_VAL_UNKNOWN && depth < 20 && (tl_node_is(fn, "identifier") || tl_node_is(fn, "attribute")) &&
      tl_value_classify(m, fn, src, func, depth + 1) == TL_VAL_DEVICE)
    out = TL_VAL_DEVICE; /* calling a module moved to the device (`net = Net().to(device)`; `net(x)`) */
  /* a criterion or a loss by its name; not a plain function named after a setting of one, whose
   * own returns the summaries place (`get_loss_scale(batch)`: `return 1.0`); a method of an object
   * (`optimizer.get_loss_scale()`) keeps the name's evidence */
  if (out == TL_VAL_UNKNOWN && (tl_icontains(last, ln, "criterion") || tl_icontains(last, ln, "loss")) &&
      !strpbrk(callee, "([") && strncmp(q, "torch.", 6) && strncmp(q, "paddle.", 7) &&
      !(!strchr(callee, '.') && tl_vocab_name_has(last, ln, tl_vocab_number_setting_words)))
    out = TL_VAL_DEVICE;
  free(meth);
  free(q);
  free(callee);
  return out;
}

/* Where the values of the dict `d` live (`d.values()`, the value of `d.items()`): its elements'
 * place; a dict a model or loss made (its outputs) is where they are. */
static tl_valkind tl_values__dict_values(const tl_file_model *m, TSNode d, const char *src, int32_t func, int depth) {
  tl_valkind k = tl_value_classify(m, d, src, func, depth + 1);
  return k == TL_VAL_LIST     ? tl_values__elements(m, d, src, func, depth + 1)
         : k == TL_VAL_DEVICE ? TL_VAL_DEVICE
                              : TL_VAL_UNKNOWN;
}

/* Is n a comprehension? Its element in *el: the body, or the value of a dict comprehension's pairs
 * (a null node when it has none). */
static bool tl_values__comp_element(TSNode n, TSNode *el) {
  *el = (TSNode){0};
  if (tl_node_is(n, "list_comprehension") || tl_node_is(n, "set_comprehension") ||
      tl_node_is(n, "generator_expression"))
    *el = TL_CHILD(n, body);
  else if (tl_node_is(n, "dictionary_comprehension")) {
    TSNode pair = TL_CHILD(n, body);
    if (tl_node_is(pair, "pair")) *el = TL_CHILD(pair, value);
  } else return false;
  return true;
}

/* Where the elements of a container live, when one place holds for all of them: the element of a
 * comprehension (`{k: v.to(device) for k, v in batch.items()}`), the elements of a literal, or of
 * the container a name is bound to; else unknown. */
static tl_valkind tl_values__elements(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth) {
  n = tl_unparen(n);
  if (depth > 24 || ts_node_is_null(n)) return TL_VAL_UNKNOWN;
  TSNode elem;
  if (tl_values__comp_element(n, &elem))
    return ts_node_is_null(elem) ? TL_VAL_UNKNOWN : tl_value_classify(m, elem, src, func, depth + 1);
  if (tl_node_is(n, "list") || tl_node_is(n, "tuple") || tl_node_is(n, "dictionary")) {
    uint32_t k = ts_node_named_child_count(n);
    tl_valkind out = TL_VAL_UNKNOWN;
    for (uint32_t i = 0; i < k; i++) {
      TSNode el = ts_node_named_child(n, i);
      if (tl_node_is(el, "pair")) el = TL_CHILD(el, value);
      else if (tl_node_is(n, "dictionary")) return TL_VAL_UNKNOWN; /* **other */
      tl_valkind e = tl_value_classify(m, el, src, func, depth + 1);
      if (i > 0 && e != out) return TL_VAL_UNKNOWN;
      out = e;
    }
    return out;
  }
  if (tl_node_is(n, "call")) {
    /* d.values(): the elements of d; of a value a model or loss made (a dict of its outputs), its
     * place. A tensor a framework function made (`torch.stack(...)`): its rows are where it is. */
    TSNode fn = TL_CHILD(n, function);
    char *callee = tl_dotted(fn, src);
    char *q = callee ? tl_model_resolve(m, callee) : NULL;
    bool framework = q && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7)) && !strstr(q, ".nn.");
    free(q);
    free(callee);
    if (framework)
      return tl_value_classify(m, n, src, func, depth + 1) == TL_VAL_DEVICE ? TL_VAL_DEVICE : TL_VAL_UNKNOWN;
    if (!tl_node_is(fn, "attribute") || !tl_node_text_eq(TL_CHILD(fn, attribute), src, "values") ||
        ts_node_named_child_count(TL_CHILD(n, arguments)))
      return TL_VAL_UNKNOWN;
    return tl_values__dict_values(m, TL_CHILD(fn, object), src, func, depth);
  }
  if (!tl_node_is(n, "identifier")) return TL_VAL_UNKNOWN;
  char *d = tl_dotted(n, src);
  const tl_binding *b = d ? tl_model_binding(m, d, func, ts_node_start_byte(n)) : NULL;
  free(d);
  TSNode v = b && !b->elem ? tl_bvalue(m, b) : (TSNode){0};
  return ts_node_is_null(v) ? TL_VAL_UNKNOWN : tl_values__elements(m, v, src, b->func, depth + 1);
}

/* The container whose elements a name that a `for` target `left` binds over the iterable `right`
 * takes: `right` for `x` (`for l in losses`), d for the second of `k, v in d.items()` (*values set:
 * the dict's values), xs for the second of `i, x in enumerate(xs)`, the i-th argument of `a, b in
 * zip(as, bs)`; a null node for other positions and forms. `name` is n bytes (not NUL-terminated). */
static TSNode tl_values__target_source(TSNode left, TSNode right, const char *name, size_t n, const char *src,
                                       bool *values) {
  TSNode none = {0};
  *values = false;
  left = tl_unparen(left);
  right = tl_unparen(right);
  if (tl_node_is(left, "identifier")) return tl_target_binds(left, src, name, n) ? right : none;
  if (!(tl_node_is(left, "pattern_list") || tl_node_is(left, "tuple_pattern"))) return none;
  uint32_t pos = UINT32_MAX, k = ts_node_named_child_count(left);
  for (uint32_t i = 0; i < k && pos == UINT32_MAX; i++) {
    TSNode t = ts_node_named_child(left, i);
    if (tl_node_is(t, "identifier") && tl_target_binds(t, src, name, n)) pos = i;
  }
  if (pos == UINT32_MAX || !tl_node_is(right, "call")) return none;
  TSNode fn = TL_CHILD(right, function), args = TL_CHILD(right, arguments);
  uint32_t na = ts_node_named_child_count(args);
  if (tl_node_is(fn, "attribute") && tl_node_text_eq(TL_CHILD(fn, attribute), src, "items") && k == 2 && pos == 1 &&
      !na) {
    *values = true;
    return TL_CHILD(fn, object);
  }
  if (tl_node_is(fn, "identifier") && tl_node_text_eq(fn, src, "enumerate") && k == 2 && pos == 1 && na >= 1)
    return ts_node_named_child(args, 0);
  if (tl_node_is(fn, "identifier") && tl_node_text_eq(fn, src, "zip") && na == k) return ts_node_named_child(args, pos);
  return none;
}

/* Where that name lives: the elements of its container (tl_values__target_source). */
static tl_valkind tl_values__target(const tl_file_model *m, TSNode left, TSNode right, const char *name, size_t n,
                                    const char *src, int32_t func, int depth) {
  bool values;
  TSNode from = tl_values__target_source(left, right, name, n, src, &values);
  if (ts_node_is_null(from)) return TL_VAL_UNKNOWN;
  return values ? tl_values__dict_values(m, from, src, func, depth)
                : tl_values__elements(m, from, src, func, depth + 1);
}

/* Might a comprehension bind the name at [s, e)? Only inside the brackets around it: a cheap look
 * at the text between the brackets around it (up to 4 levels out: `[float(x) for x in xs]`, within
 * 512 bytes each way) for a word `for`, before the walk down the tree (tl_values__scopes). */
static bool tl_values__maybe_comprehension(const char *src, size_t len, uint32_t s, uint32_t e) {
  const uint32_t lim = 512;
  uint32_t lo = s, hi = e;
  int levels = 0, depth = 0;
  for (uint32_t i = s; i > 0 && s - i < lim && levels < 4;) {
    char ch = src[--i];
    if (ch == ')' || ch == ']' || ch == '}') depth++;
    else if ((ch == '(' || ch == '[' || ch == '{') && depth-- == 0) {
      depth = 0;
      levels++;
      lo = i;
    }
  }
  if (!levels) return false;
  depth = 0;
  for (int closed = 0; hi < len && hi - e < lim && closed < levels;) {
    char ch = src[hi++];
    if (ch == '(' || ch == '[' || ch == '{') depth++;
    else if ((ch == ')' || ch == ']' || ch == '}') && depth-- == 0) {
      depth = 0;
      closed++;
    }
  }
  for (uint32_t i = lo + 1; i + 3 <= hi; i++)
    if (src[i] == 'f' && src[i + 1] == 'o' && src[i + 2] == 'r' && !isalnum((unsigned char)src[i - 1]) &&
        src[i - 1] != '_' && (i + 3 >= hi || (!isalnum((unsigned char)src[i + 3]) && src[i + 3] != '_')))
      return true;
  return false;
}

/* The comprehensions and `for` statements around n inside its innermost function, outermost
 * first, into out (at most max); returns how many. One walk down from the root: tree-sitter finds
 * a node's parent by walking down from the root, so climbing from n would repeat that per level. */
static size_t tl_values__scopes(TSNode n, TSNode *out, size_t max) {
  size_t k = 0;
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(n.tree));
  for (int guard = 0; guard < 4096; guard++) {
    TSNode at = ts_tree_cursor_current_node(&cur);
    if (ts_node_start_byte(at) == s && ts_node_end_byte(at) == e && ts_node_symbol(at) == ts_node_symbol(n)) break;
    if (tl_node_is(at, "function_definition") || tl_node_is(at, "lambda") || tl_node_is(at, "class_definition")) {
      k = 0;
    } else if (k < max && (tl_node_is(at, "list_comprehension") || tl_node_is(at, "generator_expression") ||
                           tl_node_is(at, "set_comprehension") || tl_node_is(at, "dictionary_comprehension") ||
                           tl_node_is(at, "for_statement"))) {
      out[k++] = at;
    }
    if (ts_tree_cursor_goto_first_child_for_byte(&cur, s) < 0) break;
  }
  ts_tree_cursor_delete(&cur);
  return k;
}

/* The `for` clause that binds the name `n` (an identifier): of a comprehension around it
 * (`float(l) for l in losses`), or, with `loop`, of a `for` loop of its function (the innermost
 * that binds the name decides). Sets *left and *right to its target and iterable; false when none
 * does. */
static bool tl_values__binding_for(TSNode n, const char *src, bool loop, TSNode *left, TSNode *right) {
  uint32_t s = ts_node_start_byte(n);
  size_t len = ts_node_end_byte(n) - s;
  const char *name = src + s;
  TSNode scopes[32];
  size_t ns = tl_values__scopes(n, scopes, sizeof scopes / sizeof *scopes);
  for (size_t j = ns; j-- > 0;) {
    TSNode up = scopes[j];
    *left = (TSNode){0};
    if (!tl_node_is(up, "for_statement")) {
      for (uint32_t i = 0; i < ts_node_named_child_count(up) && ts_node_is_null(*left); i++) {
        TSNode clause = ts_node_named_child(up, i);
        if (tl_node_is(clause, "for_in_clause") && tl_target_binds(TL_CHILD(clause, left), src, name, len))
          *left = TL_CHILD(clause, left), *right = TL_CHILD(clause, right);
      }
    } else if (loop) {
      TSNode body = TL_CHILD(up, body);
      /* in the body (not the iterable, which the names outside the loop spell) */
      if (!ts_node_is_null(body) && s >= ts_node_start_byte(body) &&
          tl_target_binds(TL_CHILD(up, left), src, name, len))
        *left = TL_CHILD(up, left), *right = TL_CHILD(up, right);
    }
    if (!ts_node_is_null(*left)) return true;
  }
  return false;
}

/* Where the name `n` (an identifier) lives when a comprehension around it binds it, or, with
 * `loop`, a `for` loop of its function: *bound is set when one does. */
static tl_valkind tl_values__iter_var(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth,
                                      bool loop, bool *bound) {
  TSNode left, right;
  *bound = tl_values__binding_for(n, src, loop, &left, &right);
  if (!*bound) return TL_VAL_UNKNOWN;
  uint32_t s = ts_node_start_byte(n);
  return tl_values__target(m, left, right, src + s, ts_node_end_byte(n) - s, src, func, depth);
}

tl_valkind tl_value_elements(const tl_file_model *m, TSNode container, const char *src, int32_t func) {
  return tl_values__elements(m, container, src, func, 0);
}

tl_valkind tl_value_classify(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth) {
  if (depth > 24 || ts_node_is_null(n)) return TL_VAL_UNKNOWN;
  const char *t = ts_node_type(n);
  if (!strcmp(t, "integer") || !strcmp(t, "float") || !strcmp(t, "string") || !strcmp(t, "true") ||
      !strcmp(t, "false") || !strcmp(t, "none") || !strcmp(t, "concatenated_string"))
    return TL_VAL_PY;
  if (!strcmp(t, "list") || !strcmp(t, "list_comprehension") || !strcmp(t, "dictionary") ||
      !strcmp(t, "dictionary_comprehension") || !strcmp(t, "tuple") || !strcmp(t, "set") ||
      !strcmp(t, "set_comprehension"))
    return TL_VAL_LIST;
  /* *t in a tuple or call: the elements of t, where t is */
  if (!strcmp(t, "parenthesized_expression") || !strcmp(t, "await") || !strcmp(t, "list_splat"))
    return tl_value_classify(m, ts_node_named_child(n, 0), src, func, depth + 1);
  if (!strcmp(t, "identifier") && func >= 0 && (size_t)func < m->funcs.n && m->funcs.v[func].has_comp &&
      tl_values__maybe_comprehension(src, ts_node_end_byte(ts_tree_root_node(n.tree)), ts_node_start_byte(n),
                                     ts_node_end_byte(n))) {
    /* a comprehension's own names first; a loop variable over a container of device values */
    bool bound;
    tl_valkind k = tl_values__iter_var(m, n, src, func, depth, false, &bound);
    if (bound) return k;
  }
  if (!strcmp(t, "identifier") || !strcmp(t, "attribute")) {
    char *d = tl_dotted(n, src);
    if (!d) return TL_VAL_UNKNOWN;
    const tl_binding *b = tl_model_binding(m, d, func, ts_node_start_byte(n));
    tl_valkind k = TL_VAL_UNKNOWN;
    if (b && b->from_loop >= 0 && b->kind == TL_VAL_UNKNOWN && tl_node_is(n, "identifier")) {
      bool bound;
      tl_valkind lk = tl_values__iter_var(m, n, src, func, depth, true, &bound);
      if (bound && lk == TL_VAL_DEVICE) {
        free(d);
        return lk;
      }
    }
    if (b) {
      TSNode bv = tl_bvalue(m, b);
      k = ts_node_is_null(bv) ? b->kind : tl_value_classify(m, bv, src, b->func, depth + 1);
      /* an element of a host container: unknown; of a host tensor a call made (`b, c, t =
       * paddle.shape(x)`, `lo, hi = cpu_t.unbind()`): a host tensor too */
      if (b->elem && k != TL_VAL_DEVICE && !(k == TL_VAL_CPU && tl_node_is(bv, "call"))) k = TL_VAL_UNKNOWN;
    } else if (!strncmp(d, "self.", 5) && !strchr(d + 5, '.')) {
      /* An attribute of the enclosing class, set in any method. */
      int32_t cls = func >= 0 && (size_t)func < m->funcs.n ? m->funcs.v[func].cls : -1;
      const tl_class *k2 = cls >= 0 ? &m->classes.v[cls] : NULL;
      bool seen = false;
      /* Each hop through the class's attributes fans out over all their assignments
       * (`self.x = self.x + n` in k methods is k-way recursive): spend 8 levels of the depth
       * budget per hop, so at most 3 hops are followed and the cost stays polynomial. */
      for (size_t i = 0; k2 && i < k2->attrs.n && depth + 8 <= 24; i++) {
        const tl_binding *a = &k2->attrs.v[i];
        if (strcmp(a->name, d + 5)) continue;
        TSNode av = tl_bvalue(m, a);
        tl_valkind ak = ts_node_is_null(av) ? a->kind : tl_value_classify(m, av, src, a->func, depth + 8);
        if (a->ctor) {
          char *q = tl_model_resolve(m, a->ctor);
          if (strstr(q, "ModuleList") || strstr(q, "ModuleDict") || strstr(q, "LayerList") || strstr(q, "LayerDict"))
            ak = TL_VAL_LIST;
          free(q);
        }
        k = (!seen || k == ak) ? ak : TL_VAL_UNKNOWN; /* every assignment of the attribute must agree */
        seen = true;
      }
    }
    free(d);
    if (!b && k == TL_VAL_UNKNOWN && tl_node_is(n, "attribute")) {
      /* x.shape, x.dtype, x.device: metadata, Python values wherever x is (a torch.Size, a list of
       * ints in Paddle's eager mode, a dtype): reading them waits for nothing */
      if (tl_node_text_in(TL_CHILD(n, attribute), src, tl_vocab_meta_attrs)) return TL_VAL_PY;
      /* x.data, p.grad, x.T: tensor attributes that live where their tensor lives */
      if (tl_node_text_in(TL_CHILD(n, attribute), src, tl_vocab_same_place_attrs)) {
        k = tl_value_classify(m, TL_CHILD(n, object), src, func, depth + 1);
        if (k == TL_VAL_LIST || k == TL_VAL_PY) k = TL_VAL_UNKNOWN;
      }
    }
    return k;
  }
  if (!strcmp(t, "call")) return tl_classify_call(m, n, src, func, depth);
  if (!strcmp(t, "subscript")) {
    TSNode v = TL_CHILD(n, value);
    tl_valkind k = tl_value_classify(m, v, src, func, depth + 1);
    if (k == TL_VAL_LIST) return tl_values__elements(m, v, src, func, depth + 1);
    /* x.shape[0]: an int */
    if (k == TL_VAL_PY && tl_node_is(v, "attribute") &&
        tl_node_text_in(TL_CHILD(v, attribute), src, tl_vocab_meta_attrs))
      return TL_VAL_PY;
    return k == TL_VAL_PY ? TL_VAL_UNKNOWN : k;
  }
  if (!strcmp(t, "binary_operator") || !strcmp(t, "comparison_operator") || !strcmp(t, "boolean_operator")) {
    tl_valkind k = TL_VAL_PY;
    bool any = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      tl_valkind x = tl_value_classify(m, ts_node_named_child(n, i), src, func, depth + 1);
      k = any ? tl_combine(k, x) : x;
      any = true;
    }
    return k == TL_VAL_LIST ? TL_VAL_UNKNOWN : k;
  }
  if (!strcmp(t, "unary_operator") || !strcmp(t, "not_operator"))
    return tl_value_classify(m, ts_node_named_child(n, 0), src, func, depth + 1);
  if (!strcmp(t, "conditional_expression")) {
    tl_valkind a = tl_value_classify(m, ts_node_named_child(n, 0), src, func, depth + 1);
    tl_valkind b = tl_value_classify(m, ts_node_named_child(n, 2), src, func, depth + 1);
    return a == b ? a : TL_VAL_UNKNOWN;
  }
  return TL_VAL_UNKNOWN;
}

/* ---- what an unknown value depends on, and the functions' summaries ---- */

/* A parameter of function `func` named by `name` (n bytes): its position, or -1. */
static int tl_values__param(const tl_file_model *m, int32_t func, const char *name, size_t n) {
  if (func <= 0 || (size_t)func >= m->funcs.n) return -1;
  const tl_func *f = &m->funcs.v[func];
  for (uint16_t i = 0; i < f->nparams; i++) {
    const char *p = m->params.v[f->param_first + i];
    if (strlen(p) == n && !memcmp(p, name, n)) return i;
  }
  return -1;
}

static tl_vdep tl_values__dep(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth);

/* Is fn a method of a tensor whose result lives where its receiver does (`out.mean()`, `x.float()`)? */
static bool tl_values__keeps_receiver(TSNode fn, const char *src) {
  if (!tl_node_is(fn, "attribute")) return false;
  TSNode at = TL_CHILD(fn, attribute);
  return tl_node_text_in(at, src, tl_vocab_tensor_methods) || tl_node_text_in(at, src, tl_vocab_reduction_methods) ||
         tl_node_text_in(at, src, tl_vocab_dtype_keeping_methods) || tl_node_text_in(at, src, tl_vocab_mask_methods) ||
         tl_node_text_in(at, src, tl_vocab_graphless_methods) || tl_node_text_in(at, src, tl_vocab_same_place_methods);
}

/* Is v (parentheses aside) the call a dependency on the call at byte pos names: not a method that
 * keeps its receiver's place, whose dependency is the receiver's (`f(x).chunk(2)` starts where
 * `f(x)` does)? */
static bool tl_values__is_call_at(TSNode v, const char *src, uint32_t pos) {
  v = tl_unparen(v);
  return tl_node_is(v, "call") && ts_node_start_byte(v) == pos &&
         !tl_values__keeps_receiver(TL_CHILD(v, function), src);
}

/* What the place of the elements of the container n depends on: the element of a comprehension
 * (`{k: v * w for k, v in d.items()}`), the first element of a literal that depends on something,
 * the elements of `d.values()` or of the container a name is bound to; else the container itself,
 * as an element of it (`reduce_dict(losses)`: the elements of what the helper returns). */
static tl_vdep tl_values__elem_dep(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth) {
  tl_vdep none = TL_VDEP_NOTHING;
  n = tl_unparen(n);
  if (depth > 12 || ts_node_is_null(n)) return none;
  TSNode elem;
  if (tl_values__comp_element(n, &elem))
    return ts_node_is_null(elem) ? none : tl_values__dep(m, elem, src, func, depth + 1);
  if (tl_node_is(n, "list") || tl_node_is(n, "tuple") || tl_node_is(n, "set") || tl_node_is(n, "dictionary")) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode el = ts_node_named_child(n, i); /* a dict's pairs: their values (`{"ce": ce(x)}`) */
      if (tl_node_is(n, "dictionary") && !tl_node_is(el, "pair")) return none; /* **other */
      tl_vdep d = tl_values__dep(m, tl_node_is(el, "pair") ? TL_CHILD(el, value) : el, src, func, depth + 1);
      if (d.how != TL_VDEP_NONE) return d;
    }
    return none;
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (tl_node_is(fn, "attribute") && tl_node_text_eq(TL_CHILD(fn, attribute), src, "values") &&
        !ts_node_named_child_count(TL_CHILD(n, arguments)))
      return tl_values__elem_dep(m, TL_CHILD(fn, object), src, func, depth + 1);
  } else if (tl_node_is(n, "identifier")) {
    char *d = tl_dotted(n, src);
    const tl_binding *b = d ? tl_model_binding(m, d, func, ts_node_start_byte(n)) : NULL;
    free(d);
    TSNode v = b && !b->elem ? tl_bvalue(m, b) : (TSNode){0};
    if (!ts_node_is_null(v) && tl_value_classify(m, v, src, b->func, 0) == TL_VAL_LIST)
      return tl_values__elem_dep(m, v, src, b->func, depth + 1);
  }
  tl_vdep d = tl_values__dep(m, n, src, func, depth + 1);
  if (d.how != TL_VDEP_NONE) d.elem = true;
  return d;
}

/* The same as tl_values__target, for what the place depends on: the elements of its container. */
static tl_vdep tl_values__target_dep(const tl_file_model *m, TSNode left, TSNode right, const char *name, size_t n,
                                     const char *src, int32_t func, int depth) {
  bool values;
  TSNode from = tl_values__target_source(left, right, name, n, src, &values);
  return ts_node_is_null(from) ? TL_VDEP_NOTHING : tl_values__elem_dep(m, from, src, func, depth + 1);
}

/* What the place of an expression the file cannot classify depends on: the result of a call it is
 * (or is bound to), or a parameter of the enclosing function; a method of a tensor keeps its
 * receiver's place (`out.mean()`), and so do an element and an attribute of a value (`out[0]`). */
static tl_vdep tl_values__dep(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth) {
  tl_vdep none = TL_VDEP_NOTHING;
  n = tl_unparen(n);
  if (depth > 12 || ts_node_is_null(n)) return none;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function), args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "identifier") && tl_node_text_eq(fn, src, "sum") &&
        (tl_node_is(args, "generator_expression") ||
         (ts_node_named_child_count(args) >= 1 && !tl_node_is(ts_node_named_child(args, 0), "keyword_argument"))))
      /* sum(losses.values()), sum(l * w for l in losses): where the elements are */
      return tl_values__elem_dep(m, tl_node_is(args, "generator_expression") ? args : ts_node_named_child(args, 0), src,
                                 func, depth + 1);
    if (tl_values__keeps_receiver(fn, src)) return tl_values__dep(m, TL_CHILD(fn, object), src, func, depth + 1);
    tl_vdep d = {.how = TL_VDEP_CALL, .pos = ts_node_start_byte(n)};
    return d;
  }
  if (tl_node_is(n, "subscript")) {
    tl_vdep d = tl_values__dep(m, TL_CHILD(n, value), src, func, depth + 1);
    d.elem = true;
    return d;
  }
  if (tl_node_is(n, "binary_operator") || tl_node_is(n, "comparison_operator") || tl_node_is(n, "unary_operator") ||
      tl_node_is(n, "boolean_operator")) { /* pred == labels, a & b, ~mask: the first operand that depends */
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      tl_vdep d = tl_values__dep(m, ts_node_named_child(n, i), src, func, depth + 1);
      if (d.how != TL_VDEP_NONE) return d;
    }
    return none;
  }
  if (!tl_node_is(n, "identifier") && !tl_node_is(n, "attribute")) return none;
  TSNode left, right;
  uint32_t ns = ts_node_start_byte(n);
  if (tl_node_is(n, "identifier") && func >= 0 && (size_t)func < m->funcs.n && m->funcs.v[func].has_comp &&
      tl_values__maybe_comprehension(src, ts_node_end_byte(ts_tree_root_node(n.tree)), ns, ts_node_end_byte(n)) &&
      tl_values__binding_for(n, src, false, &left, &right)) /* a comprehension's own name */
    return tl_values__target_dep(m, left, right, src + ns, ts_node_end_byte(n) - ns, src, func, depth);
  char *d = tl_dotted(n, src);
  if (!d) return none;
  const tl_binding *b = tl_model_binding(m, d, func, ns);
  tl_vdep out = none;
  if (b && b->from_loop >= 0 && tl_node_is(n, "identifier") && ts_node_is_null(tl_bvalue(m, b))) {
    /* a loop's target: `for l in losses:`, `for k, v in out.items():` */
    if (tl_values__binding_for(n, src, true, &left, &right))
      out = tl_values__target_dep(m, left, right, src + ns, ts_node_end_byte(n) - ns, src, func, depth);
  } else if (b) {
    TSNode v = tl_bvalue(m, b);
    if (!ts_node_is_null(v) && tl_value_classify(m, v, src, b->func, 0) == TL_VAL_UNKNOWN) {
      out = tl_values__dep(m, v, src, b->func, depth + 1);
      if (b->elem && b->slot && out.how == TL_VDEP_CALL && !out.elem && !out.slot &&
          tl_values__is_call_at(v, src, out.pos))
        out.slot = b->slot; /* `loss, out = step(x)`: that element of what the helper returns */
      else out.elem = out.elem || b->elem;
    }
  } else if (tl_node_is(n, "identifier")) {
    int pos = tl_values__param(m, func, d, strlen(d));
    if (pos >= 0) out = (tl_vdep){.how = TL_VDEP_PARAM, .pos = (uint32_t)pos};
  } else if (tl_node_text_in(TL_CHILD(n, attribute), src, tl_vocab_meta_attrs)) {
    /* x.shape, x.dtype: metadata, on the host wherever x is */
  } else if (strncmp(d, "self.", 5)) { /* an attribute of a value lives with it: out.loss, x.data */
    free(d);
    tl_vdep o = tl_values__dep(m, TL_CHILD(n, object), src, func, depth + 1);
    o.elem = true;
    return o;
  }
  free(d);
  return out;
}

tl_valkind tl_value_classify_dep(const tl_file_model *m, TSNode n, const char *src, int32_t func, tl_vdep *dep) {
  tl_valkind k = tl_value_classify(m, n, src, func, 0);
  *dep = k == TL_VAL_UNKNOWN ? tl_values__dep(m, n, src, func, 0) : TL_VDEP_NOTHING;
  return k;
}

#define TL_VAL_BOTTOM 0xffu /* a summary's start: nothing known yet */

static uint8_t tl_values__join(uint8_t a, uint8_t b) {
  if (a == TL_VAL_BOTTOM) return b;
  if (b == TL_VAL_BOTTOM || a == b) return a;
  if (a == TL_VAL_DEVICE || b == TL_VAL_DEVICE) return TL_VAL_DEVICE;
  return TL_VAL_UNKNOWN;
}

void tl_values_summarise(tl_file_model *m, const TSNode *call_nodes, const TSNode *ret_nodes, const char *src,
                         const tl_values_reuse *reuse) {
  m->args.n = 0;
  m->rdeps.n = 0;
  TSSymbol call_sym = ts_language_symbol_for_name(tree_sitter_python(), "call", 4, true);
  for (size_t i = 0; i < m->calls.n; i++) {
    tl_call *c = &m->calls.v[i];
    if (reuse && reuse->call_old[i]) { /* a copied call: its arguments, moved with the text */
      const tl_call *oc = &reuse->old->calls.v[reuse->call_old[i] - 1];
      c->arg_first = (uint32_t)m->args.n;
      c->nargs = oc->nargs;
      c->splat = oc->splat;
      for (uint32_t k = 0; k < oc->nargs; k++) {
        tl_arg a = reuse->old->args.v[oc->arg_first + k];
        if (a.dep.how == TL_VDEP_CALL && a.dep.pos >= reuse->hi_old) a.dep.pos = (uint32_t)(a.dep.pos + reuse->delta);
        tl_vec_push(&m->args, a);
      }
      continue;
    }
    TSNode n = call_nodes[i];
    if (ts_node_is_null(n)) n = tl_model_find_node(m, c->byte, c->end, call_sym);
    c->arg_first = (uint32_t)m->args.n;
    c->nargs = 0;
    c->splat = false;
    TSNode args = ts_node_is_null(n) ? n : TL_CHILD(n, arguments);
    if (!tl_node_is(args, "argument_list")) continue;
    bool positional = true; /* no position is known after a *args */
    for (uint32_t k = 0; k < ts_node_named_child_count(args) && c->nargs < UINT16_MAX; k++) {
      TSNode a = ts_node_named_child(args, k);
      tl_arg arg = {NULL, TL_VAL_UNKNOWN, TL_VAL_UNKNOWN, TL_VDEP_NOTHING, -1, NULL, NULL};
      if (tl_node_is(a, "keyword_argument")) {
        TSNode kn = TL_CHILD(a, name);
        uint32_t ks = ts_node_start_byte(kn);
        arg.kw = tl_strtab_intern(&m->strs, src + ks, ts_node_end_byte(kn) - ks);
        a = TL_CHILD(a, value);
      } else if (tl_node_is(a, "list_splat") || tl_node_is(a, "dictionary_splat")) {
        positional = false;
        /* `**kwargs` forwards what a caller passed; `**config["loss"]`, `**cfg.model`,
         * `**vars(args)` unpack settings a configuration file holds, which the analysis cannot
         * read: they turn on no flag that is off by default */
        TSNode x = tl_unparen(ts_node_named_child(a, 0));
        if (tl_node_is(a, "list_splat") || tl_node_is(x, "identifier")) c->splat = true;
        continue;
      } else if (tl_node_is(a, "comment") || !positional) {
        continue;
      }
      TSNode obj = TL_CHILD(a, object);
      if (tl_node_is(a, "attribute") && !tl_node_text_eq(obj, src, "self") &&
          (tl_node_is(obj, "identifier") || tl_node_is(obj, "attribute"))) {
        TSNode an = TL_CHILD(a, attribute);
        uint32_t as = ts_node_start_byte(an);
        arg.option = tl_strtab_intern(&m->strs, src + as, ts_node_end_byte(an) - as);
      }
      arg.lit = tl_model_literal(m, a, src);
      tl_vdep dep;
      arg.kind = (uint8_t)tl_value_classify_dep(m, a, src, c->func, &dep);
      arg.dep = dep;
      if (tl_node_is(a, "identifier")) {
        uint32_t as = ts_node_start_byte(a), al = ts_node_end_byte(a) - as;
        char *d = tl_strndup(src + as, al);
        int pi = tl_values__param(m, c->func, d, al);
        if (pi >= 0 && pi <= INT16_MAX && !tl_model_binding(m, d, c->func, as)) arg.param = (int16_t)pi;
        free(d);
      }
      if (arg.kind == TL_VAL_LIST) arg.elems = (uint8_t)tl_values__elements(m, a, src, c->func, 0);
      tl_vec_push(&m->args, arg);
      c->nargs++;
    }
  }
  /* the returns' kinds, then their dependencies grouped by function (a counting sort); each return
   * feeds the whole result and, one by one, the first elements of a tuple it returns */
  size_t nr = m->rets.n, nf = m->funcs.n;
  tl_rdep *deps = tl_malloc((nr * (TL_RET_SLOTS + 1) + 1) * sizeof *deps);
  size_t nd = 0;
  uint32_t *count = tl_calloc(nf + 1, sizeof *count);
  for (size_t f = 0; f < nf; f++) {
    m->funcs.v[f].ret_kind = TL_VAL_BOTTOM;
    memset(m->funcs.v[f].slot_kind, TL_VAL_BOTTOM, sizeof m->funcs.v[f].slot_kind);
  }
  int32_t *dep_func = tl_malloc((nr * (TL_RET_SLOTS + 1) + 1) * sizeof *dep_func);
  for (size_t i = 0; i < nr; i++) {
    const tl_return *r = &m->rets.v[i];
    if (r->func <= 0 || (size_t)r->func >= nf) continue;
    tl_func *fu = &m->funcs.v[r->func];
    TSNode v = ret_nodes[i];
    if (ts_node_is_null(v)) v = tl_model_find_node(m, r->start, r->end, r->sym);
    tl_vdep d = TL_VDEP_NOTHING;
    tl_valkind k = ts_node_is_null(v) ? TL_VAL_UNKNOWN : tl_value_classify_dep(m, v, src, r->func, &d);
    if (d.how != TL_VDEP_NONE) deps[nd] = (tl_rdep){d, 0}, dep_func[nd++] = r->func, count[r->func]++;
    else fu->ret_kind = tl_values__join(fu->ret_kind, (uint8_t)k);
    TSNode t = tl_unparen(v);
    bool tuple = tl_node_is(t, "expression_list") || tl_node_is(t, "tuple");
    TSNode elems[TL_RET_SLOTS];
    uint32_t ne = 0; /* the first elements, comments aside */
    for (uint32_t e = 0; tuple && e < ts_node_named_child_count(t); e++) {
      TSNode x = ts_node_named_child(t, e);
      if (tl_node_is(x, "list_splat")) tuple = false;
      else if (!tl_node_is(x, "comment") && ne < TL_RET_SLOTS) elems[ne++] = x;
    }
    if (!tuple && tl_node_is(t, "none")) continue; /* `return None` on an early exit: no element */
    for (uint8_t s = 0; s < TL_RET_SLOTS; s++) {
      tl_vdep sd = TL_VDEP_NOTHING;
      tl_valkind sk;
      if (!tuple) {
        /* an element of another value: on the device with it, else where it depends; of what a
         * helper returns (`return helper(x)`), that element of the helper's result */
        sk = k == TL_VAL_DEVICE ? TL_VAL_DEVICE : TL_VAL_UNKNOWN;
        if (d.how == TL_VDEP_CALL && !d.elem && !d.slot && tl_values__is_call_at(v, src, d.pos))
          sd = d, sd.slot = (uint8_t)(s + 1);
        else if (d.how != TL_VDEP_NONE) sd = d, sd.elem = true;
      } else if (s < ne) {
        sk = tl_value_classify_dep(m, elems[s], src, r->func, &sd);
      } else {
        sk = TL_VAL_UNKNOWN;
      }
      if (sd.how != TL_VDEP_NONE)
        deps[nd] = (tl_rdep){sd, (uint8_t)(s + 1)}, dep_func[nd++] = r->func, count[r->func]++;
      else fu->slot_kind[s] = tl_values__join(fu->slot_kind[s], (uint8_t)sk);
    }
  }
  uint32_t at = 0;
  for (size_t f = 0; f < nf; f++) {
    m->funcs.v[f].rdep_first = at;
    m->funcs.v[f].nrdeps = (uint16_t)(count[f] < UINT16_MAX ? count[f] : UINT16_MAX);
    at += count[f];
    count[f] = m->funcs.v[f].rdep_first;
  }
  tl_vec_free(&m->rdeps);
  m->rdeps.v = tl_malloc((at + 1) * sizeof *m->rdeps.v);
  m->rdeps.n = m->rdeps.cap = at;
  for (size_t i = 0; i < nd; i++) m->rdeps.v[count[dep_func[i]]++] = deps[i];
  free(dep_func);
  free(count);
  free(deps);
}
