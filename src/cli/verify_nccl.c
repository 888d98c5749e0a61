// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify's all-reduce as NCCL tells it: see verify_nccl.h.  NCCL writes
 * the two files from inside this process, but what it writes comes from
 * the guest (host names, paths, what a plugin prints): read through the
 * one safe reader, bounded, and escaped on the way out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/log.h"
#include "shared/escape.h"
#include "shared/rootfs.h"
#include "shared/util.h"
#include "cli/out.h"
#include "cli/verify_nccl.h"

/*
 * TMPDIR when it is an absolute path NCCL takes as it is (a '%' it would
 * expand) to a directory nobody else can swap our directory out of: NCCL
 * opens its files there as root, following links.  Owned by root or by us,
 * and writable by no one else unless sticky (as /tmp).  Else /tmp.
 */
static const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");
	struct stat st;

	if (!t || t[0] != '/' || strchr(t, '%') || strlen(t) >= 150 || lstat(t, &st) ||
	    !S_ISDIR(st.st_mode) || (st.st_uid && st.st_uid != geteuid()) ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)))
		return "/tmp";
	return t;
}

/* NCCL has read them: no child of verify's, nor a later NCCL call, inherits them. */
static void capture_unset(void)
{
	unsetenv("NCCL_DEBUG");
	unsetenv("NCCL_DEBUG_SUBSYS");
	unsetenv("NCCL_DEBUG_FILE");
	unsetenv("NCCL_TOPO_DUMP_FILE");
}

int gp_nccl_capture_begin(struct gp_nccl_capture *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "%s/gpuprov-nccl.XXXXXX", tmp_dir());
	if (!mkdtemp(c->dir)) {
		int rc = -errno;

		gp_warn("cannot make a directory for NCCL's debug output in %s: %s", tmp_dir(),
			strerror(-rc));
		c->dir[0] = '\0';
		return rc;
	}
	snprintf(c->log, sizeof(c->log), "%s/debug.log", c->dir);
	snprintf(c->dump, sizeof(c->dump), "%s/topo-dump.xml", c->dir);
	/* NCCL reads these once, at its first call; the file keeps its lines off stdout */
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("NCCL_DEBUG_SUBSYS", "INIT,ENV,GRAPH", 1);
	setenv("NCCL_DEBUG_FILE", c->log, 1);
	setenv("NCCL_TOPO_DUMP_FILE", c->dump, 1);
	return 0;
}

/* A file's text, "" when absent; then gone.  The length, or a negative errno. */
static ssize_t take(const char *path, char **text)
{
	ssize_t n = gp_root_slurp(AT_FDCWD, path, GP_READ_MAX, text);

	if (n < 0)
		*text = NULL;
	if (unlink(path) && errno != ENOENT)
		gp_warn("cannot remove %s: %s", gp_tv(path), strerror(errno));
	return n;
}

struct gp_nccl_explain *gp_nccl_capture_end(struct gp_nccl_capture *c, int cuda_p2p, char *why,
					    size_t len)
{
	struct gp_nccl_explain *x;
	char *log, *dump;
	ssize_t nlog, ndump;

	why[0] = '\0';
	capture_unset();
	if (!c->dir[0]) {
		snprintf(why, len, "NCCL's debug output was not captured");
		return NULL;
	}
	nlog = take(c->log, &log);
	ndump = take(c->dump, &dump);
	if (rmdir(c->dir))
		gp_warn("cannot remove %s: %s", gp_tv(c->dir), strerror(errno));
	x = NULL;
	if (nlog < 0) {
		snprintf(why, len, "NCCL wrote no debug output (%s)", gp_root_strerror((int)nlog));
	} else {
		x = gp_xcalloc(1, sizeof(*x));
		gp_nx_init(x);
		gp_nx_log(x, log, (size_t)nlog);
		if (ndump > 0)
			gp_nx_dump(x, dump, (size_t)ndump);
		gp_nx_finish(x, cuda_p2p);
	}
	free(log);
	free(dump);
	return x;
}

/* ---- text ---- */

static void pairs_text(const struct gp_nccl_explain *x)
{
	char ranks[24], gpus[40];
	int i;

	if (!x->npairs)
		return;
	printf("  %-5s %-26s %-23s %-4s %-5s %s\n", "RANKS", "GPUS", "TRANSPORT", "PATH", "LEVEL",
	       "CHANNELS");
	for (i = 0; i < x->npairs; i++) {
		const struct gp_nx_pair *p = &x->pairs[i];

		snprintf(ranks, sizeof(ranks), "%d->%d", p->a, p->b);
		snprintf(gpus, sizeof(gpus), "%s->%s",
			 gp_nx_rank_bdf(x, p->a)[0] ? gp_nx_rank_bdf(x, p->a) : "?",
			 gp_nx_rank_bdf(x, p->b)[0] ? gp_nx_rank_bdf(x, p->b) : "?");
		printf("  %-5s %-26s %-23s %-4s %-5s %d%s\n", ranks, gpus, gp_tv(p->transport),
		       p->path[0] ? gp_tv(p->path) : "?", p->p2p_level[0] ? p->p2p_level : "?",
		       p->channels, p->mixed ? " (not all the same way)" : "");
	}
}

static void gdr_text(const struct gp_nccl_explain *x)
{
	int i;

	for (i = 0; i < x->ngdr; i++) {
		const struct gp_nx_gdr *g = &x->gdr[i];

		if (!g->gpu[0])
			gp_wrapf(0, 4, "  GPUDirect RDMA %s for HCA %s",
				 g->enabled ? "supported" : "unsupported", gp_tv(g->hca));
		else
			gp_wrapf(0, 4, "  GPUDirect RDMA %s for GPU %s / HCA %s%s%s%s%s%s",
				 g->enabled ? "on" : "off", gp_tv(g->gpu), gp_tv(g->hca),
				 g->distance[0] ? " (path " : "", g->distance,
				 g->distance[0] ? ", NCCL_NET_GDR_LEVEL " : "", g->level,
				 g->distance[0] ? ")" : "");
	}
}

void gp_nccl_explain_text(const struct gp_nccl_explain *x, const char *why)
{
	char cpu[96];
	int i;

	if (!x) {
		gp_wrapf(0, 4, "  NCCL's own account: %s", why);
		return;
	}
	gp_nx_cpu_words(x, ",", cpu, sizeof(cpu));
	printf("\n");
	gp_wrapf(0, 2, "NCCL's own account (NCCL_DEBUG=INFO and its topology dump): NCCL %s on %s",
		 x->version[0] ? gp_tv(x->version) : "(version not said)", gp_tv(cpu));
	pairs_text(x);
	gdr_text(x);
	for (i = 0; i < x->nwarnings; i++)
		gp_wrapf(0, 4, "  NCCL WARN %s", gp_tv(x->warnings[i]));
	if (x->warnings_dropped)
		printf("  (%d more NCCL WARN lines)\n", x->warnings_dropped);
	for (i = 0; i < x->nadvice; i++)
		gp_wrapf(0, 4, "  advice: %s", gp_tv(x->advice[i]));
	if (!x->npairs && !x->nadvice)
		printf("  no channel line in its output\n");
}

/* ---- JSON ---- */

static void cpu_json(const struct gp_nccl_explain *x)
{
	if (!x->cpu.known) {
		gp_print_null("cpu");
		return;
	}
	gp_open_object("cpu");
	gp_print_str("arch", NULL, x->cpu.arch);
	gp_print_str("vendor", NULL, x->cpu.vendor);
	gp_print_int_or_null("family", NULL, x->cpu.family);
	gp_print_int_or_null("model", NULL, x->cpu.model);
	gp_close_object();
}

static void pair_json(const struct gp_nccl_explain *x, const struct gp_nx_pair *p)
{
	gp_open_object(NULL);
	gp_print_int("a", NULL, p->a);
	gp_print_int("b", NULL, p->b);
	gp_print_str_or_null("a_bdf", NULL, gp_nx_rank_bdf(x, p->a));
	gp_print_str_or_null("b_bdf", NULL, gp_nx_rank_bdf(x, p->b));
	gp_print_str("transport", NULL, p->transport);
	gp_print_str("kind", NULL, gp_nx_kind_name(p->kind));
	gp_print_int("channels", NULL, p->channels);
	gp_print_bool("mixed", NULL, p->mixed);
	gp_print_str_or_null("path", NULL, p->path);
	gp_print_str_or_null("p2p_level", NULL, p->p2p_level);
	if (p->gdr < 0)
		gp_print_null("gdr");
	else
		gp_print_bool("gdr", NULL, p->gdr);
	gp_close_object();
}

static void gdr_json(const struct gp_nx_gdr *g)
{
	gp_open_object(NULL);
	gp_print_str_or_null("gpu", NULL, g->gpu);
	gp_print_str("hca", NULL, g->hca);
	gp_print_bool("enabled", NULL, g->enabled);
	gp_print_str_or_null("distance", NULL, g->distance);
	gp_print_str_or_null("level", NULL, g->level);
	gp_close_object();
}

static void lists_json(const struct gp_nccl_explain *x)
{
	int i;

	gp_open_array("env");
	for (i = 0; i < x->nenv; i++) {
		gp_open_object(NULL);
		gp_print_str("name", NULL, x->env[i].name);
		gp_print_str("value", NULL, x->env[i].value);
		gp_close_object();
	}
	gp_close_array();
	gp_open_array("p2p_disabled");
	for (i = 0; i < x->np2p_off; i++) {
		gp_open_array(NULL);
		gp_print_int(NULL, NULL, x->p2p_off[i][0]);
		gp_print_int(NULL, NULL, x->p2p_off[i][1]);
		gp_close_array();
	}
	gp_close_array();
	gp_open_array("warnings");
	for (i = 0; i < x->nwarnings; i++)
		gp_print_str(NULL, NULL, x->warnings[i]);
	gp_close_array();
	gp_print_int("warnings_dropped", NULL, x->warnings_dropped);
	gp_open_array("advice");
	for (i = 0; i < x->nadvice; i++)
		gp_print_str(NULL, NULL, x->advice[i]);
	gp_close_array();
}

void gp_nccl_explain_json(const struct gp_nccl_explain *x, const char *why)
{
	int i;

	if (!x) {
		gp_print_null("explain");
		gp_print_str_or_null("explain_why", NULL, why);
		return;
	}
	gp_open_object("explain");
	gp_print_int("lines", NULL, x->lines);
	gp_print_str_or_null("version", NULL, x->version);
	cpu_json(x);
	gp_open_array("pairs");
	for (i = 0; i < x->npairs; i++)
		pair_json(x, &x->pairs[i]);
	gp_close_array();
	gp_open_array("gdr");
	for (i = 0; i < x->ngdr; i++)
		gdr_json(&x->gdr[i]);
	gp_close_array();
	lists_json(x);
	gp_close_object();
	gp_print_null("explain_why");
}
