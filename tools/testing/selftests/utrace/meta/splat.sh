# SPDX-License-Identifier: GPL-2.0
# Meta-test (host injects it): a test that exits 0 but leaves a kernel warning
# in the log must be reported as failed.
echo "WARNING: injected by the utrace-rs runner meta-test" >/dev/kmsg
exit 0
