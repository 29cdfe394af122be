/* abi.c - reading and writing the structs that carry their size. */
#include "abi.h"

#include <stdio.h>
#include <string.h>

static mmagen_status bad_size(const char *what, const char *how, size_t size,
			      size_t full_size, size_t min)
{
	if (size > full_size)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
			"%s has size %zu, this libmmagen knows %zu bytes: the program was built "
			"against a newer mmagen.h; link it with that version's library",
			what, size, full_size);
	return mmagen_set_error(MMAGEN_INVALID_ARGUMENT,
		"%s has size %zu, not %zu..%zu: %s", what, size, min, full_size, how);
}

mmagen_status abi_sized_in(const char *what, const char *init, void *full,
			   size_t full_size, const void *in, size_t min)
{
	char how[96];
	size_t size;

	snprintf(how, sizeof how, "initialise it with %s()", init);
	if (!in)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "%s is NULL", what);
	memcpy(&size, in, sizeof size);
	if (size < min || size > full_size)
		return bad_size(what, how, size, full_size, min);
	memcpy(full, in, size);
	memcpy(full, &full_size, sizeof full_size);
	return MMAGEN_OK;
}

mmagen_status abi_sized_out(const char *what, const void *out, size_t full_size,
			    size_t min)
{
	char how[96];
	size_t size;

	if (!out)
		return mmagen_set_error(MMAGEN_INVALID_ARGUMENT, "%s is NULL", what);
	memcpy(&size, out, sizeof size);
	if (size < min || size > full_size) {
		snprintf(how, sizeof how, "set it to sizeof(%s)", what);
		return bad_size(what, how, size, full_size, min);
	}
	return MMAGEN_OK;
}
