#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make kunit` (also run by `make check`): the KUnit suites of
# kunit/*_kunit.c (one module, kunit/zsmalloc_mod_kunit.ko) on the 6.12
# test kernel.
#
#  1. vm/deps.sh: packages (idempotent)
#  2. kunit/build-kernel.sh: build or reuse the test kernel (PG_dropbehind
#     backport, zpool export, KASAN/lockdep/DEBUG_VM/fault injection...)
#  3. build zsmalloc_mod.ko and kunit/zsmalloc_mod_kunit.ko against it, in a
#     copy of the work tree (out/kunit/src) so that objects built for other
#     kernels in the work tree are left alone
#  4. boot it under qemu TCG with vm/run-guest.sh (2 vCPUs, 2 GiB,
#     numa=fake=2); kunit/guest-kunit.sh loads both modules and prints every
#     suite's debugfs results, delimited
#  5. feed each suite's results to kunit.py parse separately and judge
#
# Fails on: a failed or crashed test, a missing suite, a skipped suite, a
# skipped test case that allow_skip below does not list, a kernel splat (the
# patterns of vm/splat-patterns: BUG:/WARNING:/KASAN/lockdep/Oops...) in the
# console log, the guest script failing or timing out.
#
# Env: KUNIT_TIMEOUT (guest seconds, default 1200), KUNIT_MEM (default 2G),
#      KUNIT_APPEND (extra kernel command line), KUNIT_KCFLAGS (extra
#      compiler flags for the modules, a debugging aid), KUNIT_KDIR (use
#      this already built kunit-kernel-<hash> directory), KUNIT_OUT (output
#      directory, default out/kunit), KUNIT_REPEAT (N: every suite runs N
#      times in the boot, all must pass; with KUNIT_APPEND's
#      kunit.filter_glob=<suite>.<case> one case N times), ZSMOD_MEMDESC (non-empty: both
#      modules in memdesc mode, see zpdesc.h), ZSMOD_CACHE, JOBS.
# Output: out/kunit/{guest.log,guest.tap,<suite>.ktap,<suite>.parse}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${KUNIT_OUT:-$top/out/kunit}
# The suites of kunit/zsmalloc_mod_kunit.ko: the guest fails on a suite
# missing from the list (kunit/guest-kunit.sh), and so does this script.
mapfile -t suites < <(grep -v '^#' "$here/suites")

say() { echo "kunit: $*"; }
die() { echo "kunit: ERROR: $*" >&2; exit 1; }

"$top/vm/deps.sh" >/dev/null

t0=$(date +%s)
if [ -n "${KUNIT_KDIR:-}" ]; then
	kdir=$KUNIT_KDIR	# a kunit-kernel-<hash> directory, used as it is
	[ -f "$kdir/.complete" ] || die "$kdir is not a complete test kernel"
else
	kdir=$("$here/build-kernel.sh" -q) || die "test kernel build failed"
fi
t1=$(date +%s)
obj=$kdir/build
src=$kdir/src
say "test kernel: $obj ($((t1 - t0)) s)"

[ -f "$top/zsmalloc_mod.c" ] || die "zsmalloc_mod.c does not exist yet: nothing to test"

# --- modules ---------------------------------------------------------------
mkdir -p "$out"
"$top/vm/build-modules.sh" "$out/src" "$obj" "$out/modules.log" \
	${KUNIT_KCFLAGS:+KCFLAGS="$KUNIT_KCFLAGS"} ${ZSMOD_MEMDESC:+ZSMOD_MEMDESC=1} ||
	die "building the modules against the test kernel failed (log: $out/modules.log)"
for ko in zsmalloc_mod.ko kunit/zsmalloc_mod_kunit.ko; do
	[ -f "$out/src/$ko" ] || die "$ko was not built (CONFIG_KUNIT missing from $obj?)"
done
t2=$(date +%s)
say "modules built ($((t2 - t1)) s)"

# --- guest -----------------------------------------------------------------
# Skipped test cases that may pass, "suite/case:reason" (a parameter's
# description instead of the case for a parameterised one; vm/verdict.sh's
# NAME). None: the test kernel is built so that every case runs. Judged by
# vm/verdict.sh and again below.
allow_skip=()
skipargs=()
for a in ${allow_skip[@]+"${allow_skip[@]}"}; do skipargs+=(--allow-skip "$a"); done
rm -f "$out"/guest.log "$out"/guest.tap "$out"/*.ktap "$out"/*.parse
set +e
"$top/vm/run-guest.sh" ${skipargs[@]+"${skipargs[@]}"} --kernel "$obj/arch/x86/boot/bzImage" \
	--init-script "$here/guest-kunit.sh" \
	--ko "$out/src/zsmalloc_mod.ko" --ko "$out/src/kunit/zsmalloc_mod_kunit.ko" \
	--mem "${KUNIT_MEM:-2G}" --smp 2 \
	--append "$(grep -v '^#' "$here/cmdline" | paste -sd' ') ${KUNIT_APPEND:-}" \
	--append "zsmod_suites=$(IFS=+; echo "${suites[*]}")" \
	${KUNIT_REPEAT:+--append "zsmod_repeat=$KUNIT_REPEAT"} \
	--log "$out/guest.log" --timeout "${KUNIT_TIMEOUT:-1200}"
guest_rc=$?
set -e
t3=$(date +%s)
say "guest finished ($((t3 - t2)) s), harness verdict: $([ $guest_rc = 0 ] && echo pass || echo "FAIL ($guest_rc)")"

# --- per-suite parse ---------------------------------------------------------
fail=0
problem() { echo "kunit: FAIL: $*"; fail=1; }
[ $guest_rc = 0 ] || problem "vm/run-guest.sh verdict failed (status $guest_rc)"

tap=$out/guest.tap
[ -f "$tap" ] || die "no TAP stream $tap"
kunitpy=$src/tools/testing/kunit/kunit.py
[ -f "$kunitpy" ] || die "no $kunitpy"

declare -A allowed=()
for a in ${allow_skip[@]+"${allow_skip[@]}"}; do allowed[${a%%:*}]=${a#*:}; done
nskipped=0
for s in "${suites[@]}"; do
	ktap=$out/$s.ktap
	tr -d '\r' <"$tap" | awk -v s="$s" '
		$0 == "# ===== begin kunit results: " s " =====" { on = 1; next }
		$0 == "# ===== end kunit results: " s " =====" { on = 0; next }
		on { sub(/^# \| ?/, ""); print }' >"$ktap"
	echo
	echo "===== kunit.py parse: $s ====="
	if [ ! -s "$ktap" ]; then
		problem "suite $s: no results in the guest output"
		continue
	fi
	set +e
	(cd "$src" && PYTHONDONTWRITEBYTECODE=1 python3 "$kunitpy" parse <"$ktap") |
		tee "$out/$s.parse"
	prc=${PIPESTATUS[0]}
	set -e
	[ "$prc" = 0 ] || problem "suite $s: kunit.py parse exit status $prc"
	# kunit.py passes a skipped suite: we do not
	suite_line=$(grep -E "^(not )?ok [0-9]+ $s( |$)" "$ktap" | tail -1)
	case "$suite_line" in
	"ok "*"# SKIP"*) problem "suite $s skipped on the test kernel: ${suite_line#*# SKIP}" ;;
	"ok "*) ;;
	"") problem "suite $s: no result line (crashed or cut short)" ;;
	*) problem "suite $s: $suite_line" ;;
	esac
	if grep -Eq '^ *not ok ' "$ktap"; then
		problem "suite $s has failing tests:"
		grep -E '^ *not ok ' "$ktap" | sed 's/^/    /'
	fi
	# Skipped cases and parameters (the suite's own line is judged above):
	# "ok N name # SKIP reason" at any depth, named suite/name (or
	# suite/reason when the name is empty).
	while IFS= read -r name; do
		nskipped=$((nskipped + 1))
		if [ -n "${allowed[$s/$name]+set}" ]; then
			say "skip allowed: $s/$name: ${allowed[$s/$name]}"
		else
			problem "$s/$name skipped, and not on the allow_skip list of kunit/run.sh"
		fi
	done < <(awk '/^[ \t]+ok [0-9]+/ {
		s = $0; sub(/^[ \t]+ok [0-9]+/, "", s)
		desc = s; dir = ""
		if ((i = index(s, "#")) > 0) { desc = substr(s, 1, i - 1); dir = substr(s, i + 1) }
		sub(/^[ \t]*(-[ \t]+)?/, "", desc); sub(/[ \t]+$/, "", desc); sub(/^[ \t]+/, "", dir)
		if (toupper(dir) !~ /^SKIP/) next
		sub(/^[A-Za-z]+[ \t:]*/, "", dir); sub(/[ \t]+$/, "", dir)
		print (desc != "" ? desc : dir != "" ? dir : "(unnamed)")
	}' "$ktap")
done

# The harness judges splats too; check here as well so that this script
# stands on its own, with the same patterns (vm/splat-patterns).
"$top/vm/splats.sh" --report "$out/guest.log" "$out/splats.txt" ||
	problem "the kernel log (above)"

echo
echo "===== kunit summary ====="
for s in "${suites[@]}"; do
	line=$(grep -E 'Testing complete\.|Ran [0-9]+ tests' "$out/$s.parse" 2>/dev/null | tail -1 |
		sed 's/^\[[0-9:]*\] //')
	printf '%-26s %s\n' "$s" "${line:-no results}"
done
# totals over the suites, from kunit.py's "Ran N tests: passed: P, failed: F, ..."
read -r npass nfail nskip < <(cat "$out"/*.parse 2>/dev/null | awk '
	/Testing complete\. Ran [0-9]+ tests/ {
		for (i = 1; i <= NF; i++) {
			w = $i; sub(/[,:]$/, "", w); v = $(i + 1); sub(/,$/, "", v)
			if (w == "passed") p += v
			if (w == "failed" || w == "crashed") f += v
			if (w == "skipped") k += v
		}
	}
	END { print p + 0, f + 0, k + 0 }')
say "times: kernel $((t1 - t0)) s, modules $((t2 - t1)) s, guest $((t3 - t2)) s; logs in $out"
echo "kunit: $npass passed, $nfail failed, $nskip skipped"
# a skipped case checked nothing: each was judged above against allow_skip;
# kunit.py's count is the backstop should that parse miss one
[ "$nskip" -le "$nskipped" ] ||
	problem "kunit.py counts $nskip skipped test(s), the allow_skip check saw $nskipped"
if [ $fail = 0 ]; then
	say "PASS"
else
	say "FAIL"
fi
exit $fail
