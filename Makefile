# SPDX-License-Identifier: GPL-2.0
#
# afw: "make" builds the kernel module and the userspace tools,
# "make install" installs both, "make check" runs every test.
# The kernel part itself is described in Kbuild.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# Kernel headers: the running kernel's, else the newest installed ones.
KVER ?= $(shell uname -r)
ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
    KDIR := /lib/modules/$(KVER)/build
  else
    KDIR := $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
    ifneq ($(KDIR),)
      KVER := $(notdir $(patsubst %/build,%,$(KDIR)))
      $(info afw: no headers for the running kernel; building against $(KDIR))
    endif
  endif
endif

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

PKG_CONFIG ?= pkg-config
CC ?= cc
CFLAGS ?= -O2 -g
AFW_CFLAGS := -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-DAFW_VERSION='"$(VERSION)"' -Iinclude/uapi -Iuserspace/lib

B := build
LIB_SRCS := userspace/lib/afwnl.c userspace/lib/attr.c userspace/lib/status.c userspace/lib/rule.c \
	userspace/lib/flow.c userspace/lib/stats.c
AFWCTL_SRCS := userspace/afwctl/afwctl.c userspace/afwctl/status.c userspace/afwctl/json.c \
	userspace/afwctl/rule.c userspace/afwctl/ruleset.c \
	userspace/afwctl/flow.c userspace/afwctl/stats.c
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
HDRS := include/uapi/linux/afw.h $(wildcard userspace/lib/*.h userspace/afwctl/*.h)

.PHONY: all module userspace unit install install-module install-userspace \
	dkms-install dkms-remove check vm-demo up deps clean pkgcheck

all: module userspace

module:
	@if [ -z "$(KDIR)" ]; then \
		echo "afw: no kernel headers found; install linux-headers-$$(uname -r) or run 'make deps'" >&2; \
		exit 1; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace: $(B)/afwctl

pkgcheck:
	@$(PKG_CONFIG) --exists libmnl || { \
		echo "afw: libmnl not found by pkg-config; install libmnl-dev (or run 'make deps')" >&2; \
		exit 1; }

MNL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libmnl)
MNL_LIBS = $(shell $(PKG_CONFIG) --libs libmnl)

$(B)/%.o: %.c $(HDRS) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(AFW_CFLAGS) $(MNL_CFLAGS) -c -o $@ $<

$(B)/libafw.a: $(LIB_SRCS:%.c=$(B)/%.o)
	$(AR) rcs $@ $^

$(B)/afwctl: $(AFWCTL_SRCS:%.c=$(B)/%.o) $(B)/libafw.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS)

unit: $(UNIT_BINS)

install: install-module install-userspace

install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

install-userspace: userspace
	install -D -m 0755 $(B)/afwctl $(DESTDIR)$(SBINDIR)/afwctl
	install -D -m 0644 docs/afwctl.8 $(DESTDIR)$(MANDIR)/man8/afwctl.8

# dkms builds from a copy of the kernel sources under /usr/src.
DKMS_SRC := $(DESTDIR)/usr/src/afw-$(VERSION)

dkms-install:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/module $(DKMS_SRC)/include/uapi/linux
	install -m 0644 Kbuild dkms.conf $(DKMS_SRC)/
	install -m 0644 module/*.c module/*.h $(DKMS_SRC)/module/
	install -m 0644 include/uapi/linux/afw.h $(DKMS_SRC)/include/uapi/linux/
	dkms add -m afw -v $(VERSION)
	dkms build -m afw -v $(VERSION) -k $(KVER)
	dkms install -m afw -v $(VERSION) -k $(KVER)

dkms-remove:
	dkms remove -m afw -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# A sub-make, so that headers installed by "make deps check" on a fresh
# machine are seen: this make read KDIR before they existed.
# STAGES limits tests/run (unit build host vm), e.g. make check STAGES=unit.
check:
	$(MAKE) all unit
	tests/run $(STAGES)

vm-demo:
	$(MAKE) all
	tests/vm/demo.sh

up:
	scripts/afw-up

deps:
	scripts/install-deps

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf $(B)
