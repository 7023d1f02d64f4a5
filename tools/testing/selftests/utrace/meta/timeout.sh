# SPDX-License-Identifier: GPL-2.0
# Meta-test (host injects it, with an 8 s limit per test): a test that
# reaches its time limit is reported as failed, with the tasks it left (a
# sleep of its own and one it started), which are then killed.
sleep 1000 &
sleep 1000
