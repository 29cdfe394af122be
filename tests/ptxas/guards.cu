// guards.cu - kernels that call an mma.sync (sm_80 and later), a wgmma
// (sm_90a) and a tcgen05 (sm_100 family) wrapper, for
// check_cuda_guards.sh: the file must build for any -arch / -gencode set,
// the wrappers real where their target is compiled for and traps elsewhere.
#include "mma.cuh"
#include "wgmma.cuh"
#include "tc.cuh"
#include "mma_again.cuh"   // the mma wrapper a second time, with another

extern "C" __global__ void k_mma(const float *in, float *out)
{
	uint32_t a[4], b[2];
	float c[4], d[4];
	for (int i = 0; i < 4; i++) {
		a[i] = __float_as_uint(in[i]);
		c[i] = in[8 + i];
	}
	b[0] = __float_as_uint(in[4]);
	b[1] = __float_as_uint(in[5]);
	mmagen_mma_sync_aligned_m16n8k16_row_col_f32_bf16_bf16_f32(d, a, b, c);
	for (int i = 0; i < 4; i++)
		out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void k_wgmma(const uint64_t *desc, float *out)
{
	float d[32];
	for (int i = 0; i < 32; i++)
		d[i] = 0.0f;
	mmagen_wgmma_mma_async_sync_aligned_m64n64k16_f32_bf16_bf16(d, desc[0], desc[1], 0u);
	for (int i = 0; i < 32; i++)
		out[threadIdx.x * 32 + i] = d[i];
}

extern "C" __global__ void k_tcgen05(const uint64_t *desc, const uint32_t *w)
{
	if (threadIdx.x == 0)
		mmagen_tcgen05_mma_cta_group_1_kind_f16(w[0], desc[0], desc[1], w[1], 1u);
}
