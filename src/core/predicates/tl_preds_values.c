/* tl_preds_values.c - predicates on where values live and what they are: device or host
 * tensors, reductions and host reads, conditions that need a device value, boolean masks, values
 * that keep an autograd graph, and constants forced on a setting. */
#define _GNU_SOURCE /* memmem */
#include "tl_match.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "tl_frequency.h"
#include "tl_vocab.h"


/* Finds a tensor reduction inside n (a method like x.max() or a function like torch.max(x)). */
static bool tl_values__find_reduction(const tl_match_env *e, TSNode n, int depth, TSNode *out) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      TSNode obj = TL_CHILD(fn, object);
      uint32_t s = ts_node_start_byte(attr), l = ts_node_end_byte(attr) - s;
      char *callee = tl_dotted(fn, e->src);
      char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
      bool lib = q && !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
      bool hit = false;
      if (tl_str_in(e->src + s, l, tl_vocab_reduction_methods)) {
        if (lib) {
          /* torch.max(t) / paddle.max(t): the value of a device tensor */
          TSNode a0 = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : (TSNode){0};
          hit = !ts_node_is_null(a0) && tl_value_classify(e->m, a0, e->src, e->func, 0) != TL_VAL_CPU &&
                tl_value_classify(e->m, a0, e->src, e->func, 0) != TL_VAL_PY &&
                tl_value_classify(e->m, a0, e->src, e->func, 0) != TL_VAL_LIST;
        } else {
          tl_valkind k = tl_value_classify(e->m, obj, e->src, e->func, 0);
          hit = k != TL_VAL_CPU && k != TL_VAL_PY && k != TL_VAL_LIST;
          /* np.max(...) and friends are host values */
          if (q && (!strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3) || !strncmp(q, "math.", 5))) hit = false;
        }
      }
      free(q);
      free(callee);
      if (hit) {
        *out = n;
        return true;
      }
    }
  }
  if (tl_node_is(n, "lambda")) return false;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_values__find_reduction(e, ts_node_named_child(n, i), depth + 1, out)) return true;
  return false;
}

static bool tl_values__contains_call_to(TSNode n, const char *src, const char *const *methods, int depth) {
  if (depth > 40 || ts_node_is_null(n)) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t s = ts_node_start_byte(attr);
      if (tl_str_in(src + s, ts_node_end_byte(attr) - s, methods)) return true;
    }
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_values__contains_call_to(ts_node_named_child(n, i), src, methods, depth + 1)) return true;
  return false;
}


/* Is `n` (the receiver of an attribute) a configuration object by its name: `args`, `opt`,
 * `cfg`, `self.config`, `hparams`, `FLAGS`? */
static bool tl_values__config_receiver(TSNode n, const char *src) {
  if (tl_node_is(n, "attribute")) n = ts_node_child_by_field_name(n, "attribute", 9);
  if (!tl_node_is(n, "identifier")) return false;
  uint32_t s = ts_node_start_byte(n), len = ts_node_end_byte(n) - s;
  char low[32];
  if (len >= sizeof low) return false;
  for (uint32_t i = 0; i < len; i++) low[i] = (char)tolower((unsigned char)src[s + i]);
  low[len] = 0;
  return tl_str_in(low, len, tl_vocab_config_names);
}

/* Positive evidence that an expression is a tensor (for float()/int()/bool() conversions). */
static bool tl_values__is_tensor_at(const tl_match_env *e, TSNode n, int depth, bool names);
static bool tl_values__is_tensor(const tl_match_env *e, TSNode n) { return tl_values__is_tensor_at(e, n, 0, true); }
bool tl_preds_is_tensor(const tl_match_env *e, TSNode n) { return tl_values__is_tensor_at(e, n, 0, true); }

/* Is n `self.<name>` where a method of its class registers the buffer `<name>`
 * (`self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))`)? A buffer is a tensor,
 * and it moves with its module. */
static bool tl_values__buffer(const tl_match_env *e, TSNode n) {
  const tl_file_model *m = e->m;
  if (!m->registers_buffers || !tl_node_is(n, "attribute") || !tl_node_text_eq(TL_CHILD(n, object), e->src, "self") ||
      e->func <= 0)
    return false;
  int32_t cls = m->funcs.v[e->func].cls;
  TSNode at = TL_CHILD(n, attribute);
  uint32_t as = ts_node_start_byte(at), al = ts_node_end_byte(at) - as;
  if (cls < 0 || !tl_node_is(at, "identifier")) return false;
  for (size_t c = 0; c < m->calls.n; c++) {
    const tl_call *cl = &m->calls.v[c];
    if (!cl->nargs || cl->func <= 0 || m->funcs.v[cl->func].cls != cls || strcmp(cl->callee, "self.register_buffer"))
      continue;
    const char *lit = m->args.v[cl->arg_first].lit;
    if (!m->args.v[cl->arg_first].kw && lit && strlen(lit) == al + 2 && !strncmp(lit, "s:", 2) &&
        !memcmp(lit + 2, e->src + as, al))
      return true;
  }
  return false;
}

/* With `names`, a name alone (`loss`, `total_loss`) is the last resort evidence. */
static bool tl_values__is_tensor_at(const tl_match_env *e, TSNode n, int depth, bool names) {
  if (depth > 8 || ts_node_is_null(n)) return false;
  if (tl_values__contains_call_to(n, e->src, tl_vocab_host_value_methods, 0)) return false;
  tl_valkind k = tl_value_classify(e->m, n, e->src, e->func, 0);
  if (k == TL_VAL_DEVICE) return true;
  if (k != TL_VAL_UNKNOWN) return false;
  n = tl_unparen(n);
  if (tl_node_is(n, "binary_operator")) {
    /* arithmetic on a tensor is a tensor: `running / n`, `loss * 2` (not "%s" % x) */
    TSNode left = TL_CHILD(n, left);
    if (tl_node_is(left, "string") || tl_node_is(left, "concatenated_string")) return false;
    return tl_values__is_tensor_at(e, left, depth + 1, names) ||
           tl_values__is_tensor_at(e, TL_CHILD(n, right), depth + 1, names);
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t s = ts_node_start_byte(attr);
      char *callee = tl_dotted(fn, e->src);
      char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
      bool lib = q && !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7)) &&
                 !tl_value_lib_not_tensor(q);
      bool hit = lib || tl_str_in(e->src + s, ts_node_end_byte(attr) - s, tl_vocab_tensor_methods);
      free(q);
      free(callee);
      return hit;
    }
    return false;
  }
  if (tl_values__buffer(e, n)) return true;
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) {
    /* bound to a library call: torch.nn.utils.clip_grad_norm_(...), F.cross_entropy(...) */
    char *d = tl_dotted(n, e->src);
    TSNode v = d ? tl_model_binding_value(e->m, d, e->func, ts_node_start_byte(n)) : (TSNode){0};
    free(d);
    /* bound to an expression (not a call): that expression's evidence, not the name's */
    if (!ts_node_is_null(v) && !tl_node_is(v, "call")) return tl_values__is_tensor_at(e, v, depth + 1, names);
    if (tl_node_is(v, "call")) {
      char *callee = tl_dotted(TL_CHILD(v, function), e->src);
      char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
      bool lib = q && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7)) && !tl_value_lib_not_tensor(q);
      /* losses_m = AverageMeter(): a CapWords callee outside torch/paddle constructs a Python
       * object; the name says nothing then */
      const char *cl = callee && !strpbrk(callee, "([") ? strrchr(callee, '.') : NULL;
      cl = cl ? cl + 1 : callee;
      bool ctor = !lib && cl && isupper((unsigned char)cl[0]) && strpbrk(cl + 1, "abcdefghijklmnopqrstuvwxyz");
      free(q);
      free(callee);
      if (lib) return true;
      if (ctor) return false;
      /* n = t.eq(0).sum(): a tensor method's result */
      if (tl_node_is(TL_CHILD(v, function), "attribute") && tl_values__is_tensor_at(e, v, depth + 1, names))
        return true;
    }
    /* args.loss_scale, cfg.loss_weight, self.opt.loss_type: a setting of a configuration object */
    if (!names ||
        (tl_node_is(n, "attribute") && tl_values__config_receiver(ts_node_child_by_field_name(n, "object", 6), e->src)))
      return false;
    size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
    const char *s = e->src + ts_node_start_byte(n);
    const char *last = s + len;
    while (last > s && last[-1] != '.') last--;
    size_t ll = (size_t)(s + len - last);
    /* loss, loss_cls, total_loss; not a setting named after a loss (loss_weight_feat, loss_type) */
    if (ll >= 5 && !strncasecmp(last + ll - 5, "_loss", 5)) return true;
    return ll >= 4 && !strncasecmp(last, "loss", 4) && !tl_vocab_name_has(last, ll, tl_vocab_setting_words);
  }
  return false;
}

/* #passes-tensor? @args: the call passes a tensor (#tensor?) to be converted or formatted: one of
 * its arguments, an f-string interpolation in one, an argument of a `.format(...)` call in one, or
 * the right operand of `%` in one (or an element of it, when it is a tuple). What a pattern with
 * those four alternatives under the argument list would find, in one pass over the arguments. */
/* Is v a tensor, or a read of one (`loss.item()`, `acc.tolist()`, `float(loss)`)? */
static bool tl_values__tensor_or_read(const tl_match_env *e, TSNode v) {
  if (tl_values__is_tensor(e, v)) return true;
  if (!tl_node_is(v, "call")) return false;
  TSNode f = TL_CHILD(v, function), a = TL_CHILD(v, arguments);
  if (tl_node_is(f, "attribute")) {
    TSNode at = TL_CHILD(f, attribute);
    return (tl_node_text_eq(at, e->src, "item") || tl_node_text_eq(at, e->src, "tolist")) &&
           tl_values__is_tensor(e, TL_CHILD(f, object));
  }
  return (tl_node_text_eq(f, e->src, "float") || tl_node_text_eq(f, e->src, "int")) && tl_node_is(a, "argument_list") &&
         ts_node_named_child_count(a) == 1 && tl_values__is_tensor(e, ts_node_named_child(a, 0));
}

static bool tl_values__passes_tensor(const tl_match_env *e, TSNode args) {
  uint32_t n = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < n; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (tl_node_is(a, "keyword_argument")) a = TL_CHILD(a, value); /* set_postfix(loss=loss) */
    if (ts_node_is_null(a)) continue;
    if (tl_values__tensor_or_read(e, a)) return true;
    if (tl_node_is(a, "dictionary") || tl_node_is(a, "list") || tl_node_is(a, "tuple")) {
      /* wandb.log({"loss": loss}), add_scalars("l", {"a": a}): the values of a literal */
      uint32_t k = ts_node_named_child_count(a);
      for (uint32_t j = 0; j < k; j++) {
        TSNode el = ts_node_named_child(a, j);
        if (tl_node_is(el, "pair")) el = TL_CHILD(el, value);
        if (!ts_node_is_null(el) && tl_values__tensor_or_read(e, el)) return true;
      }
      continue;
    }
    if (tl_node_is(a, "string")) {
      uint32_t k = ts_node_named_child_count(a);
      for (uint32_t j = 0; j < k; j++) {
        TSNode ip = ts_node_named_child(a, j), v;
        if (tl_node_is(ip, "interpolation") && !ts_node_is_null(v = TL_CHILD(ip, expression)) &&
            tl_values__tensor_or_read(e, v))
          return true;
      }
    } else if (tl_node_is(a, "call")) {
      TSNode f = TL_CHILD(a, function), fa = TL_CHILD(a, arguments);
      if (!tl_node_is(f, "attribute") || !tl_node_is(fa, "argument_list")) continue;
      TSNode at = TL_CHILD(f, attribute);
      if (!tl_node_is(at, "identifier") || !tl_node_text_eq(at, e->src, "format")) continue;
      uint32_t k = ts_node_named_child_count(fa);
      for (uint32_t j = 0; j < k; j++)
        if (tl_values__tensor_or_read(e, ts_node_named_child(fa, j))) return true;
    } else if (tl_node_is(a, "binary_operator")) {
      TSNode op = TL_CHILD(a, operator), r = TL_CHILD(a, right);
      if (!tl_node_is(op, "%") || ts_node_is_null(r)) continue;
      if (tl_values__tensor_or_read(e, r)) return true;
      if (tl_node_is(r, "tuple")) {
        uint32_t k = ts_node_named_child_count(r);
        for (uint32_t j = 0; j < k; j++)
          if (tl_values__tensor_or_read(e, ts_node_named_child(r, j))) return true;
      }
    }
  }
  return false;
}

/* `x % n == k`: a comparison holding a remainder test (not string formatting). */
static bool tl_values__is_modulo_test(TSNode n, const char *src) {
  n = tl_unparen(n);
  return tl_node_is(n, "comparison_operator") && tl_freq_has_remainder(n, src);
}

/* Does `left` (the operands before n in an `and` chain) test that n is a Python container or
 * number: `isinstance(out, tuple) and out`? Then n's truth is its length or its value on the host,
 * whatever the name held before. */
static bool tl_values__host_instance(const tl_match_env *e, TSNode left, TSNode n) {
  if (!tl_node_is(n, "identifier") && !tl_node_is(n, "attribute")) return false;
  uint32_t ls = ts_node_start_byte(left), le = ts_node_end_byte(left);
  uint32_t ns = ts_node_start_byte(n), nl = ts_node_end_byte(n) - ns;
  char *want = tl_printf("isinstance(%.*s,", (int)nl, e->src + ns);
  const char *at = memmem(e->src + ls, le - ls, want, strlen(want));
  size_t wl = strlen(want);
  free(want);
  if (!at) return false;
  const char *ty = at + wl, *end = memchr(ty, ')', (size_t)(e->src + le - ty));
  if (!end) return false;
  /* `isinstance(x, (tuple, list))`: the closing parenthesis of the tuple, then of the call */
  if (end + 1 < e->src + le && end[1] == ')') end++;
  size_t tl = (size_t)(end - ty);
  static const char *const host[] = {"tuple", "list",  "dict", "set",      "str",
                                     "int",   "float", "bool", "Sequence", "Mapping"};
  static const char *const device[] = {"Tensor", "tensor", "Variable", "Parameter"};
  for (size_t i = 0; i < sizeof device / sizeof *device; i++)
    if (memmem(ty, tl, device[i], strlen(device[i]))) return false;
  for (size_t i = 0; i < sizeof host / sizeof *host; i++)
    if (memmem(ty, tl, host[i], strlen(host[i]))) return true;
  return false;
}

/* The operand of arithmetic that makes it a tensor by its operations (`n - mask[a:b].sum()`: the
 * reduction), or n itself. */
static TSNode tl_values__tensor_operand(const tl_match_env *e, TSNode n) {
  n = tl_unparen(n);
  for (int depth = 0; tl_node_is(n, "binary_operator") && depth < 16; depth++) {
    TSNode l = TL_CHILD(n, left);
    n = tl_unparen(tl_values__is_tensor_at(e, l, 0, false) ? l : TL_CHILD(n, right));
  }
  return n;
}

static bool tl_values__tensor_condition(const tl_match_env *e, TSNode n, int depth, tl_vdep *need) {
  if (depth > 16 || ts_node_is_null(n)) return false;
  if (tl_values__contains_call_to(n, e->src, tl_vocab_host_value_methods, 0)) return false; /* .item() in it: TL101's */
  const char *t = ts_node_type(n);
  if (!strcmp(t, "parenthesized_expression") || !strcmp(t, "not_operator"))
    return tl_values__tensor_condition(e, ts_node_named_child(n, 0), depth + 1, need);
  uint32_t operands = ts_node_named_child_count(n);
  if (!strcmp(t, "comparison_operator")) {
    /* `x is None`, `a is not b`: identity, no value is read; a string compared with anything
     * (`self.loss_type == "l1"`, `"logits" in out`) is a Python comparison */
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
      TSNode ch = ts_node_child(n, i);
      if (!ts_node_is_named(ch) && (!strcmp(ts_node_type(ch), "is") || !strcmp(ts_node_type(ch), "is not")))
        return false;
      if (tl_node_is(ch, "string") || tl_node_is(ch, "concatenated_string")) return false;
      /* `k in d`: only the key's value is read (a tensor key compares by value); the container's
       * elements are compared with it, not read on their own */
      if (!ts_node_is_named(ch) && (!strcmp(ts_node_type(ch), "in") || !strcmp(ts_node_type(ch), "not in")))
        operands = 1;
    }
  }
  if (!strcmp(t, "boolean_operator") || !strcmp(t, "comparison_operator")) {
    /* `step % N == 0 and t.max() == 0`: the right side runs only every N steps */
    if (!strcmp(t, "boolean_operator") && tl_values__is_modulo_test(TL_CHILD(n, left), e->src)) {
      TSNode op = TL_CHILD(n, operator);
      if (!ts_node_is_null(op) && !strncmp(e->src + ts_node_start_byte(op), "and", 3)) return false;
    }
    bool conj = false;
    tl_vdep pending = TL_VDEP_NOTHING; /* an operand only the summaries can place */
    if (!strcmp(t, "boolean_operator")) {
      TSNode op = TL_CHILD(n, operator);
      conj = !ts_node_is_null(op) && !strncmp(e->src + ts_node_start_byte(op), "and", 3);
    }
    for (uint32_t i = 0; i < operands; i++) {
      TSNode ch = ts_node_named_child(n, i);
      if (conj && i > 0 && tl_values__host_instance(e, ts_node_named_child(n, 0), tl_unparen(ch))) continue;
      tl_vdep inner = TL_VDEP_NOTHING;
      if (tl_values__tensor_condition(e, ch, depth + 1, need ? &inner : NULL)) {
        if (inner.how == TL_VDEP_NONE) return true; /* a definite device read decides */
        if (pending.how == TL_VDEP_NONE) pending = inner;
        continue;
      }
      if (!strcmp(t, "comparison_operator") && tl_values__is_tensor(e, ch) && !tl_node_is(ch, "identifier")) {
        /* a tensor by its operations (not by a name) of a parameter whose place the file cannot
         * tell (`mask[a:b].sum() > 0` in a helper: NumPy arrays have `.sum()` too): what the
         * callers pass decides */
        tl_vdep dep = TL_VDEP_NOTHING;
        if (need && tl_values__is_tensor_at(e, ch, 0, false) &&
            tl_value_classify(e->m, ch, e->src, e->func, 0) == TL_VAL_UNKNOWN &&
            tl_value_classify_dep(e->m, tl_values__tensor_operand(e, ch), e->src, e->func, &dep) == TL_VAL_UNKNOWN &&
            dep.how == TL_VDEP_PARAM) {
          if (pending.how == TL_VDEP_NONE) pending = dep;
          continue;
        }
        return true;
      }
      if (!strcmp(t, "comparison_operator") && tl_node_is(ch, "identifier")) {
        tl_vdep dep = TL_VDEP_NOTHING;
        tl_valkind k = need ? tl_value_classify_dep(e->m, ch, e->src, e->func, &dep)
                            : tl_value_classify(e->m, ch, e->src, e->func, 0);
        if (k == TL_VAL_DEVICE) return true;
        /* `num_pos = mask.sum()`, then `if num_pos > 0:`: a tensor whose place the file cannot
         * tell; the match stands if the summaries place it on the device (`need`) */
        if (need && k == TL_VAL_UNKNOWN && dep.how != TL_VDEP_NONE && tl_values__is_tensor_at(e, ch, 0, false) &&
            pending.how == TL_VDEP_NONE)
          pending = dep; /* look on: a later operand may be a definite device read */
      }
    }
    if (pending.how == TL_VDEP_NONE) return false;
    *need = pending;
    return true;
  }
  if (!strcmp(t, "call")) {
    TSNode fn = TL_CHILD(n, function);
    if (!tl_node_is(fn, "attribute")) return false;
    TSNode attr = TL_CHILD(fn, attribute);
    uint32_t s = ts_node_start_byte(attr);
    if (!tl_str_in(e->src + s, ts_node_end_byte(attr) - s, tl_vocab_truth_methods)) return false;
    char *callee = tl_dotted(fn, e->src);
    char *q = callee ? tl_model_resolve(e->m, callee) : NULL;
    bool lib = q && !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
    bool np = q && (!strncmp(q, "numpy.", 6) || !strncmp(q, "math.", 5));
    free(q);
    free(callee);
    if (np) return false;
    TSNode subject = TL_CHILD(fn, object);
    if (lib) {
      TSNode args = TL_CHILD(n, arguments);
      subject = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : (TSNode){0};
    }
    if (ts_node_is_null(subject)) return false;
    tl_valkind k = tl_value_classify(e->m, subject, e->src, e->func, 0);
    return k == TL_VAL_UNKNOWN || k == TL_VAL_DEVICE;
  }
  if (!strcmp(t, "identifier") || !strcmp(t, "attribute"))
    return tl_value_classify(e->m, n, e->src, e->func, 0) == TL_VAL_DEVICE;
  return false;
}

/* Does evaluating this expression as a Python value read a device value? A host read inside
 * (`x.item()`, `.tolist()`, `.numpy()`, `.cpu()` of a value not known to be on the host,
 * `float(t)`), or a truth value that needs one (`(x == pad).all()`, `t.max() > 0`). */
static bool tl_values__find_host_read(const tl_match_env *e, TSNode n, int depth) {
  if (depth > 40 || ts_node_is_null(n) || tl_node_is(n, "lambda")) return false;
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "attribute")) {
      TSNode attr = TL_CHILD(fn, attribute);
      uint32_t s = ts_node_start_byte(attr);
      if (tl_str_in(e->src + s, ts_node_end_byte(attr) - s, tl_vocab_host_read_methods) &&
          ts_node_named_child_count(args) == 0) {
        tl_valkind k = tl_value_classify(e->m, TL_CHILD(fn, object), e->src, e->func, 0);
        if (k == TL_VAL_UNKNOWN || k == TL_VAL_DEVICE) return true;
      }
    } else if (tl_node_is(fn, "identifier") && ts_node_named_child_count(args) == 1 &&
               (tl_node_text_eq(fn, e->src, "float") || tl_node_text_eq(fn, e->src, "int") ||
                tl_node_text_eq(fn, e->src, "bool")) &&
               tl_values__is_tensor(e, ts_node_named_child(args, 0))) {
      return true;
    }
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (tl_values__find_host_read(e, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

static bool tl_values__is_01(TSNode n, const char *src) {
  return tl_node_is(n, "integer") && (tl_node_text_eq(n, src, "0") || tl_node_text_eq(n, src, "1"));
}

static bool tl_values__forced_const(tl_match_env *e, TSNode n) {
  n = tl_unparen(n);
  const char *src = e->src;
  if (tl_values__is_01(n, src)) return true;
  if (tl_node_is(n, "conditional_expression") && ts_node_named_child_count(n) == 3) {
    TSNode a = ts_node_named_child(n, 0), b = ts_node_named_child(n, 2);
    bool ca = tl_values__is_01(a, src), cb = tl_values__is_01(b, src);
    if (ca && !tl_node_is(b, "integer")) e->configured = b;
    else if (cb && !tl_node_is(a, "integer")) e->configured = a;
    return ca || cb;
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    if (tl_node_is(fn, "identifier") && tl_node_text_eq(fn, src, "min") && ts_node_named_child_count(args) == 2) {
      TSNode a = ts_node_named_child(args, 0), b = ts_node_named_child(args, 1);
      if (tl_values__is_01(a, src)) {
        e->configured = b;
        return true;
      }
      if (tl_values__is_01(b, src)) {
        e->configured = a;
        return true;
      }
    }
  }
  return false;
}

static bool tl_values__bool_mask(const tl_match_env *c, TSNode n, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n)) return false;
  n = tl_unparen(n);
  const char *src = c->src;
  if (tl_node_is(n, "comparison_operator")) {
    /* `in`, `not in`, `is`, `is not` give Python booleans; `<`, `==`, ... of a tensor give a mask */
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
      TSNode ch = ts_node_child(n, i);
      if (ts_node_is_named(ch)) continue;
      const char *t = ts_node_type(ch);
      if (!strcmp(t, "in") || !strcmp(t, "is") || !strcmp(t, "not") || !strcmp(t, "not in") || !strcmp(t, "is not"))
        return false;
    }
    /* all operands Python values: a Python bool */
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      tl_valkind k = tl_value_classify(c->m, ts_node_named_child(n, i), src, c->func, 0);
      if (k != TL_VAL_PY && k != TL_VAL_LIST) return true;
    }
    return false;
  }
  if (tl_node_is(n, "unary_operator")) {
    TSNode op = TL_CHILD(n, operator);
    return !ts_node_is_null(op) && src[ts_node_start_byte(op)] == '~' &&
           tl_values__bool_mask(c, TL_CHILD(n, argument), depth + 1);
  }
  if (tl_node_is(n, "binary_operator")) {
    TSNode op = TL_CHILD(n, operator);
    if (ts_node_is_null(op) || ts_node_end_byte(op) - ts_node_start_byte(op) != 1) return false;
    char o = src[ts_node_start_byte(op)];
    if (o != '&' && o != '|' && o != '^') return false;
    return tl_values__bool_mask(c, TL_CHILD(n, left), depth + 1) ||
           tl_values__bool_mask(c, TL_CHILD(n, right), depth + 1);
  }
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode args = TL_CHILD(n, arguments);
    TSNode name = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : fn;
    if (!tl_node_is(name, "identifier")) return false;
    uint32_t s = ts_node_start_byte(name), l = ts_node_end_byte(name) - s;
    char *callee = tl_dotted(fn, src);
    char *q = callee ? tl_model_resolve(c->m, callee) : NULL;
    bool lib = q && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
    bool np = q && (!strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3));
    free(q);
    free(callee);
    if (np) return false;
    /* a reshaped or copied mask is still a mask: m.unsqueeze(-1), m.expand_as(x), m.view(-1) */
    if (tl_node_is(fn, "attribute") && tl_str_in(src + s, l, tl_vocab_dtype_keeping_methods))
      return tl_values__bool_mask(c, TL_CHILD(fn, object), depth + 1);
    if (tl_str_in(src + s, l, tl_vocab_mask_methods)) {
      /* torch.isnan(x) / x.isnan(): a tensor unless x is a host value */
      TSNode subj = lib ? (ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : (TSNode){0})
                        : TL_CHILD(fn, object);
      if (ts_node_is_null(subj)) return false;
      tl_valkind k = tl_value_classify(c->m, subj, src, c->func, 0);
      return k != TL_VAL_PY && k != TL_VAL_LIST;
    }
    /* x.to(torch.bool), x.type(torch.bool), torch.ones(n, dtype=torch.bool) */
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
      TSNode a = ts_node_named_child(args, i);
      if (tl_node_is(a, "keyword_argument")) {
        TSNode k = TL_CHILD(a, name);
        if (!tl_node_text_eq(k, src, "dtype")) continue;
        a = TL_CHILD(a, value);
      } else if (!(l == 2 && !memcmp(src + s, "to", 2)) && !(l == 4 && !memcmp(src + s, "type", 4))) {
        continue;
      }
      if (tl_node_text_eq(a, src, "torch.bool") || tl_node_text_eq(a, src, "paddle.bool") ||
          tl_node_text_eq(a, src, "\"bool\"") || tl_node_text_eq(a, src, "'bool'"))
        return lib || tl_node_is(fn, "attribute");
    }
    return false;
  }
  if (tl_node_is(n, "subscript")) /* a row of a mask: mask[i] */
    return tl_values__bool_mask(c, TL_CHILD(n, value), depth + 1);
  if (tl_node_is(n, "identifier") || tl_node_is(n, "attribute")) {
    char *d = tl_dotted(n, src);
    const tl_binding *b = d ? tl_model_binding(c->m, d, c->func, ts_node_start_byte(n)) : NULL;
    free(d);
    TSNode bv = b ? tl_bvalue(c->m, b) : (TSNode){0};
    return !ts_node_is_null(bv) && tl_values__bool_mask(c, bv, depth + 1);
  }
  return false;
}

static bool tl_values__is_no_grad_call(const tl_match_env *c, TSNode n) {
  TSNode fn = tl_node_is(n, "call") ? TL_CHILD(n, function) : n;
  char *d = tl_dotted(fn, c->src);
  if (!d) return false;
  char *q = tl_model_resolve(c->m, d);
  bool r = tl_str_in(q, strlen(q), tl_vocab_no_grad_calls);
  if (!r && !strcmp(q, "torch.set_grad_enabled") && tl_node_is(n, "call")) {
    TSNode args = TL_CHILD(n, arguments);
    r = ts_node_named_child_count(args) == 1 && tl_node_text_eq(ts_node_named_child(args, 0), c->src, "False");
  }
  free(q);
  free(d);
  return r;
}

/* Inside `with torch.no_grad():` or a function decorated with `@torch.no_grad()` (or the like)? */
static bool tl_values__in_no_grad(const tl_match_env *c, TSNode n) {
  tl_up up;
  tl_up_init(&up, n);
  for (TSNode p = tl_up_next(&up); !ts_node_is_null(p); p = tl_up_next(&up)) {
    if (tl_node_is(p, "with_statement")) {
      for (uint32_t i = 0; i < ts_node_named_child_count(p); i++) {
        TSNode clause = ts_node_named_child(p, i);
        if (!tl_node_is(clause, "with_clause")) continue;
        for (uint32_t j = 0; j < ts_node_named_child_count(clause); j++) {
          TSNode item = ts_node_named_child(clause, j);
          TSNode v = tl_node_is(item, "with_item") ? TL_CHILD(item, value) : item;
          if (tl_values__is_no_grad_call(c, v)) return true;
        }
      }
    } else if (tl_node_is(p, "function_definition")) {
      TSNode dd = tl_up_next(&up); /* the loop ends in this branch */
      for (uint32_t i = 0; tl_node_is(dd, "decorated_definition") && i < ts_node_named_child_count(dd); i++) {
        TSNode dec = ts_node_named_child(dd, i);
        if (tl_node_is(dec, "decorator") && ts_node_named_child_count(dec) &&
            tl_values__is_no_grad_call(c, ts_node_named_child(dec, 0)))
          return true;
      }
      /* Lightning runs these hooks of a LightningModule with gradients disabled */
      TSNode name = TL_CHILD(p, name);
      if (tl_node_text_eq(name, c->src, "validation_step") || tl_node_text_eq(name, c->src, "test_step") ||
          tl_node_text_eq(name, c->src, "predict_step")) {
        for (TSNode k = dd; !ts_node_is_null(k); k = tl_up_next(&up))
          if (tl_node_is(k, "class_definition")) {
            TSNode sup = TL_CHILD(k, superclasses);
            uint32_t a = ts_node_is_null(sup) ? 0 : ts_node_start_byte(sup);
            return !ts_node_is_null(sup) && tl_icontains(c->src + a, ts_node_end_byte(sup) - a, "lightning");
          }
      }
      return false;
    } else if (tl_node_is(p, "lambda") || tl_node_is(p, "class_definition")) {
      return false;
    }
  }
  return false;
}

/* The right side of the tuple assignment that bound a name without a value of its own
 * (`logits, loss = model(x)`), found from the binding's end byte. */
static TSNode tl_values__tuple_rhs(TSNode anchor, uint32_t end) {
  if (end == 0) return (TSNode){0};
  TSNode root = ts_tree_root_node(anchor.tree);
  TSNode n = ts_node_descendant_for_byte_range(root, end - 1, end);
  tl_up up;
  tl_up_init(&up, n);
  for (; !ts_node_is_null(n); n = tl_up_next(&up)) {
    if (tl_node_is(n, "assignment") && ts_node_end_byte(n) == end) return TL_CHILD(n, right);
    if (ts_node_end_byte(n) > end || tl_is_scope(n)) break;
  }
  return (TSNode){0};
}

static bool tl_values__keeps_graph(const tl_match_env *c, TSNode n, int depth);
/* A call of a model object (`model(x)`, `self.encoder(h)`), not of a function or method that
 * merely has a model-like name (`get_module(...)`, `self.op_generator(...)` defined in the class). */
static bool tl_values__is_model_call(const tl_match_env *c, const char *callee) {
  if (!(tl_model_call_work(callee) & TL_WORK_MODEL)) return false;
  const tl_file_model *m = c->m;
  if (!strchr(callee, '.')) {
    intptr_t v;
    if (tl_map_get(&m->imports, callee, &v)) return false; /* an imported function or class */
    for (size_t i = 1; i < m->funcs.n; i++)
      if (m->funcs.v[i].cls < 0 && !strcmp(m->funcs.v[i].name, callee)) return false;
    return true;
  }
  if (!strncmp(callee, "self.", 5) && !strchr(callee + 5, '.') && c->func >= 0 && (size_t)c->func < m->funcs.n) {
    int32_t cls = m->funcs.v[c->func].cls;
    for (size_t i = 1; cls >= 0 && i < m->funcs.n; i++)
      if (m->funcs.v[i].cls == cls && !strcmp(m->funcs.v[i].name, callee + 5)) return false; /* a method */
  }
  return true;
}

/* Is the expression known to have no graph: `x.detach()`, or a name bound under no_grad or to a
 * detached value? (For a criterion's prediction argument: `criterion(out, y)` with `out`
 * computed under `torch.no_grad()` has no graph either.) */
static bool tl_values__graph_cut(const tl_match_env *c, TSNode n, int depth) {
  if (depth > 8 || ts_node_is_null(n)) return false;
  n = tl_unparen(n);
  if (tl_node_is(n, "call")) {
    TSNode fn = TL_CHILD(n, function);
    TSNode attr = tl_node_is(fn, "attribute") ? TL_CHILD(fn, attribute) : (TSNode){0};
    return tl_node_text_eq(attr, c->src, "detach") || tl_node_text_eq(attr, c->src, "item");
  }
  if (!tl_node_is(n, "identifier") && !tl_node_is(n, "attribute")) return false;
  char *d = tl_dotted(n, c->src);
  const tl_binding *b = d ? tl_model_binding(c->m, d, c->func, ts_node_start_byte(n)) : NULL;
  free(d);
  TSNode bv = b ? tl_bvalue(c->m, b) : (TSNode){0};
  if (ts_node_is_null(bv)) return false;
  return tl_values__in_no_grad(c, bv) || tl_values__graph_cut(c, bv, depth + 1);
}

static bool tl_values__first_arg_cut(const tl_match_env *c, TSNode args) {
  for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (tl_node_is(a, "keyword_argument") || tl_node_is(a, "comment")) continue;
    return tl_values__graph_cut(c, a, 0);
  }
  return false;
}

static bool tl_values__name_keeps_graph(const tl_match_env *c, TSNode n, int depth) {
  char *d = tl_dotted(n, c->src);
  if (!d) return false;
  const tl_binding *b = tl_model_binding(c->m, d, c->func, ts_node_start_byte(n));
  /* one of several results of a call (`loss, sample_size, logging_output = criterion(model, s)`):
   * the call's graph is the loss's, not that of the counts and logs beside it */
  bool loss_named = tl_icontains(d, strlen(d), "loss");
  free(d);
  if (b) {
    TSNode v = tl_bvalue(c->m, b);
    if (ts_node_is_null(v)) {
      if (b->from_loop >= 0) return false; /* a loop variable: data, not a result */
      v = tl_values__tuple_rhs(n, b->byte);
    }
    if (ts_node_is_null(v) || tl_values__in_no_grad(c, v)) return false;
    if (b->elem && tl_node_is(tl_unparen(v), "call") && !loss_named) return false;
    return tl_values__keeps_graph(c, v, depth + 1);
  }
  if (tl_node_is(n, "attribute")) {
    /* outputs.loss of `outputs = model(x)`; x.data, x.shape have no graph */
    TSNode attr = TL_CHILD(n, attribute);
    uint32_t s = ts_node_start_byte(attr);
    if (tl_str_in(c->src + s, ts_node_end_byte(attr) - s, tl_vocab_graphless_attrs)) return false;
    return tl_values__keeps_graph(c, TL_CHILD(n, object), depth + 1);
  }
  return false;
}

static bool tl_values__keeps_graph(const tl_match_env *c, TSNode n, int depth) {
  if (depth > TL_PRED_MAX_DEPTH || ts_node_is_null(n)) return false;
  n = tl_unparen(n);
  const char *src = c->src;
  const char *t = ts_node_type(n);
  if (!strcmp(t, "identifier") || !strcmp(t, "attribute")) return tl_values__name_keeps_graph(c, n, depth);
  if (!strcmp(t, "subscript")) return tl_values__keeps_graph(c, TL_CHILD(n, value), depth + 1);
  if (!strcmp(t, "unary_operator")) return tl_values__keeps_graph(c, TL_CHILD(n, argument), depth + 1);
  if (!strcmp(t, "conditional_expression"))
    return tl_values__keeps_graph(c, ts_node_named_child(n, 0), depth + 1) ||
           tl_values__keeps_graph(c, ts_node_named_child(n, 2), depth + 1);
  if (!strcmp(t, "binary_operator")) {
    TSNode left = TL_CHILD(n, left);
    if (tl_node_is(left, "string") || tl_node_is(left, "concatenated_string")) return false;
    return tl_values__keeps_graph(c, left, depth + 1) || tl_values__keeps_graph(c, TL_CHILD(n, right), depth + 1);
  }
  if (strcmp(t, "call")) return false; /* comparisons, literals, containers, ... */
  TSNode fn = TL_CHILD(n, function);
  TSNode args = TL_CHILD(n, arguments);
  if (tl_node_is(fn, "identifier")) {
    uint32_t s = ts_node_start_byte(fn), l = ts_node_end_byte(fn) - s;
    if (tl_str_in(src + s, l, tl_vocab_py_graphless_builtins)) return false;
    char *name = tl_node_text(fn, src);
    bool r = tl_values__is_model_call(c, name) ||
             ((tl_icontains(src + s, l, "loss") || tl_icontains(src + s, l, "criterion")) &&
              !tl_values__first_arg_cut(c, args));
    free(name);
    return r;
  }
  if (!tl_node_is(fn, "attribute")) return false;
  TSNode attr = TL_CHILD(fn, attribute);
  TSNode obj = TL_CHILD(fn, object);
  uint32_t s = ts_node_start_byte(attr), l = ts_node_end_byte(attr) - s;
  if (tl_str_in(src + s, l, tl_vocab_graphless_methods)) return false;
  char *callee = tl_dotted(fn, src);
  if (callee) {
    char *q = tl_model_resolve(c->m, callee);
    bool lib = !strchr(q, '(') && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7));
    bool host = !strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3) || !strncmp(q, "math.", 5);
    bool model = tl_values__is_model_call(c, callee);
    free(q);
    free(callee);
    if (host) return false;
    if (lib) {
      /* torch.mean(loss), F.cross_entropy(logits, y): any tensor argument with a graph */
      for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
        TSNode a = ts_node_named_child(args, i);
        if (!tl_node_is(a, "keyword_argument") && tl_values__keeps_graph(c, a, depth + 1)) return true;
      }
      return false;
    }
    if (model) return true;
    if (tl_icontains(src + s, l, "loss") || tl_icontains(src + s, l, "criterion"))
      return !tl_values__first_arg_cut(c, args);
  }
  /* a method keeps its receiver's graph: loss.mean(), out.float(), (a + b).sum() */
  return tl_values__keeps_graph(c, obj, depth + 1);
}

/* ---- the predicates ---- */

/* #maybe-device? @a: not known to live on the host */
static tl_verdict tl_values__maybe_device(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  tl_valkind k = tl_value_classify(e->m, a, e->src, e->func, 0);
  return tl_verdict_of(k == TL_VAL_UNKNOWN || k == TL_VAL_DEVICE);
}

/* #device-or-info? @a: as #maybe-device?, and when nothing establishes that @a lives on the device
 * (its place is unknown), the finding is reported at info: a warning claims the value is there. */
static tl_verdict tl_values__device_or_info(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  tl_vdep dep;
  tl_valkind k = tl_value_classify_dep(e->m, a, e->src, e->func, &dep);
  /* a tensor of unknown place in the per-step code of a program that uses an accelerator: a value
   * read with a method only tensors have (`.numpy()`, `.cpu()`), or one a framework op made */
  TSNode up = ts_node_parent(a);
  bool tensor_read = tl_node_is(up, "attribute") && (tl_node_text_eq(TL_CHILD(up, attribute), e->src, "numpy") ||
                                                     tl_node_text_eq(TL_CHILD(up, attribute), e->src, "cpu"));
  /* the input of a framework operation (`paddle.masked_select(x, m)`, `torch.nonzero(x)`) */
  if (!tensor_read && tl_node_is(up, "argument_list")) {
    char *d = tl_dotted(TL_CHILD(ts_node_parent(up), function), e->src);
    char *q = d ? tl_model_resolve(e->m, d) : NULL;
    tensor_read = q && (!strncmp(q, "torch.", 6) || !strncmp(q, "paddle.", 7)) && !tl_value_lib_not_tensor(q);
    free(q);
    free(d);
  }
  if (k == TL_VAL_UNKNOWN && (tensor_read || tl_value_is_tensor(e->m, a, e->src, e->func, 0))) {
    /* at its severity; a parameter or a call's result that the project's summaries place on the
     * host after all (a host tensor the loop hands a helper) is no finding */
    if (dep.how != TL_VDEP_NONE) {
      e->vsev = e->severity;
      e->vinfo = true;
      e->vdep = dep;
    }
    return TL_PRED_TRUE;
  }
  if (k == TL_VAL_UNKNOWN) {
    e->vsev = e->severity;
    e->severity = TL_SEVERITY_INFO;
    e->vinfo = true;
    e->vdep = dep;
  }
  return tl_verdict_of(k == TL_VAL_UNKNOWN || k == TL_VAL_DEVICE);
}


/* #tensor? @a: evidence that @a is a (device) tensor value. When the evidence is a name or a method
 * and the value is a parameter's or a call's result, the project's summaries have the last word: a
 * value they place on the host (`loss = run_step(...)`, a helper returning a float summed from
 * `.item()`) is no finding. */
static tl_verdict tl_values__tensor(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  if (!tl_values__is_tensor(e, a)) return TL_PRED_FALSE;
  tl_vdep dep;
  if (tl_value_classify_dep(e->m, a, e->src, e->func, &dep) == TL_VAL_UNKNOWN && dep.how != TL_VDEP_NONE) {
    e->vsev = e->severity;
    e->vinfo = true;
    e->vdep = dep;
  }
  return TL_PRED_TRUE;
}

/* #tensor-or-device? @a: as #tensor?, or, failing that, a value its file cannot place that depends
 * on a parameter or a call (`float(loss_dict["loss"])` in a helper handed the loss dictionary): the
 * match stands only if the project's summaries place that value on the device, as a tensor (a
 * number there is no host read). */
/* Does the expression read a tensor's metadata, which the host holds (`x.shape[1] ** 0.5`,
 * `len(x)`, `x.size(0) // 2`), itself or through the local names it reads (`n = x.shape[0]`, then
 * `n // 2`)? */
static bool tl_values__metadata(const tl_match_env *e, TSNode n, int depth) {
  const char *src = e->src;
  if (ts_node_is_null(n) || depth > 16) return false;
  if (tl_node_is(n, "identifier")) {
    char *d = tl_node_text(n, src);
    const tl_binding *b = d ? tl_model_binding(e->m, d, e->func, ts_node_start_byte(n)) : NULL;
    free(d);
    TSNode v = b ? tl_bvalue(e->m, b) : (TSNode){0};
    return !ts_node_is_null(v) && tl_values__metadata(e, v, depth + 4);
  }
  static const char *const attrs[] = {"shape", "ndim", "dtype", "device", "size", "dim", "numel", NULL};
  if (tl_node_is(n, "attribute")) {
    TSNode at = TL_CHILD(n, attribute);
    uint32_t s = ts_node_start_byte(at);
    if (tl_str_in(src + s, ts_node_end_byte(at) - s, attrs)) return true;
  }
  if (tl_node_is(n, "call") && tl_node_text_eq(TL_CHILD(n, function), src, "len")) return true;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (tl_values__metadata(e, ts_node_named_child(n, i), depth + 1)) return true;
  return false;
}

static tl_verdict tl_values__tensor_or_device(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  tl_vdep dep;
  if (tl_values__is_tensor(e, a)) {
    /* the evidence of a name or a method: a parameter or a call's result that the project's
     * summaries place on the host after all (`float(loss)` in a helper every call hands a number)
     * is no finding */
    if (tl_value_classify_dep(e->m, a, e->src, e->func, &dep) == TL_VAL_UNKNOWN && dep.how != TL_VDEP_NONE) {
      e->vsev = e->severity;
      e->vinfo = true;
      e->vdep = dep;
    }
    return TL_PRED_TRUE;
  }
  if (tl_values__metadata(e, a, 0)) return TL_PRED_FALSE;
  if (tl_value_classify_dep(e->m, a, e->src, e->func, &dep) != TL_VAL_UNKNOWN || dep.how == TL_VDEP_NONE)
    return TL_PRED_FALSE;
  e->vneed = true;
  e->vdep = dep;
  return TL_PRED_TRUE;
}

/* #passes-tensor? @args: an argument, or a value formatted into one, is a tensor (#tensor?) */
static tl_verdict tl_values__passes(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_values__passes_tensor(e, a));
}

/* #has-reduction? @a: a tensor reduction inside @a; sets @focus to it */
static tl_verdict tl_values__has_reduction(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  TSNode f = {0};
  if (!tl_values__find_reduction(e, a, 0, &f)) return TL_PRED_FALSE;
  e->focus = f;
  return TL_PRED_TRUE;
}

/* #tensor-condition? @a: a condition whose truth needs a device value */
static tl_verdict tl_values__tensor_cond(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  tl_vdep need = TL_VDEP_NOTHING;
  if (!tl_values__tensor_condition(e, a, 0, &need)) return TL_PRED_FALSE;
  if (need.how != TL_VDEP_NONE && !e->vneed &&
      !e->vinfo) { /* at info: judged on the wild code bases, such a count or size was
                                  * mostly read on the host anyway (a `masked_select` in the branch,
                                  * a shape or slice bound after it) */
    e->vneed = true;
    e->vdep = need;
    e->severity = TL_SEVERITY_INFO;
  }
  return TL_PRED_TRUE;
}

/* #needs-device-value? @a: evaluating @a as a Python value reads a device value */
static tl_verdict tl_values__needs_device(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_values__find_host_read(e, a, 0) || tl_values__tensor_condition(e, a, 0, NULL));
}

/* #bool-mask? @a: @a is a boolean tensor (a comparison, `.bool()`, `isnan`, ...) */
static tl_verdict tl_values__mask(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_values__bool_mask(e, a, 0));
}

/* #keeps-graph? @a: a model/criterion output, not detached, outside no_grad */
static tl_verdict tl_values__keeps(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(!tl_values__in_no_grad(e, a) && tl_values__keeps_graph(e, a, 0));
}


/* #forced-constant? @a: forces 0/1; sets @configured when one branch is configurable */
static tl_verdict tl_values__forced(tl_match_env *e, const tl_pred *p, TSNode a) {
  (void)p;
  return tl_verdict_of(tl_values__forced_const(e, a));
}

/* name, captures, strings, regex, gate, flags, function, project function, prepare */
const tl_pred_def tl_preds_values[] = {
    {"maybe-device?", 1, 0, -1, TL_GATE_NONE, 0, tl_values__maybe_device, NULL, NULL},
    {"device-or-info?", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_values__device_or_info, NULL, NULL},
    {"tensor?", 1, 0, -1, TL_GATE_NONE, 0, tl_values__tensor, NULL, NULL},
    {"tensor-or-device?", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_values__tensor_or_device, NULL, NULL},
    {"passes-tensor?", 1, 0, -1, TL_GATE_NONE, 0, tl_values__passes, NULL, NULL},
    {"has-reduction?", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_values__has_reduction, NULL, NULL},
    {"tensor-condition?", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_values__tensor_cond, NULL, NULL},
    {"needs-device-value?", 1, 0, -1, TL_GATE_NONE, 0, tl_values__needs_device, NULL, NULL},
    {"bool-mask?", 1, 0, -1, TL_GATE_NONE, 0, tl_values__mask, NULL, NULL},
    {"keeps-graph?", 1, 0, -1, TL_GATE_NONE, 0, tl_values__keeps, NULL, NULL},
    {"forced-constant?", 1, 0, -1, TL_GATE_NONE, TL_PF_IMPURE, tl_values__forced, NULL, NULL},
    {NULL, 0, 0, -1, TL_GATE_NONE, 0, NULL, NULL, NULL},
};
