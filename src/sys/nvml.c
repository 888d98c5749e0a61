// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NVML adapter.  The few types and prototypes gpuprov needs are declared
 * here, checked against NVIDIA's nvml.h (API version 12): nvmlPciInfo_t,
 * nvmlBAR1Memory_t, nvmlFieldValue_t and the _v2/_v3 symbol names the
 * header maps the plain names to.  NVML's codes are turned into words and
 * negative errnos here, at the edge.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/util.h"
#include "sys/nvml.h"

typedef int nvml_ret;
typedef struct nvml_dev *nvml_dev;

struct nvml_pci { /* nvmlPciInfo_t */
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

struct nvml_bar1 { /* nvmlBAR1Memory_t */
	unsigned long long total, free, used;
};

struct nvml_field { /* nvmlFieldValue_t */
	unsigned field_id, scope_id;
	long long timestamp, latency_usec;
	int value_type, ret;
	union {
		double d;
		int si;
		unsigned ui;
		unsigned long ul;
		unsigned long long ull;
		long long sll;
		unsigned short us;
	} value;
};

/* nvmlGpuFabricInfo_t (v1) and nvmlGpuFabricInfo_v2_t (the V form's, with its version) */
struct nvml_fabric {
	unsigned char cluster_uuid[16];
	nvml_ret status;
	unsigned clique;
	unsigned char state;
};

struct nvml_fabric_v2 {
	unsigned version;
	unsigned char cluster_uuid[16];
	nvml_ret status;
	unsigned clique;
	unsigned char state;
	unsigned health_mask;
};

#define NVML_FABRIC_V2 \
	((unsigned)sizeof(struct nvml_fabric_v2) | 2u << 24) /* NVML_STRUCT_VERSION */

#define NVML_SUCCESS		    0
#define NVML_FI_NVLINK_SPEED_COMMON 90 /* MB/s, common to the active links */
#define NVML_VALUE_UINT		    0
#define NVML_VALUE_ULONG	    1
#define NVML_VALUE_ULLONG	    2

struct gp_nvml {
	void *dl;
	unsigned count;
	nvml_dev *devs;
	char driver[80];
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*get_count)(unsigned *);
	nvml_ret (*get_handle)(unsigned, nvml_dev *);
	nvml_ret (*get_pci)(nvml_dev, struct nvml_pci *);
	nvml_ret (*get_name)(nvml_dev, char *, unsigned);
	nvml_ret (*get_bar1)(nvml_dev, struct nvml_bar1 *);
	nvml_ret (*get_p2p)(nvml_dev, nvml_dev, int, int *);
	nvml_ret (*link_state)(nvml_dev, unsigned, int *);
	nvml_ret (*link_version)(nvml_dev, unsigned, unsigned *);
	nvml_ret (*link_remote)(nvml_dev, unsigned, struct nvml_pci *);
	/* optional: older drivers lack them */
	nvml_ret (*link_remote_type)(nvml_dev, unsigned, int *);
	nvml_ret (*max_gen)(nvml_dev, unsigned *);
	nvml_ret (*max_width)(nvml_dev, unsigned *);
	nvml_ret (*fields)(nvml_dev, int, struct nvml_field *);
	nvml_ret (*driver_version)(char *, unsigned);
	nvml_ret (*fabric_v)(nvml_dev, struct nvml_fabric_v2 *);
	nvml_ret (*fabric)(nvml_dev, struct nvml_fabric *);
};

static void *sym(void *dl, const char *name)
{
	return dlsym(dl, name);
}

#define NEED(fld, name) ((*(void **)&n->fld = sym(n->dl, name)) != NULL)
#define MAY(fld, name)	(*(void **)&n->fld = sym(n->dl, name))

static bool resolve(struct gp_nvml *n)
{
	MAY(link_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
	MAY(max_gen, "nvmlDeviceGetMaxPcieLinkGeneration");
	MAY(max_width, "nvmlDeviceGetMaxPcieLinkWidth");
	MAY(fields, "nvmlDeviceGetFieldValues");
	MAY(fabric_v, "nvmlDeviceGetGpuFabricInfoV");
	MAY(fabric, "nvmlDeviceGetGpuFabricInfo");
	MAY(driver_version, "nvmlSystemGetDriverVersion");
	if (!MAY(get_pci, "nvmlDeviceGetPciInfo_v3"))
		MAY(get_pci, "nvmlDeviceGetPciInfo_v2");
	return NEED(init, "nvmlInit_v2") && NEED(shutdown, "nvmlShutdown") &&
	       NEED(error_string, "nvmlErrorString") && NEED(get_count, "nvmlDeviceGetCount_v2") &&
	       NEED(get_handle, "nvmlDeviceGetHandleByIndex_v2") && n->get_pci &&
	       NEED(get_name, "nvmlDeviceGetName") &&
	       NEED(get_bar1, "nvmlDeviceGetBAR1MemoryInfo") &&
	       NEED(get_p2p, "nvmlDeviceGetP2PStatus") &&
	       NEED(link_state, "nvmlDeviceGetNvLinkState") &&
	       NEED(link_version, "nvmlDeviceGetNvLinkVersion") &&
	       NEED(link_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
}

/* why is already filled in */
static int open_fail(struct gp_nvml *n, int rc)
{
	if (n->dl)
		dlclose(n->dl);
	free(n->devs);
	free(n);
	return rc;
}

static int handles(struct gp_nvml *n, char *why, size_t len)
{
	unsigned i;
	nvml_ret r = n->get_count(&n->count);

	if (r != NVML_SUCCESS) {
		snprintf(why, len, "NVML cannot count the GPUs: %s", n->error_string(r));
		return -EIO;
	}
	n->devs = gp_xcalloc(n->count ? n->count : 1, sizeof(*n->devs));
	for (i = 0; i < n->count; i++) {
		r = n->get_handle(i, &n->devs[i]);
		if (r != NVML_SUCCESS) {
			snprintf(why, len, "NVML cannot open GPU %u: %s", i, n->error_string(r));
			return -EIO;
		}
	}
	return 0;
}

int gp_nvml_open(struct gp_nvml **out, char *why, size_t len)
{
	struct gp_nvml *n = gp_xcalloc(1, sizeof(*n));
	nvml_ret r;

	*out = NULL;
	n->dl = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->dl) {
		snprintf(why, len, "NVML is not installed (no libnvidia-ml.so.1)");
		return open_fail(n, -ENOENT);
	}
	if (!resolve(n)) {
		snprintf(why, len, "libnvidia-ml.so.1 lacks a function gpuprov needs (too old)");
		return open_fail(n, -ENOSYS);
	}
	r = n->init();
	if (r != NVML_SUCCESS) {
		snprintf(why, len, "NVML could not start: %s (is the nvidia driver loaded?)",
			 n->error_string(r));
		return open_fail(n, -ENODEV);
	}
	if (handles(n, why, len)) {
		n->shutdown();
		return open_fail(n, -EIO);
	}
	if (n->driver_version && n->driver_version(n->driver, sizeof(n->driver)) != NVML_SUCCESS)
		n->driver[0] = 0;
	*out = n;
	return 0;
}

void gp_nvml_close(struct gp_nvml *n)
{
	if (!n)
		return;
	n->shutdown();
	dlclose(n->dl);
	free(n->devs);
	free(n);
}

int gp_nvml_count(const struct gp_nvml *n)
{
	return (int)n->count;
}

const char *gp_nvml_driver(const struct gp_nvml *n)
{
	return n->driver;
}

/* NVML's own per-link rate (MB/s) where it gives one: exact, whatever the generation. */
static double field_rate(struct gp_nvml *n, nvml_dev d)
{
	struct nvml_field f;

	if (!n->fields)
		return 0;
	memset(&f, 0, sizeof(f));
	f.field_id = NVML_FI_NVLINK_SPEED_COMMON;
	if (n->fields(d, 1, &f) != NVML_SUCCESS || f.ret != NVML_SUCCESS)
		return 0;
	switch (f.value_type) {
	case NVML_VALUE_UINT:
		return f.value.ui / 1000.0;
	case NVML_VALUE_ULONG:
		return (double)f.value.ul / 1000.0;
	case NVML_VALUE_ULLONG:
		return (double)f.value.ull / 1000.0;
	default:
		return 0;
	}
}

static int remote_type(struct gp_nvml *n, nvml_dev d, unsigned link)
{
	int t;

	if (!n->link_remote_type || n->link_remote_type(d, link, &t) != NVML_SUCCESS)
		return GP_NV_REMOTE_UNKNOWN;
	return t;
}

/* One link; false once NVML says the GPU has no link of that number. */
static bool read_nv_link(struct gp_nvml *n, nvml_dev d, unsigned i, struct gp_nv_gpu *g)
{
	struct gp_nv_link *l = &g->links[i];
	struct nvml_pci pci;
	unsigned ver;
	int state;

	if (n->link_state(d, i, &state) != NVML_SUCCESS)
		return false;
	l->up = state == 1; /* NVML_FEATURE_ENABLED */
	l->remote_type = GP_NV_REMOTE_UNKNOWN;
	if (!l->up)
		return true;
	if (!g->version && n->link_version(d, i, &ver) == NVML_SUCCESS)
		g->version = ver;
	memset(&pci, 0, sizeof(pci));
	if (n->link_remote(d, i, &pci) == NVML_SUCCESS) {
		pci.bus_id[sizeof(pci.bus_id) - 1] = 0;
		if (gp_nv_bdf(pci.bus_id, l->remote))
			l->remote[0] = 0;
	}
	l->remote_type = remote_type(n, d, i);
	return true;
}

/*
 * The GPU's NVLink fabric registration (HGX boards: Fabric Manager's work),
 * through the V form where the driver has it, else the first form; a GPU
 * without a fabric (NOT_SUPPORTED) says nothing.
 */
static void read_fabric(struct gp_nvml *n, nvml_dev d, struct gp_nv_gpu *g)
{
	struct nvml_fabric_v2 v2 = { .version = NVML_FABRIC_V2 };
	struct nvml_fabric v1;

	memset(&v1, 0, sizeof(v1));
	if (n->fabric_v && n->fabric_v(d, &v2) == NVML_SUCCESS) {
		g->fabric_read = true;
		g->fabric_state = v2.state;
		g->fabric_status = v2.status;
		g->fabric_clique = v2.clique;
	} else if (n->fabric && n->fabric(d, &v1) == NVML_SUCCESS) {
		g->fabric_read = true;
		g->fabric_state = v1.state;
		g->fabric_status = v1.status;
		g->fabric_clique = v1.clique;
	}
}

int gp_nvml_gpu(struct gp_nvml *n, int i, struct gp_nv_gpu *g)
{
	nvml_dev d = n->devs[i];
	struct nvml_pci pci;
	struct nvml_bar1 bar1;
	unsigned v, l;

	memset(g, 0, sizeof(*g));
	memset(&pci, 0, sizeof(pci));
	if (n->get_pci(d, &pci) != NVML_SUCCESS)
		return -EIO;
	pci.bus_id[sizeof(pci.bus_id) - 1] = 0;
	if (gp_nv_bdf(pci.bus_id, g->bdf))
		return -EIO;
	if (n->get_name(d, g->name, sizeof(g->name)) != NVML_SUCCESS)
		g->name[0] = 0;
	g->name[sizeof(g->name) - 1] = 0;
	if (n->get_bar1(d, &bar1) == NVML_SUCCESS)
		g->bar1 = bar1.total;
	if (n->max_gen && n->max_gen(d, &v) == NVML_SUCCESS)
		g->pcie_gen = (int)v;
	if (n->max_width && n->max_width(d, &v) == NVML_SUCCESS)
		g->pcie_width = (int)v;
	for (l = 0; l < GP_NV_MAX_LINKS && read_nv_link(n, d, l, g); l++)
		g->nlinks = (int)l + 1;
	if (gp_nv_links_up(g))
		g->link_gbps = field_rate(n, d);
	read_fabric(n, d, g);
	return 0;
}

/*
 * Where NVML does not say what is at a link's far end (older drivers lack
 * nvmlDeviceGetNvLinkRemoteDeviceType), it is a GPU when NVML knows a GPU
 * there, else taken for a switch.
 */
static void guess_remote_types(struct gp_nv_view *v)
{
	int i, l;

	for (i = 0; i < v->n; i++)
		for (l = 0; l < v->gpus[i].nlinks; l++) {
			struct gp_nv_link *k = &v->gpus[i].links[l];

			if (!k->up || k->remote_type != GP_NV_REMOTE_UNKNOWN || !k->remote[0])
				continue;
			k->remote_type = gp_nv_find(v, k->remote) >= 0 ? GP_NV_REMOTE_GPU
								       : GP_NV_REMOTE_SWITCH;
		}
}

int gp_nvml_fill(struct gp_nvml *n, struct gp_nv_view *v)
{
	int i;

	memset(v, 0, sizeof(*v));
	v->gpus = gp_xcalloc((size_t)gp_nvml_count(n) + 1, sizeof(*v->gpus));
	for (i = 0; i < gp_nvml_count(n); i++)
		if (gp_nvml_gpu(n, i, &v->gpus[v->n]))
			return -EIO;
		else
			v->n++;
	v->source = GP_NV_NVML;
	guess_remote_types(v);
	return 0;
}

void gp_nvml_view(struct gp_nv_view *v)
{
	struct gp_nvml *n;
	char why[sizeof(v->why)];

	memset(v, 0, sizeof(*v));
	if (gp_nvml_open(&n, why, sizeof(why))) {
		memcpy(v->why, why, sizeof(why));
		return;
	}
	if (gp_nvml_fill(n, v)) {
		gp_nv_view_release(v);
		memset(v, 0, sizeof(*v));
		snprintf(v->why, sizeof(v->why), "NVML cannot read a GPU's PCI address");
	}
	gp_nvml_close(n);
}

void gp_nvml_p2p(struct gp_nvml *n, int i, int j, int status[GP_P2P_NCAPS])
{
	static const int index[GP_P2P_NCAPS] = { 0, 1, 2, 3 }; /* READ WRITE NVLINK ATOMICS */
	int k, s;

	for (k = 0; k < GP_P2P_NCAPS; k++)
		status[k] =
			n->get_p2p(n->devs[i], n->devs[j], index[k], &s) == NVML_SUCCESS ? s : -1;
}

const char *gp_nvml_p2p_name(int status)
{
	static const char *const names[] = {
		"ok",
		"chipset not supported",
		"GPU not supported",
		"topology not supported",
		"disabled by registry key",
		"not supported",
		"unknown",
	};

	if (status < 0)
		return "not answered";
	return status < (int)(sizeof(names) / sizeof(names[0])) ? names[status] : "unknown";
}
