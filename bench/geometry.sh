#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The pool-size model (bench/geometry.py) on the end-to-end benchmark's
# content stream, without a guest: the stream is written by zsmod_swap
# --dump and compressed on the host with liblzo2 (bench/lzo_sizes.c).
#
# usage: bench/geometry.sh [--mib LIST] [--out FILE] [geometry.py what-if options]
#   --mib LIST  working sets in MiB, comma-separated [64,192,512]
#   --out FILE  also write the table to FILE
#   what-if:    --max-chain N, --delta D, --no-borrow, --long-chain N
#               [--long-from PAGES] (zsmalloc_mod only; see geometry.py)
# Environment: ABI (Debian kernel ABI whose modules make the corpus).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

mib=64,192,512 out='' whatif=()
while [ $# -gt 0 ]; do
	case $1 in
	--mib) mib=$2; shift ;;
	--out) out=$2; shift ;;
	--max-chain|--delta|--long-chain|--long-from) whatif+=("$1" "$2"); shift ;;
	--no-borrow) whatif+=("$1") ;;
	*) echo "usage: bench/geometry.sh [--mib LIST] [--out FILE] [--max-chain N] [--delta D] [--no-borrow] [--long-chain N [--long-from PAGES]]" >&2
	   exit 2 ;;
	esac
	shift
done

abi=${ABI:-$(./vm/deps.sh)}
work=$top/out/bench/geometry
mkdir -p "$work"
bench/corpus.sh "$top/out/bench/corpus" "$abi"
gcc -O2 -Wall -Wextra -o "$work/zsmod_swap" bench/zsmod_swap.c
gcc -O2 -Wall -Wextra -o "$work/lzo_sizes" bench/lzo_sizes.c -llzo2

# the stream of the largest working set; smaller ones are its prefixes
max=$(tr , '\n' <<<"$mib" | sort -n | tail -n 1)
sizes=$work/sizes.txt
"$work/zsmod_swap" --dump "$work/stream.bin" --mib "$max" \
	--corpus "$top/out/bench/corpus,/bin/busybox"
"$work/lzo_sizes" "$work/stream.bin" >"$sizes"
rm -f "$work/stream.bin"
python3 bench/geometry.py --sizes "$sizes" --mib "$mib" "${whatif[@]}" |
	if [ -n "$out" ]; then tee "$out"; else cat; fi
