/* tl_values.c - where a value lives: an expression classified as a device tensor, a host tensor
 * or array, a Python value, a container, or unknown, from its syntax and the bindings of the
 * file's model (docs/hot-code.md, "Device awareness"). */
#include "tl_rules.h"

#include <string.h>

#include "tl_vocab.h"

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

static tl_valkind tl_classify_call(const tl_file_model *m, TSNode n, const char *src, int32_t func, int depth) {
  TSNode fn = TL_CHILD(n, function);
  TSNode args = TL_CHILD(n, arguments);
  char *callee = tl_dotted(fn, src);
  tl_valkind out = TL_VAL_UNKNOWN;
  if (!callee) {
    if (tl_node_is(fn, "attribute"))
      out = tl_value_classify(m, TL_CHILD(fn, object), src, func, depth + 1);
    return out == TL_VAL_LIST ? TL_VAL_UNKNOWN : out;
  }
  char *q = tl_model_resolve(m, callee);
  size_t ln;
  const char *last = tl_dotted_last(callee, &ln);
  char *meth = tl_strndup(last, ln);
  if (!strchr(callee, '.') && tl_str_in(callee, strlen(callee), tl_vocab_py_scalar_builtins)) out = TL_VAL_PY;
  else if (!strchr(callee, '.') && tl_str_in(callee, strlen(callee), tl_vocab_py_container_builtins)) out = TL_VAL_LIST;
  else if (!strncmp(q, "numpy.", 6) || !strncmp(q, "np.", 3) || !strncmp(q, "math.", 5)) out = TL_VAL_CPU;
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
    if (!strcmp(meth, "cpu") || !strcmp(meth, "numpy") || !strcmp(meth, "pin_memory")) out = TL_VAL_CPU;
    else if (!strcmp(meth, "item") || !strcmp(meth, "tolist") || !strcmp(meth, "size") || !strcmp(meth, "dim") ||
             !strcmp(meth, "numel") || !strcmp(meth, "nelement") || !strcmp(meth, "get_device"))
      out = !strcmp(meth, "tolist") ? TL_VAL_LIST : TL_VAL_PY;
    else if (!strcmp(meth, "cuda")) out = TL_VAL_DEVICE;
    else if (!strcmp(meth, "to")) {
      out = TL_VAL_UNKNOWN;
      for (uint32_t i = 0; i < ts_node_named_child_count(args) && out == TL_VAL_UNKNOWN; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (tl_node_is(a, "keyword_argument")) {
          TSNode k = TL_CHILD(a, name);
          if (ts_node_end_byte(k) - ts_node_start_byte(k) != 6 || memcmp(src + ts_node_start_byte(k), "device", 6)) continue;
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
  if (out == TL_VAL_UNKNOWN && (tl_icontains(last, ln, "criterion") || tl_icontains(last, ln, "loss")) &&
      !strchr(callee, '(') && strncmp(q, "torch.", 6) && strncmp(q, "paddle.", 7))
    out = TL_VAL_DEVICE;
  free(meth);
  free(q);
  free(callee);
  return out;
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
  if (!strcmp(t, "identifier") || !strcmp(t, "attribute")) {
    char *d = tl_dotted(n, src);
    if (!d) return TL_VAL_UNKNOWN;
    const tl_binding *b = tl_model_binding(m, d, func, ts_node_start_byte(n));
    tl_valkind k = TL_VAL_UNKNOWN;
    if (b) {
      TSNode bv = tl_bvalue(m, b);
      k = ts_node_is_null(bv) ? b->kind : tl_value_classify(m, bv, src, b->func, depth + 1);
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
    tl_valkind k = tl_value_classify(m, TL_CHILD(n, value), src, func, depth + 1);
    return (k == TL_VAL_LIST || k == TL_VAL_PY) ? TL_VAL_UNKNOWN : k;
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
