// tlb_kernels.cu - the kernels the CUDA microbenchmarks run, and their launchers.
#include "tlb_kernels.cuh"

namespace {

constexpr int kTile = 16;
constexpr int kThreads = 256;

// Grid size for a grid-stride loop over n elements, capped so huge n still launches.
unsigned grid_for(size_t n) {
  size_t g = (n + kThreads - 1) / kThreads;
  if (g < 1) g = 1;
  if (g > 65535u * 8u) g = 65535u * 8u;
  return (unsigned)g;
}

__global__ void k_empty() {}

__global__ void k_spin_ns(long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < (unsigned long long)ns);
}

__global__ void k_sgemm(const float *A, const float *B, float *C, int n) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < n; t += kTile) {
    As[threadIdx.y][threadIdx.x] = A[(size_t)row * n + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(size_t)(t + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[(size_t)row * n + col] = acc;
}

__global__ void k_reduce_sum(const float *x, size_t n, float *out) {
  __shared__ float part[kThreads];
  float acc = 0.f;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) acc += x[i];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if ((int)threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = part[0];
}

__global__ void k_fill(float *x, size_t n, int pattern, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = pattern ? (float)(i % 1000) * 1e-3f : v;
}

__global__ void k_count_mismatch(const float *a, const float *b, size_t n, unsigned long long *count) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    local += a[i] != b[i];
  if (local) atomicAdd(count, local);
}

__global__ void k_init_prompt_idx(int *idx, int B, int P, int S) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= B * P) return;
  int i = t / P, j = t % P;
  idx[t] = (1 + 21 * j + 5 * i) % S;
}

__global__ void k_copy_row(float *dst, const float *src, const int *idx, int i, int j, int S, int H, int P) {
  int h = blockIdx.x * blockDim.x + threadIdx.x;
  if (h >= H) return;
  int pos = idx[i * P + j];
  dst[((size_t)i * S + pos) * H + h] = src[(size_t)j * H + h];
}

__global__ void k_copy_rows(float *dst, const float *src, const int *idx, int S, int H, int P) {
  int i = blockIdx.x / P, j = blockIdx.x % P;
  int pos = idx[i * P + j];
  float *d = dst + ((size_t)i * S + pos) * H;
  const float *r = src + (size_t)j * H;
  for (int h = threadIdx.x; h < H; h += blockDim.x) d[h] = r[h];
}

__global__ void k_init_candidates(int *ids, float *vals, int T, int K, int V) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)T * K) return;
  size_t tok = t / K, k = t % K;
  ids[t] = (int)((7919u * tok + 2609u * k) % (size_t)V);
  vals[t] = 0.5f + (float)k;
}

__global__ void k_scatter_add(float *dense, const int *ids, const float *vals, int T, int K, int V) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)T * K) return;
  size_t tok = t / K;
  atomicAdd(&dense[tok * V + ids[t]], vals[t]);
}

__global__ void k_add_inplace(float *y, const float *x, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] += x[i];
}

} // namespace

void tlk_empty(cudaStream_t s) { k_empty<<<1, 1, 0, s>>>(); }

void tlk_spin_ns(long long ns, cudaStream_t s) { k_spin_ns<<<1, 1, 0, s>>>(ns); }

void tlk_sgemm(const float *A, const float *B, float *C, int n, cudaStream_t s) {
  dim3 block(kTile, kTile), grid(n / kTile, n / kTile);
  k_sgemm<<<grid, block, 0, s>>>(A, B, C, n);
}

void tlk_reduce_sum(const float *x, size_t n, float *out, cudaStream_t s) {
  k_reduce_sum<<<1, kThreads, 0, s>>>(x, n, out);
}

void tlk_fill(float *x, size_t n, int pattern, float v, cudaStream_t s) {
  k_fill<<<grid_for(n), kThreads, 0, s>>>(x, n, pattern, v);
}

void tlk_count_mismatch(const float *a, const float *b, size_t n, unsigned long long *count, cudaStream_t s) {
  k_count_mismatch<<<grid_for(n), kThreads, 0, s>>>(a, b, n, count);
}

void tlk_init_prompt_idx(int *idx, int B, int P, int S, cudaStream_t s) {
  k_init_prompt_idx<<<grid_for((size_t)B * P), kThreads, 0, s>>>(idx, B, P, S);
}

void tlk_copy_row(float *dst, const float *src, const int *idx, int i, int j, int S, int H, int P, cudaStream_t s) {
  k_copy_row<<<(H + kThreads - 1) / kThreads, kThreads, 0, s>>>(dst, src, idx, i, j, S, H, P);
}

void tlk_copy_rows(float *dst, const float *src, const int *idx, int B, int S, int H, int P, cudaStream_t s) {
  k_copy_rows<<<B * P, kThreads, 0, s>>>(dst, src, idx, S, H, P);
}

void tlk_init_candidates(int *ids, float *vals, int T, int K, int V, cudaStream_t s) {
  size_t n = (size_t)T * K;
  k_init_candidates<<<(unsigned)((n + kThreads - 1) / kThreads), kThreads, 0, s>>>(ids, vals, T, K, V);
}

void tlk_scatter_add(float *dense, const int *ids, const float *vals, int T, int K, int V, cudaStream_t s) {
  size_t n = (size_t)T * K;
  k_scatter_add<<<(unsigned)((n + kThreads - 1) / kThreads), kThreads, 0, s>>>(dense, ids, vals, T, K, V);
}

void tlk_add_inplace(float *y, const float *x, size_t n, cudaStream_t s) {
  k_add_inplace<<<grid_for(n), kThreads, 0, s>>>(y, x, n);
}
