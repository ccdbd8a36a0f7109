/*
 * viewer_rows.js: the statemaps and their rows, as the document draws
 * them: each statemap's <svg> (where it sits, its strips), its rows (one
 * per entity, with the data block's rectangles), grouped into a tree when
 * names are paths and laid out in slots, nested entities' depth rows
 * among them; and lookups in a row's rectangles.  Reads the document
 * once; the rest is data (layoutRows and the lookups need no DOM).
 *
 *   viewerRows(sv) -> null if nothing is drawn, else { maps, X0, W,
 *       mapsBottom, origWidth, origHeight, allRows, expanded, hasDepths,
 *       layoutRows, buildTree, separators, shownName, lastStartingBy,
 *       rectAt, firstFrom,
 *       mainState }
 *   from sv: doc, root, data, detail, allExact
 */
function viewerRows(sv) {
	const doc = sv.doc, root = sv.root, data = sv.data, detail = sv.detail;
	const allExact = sv.allExact;

	/* ---- the statemaps, and their rows ---- */

	const maps = [];
	let legendOwner = 0;
	data.statemaps.forEach(function (sm, i) {
		const svg = doc.getElementById('statemap-' + i);
		if (!svg)
			return;
		if (doc.getElementById('statemap-legend-' + i + '-0'))
			legendOwner = i;
		const m = {
			index: i, json: sm, svg: svg, legend: legendOwner,
			x: +svg.getAttribute('x'), y: +svg.getAttribute('y'),
			w: +svg.getAttribute('width'), h: +svg.getAttribute('height'),
			rows: [], byName: new Map(), stateIndex: new Map(),
			groups: []
		};
		/* (With slots for group headers below the rows, the SVG says the rows' height.) */
		const rowH = svg.getAttribute('data-strip-height');
		m.stripH = rowH !== null ? +rowH : sm.entities.length > 0 ? m.h / sm.entities.length : 0;
		sm.states.forEach(function (st, k) { m.stateIndex.set(st.name, k); });
		for (const g of svg.children) {
			if (g.tagName === 'g')
				m.groups.push(g);
		}
		const counts = detail && Array.isArray(detail.counts) ? detail.counts[i] || [] : [];
		sm.entities.forEach(function (e, k) {
			/* Each rectangle's n, the transitions it stands for, if known. */
			const c = allExact ? 1 : counts[k];
			e.rects.forEach(function (r, j) {
				if (c === 1)
					r.n = 1;
				else if (Array.isArray(c) && typeof c[j] === 'number')
					r.n = c[j];
			});
			m.rows.push({ map: m, k: k, name: e.name, description: e.description,
			    rects: e.rects, kind: e.kind, depths: e.depths });
			m.byName.set(e.name, k);
		});
		svg.setAttribute('preserveAspectRatio', 'none');
		svg.classList.add('statemap-map');
		maps.push(m);
	});
	if (maps.length === 0)
		return null;

	const X0 = maps[0].x, W = maps[0].w;
	const lastMap = maps[maps.length - 1];
	const mapsBottom = lastMap.y + lastMap.h;
	const origWidth = root.viewBox.baseVal.width;
	const origHeight = root.viewBox.baseVal.height;
	const allRows = [];
	maps.forEach(function (m) { m.rows.forEach(function (r) { allRows.push(r); }); });

	/*
	 * ---- groups: entities whose names are paths, as a tree ----
	 *
	 * In a statemap whose entity names hold a '/', the paths make a tree:
	 * "proc/12/thread/3" sits under "proc/12/thread", under "proc/12",
	 * under "proc".  Each level is a header in the names column, indented
	 * by its depth, with its entities and inner headers under it in the
	 * order of their first entity; a level with no entity of its own and
	 * a single inner level is one header with it ("proc/12" when proc has
	 * only 12), so deep paths do not cost a row each.  A click on a
	 * header folds everything under it (the rows hide and the rows below
	 * move up) or unfolds it, inner folds as they were.  Rows are slots
	 * of the statemap's height shared with the headers, so nothing else
	 * on the page moves; a statemap without paths has one slot per
	 * entity, as it always had.  row.slot is a row's slot, -1 when
	 * folded away.
	 */
	/*
	 * Where a name's components end: the indexes of its '/'s that are
	 * not escaped.  As the input format says (statemap-lua-format(5)),
	 * "\\/" is a '/' inside a component and "\\\\" a backslash.
	 */
	function separators(name) {
		const at = [];
		if (name.indexOf('\\') < 0) {
			for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1))
				at.push(i);
			return at;
		}
		for (let i = 0; i < name.length; i++) {
			const c = name.charCodeAt(i);
			if (c === 92 && (name[i + 1] === '/' || name[i + 1] === '\\'))
				i++;
			else if (c === 47)
				at.push(i);
		}
		return at;
	}

	/* A name, or a part of one, as shown: its escapes resolved. */
	function shownName(s) {
		return s.indexOf('\\') < 0 ? s : s.replace(/\\([\\/])/g, '$1');
	}

	/*
	 * The tree of a statemap's rows: m.tree, the top level's items in
	 * order, each a row or a level { path, label, depth, items, n } (n:
	 * the entities under it at every depth).  A level is known by the
	 * level above and its own segment, and nothing walks a path twice or
	 * recurses along it, so a name megabytes deep costs its length.
	 */
	function buildTree(m) {
		const nodes = [], index = new Map(), top = [];
		m.rows.forEach(function (r, k) {
			const name = typeof r.name === 'string' ? r.name : '';
			const seps = separators(name);
			const last = seps.length > 0 ? seps[seps.length - 1] : -1;
			if (last <= 0) {
				top.push({ item: r, first: k });
				return;
			}
			let up = -1, from = 0;
			for (const i of seps) {
				if (i === 0)
					continue;
				const key = up + '\u0000' + name.slice(from, i);
				let id = index.get(key);
				if (id === undefined) {
					id = nodes.length;
					nodes.push({ parent: up, end: i, name: name, rows: [], nkids: 0, first: k, n: 0 });
					index.set(key, id);
					if (up >= 0)
						nodes[up].nkids++;
				}
				from = i;
				up = id;
			}
			nodes[up].rows.push(r);
		});
		/* Parents come before their levels: one pass each way. */
		nodes.forEach(function (x) {
			x.shown = x.rows.length > 0 || x.nkids !== 1;
			let up = x.parent;
			if (up >= 0 && !nodes[up].shown)
				up = nodes[up].shownUp;
			x.shownUp = up;
			x.depth = up < 0 ? 0 : nodes[up].depth + 1;
			x.list = [];
		});
		for (let i = nodes.length - 1; i >= 0; i--) {
			nodes[i].n += nodes[i].rows.length;
			if (nodes[i].parent >= 0)
				nodes[nodes[i].parent].n += nodes[i].n;
		}
		m.nheads = 0;
		nodes.forEach(function (x) {
			if (!x.shown)
				return;
			m.nheads++;
			const from = x.shownUp < 0 ? 0 : nodes[x.shownUp].end + 1;
			x.level = { path: x.name.slice(0, x.end), label: shownName(x.name.slice(from, x.end)), depth: x.depth,
			    items: [], n: x.n };
			(x.shownUp < 0 ? top : nodes[x.shownUp].list).push({ item: x.level, first: x.first });
			x.rows.forEach(function (r) { x.list.push({ item: r, first: r.k }); });
		});
		const byFirst = function (a, b) { return a.first - b.first; };
		nodes.forEach(function (x) {
			if (x.shown)
				x.level.items = x.list.sort(byFirst).map(function (it) { return it.item; });
		});
		m.tree = top.sort(byFirst).map(function (it) { return it.item; });
	}

	/*
	 * ---- nested entities' depth rows: a flame chart under the strip ----
	 *
	 * An expanded nested entity takes one more slot per depth of its
	 * stack directly below its strip, bottom depth first; the strips
	 * of the statemap share its height with them.  A depth slot is
	 * { depthOf: row, d: depth - 1, slot } in m.bySlot.
	 */
	const expanded = new Set();

	function hasDepths(row) {
		return row.kind === 'nested' && Array.isArray(row.depths) && row.depths.length > 0;
	}

	function pushRow(m, r) {
		r.slot = m.bySlot.length;
		m.bySlot.push(r);
		r.shownDepths = expanded.has(r) && hasDepths(r) ? r.depths.length : 0;
		for (let d = 0; d < r.shownDepths; d++)
			m.bySlot.push({ depthOf: r, d: d, slot: m.bySlot.length });
		m.nslots += r.shownDepths;
	}

	function layoutRows(m) {
		m.nslots = m.base;
		m.bySlot = [];
		m.heads = [];
		/* Folded levels hide all under them, open or not (a stack, not recursion). */
		const stack = [{ items: m.tree, i: 0, hidden: false }];
		while (stack.length > 0) {
			const top = stack[stack.length - 1];
			if (top.i >= top.items.length) {
				stack.pop();
				continue;
			}
			const it = top.items[top.i++];
			if (it.path === undefined) {
				if (top.hidden)
					it.slot = -1;
				else
					pushRow(m, it);
				continue;
			}
			const open = !m.folded.has(it.path);
			if (!top.hidden) {
				const head = { group: it.path, label: it.label, depth: it.depth,
				    slot: m.bySlot.length, n: it.n, open: open };
				m.heads.push(head);
				m.bySlot.push(head);
			}
			stack.push({ items: it.items, i: 0, hidden: top.hidden || !open });
		}
		m.stripH = m.h / m.nslots;
	}

	maps.forEach(function (m) {
		m.h0 = m.stripH;
		m.folded = new Set();
		m.heads = [];
		m.rows.forEach(function (r, k) {
			r.slot = k;
		});
		/* (Without paths, the tree is the rows: nested ones may expand.) */
		buildTree(m);
		m.grouped = m.nheads > 0;
		/* Laid out in slots: with groups, or rows that may expand. */
		m.slotted = m.grouped || m.rows.some(function (r) { return r.kind === 'nested'; });
		m.bySlot = m.rows.slice();
		m.nslots = m.base = m.rows.length;
		if (!m.grouped)
			return;
		m.nslots = m.base = m.rows.length + m.nheads;
		m.stripH = m.h / m.nslots;
		layoutRows(m);
	});

	/* Index of the last rectangle starting at or before t, or -1. */
	function lastStartingBy(rs, t) {
		let lo = 0, hi = rs.length - 1, found = -1;
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			if (rs[mid].start <= t) {
				found = mid;
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		return found;
	}

	/* The rectangle of a row holding own time t, or -1. */
	function rectAt(row, t) {
		const rs = row.rects, found = lastStartingBy(rs, t);
		if (found >= 0 && t < rs[found].start + rs[found].duration)
			return found;
		return -1;
	}

	/* Where a walk over rectangles from time t begins (0 if none starts by t). */
	function firstFrom(rs, t) {
		return Math.max(0, lastStartingBy(rs, t));
	}

	/* The state with the most time in a rectangle. */
	function mainState(rect) {
		let best = null, bt = -1;
		for (const s in rect.states) {
			if (rect.states[s] > bt) {
				best = s;
				bt = rect.states[s];
			}
		}
		return best;
	}

	return { maps: maps, X0: X0, W: W, mapsBottom: mapsBottom, origWidth: origWidth,
	    origHeight: origHeight, allRows: allRows, expanded: expanded, hasDepths: hasDepths,
	    layoutRows: layoutRows, buildTree: buildTree, separators: separators,
	    shownName: shownName, lastStartingBy: lastStartingBy,
	    rectAt: rectAt, firstFrom: firstFrom, mainState: mainState };
}
