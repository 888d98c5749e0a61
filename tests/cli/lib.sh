# Sourced by every scripted test (tests/cli/t_*.sh) right after its `set`
# line, as  . "$(dirname "$0")/lib.sh"  It runs the test from the repository
# root and gives it:
#   G               the binary under test, absolute ($GPUPROV, by default
#                   build/test/gpuprov)
#   d               a scratch directory of the test's own (mktemp -d, 0700),
#                   removed when the test exits
#   fail MESSAGE    "FAIL: t_NAME: MESSAGE" on stderr, and exit 1
#   gp_bad MESSAGE  the same line, the test going on; gp_end exits 1 if any
#   gp_on_exit CMD  CMD runs at exit, before $d is removed (an unmount)
#   gp_host NAME    build/hosts/NAME, the fixture host (make fixtures)
#   gp_profile NAME profiles/NAME.ini, or the test profile tests/cli/profiles/NAME.ini
#   gp_own_state    the journal ($d/journal) and the lock ($d/run) the test's own
#   gp_not_exercised WHAT  says what this host could not exercise (tests/run.sh)
# and the helpers below: copies another user can run, the command and option
# tables, libvirt's embedded QEMU driver and a VM profile.

# a test run as bash reading stdin (t_completion) is there already, and says
# its GP_NAME itself
_gp_dir=$(dirname "$0")
if [ -f "$_gp_dir/lib.sh" ]; then
	cd "$_gp_dir/../.."
fi
GP_NAME=${GP_NAME:-$(basename "$0" .sh)}
G=${GPUPROV:-build/test/gpuprov}
case $G in /*) ;; *) G=$(pwd)/$G ;; esac

fail() {
	echo "FAIL: $GP_NAME: $*" >&2
	exit 1
}

GP_BAD=0
gp_bad() {
	echo "FAIL: $GP_NAME: $*" >&2
	GP_BAD=$((GP_BAD + 1))
}
gp_end() {
	[ "$GP_BAD" -eq 0 ] || exit 1
	exit 0
}

gp_not_exercised() {
	echo "not exercised: $GP_NAME: $*"
}

# at exit: the hooks, in order (one that fails does not stop the rest), then $d
_gp_exit_hooks=
gp_on_exit() {
	_gp_exit_hooks="$_gp_exit_hooks$*
"
}
_gp_exit() {
	set +e
	eval "$_gp_exit_hooks"
	rm -rf "$d"
}
d=$(mktemp -d)
trap _gp_exit EXIT

gp_host() {
	[ -d "build/hosts/$1" ] || fail "no fixture host build/hosts/$1: make fixtures"
	echo "build/hosts/$1"
}
gp_profile() {
	for _p in "profiles/$1.ini" "tests/cli/profiles/$1.ini"; do
		[ -f "$_p" ] && { echo "$_p"; return 0; }
	done
	fail "no profile $1 (profiles/, tests/cli/profiles/)"
}

gp_own_state() {
	export GPUPROV_STATE_DIR="$d/journal" GPUPROV_RUN_DIR="$d/run"
}

# gp_user_copy DIR FILE...: copies of FILEs in DIR (made 0755) that another
# user can reach: the tests that run gpuprov as uid 65534 run such a copy of
# the binary (and read such a copy of a profile), since the checkout may sit
# in a directory only root may enter (root's home is 0700 on Debian).
gp_user_copy() {
	_dir=$1
	shift
	mkdir -p "$_dir"
	chmod 0755 "$_dir"
	for _f; do
		cp "$_f" "$_dir/"
		chmod a+rX "$_dir/$(basename "$_f")"
	done
}

# gp_commands: the names of main.c's command table (COMMANDS: C(nccl_topo) is
# nccl-topo), in its order.
gp_commands() {
	sed -n 's/^	C(\([a-z_]*\)).*/\1/p' src/cli/main.c | tr _ -
}

# gp_options: the long names of cmd.h's option table (GP_OPTIONS), in its
# order; gp_valued_options: each way to type one that takes a value (-p --profile).
gp_option_rows() {
	sed -n "s/^	O([A-Z_]*, \\('.'\\|0\\), \"\\([a-z-]*\\)\", \\([A-Z\"]*\\|NULL\\),.*/\\1 \\2 \\3/p" src/cli/cmd.h
}
gp_options() {
	gp_option_rows | cut -d' ' -f2
}
gp_valued_options() {
	gp_option_rows | while read -r _letter _name _value; do
		[ "$_value" != NULL ] || continue
		[ "$_letter" = 0 ] || echo "-$(echo "$_letter" | tr -d "'")"
		echo "--$_name"
	done
}

# The tables as these read them, or the test stops: a format they no longer
# read must fail a test, not let its loops check nothing.
gp_tables_read() {
	[ -n "$(gp_commands)" ] && [ -n "$(gp_options)" ] && return 0
	fail "tests/cli/lib.sh reads no command table (src/cli/main.c) or option table (src/cli/cmd.h)"
}

# ---- libvirt's embedded QEMU driver and a VM profile ----

# gp_embed_libvirt DIR: libvirt's qemu:///embed driver rooted in DIR/embed,
# running QEMU as root; sets $uri.
gp_embed_libvirt() {
	mkdir -p "$1/embed/etc"
	printf 'user = "root"\ngroup = "root"\n' >"$1/embed/etc/qemu.conf"
	# the driver resolves its default user first (scripts/deps.sh creates it)
	id libvirt-qemu >/dev/null 2>&1 || fail "no system user libvirt-qemu: run sh scripts/deps.sh"
	uri="qemu:///embed?root=$1/embed"
}

# gp_host_template TEMPLATE COPY: TEMPLATE as this host's libvirt defines
# it, in COPY.  libvirt refuses a domain of type 'kvm' where QEMU has no KVM
# (no /dev/kvm: a cloud VM, TCG): there the copy is a 'qemu' (TCG) domain,
# and the test says on a "not exercised:" line (tests/run.sh's summary)
# that the KVM domain was not defined.
gp_host_template() {
	if [ -c /dev/kvm ]; then
		cp "$1" "$2"
		return 0
	fi
	sed "s/<domain type=[\"']kvm[\"']/<domain type='qemu'/" "$1" >"$2"
	gp_not_exercised "a domain of type kvm (no /dev/kvm: defined as TCG)"
}

# gp_vm_profile FILE OUTPUT URI [TEMPLATE]: the two sample GPUs and a small
# VM named gp-test-vm, written to OUTPUT through URI, from TEMPLATE (the
# shipped one by default) as this host's libvirt takes it (FILE.xml).
gp_vm_profile() {
	gp_host_template "${4:-templates/domain-q35-ovmf.xml}" "$1.xml"
	{
		printf '[gpus]\nmatch = 10de:20b5\ncount = 2\n'
		printf '[vm]\nname = gp-test-vm\nvcpus = 1\nmemory = 256MiB\n'
		printf 'numa = none\n'
		printf 'template = %s\n' "$1.xml"
		printf 'output = %s\nuri = %s\n' "$2" "$3"
	} >"$1"
}
