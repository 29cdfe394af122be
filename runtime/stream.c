/* stream.c - streams, timing events and asynchronous copies.
 *
 * A stream or event remembers the context that made it: using it with
 * another one is a caller's mistake that the driver would report late and
 * obscurely, so it is a status here.
 */
#include "internal.h"

#include <stdlib.h>

#define BAD(...) mmart_set_error(MMART_INVALID_ARGUMENT, __VA_ARGS__)

static mmart_status done(const char *call, CUresult res)
{
	return res ? mmart_cu_error(call, res, NULL) : MMART_OK;
}

/* ctx given and current. */
static mmart_status enter(const char *fn, mmart_ctx *ctx)
{
	if (!ctx)
		return BAD("%s: ctx is NULL", fn);
	return mmart_ctx_bind(ctx);
}

mmart_status mmart_stream_of(const char *fn, mmart_ctx *ctx, mmart_stream *s,
			     CUstream *out)
{
	*out = NULL;
	if (!s)
		return MMART_OK;
	if (s->ctx != ctx)
		return BAD("%s: the stream belongs to another context", fn);
	*out = s->cu;
	return MMART_OK;
}

mmart_status mmart_stream_create(mmart_ctx *ctx, mmart_stream **out)
{
	mmart_stream *s;
	mmart_status st;
	CUresult res;

	if (!out)
		return BAD("mmart_stream_create: out is NULL");
	*out = NULL;
	if ((st = enter("mmart_stream_create", ctx)) != MMART_OK)
		return st;
	s = calloc(1, sizeof *s);
	if (!s)
		return mmart_set_error(MMART_NO_MEMORY, "out of memory");
	res = cu.cuStreamCreate(&s->cu, CU_STREAM_NON_BLOCKING);
	if (res) {
		free(s);
		return mmart_cu_error("cuStreamCreate", res, NULL);
	}
	s->ctx = ctx;
	*out = s;
	return MMART_OK;
}

mmart_status mmart_stream_destroy(mmart_ctx *ctx, mmart_stream *stream)
{
	mmart_status st;
	CUstream h;

	if (!stream)
		return MMART_OK;
	if ((st = enter("mmart_stream_destroy", ctx)) != MMART_OK
	    || (st = mmart_stream_of("mmart_stream_destroy", ctx, stream, &h))
	       != MMART_OK)
		return st;
	st = done("cuStreamDestroy", cu.cuStreamDestroy(h));
	free(stream);
	return st;
}

mmart_status mmart_stream_sync(mmart_ctx *ctx, mmart_stream *stream)
{
	mmart_status st;
	CUstream h;

	if ((st = enter("mmart_stream_sync", ctx)) != MMART_OK
	    || (st = mmart_stream_of("mmart_stream_sync", ctx, stream, &h))
	       != MMART_OK)
		return st;
	return done("cuStreamSynchronize", cu.cuStreamSynchronize(h));
}

void *mmart_stream_handle(mmart_stream *stream)
{
	return stream ? (void *)stream->cu : NULL;
}

mmart_status mmart_event_create(mmart_ctx *ctx, mmart_event **out)
{
	mmart_event *e;
	mmart_status st;
	CUresult res;

	if (!out)
		return BAD("mmart_event_create: out is NULL");
	*out = NULL;
	if ((st = enter("mmart_event_create", ctx)) != MMART_OK)
		return st;
	e = calloc(1, sizeof *e);
	if (!e)
		return mmart_set_error(MMART_NO_MEMORY, "out of memory");
	res = cu.cuEventCreate(&e->cu, CU_EVENT_DEFAULT);
	if (res) {
		free(e);
		return mmart_cu_error("cuEventCreate", res, NULL);
	}
	e->ctx = ctx;
	*out = e;
	return MMART_OK;
}

static mmart_status own_event(const char *fn, mmart_ctx *ctx, mmart_event *e)
{
	if (!e)
		return BAD("%s: event is NULL", fn);
	if (e->ctx != ctx)
		return BAD("%s: the event belongs to another context", fn);
	return MMART_OK;
}

mmart_status mmart_event_destroy(mmart_ctx *ctx, mmart_event *event)
{
	mmart_status st;

	if (!event)
		return MMART_OK;
	if ((st = enter("mmart_event_destroy", ctx)) != MMART_OK
	    || (st = own_event("mmart_event_destroy", ctx, event)) != MMART_OK)
		return st;
	st = done("cuEventDestroy", cu.cuEventDestroy(event->cu));
	free(event);
	return st;
}

mmart_status mmart_event_record(mmart_ctx *ctx, mmart_event *event,
				mmart_stream *stream)
{
	mmart_status st;
	CUstream h;

	if ((st = own_event("mmart_event_record", ctx, event)) != MMART_OK
	    || (st = enter("mmart_event_record", ctx)) != MMART_OK
	    || (st = mmart_stream_of("mmart_event_record", ctx, stream, &h))
	       != MMART_OK)
		return st;
	return done("cuEventRecord", cu.cuEventRecord(event->cu, h));
}

mmart_status mmart_event_elapsed_ms(mmart_ctx *ctx, mmart_event *start,
				    mmart_event *end, float *ms)
{
	mmart_status st;
	CUresult res;
	float t = 0;

	if (!ms)
		return BAD("mmart_event_elapsed_ms: ms is NULL");
	if ((st = own_event("mmart_event_elapsed_ms", ctx, start)) != MMART_OK
	    || (st = own_event("mmart_event_elapsed_ms", ctx, end)) != MMART_OK
	    || (st = enter("mmart_event_elapsed_ms", ctx)) != MMART_OK)
		return st;
	/* Kernel faults between the two events surface here. */
	res = cu.cuEventSynchronize(end->cu);
	if (res)
		return mmart_cu_error("cuEventSynchronize", res, NULL);
	res = cu.cuEventElapsedTime(&t, start->cu, end->cu);
	if (res)
		return mmart_cu_error("cuEventElapsedTime", res, NULL);
	*ms = t;
	return MMART_OK;
}

/* ---- asynchronous copies ---- */

/* Arguments first, then the context and the stream's owner. */
static mmart_status copy_enter(const char *fn, mmart_ctx *ctx, int null_ptr,
			       mmart_stream *stream, CUstream *h)
{
	mmart_status st;

	if (null_ptr)
		return BAD("%s: NULL pointer", fn);
	if ((st = enter(fn, ctx)) != MMART_OK)
		return st;
	return mmart_stream_of(fn, ctx, stream, h);
}

mmart_status mmart_copy_to_device_async(mmart_ctx *ctx, uint64_t dst,
					const void *src, size_t bytes,
					mmart_stream *stream)
{
	mmart_status st;
	CUstream h;

	if (!bytes)
		return MMART_OK;
	st = copy_enter("mmart_copy_to_device_async", ctx, !src || !dst,
			stream, &h);
	if (st != MMART_OK)
		return st;
	return done("cuMemcpyHtoDAsync", cu.cuMemcpyHtoDAsync(dst, src, bytes,
							       h));
}

mmart_status mmart_copy_to_host_async(mmart_ctx *ctx, void *dst, uint64_t src,
				      size_t bytes, mmart_stream *stream)
{
	mmart_status st;
	CUstream h;

	if (!bytes)
		return MMART_OK;
	st = copy_enter("mmart_copy_to_host_async", ctx, !src || !dst, stream,
			&h);
	if (st != MMART_OK)
		return st;
	return done("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(dst, src, bytes,
							       h));
}

mmart_status mmart_memset8_async(mmart_ctx *ctx, uint64_t dst, uint8_t value,
				 size_t bytes, mmart_stream *stream)
{
	mmart_status st;
	CUstream h;

	if (!bytes)
		return MMART_OK;
	st = copy_enter("mmart_memset8_async", ctx, !dst, stream, &h);
	if (st != MMART_OK)
		return st;
	return done("cuMemsetD8Async", cu.cuMemsetD8Async(dst, value, bytes, h));
}
