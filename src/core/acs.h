/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * acs.c: ACS Direct Translated P2P on the switch ports between a passed NIC
 * and the GPU it serves.  Which ports (the ones nic.acs warns about and
 * acs.set sets), the value each gets, and the boot unit that sets it again
 * at every boot (the ACS Control register is lost at reset).  Pure; the
 * actuator is act/acs.c.
 */
#ifndef GP_ACS_H
#define GP_ACS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/*
 * The ACS Control register's low seven bits (PCIe base spec 7.7.8.3; linux
 * include/uapi/linux/pci_regs.h PCI_ACS_SV .. PCI_ACS_DT) control the seven
 * features whose presence the ACS Capability register's same bits say.
 * NVIDIA's and IBM's GPUDirect RDMA recipe, 0x5D: Source Validation, P2P
 * Request Redirect, P2P Completion Redirect and Upstream Forwarding kept,
 * Direct Translated P2P added; Translation Blocking and P2P Egress Control
 * off.  Bits 7 and up (I/O request blocking, ...) are left as they are.
 */
#define GP_ACS_FEATURES 0x007f
#define GP_ACS_RECIPE	(GP_ACS_SV | GP_ACS_RR | GP_ACS_CR | GP_ACS_UF | GP_ACS_DT)
/* The ACS Control register: at the ACS extended capability + 6. */
#define GP_ACS_CTRL_OFF 6

/* A switch downstream port whose ACS redirects P2P requests without Direct Translated P2P. */
bool gp_acs_redirects_translated(const struct gp_dev *d);
/* Whether acs.set can set it: its ACS capability implements Direct Translated P2P. */
bool gp_acs_settable(const struct gp_dev *d);
/* The control value acs.set writes over ctrl, for a port whose capability is cap. */
uint16_t gp_acs_target(uint16_t cap, uint16_t ctrl);
/*
 * The ports acs.set sets, as indexes in h->devs, each once, in the order of
 * the NICs: [nic] mode = passthrough, each passed NIC and the GPU it serves
 * within NCCL's default GPUDirect RDMA reach (PIX, PXB: one switch), the
 * downstream ports on their path that redirect translated P2P and can take
 * Direct Translated P2P.  Never another bridge.  Returns how many.
 */
int gp_acs_ports(const struct gp_host *h, const struct gp_profile *p, int *out, int max);

/* The boot unit's files: it sets each acs.d file's bits again before libvirt. */
#define GP_ACS_DIR	"/etc/gpuprov/acs.d"
#define GP_ACS_SCRIPT	"/etc/gpuprov/acs-set"
#define GP_ACS_UNIT	"/etc/systemd/system/gpuprov-acs.service"
#define GP_ACS_WANTS	"/etc/systemd/system/basic.target.wants/gpuprov-acs.service"
#define GP_ACS_WANTS_TO "../gpuprov-acs.service"
extern const char gp_acs_script[];
extern const char gp_acs_unit[];
/* A port's file, GP_ACS_DIR/BDF. */
void gp_acs_file(const char *bdf, char *path, size_t len);
/* Its text: "0xVVVV 0xDDDD 0xBB": the port's vendor and device, the low bits to set. */
void gp_acs_file_text(uint16_t vendor, uint16_t device, uint16_t bits, const char *where,
		      char *text, size_t len);
/* The port a file's path names (a clean path, as the journal checks it): 0, or -EINVAL. */
int gp_acs_file_parse(const char *path, char bdf[GP_BDF_LEN]);

#endif
