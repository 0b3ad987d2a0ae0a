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
	-DAFW_VERSION='"$(VERSION)"' -Iinclude/uapi -Iuserspace/lib -Iuserspace/afwd

B := build
LIB_SRCS := userspace/lib/afwnl.c userspace/lib/attr.c userspace/lib/status.c userspace/lib/rule.c \
	userspace/lib/flow.c userspace/lib/stats.c userspace/lib/words.c
AFWCTL_SRCS := userspace/afwctl/afwctl.c userspace/afwctl/status.c userspace/afwctl/json.c \
	userspace/afwctl/rule.c userspace/afwctl/ruleset.c \
	userspace/afwctl/flow.c userspace/afwctl/stats.c
# afwd's protocol parsers, a library of their own so tests and fuzzers link them.
AFWD_LIB_SRCS := userspace/afwd/tls.c userspace/afwd/ja4.c userspace/afwd/http.c \
	userspace/afwd/pkt.c userspace/afwd/reasm.c userspace/afwd/pcap.c \
	userspace/afwd/quic.c userspace/afwd/policy.c userspace/afwd/policy_match.c \
	userspace/afwd/hostname.c userspace/afwd/pace.c userspace/afwd/engine.c \
	userspace/afwd/h2.c userspace/afwd/tcp.c
AFWD_SRCS := userspace/afwd/afwd.c userspace/afwd/worker.c userspace/afwd/queue.c \
	userspace/afwd/kernel.c userspace/afwd/report.c \
	userspace/afwd/offline.c userspace/afwd/ctl.c
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
HDRS := include/uapi/linux/afw.h $(wildcard userspace/lib/*.h userspace/afwctl/*.h) \
	$(wildcard userspace/afwd/*.h tests/unit/*.h)

.PHONY: all module userspace unit fuzz install install-module install-userspace \
	dkms-install dkms-remove check vm-demo up deps clean pkgcheck bench-parse

all: module userspace

module:
	@if [ -z "$(KDIR)" ]; then \
		echo "afw: no kernel headers found; install linux-headers-$$(uname -r) or run 'make deps'" >&2; \
		exit 1; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace: $(B)/afwctl $(B)/afwd

pkgcheck:
	@$(PKG_CONFIG) --exists libmnl || { \
		echo "afw: libmnl not found by pkg-config; install libmnl-dev (or run 'make deps')" >&2; \
		exit 1; }
	@$(PKG_CONFIG) --exists libcrypto || { \
		echo "afw: libcrypto not found by pkg-config; install libssl-dev (or run 'make deps')" >&2; \
		exit 1; }
	@$(PKG_CONFIG) --exists libnetfilter_queue || { \
		echo "afw: libnetfilter_queue not found by pkg-config; install libnetfilter-queue-dev (or run 'make deps')" >&2; \
		exit 1; }
	@$(PKG_CONFIG) --exists liburing || { \
		echo "afw: liburing not found by pkg-config; install liburing-dev (or run 'make deps')" >&2; \
		exit 1; }
	@$(PKG_CONFIG) --exists libnghttp2 || { \
		echo "afw: libnghttp2 not found by pkg-config; install libnghttp2-dev (or run 'make deps')" >&2; \
		exit 1; }

NFQ_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnetfilter_queue)
NFQ_LIBS = $(shell $(PKG_CONFIG) --libs libnetfilter_queue)
MNL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libmnl)
MNL_LIBS = $(shell $(PKG_CONFIG) --libs libmnl)
CRYPTO_CFLAGS = $(shell $(PKG_CONFIG) --cflags libcrypto)
CRYPTO_LIBS = $(shell $(PKG_CONFIG) --libs libcrypto)
URING_CFLAGS = $(shell $(PKG_CONFIG) --cflags liburing)
URING_LIBS = $(shell $(PKG_CONFIG) --libs liburing)
NGHTTP2_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnghttp2)
NGHTTP2_LIBS = $(shell $(PKG_CONFIG) --libs libnghttp2)

$(B)/%.o: %.c $(HDRS) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(AFW_CFLAGS) $(MNL_CFLAGS) $(NFQ_CFLAGS) $(CRYPTO_CFLAGS) $(URING_CFLAGS) \
		$(NGHTTP2_CFLAGS) -c -o $@ $<

$(B)/libafw.a: $(LIB_SRCS:%.c=$(B)/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/libafwd.a: $(AFWD_LIB_SRCS:%.c=$(B)/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/afwctl: $(AFWCTL_SRCS:%.c=$(B)/%.o) $(B)/libafw.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS)

$(B)/afwd: $(AFWD_SRCS:%.c=$(B)/%.o) $(B)/libafwd.a $(B)/libafw.a
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $^ $(NFQ_LIBS) $(MNL_LIBS) $(CRYPTO_LIBS) \
		$(URING_LIBS) $(NGHTTP2_LIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(B)/libafwd.a $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS) $(CRYPTO_LIBS) $(NGHTTP2_LIBS)

unit: $(UNIT_BINS)

# libFuzzer targets: each fuzzer is built from its source and the parsers' sources,
# all instrumented, with clang.
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Itests/unit
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))

$(B)/fuzz/%: tests/fuzz/%.c $(AFWD_LIB_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(AFW_CFLAGS) $(CRYPTO_CFLAGS) $(NGHTTP2_CFLAGS) -o $@ $< \
		$(AFWD_LIB_SRCS) userspace/lib/words.c \
		$(CRYPTO_LIBS) $(NGHTTP2_LIBS)

fuzz: $(FUZZ_BINS)

# ClientHello parse cost against nDPI, counted by callgrind (bench/parse.sh runs it).
NDPI_CFLAGS = $(shell $(PKG_CONFIG) --cflags libndpi)
NDPI_LIBS = $(shell $(PKG_CONFIG) --libs libndpi)

bench-parse: $(B)/bench/parse

$(B)/bench/parse: bench/parse.c $(B)/libafwd.a $(HDRS)
	@$(PKG_CONFIG) --exists libndpi && [ -e /usr/include/valgrind/callgrind.h ] || { \
		echo "afw: the parse benchmark needs libndpi-dev and valgrind; run 'sudo scripts/install-deps --bench'" >&2; \
		exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(AFW_CFLAGS) $(NDPI_CFLAGS) $(CRYPTO_CFLAGS) -o $@ $< $(B)/libafwd.a \
		$(NDPI_LIBS) $(CRYPTO_LIBS) $(NGHTTP2_LIBS)

install: install-module install-userspace

install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

SYSTEMDUNITDIR ?= /lib/systemd/system
SYSCONFDIR ?= /etc

install-userspace: userspace
	install -D -m 0755 $(B)/afwctl $(DESTDIR)$(SBINDIR)/afwctl
	install -D -m 0755 $(B)/afwd $(DESTDIR)$(SBINDIR)/afwd
	install -D -m 0644 docs/afwctl.8 $(DESTDIR)$(MANDIR)/man8/afwctl.8
	install -D -m 0644 docs/afwd.8 $(DESTDIR)$(MANDIR)/man8/afwd.8
	install -D -m 0644 docs/afwd-policy.5 $(DESTDIR)$(MANDIR)/man5/afwd-policy.5
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/afwd.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/afwd.service
	@# A policy the admin has written is never overwritten.
	@if [ ! -e $(DESTDIR)$(SYSCONFDIR)/afw/policy.conf ]; then \
		install -D -m 0644 dist/policy.conf $(DESTDIR)$(SYSCONFDIR)/afw/policy.conf; fi

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
# STAGES limits tests/run (unit fuzz build host vm), e.g. make check STAGES=unit.
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
