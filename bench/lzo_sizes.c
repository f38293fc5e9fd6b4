// SPDX-License-Identifier: GPL-2.0
/*
 * lzo_sizes - the compressed size of every page of a content stream
 *
 *   lzo_sizes FILE
 *
 * FILE is a stream written by "zsmod_swap --dump". For each 4 KiB page it
 * prints "INDEX SAME SIZE": its index, 1 if the page repeats one 8-byte
 * word (zswap 6.12 stores such same-filled pages, zero pages among them,
 * without the allocator), and its size compressed with
 * liblzo2's lzo1x_1, the algorithm of the kernel's "lzo" compressor; or
 * 0 if the output would exceed the page (zswap rejects it). The kernel's
 * implementation differs in detail: its sizes are about 0.2% larger on the
 * benchmark corpus. bench/geometry.py reads this.
 */
#include <lzo/lzo1x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096

int main(int argc, char **argv)
{
	static unsigned char in[PAGE], out[PAGE + PAGE / 16 + 64 + 3];
	static unsigned char wrk[LZO1X_1_MEM_COMPRESS];
	unsigned long i;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: lzo_sizes FILE\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || lzo_init() != LZO_E_OK) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; fread(in, 1, PAGE, f) == PAGE; i++) {
		lzo_uint len = sizeof(out);

		if (lzo1x_1_compress(in, PAGE, out, &len, wrk) != LZO_E_OK) {
			fprintf(stderr, "lzo_sizes: page %lu: compress failed\n", i);
			return 1;
		}
		printf("%lu %d %lu\n", i, !memcmp(in, in + 8, PAGE - 8),
		       len > PAGE ? 0UL : (unsigned long)len);
	}
	return ferror(f) ? 1 : 0;
}
