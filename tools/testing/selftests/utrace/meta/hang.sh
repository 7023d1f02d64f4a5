# SPDX-License-Identifier: GPL-2.0
# Meta-test (host injects it): a guest that never finishes must be caught by
# the host's time limit.
sleep 100000
