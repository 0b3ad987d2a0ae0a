#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs a VM's preboot work (tests/vm/package-preboot.sh: dpkg -i, with dkms
# building the module) on the host, in a chroot of the host's root under an
# overlay in a mount namespace of its own, and packs the overlay's upper
# layer for the guest's init to unpack under its own overlay. The guest
# then boots the very system the chroot made, as a machine boots what its
# installer's chroot made. On an emulated CPU the same dkms build and
# depmod took 18 minutes of a CI run; here they take seconds.
#
#   preboot-host.sh OUTDIR KVER SCRIPT
#
# OUTDIR is the VM's result directory (the guest's /afw-out): SCRIPT sees
# it there too, and OUTDIR/preboot.tar is written. KVER is the guest's
# kernel: dkms builds for `uname -r`, which in the chroot must name the
# kernel the guest boots, not the host's. Exit status: SCRIPT's; 3 when
# this host cannot mount the overlay (not root, or no overlayfs), and the
# caller runs SCRIPT in the guest instead.
set -u

out=$(cd "$1" && pwd) kver=$2 script=$3
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

if [ "${AFW_PREBOOT_HOST_INNER:-}" != 1 ]; then
	AFW_PREBOOT_HOST_INNER=1 exec unshare -m --propagation private "$0" "$@"
fi

work=$(mktemp -d /tmp/afw-preboot.XXXXXX)
trap 'umount -R "$work" 2> /dev/null; rmdir "$work"' EXIT
# The layers live on a tmpfs of their own: an upper layer inside the lower
# (the host's root) is refused, and nothing here outlives the namespace.
mount -t tmpfs -o size=4g tmpfs "$work" || exit 3
mkdir "$work/upper" "$work/wk" "$work/root"
# No redirects, no index, no metacopy: the guest's overlay, and its
# busybox tar, must read this upper layer as plain files and whiteouts.
if ! mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/wk,redirect_dir=off,index=off,metacopy=off" \
	"$work/root" 2> "$work/mount.err"; then
	echo "preboot-host: cannot mount an overlay of / here: $(cat "$work/mount.err")" >&2
	exit 3
fi
r=$work/root
mount -t proc proc "$r/proc" &&
mount --rbind /dev "$r/dev" &&
mount --rbind /sys "$r/sys" &&
mount -t tmpfs tmpfs "$r/run" || exit 3
case "$src/" in
/tmp/*) ;;
*) mount -t tmpfs tmpfs "$r/tmp" || exit 3 ;;
esac
mkdir "$r/afw-out" && mount --bind "$out" "$r/afw-out" || exit 3
# dkms builds for the running kernel; in this chroot that is the guest's.
# A uname that says so, first in PATH, is the one thing the chroot fakes.
mkdir "$r/afw-preboot-bin"
cat > "$r/afw-preboot-bin/uname" <<EOF
#!/bin/sh
case "\$*" in
-r) echo '$kver' ;;
*) exec /bin/uname "\$@" ;;
esac
EOF
chmod +x "$r/afw-preboot-bin/uname"

chroot "$r" /usr/bin/env -i AFW_SRC="$src" AFW_OUT=/afw-out \
	PATH=/afw-preboot-bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 /bin/bash -c 'cd "$AFW_SRC" && exec /bin/bash "$0"' "$script"
rc=$?

umount -R "$r/afw-out" "$r/proc" "$r/dev" "$r/sys" "$r/run"
umount "$r/tmp" 2> /dev/null
umount "$r"
rm -rf "$work/upper/afw-out" "$work/upper/afw-preboot-bin"
# Opaque directories, redirects and metacopies are xattrs, which neither
# 9p nor busybox tar carries. An opaque directory (one deleted and made
# anew) becomes what it means: a whiteout for each entry of the lower
# directory that the upper one lacks; the lower layer, the host's root,
# is the guest's too. Anything else is refused, not half-restored.
# (origin and impure only keep inode numbers stable.)
if python3 - "$work/upper" <<'PY'
import os, stat, sys
upper = sys.argv[1]
needed = {"redirect", "metacopy", "whiteout", "whiteouts"}
for d, dirs, files in os.walk(upper):
    for n in [d] + [os.path.join(d, f) for f in files]:
        for a in os.listxattr(n, follow_symlinks=False):
            if a == "trusted.overlay.opaque" and n == d:
                lower = "/" + os.path.relpath(d, upper)
                if os.path.isdir(lower) and not os.path.islink(lower):
                    for e in os.listdir(lower):
                        if not os.path.lexists(os.path.join(d, e)):
                            os.mknod(os.path.join(d, e), stat.S_IFCHR | 0o600, os.makedev(0, 0))
                os.removexattr(d, a)
            elif a.startswith("trusted.overlay.") and a[16:] in needed:
                print("preboot-host: %s needs %s" % (n, a), file=sys.stderr)
                sys.exit(0)
sys.exit(1)
PY
then
	exit 3
fi
tar -C "$work/upper" -cf "$out/preboot.tar" . || exit 3
exit $rc
