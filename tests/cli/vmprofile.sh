# Sourced by the scripted tests that need a VM profile or libvirt's embedded
# QEMU driver; one copy of the set-up they shared.

# gp_embed_libvirt DIR: libvirt's qemu:///embed driver rooted in DIR/embed,
# running QEMU as root; sets $uri.
gp_embed_libvirt() {
	mkdir -p "$1/embed/etc"
	printf 'user = "root"\ngroup = "root"\n' >"$1/embed/etc/qemu.conf"
	# the driver resolves its default user first (scripts/deps.sh creates it)
	id libvirt-qemu >/dev/null 2>&1 ||
		{ echo "no system user libvirt-qemu: run sh scripts/deps.sh" >&2; exit 1; }
	uri="qemu:///embed?root=$1/embed"
}

# gp_vm_profile FILE OUTPUT URI [TEMPLATE]: the two sample GPUs and a small
# VM named gp-test-vm, written to OUTPUT through URI.
gp_vm_profile() {
	{
		printf '[gpus]\nmatch = 10de:20b5\ncount = 2\n'
		printf '[vm]\nname = gp-test-vm\nvcpus = 1\nmemory = 256MiB\n'
		printf 'numa = none\n'
		[ -z "${4:-}" ] || printf 'template = %s\n' "$4"
		printf 'output = %s\nuri = %s\n' "$2" "$3"
	} >"$1"
}
