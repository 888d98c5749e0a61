// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NCCL's debug output read: the real two-H200 capture (P2P/CUMEM over
 * NVLink, the CPU NCCL saw, its version), and the lines that capture lacks,
 * as NVIDIA/nccl prints them (src/transport/shm.cc, net.cc, p2p.cc,
 * src/graph/paths.cc, topo.cc): SHM beyond the default P2P level on an
 * Intel CPU, the user's NCCL_P2P_LEVEL and NCCL_P2P_DISABLE, the AMD rule,
 * GPUDirect RDMA's distance by version, warnings, and garbage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"
#include "core/ncclexplain.h"
#include "shared/rootfs.h"

#define CAP "tests/fixtures/captured/h200x2-nccl/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void read_capture(struct gp_nccl_explain *x, const char *log, const char *dump)
{
	size_t len;
	char *t;

	gp_nx_init(x);
	t = slurp(log, &len);
	gp_nx_log(x, t, len);
	free(t);
	t = slurp(dump, &len);
	gp_nx_dump(x, t, len);
	free(t);
	gp_nx_finish(x, 1);
}

static void text(struct gp_nccl_explain *x, const char *log, const char *dump, int cuda_p2p)
{
	gp_nx_init(x);
	gp_nx_log(x, log, strlen(log));
	if (dump)
		gp_nx_dump(x, dump, strlen(dump));
	gp_nx_finish(x, cuda_p2p);
}

static bool advised(const struct gp_nccl_explain *x, const char *what)
{
	for (int i = 0; i < x->nadvice; i++)
		if (strstr(x->advice[i], what))
			return true;
	return false;
}

/* Both captures: each direction over P2P/CUMEM on 24 channels, NVLink, an Intel CPU. */
static void test_capture(void **state)
{
	static const char *const runs[][2] = {
		{ CAP "log-none.txt", CAP "dump-none.xml" },
		{ CAP "log-switch.txt", CAP "dump-switch.xml" },
	};
	struct gp_nccl_explain *x = malloc(sizeof(*x));
	char cpu[96];

	(void)state;
	for (size_t r = 0; r < 2; r++) {
		read_capture(x, runs[r][0], runs[r][1]);
		assert_string_equal(x->version, "2.28.9+cuda13.0");
		assert_int_equal(x->vcode, 22809);
		assert_true(x->cpu.known);
		assert_string_equal(x->cpu.arch, "x86_64");
		assert_string_equal(x->cpu.vendor, "GenuineIntel");
		assert_int_equal(x->cpu.family, 6);
		assert_int_equal(x->cpu.model, 207);
		/* one wording for the advice ("") and verify's line (",") */
		gp_nx_cpu_words(x, "", cpu, sizeof(cpu));
		assert_string_equal(cpu, "x86_64 GenuineIntel family 6 model 207");
		gp_nx_cpu_words(x, ",", cpu, sizeof(cpu));
		assert_string_equal(cpu, "x86_64 GenuineIntel, family 6 model 207");
		assert_int_equal(x->ngpus_dump, 2);
		assert_string_equal(gp_nx_rank_bdf(x, 0), "0000:00:06.0");
		assert_string_equal(gp_nx_rank_bdf(x, 1), "0000:00:07.0");
		assert_int_equal(x->npairs, 2);
		for (int i = 0; i < 2; i++) {
			/* each direction once, in the order the log met them */
			assert_int_equal(x->pairs[i].b, 1 - x->pairs[i].a);
			assert_int_equal(x->pairs[i].a, x->pairs[0].a ^ i);
			assert_string_equal(x->pairs[i].transport, "P2P/CUMEM");
			assert_int_equal(x->pairs[i].kind, GP_NX_P2P);
			assert_int_equal(x->pairs[i].channels, 24);
			assert_false(x->pairs[i].mixed);
			assert_int_equal(x->pairs[i].gdr, -1);
			assert_string_equal(x->pairs[i].path, "NVL");
			assert_string_equal(x->pairs[i].p2p_level, "PXB");
		}
		assert_int_equal(x->nwarnings, 0);
		assert_int_equal(x->nadvice, 0);
		assert_string_equal(gp_nx_env_get(x, "NCCL_NVLS_ENABLE"), "0");
	}
	assert_non_null(gp_nx_env_get(x, "NCCL_TOPO_FILE")); /* the switch run had one */
	free(x);
}

#define L(msg) "vm:1:1 [0] NCCL INFO " msg "\n"
#define INTEL_DUMP                                                                         \
	"<system version=\"1\"><cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\" " \
	"familyid=\"6\" modelid=\"143\"><pci busid=\"0000:41:00.0\"><gpu dev=\"0\" "       \
	"rank=\"0\"/></pci><pci busid=\"0000:c1:00.0\"><gpu dev=\"1\" rank=\"1\"/></pci>"  \
	"</cpu></system>"
#define PHB_LOG                                                                \
	L("NCCL version 2.23.4+cuda12.6")                                      \
	L("GPU/0-41000 :GPU/0-41000 (0/5000.0/LOC) GPU/0-c1000 (2/24.0/PHB) ") \
	L("GPU/0-c1000 :GPU/0-41000 (2/24.0/PHB) GPU/0-c1000 (0/5000.0/LOC) ") \
	L("Channel 00 : 0[0] -> 1[1] via SHM/direct/direct")                   \
	L("Channel 00 : 1[1] -> 0[1] via SHM/direct/direct")

/* A flat guest on an Intel CPU: SHM where CUDA's P2P works; the ranks from the dump alone. */
static void test_shm_beyond_level(void **state)
{
	struct gp_nccl_explain *x = malloc(sizeof(*x));

	(void)state;
	text(x, PHB_LOG, INTEL_DUMP, 1);
	assert_int_equal(x->vcode, 22304);
	assert_int_equal(x->npairs, 2);
	assert_int_equal(x->pairs[0].kind, GP_NX_SHM);
	assert_string_equal(x->pairs[0].transport, "SHM/direct/direct");
	assert_string_equal(gp_nx_rank_bdf(x, 1), "0000:c1:00.0");
	assert_string_equal(x->pairs[0].path, "PHB");
	assert_string_equal(x->pairs[0].p2p_level, "PXB");
	assert_int_equal(x->nadvice, 1);
	assert_true(advised(x, "gpuprov nccl-topo"));
	assert_true(advised(x, "GenuineIntel family 6 model 143"));
	assert_true(advised(x, "NCCL_P2P_LEVEL=SYS"));
	assert_true(advised(x, "host-passthrough"));
	/* CUDA's peer access refused: no NCCL_P2P_LEVEL to set */
	text(x, PHB_LOG, INTEL_DUMP, 0);
	assert_false(advised(x, "NCCL_P2P_LEVEL=SYS"));
	free(x);
}

/* The same two GPUs on an AMD CPU: NCCL's level is SYS, so SHM was refused below it. */
static void test_amd_and_user_levels(void **state)
{
	struct gp_nccl_explain *x = malloc(sizeof(*x));
	char dump[] = INTEL_DUMP;
	char *v = strstr(dump, "GenuineIntel");

	(void)state;
	memcpy(v, "AuthenticAMD", 12);
	text(x, PHB_LOG, dump, 0);
	assert_string_equal(x->pairs[0].p2p_level, "SYS");
	assert_true(advised(x, "CUDA cannot map peer memory"));
	text(x,
	     PHB_LOG L("P2P is disabled between connected GPUs 0 and 1. You can repress this "
		       "message with NCCL_IGNORE_DISABLED_P2P=1."),
	     dump, 0);
	assert_int_equal(x->np2p_off, 1);
	assert_true(advised(x, "p2p.acs"));
	/* the user's level, nearer than the path */
	text(x, L("NCCL_P2P_LEVEL set by environment to PIX") PHB_LOG, INTEL_DUMP, 1);
	assert_string_equal(x->pairs[1].p2p_level, "PIX");
	assert_true(advised(x, "NCCL_P2P_LEVEL=PIX is nearer than the path PHB"));
	/* P2P off altogether, as verify's comparison run sets it */
	text(x, L("NCCL_P2P_DISABLE set by environment to 1.") PHB_LOG, INTEL_DUMP, 1);
	assert_string_equal(x->pairs[0].p2p_level, "LOC");
	assert_int_equal(x->nadvice, 1);
	assert_true(advised(x, "NCCL_P2P_DISABLE=1 is set"));
	free(x);
}

/* One process (verify's ncclCommInitAll): P2P/direct pointer, the ranks from the Init lines. */
static void test_direct_and_net(void **state)
{
	struct gp_nccl_explain *x = malloc(sizeof(*x));

	(void)state;
	text(x,
	     L("NCCL version 2.28.9+cuda13.0") L(
		     "ncclCommInitAll comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 41000 "
		     "commId 0x2 - Init START")
		     L("ncclCommInitAll comm 0x3 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId c1000 "
		       "commId 0x2 - Init START") L("Channel 00/0 : 0[0] -> 1[1] via P2P/direct "
						    "pointer/read")
			     L("Channel 00/0 : 1[1] -> 0[0] via P2P/direct pointer/read") L(
				     "Channel 01/0 : 1[1] -> 0[0] via P2P/IPC")
				     L("Channel 00/0 : 0[0] -> 2[2] [send] via NET/IB/0/GDRDMA") L(
					     "Channel 00/0 : 2[2] -> 0[0] [receive] via NET/IB/1"),
	     NULL, -1);
	assert_string_equal(gp_nx_rank_bdf(x, 0), "0000:41:00.0");
	assert_string_equal(gp_nx_rank_bdf(x, 1), "0000:c1:00.0");
	assert_int_equal(x->npairs, 4);
	assert_string_equal(x->pairs[0].transport, "P2P/direct pointer/read");
	assert_false(x->pairs[0].mixed);
	assert_true(x->pairs[1].mixed);
	assert_int_equal(x->pairs[1].channels, 2);
	assert_int_equal(x->pairs[2].kind, GP_NX_NET);
	assert_int_equal(x->pairs[2].gdr, 1);
	assert_int_equal(x->pairs[3].gdr, 0);
	/* no dump, no path: said as such */
	assert_true(advised(x, "does not show the path"));
	free(x);
}

/* GPUDirect RDMA: the distance's name by NCCL's version (topoPathTypeStr of each). */
static void test_gdr(void **state)
{
	struct gp_nccl_explain *x = malloc(sizeof(*x));

	(void)state;
	text(x,
	     L("NCCL version 2.28.9+cuda13.0") L(
		     "GPU Direct RDMA Disabled for GPU 0 / HCA 1 (distance 9 > 5)")
		     L("GPU Direct RDMA Enabled for GPU 1 / HCA 0 (distance 4 <= 5), read 0 mode "
		       "Default") L("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"),
	     INTEL_DUMP, 1);
	assert_int_equal(x->ngdr, 3);
	assert_false(x->gdr[0].enabled);
	assert_string_equal(x->gdr[0].gpu, "0");
	assert_string_equal(x->gdr[0].hca, "1");
	assert_string_equal(x->gdr[0].distance, "SYS");
	assert_string_equal(x->gdr[0].level, "PXB");
	assert_true(x->gdr[1].enabled);
	assert_string_equal(x->gdr[1].distance, "PIX");
	assert_string_equal(x->gdr[2].gpu, "");
	assert_string_equal(x->gdr[2].hca, "mlx5_0");
	assert_true(advised(x, "NCCL_NET_GDR_LEVEL=SYS"));
	assert_true(advised(x, "nvidia-peermem"));
	/* 2.23: no C2C, no P2C: 7 is SYS, 4 PXB */
	text(x,
	     L("NCCL version 2.23.4+cuda12.6")
		     L("GPU Direct RDMA Disabled for GPU 41000 / HCA 1 (distance 7 > 4)"),
	     NULL, 1);
	assert_string_equal(x->gdr[0].distance, "SYS");
	assert_string_equal(x->gdr[0].level, "PXB");
	assert_string_equal(x->gdr[0].gpu, "41000");
	free(x);
}

/* Warnings kept, bounded; lines and values that are not NCCL's do nothing. */
static void test_hostile(void **state)
{
	struct gp_nccl_explain *x = malloc(sizeof(*x));
	static const char pat[] =
		"Channel 9999999999999 : -1[x] -> \0GPU/ffffffffffffffff :GPU/ "
		"( /) via \nGPU Direct RDMA Enabled for GPU / HCA (distance 99 <= "
		"-1)\n";
	static const char w[] = "h:1:1 [0] a.cc:2 NCCL WARN Cuda failure 'peer access'\n";
	size_t big = 1 << 16, i;
	char *t = malloc(big);
	char id[GP_BDF_LEN];

	(void)state;
	for (i = 0; i < big; i++)
		t[i] = pat[i % (sizeof(pat) - 1)];
	text(x, t, t, 1);
	assert_int_equal(x->npairs, 0);
	/* a line longer than NCCL writes, warnings past the bound */
	memset(t, 'A', big);
	memcpy(t, "h:1:1 [0] f.cc:1 NCCL WARN ", 27);
	t[big - 1] = '\n';
	gp_nx_init(x);
	gp_nx_log(x, t, big);
	for (i = 0; i < GP_NX_MAX_WARN + 3; i++)
		gp_nx_log(x, w, sizeof(w) - 1);
	assert_int_equal(x->nwarnings, GP_NX_MAX_WARN);
	assert_int_equal(x->warnings_dropped, 4);
	assert_true(strlen(x->warnings[0]) < GP_NX_WARN_LEN);
	gp_nx_dump(x, "<cpu vendor=\"", 13);
	gp_nx_dump(x, "<gpu rank=\"99999999999\"", 23);
	gp_nx_dump(x, "<", 1);
	assert_int_equal(gp_nx_busid(0x41000, id), 0);
	assert_string_equal(id, "0000:41:00.0");
	assert_int_equal(gp_nx_busid(0xff, id), -EINVAL);
	assert_int_equal(gp_nx_busid(-1, id), -EINVAL);
	/* a GRAPH line's path type that is none of NCCL's (ESC c resets a terminal) is not kept */
	text(x,
	     L("GPU/0-41000 :GPU/0-41000 (0/5000.0/LOC) GPU/0-c1000 (2/24.0/\033c) ")
		     L("Channel 00 : 0[0] -> 1[1] via SHM/direct/direct"),
	     INTEL_DUMP, 1);
	assert_int_equal(x->npairs, 1);
	assert_string_equal(x->pairs[0].path, "");
	free(t);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_shm_beyond_level),
		cmocka_unit_test(test_amd_and_user_levels),
		cmocka_unit_test(test_direct_and_net),
		cmocka_unit_test(test_gdr),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
