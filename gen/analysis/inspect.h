/* inspect.h - the readers behind mmagen_inspect_buffer (gen/analysis/elf.c), shared
 * with gen/analysis/inspect.c; not installed.  Every reader takes bytes and a
 * length, checks each offset against that length before it reads, and
 * never trusts a size field: hostile input gives an error, never a read
 * outside the buffer. */
#ifndef MMAGEN_INSPECT_H
#define MMAGEN_INSPECT_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* An ELF64 little-endian file (host object, executable, or a cubin). */
struct elf_view {
	const uint8_t *p;
	size_t n;
	uint16_t machine;        /* 190: EM_CUDA (a cubin) */
	uint8_t abi_version;     /* e_ident[EI_ABIVERSION] */
	uint32_t flags;
	uint64_t shoff;
	uint16_t shnum, shentsize, shstrndx;
};

#define ELF_EM_CUDA 190

/* 0 and *e filled, or -1 with a reason in why. */
int elf_open(const uint8_t *p, size_t n, struct elf_view *e, char *why, size_t whyn);
/* Section i: its name (NUL-terminated inside the file, or "" when the
 * name is out of bounds) and contents (NULL, 0 for SHT_NOBITS or contents
 * outside the file).  -1 when i is out of range. */
int elf_section(const struct elf_view *e, unsigned i, const char **name,
		const uint8_t **data, size_t *len);
/* The SM number a cubin is for (90 for sm_90 and sm_90a), 0 if unknown. */
unsigned elf_cuda_sm(const struct elf_view *e);

/* One entry of a fatbinary container. */
struct fatbin_entry {
	unsigned kind;           /* 1 PTX, 2 ELF (cubin), other: unknown */
	unsigned sm;             /* the entry's SM number */
	uint64_t flags;
	const uint8_t *data;     /* the payload as stored */
	size_t len;
	const char *compressed;  /* NULL, or "zstd" / "lz4" / "an unknown codec" */
};

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_MAGIC_REL 0x466243B1u

/* Walk the fatbinary containers at p[0..n) (one or more, back to back,
 * zero padding between them allowed); call fn for every entry.  Returns
 * the number of entries, or -1 with a reason in why when the data is not
 * a container or one is cut short (entries before the damage were passed
 * to fn). */
int fatbin_walk(const uint8_t *p, size_t n,
		void (*fn)(void *ctx, const struct fatbin_entry *e), void *ctx,
		char *why, size_t whyn);

#endif
