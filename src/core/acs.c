// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ACS Direct Translated P2P on a NIC's path to its GPU under one switch.  In
 * a VM the NIC's DMA carries guest addresses; with P2P Request Redirect on
 * the switch's downstream ports every request goes up to the root complex,
 * GPUDirect RDMA too, unless the NIC translated its addresses itself (ATS)
 * and the ports let translated requests through (Direct Translated P2P).
 * NVIDIA's "GPUDirect RDMA in a VM" and IBM's Vela papers write 0x5D to
 * those ports' ACS Control: the redirects stay on (untranslated P2P still
 * goes through the IOMMU), DT is added.  Only those ports: never a blanket
 * write to every bridge, never a bridge off such a path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/acs.h"
#include "core/topo.h"
#include "core/vm.h"
#include "shared/util.h"

#define MAX_PATH_BRIDGES 16

bool gp_acs_redirects_translated(const struct gp_dev *d)
{
	return d->pcie_type == GP_PCIE_DOWNSTREAM && d->has_acs && (d->acs_ctrl & GP_ACS_RR) &&
	       !(d->acs_ctrl & GP_ACS_DT);
}

bool gp_acs_settable(const struct gp_dev *d)
{
	return gp_acs_redirects_translated(d) && (d->acs_cap & GP_ACS_DT);
}

/* The recipe's bits the port implements (an absent feature's bit is hardwired to 0). */
uint16_t gp_acs_target(uint16_t cap, uint16_t ctrl)
{
	return (uint16_t)((ctrl & ~GP_ACS_FEATURES) | (GP_ACS_RECIPE & cap & GP_ACS_FEATURES));
}

static bool listed(const int *out, int n, int dev)
{
	int i;

	for (i = 0; i < n; i++)
		if (out[i] == dev)
			return true;
	return false;
}

int gp_acs_ports(const struct gp_host *h, const struct gp_profile *p, int *out, int max)
{
	struct gp_vm_layout *l;
	int i, k, n = 0;

	if (!p->has_nic || p->nic.mode != GP_NIC_PASSTHROUGH)
		return 0;
	l = gp_xcalloc(1, sizeof(*l));
	gp_vm_layout(h, p, l);
	for (i = 0; i < l->ndevs; i++) {
		int b[MAX_PATH_BRIDGES], nb, nic = l->devs[i].dev, gpu;

		if (!l->devs[i].nic || l->devs[i].rail < 0)
			continue;
		gpu = l->devs[l->devs[i].rail].dev;
		/* NCCL's default NCCL_NET_GDR_LEVEL, as nic.rail and nic.acs read it */
		if (gp_topo_classify(h, nic, gpu) > GP_PATH_PXB)
			continue;
		nb = gp_topo_path_bridges(h, nic, gpu, b, MAX_PATH_BRIDGES);
		for (k = 0; k < nb && n < max; k++)
			if (gp_acs_settable(&h->devs[b[k]]) && !listed(out, n, b[k]))
				out[n++] = b[k];
	}
	free(l);
	return n;
}

void gp_acs_file(const char *bdf, char *path, size_t len)
{
	snprintf(path, len, GP_ACS_DIR "/%s", bdf);
}

/* where: the port's sysfs directory, resolved; the script refuses a port found elsewhere */
void gp_acs_file_text(uint16_t vendor, uint16_t device, uint16_t bits, const char *where,
		      char *text, size_t len)
{
	snprintf(text, len, "0x%04x 0x%04x 0x%02x %s\n", vendor, device, bits & GP_ACS_FEATURES,
		 where);
}

int gp_acs_file_parse(const char *path, char bdf[GP_BDF_LEN])
{
	const char *name = path + strlen(GP_ACS_DIR "/");
	char back[GP_OUTPUT_LEN];

	if (strncmp(path, GP_ACS_DIR "/", strlen(GP_ACS_DIR "/")) || gp_parse_bdf(name, bdf))
		return -EINVAL;
	/* one spelling only: the kernel's, as the script's glob matches it */
	gp_acs_file(bdf, back, sizeof(back));
	return strcmp(back, path) ? -EINVAL : 0;
}

/*
 * The ACS capability found as the kernel's pci_find_ext_capability() finds
 * it: the list from 0x100, ID 0x000d, at most 480 hops (no loop hangs it);
 * bytes read one by one, so any host's byte order reads it.
 */
const char gp_acs_script[] =
	"#!/bin/sh\n"
	"# Written by gpuprov (acs.set); `gpuprov rollback` removes it.\n"
	"# Sets ACS Direct Translated P2P again on each switch port named in\n"
	"# /etc/gpuprov/acs.d/ (a file a port, named by its PCI address, holding the\n"
	"# port's vendor and device IDs, the ACS Control bits 0-6 to set and its\n"
	"# sysfs directory): the register is lost at every reset.  A port whose IDs\n"
	"# or place differ (renumbered buses, another card), or without an ACS\n"
	"# capability offering Direct Translated P2P, is left alone and said, and\n"
	"# the unit fails.\n"
	"byte() { od -An -tu1 -j \"$2\" -N\"$3\" \"$1\"; }\n"
	"rc=0\n"
	"for f in /etc/gpuprov/acs.d/????:??:??.?; do\n"
	"\t[ -f \"$f\" ] || continue\n"
	"\tbdf=${f##*/}\n"
	"\td=/sys/bus/pci/devices/$bdf\n"
	"\tread -r vendor device bits where <\"$f\"\n"
	"\tcase $bits in\n"
	"\t0x[0-7][0-9a-f]) ;;\n"
	"\t*)\n"
	"\t\techo \"gpuprov-acs: $f: not ACS control bits\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\t\t;;\n"
	"\tesac\n"
	"\tif [ \"$(cat \"$d/vendor\" 2>/dev/null) $(cat \"$d/device\" 2>/dev/null)\" != \\\n"
	"\t\t\"$vendor $device\" ] || [ -z \"$where\" ] ||\n"
	"\t\t[ \"$(readlink -f \"$d\")\" != \"$where\" ]; then\n"
	"\t\techo \"gpuprov-acs: $bdf: not the port acs.set set ($vendor $device at $where)\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\tpos=256 hops=0\n"
	"\twhile [ \"$pos\" -ge 256 ] && [ \"$hops\" -lt 480 ]; do\n"
	"\t\tset -- $(byte \"$d/config\" \"$pos\" 4)\n"
	"\t\t[ $# -eq 4 ] || break\n"
	"\t\t[ $(($1 | $2 << 8)) -eq 13 ] && break\n"
	"\t\tpos=$((($3 >> 4 | $4 << 4) & 4092)) hops=$((hops + 1))\n"
	"\tdone\n"
	"\tif [ \"$pos\" -lt 256 ] || [ \"$hops\" -ge 480 ] || [ $# -ne 4 ]; then\n"
	"\t\techo \"gpuprov-acs: $bdf: no ACS capability\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\tset -- $(byte \"$d/config\" $((pos + 4)) 4)\n"
	"\tif [ $# -ne 4 ] || [ $(($1 & 64)) -eq 0 ]; then\n"
	"\t\techo \"gpuprov-acs: $bdf: its ACS capability has no Direct Translated P2P\" >&2\n"
	"\t\trc=1\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\t# out of runtime D3hot: its resume writes the kernel's ACS policy back\n"
	"\t[ ! -w \"$d/power/control\" ] || echo on >\"$d/power/control\"\n"
	"\tnew=$(((($3 | $4 << 8) & 65408) | $bits))\n"
	"\tprintf \"\\\\$(printf %03o $((new & 255)))\\\\$(printf %03o $((new >> 8)))\" |\n"
	"\t\tdd of=\"$d/config\" bs=2 seek=$(((pos + 6) / 2)) count=1 conv=notrunc \\\n"
	"\t\t\tiflag=fullblock 2>/dev/null\n"
	"\tset -- $(byte \"$d/config\" $((pos + 6)) 2)\n"
	"\t[ $# -eq 2 ] || set -- 255 255\n"
	"\tgot=$(($1 | $2 << 8))\n"
	"\tprintf 'gpuprov-acs: %s: ACS control 0x%04x\\n' \"$bdf\" \"$got\"\n"
	"\tif [ $((got & 127)) -ne $(($bits)) ]; then\n"
	"\t\techo \"gpuprov-acs: $bdf: ACS control reads back $got, not $((new))\" >&2\n"
	"\t\trc=1\n"
	"\tfi\n"
	"done\n"
	"exit $rc\n";

/*
 * Before basic.target, which libvirtd and virtqemud follow (named too), so
 * that the VM starts with the ports set; the PCI devices are there since
 * the kernel enumerated them.
 */
const char gp_acs_unit[] = "# Written by gpuprov (acs.set); `gpuprov rollback` removes it.\n"
			   "[Unit]\n"
			   "Description=Set ACS Direct Translated P2P on the switch ports named "
			   "in /etc/gpuprov/acs.d\n"
			   "DefaultDependencies=no\n"
			   "Before=basic.target libvirtd.service virtqemud.service\n"
			   "ConditionDirectoryNotEmpty=/etc/gpuprov/acs.d\n"
			   "\n"
			   "[Service]\n"
			   "Type=oneshot\n"
			   "RemainAfterExit=yes\n"
			   "TimeoutStartSec=60\n"
			   "ExecStart=/bin/sh /etc/gpuprov/acs-set\n"
			   "\n"
			   "[Install]\n"
			   "WantedBy=basic.target\n";
