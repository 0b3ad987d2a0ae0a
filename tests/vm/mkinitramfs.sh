#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the tiny initramfs that boots a test kernel far enough to mount the
# host's root over 9p. Usage: mkinitramfs.sh KVER OUT.cpio.gz [MODULE...]
# The MODULEs come too, with what they depend on: the systemd boot's disk
# needs virtio_blk and ext4.
#
# KVER "none" builds an initramfs without modules, for a kernel that has
# virtio, 9p and overlayfs built in (the debug kernel).
set -euo pipefail

kver=$1
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

busybox=$(command -v busybox)
if ldd "$busybox" > /dev/null 2>&1; then
	echo "mkinitramfs: $busybox is not static; install busybox-static" >&2
	exit 1
fi

mkdir -p "$stage"/{bin,dev,proc,sys,lower,rw,root,mod}
cp "$busybox" "$stage/bin/busybox"
cp "$here/init" "$stage/init"
chmod 755 "$stage/init"

: > "$stage/mod/order"
if [ "$kver" != none ]; then
	# modprobe knows each module's dependencies and their order; ask it
	# instead of keeping a list that drifts between kernel versions.
	for m in virtio_pci 9pnet_virtio 9p overlay "$@"; do
		modprobe -S "$kver" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
	while read -r ko; do
		name=$(basename "$ko")
		case "$name" in
		*.ko.xz)  name=${name%.xz};  xz -dc "$ko" > "$stage/mod/$name" ;;
		*.ko.zst) name=${name%.zst}; zstd -qdc "$ko" > "$stage/mod/$name" ;;
		*.ko.gz)  name=${name%.gz};  gzip -dc "$ko" > "$stage/mod/$name" ;;
		*)        cp "$ko" "$stage/mod/$name" ;;
		esac
		echo "$name" >> "$stage/mod/order"
	done
fi

(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
