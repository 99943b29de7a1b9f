// tl_cudabench.cu - CUDA microbenchmarks behind trainlint's rules: anti-pattern vs fix, JSON lines out.
//
// Output (stdout): one JSON object per line. The first has "kind":"device"; then one "kind":"bench"
// line per benchmark with "status" "ok" (variants with median/min/max/p10/p90/spread/reps, and
// "ratio" = median(anti) / median(fix)), "skipped" or "error". bench/README.md documents the format.
// With no CUDA device every benchmark line says "no CUDA device: skipped" and the exit status is 0.
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlb.h"
#include "tlb_kernels.cuh"

namespace {

enum { kMaxItems = 64 };
enum item_kind { ITEM_DEVICE, ITEM_PINNED, ITEM_HOST, ITEM_EVENT };

struct item {
  item_kind kind;
  void *p;
  cudaEvent_t ev;
};

// State shared by the benchmarks. Everything allocated through it is released after each benchmark,
// so a benchmark can return early on any CUDA error without leaking into the next one.
struct ctx {
  int quick;
  int scratch_batch;
  cudaStream_t s, s2;
  char err[512];
  item items[kMaxItems];
  int nitems;
};

#define CK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      snprintf(c->err, sizeof c->err, "%s: %s (line %d)", #call, cudaGetErrorString(e_), __LINE__); \
      return -1; \
    } \
  } while (0)

// Checks that the kernels launched so far were accepted.
#define CK_LAUNCH() CK(cudaGetLastError())

int fail(ctx *c, const char *msg) {
  snprintf(c->err, sizeof c->err, "%s", msg);
  return -1;
}

int track(ctx *c, item it) {
  if (c->nitems == kMaxItems) return fail(c, "internal: too many allocations in one benchmark");
  c->items[c->nitems++] = it;
  return 0;
}

template <typename T> int dalloc(ctx *c, T **p, size_t count) {
  CK(cudaMalloc((void **)p, count * sizeof(T)));
  return track(c, item{ITEM_DEVICE, *p, nullptr});
}

template <typename T> int palloc(ctx *c, T **p, size_t count) {
  CK(cudaMallocHost((void **)p, count * sizeof(T)));
  return track(c, item{ITEM_PINNED, *p, nullptr});
}

template <typename T> int halloc(ctx *c, T **p, size_t count) {
  *p = (T *)calloc(count, sizeof(T));
  if (!*p) return fail(c, "out of host memory");
  return track(c, item{ITEM_HOST, *p, nullptr});
}

int event(ctx *c, cudaEvent_t *e, unsigned flags = cudaEventDefault) {
  CK(cudaEventCreateWithFlags(e, flags));
  return track(c, item{ITEM_EVENT, nullptr, *e});
}

void release_all(ctx *c) {
  cudaDeviceSynchronize();
  for (int i = c->nitems - 1; i >= 0; i--) {
    item &it = c->items[i];
    switch (it.kind) {
    case ITEM_DEVICE: cudaFree(it.p); break;
    case ITEM_PINNED: cudaFreeHost(it.p); break;
    case ITEM_HOST: free(it.p); break;
    case ITEM_EVENT: cudaEventDestroy(it.ev); break;
    }
  }
  c->nitems = 0;
}

int reps(const ctx *c, int full, int quick) { return c->quick ? quick : full; }

// Milliseconds between two recorded events, after waiting for the second.
int elapsed_ms(ctx *c, cudaEvent_t a, cudaEvent_t b, double *ms) {
  float f = 0;
  CK(cudaEventSynchronize(b));
  CK(cudaEventElapsedTime(&f, a, b));
  *ms = f;
  return 0;
}

// Prints the result line; a variant without samples is a bug in the benchmark.
int emit(ctx *c, const struct tlb_result *r) {
  return tlb_emit(stdout, r) == 0 ? 0 : fail(c, "internal: a variant has no samples");
}

#define TRY(expr) \
  do { \
    if ((expr) != 0) return -1; \
  } while (0)

// GPU time of one n x n SGEMM on stream s (median of 5), for calibrating "a few ms of work".
int sgemm_ms(ctx *c, const float *A, const float *B, float *C, int n, double *out) {
  cudaEvent_t e0, e1;
  TRY(event(c, &e0));
  TRY(event(c, &e1));
  double t[5];
  tlk_sgemm(A, B, C, n, c->s); // warm-up
  for (int i = 0; i < 5; i++) {
    CK(cudaEventRecord(e0, c->s));
    tlk_sgemm(A, B, C, n, c->s);
    CK(cudaEventRecord(e1, c->s));
    TRY(elapsed_ms(c, e0, e1, &t[i]));
  }
  CK_LAUNCH();
  struct tlb_stats st;
  tlb_stats_compute(t, 5, &st);
  *out = st.median;
  return 0;
}

int clamp_count(double want, int lo, int hi) {
  long k = lround(want);
  return (int)(k < lo ? lo : k > hi ? hi : k);
}

// --- (a) kernel launch latency --------------------------------------------------------------------

int bench_launch(ctx *c, const char *id) {
  const int per = 1000;
  int nr = reps(c, 50, 5), nrt = reps(c, 1000, 100);
  double *enq, *b2b, *rt;
  cudaEvent_t e0, e1;
  TRY(halloc(c, &enq, nr));
  TRY(halloc(c, &b2b, nr));
  TRY(halloc(c, &rt, nrt));
  TRY(event(c, &e0));
  TRY(event(c, &e1));
  for (int i = 0; i < 200; i++) tlk_empty(c->s);
  CK_LAUNCH();
  CK(cudaStreamSynchronize(c->s));

  for (int r = 0; r < nr; r++) { // host cost of one asynchronous launch
    CK(cudaStreamSynchronize(c->s));
    double t0 = tlb_now_s();
    for (int i = 0; i < per; i++) tlk_empty(c->s);
    enq[r] = (tlb_now_s() - t0) * 1e6 / per;
  }
  CK_LAUNCH();
  for (int r = 0; r < nr; r++) { // GPU time per kernel when launches are queued back to back
    CK(cudaStreamSynchronize(c->s));
    CK(cudaEventRecord(e0, c->s));
    for (int i = 0; i < per; i++) tlk_empty(c->s);
    CK(cudaEventRecord(e1, c->s));
    double ms;
    TRY(elapsed_ms(c, e0, e1, &ms));
    b2b[r] = ms * 1e3 / per;
  }
  CK_LAUNCH();
  for (int r = 0; r < nrt; r++) { // launch, then wait for it: what a sync after each op costs
    double t0 = tlb_now_s();
    tlk_empty(c->s);
    CK(cudaStreamSynchronize(c->s));
    rt[r] = (tlb_now_s() - t0) * 1e6;
  }
  CK_LAUNCH();

  struct tlb_result r = {};
  r.id = id;
  r.rule = "TL301";
  r.rule_name = "python-index-loop-over-tensor";
  r.what = "empty kernel: host cost of an async launch, GPU time per kernel back to back, and "
           "launch + stream sync round trip";
  r.unit = "us/launch";
  r.params_json = "{\"launches_per_rep\":1000}";
  r.v[0] = {"launch+sync", "anti", "host", rt, nrt, nullptr};
  r.v[1] = {"back-to-back", "fix", "cuda-event", b2b, nr, nullptr};
  r.v[2] = {"enqueue-only", "ref", "host", enq, nr, nullptr};
  r.nv = 3;
  r.anti = "launch+sync";
  r.fix = "back-to-back";
  return emit(c, &r);
}

// --- (b) one scalar device-to-host + sync (what .item() costs), GPU idle and busy -----------------

int bench_readback(ctx *c, const char *id) {
  const long long busy_ns = 2000000; // 2 ms of queued work
  int nidle = reps(c, 500, 50), nbusy = reps(c, 100, 10);
  float *d_x, *h_x;
  double *idle, *busy, *nosync;
  TRY(dalloc(c, &d_x, 1));
  TRY(halloc(c, &h_x, 1)); // pageable, like the destination of .item()
  TRY(halloc(c, &idle, nidle));
  TRY(halloc(c, &busy, nbusy));
  TRY(halloc(c, &nosync, nbusy));
  CK(cudaMemsetAsync(d_x, 0, sizeof(float), c->s));
  for (int i = 0; i < 20; i++) CK(cudaMemcpyAsync(h_x, d_x, sizeof(float), cudaMemcpyDeviceToHost, c->s));
  CK(cudaStreamSynchronize(c->s));

  for (int r = 0; r < nidle; r++) {
    double t0 = tlb_now_s();
    CK(cudaMemcpyAsync(h_x, d_x, sizeof(float), cudaMemcpyDeviceToHost, c->s));
    CK(cudaStreamSynchronize(c->s));
    idle[r] = (tlb_now_s() - t0) * 1e6;
  }
  for (int r = 0; r < nbusy; r++) { // host time of a "step": enqueue 2 ms of work, then read back
    CK(cudaStreamSynchronize(c->s));
    double t0 = tlb_now_s();
    tlk_spin_ns(busy_ns, c->s);
    CK(cudaMemcpyAsync(h_x, d_x, sizeof(float), cudaMemcpyDeviceToHost, c->s));
    CK(cudaStreamSynchronize(c->s));
    busy[r] = (tlb_now_s() - t0) * 1e6;
  }
  CK_LAUNCH();
  for (int r = 0; r < nbusy; r++) { // same step without the readback: the host goes on at once
    CK(cudaStreamSynchronize(c->s));
    double t0 = tlb_now_s();
    tlk_spin_ns(busy_ns, c->s);
    nosync[r] = (tlb_now_s() - t0) * 1e6;
  }
  CK_LAUNCH();
  CK(cudaStreamSynchronize(c->s));

  struct tlb_result r = {};
  r.id = id;
  r.rule = "TL101";
  r.rule_name = "sync-in-hot-path";
  r.what = "host time blocked by a 4-byte device-to-host copy + stream sync: GPU idle, and "
           "behind 2 ms of queued work, against the same step with no readback";
  r.unit = "us";
  r.params_json = "{\"queued_work_us\":2000,\"bytes\":4}";
  r.v[0] = {"busy:readback+sync", "anti", "host", busy, nbusy, nullptr};
  r.v[1] = {"busy:no-readback", "fix", "host", nosync, nbusy, nullptr};
  r.v[2] = {"idle:readback+sync", "ref", "host", idle, nidle, nullptr};
  r.nv = 3;
  r.anti = "busy:readback+sync";
  r.fix = "busy:no-readback";
  return emit(c, &r);
}

// --- (c) step loop with a per-step scalar readback: the pipeline stall ------------------------------

int bench_step_loop(ctx *c, const char *id) {
  const int n = 1024, steps = reps(c, 50, 10), nr = reps(c, 10, 3);
  const double target_ms = 3.0, host_us = 1000.0;
  const size_t loss_n = 65536;
  const int every[] = {0, 1, 10, 50};
  const char *names[] = {"no-readback", "readback-every-step", "readback-every-10", "readback-every-50"};
  float *A, *B, *C, *d_loss, *h_loss;
  double *samples[4];
  cudaEvent_t e0, e1;
  TRY(dalloc(c, &A, (size_t)n * n));
  TRY(dalloc(c, &B, (size_t)n * n));
  TRY(dalloc(c, &C, (size_t)n * n));
  TRY(dalloc(c, &d_loss, 1));
  TRY(halloc(c, &h_loss, 1));
  TRY(event(c, &e0));
  TRY(event(c, &e1));
  for (int v = 0; v < 4; v++) TRY(halloc(c, &samples[v], nr));
  tlk_fill(A, (size_t)n * n, 1, 0, c->s);
  tlk_fill(B, (size_t)n * n, 1, 0, c->s);
  CK_LAUNCH();
  double gemm_ms;
  TRY(sgemm_ms(c, A, B, C, n, &gemm_ms));
  int k = clamp_count(target_ms / gemm_ms, 1, 64);

  for (int v = 0; v < 4; v++) {
    for (int r = -1; r < nr; r++) { // r == -1 is the warm-up loop
      CK(cudaDeviceSynchronize());
      CK(cudaEventRecord(e0, c->s));
      for (int st = 0; st < steps; st++) {
        tlb_host_work_us(host_us); // the step's Python / data work
        for (int i = 0; i < k; i++) tlk_sgemm(A, B, C, n, c->s);
        tlk_reduce_sum(C, loss_n, d_loss, c->s);
        if (every[v] && st % every[v] == 0) { // loss.item()
          CK(cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, c->s));
          CK(cudaStreamSynchronize(c->s));
        }
      }
      CK(cudaEventRecord(e1, c->s));
      double ms;
      TRY(elapsed_ms(c, e0, e1, &ms));
      if (r >= 0) samples[v][r] = ms / steps;
    }
    CK_LAUNCH();
  }

  char params[256];
  snprintf(params, sizeof params,
           "{\"gemm_n\":%d,\"gemm_ms\":%.4g,\"gemms_per_step\":%d,\"gpu_ms_per_step_target\":%.3g,"
           "\"host_work_us_per_step\":%.0f,\"steps\":%d}",
           n, gemm_ms, k, target_ms, host_us, steps);
  struct tlb_result r = {};
  r.id = id;
  r.rule = "TL101";
  r.rule_name = "sync-in-hot-path";
  r.what = "training-like loop (about 3 ms of SGEMM per step plus 1 ms of host work): total loop "
           "time per step with and without a per-step scalar readback + sync";
  r.unit = "ms/step";
  r.params_json = params;
  for (int v = 0; v < 4; v++)
    r.v[v] = {names[v], v == 0 ? "fix" : v == 1 ? "anti" : "ref", "cuda-event", samples[v], nr, nullptr};
  r.nv = 4;
  r.anti = names[1];
  r.fix = names[0];
  return emit(c, &r);
}

// --- (d) 128 x 6 per-row kernel launches vs one index-copy kernel (CS4's _apply_prompt) ---------------

int bench_rows(ctx *c, const char *id) {
  const int Bn = 128, S = 128, H = 768, P = 6, nr = reps(c, 200, 20);
  const size_t n = (size_t)Bn * S * H;
  float *dst, *dst2, *src;
  int *idx;
  unsigned long long *d_bad, bad = 0;
  double *loop, *one;
  cudaEvent_t e0, e1;
  TRY(dalloc(c, &dst, n));
  TRY(dalloc(c, &dst2, n));
  TRY(dalloc(c, &src, (size_t)P * H));
  TRY(dalloc(c, &idx, (size_t)Bn * P));
  TRY(dalloc(c, &d_bad, 1));
  TRY(halloc(c, &loop, nr));
  TRY(halloc(c, &one, nr));
  TRY(event(c, &e0));
  TRY(event(c, &e1));
  tlk_fill(dst, n, 0, 0.f, c->s);
  tlk_fill(dst2, n, 0, 0.f, c->s);
  tlk_fill(src, (size_t)P * H, 1, 0.f, c->s);
  tlk_init_prompt_idx(idx, Bn, P, S, c->s);
  CK_LAUNCH();
  // Both ways must write the same thing.
  for (int i = 0; i < Bn; i++)
    for (int j = 0; j < P; j++) tlk_copy_row(dst, src, idx, i, j, S, H, P, c->s);
  tlk_copy_rows(dst2, src, idx, Bn, S, H, P, c->s);
  CK(cudaMemsetAsync(d_bad, 0, sizeof bad, c->s));
  tlk_count_mismatch(dst, dst2, n, d_bad, c->s);
  CK_LAUNCH();
  CK(cudaMemcpyAsync(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost, c->s));
  CK(cudaStreamSynchronize(c->s));
  if (bad) return fail(c, "per-row copy and index copy disagree");

  for (int r = 0; r < nr; r++) {
    CK(cudaEventRecord(e0, c->s));
    for (int i = 0; i < Bn; i++)
      for (int j = 0; j < P; j++) tlk_copy_row(dst, src, idx, i, j, S, H, P, c->s);
    CK(cudaEventRecord(e1, c->s));
    double ms;
    TRY(elapsed_ms(c, e0, e1, &ms));
    loop[r] = ms * 1e3;
  }
  CK_LAUNCH();
  for (int r = 0; r < nr; r++) {
    CK(cudaEventRecord(e0, c->s));
    tlk_copy_rows(dst, src, idx, Bn, S, H, P, c->s);
    CK(cudaEventRecord(e1, c->s));
    double ms;
    TRY(elapsed_ms(c, e0, e1, &ms));
    one[r] = ms * 1e3;
  }
  CK_LAUNCH();

  struct tlb_result r = {};
  r.id = id;
  r.rule = "TL301";
  r.rule_name = "python-index-loop-over-tensor";
  r.what = "write 128 x 6 rows of 768 floats into a [128,128,768] tensor: one kernel per row "
           "(768 launches, as the double Python loop does) vs one index-copy kernel";
  r.unit = "us/op";
  r.params_json = "{\"batch\":128,\"seq\":128,\"hidden\":768,\"rows_per_sample\":6,\"launches\":768}";
  r.v[0] = {"768-launches", "anti", "cuda-event", loop, nr, nullptr};
  r.v[1] = {"one-index-copy", "fix", "cuda-event", one, nr, nullptr};
  r.nv = 2;
  r.anti = "768-launches";
  r.fix = "one-index-copy";
  return emit(c, &r);
}

// --- (e) pageable vs pinned host-to-device copies, and copy/compute overlap -----------------------

const size_t kBatchBytes = (size_t)64 * 3 * 224 * 224 * sizeof(float); // an ImageNet-like fp32 batch

int bench_h2d(ctx *c, const char *id) {
  const int nr = reps(c, 30, 5);
  char *page, *pin, *dev;
  double *tp, *tq;
  TRY(halloc(c, &page, kBatchBytes));
  TRY(palloc(c, &pin, kBatchBytes));
  TRY(dalloc(c, &dev, kBatchBytes));
  TRY(halloc(c, &tp, nr));
  TRY(halloc(c, &tq, nr));
  memset(page, 1, kBatchBytes); // fault the pages in before timing
  memset(pin, 1, kBatchBytes);
  for (int v = 0; v < 2; v++) {
    const char *h = v ? pin : page;
    double *out = v ? tq : tp;
    for (int r = -2; r < nr; r++) { // two warm-up copies
      CK(cudaStreamSynchronize(c->s));
      double t0 = tlb_now_s();
      CK(cudaMemcpyAsync(dev, h, kBatchBytes, cudaMemcpyHostToDevice, c->s));
      CK(cudaStreamSynchronize(c->s));
      if (r >= 0) out[r] = (tlb_now_s() - t0) * 1e3;
    }
  }
  struct tlb_stats sp, sq;
  tlb_stats_compute(tp, nr, &sp);
  tlb_stats_compute(tq, nr, &sq);
  char xp[64], xq[64], params[160];
  snprintf(xp, sizeof xp, "\"gb_per_s\":%.4g", kBatchBytes / (sp.median * 1e-3) / 1e9);
  snprintf(xq, sizeof xq, "\"gb_per_s\":%.4g", kBatchBytes / (sq.median * 1e-3) / 1e9);
  snprintf(params, sizeof params, "{\"bytes\":%zu,\"shape\":\"64x3x224x224 float32\"}", kBatchBytes);

  struct tlb_result r = {};
  r.id = id;
  r.rule = "TL202";
  r.rule_name = "dataloader-pinning";
  r.what = "host-to-device copy of one 64x3x224x224 fp32 batch from pageable vs pinned memory";
  r.unit = "ms/copy";
  r.params_json = params;
  r.v[0] = {"pageable", "anti", "host", tp, nr, xp};
  r.v[1] = {"pinned", "fix", "host", tq, nr, xq};
  r.nv = 2;
  r.anti = "pageable";
  r.fix = "pinned";
  return emit(c, &r);
}

int bench_overlap(ctx *c, const char *id) {
  const int n = 1024, steps = reps(c, 20, 5), nr = reps(c, 5, 2);
  char *page, *pin, *buf[2];
  float *Bm, *Cm;
  double *samples[4];
  cudaEvent_t copied[2], used[2], e0, e1;
  TRY(halloc(c, &page, kBatchBytes));
  TRY(palloc(c, &pin, kBatchBytes));
  for (int i = 0; i < 2; i++) {
    TRY(dalloc(c, &buf[i], kBatchBytes));
    TRY(event(c, &copied[i], cudaEventDisableTiming));
    TRY(event(c, &used[i], cudaEventDisableTiming));
  }
  TRY(dalloc(c, &Bm, (size_t)n * n));
  TRY(dalloc(c, &Cm, (size_t)n * n));
  TRY(event(c, &e0));
  TRY(event(c, &e1));
  for (int v = 0; v < 4; v++) TRY(halloc(c, &samples[v], nr));
  memset(page, 0, kBatchBytes);
  memset(pin, 0, kBatchBytes);
  tlk_fill(Bm, (size_t)n * n, 1, 0, c->s);
  for (int i = 0; i < 2; i++) tlk_fill((float *)buf[i], (size_t)n * n, 1, 0, c->s);
  CK_LAUNCH();

  // Compute per step calibrated to about the pinned copy time, so overlap can hide up to half.
  double copy_ms, gemm_ms;
  CK(cudaMemcpyAsync(buf[0], pin, kBatchBytes, cudaMemcpyHostToDevice, c->s)); // warm-up
  CK(cudaEventRecord(e0, c->s));
  CK(cudaMemcpyAsync(buf[0], pin, kBatchBytes, cudaMemcpyHostToDevice, c->s));
  CK(cudaEventRecord(e1, c->s));
  TRY(elapsed_ms(c, e0, e1, &copy_ms));
  TRY(sgemm_ms(c, (const float *)buf[0], Bm, Cm, n, &gemm_ms));
  int k = clamp_count(copy_ms / gemm_ms, 1, 64);

  const char *names[] = {"pageable-serial", "pinned-serial", "pageable-copy-stream", "pinned-copy-stream"};
  for (int v = 0; v < 4; v++) {
    const char *host = (v % 2) ? pin : page;
    int overlap = v >= 2;
    for (int r = -1; r < nr; r++) {
      CK(cudaDeviceSynchronize());
      double t0 = tlb_now_s();
      if (!overlap) {
        for (int st = 0; st < steps; st++) {
          CK(cudaMemcpyAsync(buf[0], host, kBatchBytes, cudaMemcpyHostToDevice, c->s));
          for (int i = 0; i < k; i++) tlk_sgemm((const float *)buf[0], Bm, Cm, n, c->s);
        }
      } else {
        // Double buffering: step st computes on buf[st % 2] while the copy stream fills the other.
        CK(cudaMemcpyAsync(buf[0], host, kBatchBytes, cudaMemcpyHostToDevice, c->s2));
        CK(cudaEventRecord(copied[0], c->s2));
        for (int st = 0; st < steps; st++) {
          int b = st % 2, nb = 1 - b;
          CK(cudaStreamWaitEvent(c->s, copied[b], 0));
          for (int i = 0; i < k; i++) tlk_sgemm((const float *)buf[b], Bm, Cm, n, c->s);
          CK(cudaEventRecord(used[b], c->s));
          if (st + 1 < steps) {
            if (st > 0) CK(cudaStreamWaitEvent(c->s2, used[nb], 0));
            CK(cudaMemcpyAsync(buf[nb], host, kBatchBytes, cudaMemcpyHostToDevice, c->s2));
            CK(cudaEventRecord(copied[nb], c->s2));
          }
        }
      }
      CK(cudaDeviceSynchronize());
      if (r >= 0) samples[v][r] = (tlb_now_s() - t0) * 1e3 / steps;
    }
    CK_LAUNCH();
  }

  char params[256];
  snprintf(params, sizeof params,
           "{\"bytes\":%zu,\"pinned_copy_ms\":%.4g,\"gemm_ms\":%.4g,\"gemms_per_step\":%d,"
           "\"steps\":%d}",
           kBatchBytes, copy_ms, gemm_ms, k, steps);
  struct tlb_result r = {};
  r.id = id;
  r.rule = "TL202";
  r.rule_name = "dataloader-pinning";
  r.what = "per step: copy a 64x3x224x224 fp32 batch in and compute on it (about as long as the "
           "pinned copy); serial on one stream vs next-batch copy on a second stream";
  r.unit = "ms/step";
  r.params_json = params;
  const char *roles[] = {"anti", "ref", "ref", "fix"};
  for (int v = 0; v < 4; v++) r.v[v] = {names[v], roles[v], "host", samples[v], nr, nullptr};
  r.nv = 4;
  r.anti = names[0];
  r.fix = names[3];
  return emit(c, &r);
}

// --- (f) dense vocabulary-sized scratch per step vs in-place scatter-add ---------------------------

int bench_scratch(ctx *c, const char *id) {
  const int Bn = c->scratch_batch, S = 128, V = 21128, K = 8;
  const int T = Bn * S, steps = reps(c, 20, 5), nr = reps(c, 10, 3);
  const size_t n = (size_t)T * V, bytes = n * sizeof(float);
  float *logits, *logits2, *vals, *scratch;
  int *ids;
  unsigned long long *d_bad, bad = 0;
  double *samples[3];
  TRY(dalloc(c, &logits, n));
  TRY(dalloc(c, &logits2, n));
  TRY(dalloc(c, &ids, (size_t)T * K));
  TRY(dalloc(c, &vals, (size_t)T * K));
  TRY(dalloc(c, &d_bad, 1));
  for (int v = 0; v < 3; v++) TRY(halloc(c, &samples[v], nr));
  int pools = 0;
  CK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
  if (!pools) return fail(c, "device has no stream-ordered memory pools (cudaMallocAsync)");
  cudaMemPool_t pool;
  int dev;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetDefaultMemPool(&pool, dev));
  uint64_t keep = UINT64_MAX; // keep freed blocks cached, as PyTorch's caching allocator does
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  tlk_init_candidates(ids, vals, T, K, V, c->s);
  tlk_fill(logits, n, 0, 0.f, c->s);
  tlk_fill(logits2, n, 0, 0.f, c->s);
  CK_LAUNCH();

  // variant 0: cudaMalloc + memset per step; 1: pool alloc + memset per step; 2: in place.
  auto step = [&](int v, float *out) -> int {
    if (v == 2) {
      tlk_scatter_add(out, ids, vals, T, K, V, c->s);
      return 0;
    }
    if (v == 0) CK(cudaMalloc((void **)&scratch, bytes));
    else CK(cudaMallocAsync((void **)&scratch, bytes, c->s));
    CK(cudaMemsetAsync(scratch, 0, bytes, c->s));
    tlk_scatter_add(scratch, ids, vals, T, K, V, c->s);
    tlk_add_inplace(out, scratch, n, c->s);
    if (v == 0) CK(cudaFree(scratch));
    else CK(cudaFreeAsync(scratch, c->s));
    return 0;
  };
  // The dense way and the in-place way must give the same logits.
  TRY(step(1, logits));
  TRY(step(2, logits2));
  CK(cudaMemsetAsync(d_bad, 0, sizeof bad, c->s));
  tlk_count_mismatch(logits, logits2, n, d_bad, c->s);
  CK_LAUNCH();
  CK(cudaMemcpyAsync(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost, c->s));
  CK(cudaStreamSynchronize(c->s));
  if (bad) return fail(c, "dense scratch and in-place scatter_add disagree");

  for (int v = 0; v < 3; v++) {
    for (int r = -1; r < nr; r++) {
      CK(cudaDeviceSynchronize());
      double t0 = tlb_now_s();
      for (int st = 0; st < steps; st++) TRY(step(v, logits));
      CK(cudaDeviceSynchronize());
      if (r >= 0) samples[v][r] = (tlb_now_s() - t0) * 1e3 / steps;
    }
    CK_LAUNCH();
  }

  char params[320];
  snprintf(params, sizeof params,
           "{\"batch\":%d,\"seq\":%d,\"vocab\":%d,\"candidates_per_token\":%d,"
           "\"scratch_bytes\":%zu,\"cs4_shape\":\"128x128x21128 float32\","
           "\"cs4_shape_scratch_bytes\":%zu,\"steps\":%d}",
           Bn, S, V, K, bytes, (size_t)128 * 128 * 21128 * sizeof(float), steps);
  struct tlb_result r = {};
  r.id = id;
  r.rule = "TL302";
  r.rule_name = "per-step-dense-scratch";
  r.what = "per step: allocate + zero a [batch,128,21128] fp32 scratch, scatter 8 candidates per "
           "token into it and add it to the logits, vs scatter_add into the logits in place";
  r.unit = "ms/step";
  r.params_json = params;
  r.v[0] = {"pool-alloc+zero+add", "anti", "host", samples[1], nr, nullptr};
  r.v[1] = {"in-place-scatter-add", "fix", "host", samples[2], nr, nullptr};
  r.v[2] = {"cudaMalloc+zero+add", "ref", "host", samples[0], nr, nullptr};
  r.nv = 3;
  r.anti = "pool-alloc+zero+add";
  r.fix = "in-place-scatter-add";
  return emit(c, &r);
}

struct bench {
  const char *id, *rule, *rule_name;
  int (*fn)(ctx *, const char *);
};

const bench kBenches[] = {
    {"cuda/launch-latency", "TL301", "python-index-loop-over-tensor", bench_launch},
    {"cuda/scalar-readback", "TL101", "sync-in-hot-path", bench_readback},
    {"cuda/step-loop-sync", "TL101", "sync-in-hot-path", bench_step_loop},
    {"cuda/per-row-launches", "TL301", "python-index-loop-over-tensor", bench_rows},
    {"cuda/h2d-pinned", "TL202", "dataloader-pinning", bench_h2d},
    {"cuda/copy-compute-overlap", "TL202", "dataloader-pinning", bench_overlap},
    {"cuda/dense-scratch", "TL302", "per-step-dense-scratch", bench_scratch},
};
const int kNumBenches = (int)(sizeof kBenches / sizeof kBenches[0]);

void usage(FILE *f) {
  fputs("usage: tl_cudabench [--quick] [--only ID] [--list] [--scratch-batch N]\n"
        "  --quick            fewer repetitions (for tests)\n"
        "  --only ID          run one benchmark (see --list); may be repeated\n"
        "  --list             print the benchmark ids and exit\n"
        "  --scratch-batch N  batch size of the dense-scratch benchmark (default 32)\n"
        "Prints JSON lines on stdout; exits 0 when there is no CUDA device (every benchmark\n"
        "then says \"no CUDA device: skipped\"), 1 if a benchmark failed, 2 on bad usage.\n",
        f);
}

} // namespace

int main(int argc, char **argv) {
  static ctx c;
  c.scratch_batch = 32;
  const char *only[16];
  int nonly = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) c.quick = 1;
    else if (!strcmp(argv[i], "--list")) {
      for (int b = 0; b < kNumBenches; b++)
        printf("%s\t%s\t%s\n", kBenches[b].id, kBenches[b].rule, kBenches[b].rule_name);
      return 0;
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc && nonly < 16) only[nonly++] = argv[++i];
    else if (!strcmp(argv[i], "--scratch-batch") && i + 1 < argc && atoi(argv[i + 1]) > 0)
      c.scratch_batch = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  for (int o = 0; o < nonly; o++) {
    int found = 0;
    for (int b = 0; b < kNumBenches; b++) found |= !strcmp(only[o], kBenches[b].id);
    if (!found) {
      fprintf(stderr, "tl_cudabench: unknown benchmark '%s' (see --list)\n", only[o]);
      return 2;
    }
  }
  auto selected = [&](int b) {
    if (!nonly) return true;
    for (int o = 0; o < nonly; o++)
      if (!strcmp(only[o], kBenches[b].id)) return true;
    return false;
  };

  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    char detail[256];
    if (e != cudaSuccess)
      snprintf(detail, sizeof detail, "cudaGetDeviceCount: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    else snprintf(detail, sizeof detail, "cudaGetDeviceCount: 0 devices");
    fputs("{\"kind\":\"device\",\"present\":false,\"detail\":", stdout);
    tlb_json_string(stdout, detail);
    fputs("}\n", stdout);
    for (int b = 0; b < kNumBenches; b++) {
      if (!selected(b)) continue;
      tlb_emit_status(stdout, kBenches[b].id, kBenches[b].rule, kBenches[b].rule_name, "skipped",
                      "no CUDA device: skipped", detail);
      fprintf(stderr, "%s: no CUDA device: skipped (%s)\n", kBenches[b].id, detail);
    }
    return 0;
  }

  cudaDeviceProp prop;
  int rt = 0, drv = 0;
  if (cudaSetDevice(0) != cudaSuccess || cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
      cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking) != cudaSuccess ||
      cudaStreamCreateWithFlags(&c.s2, cudaStreamNonBlocking) != cudaSuccess) {
    fprintf(stderr, "tl_cudabench: cannot set up device 0: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  fputs("{\"kind\":\"device\",\"present\":true,\"name\":", stdout);
  tlb_json_string(stdout, prop.name);
  printf(",\"count\":%d,\"compute_capability\":\"%d.%d\",\"sm_count\":%d,\"memory_bytes\":%zu,"
         "\"cuda_runtime\":%d,\"cuda_driver\":%d,\"quick\":%s}\n",
         count, prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem, rt, drv,
         c.quick ? "true" : "false");
  fflush(stdout);

  int failures = 0;
  for (int b = 0; b < kNumBenches; b++) {
    if (!selected(b)) continue;
    c.err[0] = 0;
    int rc = kBenches[b].fn(&c, kBenches[b].id);
    release_all(&c);
    if (rc != 0) {
      failures++;
      tlb_emit_status(stdout, kBenches[b].id, kBenches[b].rule, kBenches[b].rule_name, "error", "benchmark failed",
                      c.err);
      fprintf(stderr, "%s: error: %s\n", kBenches[b].id, c.err);
      cudaGetLastError(); // clear a non-sticky error so the next benchmark can run
    }
  }
  return failures ? 1 : 0;
}
