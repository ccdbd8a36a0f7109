# statemap-lua: build, test, install.  Dependencies come from pkg-config.

PREFIX	?= /usr/local
BINDIR	= $(PREFIX)/bin
DATADIR	= $(PREFIX)/share/statemap-lua
MANDIR	= $(PREFIX)/share/man/man1
LUA_CMOD ?= $(PREFIX)/lib/x86_64-linux-gnu/lua/5.4

PKGS	= lua5.4 cairo readline zlib libzstd libmicrohttpd
CC	?= cc
OPT	?= -O2
CFLAGS_BASE = -std=c11 -D_GNU_SOURCE -pthread $(OPT) -g -Wall -Wextra -Werror \
	-Wshadow -Wstrict-prototypes -Wmissing-prototypes
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS	+= $(CFLAGS_BASE) $(PKG_CFLAGS) -Isrc -Ibuild
LDLIBS	+= $(PKG_LIBS) -lm

BUILD	= build
# The core: every module but main.c, also linked into the unit tests.
CORE_SRC = $(filter-out src/main.c,$(wildcard src/*.c))
CORE_OBJ = $(CORE_SRC:src/%.c=$(BUILD)/%.o) $(BUILD)/lua_modules.o \
	$(BUILD)/viewer_assets.o
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/%)
LUA_MODS = $(wildcard lua/*.lua)

BIN	?= statemap-lua

all: $(BIN) statemap.so

$(BIN): $(BUILD)/main.o $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/%.o: src/%.c | $(BUILD)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# statemap.so: the same module for plain lua5.4 (require "statemap").
# Lua's symbols come from the interpreter that loads it.
PIC_SRC = $(filter-out src/main.c src/lua_script.c src/lua_repl.c,$(wildcard src/*.c))
PIC_OBJ = $(PIC_SRC:src/%.c=build-pic/%.o) build-pic/lua_modules.o \
	build-pic/viewer_assets.o
PIC_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread -O2 -g -fPIC -Wall -Wextra -Werror \
	$(PKG_CFLAGS) -Isrc -I$(BUILD)

statemap.so: $(PIC_OBJ)
	$(CC) -shared -pthread -o $@ $^ $(shell pkg-config --libs cairo zlib libzstd libmicrohttpd) -lm

build-pic/%.o: src/%.c
	@mkdir -p build-pic
	$(CC) $(PIC_CFLAGS) -c -o $@ $<

build-pic/lua_modules.o: $(BUILD)/lua_modules.c src/lua_modules.h
	@mkdir -p build-pic
	$(CC) $(PIC_CFLAGS) -c -o $@ $<

# The lua/ modules, compiled into the binary.
$(BUILD)/lua_modules.c: src/embed.lua $(LUA_MODS) | $(BUILD)
	lua5.4 src/embed.lua $@ $(LUA_MODS)

$(BUILD)/lua_modules.o: $(BUILD)/lua_modules.c src/lua_modules.h
	$(CC) $(CFLAGS) -c -o $@ $<

# The SVG viewer's script and style sheet, compiled into the binary.
VIEWER_FILES = src/viewer.js src/viewer.css
$(BUILD)/viewer_assets.c: src/embed_text.lua $(VIEWER_FILES) | $(BUILD)
	lua5.4 src/embed_text.lua $@ viewer.h viewer_js=src/viewer.js \
	    viewer_css=src/viewer.css

$(BUILD)/viewer_assets.o: $(BUILD)/viewer_assets.c src/viewer.h
	$(CC) $(CFLAGS) -c -o $@ $<

build-pic/viewer_assets.o: $(BUILD)/viewer_assets.c src/viewer.h
	@mkdir -p build-pic
	$(CC) $(PIC_CFLAGS) -c -o $@ $<

$(BUILD)/test_%: tests/unit/test_%.c $(CORE_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD):
	mkdir -p $(BUILD)

-include $(wildcard $(BUILD)/*.d)

test: $(BIN) $(UNIT_BIN) statemap.so
	@BIN=$(BIN) BUILD=$(BUILD) sh tests/run

# Only the browser tests (headless Chromium driven by Playwright; run
# `npm ci` in tests/browser first).
test-browser: $(BIN)
	@BIN=$(BIN) BUILD=$(BUILD) ONLY=browser sh tests/run

# The whole suite again under AddressSanitizer and UBSan (LeakSanitizer on).
check-asan:
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 UBSAN_OPTIONS=print_stacktrace=1 \
	$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/statemap-lua \
		OPT="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" test

bench: statemap-lua $(BUILD)/gentrace
	@sh bench/run

$(BUILD)/gentrace: bench/gentrace.c | $(BUILD)
	$(CC) $(CFLAGS_BASE) -o $@ $<

# libFuzzer harnesses (tests/fuzz/fuzz_NAME.c, seeds in tests/fuzz/NAME/, words
# in tests/fuzz/NAME.dict if there is one):
# each runs FUZZ_SECONDS; new inputs go to build-fuzz/corpus-NAME.
FUZZ_SECONDS ?= 60
FUZZERS	= json ingest duration serve
FUZZ_SRC = $(filter-out src/main.c src/lua_%.c src/render.c src/pngout.c,$(wildcard src/*.c))
FUZZ_FLAGS = -std=c11 -D_GNU_SOURCE -pthread -g -O1 -Isrc \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

fuzz: $(FUZZERS:%=build-fuzz/fuzz_%)
	@for f in $(FUZZERS); do \
		mkdir -p build-fuzz/corpus-$$f; \
		echo "fuzzing $$f for $(FUZZ_SECONDS) s"; \
		dict=; [ -f tests/fuzz/$$f.dict ] && dict=-dict=tests/fuzz/$$f.dict; \
		build-fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		    -print_final_stats=1 $$dict build-fuzz/corpus-$$f tests/fuzz/$$f \
		    2>&1 | grep -E "^(stat::number_of_executed_units|==|SUMMARY|artifact)" \
		    || true; \
		test -z "$$(ls crash-* leak-* timeout-* oom-* 2>/dev/null)" || exit 1; \
	done

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC) $(BUILD)/viewer_assets.c
	@mkdir -p build-fuzz
	clang $(FUZZ_FLAGS) -o $@ $^ $(shell pkg-config --libs zlib libzstd libmicrohttpd) -lm

install: statemap-lua statemap.so
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/lua $(DESTDIR)$(MANDIR)
	install -m 755 statemap-lua $(DESTDIR)$(BINDIR)/statemap-lua
	for f in $(LUA_MODS); do install -m 644 $$f $(DESTDIR)$(DATADIR)/lua/; done
	install -m 644 src/statemap-lua.1 $(DESTDIR)$(MANDIR)/statemap-lua.1
	install -d $(DESTDIR)$(LUA_CMOD)
	install -m 755 statemap.so $(DESTDIR)$(LUA_CMOD)/statemap.so

clean:
	rm -rf build build-asan build-fuzz build-pic statemap-lua statemap.so

.PHONY: all test test-browser check-asan bench fuzz install clean
