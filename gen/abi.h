/* abi.h - structs that carry their size (see "The ABI" in mmagen.h). */
#ifndef MMAGEN_ABI_H
#define MMAGEN_ABI_H

#include "internal.h"

#include <stddef.h>

/* The size each sized struct had when it first carried `size`: the
 * smallest a caller can hand in.  Frozen: fields added later go after the
 * last member named here and take their defaults for smaller callers. */
#define REQUEST_SIZE_MIN (offsetof(mmagen_request, opcode) + sizeof(const char *))
#define TILE_OPTS_SIZE_MIN (offsetof(mmagen_tile_opts, scale_d) + sizeof(int))
#define GEMM_REQUEST_SIZE_MIN (offsetof(mmagen_gemm_request, cluster) + sizeof(unsigned))
#define GEMM_INFO_SIZE_MIN (offsetof(mmagen_gemm_info, elem_bytes_d) + sizeof(unsigned))
#define CHECK_RESULT_SIZE_MIN (offsetof(mmagen_check_result, exact) + sizeof(double))

/* Copy the caller's struct `in` (its first member a size_t size) over
 * *full, which holds the library's defaults, so that fields past the
 * caller's size keep them; full's size becomes sizeof *full.
 * MMAGEN_INVALID_ARGUMENT naming `what` and its _init() when in is NULL,
 * its size is below `min` (never initialised) or above `full_size` (built
 * against a newer mmagen.h than this library). */
mmagen_status abi_sized_in(const char *what, const char *init, void *full,
			   size_t full_size, const void *in, size_t min);
/* The same check for a struct the library writes (`out`, caller's size
 * in its first member): MMAGEN_OK when its size is between min and
 * full_size. */
mmagen_status abi_sized_out(const char *what, const void *out, size_t full_size,
			    size_t min);

#endif
