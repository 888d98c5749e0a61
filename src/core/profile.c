// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server profile: inih reads the INI text, a table of keys validates each
 * value.  inih's convention (the line of the first error) is converted here:
 * the reader below counts lines itself, so every message names file:line,
 * including for checks that can only run after the whole file is read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <ini.h>

#include "core/bondopt.h"
#include "core/model.h"
#include "core/uri.h"
#include "core/profile.h"
#include "core/vm.h"

#define MAX_SEEN       256
#define GP_PROFILE_MAX (1u << 20) /* bytes; a profile is a page or two */
#define MAX_LINE       200	  /* inih's INI_MAX_LINE in Debian's build */

struct parse_state {
	struct gp_profile *p;
	const char *name;
	/* the reader's position, so the handler knows its line */
	const char *text;
	size_t pos, len; /* a file's text may hold NUL bytes: len says where it ends */
	int line;
	int header_line; /* of the last [section] line */
	bool continuation;
	/* duplicate detection: "section\nkey" per line seen */
	char *seen[MAX_SEEN];
	int seen_line[MAX_SEEN];
	int nseen;
	char section[GP_NAME_LEN];
	int section_line[8]; /* first line of server, gpus, vm, bond, fabric, nic */
	int gpus_slots_line;
	int error_line;
	char error[512];
};

const char *gp_profile_error(const struct gp_profile *p)
{
	return p->error;
}

static int fail(struct parse_state *st, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parse_state *st, int line, const char *fmt, ...)
{
	va_list ap;

	if (st->error_line)
		return 0; /* keep the first error: the file's order */
	st->error_line = line;
	va_start(ap, fmt);
	vsnprintf(st->error, sizeof(st->error), fmt, ap);
	va_end(ap);
	return 0;
}

/* ---- value parsers: return 0, or -EINVAL with a message in why ---- */

typedef int (*value_fn)(struct gp_profile *p, const char *v, void *field, const char **why);

#define FIELD(f) ((size_t) & ((struct gp_profile *)0)->f)

/* Every text value: it ends up on terminals, in XML and in JSON. */
static int set_string(char *dst, size_t size, const char *v, const char **why)
{
	if (strlen(v) >= size) {
		*why = "too long";
		return -EINVAL;
	}
	if (!gp_text_valid(v)) {
		*why = "expected UTF-8 text without control characters";
		return -EINVAL;
	}
	gp_strlcpy(dst, v, size);
	return 0;
}

static int v_bool(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)p;
	*why = "expected yes or no";
	return gp_parse_bool(v, field);
}

/* The index of v in the NULL-terminated list, or -EINVAL. */
static int choice_index(const char *v, const char *const *allowed)
{
	int i;

	for (i = 0; allowed[i]; i++)
		if (!strcmp(v, allowed[i]))
			return i;
	return -EINVAL;
}

/* IDs or PCI addresses into m[]; the count into *n. */
static int parse_matches(const char *v, struct gp_match *m, int *n, const char **why)
{
	char buf[512], *items[GP_MAX_MATCH];
	int i, k;

	gp_strlcpy(buf, v, sizeof(buf));
	k = gp_split_list(buf, items, GP_MAX_MATCH);
	if (k <= 0) {
		*why = k ? "too many entries" : "empty list";
		return -EINVAL;
	}
	for (i = 0; i < k; i++) {
		memset(&m[i], 0, sizeof(m[i]));
		if (!gp_parse_id_pair(items[i], &m[i].vendor, &m[i].device))
			continue;
		if (!gp_parse_bdf(items[i], m[i].bdf)) {
			m[i].is_bdf = true;
			continue;
		}
		*why = "expected vendor:device IDs (10de:20b5) or PCI addresses "
		       "(0000:41:00.0)";
		return -EINVAL;
	}
	*n = k;
	return 0;
}

static int v_match(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	return parse_matches(v, p->match, &p->nmatch, why);
}

static int v_nic_match(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	return parse_matches(v, p->nic.match, &p->nic.nmatch, why);
}

static int v_uint_range(const char *v, unsigned long lo, unsigned long hi, unsigned *out)
{
	unsigned long x;

	if (gp_parse_uint(v, hi, &x) || x < lo)
		return -EINVAL;
	*out = (unsigned)x;
	return 0;
}

static int v_count(struct gp_profile *p, const char *v, void *field, const char **why)
{
	unsigned x;

	(void)field;
	*why = "expected a number from 1 to 16";
	if (v_uint_range(v, 1, 16, &x))
		return -EINVAL;
	p->count = (int)x;
	return 0;
}

static int v_gpu_slots(struct gp_profile *p, const char *v, void *field, const char **why)
{
	char buf[512], *items[GP_MAX_LIST];
	int i, n;

	(void)field;
	gp_strlcpy(buf, v, sizeof(buf));
	n = gp_split_list(buf, items, GP_MAX_LIST);
	if (n <= 0) {
		*why = n ? "too many entries" : "empty list";
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		if (set_string(p->gpu_slots[i], GP_NAME_LEN, items[i], why))
			return -EINVAL;
	p->ngpu_slots = n;
	return 0;
}

/* A choice into an enum field: the enum's order is the list's. */
#define CHOICE_FN(fn, dst, type, msg, ...)                                                \
	static int fn(struct gp_profile *p, const char *v, void *field, const char **why) \
	{                                                                                 \
		static const char *const names[] = { __VA_ARGS__, NULL };                 \
		int i = choice_index(v, names);                                           \
		(void)field;                                                              \
		*why = msg;                                                               \
		if (i < 0)                                                                \
			return -EINVAL;                                                   \
		p->dst = (type)i;                                                         \
		return 0;                                                                 \
	}

CHOICE_FN(v_p2p, p2p, enum gp_p2p, "expected required, preferred or off", "required", "preferred",
	  "off")
CHOICE_FN(v_companions, companions, enum gp_companions, "expected refuse or bind", "refuse", "bind")
CHOICE_FN(v_fabric, fabric, enum gp_fabric_mode, "expected full, shared or none", "none", "full",
	  "shared")

static int v_vm_name(struct gp_profile *p, const char *v, void *field, const char **why)
{
	const char *c;

	(void)field;
	*why = "expected letters, digits, '.', '_' or '-'";
	if (!*v)
		return -EINVAL;
	for (c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			return -EINVAL;
	return set_string(p->vm.name, sizeof(p->vm.name), v, why);
}

static int v_path(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)p;
	*why = "expected a path";
	if (!*v)
		return -EINVAL;
	return set_string(field, 512, v, why);
}

/*
 * [vm] output: a file apply writes and rollback puts back, so the rule of
 * the journal's records (gp_vm_output_check); absolute, so that it means the
 * same from any working directory and joins a --root with a '/'.
 */
static int v_output(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)p;
	if (gp_vm_output_check(v, why))
		return -EINVAL;
	return set_string(field, GP_OUTPUT_LEN, v, why);
}

static int v_memory(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	*why = "expected a size such as 64GiB";
	if (gp_parse_size(v, &p->vm.memory) || p->vm.memory < (1ull << 20))
		return -EINVAL;
	return 0;
}

static int v_hugepages(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	*why = "expected 1GiB, 2MiB or none";
	if (!strcmp(v, "none")) {
		p->vm.hugepages = 0;
		return 0;
	}
	if (gp_parse_size(v, &p->vm.hugepages))
		return -EINVAL;
	if (p->vm.hugepages != (1ull << 30) && p->vm.hugepages != (2ull << 20))
		return -EINVAL;
	return 0;
}

static int v_vm_numa(struct gp_profile *p, const char *v, void *field, const char **why)
{
	static const char *const ok[] = { "strict", "preferred", "none", NULL };

	(void)field;
	*why = "expected strict, preferred or none";
	if (choice_index(v, ok) < 0)
		return -EINVAL;
	return set_string(p->vm.numa, sizeof(p->vm.numa), v, why);
}

static int v_clique(struct gp_profile *p, const char *v, void *field, const char **why)
{
	unsigned x;

	(void)field;
	*why = "expected a number from 0 to 15, or off";
	if (!strcmp(v, "off")) {
		p->vm.clique = -1;
		return 0;
	}
	if (v_uint_range(v, 0, 15, &x))
		return -EINVAL;
	p->vm.clique = (int)x;
	return 0;
}

static int v_uri(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	if (gp_virt_uri_check(v, why))
		return -EINVAL;
	return set_string(p->vm.uri, sizeof(p->vm.uri), v, why);
}

static int v_ifname(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)p;
	*why = "expected an interface name: 1 to 15 letters, digits, '-', '_' or '.', "
	       "starting with a letter or digit";
	if (!gp_ifname_valid(v))
		return -EINVAL;
	return set_string(field, 16, v, why);
}

static int v_slaves(struct gp_profile *p, const char *v, void *field, const char **why)
{
	char buf[512], *items[GP_MAX_LIST], bdf[GP_BDF_LEN];
	int i, n;

	(void)field;
	gp_strlcpy(buf, v, sizeof(buf));
	n = gp_split_list(buf, items, GP_MAX_LIST);
	if (n <= 0) {
		*why = n ? "too many entries" : "empty list";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		char name[16];

		if (!gp_parse_bdf(items[i], bdf)) {
			gp_strlcpy(p->bond.slaves[i], bdf, GP_NAME_LEN);
			continue;
		}
		if (v_ifname(p, items[i], name, why)) {
			*why = "expected interface names (1 to 15 letters, digits, '-', '_' or "
			       "'.', starting with a letter or digit) or PCI addresses";
			return -EINVAL;
		}
		gp_strlcpy(p->bond.slaves[i], items[i], GP_NAME_LEN);
	}
	p->bond.nslaves = n;
	return 0;
}

#define ENUM_FN(fn, dst, msg, ...)                                                        \
	static int fn(struct gp_profile *p, const char *v, void *field, const char **why) \
	{                                                                                 \
		static const char *const ok[] = { __VA_ARGS__, NULL };                    \
		(void)field;                                                              \
		*why = msg;                                                               \
		if (choice_index(v, ok) < 0)                                              \
			return -EINVAL;                                                   \
		return set_string(p->dst, sizeof(p->dst), v, why);                        \
	}

ENUM_FN(v_mode, bond.mode, "expected 802.3ad, active-backup or balance-xor", "802.3ad",
	"active-backup", "balance-xor")
/* a bond option the kernel names (core/bondopt.c's tables) */
#define BOND_FN(fn, dst, msg, names)                                                      \
	static int fn(struct gp_profile *p, const char *v, void *field, const char **why) \
	{                                                                                 \
		*why = msg;                                                               \
		if (GP_BOND_VALUE(names, v) < 0)                                          \
			return -EINVAL;                                                   \
		return set_string(p->dst, sizeof(p->dst), v, why);                        \
	}

BOND_FN(v_lacp, bond.lacp_rate, "expected fast or slow", gp_bond_rates)
BOND_FN(v_hash, bond.xmit_hash_policy,
	"expected layer2, layer2+3, layer3+4, encap2+3, encap3+4 or vlan+srcmac", gp_bond_hashes)
BOND_FN(v_adsel, bond.ad_select, "expected stable, bandwidth or count", gp_bond_selects)
ENUM_FN(v_persist, bond.persist,
	"expected auto, networkd, networkmanager, netplan, ifupdown or none", "auto", "networkd",
	"networkmanager", "netplan", "ifupdown", "none")

/* An address with its prefix length: 192.168.1.100/24 or fd00::5/64. */
static int address_check(const char *v, const char **why)
{
	char buf[64], *slash;
	unsigned char addr[16];
	unsigned plen;
	int family;

	*why = "expected an address with its prefix length, such as 192.168.1.100/24";
	if (strlen(v) >= sizeof(buf))
		return -EINVAL;
	gp_strlcpy(buf, v, sizeof(buf));
	slash = strchr(buf, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	family = strchr(buf, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(family, buf, addr) != 1)
		return -EINVAL;
	if (v_uint_range(slash + 1, 0, family == AF_INET ? 32 : 128, &plen))
		return -EINVAL;
	return 0;
}

static int v_address(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	if (address_check(v, why))
		return -EINVAL;
	return set_string(p->bond.address, sizeof(p->bond.address), v, why);
}

/* [nic] addresses: the guest's, one a port (or the bond's one). */
static int v_nic_addresses(struct gp_profile *p, const char *v, void *field, const char **why)
{
	char buf[512], *items[GP_MAX_LIST];
	int i, n;

	(void)field;
	gp_strlcpy(buf, v, sizeof(buf));
	n = gp_split_list(buf, items, GP_MAX_LIST);
	if (n <= 0) {
		*why = n ? "too many entries" : "empty list";
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		if (address_check(items[i], why) ||
		    set_string(p->nic.addresses[i], sizeof(p->nic.addresses[i]), items[i], why))
			return -EINVAL;
	p->nic.naddresses = n;
	return 0;
}

CHOICE_FN(v_nic_mode, nic.mode, enum gp_nic_mode, "expected passthrough, vf or host", "passthrough",
	  "vf", "host")
CHOICE_FN(v_guest_bond, nic.guest_bond, enum gp_guest_bond,
	  "expected none, 802.3ad or active-backup", "none", "802.3ad", "active-backup")

static int v_model(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	return set_string(p->model, sizeof(p->model), v, why);
}

static int v_product(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	return set_string(p->product, sizeof(p->product), v, why);
}

static int v_min_bios(struct gp_profile *p, const char *v, void *field, const char **why)
{
	(void)field;
	*why = "expected a version such as 5.20";
	if (!*v)
		return -EINVAL;
	return set_string(p->min_bios, sizeof(p->min_bios), v, why);
}

/*
 * The ports' lowest firmware, as the RDMA driver prints it (mlx5:
 * "%d.%d.%04d"), one version per family: the first number names it.
 */
static int v_min_firmware(struct gp_profile *p, const char *v, void *field, const char **why)
{
	char buf[512], *items[GP_NIC_FW_FAMILIES + 1];
	int i, j, n;

	(void)field;
	*why = "too long";
	if (strlen(v) >= sizeof(buf))
		return -EINVAL; /* never cut: the last version would be another */
	gp_strlcpy(buf, v, sizeof(buf));
	n = gp_split_list(buf, items, GP_NIC_FW_FAMILIES + 1);
	*why = n ? "at most 8 versions, one per family" : "empty list";
	if (n <= 0 || n > GP_NIC_FW_FAMILIES)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		*why = "expected firmware versions such as 20.31.1014 (numbers and dots)";
		if (!gp_version_dotted(items[i]) ||
		    set_string(p->nic.min_firmware[i], sizeof(p->nic.min_firmware[i]), items[i],
			       why))
			return -EINVAL;
		*why = "two versions of one family (the same first number)";
		for (j = 0; j < i; j++)
			if (strtoul(items[j], NULL, 10) == strtoul(items[i], NULL, 10))
				return -EINVAL;
	}
	p->nic.nmin_firmware = n;
	return 0;
}

/* ---- slot sections ---- */

static struct gp_slot *slot_for(struct gp_profile *p, const char *name)
{
	int i;

	for (i = 0; i < p->nslots; i++)
		if (!strcmp(p->slots[i].name, name))
			return &p->slots[i];
	return NULL;
}

static int slot_key(struct parse_state *st, const char *slot, const char *key, const char *v)
{
	struct gp_slot *s = slot_for(st->p, slot);
	unsigned x;
	bool b;

	if (!strcmp(key, "root_port")) {
		if (gp_parse_bdf(v, s->root_port))
			return fail(st, st->line,
				    "bad value for root_port: '%s': expected a PCI "
				    "address such as 0000:40:01.1",
				    v);
		return 1;
	}
	if (!strcmp(key, "address")) {
		if (gp_parse_bdf(v, s->address))
			return fail(st, st->line,
				    "bad value for address: '%s': expected a PCI "
				    "address such as 0000:00:06.0",
				    v);
		return 1;
	}
	if (!strcmp(key, "numa_node")) {
		if (v_uint_range(v, 0, 1023, &x))
			return fail(st, st->line,
				    "bad value for numa_node: '%s': expected a "
				    "NUMA node number",
				    v);
		s->numa_node = (int)x;
		return 1;
	}
	if (!strcmp(key, "cpu_direct")) {
		if (gp_parse_bool(v, &b))
			return fail(st, st->line,
				    "bad value for cpu_direct: '%s': expected yes "
				    "or no",
				    v);
		s->cpu_direct = b;
		return 1;
	}
	return fail(st, st->line, "unknown key '%s' in section [slot.%s]", key, slot);
}

/* ---- the key table ---- */

struct key_def {
	const char *section;
	const char *key;
	value_fn fn;   /* NULL: a whole number from lo to hi, into an unsigned */
	size_t offset; /* the field handed to fn, or the number's */
	unsigned lo, hi;
};

static int v_range(const struct key_def *k, const char *v, void *field, char *why, size_t len)
{
	snprintf(why, len, "expected a number from %u to %u", k->lo, k->hi);
	return v_uint_range(v, k->lo, k->hi, field);
}

static const struct key_def keys[] = {
	{ "server", "model", v_model, 0, 0, 0 },
	{ "server", "product", v_product, 0, 0, 0 },
	{ "server", "min_bios", v_min_bios, 0, 0, 0 },
	{ "server", "verified", v_bool, FIELD(verified), 0, 0 },
	{ "gpus", "match", v_match, 0, 0, 0 },
	{ "gpus", "count", v_count, 0, 0, 0 },
	{ "gpus", "slots", v_gpu_slots, 0, 0, 0 },
	{ "gpus", "same_numa_node", v_bool, FIELD(same_numa_node), 0, 0 },
	{ "gpus", "p2p", v_p2p, 0, 0, 0 },
	{ "gpus", "companions", v_companions, 0, 0, 0 },
	{ "fabric", "mode", v_fabric, 0, 0, 0 },
	{ "vm", "name", v_vm_name, 0, 0, 0 },
	{ "vm", "template", v_path, FIELD(vm.template), 0, 0 },
	{ "vm", "vcpus", NULL, FIELD(vm.vcpus), 1, 4096 },
	{ "vm", "memory", v_memory, 0, 0, 0 },
	{ "vm", "hugepages", v_hugepages, 0, 0, 0 },
	{ "vm", "numa", v_vm_numa, 0, 0, 0 },
	{ "vm", "gpudirect_clique", v_clique, 0, 0, 0 },
	{ "vm", "output", v_output, FIELD(vm.output), 0, 0 },
	{ "vm", "define", v_bool, FIELD(vm.define), 0, 0 },
	{ "vm", "uri", v_uri, 0, 0, 0 },
	{ "bond", "name", v_ifname, FIELD(bond.name), 0, 0 },
	{ "bond", "slaves", v_slaves, 0, 0, 0 },
	{ "bond", "mode", v_mode, 0, 0, 0 },
	{ "bond", "miimon", NULL, FIELD(bond.miimon), 0, 10000 },
	{ "bond", "lacp_rate", v_lacp, 0, 0, 0 },
	{ "bond", "xmit_hash_policy", v_hash, 0, 0, 0 },
	{ "bond", "ad_select", v_adsel, 0, 0, 0 },
	{ "bond", "min_links", NULL, FIELD(bond.min_links), 0, 16 },
	{ "bond", "mtu", NULL, FIELD(bond.mtu), 68, 65535 },
	{ "bond", "address", v_address, 0, 0, 0 },
	{ "bond", "persist", v_persist, 0, 0, 0 },
	{ "bond", "lacp_timeout", NULL, FIELD(bond.lacp_timeout), 1, 600 },
	{ "nic", "match", v_nic_match, 0, 0, 0 },
	{ "nic", "mode", v_nic_mode, 0, 0, 0 },
	{ "nic", "vfs", NULL, FIELD(nic.vfs), 1, 255 },
	{ "nic", "guest_bond", v_guest_bond, 0, 0, 0 },
	{ "nic", "addresses", v_nic_addresses, 0, 0, 0 },
	{ "nic", "mtu", NULL, FIELD(nic.mtu), 68, 65535 },
	{ "nic", "min_firmware", v_min_firmware, 0, 0, 0 },
};

static const char *const sections[] = { "server", "gpus", "vm", "bond", "fabric", "nic" };

static int section_index(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sections); i++)
		if (!strcmp(s, sections[i]))
			return (int)i;
	return -1;
}

static int remember(struct parse_state *st, const char *section, const char *key)
{
	char buf[160];
	int i;

	snprintf(buf, sizeof(buf), "%s\n%s", section, key);
	for (i = 0; i < st->nseen; i++)
		if (!strcmp(st->seen[i], buf))
			return st->seen_line[i];
	if (st->nseen < MAX_SEEN) {
		st->seen[st->nseen] = gp_xstrdup(buf);
		st->seen_line[st->nseen++] = st->line;
	}
	return 0;
}

static int open_section(struct parse_state *st, const char *section)
{
	int idx;

	if (!strncmp(section, "slot.", 5)) {
		struct gp_slot *s;

		if (!section[5] || strlen(section + 5) >= GP_NAME_LEN)
			return fail(st, st->header_line, "bad section name [%s]", section);
		if (slot_for(st->p, section + 5))
			return 1;
		if (st->p->nslots == GP_MAX_SLOTS)
			return fail(st, st->line, "too many [slot.*] sections (at most %d)",
				    GP_MAX_SLOTS);
		s = &st->p->slots[st->p->nslots++];
		gp_strlcpy(s->name, section + 5, sizeof(s->name));
		s->numa_node = -1;
		s->cpu_direct = -1;
		s->line = st->header_line;
		return 1;
	}
	idx = section_index(section);
	if (idx < 0)
		return fail(st, st->header_line, "unknown section [%s]", section);
	if (!st->section_line[idx])
		st->section_line[idx] = st->header_line;
	if (idx == 2)
		st->p->has_vm = true;
	if (idx == 3)
		st->p->has_bond = true;
	if (idx == 5)
		st->p->has_nic = true;
	return 1;
}

/* A '#' after a value is part of it (inih ends a value at ';' only): say so. */
static const char *comment_hint(const char *value)
{
	return strchr(value, '#') ? " (a comment after a value starts with ';'; '#' only "
				    "at the start of a line)"
				  : "";
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_state *st = user;
	const char *why = "bad value";
	char range[64];
	size_t i;
	int prev;

	if (st->error_line)
		return 0; /* only the first error is reported; skip the rest */
	if (st->continuation)
		return fail(st, st->line,
			    "continuation lines are not supported: put '%s' "
			    "on one line",
			    key);
	if (!*section)
		return fail(st, st->line, "key '%s' outside of any section", key);
	if (strcmp(section, st->section)) {
		if (!open_section(st, section))
			return 0;
		gp_strlcpy(st->section, section, sizeof(st->section));
	}
	prev = remember(st, section, key);
	if (prev)
		return fail(st, st->line, "duplicate key '%s' in [%s] (first set on line %d)", key,
			    section, prev);
	if (!strncmp(section, "slot.", 5))
		return slot_key(st, section + 5, key, value);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key_def *k = &keys[i];

		if (strcmp(k->section, section) || strcmp(k->key, key))
			continue;
		if (!strcmp(key, "slots"))
			st->gpus_slots_line = st->line;
		if (!k->fn && v_range(k, value, (char *)st->p + k->offset, range, sizeof(range)))
			return fail(st, st->line, "bad value for %s: '%s': %s%s", key, value, range,
				    comment_hint(value));
		if (k->fn && k->fn(st->p, value, (char *)st->p + k->offset, &why))
			return fail(st, st->line, "bad value for %s: '%s': %s%s", key, value, why,
				    comment_hint(value));
		return 1;
	}
	return fail(st, st->line, "unknown key '%s' in section [%s]", key, section);
}

/*
 * inih calls the handler only for keys, so a [section] line is checked here,
 * where its line number is known, and an empty unknown section is caught too.
 */
static void check_header(struct parse_state *st, const char *text)
{
	const char *end = strchr(text, ']');
	char buf[GP_NAME_LEN * 2], *name;

	st->header_line = st->line;
	if (!end || (size_t)(end - text - 1) >= sizeof(buf))
		return; /* inih reports the syntax error */
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - text - 1), text + 1);
	name = gp_trim(buf);
	if (strncmp(name, "slot.", 5) && section_index(name) < 0)
		fail(st, st->line, "unknown section [%s]", name);
}

/* inih's reader: one line at a time, counting, refusing what inih would cut. */
static char *reader(char *str, int num, void *stream)
{
	struct parse_state *st = stream;
	size_t len = 0;
	int c;

	for (;;) {
		c = st->pos < st->len ? (unsigned char)st->text[st->pos++] : EOF;
		if (c == EOF || c == '\n')
			break;
		if (c == '\0') {
			fail(st, st->line + 1, "NUL byte in profile");
			continue;
		}
		if (len + 2 < (size_t)num)
			str[len] = (char)c;
		len++;
	}
	if (c == EOF && len == 0)
		return NULL;
	st->line++;
	if (len + 2 >= (size_t)num) {
		fail(st, st->line, "line longer than %d characters", num - 2);
		len = 0;
	}
	str[len] = '\0';
	if (str[strspn(str, " \t")] == '[')
		check_header(st, str + strspn(str, " \t"));
	/* inih joins an indented line to the previous key: we do not */
	st->continuation = len && (str[0] == ' ' || str[0] == '\t') && str[strspn(str, " \t")] &&
			   !strchr(";#", str[strspn(str, " \t")]);
	return str;
}

/* The line a key of a section was set on, 0 when it was not. */
static int key_line(const struct parse_state *st, const char *section, const char *key)
{
	char buf[160];
	int i;

	snprintf(buf, sizeof(buf), "%s\n%s", section, key);
	for (i = 0; i < st->nseen; i++)
		if (!strcmp(st->seen[i], buf))
			return st->seen_line[i];
	return 0;
}

/* A [bond] port given by PCI address that [nic] also hands to the guest, or NULL. */
static const char *bond_port_passed(const struct gp_profile *p)
{
	int i, j;

	if (!p->has_bond || p->nic.mode == GP_NIC_HOST)
		return NULL;
	for (i = 0; i < p->bond.nslaves; i++)
		for (j = 0; j < p->nic.nmatch; j++)
			if (p->nic.match[j].is_bdf &&
			    !strcmp(p->bond.slaves[i], p->nic.match[j].bdf))
				return p->bond.slaves[i];
	return NULL;
}

/* Only PCI addresses name how many ports there are; IDs are counted on the host. */
static bool nic_single_port(const struct gp_profile *p)
{
	int i;

	for (i = 0; i < p->nic.nmatch; i++)
		if (!p->nic.match[i].is_bdf)
			return false;
	return p->nic.nmatch == 1;
}

/*
 * [nic]: each key that means something only in one mode is refused, at its
 * line, in the others: a profile that says more than gpuprov does is an
 * error, not a silent default.
 */
static int validate_nic(struct parse_state *st)
{
	const struct gp_profile *p = st->p;
	static const char *const guest_keys[] = { "guest_bond", "addresses", "mtu" };
	const char *port;
	size_t i;

	if (!p->nic.nmatch)
		return fail(st, st->section_line[5], "missing key 'match' in [nic]");
	if (p->nic.mode == GP_NIC_UNSET)
		return fail(st, st->section_line[5],
			    "missing key 'mode' in [nic] (passthrough, vf or host)");
	if (p->nic.mode == GP_NIC_VF && !p->nic.vfs)
		return fail(st, st->section_line[5], "missing key 'vfs' in [nic] (mode = vf)");
	if (p->nic.mode != GP_NIC_VF && p->nic.vfs)
		return fail(st, key_line(st, "nic", "vfs"), "vfs is for mode = vf");
	if (p->nic.mode == GP_NIC_HOST && p->nic.nmin_firmware)
		return fail(st, key_line(st, "nic", "min_firmware"),
			    "min_firmware is for the guest's ports: mode = host keeps them on the "
			    "host");
	for (i = 0; p->nic.mode == GP_NIC_HOST && i < ARRAY_SIZE(guest_keys); i++)
		if (key_line(st, "nic", guest_keys[i]))
			return fail(st, key_line(st, "nic", guest_keys[i]),
				    "%s is for the guest: mode = host keeps the ports on the "
				    "host (the [bond] section)",
				    guest_keys[i]);
	if (p->nic.guest_bond != GP_GBOND_NONE && p->nic.naddresses > 1)
		return fail(st, key_line(st, "nic", "addresses"),
			    "a guest bond takes one address (the bond's), not %d",
			    p->nic.naddresses);
	if (p->nic.guest_bond != GP_GBOND_NONE && nic_single_port(p))
		return fail(st, key_line(st, "nic", "guest_bond"),
			    "a guest bond needs two ports; match names one");
	port = bond_port_passed(p);
	if (port)
		return fail(st, key_line(st, "nic", "match"),
			    "%s is a [bond] port on the host and passed to the guest: a port "
			    "serves one (mode = host keeps it for the bond)",
			    port);
	return 1;
}

static int validate(struct parse_state *st)
{
	struct gp_profile *p = st->p;
	int i, eof = st->line ? st->line : 1;

	if (!st->section_line[1])
		return fail(st, eof, "missing section [gpus]");
	if (!p->nmatch)
		return fail(st, st->section_line[1], "missing key 'match' in [gpus]");
	if (!p->count)
		return fail(st, st->section_line[1], "missing key 'count' in [gpus]");
	for (i = 0; i < p->ngpu_slots; i++)
		if (!slot_for(p, p->gpu_slots[i]))
			return fail(st, st->gpus_slots_line, "slot '%s' has no [slot.%s] section",
				    p->gpu_slots[i], p->gpu_slots[i]);
	for (i = 0; i < p->nslots; i++) {
		const struct gp_slot *s = &p->slots[i];

		if (!s->root_port[0] && !s->address[0])
			return fail(st, s->line,
				    "missing key 'root_port' in [slot.%s] (or 'address' for a "
				    "slot on a root bus)",
				    s->name);
		if (s->root_port[0] && s->address[0])
			return fail(st, s->line,
				    "[slot.%s] has both root_port and address: a slot on a root "
				    "bus has no root port",
				    s->name);
	}
	if (p->has_vm && !p->vm.name[0])
		return fail(st, st->section_line[2], "missing key 'name' in [vm]");
	if (p->has_vm && !p->vm.output[0])
		snprintf(p->vm.output, sizeof(p->vm.output), "/var/lib/gpuprov/%s.xml", p->vm.name);
	if (p->has_bond && !p->bond.name[0])
		return fail(st, st->section_line[3], "missing key 'name' in [bond]");
	if (p->has_bond && !p->bond.nslaves)
		return fail(st, st->section_line[3], "missing key 'slaves' in [bond]");
	if (p->has_bond && p->bond.min_links > (unsigned)p->bond.nslaves)
		return fail(st, st->section_line[3], "min_links %u is more than the %d slaves",
			    p->bond.min_links, p->bond.nslaves);
	if (p->has_nic)
		return validate_nic(st);
	return 1;
}

static void defaults(struct gp_profile *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	gp_strlcpy(p->path, name, sizeof(p->path));
	p->same_numa_node = true;
	p->p2p = GP_P2P_REQUIRED;
	p->companions = GP_COMP_REFUSE;
	p->vm.vcpus = 8;
	p->vm.memory = 16ull << 30;
	gp_strlcpy(p->vm.numa, "strict", sizeof(p->vm.numa));
	p->vm.clique = -1;
	p->vm.define = true;
	gp_strlcpy(p->vm.uri, "qemu:///system", sizeof(p->vm.uri));
	gp_strlcpy(p->bond.mode, "802.3ad", sizeof(p->bond.mode));
	p->bond.miimon = 100;
	gp_strlcpy(p->bond.lacp_rate, "slow", sizeof(p->bond.lacp_rate));
	gp_strlcpy(p->bond.xmit_hash_policy, "layer3+4", sizeof(p->bond.xmit_hash_policy));
	gp_strlcpy(p->bond.ad_select, "stable", sizeof(p->bond.ad_select));
	p->bond.min_links = 1;
	p->bond.mtu = 1500;
	gp_strlcpy(p->bond.persist, "auto", sizeof(p->bond.persist));
	p->nic.mode = GP_NIC_UNSET;
	p->nic.guest_bond = GP_GBOND_NONE;
}

static int run(struct parse_state *st)
{
	int rc, i;

	rc = ini_parse_stream(reader, st, handler, st);
	if (rc > 0 && !st->error_line)
		fail(st, rc, "syntax error: expected '[section]' or 'key = value'");
	if (rc < 0 && !st->error_line)
		fail(st, 0, "cannot parse (inih error %d)", rc);
	if (!st->error_line)
		validate(st);
	for (i = 0; i < st->nseen; i++)
		free(st->seen[i]);
	if (!st->error_line)
		return 0;
	snprintf(st->p->error, sizeof(st->p->error), "%s:%d: %s", st->name, st->error_line,
		 st->error);
	return -EINVAL;
}

int gp_profile_parse_string(const char *name, const char *text, struct gp_profile *p)
{
	struct parse_state st = { .p = p, .name = name, .text = text, .len = strlen(text) };

	defaults(p, name);
	return run(&st);
}

int gp_profile_load(const char *path, struct gp_profile *p)
{
	struct parse_state st = { .p = p, .name = path };
	char *text;
	ssize_t n;
	int rc;

	defaults(p, path);
	/* the safe reader: a FIFO or /dev/zero is refused, not waited on */
	n = gp_root_slurp(AT_FDCWD, path, GP_PROFILE_MAX, &text);
	if (n < 0) {
		snprintf(p->error, sizeof(p->error), "cannot open profile '%s': %s%s", path,
			 gp_root_strerror((int)n),
			 n == -EISDIR ? " (-p takes the profile file itself, such as the one "
					"'gpuprov profile discover' writes)"
				      : "");
		return (int)n;
	}
	st.text = text;
	st.len = (size_t)n;
	rc = run(&st);
	free(text);
	return rc;
}
