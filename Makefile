# statemap-lua: build, test, install.  Dependencies come from pkg-config.

PREFIX	?= /usr/local
BINDIR	= $(PREFIX)/bin
DATADIR	= $(PREFIX)/share/statemap-lua
MANDIR	= $(PREFIX)/share/man
# Where lua5.4 looks for C modules: Debian's package.cpath holds
# /usr/local/lib/lua/5.4 and /usr/lib/lua/5.4, so the default PREFIX and
# PREFIX=/usr need nothing more; any other needs LUA_CPATH (see README).
LUA_CMOD ?= $(PREFIX)/lib/lua/5.4

# Kernel traces: libtracecmd and libtraceevent read ftrace's trace.dat,
# babeltrace2 LTTng's CTF (src/ingest/tracedat.c, ctf.c).
KPKGS	= libtracecmd libtraceevent babeltrace2
PKGS	= lua5.4 cairo readline zlib libzstd libxxhash libmicrohttpd $(KPKGS)
CC	?= cc
OPT	?= -O2
# Warnings are errors for development and CI (make WERROR=1, as .ci/run
# does); a user's build on a newer compiler warns and goes on.
WERROR	?= 0
WARN	= -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	$(if $(filter 1,$(WERROR)),-Werror)
CFLAGS_BASE = -std=c11 -D_GNU_SOURCE -pthread -g $(WARN)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
BUILD	= build
CFLAGS	+= $(CFLAGS_BASE) $(OPT) $(PKG_CFLAGS) -Isrc -I$(BUILD)
LDLIBS	+= $(PKG_LIBS) -lm

# src/ holds one folder per layer, lowest first (src/README.md); a file
# uses only its own layer and those below (tests/layers.sh checks).
LAYERS	= base store ingest trace coalesce output render serve lua cli
SRC	= $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))
# The core: every module but main.c, also linked into the unit tests.
CORE_SRC = $(filter-out src/cli/main.c,$(SRC))
CORE_OBJ = $(CORE_SRC:src/%.c=$(BUILD)/%.o) $(BUILD)/lua_modules.o \
	$(BUILD)/viewer_assets.o
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/%)
# Integration tests: programs that drive the built program from outside
# (a pseudo-terminal, say), in $(BUILD)/integration.
ITEST_SRC = $(wildcard tests/integration/test_*.c)
ITEST_BIN = $(ITEST_SRC:tests/integration/%.c=$(BUILD)/integration/%)
LUA_MODS = $(wildcard lua/*.lua)

BIN	?= statemap-lua
# statemap.so, for plain lua5.4, and where its objects go.
SO	?= statemap.so
PIC	= $(BUILD)/pic

all: $(BIN) $(SO) man

$(BIN): $(BUILD)/cli/main.o $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/%.o: src/%.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# statemap.so: the same module for plain lua5.4 (require "statemap").
# Lua's symbols come from the interpreter that loads it; the commands
# (src/cli) are not part of it.
PIC_SRC = $(filter-out src/cli/%,$(SRC))
PIC_OBJ = $(PIC_SRC:src/%.c=$(PIC)/%.o) $(PIC)/lua_modules.o \
	$(PIC)/viewer_assets.o
# The same flags as the program's, but never a sanitizer (lua5.4, which
# loads it, is not built with one).
PIC_CFLAGS = $(CFLAGS_BASE) -O2 -fPIC $(PKG_CFLAGS) -Isrc -I$(BUILD)

$(SO): $(PIC_OBJ)
	$(CC) -shared -pthread -o $@ $^ $(shell pkg-config --libs cairo zlib libzstd libmicrohttpd $(KPKGS)) -lm

$(PIC)/%.o: src/%.c | $(PIC)
	@mkdir -p $(@D)
	$(CC) $(PIC_CFLAGS) -MMD -MP -c -o $@ $<

$(PIC)/lua_modules.o: $(BUILD)/lua_modules.c src/lua/lua_modules.h | $(PIC)
	$(CC) $(PIC_CFLAGS) -c -o $@ $<

# The lua/ modules, compiled into the binary.
$(BUILD)/lua_modules.c: src/lua/embed.lua $(LUA_MODS) | $(BUILD)
	lua5.4 src/lua/embed.lua $@ $(LUA_MODS)

$(BUILD)/lua_modules.o: $(BUILD)/lua_modules.c src/lua/lua_modules.h
	$(CC) $(CFLAGS) -c -o $@ $<

# The SVG viewer's script and style sheet, compiled into the binary.  The
# script is these files joined in this order (src/output/viewer.js says
# what each is): its modules, each one function, then main, inside the
# one function that viewer_open.js opens and viewer_close.js closes.
VIEWER_JS = src/output/viewer_open.js src/output/viewer_data.js \
	src/output/viewer_dom.js src/output/viewer_format.js \
	src/output/viewer_rows.js src/output/viewer_layout.js \
	src/output/viewer_panel.js src/output/viewer_input.js \
	src/output/viewer_legend.js src/output/viewer_events.js \
	src/output/viewer_paint.js src/output/viewer_source.js \
	src/output/viewer.js src/output/viewer_close.js
VIEWER_FILES = $(VIEWER_JS) src/output/viewer.css
$(BUILD)/viewer_assets.c: src/output/embed_text.lua $(VIEWER_FILES) | $(BUILD)
	lua5.4 src/output/embed_text.lua $@ output/viewer.h \
	    $(VIEWER_JS:%=viewer_js=%) viewer_css=src/output/viewer.css

$(BUILD)/viewer_assets.o: $(BUILD)/viewer_assets.c src/output/viewer.h
	$(CC) $(CFLAGS) -c -o $@ $<

$(PIC)/viewer_assets.o: $(BUILD)/viewer_assets.c src/output/viewer.h | $(PIC)
	$(CC) $(PIC_CFLAGS) -c -o $@ $<

# The man pages: each is written in Markdown beside what it describes
# (the command, the Lua API, the input format) and made into roff by
# src/cli/md2man.lua; `man -l build/man/statemap-lua.1` shows one.
MAN_SRC	= src/cli/statemap-lua.1.md src/lua/statemap-lua-api.3.md \
	src/ingest/statemap-lua-format.5.md
MAN	= $(patsubst %.md,$(BUILD)/man/%,$(notdir $(MAN_SRC)))
VERSION	:= $(shell sed -n 's/^.*STATEMAP_VERSION[^"]*"\(.*\)".*$$/\1/p' src/base/version.h)
vpath %.md $(sort $(dir $(MAN_SRC)))

man: $(MAN)

$(BUILD)/man/%: %.md src/cli/md2man.lua src/base/version.h
	@mkdir -p $(@D)
	lua5.4 src/cli/md2man.lua $< $@ $(VERSION)

$(BUILD)/test_%: tests/unit/test_%.c $(CORE_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD) $(PIC):
	mkdir -p $@

-include $(wildcard $(BUILD)/*/*.d $(PIC)/*/*.d)

$(BUILD)/integration/test_%: tests/integration/test_%.c tests/unit/unit.h
	@mkdir -p $(BUILD)/integration
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(LDFLAGS)

# Every test program, built but not run (CI builds them with clang too).
build-tests: $(UNIT_BIN) $(ITEST_BIN)

# make test ONLY=NAME runs one test, golden case or group (tests/run).
test: $(BIN) $(UNIT_BIN) $(ITEST_BIN) $(SO) $(MAN)
	@BIN=$(BIN) BUILD=$(BUILD) ONLY="$(ONLY)" sh tests/run

# Only the browser tests (headless Chromium driven by Playwright; run
# `npm ci` in tests/browser first).
test-browser: $(BIN)
	@BIN=$(BIN) BUILD=$(BUILD) ONLY=browser sh tests/run

# The whole suite again under AddressSanitizer and UBSan (LeakSanitizer
# on); then the Lua tests under valgrind, which sees what ASan cannot in
# Debian's liblua (not instrumented): the Lua bindings' use of Lua's
# memory.  The last line is valgrind's tally.
VALGRIND = valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect \
	--suppressions=$(CURDIR)/tests/valgrind.supp
check-asan: $(BIN)
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 UBSAN_OPTIONS=print_stacktrace=1 \
	$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/statemap-lua \
		OPT="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" test
	@echo "The Lua tests under valgrind:"
	@STATEMAP_PLAIN_ALLOC=1 BIN=$(BIN) BUILD=$(BUILD) ONLY=lua LUA_WRAP="$(VALGRIND)" sh tests/run

bench: statemap-lua $(BUILD)/gentrace $(BUILD)/scanrate $(BUILD)/tdrate \
    $(BUILD)/luatable
	@sh bench/run

# A 4.3 GB trace loaded and queried under --memory-limit 256M, compared
# with a load in memory (bench/large; make bench runs it too).
test-large: statemap-lua $(BUILD)/gentrace
	@sh bench/large

$(BUILD)/gentrace: bench/gentrace.c | $(BUILD)
	$(CC) $(CFLAGS_BASE) -O2 -o $@ $< -lm

# The scanner alone, in ns a record (bench/scanrate.c).
$(BUILD)/scanrate: bench/scanrate.c $(CORE_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_OBJ) $(LDFLAGS) $(LDLIBS)

# Lua's own cost of a table like t:at's answer (bench/luatable.c).
$(BUILD)/luatable: bench/luatable.c $(CORE_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_OBJ) $(LDFLAGS) $(LDLIBS)

# libtracecmd's bare iteration over a trace.dat (bench/tdrate.c).
$(BUILD)/tdrate: bench/tdrate.c | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(LDLIBS)

# libFuzzer harnesses (tests/fuzz/fuzz_NAME.c, seeds in tests/fuzz/NAME/):
# each runs FUZZ_SECONDS; new inputs go to build-fuzz/corpus-NAME, and
# what one finds to crash-*, leak-*, timeout-* or oom-* here.  The sources
# are compiled once into build-fuzz/obj (clang: ASan, UBSan and libFuzzer's
# coverage).  tests/fuzz/NAME.dict, if there is one, is its libFuzzer
# dictionary; fuzz_writers, fuzz_chunks and fuzz_roundtrip also start
# from fuzz_ingest's seeds.
# fuzz_lua links Debian's liblua5.4, which is not instrumented: `make
# fuzz-valgrind` runs its programs under valgrind with the normal build.
FUZZ_SECONDS ?= 60
FUZZERS	= json ingest duration cache serve writers lua chunks roundtrip deflate
FOBJ	= build-fuzz/obj
FUZZ_SRC = $(filter-out src/cli/main.c src/cli/script.c src/cli/repl.c \
	src/cli/palette_load.c \
	src/lua/% src/render/%,$(SRC))
FUZZ_LUA_SRC = $(filter-out src/cli/main.c src/cli/repl.c,$(SRC))
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread -g -O1 -Isrc -I$(BUILD) \
	-Itests/fuzz $(shell pkg-config --cflags lua5.4 cairo libmicrohttpd $(KPKGS) 2>/dev/null) \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_LINK = clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined
FUZZ_OBJ = $(FUZZ_SRC:src/%.c=$(FOBJ)/%.o) $(FOBJ)/viewer_assets.o
FUZZ_LUA_OBJ = $(FUZZ_LUA_SRC:src/%.c=$(FOBJ)/%.o) $(FOBJ)/viewer_assets.o \
	$(FOBJ)/lua_modules.o $(FOBJ)/fuzz_lua_prelude.o
# fontconfig keeps caches for the process's life (tests/lsan.supp); the
# pictures of fuzz_lua load it.
FUZZ_ENV = LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

fuzz: $(FUZZERS:%=build-fuzz/fuzz_%)
	@for f in $(FUZZERS); do \
		mkdir -p build-fuzz/corpus-$$f; \
		seeds=tests/fuzz/$$f; \
		case $$f in writers|chunks|roundtrip) seeds="$$seeds tests/fuzz/ingest";; esac; \
		dict=; \
		if [ -f tests/fuzz/$$f.dict ]; then dict=-dict=tests/fuzz/$$f.dict; fi; \
		echo "fuzzing $$f for $(FUZZ_SECONDS) s"; \
		$(FUZZ_ENV) build-fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) \
		    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $$dict \
		    build-fuzz/corpus-$$f $$seeds 2>&1 | grep -E \
		    "^(stat::number_of_executed_units|#[0-9]+ *DONE|==|SUMMARY|artifact|fuzz_)" \
		    || true; \
		test -z "$$(ls crash-* leak-* timeout-* oom-* 2>/dev/null)" || exit 1; \
	done

FUZZ_LIBS = $(shell pkg-config --libs zlib libzstd libmicrohttpd $(KPKGS)) -lm

build-fuzz/fuzz_writers: tests/fuzz/fuzz_writers.c tests/fuzz/outcheck.c \
    tests/fuzz/outcheck.h $(FUZZ_OBJ)
	$(FUZZ_LINK) -o $@ $(filter %.c %.o,$^) $(FUZZ_LIBS)

build-fuzz/fuzz_ingest: tests/fuzz/fuzz_ingest.c tests/fuzz/shapes.c \
    tests/fuzz/shapes.h $(FUZZ_OBJ)
	$(FUZZ_LINK) -o $@ $(filter %.c %.o,$^) $(FUZZ_LIBS)

build-fuzz/fuzz_lua: tests/fuzz/fuzz_lua.c tests/fuzz/fuzz_lua_prelude.h $(FUZZ_LUA_OBJ)
	$(FUZZ_LINK) -o $@ $(filter %.c %.o,$^) \
	    $(shell pkg-config --libs lua5.4 cairo) $(FUZZ_LIBS)

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_LINK) -o $@ $^ $(FUZZ_LIBS)

$(FOBJ)/%.o: src/%.c | $(FOBJ)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FOBJ)/%.o: $(BUILD)/%.c | $(FOBJ)
	clang $(FUZZ_CFLAGS) -c -o $@ $<

$(FOBJ):
	mkdir -p $@

-include $(wildcard $(FOBJ)/*/*.d)

# fuzz_lua's prelude, and the generator alone (-DFUZZ_LUA_MAIN), which
# writes the program of each input for tests/fuzz/lua-valgrind.sh.
$(BUILD)/fuzz_lua_prelude.c: src/output/embed_text.lua tests/fuzz/fuzz_lua_prelude.lua | $(BUILD)
	lua5.4 src/output/embed_text.lua $@ fuzz_lua_prelude.h \
	    fuzz_lua_prelude=tests/fuzz/fuzz_lua_prelude.lua

$(BUILD)/fuzz_lua_gen: tests/fuzz/fuzz_lua.c $(BUILD)/fuzz_lua_prelude.c \
    tests/fuzz/fuzz_lua_prelude.h | $(BUILD)
	$(CC) $(CFLAGS_BASE) -O1 -DFUZZ_LUA_MAIN -Itests/fuzz -o $@ \
	    $(filter %.c,$^) $(shell pkg-config --libs zlib)

# fuzz_lua's seeds (or the inputs given as FUZZ_INPUTS) under valgrind.
fuzz-valgrind: $(BIN) $(BUILD)/fuzz_lua_gen
	@BIN=$(BIN) BUILD=$(BUILD) sh tests/fuzz/lua-valgrind.sh $(FUZZ_INPUTS)

# The program, its man pages (man1, man3, man5), the Lua module for plain
# lua5.4, and under share/statemap-lua the README, the lua/ modules
# (compiled in; these are for reading), the examples and the converters.
# DESTDIR stages it.
SHARE_DIRS = examples examples/data examples/img contrib contrib/lib contrib/img
install: statemap-lua statemap.so $(MAN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LUA_CMOD) \
	    $(DESTDIR)$(DATADIR)/lua $(SHARE_DIRS:%=$(DESTDIR)$(DATADIR)/%)
	install -m 755 statemap-lua $(DESTDIR)$(BINDIR)/statemap-lua
	for p in $(MAN); do \
		d=$(DESTDIR)$(MANDIR)/man$${p##*.}; \
		install -d $$d && install -m 644 $$p $$d/ || exit 1; \
	done
	install -m 755 statemap.so $(DESTDIR)$(LUA_CMOD)/statemap.so
	install -m 644 README.md $(DESTDIR)$(DATADIR)/README.md
	install -m 644 $(LUA_MODS) $(DESTDIR)$(DATADIR)/lua/
	for d in $(SHARE_DIRS); do \
		for f in $$d/*; do \
			[ -f "$$f" ] || continue; \
			install -m 644 "$$f" $(DESTDIR)$(DATADIR)/$$d/; \
		done; \
	done

# Removes what install put there (the same PREFIX, DESTDIR and LUA_CMOD):
# the program, the man pages, the Lua module and share/statemap-lua.
# Directories others may share (bin, man1, lib/lua/5.4) stay.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/statemap-lua $(DESTDIR)$(LUA_CMOD)/statemap.so
	for p in $(MAN); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/} || exit 1; \
	done
	rm -rf $(DESTDIR)$(DATADIR)

# The Lua module alone into LUA_CMOD, for LuaRocks (statemap-*.rockspec:
# luarocks make builds statemap.so and runs this with LUA_CMOD set to the
# rock's lib directory).
install-module: statemap.so
	install -d $(DESTDIR)$(LUA_CMOD)
	install -m 755 statemap.so $(DESTDIR)$(LUA_CMOD)/statemap.so

clean:
	rm -rf build build-asan build-clang build-fuzz build-pic statemap-lua statemap.so

.PHONY: all man build-tests test test-browser check-asan bench test-large fuzz fuzz-valgrind install uninstall install-module clean
