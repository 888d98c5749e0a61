// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sriov.vfs's boot unit.  The kernel forgets a port's virtual functions at
 * every boot; the usual fix is a unit that writes sriov_numvfs once the
 * port's driver has it (Documentation/PCI/pci-iov-howto.rst: the write
 * calls the driver's sriov_configure, so the driver must be bound; a
 * nonzero count is changed only through 0).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/sriov.h"
#include "shared/util.h"

void gp_sriov_file(const char *bdf, char *path, size_t len)
{
	snprintf(path, len, GP_SRIOV_DIR "/%s", bdf);
}

/* where: the port's sysfs directory, resolved; the script refuses a port found elsewhere */
void gp_sriov_file_text(uint16_t vendor, uint16_t device, long count, const char *where, char *text,
			size_t len)
{
	snprintf(text, len, "0x%04x 0x%04x %ld %s\n", vendor, device, count, where);
}

int gp_sriov_file_parse(const char *path, char bdf[GP_BDF_LEN])
{
	char back[GP_OUTPUT_LEN];

	if (strncmp(path, GP_SRIOV_DIR "/", strlen(GP_SRIOV_DIR "/")) ||
	    gp_parse_bdf(path + strlen(GP_SRIOV_DIR "/"), bdf))
		return -EINVAL;
	/* one spelling only: the kernel's, as the script's glob matches it */
	gp_sriov_file(bdf, back, sizeof(back));
	return strcmp(back, path) ? -EINVAL : 0;
}

/*
 * The port's driver may still be probing when the unit starts (udev loads
 * it): the script waits for the driver link, up to 60 s a port.
 */
const char gp_sriov_script[] =
	"#!/bin/sh\n"
	"# Written by gpuprov (sriov.vfs); `gpuprov rollback` removes it.\n"
	"# Makes the virtual functions each file in /etc/gpuprov/sriov.d/ asks for\n"
	"# (a file a port, named by its PCI address, holding the port's vendor and\n"
	"# device IDs, its count of VFs and its sysfs directory), once the port's\n"
	"# driver has it, from 0 only.  A port whose IDs or place differ\n"
	"# (renumbered buses, another card), or that has another nonzero count, is\n"
	"# left alone and said, and the unit fails.  The drivers get 60 s in all.\n"
	"rc=0 t=0\n"
	"for f in /etc/gpuprov/sriov.d/????:??:??.?; do\n"
	"\t[ -f \"$f\" ] || continue\n"
	"\tbdf=${f##*/}\n"
	"\td=/sys/bus/pci/devices/$bdf\n"
	"\tread -r vendor device want where <\"$f\"\n"
	"\tcase $want in\n"
	"\t[1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;;\n"
	"\t*)\n"
	"\t\techo \"gpuprov-sriov: $f: not a count\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\t\t;;\n"
	"\tesac\n"
	"\tif [ \"$(cat \"$d/vendor\" 2>/dev/null) $(cat \"$d/device\" 2>/dev/null)\" != \\\n"
	"\t\t\"$vendor $device\" ] || [ -z \"$where\" ] ||\n"
	"\t\t[ \"$(readlink -f \"$d\")\" != \"$where\" ]; then\n"
	"\t\techo \"gpuprov-sriov: $bdf: not the port sriov.vfs set ($vendor $device at $where)\" "
	">&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\twhile [ ! -e \"$d/driver\" ] && [ \"$t\" -lt 60 ]; do\n"
	"\t\tsleep 1\n"
	"\t\tt=$((t + 1))\n"
	"\tdone\n"
	"\thave=$(cat \"$d/sriov_numvfs\" 2>/dev/null)\n"
	"\tif [ \"$have\" != \"$want\" ] && [ \"$have\" != 0 ]; then\n"
	"\t\techo \"gpuprov-sriov: $bdf: has '$have' virtual functions: left alone\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\t[ \"$have\" = \"$want\" ] || echo \"$want\" >\"$d/sriov_numvfs\"\n"
	"\tgot=$(cat \"$d/sriov_numvfs\" 2>/dev/null)\n"
	"\techo \"gpuprov-sriov: $bdf: $got virtual functions (asked for $want)\"\n"
	"\tif [ \"$got\" != \"$want\" ]; then\n"
	"\t\techo \"gpuprov-sriov: $bdf: sriov_numvfs reads '$got', not $want\" >&2\n"
	"\t\trc=1\n"
	"\tfi\n"
	"done\n"
	"exit $rc\n";

/*
 * After udev's coldplug, which loads the ports' drivers; before
 * basic.target, libvirtd.service and virtqemud.service, so that the VFs are
 * there when the VM starts.
 */
const char gp_sriov_unit[] = "# Written by gpuprov (sriov.vfs); `gpuprov rollback` removes it.\n"
			     "[Unit]\n"
			     "Description=Make the SR-IOV virtual functions named in "
			     "/etc/gpuprov/sriov.d\n"
			     "DefaultDependencies=no\n"
			     "Wants=systemd-udev-trigger.service\n"
			     "After=systemd-udev-trigger.service systemd-modules-load.service\n"
			     "Before=basic.target libvirtd.service virtqemud.service\n"
			     "ConditionDirectoryNotEmpty=/etc/gpuprov/sriov.d\n"
			     "\n"
			     "[Service]\n"
			     "Type=oneshot\n"
			     "RemainAfterExit=yes\n"
			     "TimeoutStartSec=180\n"
			     "ExecStart=/bin/sh /etc/gpuprov/sriov-vfs\n"
			     "\n"
			     "[Install]\n"
			     "WantedBy=basic.target\n";
