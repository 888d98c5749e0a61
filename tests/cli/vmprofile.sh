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
	echo "not exercised: $(basename "$0" .sh): a domain of type kvm (no /dev/kvm: defined as TCG)"
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
