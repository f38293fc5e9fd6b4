// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into the kernel's test_zswap: its cases fork children that exit()
 * and would flush a copy of the parent's stdio buffer again when stdout is
 * a pipe or a file. Line buffering empties the buffer at every line.
 */
#include <stdio.h>

__attribute__((constructor)) static void zsmod_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
