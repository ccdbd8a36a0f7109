#!/bin/sh
# tests/layers.sh: src/ is one folder per layer, and a file uses only its
# own layer and those below.  Checked three ways, each a PASS or FAIL
# line for tests/run:
#
#   includes  every #include of a project header names its folder
#             ("store/catalog.h"), and that folder is the file's own
#             layer or one below it
#   calls     every symbol an object file takes from another (nm) is
#             defined in the same layer or one below
#   circles   the modules (a .c with its .h) that include or call one
#             another form no loop, within a layer or across layers
#
# The order of the layers, lowest first, is LAYERS in the Makefile (and
# src/README.md).  BUILD is where the objects are (make builds them).
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
BUILD=${BUILD:-build}
LAYERS=$(sed -n 's/^LAYERS[[:space:]]*=[[:space:]]*//p' Makefile)
[ -n "$LAYERS" ] || { echo "FAIL layers: no LAYERS line in the Makefile"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rank LAYER: its place, 1 the lowest; nothing for a folder that is none.
rank() {
	i=1
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
}

# Every source folder is a layer.
for d in src/*/; do
	d=${d%/}
	if [ -z "$(rank "${d#src/}")" ]; then
		echo "FAIL layers: $d is not a layer of the Makefile's LAYERS"
	fi
done
for f in src/*; do
	[ -f "$f" ] && [ "$f" != src/README.md ] &&
	    echo "FAIL layers: $f is outside the layers' folders"
done

# includes: "module layer/module" edges, and the rank check.
: > "$tmp/edges"
for f in src/*/*.c src/*/*.h; do
	layer=${f#src/}; layer=${layer%%/*}
	mod=${f#src/}; mod=${mod%.*}
	r=$(rank "$layer")
	bad=0
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		*/*)	il=${inc%%/*}
			ir=$(rank "$il")
			if [ ! -f "src/$inc" ] || [ -z "$ir" ]; then
				echo "FAIL layers: $f includes \"$inc\", which is no header of src/"
				bad=1
			elif [ "$ir" -gt "$r" ]; then
				echo "FAIL layers: $f ($layer) includes $inc from $il, a layer above it"
				bad=1
			fi
			[ "${inc%.h}" != "$mod" ] && echo "$mod ${inc%.h}" >> "$tmp/edges" ;;
		*)	if ls src/*/"$inc" > /dev/null 2>&1; then
				echo "FAIL layers: $f includes \"$inc\" without its folder"
				bad=1
			fi ;;
		esac
	done
	[ $bad = 0 ] && echo "PASS layers: $f includes only its layer and below"
done

# calls: which object defines each global symbol, and who takes it.
# Objects of sources that still exist (an old build may hold others).
objs=$(cd "$BUILD" 2>/dev/null && ls */*.o 2>/dev/null |
    grep -E "^($(echo $LAYERS | tr ' ' '|'))/" | while read -r o; do
	[ -f "$top/src/${o%.o}.c" ] && echo "$o"
done)
if [ -z "$objs" ]; then
	echo "FAIL layers: no objects in $BUILD/ (build first: make)"
	exit 0
fi
(cd "$BUILD" && for o in $objs; do
	nm --defined-only -g "$o" | awk -v m="${o%.o}" 'NF == 3 { print $3, m }'
done) | sort > "$tmp/defs"
# The generated objects belong to the layer of the header they fill in.
(cd "$BUILD" && for o in lua_modules.o viewer_assets.o; do
	[ -f "$o" ] || continue
	case $o in lua_modules.o) m=lua/lua_modules ;; *) m=output/viewer ;; esac
	nm --defined-only -g "$o" | awk -v m="$m" 'NF == 3 { print $3, m }'
done) | sort >> "$tmp/defs"
sort -o "$tmp/defs" "$tmp/defs"
(cd "$BUILD" && for o in $objs; do
	nm -u "$o" | awk -v m="${o%.o}" '{ print $NF, m }'
done) | sort > "$tmp/uses"
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3, $1 }' |
    sort -u > "$tmp/calls"
for o in $objs; do
	m=${o%.o}
	layer=${m%%/*}
	r=$(rank "$layer")
	bad=0
	while read -r from to sym; do
		[ -n "$to" ] || continue
		tl=${to%%/*}
		if [ "$(rank "$tl")" -gt "$r" ]; then
			echo "FAIL layers: src/$from.c ($layer) calls $sym of src/$to.c ($tl), a layer above it"
			bad=1
		fi
	done <<EOF
$(awk -v m="$m" '$1 == m' "$tmp/calls")
EOF
	[ $bad = 0 ] && echo "PASS layers: src/$m.c calls only its layer and below"
done

# circles: tsort names the modules of each loop it finds.
awk '{ print $1, $2 }' "$tmp/calls" >> "$tmp/edges"
sort -u "$tmp/edges" | awk '$1 != $2' > "$tmp/graph"
if tsort "$tmp/graph" > /dev/null 2> "$tmp/loops"; then
	echo "PASS layers: no circle of modules that include or call each other"
else
	awk '/input contains a loop/ { if (n) print "FAIL layers: a circle: " s; s = ""; n = 1; next }
	    { sub(/^tsort: /, ""); s = s (s == "" ? "" : " -> ") $0 }
	    END { if (n) print "FAIL layers: a circle: " s }' "$tmp/loops"
fi
