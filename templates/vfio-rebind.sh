#!/bin/sh
# Written by gpuprov (persist.vfio); `gpuprov rollback` removes it.
# Hands each PCI device named in /etc/gpuprov/override.d/ to the driver its
# file names, by PCI address: driver_override, unbind, drivers_probe (the
# driverctl model).  Run at boot by gpuprov-vfio.service, before basic.target.
for f in /etc/gpuprov/override.d/*; do
	[ -f "$f" ] || continue
	dev=${f##*/}
	drv=$(cat "$f")
	p=/sys/bus/pci/devices/$dev
	[ -e "$p" ] || { echo "gpuprov-vfio: $dev: no such device" >&2; continue; }
	echo "$drv" >"$p/driver_override"
	cur=$(readlink "$p/driver" 2>/dev/null)
	[ "${cur##*/}" = "$drv" ] && continue
	[ -n "$cur" ] && echo "$dev" >"$p/driver/unbind"
	echo "$dev" >/sys/bus/pci/drivers_probe
done
exit 0
