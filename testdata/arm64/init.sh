#!/bin/sh
# init.sh - PID 1 of the arm64 guest (make.sh installs it as
# /sbin/pd-init and boots the kernel with init=/sbin/pd-init): mount what
# perf needs, mount the host's share on /mnt, run its guest.sh, power off.
# No systemd: under emulation it would cost minutes per boot.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -o remount,rw /
hostname pdtest-arm64
modprobe 9pnet_virtio
modprobe 9p
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 pdshare /mnt; then
	mkdir -p /mnt/out
	echo "pd-init: running guest.sh"
	sh /mnt/src/guest.sh >/mnt/out/guest.log 2>&1
	echo "pd-init: guest.sh exit $?"
	sync
	umount /mnt
else
	echo "pd-init: cannot mount the share"
fi
sync
mount -o remount,ro /
echo o >/proc/sysrq-trigger
sleep 10
