// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gpu.health: is a GPU fit to hand to a VM.  A card that fell off the bus
 * still shows its IDs in sysfs (the kernel's cache) while its config space
 * reads all ones; fatal AER errors since boot, on the GPU or counted by the
 * port above it, mean a link that failed once and may again under a guest's
 * load.  Its link and its reset are gpu.link's and gpu.reset's.
 */
#include <stdio.h>

#include "core/check_health.h"
#include "core/findings.h"
#include "core/model.h"

#define HINT_DEAD                                                                        \
	"a card that does not answer cannot be passed to a VM: power-cycle the host (a " \
	"warm reboot may not bring it back); reseat or replace it if it stays lost"
#define HINT_FATAL                                                                          \
	"read the kernel log (journalctl -k | grep -i aer), reseat the card or its riser, " \
	"and reboot before handing it to a VM: the counters count since boot"
#define HINT_NONFATAL                                                                   \
	"errors the link recovered from: read the kernel log (journalctl -k | grep -i " \
	"aer); a count that grows under load points at the riser or the slot"

/* A count of the GPU or of its port, whichever is larger, and who counted it. */
struct count {
	long long n; /* -1: neither exposes it */
	const char *by;
};

static struct count worst(const struct gp_dev *d, long long mine, const struct gp_dev *port,
			  long long its)
{
	if (port && its > mine)
		return (struct count){ its, port->bdf };
	return (struct count){ mine, d->bdf };
}

static const char *plural(long long n)
{
	return n == 1 ? "" : "s";
}

void gp_check_health(const struct gp_host *h, const struct gp_profile *p, int g,
		     struct gp_report *r)
{
	const struct gp_dev *d = &h->devs[g];
	const struct gp_dev *port = d->parent >= 0 ? &h->devs[d->parent] : NULL;
	struct count fatal = worst(d, d->aer_fatal, port, port ? port->aer_fatal : -1);
	struct count nonfatal = worst(d, d->aer_nonfatal, port, port ? port->aer_nonfatal : -1);
	struct count cor = worst(d, d->aer_cor, port, port ? port->aer_cor : -1);

	(void)p;
	if (d->config_dead)
		gp_report_add(
			r, GP_F_GPU_HEALTH, GP_FAIL, d->bdf, HINT_DEAD,
			"config space reads all ones (vendor ffff): the card does not answer");
	else if (fatal.n > 0)
		gp_report_add(r, GP_F_GPU_HEALTH, GP_FAIL, d->bdf, HINT_FATAL,
			      "%lld fatal AER error%s since boot, counted by %s", fatal.n,
			      plural(fatal.n), fatal.by);
	else if (nonfatal.n > 0)
		gp_report_add(r, GP_F_GPU_HEALTH, GP_WARN, d->bdf, HINT_NONFATAL,
			      "%lld non-fatal AER error%s since boot, counted by %s", nonfatal.n,
			      plural(nonfatal.n), nonfatal.by);
	else if (fatal.n < 0 && nonfatal.n < 0)
		gp_report_add(r, GP_F_GPU_HEALTH, GP_OK, d->bdf, NULL,
			      "config space answers; AER counters not exposed (no AER capability, "
			      "or a kernel without CONFIG_PCIEAER)");
	else
		gp_report_add(r, GP_F_GPU_HEALTH, GP_OK, d->bdf, NULL,
			      "config space answers; AER since boot: 0 fatal, 0 non-fatal, %lld "
			      "correctable",
			      cor.n < 0 ? 0 : cor.n);
}
