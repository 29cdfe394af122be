/* elf.c - bounds-checked readers of ELF64 files and fatbinary containers,
 * for `mmagen inspect`.  A fuzzer will be pointed at them: every offset is
 * checked against the buffer before it is read, sizes are compared by
 * subtraction (never by an addition that could wrap), and nothing here
 * allocates.
 *
 * Fatbinary layout (little-endian; what nvcc writes into .nv_fatbin and
 * into .fatbin files):
 *   container header, 16 bytes: u32 magic (0xBA55ED50, or 0x466243B1 for
 *     relocatable device code), u16 version (1), u16 header size (16),
 *     u64 size of the entries that follow
 *   entry header, `header size` bytes (64 and up):
 *     +0 u16 kind (1 PTX, 2 ELF)   +4 u32 header size   +8 u64 payload size
 *     +16 u32 compressed size      +28 u32 SM number    +40 u64 flags
 *     +56 u64 uncompressed size
 *   flags: 0x2000 payload LZ4-compressed, 0x8000 zstd-compressed
 *   the payload follows the entry header; the next entry follows it. */
#include "inspect.h"

#include <stdio.h>
#include <string.h>

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* 1 when [off, off + len) lies inside n bytes */
static int inside(size_t n, uint64_t off, uint64_t len)
{
	return off <= n && len <= n - off;
}

#define WHY(...) (snprintf(why, whyn, __VA_ARGS__), -1)

int elf_open(const uint8_t *p, size_t n, struct elf_view *e, char *why, size_t whyn)
{
	memset(e, 0, sizeof *e);
	if (n < 64 || memcmp(p, "\177ELF", 4))
		return WHY("not an ELF file");
	if (p[4] != 2 || p[5] != 1)
		return WHY("a 32-bit or big-endian ELF file; only ELF64 little-endian is read");
	e->p = p;
	e->n = n;
	e->abi_version = p[8];
	e->machine = rd16(p + 18);
	e->flags = rd32(p + 48);
	e->shoff = rd64(p + 40);
	e->shentsize = rd16(p + 58);
	e->shnum = rd16(p + 60);
	e->shstrndx = rd16(p + 62);
	if (!e->shoff) {
		e->shnum = 0;
		return 0;
	}
	if (e->shentsize < 64 || !inside(n, e->shoff, 64))
		return WHY("ELF section headers outside the file");
	/* extended numbering: the real values live in section 0 */
	if (e->shnum == 0) {
		uint64_t cnt = rd64(p + e->shoff + 32);
		e->shnum = cnt > 0xffff ? 0xffff : (uint16_t)cnt;
	}
	if (e->shstrndx == 0xffff)
		e->shstrndx = (uint16_t)rd32(p + e->shoff + 40);
	if (!inside(n, e->shoff, (uint64_t)e->shnum * e->shentsize))
		return WHY("ELF section headers (%u) run past the end of the file", e->shnum);
	return 0;
}

static const uint8_t *shdr(const struct elf_view *e, unsigned i)
{
	return e->p + e->shoff + (uint64_t)i * e->shentsize;
}

int elf_section(const struct elf_view *e, unsigned i, const char **name,
		const uint8_t **data, size_t *len)
{
	const uint8_t *h;
	uint64_t off, size, noff;

	if (i >= e->shnum)
		return -1;
	h = shdr(e, i);
	*name = "";
	if (e->shstrndx < e->shnum) {
		const uint8_t *s = shdr(e, e->shstrndx);
		uint64_t soff = rd64(s + 24), ssize = rd64(s + 32);
		noff = rd32(h);
		if (inside(e->n, soff, ssize) && noff < ssize &&
		    memchr(e->p + soff + noff, 0, (size_t)(ssize - noff)))
			*name = (const char *)e->p + soff + noff;
	}
	off = rd64(h + 24);
	size = rd64(h + 32);
	*data = NULL;
	*len = 0;
	if (rd32(h + 4) != 8 /* SHT_NOBITS */ && inside(e->n, off, size)) {
		*data = e->p + off;
		*len = (size_t)size;
	}
	return 0;
}

unsigned elf_cuda_sm(const struct elf_view *e)
{
	if (e->machine != ELF_EM_CUDA)
		return 0;
	/* ELF ABI version 8 (CUDA 12.8 on) moved the SM number to bits 8..15 */
	return e->abi_version >= 8 ? (e->flags >> 8) & 0xff : e->flags & 0xff;
}

int fatbin_walk(const uint8_t *p, size_t n,
		void (*fn)(void *ctx, const struct fatbin_entry *e), void *ctx,
		char *why, size_t whyn)
{
	size_t pos = 0;
	int count = 0;

	while (pos < n) {
		uint32_t magic;
		uint64_t size;
		size_t end, q;
		unsigned hsize;

		if (n - pos < 16) {
			/* padding after the last container */
			while (pos < n && !p[pos])
				pos++;
			if (pos == n)
				break;
			return WHY("%zu stray bytes after the last fatbinary container", n - pos);
		}
		magic = rd32(p + pos);
		if (magic == 0 && count) {         /* padding between containers */
			pos += 8;
			continue;
		}
		if (magic != FATBIN_MAGIC && magic != FATBIN_MAGIC_REL)
			return count ? WHY("bytes at offset %zu are not a fatbinary container", pos)
				     : WHY("not a fatbinary (magic 0x%08x)", (unsigned)magic);
		hsize = rd16(p + pos + 6);
		size = rd64(p + pos + 8);
		if (hsize < 16 || !inside(n, pos, hsize) || !inside(n - pos, hsize, size))
			return WHY("fatbinary container at offset %zu is cut short", pos);
		q = pos + hsize;
		end = pos + hsize + (size_t)size;
		while (q < end) {
			struct fatbin_entry fe;
			uint32_t ehsize;
			uint64_t plen;

			if (end - q < 64)
				return WHY("fatbinary entry at offset %zu is cut short", q);
			ehsize = rd32(p + q + 4);
			plen = rd64(p + q + 8);
			if (ehsize < 64 || ehsize > end - q || plen > end - q - ehsize)
				return WHY("fatbinary entry at offset %zu has sizes beyond its container", q);
			memset(&fe, 0, sizeof fe);
			fe.kind = rd16(p + q);
			fe.sm = rd32(p + q + 28);
			fe.flags = rd64(p + q + 40);
			fe.data = p + q + ehsize;
			fe.len = (size_t)plen;
			if (fe.flags & 0x8000)
				fe.compressed = "zstd";
			else if (fe.flags & 0x2000)
				fe.compressed = "lz4";
			fn(ctx, &fe);
			count++;
			q += ehsize + (size_t)plen;
		}
		pos = end;
	}
	return count;
}
