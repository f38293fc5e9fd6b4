#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Copy the checkout's sources into DEST, as they are in the work tree: in a
# git checkout the tracked and untracked, not ignored, files (deleted ones
# skipped), what `git add -A` would commit; elsewhere everything but out/,
# .git and build products. Used by scripts/dkms-check.sh and scripts/deb.sh.
#
# usage: scripts/stage-sources.sh DEST   (run from the top of the tree)
set -euo pipefail
dest=${1:?usage: stage-sources.sh DEST}
mkdir -p "$dest"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"
	done | tar --null -T - -cf - | tar -xf - -C "$dest"
else
	tar --exclude=./out --exclude=./.git --exclude='*.o' --exclude='*.ko' -cf - . |
		tar -xf - -C "$dest"
fi
