# SPDX-License-Identifier: GPL-2.0
#
# dkms.conf's MAKE: build the product modules (UTRACE_PRODUCT=1: no selftest
# engines) in this (DKMS build) directory against the object dir PRE_BUILD
# made (UTRACE_KOBJ, with the kernel's Rust metadata), with the compiler the
# kernel was built with. DKMS passes KERNELRELEASE.

UTRACE_KOBJ ?= /var/lib/utrace-rs/$(KERNELRELEASE)
kcc = $(shell $(CURDIR)/scripts/kernel-cc.sh $(UTRACE_KOBJ))

modules clean:
	$(MAKE) -C $(UTRACE_KOBJ) M=$(CURDIR) $(kcc) UTRACE_PRODUCT=1 $@

.PHONY: modules clean
