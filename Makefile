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
	-DAFW_VERSION='"$(VERSION)"' -Iinclude/uapi -Iuserspace/lib -Iuserspace/l7 -Iuserspace/afwd

B := build
LIB_SRCS := userspace/lib/afwnl.c userspace/lib/attr.c userspace/lib/status.c userspace/lib/rule.c \
	userspace/lib/flow.c userspace/lib/stats.c userspace/lib/words.c userspace/lib/conf.c \
	userspace/lib/nfqueue.c userspace/lib/cgroup.c
AFWCTL_SRCS := userspace/afwctl/afwctl.c userspace/afwctl/status.c userspace/afwctl/json.c \
	userspace/afwctl/rule.c userspace/afwctl/ruleset.c \
	userspace/afwctl/flow.c userspace/afwctl/stats.c userspace/afwctl/switch.c \
	userspace/afwctl/decided.c userspace/afwctl/log.c userspace/afwctl/ask.c userspace/afwctl/top.c \
	userspace/afwctl/learned.c \
	userspace/l7/escape.c
# What afwd reads and decides, apart from the daemon: packets and TCP
# reassembly, the readers, the flow engine, the policy and the decision
# records. A library that the daemon, the tests, the fuzzers and the
# benchmarks link.
L7_SRCS := userspace/l7/pkt.c userspace/l7/reasm.c userspace/l7/tcp.c userspace/l7/pcap.c \
	userspace/l7/tls.c userspace/l7/ja4.c userspace/l7/quic.c userspace/l7/http.c \
	userspace/l7/h2.c userspace/l7/dns.c userspace/l7/engine.c userspace/l7/policy.c \
	userspace/l7/policy_match.c userspace/l7/policy_shadow.c userspace/l7/hostname.c \
	userspace/l7/resolvers.c userspace/l7/escape.c userspace/l7/report.c
# The daemon's pieces that unit tests drive without a queue.
AFWD_LIB_SRCS := userspace/afwd/pace.c userspace/afwd/ledger.c userspace/afwd/settings.c
AFWD_SRCS := userspace/afwd/afwd.c userspace/afwd/worker.c userspace/afwd/queue.c \
	userspace/afwd/kernel.c userspace/afwd/offline.c userspace/afwd/ctl.c userspace/afwd/log.c \
	userspace/afwd/conntrack.c userspace/afwd/privs.c userspace/afwd/events.c \
	userspace/afwd/ask.c
UNIT_SRCS := $(filter-out tests/unit/test_classify.c,$(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS)) $(B)/tests/test_classify
HDRS := include/uapi/linux/afw.h $(wildcard userspace/lib/*.h userspace/afwctl/*.h) \
	$(wildcard userspace/l7/*.h userspace/afwd/*.h tests/unit/*.h)

.PHONY: all module userspace unit tools fuzz install install-module install-userspace \
	uninstall uninstall-module uninstall-userspace \
	dkms-install dkms-remove check vm-demo up deps clean pkgcheck bench bench-parse deb \
	stress stress-long nlfuzz-long fuzz-long checkpatch vm-dkms-upgrade

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
	@$(PKG_CONFIG) --exists libcap || { \
		echo "afw: libcap not found by pkg-config; install libcap-dev (or run 'make deps')" >&2; \
		exit 1; }
	@$(PKG_CONFIG) --exists sqlite3 || { \
		echo "afw: sqlite3 not found by pkg-config; install libsqlite3-dev (or run 'make deps')" >&2; \
		exit 1; }
	@$(PKG_CONFIG) --exists ncursesw || { \
		echo "afw: ncursesw not found by pkg-config; install libncurses-dev (or run 'make deps')" >&2; \
		exit 1; }

NFQ_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnetfilter_queue)
NFQ_LIBS = $(shell $(PKG_CONFIG) --libs libnetfilter_queue)
MNL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libmnl)
MNL_LIBS = $(shell $(PKG_CONFIG) --libs libmnl)
CRYPTO_CFLAGS = $(shell $(PKG_CONFIG) --cflags libcrypto)
CRYPTO_LIBS = $(shell $(PKG_CONFIG) --libs libcrypto)
SSL_LIBS = $(shell $(PKG_CONFIG) --libs libssl)
URING_CFLAGS = $(shell $(PKG_CONFIG) --cflags liburing)
URING_LIBS = $(shell $(PKG_CONFIG) --libs liburing)
NGHTTP2_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnghttp2)
NGHTTP2_LIBS = $(shell $(PKG_CONFIG) --libs libnghttp2)
CAP_CFLAGS = $(shell $(PKG_CONFIG) --cflags libcap)
CAP_LIBS = $(shell $(PKG_CONFIG) --libs libcap)
SQLITE_CFLAGS = $(shell $(PKG_CONFIG) --cflags sqlite3)
SQLITE_LIBS = $(shell $(PKG_CONFIG) --libs sqlite3)
CURSES_CFLAGS = $(shell $(PKG_CONFIG) --cflags ncursesw)
CURSES_LIBS = $(shell $(PKG_CONFIG) --libs ncursesw)

$(B)/%.o: %.c $(HDRS) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(AFW_CFLAGS) $(MNL_CFLAGS) $(NFQ_CFLAGS) $(CRYPTO_CFLAGS) $(URING_CFLAGS) \
		$(NGHTTP2_CFLAGS) $(CAP_CFLAGS) $(SQLITE_CFLAGS) $(CURSES_CFLAGS) -c -o $@ $<

$(B)/libafw.a: $(LIB_SRCS:%.c=$(B)/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/libafwl7.a: $(L7_SRCS:%.c=$(B)/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/libafwd.a: $(AFWD_LIB_SRCS:%.c=$(B)/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/afwctl: $(AFWCTL_SRCS:%.c=$(B)/%.o) $(B)/libafw.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS) $(SQLITE_LIBS) $(CURSES_LIBS)

$(B)/afwd: $(AFWD_SRCS:%.c=$(B)/%.o) $(B)/libafwd.a $(B)/libafwl7.a $(B)/libafw.a
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $^ $(NFQ_LIBS) $(MNL_LIBS) $(CRYPTO_LIBS) \
		$(URING_LIBS) $(NGHTTP2_LIBS) $(CAP_LIBS) $(SQLITE_LIBS)

# afwctl's reading of afwd's answers is afwctl's own.
$(B)/tests/test_decided: $(B)/tests/unit/test_decided.o $(B)/userspace/afwctl/decided.o $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS)

# The log's writer, with the event log it feeds.
$(B)/tests/test_log: $(B)/tests/unit/test_log.o $(B)/userspace/afwd/log.o \
		$(B)/userspace/afwd/events.o $(B)/libafwl7.a $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $^ $(MNL_LIBS) $(CRYPTO_LIBS) $(NGHTTP2_LIBS) \
		$(SQLITE_LIBS)

# afwd's requests to the module, sent to a family nobody holds.
$(B)/tests/test_kern: $(B)/tests/unit/test_kern.o $(B)/userspace/afwd/kernel.o $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS)

# afwd's board of questions.
$(B)/tests/test_ask: $(B)/tests/unit/test_ask.o $(B)/userspace/afwd/ask.o $(B)/libafwd.a \
		$(B)/libafwl7.a $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $^ $(MNL_LIBS) $(CRYPTO_LIBS) $(NGHTTP2_LIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(B)/libafwd.a $(B)/libafwl7.a $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS) $(CRYPTO_LIBS) $(NGHTTP2_LIBS)

unit: $(UNIT_BINS)

# The module's classifier and its selftest, built for the host from the
# module's own files (tests/unit/kernel/ stands in for the kernel's API),
# under ASan and UBSan.
CLASSIFY_SRCS := module/classify.c module/classify.h module/rule.c module/rule.h \
	module/selftest.c module/sort.c module/sort.h module/counters.h module/tuple.h module/ident.h \
	include/uapi/linux/afw.h

$(B)/tests/test_classify: tests/unit/test_classify.c $(CLASSIFY_SRCS) $(wildcard tests/unit/kernel/*.h tests/unit/kernel/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O1 -Wall -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
		-Itests/unit/kernel -Itests/unit -Iinclude -o $@ $<

# Test programs the VM suite runs: the netlink fuzzer, the stress load and
# the benchmarks' TLS handshake timer.
TOOL_BINS := $(B)/tools/nlfuzz $(B)/tools/afwstress $(B)/tools/afwtlsrate
# The kernel selftest's NFQUEUE client, the seed table's per-packet queue
# peer (bench/seed-guest.sh), built from Debian's kernel source package and
# never kept in this tree; where the package is missing, its row says so.
LINUX_SOURCE ?= /usr/src/linux-source-6.1.tar.xz
ifneq ($(wildcard $(LINUX_SOURCE)),)
TOOL_BINS += $(B)/tools/nf-queue
endif

$(B)/tools/nlfuzz: $(B)/tests/fuzz/nlfuzz.o $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS)

$(B)/tools/afwstress: $(B)/tests/tools/afwstress.o $(B)/libafw.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS)

$(B)/tools/afwtlsrate: $(B)/tests/tools/afwtlsrate.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SSL_LIBS) $(CRYPTO_LIBS)

$(B)/tools/nf-queue: $(LINUX_SOURCE)
	@mkdir -p $(dir $@)
	tar -xJOf $< linux-source-6.1/tools/testing/selftests/netfilter/nf-queue.c > $@.c
	$(CC) $(CFLAGS) $(MNL_CFLAGS) -o $@ $@.c $(MNL_LIBS)

tools: $(TOOL_BINS)

# libFuzzer targets: each fuzzer is built from its source and the parsers,
# all instrumented, with clang. The parsers are compiled once, for every
# target (fuzzer-no-link: the coverage hooks without libFuzzer's main).
FUZZ_CC ?= clang
FUZZ_SAN := -g -O1 -fno-sanitize-recover=all -Itests/unit
FUZZ_FLAGS := $(FUZZ_SAN) -fsanitize=fuzzer,address,undefined
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJ := $(B)/fuzz/obj
FUZZ_AFWD_OBJS := $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(L7_SRCS) $(AFWD_LIB_SRCS) userspace/lib/words.c)
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(LIB_SRCS))

$(FUZZ_OBJ)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer-no-link,address,undefined $(AFW_CFLAGS) \
		$(CRYPTO_CFLAGS) $(NGHTTP2_CFLAGS) $(MNL_CFLAGS) -c -o $@ $<

$(B)/fuzz/%: tests/fuzz/%.c $(FUZZ_AFWD_OBJS) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(AFW_CFLAGS) $(CRYPTO_CFLAGS) $(NGHTTP2_CFLAGS) -o $@ $< \
		$(FUZZ_AFWD_OBJS) $(CRYPTO_LIBS) $(NGHTTP2_LIBS)

# The configuration file parser is afwctl's, with the netlink library.
$(B)/fuzz/fuzz_conf: tests/fuzz/fuzz_conf.c $(FUZZ_LIB_OBJS) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(AFW_CFLAGS) $(MNL_CFLAGS) -o $@ $< $(FUZZ_LIB_OBJS) $(MNL_LIBS)

fuzz: $(FUZZ_BINS)

# The seed table: every setup against no firewall, three VM boots (about 45
# minutes of wall time); results in docs/seed/ (bench/seed.sh says what).
BENCH_KERNEL ?= 6.1
bench: all tools
	bench/seed.sh $(BENCH_KERNEL)

# ClientHello parse cost against nDPI, counted by callgrind (bench/parse.sh runs it).
NDPI_CFLAGS = $(shell $(PKG_CONFIG) --cflags libndpi)
NDPI_LIBS = $(shell $(PKG_CONFIG) --libs libndpi)

bench-parse: $(B)/bench/parse

$(B)/bench/parse: bench/parse.c $(B)/libafwl7.a $(HDRS)
	@$(PKG_CONFIG) --exists libndpi && [ -e /usr/include/valgrind/callgrind.h ] || { \
		echo "afw: the parse benchmark needs libndpi-dev and valgrind; run 'sudo scripts/install-deps --bench'" >&2; \
		exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(AFW_CFLAGS) $(NDPI_CFLAGS) $(CRYPTO_CFLAGS) -o $@ $< $(B)/libafwl7.a \
		$(NDPI_LIBS) $(CRYPTO_LIBS) $(NGHTTP2_LIBS)

install: install-module install-userspace

install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

SYSTEMDUNITDIR ?= /lib/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
SYSCONFDIR ?= /etc
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

# What install-userspace puts in place, the admin's files in /etc aside;
# uninstall-userspace removes exactly these.
USERSPACE_FILES := $(SBINDIR)/afwctl $(SBINDIR)/afwd $(MANDIR)/man8/afwctl.8 \
	$(MANDIR)/man8/afwd.8 $(MANDIR)/man5/afwd-policy.5 $(SYSTEMDUNITDIR)/afwd.service \
	$(SYSTEMDUNITDIR)/afw.service $(BASHCOMPDIR)/afwctl $(BASHCOMPDIR)/afwd \
	$(SYSUSERSDIR)/afw.conf

install-userspace: userspace
	install -D -m 0755 $(B)/afwctl $(DESTDIR)$(SBINDIR)/afwctl
	install -D -m 0755 $(B)/afwd $(DESTDIR)$(SBINDIR)/afwd
	install -D -m 0644 docs/afwctl.8 $(DESTDIR)$(MANDIR)/man8/afwctl.8
	install -D -m 0644 docs/afwd.8 $(DESTDIR)$(MANDIR)/man8/afwd.8
	install -D -m 0644 docs/afwd-policy.5 $(DESTDIR)$(MANDIR)/man5/afwd-policy.5
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/afwd.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/afwd.service
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/afw.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/afw.service
	install -D -m 0644 dist/bash-completion/afwctl $(DESTDIR)$(BASHCOMPDIR)/afwctl
	install -D -m 0644 dist/bash-completion/afwd $(DESTDIR)$(BASHCOMPDIR)/afwd
	install -D -m 0644 dist/afw.sysusers $(DESTDIR)$(SYSUSERSDIR)/afw.conf
	@# afwd runs as afw once set up. A staged install (DESTDIR) leaves that
	@# to the package, whose systemd-sysusers reads the file above.
	@if [ -z "$(DESTDIR)" ] && ! getent passwd afw > /dev/null; then \
		if command -v systemd-sysusers > /dev/null; then \
			systemd-sysusers $(SYSUSERSDIR)/afw.conf; \
		else \
			useradd --system --user-group --no-create-home --home-dir /nonexistent \
				--shell /usr/sbin/nologin --comment "afw verdict daemon" afw; \
		fi; \
	fi
	@# What the admin has written is never overwritten.
	@for f in policy.conf afw.conf; do \
		if [ ! -e $(DESTDIR)$(SYSCONFDIR)/afw/$$f ]; then \
			echo "install -D -m 0644 dist/$$f $(DESTDIR)$(SYSCONFDIR)/afw/$$f"; \
			install -D -m 0644 dist/$$f $(DESTDIR)$(SYSCONFDIR)/afw/$$f || exit 1; \
		fi; done

# The configuration in /etc/afw stays: it is the admin's.
uninstall: uninstall-userspace uninstall-module

uninstall-userspace:
	rm -f $(addprefix $(DESTDIR),$(USERSPACE_FILES))

# Where modules_install put it (Debian's kernels say updates/, others extra/);
# dkms's build in updates/dkms is dkms-remove's.
uninstall-module:
	rm -f $(foreach d,extra updates,$(DESTDIR)/lib/modules/$(KVER)/$(d)/afw.ko*)
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

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

# Debian packages afw and afw-dkms (debian/), built in a copy of the tree
# so that nothing of the build lands here; the .debs go to build/deb/.
deb:
	rm -rf $(B)/deb
	mkdir -p $(B)/deb/afw-$(VERSION)
	tar --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		-cf - . | tar -xf - -C $(B)/deb/afw-$(VERSION)
	@# The package builds as a fresh tree does: a B= or other setting given
	@# to this make must not reach debian/rules' makes (whose clean would
	@# remove $(B)).
	cd $(B)/deb/afw-$(VERSION) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -b -us -uc > ../build.log 2>&1 || \
		{ tail -n 30 ../build.log >&2; echo "afw: make deb failed; see $(B)/deb/build.log" >&2; exit 1; }
	@ls $(B)/deb/*.deb

# A sub-make, so that headers installed by "make deps check" on a fresh
# machine are seen: this make read KDIR before they existed.
# STAGES limits tests/run (build unit fuzz host vm), e.g. make check STAGES=unit.
check:
	$(MAKE) all unit tools
	tests/run $(STAGES)

# Long runs, outside "make check"; docs/reliability.md says what they
# cover and keeps their figures. Each boots the debug kernel (or fuzzes on
# every CPU) for an hour or more. Under their load (the stress run has met
# the OOM killer) even the guest's heartbeat may wait long: boot.sh takes
# the guest for frozen only after 30 minutes of silence.
STRESS_SECONDS ?= 3600
STRESS_CPUS ?= 2
NLFUZZ_MESSAGES ?= 1000000

stress stress-long: userspace tools
	AFW_SCENARIOS=tests/vm/scenarios/98-stress.sh AFW_VM_CPUS=$(STRESS_CPUS) AFW_VM_STALL=1800 \
	AFW_VM_TIMEOUT=$$(( $(STRESS_SECONDS) + 3600 )) \
	AFW_VM_ENV="AFW_STRESS_SECONDS=$(STRESS_SECONDS) AFW_SCENARIO_TIMEOUT=$$(( $(STRESS_SECONDS) + 1800 ))" \
		tests/vm/run.sh debug-6.1

nlfuzz-long: userspace tools
	AFW_SCENARIOS=tests/vm/scenarios/97-nlfuzz.sh AFW_VM_TIMEOUT=21600 AFW_VM_STALL=1800 \
	AFW_VM_ENV="AFW_NLFUZZ_MESSAGES=$(NLFUZZ_MESSAGES) AFW_SCENARIO_TIMEOUT=19800" \
		tests/vm/run.sh debug-6.1

# The systemd boots with an upgrade of afw-dkms too: dkms builds the new
# module in the guest, on an emulated CPU (docs/reliability.md).
vm-dkms-upgrade: userspace tools
	AFW_VM_DKMS_UPGRADE=1 tests/vm/run.sh systemd

fuzz-long:
	tests/fuzz/long.sh

checkpatch:
	tests/checkpatch.sh

# make vm-demo: a root shell in a VM with afw loaded. make vm-demo CMD='afwctl
# status' runs CMD there instead and fails when CMD fails; demo.sh exits with
# CMD's own status (CMD, given on the command line, reaches it in its
# environment).
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
