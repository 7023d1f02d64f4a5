# SPDX-License-Identifier: GPL-2.0
# Meta-test (host injects it): a guest test that fails must be reported as failed.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
expect_eq "a deliberately wrong value" 1 2
