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
