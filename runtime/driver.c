/* driver.c - opens libcuda.so.1 on first use and fills the table `cu`.
 *
 * Nothing links libcuda: programs run on machines without a driver, and
 * only calls that need a GPU fail (MMART_NO_DRIVER).  Entry points come from
 * cuGetProcAddress at the ABI of cuda.fn (MMART_CU_ABI), which picks the
 * right _v2/_v3 variant for us; with a driver too old to have it, dlsym on
 * the versioned names that cuda.fn lists.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <assert.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mmart_cu_table cu;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mmart_status load_status;
static char load_message[512];
static int api_version;

struct fn_row {
	const char *name, *sym;
	int required;   /* 1, or the CUDA version that brought it */
	size_t offset; /* of the pointer in struct mmart_cu_table */
};

static const struct fn_row fn_rows[] = {
#define CU_FN(ret, name, sym, req, params) \
	{ #name, #sym, req, offsetof(struct mmart_cu_table, name) },
#include "cuda.fn"
#undef CU_FN
};

static void *find(void *lib, mmart_cu_get_proc_fn get_proc,
		  const struct fn_row *r)
{
	void *p = NULL;
	CUdriverProcAddressQueryResult q = 0;

	if (get_proc
	    && get_proc(r->name, &p, MMART_CU_ABI, CU_GET_PROC_ADDRESS_DEFAULT,
			&q) == CUDA_SUCCESS
	    && q == CU_GET_PROC_ADDRESS_SUCCESS && p)
		return p;
	return dlsym(lib, r->sym);
}

static mmart_status fail(mmart_status s, const char *fmt, const char *a,
			 const char *b)
{
	snprintf(load_message, sizeof load_message, fmt, a, b);
	return s;
}

static mmart_status load(void)
{
	const char *path = getenv("MMAGEN_LIBCUDA");
	mmart_cu_get_proc_fn get_proc;
	void *lib, *p;
	CUresult res;
	size_t i;

	if (!path || !path[0])
		path = "libcuda.so.1";
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();

		return fail(MMART_NO_DRIVER,
			    "no CUDA driver: %s not found (%s)", path,
			    why ? why : "dlopen failed");
	}
	/* POSIX lets a dlsym() result be used as a function pointer. */
	p = dlsym(lib, "cuGetProcAddress_v2");
	memcpy(&get_proc, &p, sizeof p);
	for (i = 0; i < ARRAY_SIZE(fn_rows); i++) {
		p = find(lib, get_proc, &fn_rows[i]);
		if (!p && fn_rows[i].required == 1)
			return fail(MMART_NO_DRIVER,
				    "unusable CUDA driver %s: no %s (too old?)",
				    path, fn_rows[i].sym);
		memcpy((char *)&cu + fn_rows[i].offset, &p, sizeof p);
	}
	/* The library stays loaded for the life of the process: the table
	 * points into it. */
	res = cu.cuInit(0);
	if (res == CUDA_SUCCESS)
		res = cu.cuDriverGetVersion(&api_version);
	if (res != CUDA_SUCCESS) {
		mmart_status s = mmart_cu_error("cuInit", res, NULL);

		snprintf(load_message, sizeof load_message, "%s",
			 mmart_last_error());
		return s;
	}
	return MMART_OK;
}

static void load_once(void)
{
	load_status = load();
}

mmart_status mmart_driver_load(void)
{
	pthread_once(&once, load_once);
	if (load_status != MMART_OK)
		return mmart_set_error(load_status, "%s", load_message);
	return MMART_OK;
}

int mmart_driver_api_version(void)
{
	return api_version;
}

mmart_status mmart_driver_missing(const char *name)
{
	int need = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fn_rows); i++)
		if (!strcmp(fn_rows[i].name, name))
			need = fn_rows[i].required;
	assert(need > 1); /* required entry points are never missing */
	return mmart_set_error(MMART_DRIVER_TOO_OLD,
			       "%s: not in this CUDA driver (CUDA %d.%d); it "
			       "needs a driver for CUDA %d.%d or newer", name,
			       api_version / 1000, api_version % 1000 / 10,
			       need / 1000, need % 1000 / 10);
}

mmart_status mmart_driver_version(int *version)
{
	mmart_status s;

	if (!version)
		return mmart_set_error(MMART_INVALID_ARGUMENT,
				       "mmart_driver_version: version is NULL");
	s = mmart_driver_load();
	if (s == MMART_OK)
		*version = api_version;
	return s;
}
