/* tlb.h - statistics, clocks and JSON-lines output shared by the CUDA microbenchmarks (plain C). */
#ifndef TLB_H
#define TLB_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Summary of one variant's samples. spread = (p90 - p10) / median (0 when median is 0). */
struct tlb_stats {
  int reps;
  double median, min, max, mean, p10, p90, spread;
};

/* Fills *out from samples[0..n). Does not modify samples (sorts a copy). Returns 0, or -1 when
 * n < 1 or memory runs out; then *out is all zero. */
int tlb_stats_compute(const double *samples, int n, struct tlb_stats *out);

/* Linear-interpolated quantile q in [0,1] of sorted[0..n), n >= 1. */
double tlb_quantile_sorted(const double *sorted, int n, double q);

/* Monotonic host clock in seconds. */
double tlb_now_s(void);

/* Busy-waits on the host for `us` microseconds (models per-step Python / data work). */
void tlb_host_work_us(double us);

/* One variant of a benchmark: `role` is "anti" (the anti-pattern), "fix", or "ref" (context). */
struct tlb_variant {
  const char *name;
  const char *role;
  const char *clock; /* "cuda-event" or "host" */
  const double *samples;
  int n;
  const char *extra_json; /* NULL, or more members for the variant object, e.g. "\"gbps\":12.5" */
};

enum { TLB_MAX_VARIANTS = 8 };

/* One benchmark's result, printed as one JSON object on one line. */
struct tlb_result {
  const char *id;
  const char *rule;        /* "TL101" */
  const char *rule_name;   /* "sync-in-hot-path" */
  const char *what;        /* one sentence: what is measured */
  const char *unit;        /* unit of every sample, e.g. "us" or "ms/step" */
  const char *params_json; /* NULL, or a JSON object text */
  struct tlb_variant v[TLB_MAX_VARIANTS];
  int nv;
  const char *anti, *fix; /* variant names compared by "ratio" (median anti / median fix) */
};

/* Writes s as a JSON string literal (with quotes). */
void tlb_json_string(FILE *f, const char *s);

/* Prints r as one JSON line with "status":"ok". Returns 0, or -1 if a variant has no samples. */
int tlb_emit(FILE *f, const struct tlb_result *r);

/* Prints {"kind":"bench","id":...,"status":"skipped"|"error","reason":...,"detail":...}. */
void tlb_emit_status(FILE *f, const char *id, const char *rule, const char *rule_name, const char *status,
                     const char *reason, const char *detail);

#ifdef __cplusplus
}
#endif
#endif
