/* gemm.c - the GEMM launcher: a kernel loaded with its ABI (gemm_abi.c
 * plans each launch), its tensor maps cached, its workspace and staging
 * buffers kept; and the handle that makes one kernel per shape through a
 * caller's generator. */
#include "gemm.h"

#include <stdlib.h>
#include <string.h>

#define BAD(...) mmart_set_error(MMART_INVALID_ARGUMENT, __VA_ARGS__)

#define TMAP_CACHE 64

struct tmap_entry {
	/* the key: operand, address, dims, pitch */
	uint64_t key[5];
	int used;
	mmart_tensor_map map;
};

struct mmart_gemm_kernel {
	mmart_ctx *ctx;
	struct gemm_abi abi;
	CUfunction fn;
	pthread_mutex_t lock;     /* the caches and buffers below */
	struct tmap_entry tmaps[TMAP_CACHE];
	unsigned tmap_next;
	uint64_t ws, ws_bytes, ctr, ctr_bytes, stage, stage_bytes;
};

void mmart_gemm_args_init_size(mmart_gemm_args *a, size_t size)
{
	mmart_gemm_args d;

	if (!a || size < sizeof a->size)
		return;
	memset(&d, 0, sizeof d);
	d.size = size;
	d.alpha = 1.0f;
	d.d_scale = 1.0f;
	if (size > sizeof d) {
		memset(a, 0, size);
		size = sizeof d;
	}
	memcpy(a, &d, size);
}

/* The caller's args into the full struct (an older, shorter one is
 * zero-extended: its fields are a prefix). */
static mmart_status args_in(const mmart_gemm_args *in, mmart_gemm_args *a)
{
	if (!in)
		return BAD("mmart_gemm: args is NULL");
	/* the struct of 2026-11 ended at ldsb; fields added since (scratch,
	 * the block scales' strides) read as 0, their defaults */
	if (in->size != sizeof *a && in->size != offsetof(mmart_gemm_args, scratch))
		return BAD("mmart_gemm: args.size = %zu is not the size of mmart_gemm_args "
			   "(%zu here, %zu before the scratch fields): set it with "
			   "mmart_gemm_args_init", in->size, sizeof *a,
			   offsetof(mmart_gemm_args, scratch));
	memset(a, 0, sizeof *a);
	memcpy(a, in, in->size);
	return MMART_OK;
}

static mmart_tensor_dtype tmap_dtype(const struct gemm_operand *o)
{
	if (!strcmp(o->type, "bf16"))
		return MMART_TENSOR_BF16;
	if (!strcmp(o->type, "f16"))
		return MMART_TENSOR_F16;
	if (!strcmp(o->type, "s32"))
		return MMART_TENSOR_S32;
	if (o->bits == 32)
		return MMART_TENSOR_F32;    /* f32, tf32 (stored as f32) */
	return MMART_TENSOR_U8;             /* TMA moves bytes: e4m3, e5m2, s8, u8 */
}

mmart_status mmart_gemm_kernel_load(mmart_ctx *ctx, const char *ptx, const char *abi,
				    mmart_gemm_kernel **out)
{
	mmart_gemm_kernel *k;
	mmart_module *mod;
	mmart_status s;
	void *fn;

	if (!ctx || !ptx || !abi || !out)
		return BAD("mmart_gemm_kernel_load: NULL argument");
	*out = NULL;
	/* the cached tensor maps inside are 64-byte aligned */
	if (!(k = aligned_alloc(64, (sizeof *k + 63) / 64 * 64)))
		return mmart_set_error(MMART_NO_MEMORY, "mmart_gemm_kernel_load: out of memory");
	memset(k, 0, sizeof *k);
	if ((s = mmart_gemm_abi_parse(abi, &k->abi)))
		goto fail;
	if ((s = mmart_load_ptx(ctx, ptx, &mod, NULL)) ||
	    (s = mmart_get_function(mod, k->abi.kernel, &fn)))
		goto fail;
	if (k->abi.smem > 48 * 1024 && (s = mmart_func_set_max_dynamic_smem(ctx, fn, k->abi.smem)))
		goto fail;
	k->ctx = ctx;
	k->fn = (CUfunction)fn;
	pthread_mutex_init(&k->lock, NULL);
	*out = k;
	return MMART_OK;
fail:
	free(k);
	return s;
}

void mmart_gemm_kernel_free(mmart_gemm_kernel *k)
{
	if (!k)
		return;
	if (k->ws || k->ctr || k->stage) {
		mmart_sync(k->ctx);
		mmart_free(k->ctx, k->ws);
		mmart_free(k->ctx, k->ctr);
		mmart_free(k->ctx, k->stage);
	}
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/* A buffer of at least `bytes`, grown when short.  The old one may be in
 * use by a launch still running: wait for the context before freeing it
 * (growth is rare: once per larger shape).  fill: every byte of a new
 * one, or -1 for none (the split-K counters 0: every launch leaves them
 * zero; the workspace poisoned). */
static mmart_status ensure(mmart_gemm_kernel *k, uint64_t *buf, uint64_t *have, uint64_t bytes,
			   int fill)
{
	mmart_status s;

	if (bytes <= *have)
		return MMART_OK;
	if (*buf) {
		if ((s = mmart_sync(k->ctx)))
			return s;
		mmart_free(k->ctx, *buf);
		*buf = 0;
		*have = 0;
	}
	if ((s = mmart_alloc(k->ctx, bytes, buf)))
		return s;
	if (fill >= 0 && (s = mmart_memset8(k->ctx, *buf, (uint8_t)fill, bytes))) {
		mmart_free(k->ctx, *buf);
		*buf = 0;
		return s;
	}
	*have = bytes;
	return MMART_OK;
}

/* The encoded map of one operand, from the cache or encoded now, copied
 * into *out: a later miss of the same launch may reuse the cache slot. */
static mmart_status tmap(mmart_gemm_kernel *k, char which, const struct gemm_operand *o,
			 uint64_t addr, const uint64_t dims[2], uint64_t pitch,
			 const unsigned box[2], mmart_tensor_map *out)
{
	const uint64_t key[5] = { (uint64_t)which, addr, dims[0], dims[1], pitch };
	struct tmap_entry *e;
	char name[2] = { which, 0 };
	mmart_status s;

	for (unsigned i = 0; i < TMAP_CACHE; i++)
		if (k->tmaps[i].used && !memcmp(k->tmaps[i].key, key, sizeof key)) {
			*out = k->tmaps[i].map;
			return MMART_OK;
		}
	e = &k->tmaps[k->tmap_next];
	k->tmap_next = (k->tmap_next + 1) % TMAP_CACHE;
	e->used = 0;
	mmart_tensor_desc d = {
		.dtype = tmap_dtype(o), .rank = 2, .addr = addr,
		.dims = { dims[0], dims[1] }, .strides = { pitch },
		.box = { box[0], box[1] }, .elem_strides = { 1, 1 },
		.interleave = MMART_INTERLEAVE_NONE, .swizzle = MMART_SWIZZLE_128B,
		.l2_promotion = MMART_L2_256B, .oob_fill = MMART_OOB_ZERO,
	};
	if ((s = mmart_tensor_map_encode(k->ctx, name, &d, &e->map)))
		return s;
	memcpy(e->key, key, sizeof key);
	e->used = 1;
	*out = e->map;
	return MMART_OK;
}

static mmart_status copy2d(uint64_t dst, uint64_t dst_pitch, uint64_t src, uint64_t src_pitch,
			   uint64_t width, uint64_t height, CUstream st)
{
	CUDA_MEMCPY2D c;
	CUresult res;

	memset(&c, 0, sizeof c);
	c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.srcDevice = src;
	c.srcPitch = src_pitch;
	c.dstDevice = dst;
	c.dstPitch = dst_pitch;
	c.WidthInBytes = width;
	c.Height = height;
	res = cu.cuMemcpy2DAsync(&c, st);
	return res ? mmart_cu_error("cuMemcpy2DAsync", res, NULL) : MMART_OK;
}

/* A staged operand into its buffer: zeros first where the kernel reads
 * padding, then the caller's rows. */
static mmart_status stage_in(const struct gemm_view *v, CUstream st)
{
	CUresult res;

	if (v->zero && (res = cu.cuMemsetD8Async(v->addr, 0, v->bytes, st)))
		return mmart_cu_error("cuMemsetD8Async", res, NULL);
	return copy2d(v->addr, v->pitch, v->src, v->src_pitch, v->width, v->height, st);
}

static uint64_t round256(uint64_t x)
{
	return (x + 255) / 256 * 256;
}

/* The caller's scratch a launch needs: counters, workspace, staging. */
static uint64_t scratch_need(const struct gemm_launch *l)
{
	if (!l->ctr_bytes && !l->ws_bytes && !l->stage_bytes)
		return 0;
	return round256(l->ctr_bytes) + round256(l->ws_bytes) + l->stage_bytes;
}

/* The thread's current context, to put back after binding the kernel's:
 * a program that also runs PyTorch or the CUDA runtime keeps its current
 * device. */
static CUcontext ctx_save(void)
{
	CUcontext prev = NULL;
	if (cu.cuCtxGetCurrent && cu.cuCtxGetCurrent(&prev) != CUDA_SUCCESS)
		prev = NULL;
	return prev;
}

static void ctx_restore(const mmart_ctx *ctx, CUcontext prev)
{
	if (prev && prev != ctx->cu)
		cu.cuCtxSetCurrent(prev);
}

static mmart_status launch_locked(mmart_gemm_kernel *k, const mmart_gemm_args *args, CUstream st,
				  int go)
{
	const struct gemm_abi *abi = &k->abi;
	struct gemm_launch l;
	mmart_tensor_map ta, tb, td;           /* 64-byte aligned by type */
	memset(&td, 0, sizeof td);
	mmart_status s;
	CUresult res;

	uint64_t ws = 0, ctr = 0, stage = 0;

	if ((s = mmart_gemm_plan(abi, k->ctx->sms, args, &l)))
		return s;
	if (args->scratch) {
		/* the caller's: counters, workspace, staging, each 256-aligned */
		uint64_t need = scratch_need(&l);
		if (args->scratch % 256)
			return BAD("scratch 0x%llx is not 256-byte aligned: pass 0x%llx (rounded up) "
				   "and %llu bytes fewer", (unsigned long long)args->scratch,
				   (unsigned long long)((args->scratch + 255) / 256 * 256),
				   (unsigned long long)(256 - args->scratch % 256));
		if (args->scratch_bytes < need)
			return BAD("scratch_bytes %llu is below the %llu bytes this launch needs "
				   "(mmart_gemm_kernel_scratch)", (unsigned long long)args->scratch_bytes,
				   (unsigned long long)need);
		ctr = args->scratch;
		ws = ctr + round256(l.ctr_bytes);
		stage = ws + round256(l.ws_bytes);
	}
	if (!go)
		return MMART_OK;
	if ((s = mmart_ctx_bind(k->ctx)))
		return s;
	if (!args->scratch) {
		/* the kernel's own buffers, grown as needed; the workspace
		 * poisoned once (0xFF: f32 NaN), as any contents are allowed:
		 * a slot read before its slice wrote it shows in D */
		if ((l.stage_bytes && (s = ensure(k, &k->stage, &k->stage_bytes, l.stage_bytes, -1))) ||
		    (l.ws_bytes && (s = ensure(k, &k->ws, &k->ws_bytes, l.ws_bytes, 0xFF))) ||
		    (l.ctr_bytes && (s = ensure(k, &k->ctr, &k->ctr_bytes, l.ctr_bytes, 0))))
			return s;
		ws = k->ws, ctr = k->ctr, stage = k->stage;
	}
	/* the caller's scratch may hold anything (another kernel's
	 * workspace): its counters are zeroed on the stream first */
	if (args->scratch && l.ctr_bytes && (res = cu.cuMemsetD8Async(ctr, 0, l.ctr_bytes, st)))
		return mmart_cu_error("cuMemsetD8Async", res, NULL);
	if (l.stage_bytes) {
		if ((s = MMART_NEED(cuMemcpy2DAsync)))
			return s;
		/* staged views hold offsets into the buffer; C is D when
		 * beta is 0 (not read) */
		struct gemm_view *v[3] = { &l.a, &l.b, &l.d };
		for (int i = 0; i < 3; i++)
			if (v[i]->staged)
				v[i]->addr += stage;
		if (args->beta == 0)
			l.c = l.d;
		else if (l.c.staged)
			l.c.addr += stage;
		if ((l.a.staged && (s = stage_in(&l.a, st))) ||
		    (l.b.staged && (s = stage_in(&l.b, st))) ||
		    (args->beta != 0 && l.c.staged && (s = stage_in(&l.c, st))))
			return s;
	}
	if (abi->path == GP_WGMMA) {
		if ((s = tmap(k, 'A', &abi->a, l.a.addr, l.dims_a, l.pitch_a, abi->box_a, &ta)) ||
		    (s = tmap(k, 'B', &abi->b, l.b.addr, l.dims_b, l.pitch_b, abi->box_b, &tb)))
			return s;
		if (l.d_tma && (s = tmap(k, 'D', &abi->out, l.d.addr, l.dims_d, l.pitch_d,
					 abi->box_d, &td)))
			return s;
	}
	/* the parameters in the ABI's order */
	uint64_t u64[GR_COUNT];
	uint32_t u32[GR_COUNT];
	float f32[GR_COUNT];
	void *params[GEMM_ABI_MAX_PARAMS];
	u64[GR_A] = l.a.addr;
	u64[GR_B] = l.b.addr;
	u64[GR_C] = l.c.addr;
	u64[GR_D] = l.d.addr;
	u64[GR_SA] = args->sa;
	u64[GR_SB] = args->sb;
	u64[GR_WORKSPACE] = ws;
	u64[GR_COUNTERS] = ctr;
	u32[GR_M] = l.m;
	u32[GR_N] = l.n;
	u32[GR_K] = l.k;
	u32[GR_LDA] = (uint32_t)l.a.ld;
	u32[GR_LDB] = (uint32_t)l.b.ld;
	u32[GR_LDC] = (uint32_t)l.c.ld;
	u32[GR_LDD] = (uint32_t)l.d.ld;
	u32[GR_LDSA] = l.ldsa;
	u32[GR_LDSB] = l.ldsb;
	u32[GR_SA_SM] = l.sa_sm;
	u32[GR_SA_SK] = l.sa_sk;
	u32[GR_SB_SN] = l.sb_sn;
	u32[GR_SB_SK] = l.sb_sk;
	u32[GR_D_TMA] = (uint32_t)l.d_tma;
	u32[GR_SPLITS] = l.splits;
	f32[GR_ALPHA] = args->alpha;
	f32[GR_BETA] = args->beta;
	f32[GR_D_SCALE] = args->d_scale;
	for (unsigned i = 0; i < abi->nparams; i++) {
		enum gemm_role r = abi->role[i];
		switch (abi->kind[i]) {
		case GK_TMAP:
			if (abi->path != GP_WGMMA)
				return BAD("GEMM ABI: tensor map %u on a kernel without them", i);
			params[i] = r == GR_TENSOR_A ? &ta : r == GR_TENSOR_B ? &tb : &td;
			break;
		case GK_U64: params[i] = &u64[r]; break;
		case GK_U32: params[i] = &u32[r]; break;
		default: params[i] = &f32[r]; break;
		}
	}
	if (abi->cluster[0] > 1) {
		CUlaunchAttribute attr;
		CUlaunchConfig lc;
		memset(&attr, 0, sizeof attr);
		memset(&lc, 0, sizeof lc);
		if ((s = MMART_NEED(cuLaunchKernelEx)))
			return s;
		lc.gridDimX = l.grid[0];
		lc.gridDimY = l.grid[1];
		lc.gridDimZ = l.grid[2];
		lc.blockDimX = abi->block[0];
		lc.blockDimY = abi->block[1];
		lc.blockDimZ = abi->block[2];
		lc.sharedMemBytes = abi->smem;
		lc.hStream = st;
		attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attr.value.clusterDim.x = abi->cluster[0];
		attr.value.clusterDim.y = abi->cluster[1];
		attr.value.clusterDim.z = abi->cluster[2];
		lc.attrs = &attr;
		lc.numAttrs = 1;
		res = cu.cuLaunchKernelEx(&lc, k->fn, params, NULL);
		if (res)
			return mmart_cu_error("cuLaunchKernelEx", res, NULL);
	} else {
		res = cu.cuLaunchKernel(k->fn, l.grid[0], l.grid[1], l.grid[2], abi->block[0],
					abi->block[1], abi->block[2], abi->smem, st, params, NULL);
		if (res)
			return mmart_cu_error("cuLaunchKernel", res, NULL);
	}
	if (l.d_back)
		return copy2d(l.d.src, l.d.src_pitch, l.d.addr, l.d.pitch, l.d.width, l.d.height, st);
	return MMART_OK;
}

mmart_status mmart_gemm_kernel_launch(mmart_gemm_kernel *k, const mmart_gemm_args *args,
				      void *stream)
{
	mmart_gemm_args a;
	mmart_status s;

	if (!k)
		return BAD("mmart_gemm_kernel_launch: the kernel is NULL");
	if ((s = args_in(args, &a)))
		return s;
	CUcontext prev = ctx_save();
	pthread_mutex_lock(&k->lock);
	s = launch_locked(k, &a, (CUstream)stream, 1);
	pthread_mutex_unlock(&k->lock);
	ctx_restore(k->ctx, prev);
	return s;
}

mmart_status mmart_gemm_kernel_scratch(mmart_gemm_kernel *k, const mmart_gemm_args *args,
				       uint64_t *bytes)
{
	struct gemm_launch l;
	mmart_gemm_args a;
	mmart_status s;

	if (!k || !bytes)
		return BAD("mmart_gemm_kernel_scratch: NULL argument");
	if ((s = args_in(args, &a)) || (s = mmart_gemm_plan(&k->abi, k->ctx->sms, &a, &l)))
		return s;
	*bytes = scratch_need(&l);
	return MMART_OK;
}

mmart_status mmart_gemm_kernel_grid(mmart_gemm_kernel *k, const mmart_gemm_args *args,
				    unsigned grid[3], unsigned block[3])
{
	struct gemm_launch l;
	mmart_gemm_args a;
	mmart_status s;

	if (!k)
		return BAD("mmart_gemm_kernel_grid: the kernel is NULL");
	if ((s = args_in(args, &a)) || (s = mmart_gemm_plan(&k->abi, k->ctx->sms, &a, &l)))
		return s;
	for (int i = 0; i < 3; i++) {
		if (grid)
			grid[i] = l.grid[i];
		if (block)
			block[i] = k->abi.block[i];
	}
	return MMART_OK;
}

/* ---- the handle: a kernel per shape ---- */
struct shape_entry {
	uint32_t m, n, k;
	mmart_gemm_kernel *kernel;
};

struct mmart_gemm {
	mmart_ctx *ctx;
	mmart_gemm_generate_fn generate;
	void *user;
	pthread_mutex_t lock;
	struct shape_entry *table;   /* open addressing, a power of two */
	size_t cap, used;
};

mmart_status mmart_gemm_create(mmart_ctx *ctx, mmart_gemm_generate_fn generate, void *user,
			       mmart_gemm **out)
{
	mmart_gemm *g;

	if (!ctx || !generate || !out)
		return BAD("mmart_gemm_create: NULL argument");
	if (!(g = calloc(1, sizeof *g)) || !(g->table = calloc(64, sizeof *g->table))) {
		free(g);
		return mmart_set_error(MMART_NO_MEMORY, "mmart_gemm_create: out of memory");
	}
	g->ctx = ctx;
	g->generate = generate;
	g->user = user;
	g->cap = 64;
	pthread_mutex_init(&g->lock, NULL);
	*out = g;
	return MMART_OK;
}

void mmart_gemm_destroy(mmart_gemm *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->cap; i++)
		mmart_gemm_kernel_free(g->table[i].kernel);
	pthread_mutex_destroy(&g->lock);
	free(g->table);
	free(g);
}

static size_t slot_of(const struct shape_entry *t, size_t cap, uint32_t m, uint32_t n, uint32_t k)
{
	uint64_t h = ((uint64_t)m * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)n * 0xC2B2AE3D27D4EB4Full) ^
		     ((uint64_t)k * 0x165667B19E3779F9ull);
	size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);
	while (t[i].kernel && (t[i].m != m || t[i].n != n || t[i].k != k))
		i = (i + 1) & (cap - 1);
	return i;
}

static mmart_status grow(mmart_gemm *g)
{
	size_t cap = g->cap * 2;
	struct shape_entry *t = calloc(cap, sizeof *t);
	if (!t)
		return mmart_set_error(MMART_NO_MEMORY, "mmart_gemm: out of memory");
	for (size_t i = 0; i < g->cap; i++)
		if (g->table[i].kernel)
			t[slot_of(t, cap, g->table[i].m, g->table[i].n, g->table[i].k)] = g->table[i];
	free(g->table);
	g->table = t;
	g->cap = cap;
	return MMART_OK;
}

mmart_status mmart_gemm_kernel_for(mmart_gemm *g, uint32_t m, uint32_t n, uint32_t k,
				   mmart_gemm_kernel **kernel)
{
	mmart_status s = MMART_OK;
	size_t i;

	if (!g || !kernel)
		return BAD("mmart_gemm_kernel_for: NULL argument");
	pthread_mutex_lock(&g->lock);
	i = slot_of(g->table, g->cap, m, n, k);
	if (!g->table[i].kernel) {
		mmart_gemm_shape shape = { m, n, k, g->ctx->sms };
		mmart_gemm_kernel *made = NULL;
		char err[512] = "";
		if (m < 1 || n < 1 || k < 1 || m > 0x7fffffffu || n > 0x7fffffffu ||
		    k > 0x7fffffffu) {
			s = BAD("M = %u, N = %u, K = %u: each is 1 to 2^31-1", m, n, k);
			goto out;
		}
		CUcontext prev = ctx_save();
		s = g->generate(g->user, g->ctx, &shape, &made, err, sizeof err);
		ctx_restore(g->ctx, prev);
		if (s && made) {
			mmart_gemm_kernel_free(made);
			made = NULL;
		}
		if (s || !made) {
			if (err[0])
				mmart_set_error(s ? s : MMART_INVALID_ARGUMENT, "%s", err);
			else if (!s)
				mmart_set_error(MMART_INVALID_ARGUMENT,
						"mmart_gemm: the generator made no kernel");
			s = s ? s : MMART_INVALID_ARGUMENT;
			goto out;
		}
		if ((g->used + 1) * 2 > g->cap) {
			if ((s = grow(g))) {
				mmart_gemm_kernel_free(made);
				goto out;
			}
			i = slot_of(g->table, g->cap, m, n, k);
		}
		g->table[i] = (struct shape_entry){ m, n, k, made };
		g->used++;
	}
	*kernel = g->table[i].kernel;
out:
	pthread_mutex_unlock(&g->lock);
	return s;
}

mmart_status mmart_gemm_launch(mmart_gemm *g, const mmart_gemm_args *args, void *stream)
{
	mmart_gemm_kernel *k;
	mmart_status s;

	mmart_gemm_args a;
	if ((s = args_in(args, &a)))
		return s;
	if ((s = mmart_gemm_kernel_for(g, a.m, a.n, a.k, &k)))
		return s;
	return mmart_gemm_kernel_launch(k, args, stream);
}
