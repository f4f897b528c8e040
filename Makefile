# Makefile - builds crs-ci and libCRS, runs the tests, runs the demo
#
# Sources are found by folder, so adding a .c file needs no edit here:
#   common/ diff/ sarif/ runner/**  -> build/libcrsci.a (+ runner/cli/main.c -> crs-ci)
#   libcrs/                         -> build/libcrs.a   (+ libcrs/cli.c -> libCRS)
#   tests/helper/*.c                -> build/libtesthelper.a (test fakes)
#   tests/unit/test_*.c             -> one cmocka binary each, linked with it
#   tests/fuzz/fuzz_*.c             -> one libFuzzer binary each (make fuzz)
# BUILD selects the output folder; the test and sanitizer builds use their
# own folders (build/test, build/fuzz) and define UNIT_TESTS.

BUILD ?= build
CC ?= cc
PKGS := libcurl jansson yaml-0.1 libgit2 libarchive libcrypto libmicrohttpd libxml-2.0 zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
OPT ?= -O2
SAN ?=
override CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g $(OPT) \
	$(SAN) -I. $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LIBS := $(PKG_LIBS) -lpthread

COMMON_SRC := $(wildcard common/*.c)
CORE_SRC := $(COMMON_SRC) $(wildcard diff/*.c sarif/*.c) \
	$(filter-out runner/cli/main.c,$(wildcard runner/*.c runner/*/*.c))
LIBCRS_SRC := $(filter-out libcrs/cli.c,$(wildcard libcrs/*.c))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
HELPER_SRC := $(wildcard tests/helper/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
CORE_OBJ := $(call obj,$(CORE_SRC))
LIBCRS_OBJ := $(call obj,$(LIBCRS_SRC))
COMMON_OBJ := $(call obj,$(COMMON_SRC))
HELPER_OBJ := $(call obj,$(HELPER_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
ITEST_SRC := $(wildcard tests/integration/test_*.c)
ITEST_BIN := $(patsubst tests/integration/%.c,$(BUILD)/itests/%,$(ITEST_SRC))
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzzers/%,$(FUZZ_SRC))

# the default goal: `make` builds crs-ci, whatever rule comes first below
.DEFAULT_GOAL := all

.PHONY: all test test-build unit unit-one unit-plain unit-asan unit-bin unit-run crs-unit integration demo setup clean \
	static check-headers check-layers check-exports base-images bench bench-select install install-files \
	bench-rebuild bench-cache bench-overhead bench-deadline bench-parbuild bench-fuzz-cpu bench-suite-cpu bench-directed bench-elf bench-projects bench-regressions fuzz fuzz-smoke fuzz-build fuzz-bin
# What crs-ci's own CRSs share (container/crs-shared), copied into each
# CRS folder: that folder is the CRS image's build context and what its
# tag hashes (runner/exec/crs_image.c), and a link would not survive the
# context's tar. The copies are not tracked (.gitignore).
CRS_SHARED_COPIES := \
	container/crs/llm-patcher/bin/llm_client.py \
	container/crs/llm-inputs/bin/llm_client.py \
	container/crs/libfuzzer/bin/crs_submit.sh \
	container/crs/aflpp/bin/crs_submit.sh
$(filter %/llm_client.py,$(CRS_SHARED_COPIES)): container/crs-shared/llm_client.py
	cp $< $@
$(filter %/crs_submit.sh,$(CRS_SHARED_COPIES)): container/crs-shared/crs_submit.sh
	cp $< $@

all: $(BUILD)/crs-ci $(BUILD)/libCRS $(BUILD)/libCRS-install.sh $(CRS_SHARED_COPIES)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libcrsci.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcrs.a: $(LIBCRS_OBJ) $(COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/crs-ci: $(call obj,runner/cli/main.c) $(BUILD)/libcrsci.a $(BUILD)/libcrs.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# libCRS is always static: it is mounted into CRS images of any distribution.
$(BUILD)/libCRS: $(call obj,libcrs/cli.c) $(BUILD)/libcrs.a
	$(CC) $(CFLAGS) $(if $(SAN),,-static) -o $@ $^ -lcrypto $(if $(SAN),,-lpthread -ldl)

# crs-ci finds libCRS and its install step beside itself (prepare phase).
$(BUILD)/libCRS-install.sh: libcrs/install.sh
	@mkdir -p $(dir $@)
	cp $< $@

# Test fakes and builders, compiled once and linked into every unit test.
$(BUILD)/libtesthelper.a: $(HELPER_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libtesthelper.a $(BUILD)/libcrsci.a \
		$(BUILD)/libcrs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lcmocka

# C integration tests (real engine); run by tests/integration/run-all.sh
$(BUILD)/itests/%: tests/integration/%.c $(BUILD)/libcrsci.a $(BUILD)/libcrs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lcmocka

# libFuzzer targets (tests/fuzz/); built by fuzz-build with the library
$(BUILD)/fuzzers/%: tests/fuzz/%.c $(BUILD)/libtesthelper.a \
		$(BUILD)/libcrsci.a $(BUILD)/libcrs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

# --- tests -----------------------------------------------------------------
# (the recipes name $(MAKE) themselves: a sub-make so started gets the
# jobserver, and make -n runs it)
UNIT_PLAIN_VARS = BUILD=build/test EXTRA_CFLAGS=-DUNIT_TESTS
# The ASan+UBSan unit tests are built by clang in build/fuzz, with the
# objects the libFuzzer targets link: one sanitizer build, not two
# (fuzzer-no-link's coverage hooks have defaults in the ASan runtime).
UNIT_ASAN_VARS = BUILD=build/fuzz CC=$(FUZZ_CC) OPT=-O1 SAN="$(FUZZ_SAN)" \
	EXTRA_CFLAGS=-DUNIT_TESTS
unit-bin: $(UNIT_BIN) $(BUILD)/libCRS
unit-run: unit-bin
	@tests/unit/run.sh $(UNIT_BIN)

unit-plain:
	$(MAKE) $(UNIT_PLAIN_VARS) unit-run
# make unit T=docker: build and run tests/unit/test_docker.c alone (plain)
unit-one:
	$(MAKE) BUILD=build/test EXTRA_CFLAGS=-DUNIT_TESTS \
	  build/test/tests/test_$(T) build/test/libCRS
	build/test/tests/test_$(T)
unit-asan:
	$(MAKE) $(UNIT_ASAN_VARS) unit-run
# `make unit` runs the plain and the ASan programs together, a few at a
# time (tests/unit/run.sh), those that wait longest on timeouts first
UNIT_SLOW := test_gateway_http test_libcrs test_exchange
UNIT_NAMES := $(patsubst tests/unit/%.c,%,$(UNIT_SRC))
unit_order = $(foreach b,build/fuzz build/test,$(addprefix $(b)/tests/,$(1)))
ifeq ($(T),)
unit:
	$(MAKE) $(UNIT_PLAIN_VARS) unit-bin
	$(MAKE) $(UNIT_ASAN_VARS) unit-bin
	@tests/unit/run.sh $(call unit_order,$(UNIT_SLOW)) \
	  $(call unit_order,$(filter-out $(UNIT_SLOW),$(UNIT_NAMES)))
else
unit: unit-one
endif

integration: all $(ITEST_BIN) base-images
	tests/integration/run-all.sh -j $${CRS_CI_TEST_JOBS:-2} \
	  -J $${CRS_CI_TEST_JOBS_MAX:-$${CRS_CI_TEST_JOBS:-3}} $(RUN_ALL_ARGS)

# Our own parsers under libFuzzer: the library is rebuilt in build/fuzz
# with clang-14, coverage, ASan/UBSan and UNIT_TESTS (the parsers the
# product keeps static, common/testable.h). FUZZ_SECONDS per target
# (FUZZ_JOBS of them at once, default every core); each
# target's crashes go to build/fuzz/crashes/<target>/ and fail the run;
# FUZZ_TARGETS="diff sarif" runs only those.
FUZZ_CC ?= clang-14
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 5
fuzz-bin: $(FUZZ_BIN)
fuzz-build:
	$(MAKE) $(UNIT_ASAN_VARS) fuzz-bin
fuzz: fuzz-build
	tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
fuzz-smoke: fuzz-build
	tests/fuzz/run.sh build/fuzz $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

# unit tests of the Python in crs-ci's own CRSs (container/crs/*/bin)
crs-unit: $(CRS_SHARED_COPIES)
	python3 -m unittest discover -s tests/crs

# The unit tests mostly wait on timeouts, the fuzz smoke run keeps the
# cores busy and the stand-in base images (which the integration tests
# need) mostly wait on the Debian mirror and the disk, so the four run
# side by side, each printing its output whole when it ends
# (--output-sync), once everything is built (the ASan unit tests and the
# fuzz targets share build/fuzz); the integration tests last.
test: check-layers check-headers check-exports
	$(MAKE) test-build
	$(MAKE) -j4 --output-sync=target unit crs-unit fuzz-smoke base-images
	$(MAKE) integration

# Everything `make test` compiles, without running anything: .ci/run runs
# `make -j$(nproc) test-build` (the sub-makes share the jobserver), then
# `make test`, which runs the tests one step at a time.
test-build: all $(ITEST_BIN)
	$(MAKE) $(UNIT_PLAIN_VARS) unit-bin
	$(MAKE) $(UNIT_ASAN_VARS) unit-bin
	$(MAKE) fuzz-build

# --- set-up and demo -------------------------------------------------------
setup:
	container/setup-host.sh

base-images: all
	container/base-images/build.sh

demo: setup
	$(MAKE) all
	container/base-images/build.sh
	examples/run-demo.sh

static:
	container/static/build.sh

# benchmarks (numbers go into the issue notes, not into assertions)
bench: bench-select bench-rebuild bench-cache bench-parbuild
bench-select: all
	bash tests/bench/bench_select.sh
bench-rebuild: all base-images
	bash tests/bench/bench_rebuild.sh
bench-cache: all base-images
	bash tests/bench/bench_cache.sh
# crs-ci against bare libFuzzer on the demo, cJSON and expat (issue 13); needs
# the base images built (make base-images) and a Docker CLI
bench-overhead: all
	bash tests/bench/bench_overhead.sh
# a clean 15-minute scan of cJSON: the part of the deadline it fuzzes
bench-deadline: all base-images
	bash tests/bench/bench_deadline.sh
bench-parbuild: all base-images
	bash tests/bench/bench_parbuild.sh
# fuzzing CPU per wall-second of the run, with and without the infra
# cores lent to the CRSs (issue 23); two clean 3-minute scans of recparse
bench-fuzz-cpu: all base-images
	bash tests/bench/bench_fuzz_cpu.sh $(BENCH_FUZZ_CPU_ARGS)
# where the integration suite's CPU goes, by command (process accounting;
# root); BENCH_SUITE_ARGS="-j 2 test_a test_b" for some scripts
bench-suite-cpu: all $(ITEST_BIN) base-images
	bash tests/bench/bench_suite_cpu.sh $(BENCH_SUITE_ARGS)
# real OSS-Fuzz project folders on the stand-ins (docs/base-images.md),
# from the google/oss-fuzz checkout OSS_FUZZ names;
# BENCH_PROJECTS="zlib lz4" for a few
bench-projects: base-images
	bash tests/bench/bench_projects.sh $(BENCH_PROJECTS)
# time to first PoV with and without direction at the change (~20 min;
# the harness symbol lookup: 200,000 symbols, 4,096 names (BENCH_ELF_ARGS)
bench-elf:
	$(MAKE) BUILD=build/test EXTRA_CFLAGS=-DUNIT_TESTS \
	  build/test/bench/bench_elf
	build/test/bench/bench_elf $(BENCH_ELF_ARGS)
$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libtesthelper.a \
		$(BUILD)/libcrsci.a $(BUILD)/libcrs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# not in `bench`: run it once, BENCH_DIRECTED_ARGS="--cap 60 --modes 'bare new' sentinel-number")
bench-directed: all
	bash tests/bench/bench_directed.sh $(BENCH_DIRECTED_ARGS)
# real historical regressions (issue 23), not in `bench`: crs-ci scan and
# bare libFuzzer per bug, BENCH_REGRESSIONS_ARGS="--deadline 3m lz4-compress-into-null"
bench-regressions: all base-images
	bash tests/bench/bench_regressions.sh $(BENCH_REGRESSIONS_ARGS)

# make install [PREFIX=/usr/local] [DESTDIR=...]: crs-ci, libCRS and its
# install step in bin/ (crs-ci looks for libCRS beside itself), the CRS
# registry and the bundled CRSs it points at in share/crs-ci/ (crs-ci
# looks for <bin>/../share/crs-ci/registry; docs/crs-sources.md), and the
# bash completion (crs-ci completion bash) in share/bash-completion/.
PREFIX ?= /usr/local
SHARE := $(DESTDIR)$(PREFIX)/share/crs-ci
install: all
	$(MAKE) --no-print-directory install-files
# install-files: the same without building first (container/release/
# release.sh installs the static binaries of BUILD=... into its image)
install-files: $(CRS_SHARED_COPIES)
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/container
	install -m 0755 $(BUILD)/crs-ci $(BUILD)/libCRS \
	  $(BUILD)/libCRS-install.sh $(DESTDIR)$(PREFIX)/bin/
	rm -rf $(SHARE)/registry $(SHARE)/container/crs
	cp -R registry $(SHARE)/registry
	cp -R container/crs $(SHARE)/container/crs
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	$(BUILD)/crs-ci completion bash \
	  >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/crs-ci

# The layering rule and an acyclic include graph (docs/CodingGuidelines.md)
check-layers:
	python3 -m unittest -q tests/test_check_layers.py
	python3 tests/check_layers.py

# exported functions no product code calls (tests/check_exports.py)
check-exports:
	python3 tests/check_exports.py

# Short top comments and CRS_<PATH>_H guards (tests/check_headers.py, its
# own test first), then every header compiled on its own.
check-headers:
	python3 -m unittest -q tests/test_check_headers.py
	python3 tests/check_headers.py
	@set -e; for h in $$(git ls-files '*.h'); do \
	  echo "#include \"$$h\"" | $(CC) $(CFLAGS) -x c -fsyntax-only -; done

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
