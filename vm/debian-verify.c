// SPDX-License-Identifier: GPL-2.0
/*
 * debian-verify: write a working set larger than the memcg it runs in, then
 * read every page back and compare it byte for byte with what was written.
 * The guest of vm/debian-check.sh runs it under
 * `systemd-run --scope -p MemoryMax=...`, so the pages go out through zswap
 * and come back in from it.
 *
 * Content of page i: 16 bytes naming the page and the pass, then
 * pseudo-random bytes (a length drawn from i, 0 to 1/4 of the page), then a
 * short repeating pattern: compressible to very different sizes, so that
 * many size classes of the pool are used. zswap's pool is charged to the
 * memcg, and with zswap's shrinker off (Debian's default) nothing is written
 * back to the swap device: the compressed working set (about a fifth of
 * MIB) must fit in the memcg's limit, or the memcg OOM killer ends the run.
 *
 * usage: debian-verify MIB [PASSES]
 *   each pass rewrites every page and then checks every page (default 2)
 * Prints "pages=N passes=P mismatches=M"; exit 0 when M is 0, 1 on a
 * mismatch, 2 on an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PG 4096UL

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void fill(unsigned char *p, unsigned long i, unsigned int pass)
{
	uint64_t s = mix(i * 131 + pass);
	size_t rnd = 16 + (size_t)(s % (PG / 4)), k;
	uint64_t hdr[2] = { i, pass };

	memcpy(p, hdr, sizeof(hdr));
	for (k = 16; k < rnd; k++) {
		if (!(k & 7))
			s = mix(s);
		p[k] = (unsigned char)(s >> ((k & 7) * 8));
	}
	for (; k < PG; k++)
		p[k] = (unsigned char)("zsmalloc_mod"[k % 12] + pass);
}

int main(int argc, char **argv)
{
	unsigned long mib, npages, i, bad = 0;
	unsigned int passes = 2, pass;
	unsigned char *region, *want;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s MIB [PASSES]\n", argv[0]);
		return 2;
	}
	mib = strtoul(argv[1], NULL, 0);
	if (argc == 3)
		passes = (unsigned int)strtoul(argv[2], NULL, 0);
	npages = mib * 256;
	region = mmap(NULL, npages * PG, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	want = malloc(PG);
	if (region == MAP_FAILED || !want || !npages) {
		perror("debian-verify: mmap");
		return 2;
	}
	for (pass = 0; pass < passes; pass++) {
		for (i = 0; i < npages; i++)
			fill(region + i * PG, i, pass);
		for (i = 0; i < npages; i++) {
			fill(want, i, pass);
			if (memcmp(region + i * PG, want, PG) && bad++ < 10)
				fprintf(stderr, "debian-verify: page %lu differs in pass %u\n",
					i, pass);
		}
	}
	printf("pages=%lu passes=%u mismatches=%lu\n", npages, passes, bad);
	return bad ? 1 : 0;
}
