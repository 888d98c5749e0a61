# gpuprov — see README.md.  `make` builds build/gpuprov; `make check` runs
# every test; `make demo` shows the main job on a bundled sample host.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/sbin
MANDIR = $(PREFIX)/share/man
DATADIR = $(PREFIX)/share/gpuprov
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions

# the version, from one place: the first line of debian/changelog
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)

PKGS = libpci libkmod libnl-3.0 libnl-route-3.0 inih json-c
# libvirt and libxml2: their headers give the types, the libraries are
# loaded at run time (src/sys/virt.c, src/sys/xml.c): linked, they cost every
# command 8 MB and 2.4 MB before main()
DLOPEN_PKGS = libvirt libxml-2.0
# lazy (=): pkg-config runs only after `deps` has installed the packages
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS))
# what src/core and src/shared link: no libvirt, libnl, libkmod or libpci
CORE_PKGS = libxml-2.0 inih json-c
CORE_LIBS = $(shell pkg-config --libs $(CORE_PKGS))
# the ASan binary links libvirt and libxml2 all the same (dlopen then finds
# them loaded): gcc 12's LeakSanitizer often crashes at exit ("Tracer caught
# signal 11") scanning the dynamic TLS a dlopen()ed libvirt leaves in each
# thread; the loaders are tested on build/gpuprov (t_apply_vm, t_lazy_libs)
# and in test_virt
TEST_LIBS = $(PKG_LIBS) $(shell pkg-config --libs $(DLOPEN_PKGS))

CC ?= cc
CFLAGS ?= -O2 -g
# snprintf into bounded buffers truncates on purpose: -Wno-format-truncation;
# callbacks (the actuators' ops) take what their type says, used or not, as in
# the kernel: -Wno-unused-parameter
WARN = -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-format-truncation -Wno-unused-parameter
GP_DEFS = -DGP_DATADIR='"$(DATADIR)"' -DGP_VERSION='"$(VERSION)"'
ALL_CFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) -Isrc $(PKG_CFLAGS) $(GP_DEFS)
SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# src/{shared,core,sys,host,act,cli}: the layers (ARCHITECTURE.md); the
# library is everything but the command line
SRC = $(wildcard src/*/*.c)
HDR = $(wildcard src/*/*.h)
LIB_SRC = $(filter-out src/cli/%,$(SRC))
# the unit tests may test cli's output layer too: all but main and the commands
UNIT_SRC = $(filter-out src/cli/main.c src/cli/cmd_%.c,$(SRC))
OBJ = $(SRC:src/%.c=build/obj/%.o)
TEST_OBJ = $(SRC:src/%.c=build/test/obj/%.o)
TEST_LIB_OBJ = $(UNIT_SRC:src/%.c=build/test/obj/%.o)
UNIT = $(patsubst tests/unit/%.c,build/test/%,$(wildcard tests/unit/test_*.c))
FUZZ_CFLAGS = -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Isrc $(PKG_CFLAGS) $(GP_DEFS)
FUZZ_LIB_OBJ = $(LIB_SRC:src/%.c=build/fuzz/obj/%.o)
# the unit tests and fuzzers of the pure core link core/ and shared/ alone:
# a call from there into an upper layer fails the link
CORE_SRC = $(filter src/shared/% src/core/%,$(SRC))
TEST_CORE_OBJ = $(CORE_SRC:src/%.c=build/test/obj/%.o)
FUZZ_CORE_OBJ = $(CORE_SRC:src/%.c=build/fuzz/obj/%.o)
CORE_UNIT = $(patsubst %,build/test/test_%,pcicfg profile rootfs bandwidth ncclexplain)
CORE_FUZZ = $(patsubst %,build/fuzz/fuzz_%,pcicfg profile text ncclexplain)
# the fuzzer of cli's output layer links what the unit tests link
FUZZ_UNIT_OBJ = $(UNIT_SRC:src/%.c=build/fuzz/obj/%.o)
CLI_FUZZ = $(patsubst %,build/fuzz/fuzz_%,render)
FUZZ = $(patsubst tests/fuzz/%.c,build/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all deps check demo bench fuzz install uninstall clean fixtures unit cli lab

all: build/gpuprov

build/gpuprov: $(OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJ) $(PKG_LIBS)

# a new entry in debian/changelog is a new version
build/obj/shared/version.o build/test/obj/shared/version.o build/fuzz/obj/shared/version.o: \
	debian/changelog

build/obj/%.o: src/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# the test build: warnings are errors, AddressSanitizer and UBSan on
build/test/gpuprov: $(TEST_OBJ)
	$(CC) $(SAN) -o $@ $(TEST_OBJ) $(TEST_LIBS)

build/test/obj/%.o: src/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Werror -O1 -g $(SAN) -c -o $@ $<

build/test/test_%: tests/unit/test_%.c tests/unit/unit.h $(TEST_LIB_OBJ)
	$(CC) $(ALL_CFLAGS) -Werror -O1 -g $(SAN) -o $@ $< $(TEST_LIB_OBJ) \
		$(PKG_LIBS) -lcmocka $(UNIT_LDFLAGS)

# test_acs plays a switch port that drops a bit of what is written to it
build/test/test_acs: UNIT_LDFLAGS = -Wl,--wrap=pwrite
# test_sriov logs what is written to a port's sriov_numvfs
build/test/test_sriov: UNIT_LDFLAGS = -Wl,--wrap=write

$(CORE_UNIT): build/test/test_%: tests/unit/test_%.c tests/unit/unit.h $(TEST_CORE_OBJ)
	$(CC) $(ALL_CFLAGS) -Werror -O1 -g $(SAN) -o $@ $< $(TEST_CORE_OBJ) $(CORE_LIBS) -lcmocka

# the library is compiled once for every harness, with coverage;
# -fno-sanitize-recover=all: a UBSan report is a crash, not a line in a log
build/fuzz/obj/%.o: src/%.c $(HDR)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

.SECONDARY: $(FUZZ_UNIT_OBJ) $(TEST_LIB_OBJ)

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJ) | build/fuzz
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(PKG_LIBS)

$(CORE_FUZZ): build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_CORE_OBJ) | build/fuzz
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CORE_OBJ) $(CORE_LIBS)

$(CLI_FUZZ): build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_UNIT_OBJ) | build/fuzz
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_UNIT_OBJ) $(PKG_LIBS)

# a test double for NVML, CUDA and NCCL (tests/fake/fakegpu.c), loaded by dlopen
build/test/libfakegpu.so: tests/fake/fakegpu.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -Werror -O1 -g -shared -fPIC -o $@ $<

build/fuzz:
	mkdir -p $@

deps:
	@sh scripts/deps.sh

# Fixture host trees are built from tests/fixtures/hosts/*.host; captures
# of real hosts are unpacked beside them.
fixtures:
	@python3 tests/fixtures/mkhost.py --all tests/fixtures/hosts build/hosts
	@for t in tests/fixtures/captured/*.tgz; do d=build/hosts/$$(basename $$t -sysfs.tgz); \
		rm -rf $$d && mkdir -p $$d && tar xzf $$t -C $$d || exit 1; done

demo:
	@sh scripts/deps.sh build
	@$(MAKE) -s --no-print-directory all fixtures
	@sh scripts/demo.sh

unit: $(UNIT) fixtures
	@for t in $(UNIT); do $$t || exit 1; done

check: deps
	@echo "building (warnings are errors, ASan and UBSan on)..."
	@$(MAKE) -s --no-print-directory -j2 build/test/gpuprov build/test/libfakegpu.so $(UNIT) \
		$(FUZZ) all
	@$(MAKE) -s --no-print-directory fixtures
	@sh tests/run.sh

# the lab alone: a real kernel under QEMU (tests/lab/lab.sh)
lab: deps
	@$(MAKE) --no-print-directory all
	@sh tests/lab/lab.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@python3 bench/bench.py

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ)
	@sh tests/fuzz/run.sh $(or $(SECONDS_PER_TARGET),60)

install: build/gpuprov
	install -D -m 0755 build/gpuprov $(DESTDIR)$(BINDIR)/gpuprov
	install -D -m 0644 man/gpuprov.8 $(DESTDIR)$(MANDIR)/man8/gpuprov.8
	install -D -m 0644 man/gpuprov.ini.5 $(DESTDIR)$(MANDIR)/man5/gpuprov.ini.5
	install -d $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)/templates
	install -m 0644 profiles/*.ini $(DESTDIR)$(DATADIR)/profiles/
	for f in templates/*; do [ -f "$$f" ] && install -m 0644 "$$f" \
		$(DESTDIR)$(DATADIR)/templates/; done; true
	install -D -m 0644 completion/gpuprov.bash $(DESTDIR)$(COMPLETIONDIR)/gpuprov

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpuprov $(DESTDIR)$(MANDIR)/man8/gpuprov.8 \
		$(DESTDIR)$(MANDIR)/man5/gpuprov.ini.5 $(DESTDIR)$(COMPLETIONDIR)/gpuprov
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build
