# Sourced by tests/cli/t_ansible_*.sh: the collection in ansible/, built with
# ansible-galaxy and installed into a scratch directory, as an operator would.
# Sets D (scratch, removed at exit) and COLL (the installed collection's root);
# Debian's ansible-core (scripts/deps.sh), the real gpuprov binary.
set -eu
G=$(pwd)/${GPUPROV:-build/test/gpuprov}
FIX=$(pwd)/build/hosts
PROFILE=$(pwd)/profiles/h3c-r5350-g6.ini
D=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$D"' EXIT
export HOME="$D/home" ANSIBLE_HOME="$D/home/.ansible" ANSIBLE_COLLECTIONS_PATH="$D/collections"
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
mkdir -p "$HOME"
# Debian's python (ansible's own), not a python3 earlier in PATH
export PATH="/usr/bin:$PATH"
ansible-galaxy collection build ansible --output-path "$D" >"$D/build.log" 2>&1 ||
	{ cat "$D/build.log"; exit 1; }
ansible-galaxy collection install "$D"/gpuprov-fleet-*.tar.gz -p "$D/collections" >"$D/install.log" 2>&1 ||
	{ cat "$D/install.log"; exit 1; }
COLL=$D/collections/ansible_collections/gpuprov/fleet
