# libdaytona-validate — plain GNU make build. `make help` lists targets.
MAJOR := 1
MINOR := 0
PATCH := 0
VERSION := $(MAJOR).$(MINOR).$(PATCH)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
LIBEXECDIR ?= $(PREFIX)/libexec/daytona-validate
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
B ?= build

DEPS := libcurl jansson uuid libcrypto
DEP_CFLAGS := $(shell pkg-config --cflags $(DEPS) 2>/dev/null)
DEP_LIBS := $(shell pkg-config --libs $(DEPS) 2>/dev/null) -lpthread
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
REQ_CFLAGS := -std=c11 -D_GNU_SOURCE -DDVAL_BUILDING -fPIC -fvisibility=hidden \
	-Iinclude -Ilib -I$(B)/gen $(WARN) $(DEP_CFLAGS) \
	-DDVAL_LIBEXECDIR='"$(LIBEXECDIR)"'
ALL_CFLAGS = $(REQ_CFLAGS) $(CFLAGS) $(CPPFLAGS) $(EXTRA_CFLAGS)

# sanitizer runtimes live in the executable, so sanitized .so links skip it
NO_UNDEFINED ?= -Wl,--no-undefined
SONAME := libdaytona-validate.so.$(MAJOR)
SOLIB := $(B)/lib/libdaytona-validate.so.$(VERSION)
ALIB := $(B)/lib/libdaytona-validate.a
MAP := lib/libdaytona-validate.map

LIB_SRC := $(wildcard lib/*.c lib/executor/daytona/*.c lib/executor/local/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
# Each object depends on the headers it includes, as the compiler lists
# them (-MMD); -MP keeps a removed header from breaking the build.
DEP_FILES := $(LIB_OBJ:.o=.d)

# Helper executables: libexec/<prog>/*.c → $(B)/libexec/<prog>. Sanitizer
# builds keep them plain: they run inside sandboxes with memory limits that
# a sanitizer's shadow mappings cannot meet.
LIBEXEC_CFLAGS ?= $(CFLAGS)
# static-pie where the toolchain has a static libc (Debian: libc6-dev): each
# command of a validation starts the helper, which forks twice more, and a
# process without shared libraries has fewer mappings to set up and copy
# (LOCALPERF.md, "A static helper"); PIE keeps ASLR. Probed when the helper
# is linked (recursive variable), into $(B): never linked onto /dev/null.
LIBEXEC_STATIC = $(shell mkdir -p $(B) && printf 'int main(void){return 0;}\n' \
	>$(B)/.spie.c && $(CC) -static-pie -o $(B)/.spie $(B)/.spie.c \
	>/dev/null 2>&1 && echo -static-pie; rm -f $(B)/.spie $(B)/.spie.c)
LIBEXEC_LDFLAGS ?= $(LDFLAGS) $(LIBEXEC_STATIC)
LIBEXEC_PROGS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard libexec/*/*.c)))))
LIBEXEC_BINS := $(LIBEXEC_PROGS:%=$(B)/libexec/%)
# headers the helper shares with the library (lib/executor/local/)
LIBEXEC_SHARED_H := $(wildcard lib/executor/local/protocol.h \
	lib/executor/local/sandbox_ids.h lib/executor/local/cgroup_path.h)

# The CLI
CLI_SRC := $(wildcard examples/cli/*.c)
CLI_BIN := $(B)/bin/daytona-validate

# C tests: tests/<dir>/test_*.c → $(B)/tests/<dir>_<name>, each linked with
# tests/harness.c, the dir's support_*.c and the static library.
TEST_DIRS := unit integration local fuzz
TEST_SRC := $(foreach d,$(TEST_DIRS),$(wildcard tests/$(d)/test_*.c))
TEST_BINS := $(foreach d,$(TEST_DIRS),$(patsubst tests/$(d)/%.c,$(B)/tests/$(d)_%,$(wildcard tests/$(d)/test_*.c)))

# C examples: examples/c/*.c → $(B)/examples/<name>
EX_SRC := $(wildcard examples/c/*.c)
EX_BINS := $(EX_SRC:examples/c/%.c=$(B)/examples/%)

.PHONY: all lib check check-run tests examples install uninstall clean demo demo-run deps \
	abi-check abi-baseline asan tsan valgrind fuzz bench help header-check \
	symbols-check man-check man-examples layers-check functions-check helper-check
.DELETE_ON_ERROR:

all: lib $(LIBEXEC_BINS) $(CLI_BIN) $(B)/daytona-validate.pc

lib: $(SOLIB) $(ALIB)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The java snapshot's compile service, base64 in the profile's build steps
JAVAC_SVC := $(wildcard libexec/dval-javac-service/*)
$(B)/gen/javac_service_files.h: $(JAVAC_SVC)
	@mkdir -p $(dir $@)
	$(Q)printf '#define JAVAC_SERVICE_%s_B64 "%s"\n' \
		JAVA "$$(base64 -w0 libexec/dval-javac-service/JavacService.java)" \
		CLIENT "$$(base64 -w0 libexec/dval-javac-service/dval-javac-client)" \
		BUILD "$$(base64 -w0 libexec/dval-javac-service/build.sh)" \
		RUN "$$(base64 -w0 libexec/dval-javac-service/run.sh)" \
		RELAY "$$(base64 -w0 libexec/dval-javac-service/dval-java-run)" > $@

# The dotnet profile's scripts and compile service, one tar.gz (base64)
# in the profile's build steps: the same bytes on every build machine
# (sorted names, fixed owner, mode and time, gzip without a name).
DOTNET_PROFILE := $(wildcard profiles/dotnet/*) \
	$(filter-out %/README.md,$(wildcard libexec/dval-csc-service/*))
$(B)/gen/dotnet_profile_files.h: $(DOTNET_PROFILE)
	@mkdir -p $(B)/gen/dotnet-profile/src
	$(Q)cp profiles/dotnet/* libexec/dval-csc-service/dval-csc-client $(B)/gen/dotnet-profile/
	$(Q)cp libexec/dval-csc-service/*.cs $(B)/gen/dotnet-profile/src/
	$(Q)printf '#define DOTNET_PROFILE_TGZ_B64 "%s"\n' "$$(tar -c --sort=name \
		--owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a+rX,go-w \
		-C $(B)/gen/dotnet-profile . | gzip -9n | base64 -w0)" > $@
	@rm -rf $(B)/gen/dotnet-profile

# The built-in profiles: profiles/builtin/*.json with the packed files
# above in place of their @NAME@ marks, as C strings the library parses
# with the profile-file parser (profiles/embed.sh; the filled-in files
# stay in $(B)/gen/builtin/).
BUILTIN_PROFILES := $(sort $(wildcard profiles/builtin/*.json))
BUILTIN_PACKS := $(B)/gen/javac_service_files.h $(B)/gen/dotnet_profile_files.h
$(B)/gen/builtin_profiles.h: $(BUILTIN_PROFILES) $(BUILTIN_PACKS) profiles/embed.sh
	$(Q)sh profiles/embed.sh $@ $(B)/gen/builtin $(BUILTIN_PROFILES) -- $(BUILTIN_PACKS)
$(B)/obj/lib/profile.o: $(B)/gen/builtin_profiles.h

# The database services' scripts (profiles/<service>/), one tar.gz
# (base64) each in the service's first install step, made as the dotnet
# profile's is: the same bytes on every build machine.
SERVICE_FILES := $(filter-out %/README.md,$(wildcard profiles/postgres/* profiles/sqlite/*))
SVC_TGZ = tar -c --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
	--mode=a+rX,go-w --exclude=README.md -C profiles $(1) | gzip -9n | base64 -w0
$(B)/gen/service_files.h: $(SERVICE_FILES)
	@mkdir -p $(dir $@)
	$(Q)printf '#define %s_TGZ_B64 "%s"\n' \
		POSTGRES "$$($(call SVC_TGZ,postgres))" \
		SQLITE "$$($(call SVC_TGZ,sqlite))" > $@
$(B)/obj/lib/service_specs.o: $(B)/gen/service_files.h

# An object without its .d file (a first build, or one from before -MMD) is
# rebuilt: the empty rule makes a missing .d count as changed.
$(B)/obj/%.o: %.c $(B)/obj/%.d
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(DEP_FILES):
include $(wildcard $(DEP_FILES))

$(SOLIB): $(LIB_OBJ) $(MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(LIB_OBJ) -Wl,-soname,$(SONAME) \
		-Wl,--version-script,$(MAP) $(NO_UNDEFINED) \
		-Wl,-Bsymbolic-functions $(LDFLAGS) $(DEP_LIBS)
	ln -sf $(notdir $@) $(B)/lib/$(SONAME)
	ln -sf $(SONAME) $(B)/lib/libdaytona-validate.so

$(ALIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

define LIBEXEC_RULE
$(B)/libexec/$(1): $(wildcard libexec/$(1)/*.c libexec/$(1)/*.h) $(LIBEXEC_SHARED_H)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(REQ_CFLAGS) $$(LIBEXEC_CFLAGS) -o $$@ $(wildcard libexec/$(1)/*.c) $$(LIBEXEC_LDFLAGS)
endef
$(foreach p,$(LIBEXEC_PROGS),$(eval $(call LIBEXEC_RULE,$(p))))

$(CLI_BIN): $(CLI_SRC) $(SOLIB) include/dval.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(CLI_SRC) -L$(B)/lib -ldaytona-validate \
		-Wl,-rpath,'$$ORIGIN/../lib' $(LDFLAGS)

$(B)/daytona-validate.pc: pkgconfig/daytona-validate.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

define TEST_DIR_RULE
$(B)/tests/$(1)_%: tests/$(1)/%.c $(ALIB) tests/harness.c tests/harness.h $(wildcard tests/$(1)/support_*.c tests/$(1)/*.h tests/stress/*.h tests/fuzz/*.c tests/fuzz/*.h)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  TEST    $$@")
	$$(Q)$$(CC) $$(ALL_CFLAGS) -Itests -Itests/$(1) -o $$@ $$< $(wildcard tests/$(1)/support_*.c) \
		tests/harness.c $$(ALIB) $$(LDFLAGS) $$(DEP_LIBS)
endef
$(foreach d,$(TEST_DIRS),$(eval $(call TEST_DIR_RULE,$(d))))
# the helper's tar reader and the CLI's terminal filter, which the fuzz
# replay compiles in
$(B)/tests/fuzz_test_replay: libexec/dval-local-helper/untar.c libexec/dval-local-helper/helper.h \
	examples/cli/safeterm.c examples/cli/cli.h

$(B)/examples/%: examples/c/%.c $(SOLIB)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -Wall -Wextra -Werror -Iinclude $(CFLAGS) -o $@ $< \
		-L$(B)/lib -ldaytona-validate -Wl,-rpath,'$$ORIGIN/../lib'

tests: all $(TEST_BINS)
examples: $(EX_BINS)

# The README's two commands start on a machine that may lack the build
# dependencies. DEP_CFLAGS/DEP_LIBS are computed when make reads this file,
# so they are installed first and the real work runs in a new make that
# reads the .pc files they brought (tests/install/suite_bootstrap.sh).
check: deps
	@$(MAKE) --no-print-directory check-run

# make check T=<suite>[/<test>]: build, then run only the suites whose name
# contains <suite> (e.g. unit_test_exec, cli), and in C suites only the
# tests whose name contains <test>; the header/man/ABI gates are skipped.
T ?=
T_SUITE = $(firstword $(subst /, ,$(T)))
T_TEST = $(word 2,$(subst /, ,$(T)))
check-run: all tests examples $(if $(T),,header-check symbols-check man-check man-examples abi-check layers-check functions-check helper-check)
	B=$(B) $(if $(T),DVAL_SUITES="$(T_SUITE)" DVAL_TEST_FILTER="$(T_TEST)") tests/run.sh

header-check:
	@mkdir -p $(B)/hc
	printf '#include "dval.h"\nint main(void){return dval_version()==0;}\n' > $(B)/hc/c.c
	$(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Iinclude -c $(B)/hc/c.c -o $(B)/hc/c.o
	cp $(B)/hc/c.c $(B)/hc/cpp.cpp
	c++ -std=c++11 -pedantic -Wall -Wextra -Werror -Iinclude -c $(B)/hc/cpp.cpp -o $(B)/hc/cpp.o

symbols-check: $(SOLIB)
	B=$(B) tests/abi/check-symbols.sh

man-check:
	tests/abi/check-man.sh

layers-check: lib
	B=$(B) tests/abi/layers.sh

functions-check:
	tests/abi/long-functions.sh --check

helper-check: $(LIBEXEC_BINS)
	B=$(B) CC="$(CC)" tests/abi/helper-linkage.sh

man-examples: $(SOLIB)
	B=$(B) tests/abi/man-examples.sh

abi-check: $(SOLIB)
	B=$(B) tests/abi/abi-check.sh

abi-baseline: $(SOLIB)
	B=$(B) tests/abi/abi-check.sh --update

# Sanitized runs are slower: tests scale their timeouts and sizes down.
# The C# attack suites leave them: their attacks meet the compile service
# and the helper, neither of which is instrumented, and make check runs them.
SAN_SKIP = DVAL_SKIP_SUITES=local_test_hostile_dotnet
# Under valgrind every test of these skips (a validation's upload needs
# openat2, which valgrind lacks), after building their snapshots first.
VG_SKIP = local_test_dotnet local_test_javac_service local_test_java_runtime
asan:
	$(SAN_SKIP) DVAL_TEST_TIMEOUT_SCALE=4 $(MAKE) B=build/asan NO_UNDEFINED= LIBEXEC_CFLAGS="-O2 -g" LIBEXEC_LDFLAGS= CC=clang CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" check-c

# TSan finds races only between threads, and the library starts none: its
# run is the suites whose test starts threads (pthread_create, or the raw
# server thread of support_emulator.c); the others would give it nothing
# to look at.
TSAN_SUITES = $(shell grep -l -E 'pthread_create|raw_server' tests/*/test_*.c | \
	sed -E 's@tests/([a-z]+)/(test_[a-z0-9_]+)\.c@\1_\2@')
tsan:
	$(SAN_SKIP) DVAL_SUITES="$(TSAN_SUITES)" DVAL_TEST_TIMEOUT_SCALE=4 DVAL_STRESS_SMALL=1 $(MAKE) B=build/tsan NO_UNDEFINED= LIBEXEC_CFLAGS="-O2 -g" LIBEXEC_LDFLAGS= CC=clang CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" check-c

# valgrind runs the plain build's binaries (no build of its own); its logs
# go beside make check's.
valgrind: all tests
	DVAL_SKIP_SUITES="local_test_hostile_dotnet $(VG_SKIP)" B=$(B) DVAL_LOG_DIR=$(B)/test-logs/valgrind DVAL_VALGRIND=1 tests/run.sh --c-only

# C suites only (used by the sanitizer targets)
.PHONY: check-c
check-c: all tests
	B=$(B) tests/run.sh --c-only

fuzz: all
	tests/fuzz/run-fuzzers.sh

bench: all
	B=$(B) tests/bench/run.sh

demo: deps
	@$(MAKE) --no-print-directory demo-run

DEMO ?= examples/validation/demo.sh
demo-run: all
	B=$(B) $(DEMO)

DEPS_SH ?= tests/deps.sh
deps:
	@$(DEPS_SH)

# Bindings: the Python package goes where the system's python3 looks
# (Debian: $(PREFIX)/lib/python3.X/dist-packages); evaluated only by install.
PYTHONDIR ?= $(PREFIX)/lib/python$(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)/dist-packages

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 0755 $(SOLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libdaytona-validate.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libdaytona-validate.so
	install -m 0644 $(ALIB) $(DESTDIR)$(LIBDIR)/
	install -m 0644 include/dval.h $(DESTDIR)$(INCLUDEDIR)/
	@# bindings: the C++ header, and the Python package `dval` (pure Python)
	install -m 0644 examples/cpp/dval.hpp $(DESTDIR)$(INCLUDEDIR)/
	install -d $(DESTDIR)$(PYTHONDIR)/dval
	install -m 0644 examples/python/src/dval/*.py examples/python/src/dval/py.typed $(DESTDIR)$(PYTHONDIR)/dval/
	install -m 0644 $(B)/daytona-validate.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 0644 man/man3/*.3 $(DESTDIR)$(MANDIR)/man3/
	-install -m 0644 man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/ 2>/dev/null
	-install -m 0644 man/man7/*.7 $(DESTDIR)$(MANDIR)/man7/ 2>/dev/null
	$(if $(LIBEXEC_BINS),install -m 0755 $(LIBEXEC_BINS) $(DESTDIR)$(LIBEXECDIR)/)
	install -m 0755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/
	# JSON Schema of `daytona-validate run --json`, named in daytona-validate(1)
	install -D -m 0644 man/daytona-validate-run.schema.json \
		$(DESTDIR)$(PREFIX)/share/daytona-validate/daytona-validate-run.schema.json
	@# a system prefix needs the loader cache refreshed to find the new SONAME
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		echo ldconfig; ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libdaytona-validate.so* $(DESTDIR)$(LIBDIR)/libdaytona-validate.a \
		$(DESTDIR)$(INCLUDEDIR)/dval.h $(DESTDIR)$(PKGCONFIGDIR)/daytona-validate.pc \
		$(DESTDIR)$(BINDIR)/daytona-validate
	rm -rf $(DESTDIR)$(LIBEXECDIR)
	rm -rf $(DESTDIR)$(PREFIX)/share/daytona-validate
	rm -f $(DESTDIR)$(INCLUDEDIR)/dval.hpp
	rm -rf $(DESTDIR)$(PYTHONDIR)/dval
	cd man && for f in man*/*.[0-9]; do rm -f $(DESTDIR)$(MANDIR)/$$f; done

clean:
	rm -rf build

help:
	@echo "all           library, helper, CLI and pkg-config file (default)"
	@echo "lib           the shared and static library only"
	@echo "check         deps, build, every gate and every test suite;"
	@echo "              T=<suite>[/<test>] runs one suite (or test) only"
	@echo "check-run     check without installing the deps first"
	@echo "check-c       build, then the C suites only"
	@echo "demo          deps, build, then the validation demo (DEMO=script)"
	@echo "demo-run      the demo without installing the deps first"
	@echo "deps          install the build and test dependencies (tests/deps.sh)"
	@echo "tests         build the C test binaries"
	@echo "examples      build the C examples (examples/c)"
	@echo "header-check  dval.h compiles alone as C99 and C++11, -pedantic"
	@echo "symbols-check exported symbols match lib/libdaytona-validate.map"
	@echo "layers-check  symbol prefixes and layering of lib/ (lib/README.md)"
	@echo "functions-check no function of lib/, libexec/, examples/ over 60 lines"
	@echo "helper-check  the local helper is static-pie where the toolchain can link one"
	@echo "man-check     man pages: one per function, sections, lint, checked against the code"
	@echo "man-examples  compile and link the EXAMPLES code of every man3 page"
	@echo "abi-check     abidiff against tests/abi/libdaytona-validate.abi"
	@echo "abi-baseline  record the current ABI as the baseline (deliberate change)"
	@echo "asan          C suites under ASan+UBSan (build/asan)"
	@echo "tsan          C suites under TSan (build/tsan)"
	@echo "valgrind      C suites under valgrind (on the plain build)"
	@echo "fuzz          the fuzzers (tests/fuzz)"
	@echo "bench         the benchmarks (tests/bench; minutes)"
	@echo "install       install under PREFIX (DESTDIR honoured)"
	@echo "uninstall     remove what install put there"
	@echo "clean         remove build/"
	@echo "help          this list"
