# Sourced by the scripted tests: what several of them share.

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
	echo "tests/cli/lib.sh reads no command table (src/cli/main.c) or option table (src/cli/cmd.h)"
	exit 1
}
