# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the scripts that make Debian chroots (distro.sh, deb.sh,
# newcomer.sh); sourced, never run.

# host_mirrors: MIRROR and SECURITY, the host's Debian mirrors for its own
# release and its security updates, from its apt sources (never a fixed host
# name); either is empty when the sources have none. Sets HOST_CODENAME.
# shellcheck disable=SC2034 # the callers' variables
host_mirrors() {
	local sites
	HOST_CODENAME=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null || true)
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
	sites=$(apt-get indextargets --format '$(SITE) $(RELEASE)' 2>/dev/null | sort -u)
	MIRROR=$(awk -v r="$HOST_CODENAME" '$2 == r { print $1; exit }' <<<"$sites")
	SECURITY=$(awk -v r="$HOST_CODENAME-security" '$2 == r { print $1; exit }' <<<"$sites")
}

# copy_checkout TOP DEST: the checkout at TOP as a clone would have it, with
# uncommitted changes, never build output (outside git: all but ./build).
copy_checkout() {
	if git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$1" ls-files -z --cached --others --exclude-standard |
			(cd "$1" && tar --null -T - -cf -) | tar -xf - -C "$2"
	else
		(cd "$1" && tar --exclude=./build -cf - .) | tar -xf - -C "$2"
	fi
}

# chroot_run ROOT [HOST_DIR:CHROOT_DIR[:ro]...] -- CMD...: CMD in the chroot
# ROOT with /proc, /dev and those bind mounts (private mounts, gone when CMD
# ends), in a clean environment: PATH, HOME=/root, LANG=C.UTF-8.
chroot_run() {
	# shellcheck disable=SC2016 # the inner script's own arguments
	unshare --mount --propagation private -- /bin/sh -eu -c '
		root=$1; shift
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		while [ "$1" != -- ]; do
			src=${1%%:*} rest=${1#*:}
			dst=${rest%%:*}
			mkdir -p "$root$dst"
			mount --bind "$src" "$root$dst"
			[ "$rest" = "$dst:ro" ] && mount -o remount,bind,ro "$root$dst"
			shift
		done
		shift
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 "$@"' sh "$@"
}
