// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guest's side of [nic] mode = passthrough or vf, as files to hand it:
 *
 *   network-config  cloud-init's network-config version 2 (netplan's YAML):
 *                   each passed port (or VF: the MAC libvirt sets on it)
 *                   matched by its MAC and named rdmaN,
 *                   [nic] mtu and addresses, and the bond [nic] guest_bond
 *                   asks for, with the host bond's LACP rate and hash policy
 *   nccl.conf       NCCL's KEY=VALUE file (/etc/nccl.conf)
 *   nccl-topo.xml   nccl-topo's file, which nccl.conf names
 *
 * Every value is a checked word, number or address: the YAML needs no
 * quoting beyond the MACs', which are quoted as netplan's examples quote them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guestcfg.h"
#include "core/hostq.h"
#include "core/nccl_topo.h"
#include "core/topo.h"
#include "core/vm.h"

const char *const gp_guest_file_names[GP_GUEST_FILES] = { "network-config", "nccl.conf",
							  "nccl-topo.xml" };

/* "X.xml" -> "X.guest/network-config", the longest of the names above */
_Static_assert(GP_VM_OUTPUT_MAX - 4 + sizeof(".guest/network-config") <= GP_OUTPUT_LEN,
	       "the guest's files' paths fit");

void gp_guest_dir(const char *vm_output, char *out, size_t len)
{
	size_t n = strlen(vm_output);

	if (n > 4 && !strcmp(vm_output + n - 4, ".xml"))
		n -= 4;
	snprintf(out, len, "%.*s.guest", (int)n, vm_output);
}

/* "X.guest/NAME", NAME one of guest-config's, for an output "X.xml" the rule accepts. */
bool gp_guest_path_ok(const char *path)
{
	static const char suffix[] = ".guest";
	const char *slash = strrchr(path, '/'), *why;
	char out[GP_OUTPUT_LEN];
	size_t n, s = sizeof(suffix) - 1;
	int i;

	if (!slash)
		return false;
	for (i = 0; i < GP_GUEST_FILES; i++)
		if (!strcmp(slash + 1, gp_guest_file_names[i]))
			break;
	n = (size_t)(slash - path);
	if (i == GP_GUEST_FILES || n <= s || strncmp(slash - s, suffix, s) ||
	    n - s + 4 >= sizeof(out))
		return false;
	snprintf(out, sizeof(out), "%.*s.xml", (int)(n - s), path);
	return !gp_vm_output_check(out, &why);
}

/* A MAC as sysfs prints it: six lower-case hex pairs; anything else is refused. */
static bool mac_ok(const char *m)
{
	int i;

	if (strlen(m) != 17)
		return false;
	for (i = 0; i < 17; i++)
		if (i % 3 == 2 ? m[i] != ':' : !strchr("0123456789abcdef", m[i]))
			return false;
	return true;
}

/* The MAC of each passed port, in layout order; -EINVAL when one is not known. */
static int port_macs(const struct gp_host *h, const struct gp_profile *p,
		     const struct gp_vm_layout *l, const char *macs[GP_VM_MAX_DEVS], int *n)
{
	int i;
	size_t k;

	*n = 0;
	for (i = 0; i < l->ndevs; i++) {
		const struct gp_dev *d = &h->devs[l->devs[i].dev];
		const char *mac = NULL;

		if (!l->devs[i].nic)
			continue;
		if (l->devs[i].vf >= 0) { /* libvirt sets the VF's: core/vfs.c */
			macs[(*n)++] = l->devs[i].mac;
			continue;
		}
		for (k = 0; k < h->nifaces; k++)
			if (!strcmp(h->ifaces[k].bdf, d->bdf))
				mac = h->ifaces[k].mac;
		if (!mac || !mac_ok(mac)) {
			gp_err("%s: %s: the guest's port is matched by its MAC, which the host "
			       "shows only while its own driver holds the port (run guest-config "
			       "before apply binds it to vfio-pci)",
			       d->bdf, mac ? "the host's MAC is malformed" : "no interface");
			return -EINVAL;
		}
		macs[(*n)++] = mac;
	}
	if (!*n && p->nic.mode == GP_NIC_VF) {
		gp_err("no virtual function of a [nic] match port can be placed (the plan says "
		       "why)");
		return -EINVAL;
	}
	if (!*n) {
		gp_err("no network function of this host matches [nic] match");
		return -EINVAL;
	}
	return 0;
}

static void addresses(FILE *f, const struct gp_profile *p, int first, int n, const char *ind)
{
	int i;

	if (first >= p->nic.naddresses)
		return;
	fprintf(f, "%saddresses: [", ind);
	for (i = first; i < first + n && i < p->nic.naddresses; i++)
		fprintf(f, "%s%s", i > first ? ", " : "", p->nic.addresses[i]);
	fputs("]\n", f);
}

static int network(const struct gp_profile *p, const char *const *macs, int n, char **out)
{
	static const char *const modes[] = { NULL, "802.3ad", "active-backup" };
	bool bond = p->nic.guest_bond != GP_GBOND_NONE;
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	int i;

	if (!f)
		return -ENOMEM;
	fputs("# gpuprov guest-config: the guest's RoCE ports (cloud-init network-config v2)\n"
	      "version: 2\nethernets:\n",
	      f);
	for (i = 0; i < n; i++) {
		fprintf(f,
			"  rdma%d:\n    match:\n      macaddress: \"%s\"\n    set-name: rdma%d\n",
			i, macs[i], i);
		if (p->nic.mtu)
			fprintf(f, "    mtu: %u\n", p->nic.mtu);
		if (!bond)
			addresses(f, p, i, 1, "    ");
	}
	if (bond) {
		fputs("bonds:\n  bond0:\n    interfaces: [", f);
		for (i = 0; i < n; i++)
			fprintf(f, "%srdma%d", i ? ", " : "", i);
		fputs("]\n", f);
		if (p->nic.mtu)
			fprintf(f, "    mtu: %u\n", p->nic.mtu);
		addresses(f, p, 0, 1, "    ");
		fprintf(f, "    parameters:\n      mode: %s\n      mii-monitor-interval: %u\n",
			modes[p->nic.guest_bond], p->bond.miimon);
		if (p->nic.guest_bond == GP_GBOND_LACP)
			fprintf(f, "      lacp-rate: %s\n      transmit-hash-policy: %s\n",
				p->bond.lacp_rate, p->bond.xmit_hash_policy);
	}
	return fclose(f) ? -ENOMEM : 0;
}

/* The farthest pair of the VM's GPUs, as topo classes it. */
static enum gp_path worst_gpu_pair(const struct gp_host *h, const struct gp_vm_layout *l)
{
	enum gp_path worst = GP_PATH_X;
	int a, b;

	for (a = 0; a < l->ndevs; a++)
		for (b = a + 1; b < l->ndevs; b++) {
			enum gp_path c;

			if (!l->devs[a].gpu || !l->devs[b].gpu)
				continue;
			c = gp_topo_classify(h, l->devs[a].dev, l->devs[b].dev);
			if (c > worst)
				worst = c;
		}
	return worst;
}

static bool all_mlx5(const struct gp_host *h, const struct gp_vm_layout *l)
{
	int i;

	for (i = 0; i < l->ndevs; i++)
		if (l->devs[i].nic && h->devs[l->devs[i].dev].vendor != 0x15b3)
			return false;
	return true;
}

static int nccl(const struct gp_host *h, const struct gp_profile *p, const struct gp_vm_layout *l,
		char **out)
{
	bool bond = p->nic.guest_bond != GP_GBOND_NONE;
	enum gp_path worst = worst_gpu_pair(h, l);
	size_t len = 0;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return -ENOMEM;
	fputs("# gpuprov guest-config: NCCL's settings for the guest (/etc/nccl.conf)\n", f);
	if (all_mlx5(h, l))
		fputs("NCCL_IB_HCA=mlx5\n", f);
	if (p->nic.naddresses && !strchr(p->nic.addresses[0], ':'))
		fputs("NCCL_IB_GID_INDEX=3\n", f);
	/* a prefix, as NCCL matches it: rdma0, rdma1, ... or the bond */
	if (p->nic.naddresses)
		fprintf(f, "NCCL_SOCKET_IFNAME=%s\n", bond ? "bond0" : "rdma");
	fputs("NCCL_TOPO_FILE=" GP_GUEST_TOPO_PATH "\n", f);
	if (bond)
		fputs("NCCL_IB_QPS_PER_CONNECTION=2\n", f);
	if (!strcmp(h->cpu_vendor, "GenuineIntel") && worst > GP_PATH_PXB && p->p2p != GP_P2P_OFF)
		fprintf(f, "NCCL_P2P_LEVEL=%s\n", worst == GP_PATH_SYS ? "SYS" : "PHB");
	return fclose(f) ? -ENOMEM : 0;
}

int gp_guest_config(const struct gp_host *h, const struct gp_profile *p, char *out[GP_GUEST_FILES])
{
	const char *macs[GP_VM_MAX_DEVS];
	struct gp_vm_layout l;
	int n, rc;

	memset(out, 0, GP_GUEST_FILES * sizeof(*out));
	if (!gp_nic_to_vm(p)) {
		gp_err("guest-config needs [nic] mode = passthrough or vf");
		return -EINVAL;
	}
	gp_vm_layout(h, p, &l);
	rc = port_macs(h, p, &l, macs, &n);
	if (!rc && p->nic.guest_bond != GP_GBOND_NONE && n < 2) {
		gp_err("[nic] guest_bond needs two ports; this host has %d", n);
		rc = -EINVAL;
	}
	if (!rc && !p->nic.guest_bond && p->nic.naddresses > n) {
		gp_err("[nic] addresses names %d addresses for %d ports", p->nic.naddresses, n);
		rc = -EINVAL;
	}
	if (!rc)
		rc = network(p, macs, n, &out[GP_GUEST_NETWORK]);
	if (!rc)
		rc = nccl(h, p, &l, &out[GP_GUEST_NCCL]);
	if (!rc)
		rc = gp_nccl_topo_build(h, p, false, &out[GP_GUEST_TOPO]);
	if (rc)
		gp_guest_config_release(out);
	return rc;
}

void gp_guest_config_release(char *out[GP_GUEST_FILES])
{
	int i;

	for (i = 0; i < GP_GUEST_FILES; i++) {
		free(out[i]);
		out[i] = NULL;
	}
}
