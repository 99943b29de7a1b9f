/* tlb_stats.c - statistics, clocks and JSON-lines output for the CUDA microbenchmarks (no CUDA here). */
#define _POSIX_C_SOURCE 200809L
#include "tlb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double tlb_quantile_sorted(const double *sorted, int n, double q) {
  if (n == 1) return sorted[0];
  double pos = q * (double)(n - 1);
  int lo = (int)floor(pos);
  if (lo >= n - 1) return sorted[n - 1];
  double frac = pos - (double)lo;
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int tlb_stats_compute(const double *samples, int n, struct tlb_stats *out) {
  memset(out, 0, sizeof *out);
  if (n < 1) return -1;
  double *s = malloc((size_t)n * sizeof *s);
  if (!s) return -1;
  memcpy(s, samples, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += s[i];
  out->reps = n;
  out->min = s[0];
  out->max = s[n - 1];
  out->mean = sum / n;
  out->median = tlb_quantile_sorted(s, n, 0.5);
  out->p10 = tlb_quantile_sorted(s, n, 0.1);
  out->p90 = tlb_quantile_sorted(s, n, 0.9);
  out->spread = out->median != 0 ? (out->p90 - out->p10) / out->median : 0;
  free(s);
  return 0;
}

double tlb_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tlb_host_work_us(double us) {
  double end = tlb_now_s() + us * 1e-6;
  while (tlb_now_s() < end) {}
}

void tlb_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\t': fputs("\\t", f); break;
    default:
      if (*p < 0x20) fprintf(f, "\\u%04x", *p);
      else fputc(*p, f);
    }
  }
  fputc('"', f);
}

/* JSON has no NaN/Infinity: print null for them. */
static void json_number(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, "%.6g", x);
  else fputs("null", f);
}

static void json_key(FILE *f, const char *key) {
  tlb_json_string(f, key);
  fputc(':', f);
}

static void head(FILE *f, const char *id, const char *rule, const char *rule_name) {
  fputs("{\"kind\":\"bench\",", f);
  json_key(f, "id");
  tlb_json_string(f, id);
  fputc(',', f);
  json_key(f, "rule");
  tlb_json_string(f, rule);
  fputc(',', f);
  json_key(f, "rule_name");
  tlb_json_string(f, rule_name);
}

int tlb_emit(FILE *f, const struct tlb_result *r) {
  struct tlb_stats st[TLB_MAX_VARIANTS];
  double med_anti = NAN, med_fix = NAN;
  for (int i = 0; i < r->nv; i++) {
    if (tlb_stats_compute(r->v[i].samples, r->v[i].n, &st[i]) != 0) return -1;
    if (r->anti && strcmp(r->v[i].name, r->anti) == 0) med_anti = st[i].median;
    if (r->fix && strcmp(r->v[i].name, r->fix) == 0) med_fix = st[i].median;
  }
  head(f, r->id, r->rule, r->rule_name);
  fputs(",\"status\":\"ok\",", f);
  json_key(f, "what");
  tlb_json_string(f, r->what);
  fputc(',', f);
  json_key(f, "unit");
  tlb_json_string(f, r->unit);
  fputs(",\"params\":", f);
  fputs(r->params_json ? r->params_json : "{}", f);
  fputs(",\"variants\":[", f);
  for (int i = 0; i < r->nv; i++) {
    const struct tlb_variant *v = &r->v[i];
    fputs(i ? ",{" : "{", f);
    json_key(f, "name");
    tlb_json_string(f, v->name);
    fputc(',', f);
    json_key(f, "role");
    tlb_json_string(f, v->role);
    fputc(',', f);
    json_key(f, "clock");
    tlb_json_string(f, v->clock);
    fprintf(f, ",\"reps\":%d", st[i].reps);
    const char *names[] = {"median", "min", "max", "mean", "p10", "p90", "spread"};
    const double vals[] = {st[i].median, st[i].min, st[i].max, st[i].mean, st[i].p10, st[i].p90, st[i].spread};
    for (int k = 0; k < 7; k++) {
      fputc(',', f);
      json_key(f, names[k]);
      json_number(f, vals[k]);
    }
    if (v->extra_json && *v->extra_json) {
      fputc(',', f);
      fputs(v->extra_json, f);
    }
    fputc('}', f);
  }
  fputs("],\"ratio\":{", f);
  json_key(f, "anti");
  tlb_json_string(f, r->anti);
  fputc(',', f);
  json_key(f, "fix");
  tlb_json_string(f, r->fix);
  fputc(',', f);
  json_key(f, "value");
  json_number(f, med_anti / med_fix);
  fputs("}}\n", f);
  fflush(f);
  return 0;
}

void tlb_emit_status(FILE *f, const char *id, const char *rule, const char *rule_name, const char *status,
                     const char *reason, const char *detail) {
  head(f, id, rule, rule_name);
  fputc(',', f);
  json_key(f, "status");
  tlb_json_string(f, status);
  fputc(',', f);
  json_key(f, "reason");
  tlb_json_string(f, reason);
  fputc(',', f);
  json_key(f, "detail");
  tlb_json_string(f, detail);
  fputs("}\n", f);
  fflush(f);
}
