/* test_rt_checks.c - the argument checks of tensor maps, configured
 * launches, streams and events, without a driver: each check runs before
 * the driver is touched, so every one can be seen here, with its message
 * (operand, rule, nearest legal value).  Runs the same on GPU machines.
 */
#include "internal.h"

#include <string.h>

#include "../unit/check.h"

/* s must be MMART_INVALID_ARGUMENT and the message must contain each of
 * the NULL-terminated strings. */
static void expect_bad(int line, mmart_status s, ...)
{
	const char *msg = mmart_last_error(), *want;
	va_list ap;
	int ok = s == MMART_INVALID_ARGUMENT;

	va_start(ap, s);
	while ((want = va_arg(ap, const char *)))
		ok &= strstr(msg, want) != NULL;
	va_end(ap);
	CHECK(ok, "line %d: %s: \"%s\"", line, mmart_status_str(s), msg);
}
#define BAD(s, ...) expect_bad(__LINE__, s, __VA_ARGS__, (const char *)NULL)
#define GOOD(s)                                                            \
	CHECK((s) == MMART_OK, "line %d: %s: %s", __LINE__, #s,            \
	      mmart_last_error())

/* A legal 2-D description: a 300 x 200 bf16 matrix, rows 416 bytes
 * apart, 64 x 128 boxes. */
static mmart_tensor_desc base(void)
{
	mmart_tensor_desc d;

	memset(&d, 0, sizeof d);
	d.dtype = MMART_TENSOR_BF16;
	d.rank = 2;
	d.addr = 0x7f0000001000;
	d.dims[0] = 200;
	d.dims[1] = 300;
	d.strides[0] = 416;
	d.box[0] = 64;
	d.box[1] = 128;
	return d;
}

/* A legal 3-D one, interleaved 32B: address and strides multiples of 32,
 * swizzle 32B. */
static mmart_tensor_desc base3(void)
{
	mmart_tensor_desc d = base();

	d.rank = 3;
	d.dims[2] = 4;
	d.strides[1] = 416 * 300;
	d.box[2] = 2;
	d.interleave = MMART_INTERLEAVE_32B;
	d.swizzle = MMART_SWIZZLE_32B;
	d.box[0] = 16;
	return d;
}

static void tensor_rules(void)
{
	mmart_tensor_desc d;

	d = base();
	GOOD(mmart_tensor_desc_check("A", &d));
	d = base3();
	GOOD(mmart_tensor_desc_check("A", &d));
	BAD(mmart_tensor_desc_check("A", NULL), "A: tensor description is NULL");
	d = base();
	d.rank = 0;
	BAD(mmart_tensor_desc_check(NULL, &d), "tensor: rank 0", "nearest: 1");

	/* enums and their combinations */
	d = base();
	d.dtype = (mmart_tensor_dtype)13;
	BAD(mmart_tensor_desc_check("A", &d), "A: element type 13");
	d = base();
	d.rank = 6;
	BAD(mmart_tensor_desc_check("B", &d), "B: rank 6", "1 to 5",
	    "nearest: 5");
	d = base();
	d.interleave = MMART_INTERLEAVE_16B;
	BAD(mmart_tensor_desc_check("A", &d), "needs rank >= 3 (got 2)");
	d = base();
	d.interleave = (mmart_tensor_interleave)3;
	BAD(mmart_tensor_desc_check("A", &d), "A: interleave 3");
	d = base3();
	d.swizzle = MMART_SWIZZLE_128B;
	BAD(mmart_tensor_desc_check("A", &d),
	    "MMART_INTERLEAVE_32B needs MMART_SWIZZLE_32B",
	    "got MMART_SWIZZLE_128B");
	d = base();
	d.swizzle = (mmart_tensor_swizzle)4;
	BAD(mmart_tensor_desc_check("A", &d), "A: swizzle 4");
	d = base();
	d.l2_promotion = (mmart_tensor_l2)4;
	BAD(mmart_tensor_desc_check("A", &d), "A: L2 promotion 4");
	d = base();
	d.oob_fill = (mmart_tensor_oob)2;
	BAD(mmart_tensor_desc_check("A", &d), "A: out-of-bounds fill 2");
	d = base();
	d.oob_fill = MMART_OOB_NAN;
	GOOD(mmart_tensor_desc_check("A", &d));
	d.dtype = MMART_TENSOR_U16;
	BAD(mmart_tensor_desc_check("A", &d), "MMART_OOB_NAN needs a "
	    "floating-point type (got u16)", "use MMART_OOB_ZERO");

	/* the global address */
	d = base();
	d.addr = 0;
	BAD(mmart_tensor_desc_check("C", &d), "C: global address is 0");
	d.addr = 0x7f0000001008;
	BAD(mmart_tensor_desc_check("C", &d), "C: global address "
	    "0x7f0000001008 is not 16-byte aligned (nearest: 0x7f0000001000 "
	    "or 0x7f0000001010)");
	d = base3();
	d.addr = 0x7f0000001010;
	BAD(mmart_tensor_desc_check("A", &d), "not 32-byte aligned");

	/* dims */
	d = base();
	d.dims[1] = 0;
	BAD(mmart_tensor_desc_check("A", &d), "A: dims[1] = 0",
	    "1 to 2^32 elements (nearest: 1)");
	d = base();
	d.dims[0] = (UINT64_C(1) << 32) + 1;
	d.strides[0] = UINT64_C(1) << 39;
	BAD(mmart_tensor_desc_check("A", &d), "dims[0] = 4294967297",
	    "nearest: 4294967296");
	d.dims[0] = UINT64_C(1) << 32;
	GOOD(mmart_tensor_desc_check("A", &d));

	/* strides */
	d = base();
	d.strides[0] = 408;
	BAD(mmart_tensor_desc_check("A", &d), "A: strides[0] = 408 bytes "
	    "(dimension 1) is not a multiple of 16 (nearest: 400 or 416)");
	d.strides[0] = UINT64_C(1) << 40;
	BAD(mmart_tensor_desc_check("A", &d), "below 2^40",
	    "nearest: 1099511627760");
	d.strides[0] = (UINT64_C(1) << 40) - 16;
	GOOD(mmart_tensor_desc_check("A", &d));
	d.strides[0] = 384;
	BAD(mmart_tensor_desc_check("A", &d), "strides[0] = 384 bytes",
	    "smaller than the 400 bytes", "nearest: 400");
	d.strides[0] = 200; /* elements, not bytes */
	BAD(mmart_tensor_desc_check("A", &d), "not a multiple of 16");
	d.strides[0] = 400; /* no padding: legal */
	GOOD(mmart_tensor_desc_check("A", &d));
	d.strides[0] = 0; /* every row the same row: legal */
	GOOD(mmart_tensor_desc_check("A", &d));
	d = base();
	d.rank = 3;
	d.dims[2] = 2;
	d.box[2] = 1;
	d.strides[1] = 416 * 299;
	BAD(mmart_tensor_desc_check("A", &d), "strides[1] = 124384 bytes "
	    "(dimension 2) is smaller than the 124800 bytes");
	d.strides[1] = 416 * 300;
	GOOD(mmart_tensor_desc_check("A", &d));
	d = base3();
	d.strides[0] = 400;
	BAD(mmart_tensor_desc_check("A", &d), "not a multiple of 32 "
	    "(nearest: 384 or 416)");

	/* the box */
	d = base();
	d.box[0] = 0;
	BAD(mmart_tensor_desc_check("A", &d), "A: box[0] = 0", "nearest: 1");
	d = base();
	d.box[1] = 257;
	BAD(mmart_tensor_desc_check("A", &d), "A: box[1] = 257",
	    "1 to 256 elements", "nearest: 256");
	d.box[1] = 256;
	GOOD(mmart_tensor_desc_check("A", &d));
	d = base();
	d.box[0] = 12;
	BAD(mmart_tensor_desc_check("A", &d), "box[0] = 12 bf16 elements = "
	    "24 bytes", "multiple of 16 bytes (nearest: 8 or 16 elements)");
	d = base();
	d.dtype = MMART_TENSOR_F64;
	d.dims[0] = 50;
	d.box[0] = 1;
	BAD(mmart_tensor_desc_check("A", &d), "box[0] = 1 f64 elements = 8 "
	    "bytes", "(nearest: 2 elements)");
	d = base();
	d.swizzle = MMART_SWIZZLE_128B;
	GOOD(mmart_tensor_desc_check("A", &d)); /* 64 bf16 = 128 bytes */
	d.box[0] = 128;
	BAD(mmart_tensor_desc_check("A", &d), "box[0] = 128 bf16 elements = "
	    "256 bytes exceeds the 128-byte span of MMART_SWIZZLE_128B "
	    "(nearest: 64 elements");
	d.swizzle = MMART_SWIZZLE_32B;
	d.box[0] = 32;
	BAD(mmart_tensor_desc_check("A", &d), "64 bytes exceeds the 32-byte "
	    "span of MMART_SWIZZLE_32B (nearest: 16 elements");
	d.swizzle = MMART_SWIZZLE_64B;
	d.dtype = MMART_TENSOR_U8;
	d.strides[0] = 208;
	d.box[0] = 64;
	GOOD(mmart_tensor_desc_check("A", &d));

	/* element strides: 0 means 1, then 1..8 */
	d = base();
	d.elem_strides[1] = 8;
	GOOD(mmart_tensor_desc_check("A", &d));
	d.elem_strides[1] = 9;
	BAD(mmart_tensor_desc_check("A", &d), "A: elem_strides[1] = 9",
	    "1 to 8 (nearest: 8)");

	/* the largest legal shape */
	d = base();
	d.rank = 5;
	for (int i = 1; i < 5; i++) {
		d.dims[i] = 3;
		d.box[i] = 256;
		d.elem_strides[i] = 8;
	}
	for (int i = 1; i < 4; i++)
		d.strides[i] = d.strides[i - 1] * 3;
	GOOD(mmart_tensor_desc_check("A", &d));

	CHECK(mmart_tensor_dtype_size(MMART_TENSOR_BF16) == 2
	      && mmart_tensor_dtype_size(MMART_TENSOR_U8) == 1
	      && mmart_tensor_dtype_size(MMART_TENSOR_TF32) == 4
	      && mmart_tensor_dtype_size(MMART_TENSOR_S64) == 8
	      && mmart_tensor_dtype_size((mmart_tensor_dtype)13) == 0,
	      "mmart_tensor_dtype_size");
}

/* mmart_tensor_map_encode checks the description before anything else,
 * then the output, then the context. */
static void tensor_encode(void)
{
	static mmart_tensor_map map;
	_Alignas(64) unsigned char raw[256];
	mmart_tensor_desc d = base();

	CHECK(sizeof map == 128 && _Alignof(mmart_tensor_map) == 64,
	      "mmart_tensor_map: %zu bytes, aligned %zu", sizeof map,
	      _Alignof(mmart_tensor_map));
	d.box[0] = 12;
	BAD(mmart_tensor_map_encode(NULL, "A", &d, &map), "A: box[0] = 12");
	d = base();
	BAD(mmart_tensor_map_encode(NULL, "A", &d, NULL), "A: the tensor map "
	    "pointer is NULL");
	BAD(mmart_tensor_map_encode(NULL, "A", &d,
				    (mmart_tensor_map *)(void *)(raw + 16)),
	    "A: the tensor map is not 64-byte aligned");
	BAD(mmart_tensor_map_encode(NULL, "A", &d, &map),
	    "mmart_tensor_map_encode: ctx is NULL");
}

static void launch_rules(void)
{
	mmart_launch_config c = {
		.grid = { 4, 3, 1 }, .block = { 128, 1, 1 },
		.cluster = { 2, 1, 1 }, .smem_bytes = 81920,
	};

	GOOD(mmart_launch_config_check(&c));
	BAD(mmart_launch_config_check(NULL), "configuration is NULL");
	c.grid[0] = 3;
	BAD(mmart_launch_config_check(&c), "grid.x = 3 is not a multiple of "
	    "cluster.x = 2 (nearest: 2 or 4)");
	/* The configuration is checked before ctx and fn. */
	BAD(mmart_launch_ex(NULL, NULL, &c, NULL), "grid.x = 3");
	c.grid[0] = 1;
	BAD(mmart_launch_config_check(&c), "grid.x = 1", "(nearest: 2)");
	c.grid[0] = 4;
	c.cluster[2] = 2;
	BAD(mmart_launch_config_check(&c), "grid.z = 1 is not a multiple of "
	    "cluster.z = 2 (nearest: 2)");
	c.cluster[2] = 0;
	BAD(mmart_launch_config_check(&c), "cluster.z is 0");
	c.cluster[0] = c.cluster[1] = 0;
	GOOD(mmart_launch_config_check(&c)); /* {0,0,0}: no cluster */
	c.cluster[0] = c.cluster[1] = c.cluster[2] = 1;
	GOOD(mmart_launch_config_check(&c));
	c.grid[1] = 0;
	BAD(mmart_launch_config_check(&c), "grid.y is 0");
	c.grid[1] = 3;
	c.block[2] = 0;
	BAD(mmart_launch_config_check(&c), "block.z is 0");
	c.block[2] = 1;
	BAD(mmart_launch_ex(NULL, NULL, &c, NULL), "mmart_launch_ex: ctx is "
	    "NULL");
	BAD(mmart_func_set_max_dynamic_smem(NULL, NULL, 1),
	    "mmart_func_set_max_dynamic_smem: ctx is NULL");
}

static void stream_rules(void)
{
	mmart_stream *s = (mmart_stream *)&s;
	mmart_event *e = (mmart_event *)&e;
	float ms = -1;
	char buf[8];

	BAD(mmart_stream_create(NULL, &s), "mmart_stream_create: ctx is NULL");
	CHECK(s == NULL, "stream_create leaves *out NULL on failure");
	BAD(mmart_stream_create(NULL, NULL), "out is NULL");
	GOOD(mmart_stream_destroy(NULL, NULL));
	BAD(mmart_stream_sync(NULL, NULL), "mmart_stream_sync: ctx is NULL");
	CHECK(mmart_stream_handle(NULL) == NULL, "stream_handle(NULL)");
	BAD(mmart_event_create(NULL, &e), "mmart_event_create: ctx is NULL");
	CHECK(e == NULL, "event_create leaves *out NULL on failure");
	GOOD(mmart_event_destroy(NULL, NULL));
	BAD(mmart_event_record(NULL, NULL, NULL), "event is NULL");
	BAD(mmart_event_elapsed_ms(NULL, NULL, NULL, NULL), "ms is NULL");
	BAD(mmart_event_elapsed_ms(NULL, NULL, NULL, &ms), "event is NULL");
	CHECK(ms == -1, "elapsed_ms leaves *ms on failure");
	BAD(mmart_copy_to_device_async(NULL, 0, buf, 8, NULL), "NULL pointer");
	BAD(mmart_copy_to_host_async(NULL, NULL, 64, 8, NULL), "NULL pointer");
	BAD(mmart_memset8_async(NULL, 0, 0, 8, NULL), "NULL pointer");
	BAD(mmart_copy_to_device_async(NULL, 64, buf, 8, NULL), "ctx is NULL");
	GOOD(mmart_copy_to_device_async(NULL, 0, NULL, 0, NULL)); /* nothing */
	GOOD(mmart_memset8_async(NULL, 0, 0, 0, NULL));
}

/* The PCI address: buf and n are checked before ctx. */
static void pci_rules(void)
{
	char buf[MMART_PCI_BUS_ID_SIZE] = "x";

	BAD(mmart_device_pci_bus_id(NULL, NULL, sizeof buf),
	    "mmart_device_pci_bus_id: buf is NULL");
	BAD(mmart_device_pci_bus_id(NULL, buf, sizeof buf - 1),
	    "n = 16 bytes has no room for \"00000000:00:00.0\" and its NUL",
	    "(nearest: 17)");
	BAD(mmart_device_pci_bus_id(NULL, buf, sizeof buf),
	    "mmart_device_pci_bus_id: ctx is NULL");
	CHECK(!strcmp(buf, "x"), "pci_bus_id wrote \"%s\" on failure", buf);
}

/* An optional entry point the driver lacks: the status names the call
 * and the CUDA version it needs. */
static void too_old(void)
{
	mmart_status s = mmart_driver_missing("cuTensorMapEncodeTiled");

	CHECK(s == MMART_DRIVER_TOO_OLD
	      && strstr(mmart_last_error(), "cuTensorMapEncodeTiled: not in "
			"this CUDA driver") != NULL
	      && strstr(mmart_last_error(), "needs a driver for CUDA 12.0 or "
			"newer") != NULL,
	      "missing: %s: %s", mmart_status_str(s), mmart_last_error());
	s = mmart_driver_missing("cuLaunchKernelEx");
	CHECK(strstr(mmart_last_error(), "CUDA 11.8 or newer") != NULL,
	      "missing: %s", mmart_last_error());
	CHECK(!strcmp(mmart_status_str(MMART_DRIVER_TOO_OLD),
		      "MMART_DRIVER_TOO_OLD"), "status name");
}

int main(void)
{
	tensor_rules();
	tensor_encode();
	launch_rules();
	stream_rules();
	pci_rules();
	too_old();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
