// tlb_kernels.cuh - host-side launchers for the kernels the CUDA microbenchmarks run.
#ifndef TLB_KERNELS_CUH
#define TLB_KERNELS_CUH

#include <cuda_runtime.h>
#include <stddef.h>

// Launches a kernel that does nothing (<<<1,1>>>).
void tlk_empty(cudaStream_t s);
// One thread spins on the GPU's global timer for `ns` nanoseconds: a stream that is busy for a known time.
void tlk_spin_ns(long long ns, cudaStream_t s);
// C = A * B for n x n row-major matrices, n a multiple of 16 (shared-memory tiled SGEMM): "real" work.
void tlk_sgemm(const float *A, const float *B, float *C, int n, cudaStream_t s);
// out[0] = sum(x[0..n)) with one block: the "loss" scalar a training step produces.
void tlk_reduce_sum(const float *x, size_t n, float *out, cudaStream_t s);
// x[i] = (i % 1000) * 1e-3f, or v everywhere when pattern is 0.
void tlk_fill(float *x, size_t n, int pattern, float v, cudaStream_t s);
// *count += number of i with a[i] != b[i] (count must be zeroed first).
void tlk_count_mismatch(const float *a, const float *b, size_t n, unsigned long long *count,
                        cudaStream_t s);

// The `_apply_prompt` shape: dst is [B, S, H], src is [P, H], idx is [B, P] positions in [0, S).
// Writes the prompt positions: idx[i*P+j] = (1 + 21*j + 5*i) % S (distinct per row for P <= 6).
void tlk_init_prompt_idx(int *idx, int B, int P, int S, cudaStream_t s);
// dst[i, idx[i, j], :] = src[j, :] for one (i, j): what one Python-loop iteration launches.
void tlk_copy_row(float *dst, const float *src, const int *idx, int i, int j, int S, int H, int P,
                  cudaStream_t s);
// All B*P rows at once (an index-copy / gather): the vectorised fix.
void tlk_copy_rows(float *dst, const float *src, const int *idx, int B, int S, int H, int P,
                   cudaStream_t s);

// The GatedFusion shape: T tokens, K candidate ids per token in a vocabulary of V.
// ids[t*K+k] = (7919*t + 2609*k) % V (distinct per token for K <= 8), vals[t*K+k] = 0.5 + k.
void tlk_init_candidates(int *ids, float *vals, int T, int K, int V, cudaStream_t s);
// dense[t, ids[t, k]] += vals[t, k] (atomic add): `scatter_add_` along the vocabulary.
void tlk_scatter_add(float *dense, const int *ids, const float *vals, int T, int K, int V,
                     cudaStream_t s);
// y += x, elementwise over n floats.
void tlk_add_inplace(float *y, const float *x, size_t n, cudaStream_t s);

#endif
