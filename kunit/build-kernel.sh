#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the zsmalloc_mod KUnit test kernel and print its
# directory on stdout:
#
#   <dir>/src     linux-source-6.12 with kunit/patches/*.patch applied
#                 (hard-link copy of the pristine tree; patched files are
#                 real copies, so the pristine tree is never modified)
#   <dir>/build   O= build output: arch/x86/boot/bzImage, .config,
#                 Module.symvers; pass it as KDIR to build modules
#
# <dir> is $ZSMOD_CACHE/kunit-kernel-<hash>, the hash covering the source
# package version, kunit/config, kunit/patches/* and this script, so any
# change rebuilds from scratch in a new directory. With --bench it is
# $ZSMOD_CACHE/bench-kernel-<hash>: the same source, configured by
# kunit/config with kunit/bench.config's options in place of its own (no
# sanitizers or debugging: for the benchmarks only). A directory is reused
# only once it holds the .complete marker written after a full build; a
# missing or partial one is rebuilt, so an empty cache always works.
#
# Usage: kunit/build-kernel.sh [-q] [--bench]   (-q: build log only to a file)
# Env:   ZSMOD_CACHE (default /var/cache/zsmalloc_mod), JOBS (default nproc+1)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${ZSMOD_CACHE:-/var/cache/zsmalloc_mod}
jobs=${JOBS:-$(($(nproc) + 1))}
quiet='' kind=kunit
for arg; do
	case $arg in
	-q) quiet=1 ;;
	--bench) kind=bench ;;
	*) echo "usage: $0 [-q] [--bench]" >&2; exit 2 ;;
	esac
done

log() { echo "build-kernel: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

pristine=$("$top/vm/source.sh")
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
fragments=("$here/config")
[ "$kind" = kunit ] || fragments+=("$here/bench.config")
patches=("$here"/patches/*.patch)
[ -f "${patches[0]}" ] || die "no patches in $here/patches"

hash=$({
	echo "linux-source-6.12 $srcver"
	sha256sum "${fragments[@]}" "${patches[@]}" "$here/build-kernel.sh" | awk '{print $1}'
} | sha256sum | cut -c1-16)
dir=$cache/$kind-kernel-$hash
src=$dir/src
obj=$dir/build

mkdir -p "$cache"
# One builder per directory; a second caller waits and then reuses it.
exec 9>"$dir.lock"
flock 9

if [ -f "$dir/.complete" ] && [ -f "$obj/arch/x86/boot/bzImage" ] &&
	[ -f "$obj/Module.symvers" ]; then
	log "reusing $dir"
	echo "$dir"
	exit 0
fi

start=$(date +%s)
log "building test kernel in $dir (source $srcver, jobs $jobs)"
rm -rf "$dir"
mkdir -p "$dir"

# --- patched source tree --------------------------------------------------
cp -al "$pristine" "$src.tmp"
rm -f "$src.tmp/.complete"
for p in "${patches[@]}"; do
	# Break the hard links of every file the patch touches before patching
	# (a file an earlier patch changed is a copy already: keep its changes).
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p"); do
		[ "$src.tmp/$f" -ef "$pristine/$f" ] || continue
		cp --remove-destination "$pristine/$f" "$src.tmp/$f"
	done
	log "applying $(basename "$p")"
	patch -p1 -s -N -d "$src.tmp" <"$p" || die "patch $(basename "$p") failed"
done
# Paranoia: the pristine tree must not have been touched.
for p in "${patches[@]}"; do
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p"); do
		if [ -f "$pristine/$f" ] && [ "$pristine/$f" -ef "$src.tmp/$f" ]; then
			die "$f still hard-linked to the pristine tree"
		fi
	done
done
mv "$src.tmp" "$src"

# --- configuration --------------------------------------------------------
mkdir -p "$obj"
# The fragments as one: an option a later one sets replaces an earlier line.
fragment=$dir/config.fragment
awk '/^CONFIG_[A-Z0-9_]+=/ || /^# CONFIG_[A-Z0-9_]+ is not set$/ {
		sym = $0; sub(/^# /, "", sym); sub(/[= ].*/, "", sym)
		if (!(sym in line)) order[++n] = sym
		line[sym] = $0 }
	END { for (i = 1; i <= n; i++) print line[order[i]] }' "${fragments[@]}" >"$fragment"
kmake() {
	if [ -n "$quiet" ]; then
		make -C "$src" O="$obj" ARCH=x86_64 "$@" >>"$dir/build.log" 2>&1 ||
			{ tail -40 "$dir/build.log" >&2; die "make $* failed (log: $dir/build.log)"; }
	else
		make -C "$src" O="$obj" ARCH=x86_64 "$@" 2>&1 | tee -a "$dir/build.log" >&2
		[ "${PIPESTATUS[0]}" -eq 0 ] || die "make $* failed (log: $dir/build.log)"
	fi
}
kmake KCONFIG_ALLCONFIG="$fragment" allnoconfig
kmake olddefconfig

missing=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF -- "$line" "$obj/.config" || missing+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo absent))")
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		if grep -q "^$sym=" "$obj/.config"; then
			missing+=("$line (got: $(grep "^$sym=" "$obj/.config"))")
		fi
		;;
	esac
done <"$fragment"
if [ ${#missing[@]} -gt 0 ]; then
	log "the configuration lacks options that ${fragments[*]#"$here/"} ask for:"
	for m in "${missing[@]}"; do log "  $m"; done
	die "fix ${fragments[*]#"$here/"} (dependencies?) and retry"
fi
log "configuration: all $(grep -c '^CONFIG_\|^# CONFIG_.* is not set' "$fragment") options verified"

# --- build ------------------------------------------------------------------
kmake -j"$jobs" bzImage modules
[ -f "$obj/arch/x86/boot/bzImage" ] || die "no bzImage"
[ -f "$obj/Module.symvers" ] || die "no Module.symvers"

touch "$dir/.complete"
log "test kernel built in $(($(date +%s) - start)) s"
echo "$dir"
