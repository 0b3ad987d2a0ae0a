#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Why guest.sh holds netfilter's static keys on: under multi-threaded TCG,
# the kernel's patching of a hook site while other CPUs run through it can
# leave a CPU executing the int3 it placed after the patch is done, and
# the guest dies with "Oops: int3". This boots a kernel without afw, adds
# and deletes an empty nftables table (which flips the keys) while TCP and
# a ping flood run over loopback, and says whether the guest survived.
#
#   tests/vm/int3.sh [KERNEL_IMAGE [SECONDS [QEMU_ACCEL]]]
#
# QEMU_ACCEL defaults to "tcg" (multi-threaded on x86 hosts); pass
# "tcg,thread=single" to run the vCPUs in one thread. Exit status 0: the
# guest flipped the keys for SECONDS and lived; 1: it oopsed.
set -euo pipefail

if [ "${1:-}" = --guest ]; then
	ip link set lo up
	iperf3 -s -D -B 127.0.0.1
	sleep 1
	iperf3 -c 127.0.0.1 -t 100000 > /dev/null 2>&1 &
	ping -f -q 127.0.0.1 > /dev/null 2>&1 &
	table='table inet int3 {
		chain i { type filter hook input priority 0; }
		chain o { type filter hook output priority 0; }
		chain p { type filter hook prerouting priority 0; }
		chain q { type filter hook postrouting priority 0; }
	}'
	n=0
	end=$(( $(date +%s) + INT3_SECONDS ))
	while [ "$(date +%s)" -lt $end ]; do
		nft -f - <<< "$table"
		nft delete table inet int3
		n=$((n + 1))
	done
	echo "$n" > "$AFW_OUT/flips"
	exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
images=(/boot/vmlinuz-6.12.*)
kernel=${1:-${images[-1]}}
seconds=${2:-300}
accel=${3:-tcg}
kver=${kernel##*/vmlinuz-}
out=$src/build/vm-int3/$kver-${accel//[,=]/-}
mkdir -p "$out"
"$here/mkinitramfs.sh" "$kver" "$out/initrd.gz"
rm -f "$out/flips"
job=$out/job.sh
printf '#!/bin/bash\nexec %q --guest\n' "$here/int3.sh" > "$job"
chmod +x "$job"
AFW_VM_QEMU_ACCEL=$accel "$here/boot.sh" -k "$kernel" -i "$out/initrd.gz" -o "$out/vm" \
	-j "$job" -e "INT3_SECONDS=$seconds" -t $((seconds * 3 + 300)) > "$out/boot.log" 2>&1 || true
if grep -q 'Oops: int3' "$out/vm/console.log"; then
	echo "int3: $kver, $accel: the guest died of a stale int3 in" \
	     "$(grep -m1 -o 'RIP: 0010:[^ ]*' "$out/vm/console.log" | cut -d: -f3)," \
	     "$(sed -n 's/^\[ *\([0-9.]*\)\] Oops: int3.*/\1/p' "$out/vm/console.log" | head -n 1) s into its boot"
	exit 1
fi
[ -s "$out/vm/flips" ] || { echo "int3: the job did not finish; see $out/vm/console.log"; exit 2; }
echo "int3: $kver, $accel: $(cat "$out/vm/flips") flips in ${seconds}s, no oops"
