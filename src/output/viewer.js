/*
 * viewer.js: the interactive statemap viewer, embedded at the end of the
 * SVG that statemap-lua writes (src/output/svg.c) and run when the document has
 * been parsed.  The static picture is complete without it; this adds
 * zoom and pan, a time bar with details of the clicked rectangle, state
 * selection (several with shift), tag values highlighted across entities,
 * events (thin ticks when dense), search, and a layout that fits the
 * window.
 *
 * Every string from the trace reaches the page through textContent or
 * setAttribute, never through markup.  Zooming only changes the viewBox
 * of each statemap's <svg>; clicks look rectangles up by binary search in
 * the data, so neither walks the DOM.
 *
 * One viewer, two sources of data.  A file is its data block (the -T json
 * document, drawn by the SVG itself) and, if written with --detail, finer
 * windows of the same trace (the statemap-detail block): once the view
 * settles inside one, its rectangles are painted instead.  The live page
 * (statemap-lua --serve) asks its server for every view it settles on.
 * Either way the answer is painted into a canvas per statemap, and the
 * rows' data (clicks, panel, legend counts, highlights) are the answer's.
 * An indicator above the strips says whether what is on screen is exact.
 */
(function () {
	'use strict';

	const SVGNS = 'http://www.w3.org/2000/svg';
	const XHTMLNS = 'http://www.w3.org/1999/xhtml';
	const PANEL_WIDTH = 330;
	const MAX_ZOOM = 1e4;	/* float precision of the drawing, see fixRects */
	const LINE = 14;

	const LIVE_MIN = 100;	/* the narrowest view with a source, ns */
	const LIVE_DELAY = 150;	/* ms after the last zoom or pan: ask the server */
	const DETAIL_DELAY = 60;	/* ms: paint an embedded window */

	const doc = document;
	const root = doc.documentElement;
	const data = JSON.parse(doc.getElementById('statemap-data').textContent);
	const span = Math.max(Number(root.getAttribute('data-span')) || 1, 1);
	/* The live page's link to its server (page.c), if this is one. */
	const liveBlock = doc.getElementById('statemap-live');
	const live = liveBlock ? (window.statemapLive || JSON.parse(liveBlock.textContent)) : null;
	/* Finer windows written with --detail, and level 0's counts (detail.h). */
	const detailBlock = doc.getElementById('statemap-detail');
	const detail = detailBlock ? JSON.parse(detailBlock.textContent) : null;
	const allExact = root.getAttribute('data-detail') === 'exact';

	/* ---- small helpers ---- */

	function el(name, attrs, parent) {
		const e = doc.createElementNS(SVGNS, name);
		for (const k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function text(parent, x, y, str, cls) {
		const t = el('text', { x: x, y: y }, parent);
		t.setAttribute('class', 'statemap-viewer-text' + (cls ? ' ' + cls : ''));
		t.textContent = str;
		return t;
	}

	function clear(node) {
		while (node.firstChild)
			node.removeChild(node.firstChild);
	}

	/* A time in ns as the original shows it: 3 decimals in the largest unit. */
	function fmt(ns) {
		const a = Math.abs(ns), sign = ns < 0 ? '-' : '';
		/* Units by the rounded value, so 999999.9996ns is 1.000ms. */
		for (const u of [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs']]) {
			if (a >= u[0] - u[0] / 2e3)
				return sign + (a / u[0]).toFixed(3) + u[1];
		}
		return sign + Math.round(a) + 'ns';
	}

	/*
	 * A point in time, with as many decimals as the view resolves (a
	 * thousandth of the visible span), at least 3: zoomed to 2ms around
	 * 1.075s, times read 1.075016s rather than 1.075s.
	 */
	function fmtAt(ns) {
		const a = Math.abs(ns), sign = ns < 0 ? '-' : '';
		const res = Math.max(view.w / 1e3, 1);
		for (const u of [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs']]) {
			if (a >= u[0] - u[0] / 2e3) {
				const dec = Math.min(Math.max(3, Math.ceil(Math.log10(u[0] / res) - 1e-9)), 9);
				return sign + (a / u[0]).toFixed(dec) + u[1];
			}
		}
		return sign + Math.round(a) + 'ns';
	}

	/* Seconds since the epoch of a time relative to a metadata start. */
	function epoch(start, rel) {
		const ns = start[1] + Math.round(rel);
		const carry = Math.floor(ns / 1e9);
		const frac = String(ns - carry * 1e9);
		return (start[0] + carry) + '.' + '000000000'.slice(frac.length) + frac;
	}

	function parseDuration(s) {
		const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|μs|ms|s|sec)?\s*$/.exec(s);
		if (!m)
			return NaN;
		const unit = { ns: 1, us: 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, sec: 1e9 };
		return parseFloat(m[1]) * unit[m[2] || 'ns'];
	}

	function truncate(s, n) {
		return s.length > n ? s.slice(0, n - 1) + '…' : s;
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

	/* ---- the document's layout and the data, per statemap ---- */

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
		m.stripH = sm.entities.length > 0 ? m.h / sm.entities.length : 0;
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
		return;

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
			const last = name.lastIndexOf('/');
			if (last <= 0) {
				top.push({ item: r, first: k });
				return;
			}
			let up = -1, from = 0;
			for (let i = 1; i <= last; i++) {
				if (i < last && name.charCodeAt(i) !== 47)
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
			x.level = { path: x.name.slice(0, x.end), label: x.name.slice(from, x.end), depth: x.depth,
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
	let selDepth = null;		/* { row, d }: the depth row clicked */

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

	/* ---- the view: [t0, t0 + w) in ns from the window's begin ---- */

	const view = { t0: 0, w: span };
	/*
	 * The embedded windows the viewer can use: those of the file's own
	 * shape (each statemap and row in the data block's order).
	 */
	const windows = (detail && Array.isArray(detail.windows) ? detail.windows : []).filter(function (w) {
		return Array.isArray(w.statemaps) && w.statemaps.length === data.statemaps.length &&
		    w.statemaps.every(function (sm, i) {
			return Array.isArray(sm.entities) &&
			    sm.entities.length === data.statemaps[i].entities.length;
		    }) && w.to > w.from;
	});
	/*
	 * The deepest zoom: 1/MAX_ZOOM of the span for the drawing alone;
	 * with finer data (painted at the view's own scale) 1/MAX_ZOOM of the
	 * finest window, and down to LIVE_MIN from a server.
	 */
	const finest = windows.reduce(function (a, w) { return Math.min(a, w.to - w.from); }, span);
	const minWidth = live ? Math.min(span, LIVE_MIN) :
	    windows.length > 0 ? Math.min(span, Math.max(1, finest / MAX_ZOOM)) :
	    Math.max(span / MAX_ZOOM, 1);
	let precise = false;

	function xOf(off) {
		return X0 + (off - view.t0) / view.w * W;
	}

	function offOf(x) {
		return view.t0 + (x - X0) / W * view.w;
	}

	function clampView() {
		view.w = Math.min(Math.max(view.w, minWidth), span);
		view.t0 = Math.min(Math.max(view.t0, 0), span - view.w);
	}

	/* Zooms by factor (< 1 is in) keeping offset `at` where it is. */
	function zoomAt(at, factor) {
		zoomWidth(at, view.w * factor);
	}

	function zoomWidth(at, width) {
		const nw = Math.min(Math.max(width, minWidth), span);
		view.t0 = at - (at - view.t0) * nw / view.w;
		view.w = nw;
		applyView();
	}

	function zoomTo(width) {
		const c = bars.length > 0 ? bars[0] : view.t0 + view.w / 2;
		zoomWidth(c, width);
	}

	function pan(fraction) {
		view.t0 += fraction * view.w;
		applyView();
	}

	/*
	 * The static rectangles have 1/1000 pixel precision and overlap their
	 * right neighbour by 0.4 pixel (against seams), both of which a zoom
	 * magnifies; the first zoom past 8x places them again from the data.
	 * An entity's rectangles are contiguous and drawn left to right, so an
	 * overlap is always painted over by the next one: it can be generous
	 * (half a pixel at 8x), but the last rectangle gets none.
	 */
	function fixRects() {
		precise = true;
		if (drawn.canvas)
			return;
		maps.forEach(function (m) {
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				if (!g)
					return;
				const rs = g.getElementsByTagName('rect');
				const n = Math.min(rs.length, row.rects.length);
				for (let i = 0; i < n; i++) {
					const r = row.rects[i];
					rs[i].setAttribute('x', (r.start - m.json.begin) / span * W);
					rs[i].setAttribute('width', r.duration / span * W +
					    (i + 1 < n ? 0.06 : 0));
				}
			});
		});
	}

	function applyView() {
		clampView();
		if (!precise && span / view.w > 8)
			fixRects();
		placeMaps();
		drawAxis();
		placeEvents();
		drawBars();
		spanLabel();
		/* What the panel says of the visible span, or of events in view. */
		if (selRow || tagSel || (stateSel && stateSel.field && bars.length === 0))
			drawPanel();
		schedule();
		indicator();
	}

	/*
	 * Each statemap's viewBox: the view in the coordinates of what is
	 * drawn, the SVG's own rectangles ([0, span) across the strips) or a
	 * painted answer (its range across the strips).
	 */
	function placeMaps() {
		const r = drawn.range;
		const vx = (view.t0 - r.t0) / r.w * W, vw = view.w / r.w * W;
		maps.forEach(function (m) {
			m.svg.setAttribute('viewBox', vx + ' 0 ' + vw + ' ' + m.h);
		});
	}

	/* ---- time axis and span label ---- */

	const axis = doc.querySelector('.statemap-axis');
	const axisY = axis ? +axis.querySelector('line').getAttribute('y1') : 58;

	function tickStep(w) {
		let step = 1;
		for (;;) {
			for (const k of [1, 2, 5]) {
				if (w / (step * k) <= 10)
					return step * k;
			}
			step *= 10;
		}
	}

	/* Each tick in its own unit, as the static axis: 900ms, 1s, 1.1s. */
	function tickLabel(t, step) {
		const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs'], [1, 'ns']];
		let u = units[3];
		for (const cand of units) {
			if (t >= cand[0]) {
				u = cand;
				break;
			}
		}
		const dec = Math.max(0, Math.ceil(Math.log10(u[0] / step) - 1e-9));
		let s = (t / u[0]).toFixed(dec);
		if (s.indexOf('.') >= 0)
			s = s.replace(/0+$/, '').replace(/\.$/, '');
		return s + u[1];
	}

	function drawAxis() {
		if (!axis)
			return;
		clear(axis);
		el('line', { x1: X0, y1: axisY, x2: X0 + W, y2: axisY, stroke: '#888' }, axis);
		const step = tickStep(view.w);
		const end = view.t0 + view.w;
		/* Ticks by index, so that the float sum never loses the last one. */
		const last = Math.floor(end / step + 1e-9);
		for (let i = Math.ceil(view.t0 / step - 1e-9); i <= last; i++) {
			const t = i * step, x = xOf(t);
			el('line', { x1: x, y1: axisY - 4, x2: x, y2: axisY, stroke: '#888' }, axis);
			const label = text(axis, x, axisY - 6, tickLabel(t, step),
			    'statemap-tick');
			label.setAttribute('text-anchor', 'middle');
		}
	}

	const spanText = doc.getElementById('statemap-timelabel');

	function spanLabel() {
		const first = data.statemaps[0];
		let s = 'span = ' + fmt(view.w);
		if (view.t0 > 0 || view.w < span || first.begin !== 0) {
			const rel = first.begin + view.t0;
			s += '; left edge at ';
			if (first.begin !== 0 && view.t0 > 0)
				s += fmtAt(view.t0) + ' into the window, ';
			s += fmtAt(rel) + ' from start (epoch ' + epoch(first.start, rel) + 's)';
		}
		if (spanText)
			spanText.textContent = s;
	}

	/*
	 * ---- the UI layer and the page's layout ----
	 *
	 * Wide windows get the details panel to the right of the entity
	 * names, following the page as it scrolls.  Narrower ones keep the
	 * drawing's own width (scaled down to fit if the window is narrower
	 * still) and get the panel as a box below the map, in columns; when
	 * the map runs below the window, the box floats over the bottom of the
	 * map instead, and can be folded away.  Nothing ever needs sideways
	 * scrolling.
	 */

	const layer = el('g', { id: 'statemap-viewer' }, root);
	const defs = el('defs', {}, layer);
	const arrow = el('marker', { id: 'statemap-arrow', viewBox: '0 0 6 6', refX: 5,
	    refY: 3, markerWidth: 6, markerHeight: 6, orient: 'auto' }, defs);
	el('path', { d: 'M0,0 L6,3 L0,6 z', class: 'statemap-event-arrowhead' }, arrow);
	const dynStyle = el('style', { type: 'text/css' }, defs);

	const selBox = el('rect', { class: 'statemap-selected-entity', x: X0, width: W,
	    visibility: 'hidden' }, layer);
	const searchHits = el('g', { id: 'statemap-search-hits' }, layer);
	const eventLayer = el('g', { id: 'statemap-events' }, layer);
	const barLayer = el('g', { id: 'statemap-timebars' }, layer);
	const typed = text(layer, X0 + W, 36, '', 'statemap-typed');
	typed.setAttribute('text-anchor', 'end');
	/* The panel's box: a background, a fold control and the lines. */
	const panelBox = el('g', { id: 'statemap-panel-box' }, layer);
	const panelBg = el('rect', { class: 'statemap-panel-bg', rx: 4, x: 0, y: 0 }, panelBox);
	const panelFold = text(panelBox, 0, 0, '', 'statemap-panel-fold');
	panelFold.setAttribute('text-anchor', 'end');
	panelFold.setAttribute('id', 'statemap-panel-fold');
	const panel = el('g', { id: 'statemap-panel', class: 'statemap-panel' }, panelBox);
	/* The map must not take presses or wheels meant for the box over it. */
	panelBox.addEventListener('mousedown', function (ev) { ev.stopPropagation(); });
	panelBox.addEventListener('wheel', function (ev) { ev.stopPropagation(); });
	panelFold.addEventListener('click', function (ev) {
		ev.stopPropagation();
		folded = !folded;
		drawPanel();
	});

	const PAD = 6, COLUMN = 340;
	const TOP = 70;			/* the panel's top when wide */
	const MAXCHARS = 52;		/* characters on a line of the panel */
	const panelLines = [];		/* { t: text element, indent, section } */
	let newSection = false;		/* the next line begins a section */
	const page = { wide: true, scale: 1, width: origWidth + PANEL_WIDTH };
	let folded = false;

	/* The width the page has, without a vertical scroll bar. */
	function available() {
		return doc.documentElement.clientWidth || window.innerWidth || page.width;
	}

	function layout() {
		for (let pass = 0; pass < 2; pass++) {
			const avail = available();
			page.wide = avail >= origWidth + PANEL_WIDTH;
			page.width = page.wide ? origWidth + PANEL_WIDTH : origWidth;
			page.scale = Math.min(1, avail / page.width);
			root.setAttribute('width', page.width * page.scale);
			placePanel();
			/* A scroll bar that came or went changes the width. */
			if (available() === avail)
				break;
		}
	}

	function setHeight(h) {
		const ph = Math.ceil(h);
		if (root.getAttribute('viewBox') !== '0 0 ' + page.width + ' ' + ph)
			root.setAttribute('viewBox', '0 0 ' + page.width + ' ' + ph);
		if (+root.getAttribute('height') !== ph * page.scale)
			root.setAttribute('height', ph * page.scale);
	}

	/*
	 * Lays the panel's lines out (one column when wide, as many as fit
	 * when not) and puts the box where it can be seen.
	 */
	function placePanel() {
		const n = panelLines.length;
		const boxW = page.wide ? PANEL_WIDTH - 12 : origWidth - X0 - 8;
		const cols = page.wide ? 1 : Math.max(1, Math.floor((boxW - PAD) / COLUMN));
		/* Rows per column: enough for the longest section, if not too long. */
		let longest = 0, len = 0;
		panelLines.forEach(function (ln) {
			len = ln.section ? 1 : len + 1;
			longest = Math.max(longest, len);
		});
		const per = page.wide ? n : Math.max(6, Math.ceil(n / cols), Math.min(longest, 14));
		const shown = folded && !page.wide ? 0 : n;
		panel.setAttribute('display', shown > 0 ? 'inline' : 'none');
		/* A section that does not fit the rest of a column starts the next. */
		let col = 0, row = 0, rows = 0;
		panelLines.forEach(function (ln, i) {
			if (ln.section && row > 0 && col < cols - 1) {
				let rest = 1;
				while (i + rest < n && !panelLines[i + rest].section)
					rest++;
				if (row + rest > per) {
					col++;
					row = 0;
				}
			} else if (row >= per && col < cols - 1) {
				col++;
				row = 0;
			}
			if (ln.rows) {
				/* A drawing (depth rows): several lines high. */
				ln.t.setAttribute('transform', 'translate(' + (PAD + col * COLUMN + ln.indent) +
				    ',' + (PAD + row * LINE) + ')');
				row += ln.rows;
				rows = Math.max(rows, row);
				return;
			}
			ln.t.setAttribute('x', PAD + col * COLUMN + ln.indent);
			ln.t.setAttribute('y', PAD + 11 + row * LINE);
			rows = Math.max(rows, ++row);
		});
		if (shown === 0)
			rows = 0;
		const boxH = 2 * PAD + Math.max(rows, 1) * LINE - (rows > 0 ? 0 : 2);
		panelBg.setAttribute('width', boxW);
		panelBg.setAttribute('height', boxH);
		panelFold.setAttribute('display', page.wide ? 'none' : 'inline');
		panelFold.setAttribute('x', boxW - PAD);
		panelFold.setAttribute('y', PAD + 11);
		panelFold.textContent = folded ? 'show details ▴' : 'hide details ▾';
		panelBox.classList.toggle('statemap-panel-over', !page.wide);

		const scale = page.scale || 1;
		const top = window.scrollY / scale, bottom = (window.scrollY + window.innerHeight) / scale;
		let x, y, need;
		const content = Math.max(origHeight, mapsBottom + 16);
		if (page.wide) {
			/*
			 * Down with the page, but never past the drawing's end: a
			 * canvas that grew with the scroll would scroll further.
			 */
			x = origWidth + 4;
			y = Math.min(TOP + Math.max(0, top - 60), Math.max(TOP, content - boxH - 10));
			need = TOP + boxH + 10;
		} else {
			/* Below the map if it shows there, else over the map's bottom. */
			x = X0;
			const below = mapsBottom + 18;
			y = Math.max(top + 4, Math.min(below, bottom - boxH - 6));
			need = below + boxH + 10;
		}
		panelBox.setAttribute('transform', 'translate(' + x + ',' + y + ')');
		setHeight(Math.max(content, need));
	}
	window.addEventListener('scroll', placePanel);
	window.addEventListener('resize', function () {
		layout();
		drawPanel();
		schedule();
	});

	/* ---- buttons ---- */

	function button(x, y, w, label, title, action) {
		const g = el('g', { class: 'statemap-button', transform: 'translate(' + x + ',' + y + ')' },
		    layer);
		el('rect', { width: w, height: 18, rx: 3 }, g);
		const t = text(g, w / 2, 13, label);
		t.setAttribute('text-anchor', 'middle');
		el('title', {}, g).textContent = title;
		g.addEventListener('click', function (ev) {
			ev.stopPropagation();
			action();
		});
		return g;
	}

	button(8, 24, 24, '+', 'zoom in (+)', function () { zoomAt(view.t0 + view.w / 2, 0.5); })
	    .setAttribute('id', 'statemap-zoomin');
	button(34, 24, 24, '−', 'zoom out (-)', function () { zoomAt(view.t0 + view.w / 2, 2); })
	    .setAttribute('id', 'statemap-zoomout');
	button(60, 24, 24, '◀', 'pan left (←)', function () { pan(-0.25); })
	    .setAttribute('id', 'statemap-panleft');
	button(86, 24, 24, '▶', 'pan right (→)', function () { pan(0.25); })
	    .setAttribute('id', 'statemap-panright');

	/* ---- time bars, entity selection and the details panel ---- */

	const bars = [];		/* offsets in ns; [selected, second] */
	let selRow = null;		/* the selected entity's row */
	let eventSel = null, eventHover = null;
	/* Legend selection: { legend, states: [index], names: [name], field } */
	let stateSel = null;
	/* Tag selection: { field, value, states: [name] } */
	let tagSel = null;

	function drawBars() {
		clear(barLayer);
		bars.forEach(function (off, i) {
			const x = xOf(off);
			if (x < X0 - 0.5 || x > X0 + W + 0.5)
				return;
			el('line', { x1: x, y1: axisY, x2: x, y2: mapsBottom,
			    class: 'statemap-timebar' + (i > 0 ? ' statemap-timebar2' : '') }, barLayer);
			const t = text(barLayer, x, mapsBottom + 11, fmtAt(off),
			    'statemap-timebar-label');
			t.setAttribute('text-anchor', 'middle');
		});
		if (selRow && selRow.slot >= 0) {
			selBox.setAttribute('y', selRow.map.y + selRow.slot * selRow.map.stripH);
			selBox.setAttribute('height', selRow.map.stripH);
			selBox.setAttribute('visibility', 'visible');
		} else {
			selBox.setAttribute('visibility', 'hidden');
		}
		markRelatedEvents();
	}

	/*
	 * A line of the panel: a string, or a list of parts, each a string
	 * or { text, cls, click }: a part with `click` is a control.  A line
	 * too long for the panel (MAXCHARS, or measured) is cut, with the
	 * whole line as its tooltip.  Names reach the page only as text.
	 */
	function line(parts, cls, indent) {
		if (!Array.isArray(parts))
			parts = [parts];
		const t = el('text', { x: 0, y: 0 }, panel);
		t.setAttribute('class', 'statemap-viewer-text' + (cls ? ' ' + cls : ''));
		const whole = parts.map(function (p) { return typeof p === 'string' ? p : p.text; }).join('');
		const width = (page.wide ? PANEL_WIDTH - 12 : COLUMN) - 2 * PAD - (indent || 0);
		let room = MAXCHARS;
		for (;;) {
			fillLine(t, parts, room);
			if (room <= 8 || t.getComputedTextLength() <= width)
				break;
			room -= 3;
		}
		if (whole.length > room)
			el('title', {}, t).textContent = whole;
		panelLines.push({ t: t, indent: indent || 0, section: newSection });
		newSection = false;
		return t;
	}

	/* The next line begins a section, which columns keep together. */
	function section() {
		newSection = true;
	}

	/* The parts of a line in at most room characters. */
	function fillLine(t, parts, room) {
		clear(t);
		for (const p of parts) {
			const s = typeof p === 'string' ? p : p.text;
			if (room <= 0)
				break;
			const shown = s.length > room ? s.slice(0, Math.max(room - 1, 0)) + '…' : s;
			room -= s.length;
			if (typeof p === 'string') {
				t.appendChild(doc.createTextNode(shown));
				continue;
			}
			const span_ = el('tspan', {}, t);
			span_.textContent = shown;
			if (p.cls)
				span_.setAttribute('class', p.cls);
			if (p.click) {
				span_.addEventListener('click', function (ev) {
					ev.stopPropagation();
					p.click();
				});
			}
		}
	}

	function timeLines(label, off, m) {
		const rel = m.json.begin + off;
		line(label + ': ' + fmtAt(off) + (m.json.begin !== 0 ? ' (' + fmtAt(rel) + ' from start)' : ''),
		    'statemap-panel-time');
		line('epoch ' + epoch(m.json.start, rel) + 's', 'statemap-panel-small', 10);
	}

	/*
	 * A tag's value for a field as text, or null if it has none: the tag
	 * itself ("tag"), or a member of its definition.
	 */
	function tagValue(tag, field) {
		if (field === 'tag')
			return tag.tag;
		if (!(field in tag.members))
			return null;
		const v = tag.members[field];
		return typeof v === 'string' ? v : JSON.stringify(v);
	}

	function stateName(m, tag) {
		return m.json.states[tag.state] ? m.json.states[tag.state].name : String(tag.state);
	}

	/* A control that highlights a tag value (or clears it, if it is the one). */
	function tagPart(label, field, value, state) {
		const on = tagSel && tagSel.field === field && tagSel.value === value &&
		    tagSel.states.length === 1 && tagSel.states[0] === state;
		return { text: label, cls: 'statemap-panel-tagval' + (on ? ' statemap-panel-tagval-selected' : ''),
		    click: function () { selectTag(field, value, [state]); } };
	}

	/* The tags of a rectangle, each value a control. */
	function tagLines(m, rect) {
		const ids = Object.keys(rect.tags || {});
		if (ids.length === 0)
			return;
		section();
		line('tags:', 'statemap-panel-head');
		ids.sort(function (a, b) { return rect.tags[b] - rect.tags[a]; });
		ids.slice(0, 12).forEach(function (id) {
			const tag = m.json.tags[+id];
			if (!tag)
				return;
			const state = stateName(m, tag);
			line([state + ' ', tagPart(tag.tag, 'tag', tag.tag, state), ': ' + fmt(rect.tags[id])],
			    'statemap-panel-tag', 10);
			const parts = [];
			for (const k in tag.members) {
				if (parts.length > 0)
					parts.push(', ');
				parts.push(k + '=');
				parts.push(tagPart(JSON.stringify(tag.members[k]), k, tagValue(tag, k), state));
			}
			if (parts.length > 0)
				line(parts, 'statemap-panel-small', 20);
		});
		if (ids.length > 12)
			line('(' + (ids.length - 12) + ' more)', 'statemap-panel-small', 10);
	}

	function entityLines(row) {
		const m = row.map;
		line((m.json.entityKind || 'Entity') + ' ' + row.name, 'statemap-panel-entity');
		if (row.description !== null && row.description !== undefined)
			line(row.description, 'statemap-panel-small', 10);
		if (bars.length === 0)
			return;
		const own = m.json.begin + bars[0];
		const i = rectAt(row, own);
		if (row.kind === 'nested')
			depthAtLine(row, own);
		if (i < 0) {
			line('no state at this time', 'statemap-panel-small');
			return;
		}
		const rect = row.rects[i];
		if (row.kind === 'values') {
			valueRectLines(m, rect);
			return;
		}
		if (row.kind === 'nested')
			stackLines(row, own);
		const names = Object.keys(rect.states);
		if (names.length === 1) {
			line('state: ' + names[0], 'statemap-panel-state');
		} else {
			line('blend of states:', 'statemap-panel-state');
			names.sort(function (a, b) { return rect.states[b] - rect.states[a]; });
			names.forEach(function (n) {
				line(n + ' ' + (100 * rect.states[n] / rect.duration).toFixed(1) + '% (' +
				    fmt(rect.states[n]) + ')', 'statemap-panel-blend', 10);
			});
		}
		line('from ' + fmtAt(rect.start - m.json.begin) + ' to ' +
		    fmtAt(rect.start + rect.duration - m.json.begin) + ' (' + fmt(rect.duration) + ')',
		    'statemap-panel-rect');
		if (rect.n > 1)
			line('merged: ' + rect.n + ' transitions', 'statemap-panel-small', 10);
		tagLines(m, rect);
		if (row.kind === 'nested')
			depthLines(row);
	}

	/* ---- value entities and nested entities' depth rows ---- */

	/* The colour of a rectangle of a value entity, as src/output/valuesvg.c draws it. */
	function valueRgb(r) {
		if (typeof r.min === 'number')
			return r.min === r.max ? [0x3b, 0x6f, 0xb6] : [0x86, 0xa9, 0xda];
		const ss = Object.keys(r.strings || {});
		if (ss.length === 0)
			return [235, 235, 235];
		ss.sort(function (a, b) { return r.strings[b] - r.strings[a]; });
		return stringRgb(ss[0]);
	}

	/* FNV-1a over the string's UTF-8 bytes, its hue from that (valuesvg.c). */
	function stringRgb(s) {
		const bytes = new TextEncoder().encode(s);
		let h = 2166136261;
		for (const b of bytes)
			h = Math.imul(h ^ b, 16777619) >>> 0;
		const hue = (h % 360) / 60, c = 0.55, x = c * (1 - Math.abs(hue % 2 - 1));
		const rgb = [[c, x, 0], [x, c, 0], [0, c, x], [0, x, c], [x, 0, c], [c, 0, x]][Math.min(5, Math.floor(hue))];
		return rgb.map(function (v) { return Math.floor((v + 0.3) * 255); });
	}

	/*
	 * The clicked rectangle of a value entity: its value, or for a merged
	 * one its min, max and time-weighted mean, and the time per string.
	 */
	function valueRectLines(m, rect) {
		const ss = Object.keys(rect.strings || {});
		const num = typeof rect.min === 'number';
		if (num && rect.min === rect.max && ss.length === 0) {
			line('value: ' + rect.min, 'statemap-panel-state statemap-panel-valueat');
		} else if (!num && ss.length === 1 && rect.strings[ss[0]] === rect.duration) {
			line('value: "' + ss[0] + '"', 'statemap-panel-state statemap-panel-valueat');
		} else if (!num && ss.length === 0) {
			line('no value (null)', 'statemap-panel-state statemap-panel-valueat');
		} else {
			line('merged values:', 'statemap-panel-state');
			if (num)
				line('min ' + rect.min + ', max ' + rect.max + ', mean ' + rect.mean,
				    'statemap-panel-blend statemap-panel-valueat', 10);
			ss.sort(function (a, b) { return rect.strings[b] - rect.strings[a]; });
			ss.slice(0, 12).forEach(function (s) {
				line('"' + s + '" ' + (100 * rect.strings[s] / rect.duration).toFixed(1) + '% (' +
				    fmt(rect.strings[s]) + ')', 'statemap-panel-blend', 10);
			});
		}
		line('from ' + fmtAt(rect.start - m.json.begin) + ' to ' +
		    fmtAt(rect.start + rect.duration - m.json.begin) + ' (' + fmt(rect.duration) + ')',
		    'statemap-panel-rect');
	}

	/* The stack of a nested entity at own time t, bottom first, from its depth rows. */
	function stackLines(row, t) {
		const names = [];
		(row.depths || []).forEach(function (rs) {
			const i = lastStartingBy(rs, t);
			if (i >= 0 && t < rs[i].start + rs[i].duration && mainState(rs[i]) !== null)
				names.push(mainState(rs[i]));
		});
		if (names.length > 1)
			line('stack: ' + names.join(' › '), 'statemap-panel-small statemap-panel-stack', 10);
	}

	/*
	 * The control that expands a nested entity into one row per depth of
	 * its stack under its strip (as the ▸ before its name does).
	 */
	function depthLines(row) {
		if (!hasDepths(row))
			return;
		const open = expanded.has(row);
		line([{ text: (open ? '▾ hide ' : '▸ show ') + row.depths.length + ' depth rows',
		    cls: 'statemap-panel-value statemap-depth-toggle', click: function () {
			toggleDepths(row);
		} }], 'statemap-panel-small', 10);
	}

	/* The state of the clicked depth row of a nested entity at own time t. */
	function depthAtLine(row, t) {
		if (!selDepth || selDepth.row !== row || !expanded.has(row) || selDepth.d >= row.depths.length)
			return;
		const rs = row.depths[selDepth.d], i = lastStartingBy(rs, t);
		const st = i >= 0 && t < rs[i].start + rs[i].duration ? mainState(rs[i]) : null;
		line('depth ' + (selDepth.d + 1) + ': ' + (st === null ? 'no frame at this time' : st),
		    'statemap-panel-state statemap-panel-depthat');
	}

	function eventText(ev, m) {
		return ev.event + ' at ' + fmtAt(ev.time - m.json.begin) + ' on ' + ev.entity +
		    (ev.target === null ? '' : ' → ' + ev.target);
	}

	function eventLines(ev, m) {
		line('event ' + ev.event, 'statemap-panel-event');
		line('at ' + fmtAt(ev.time - m.json.begin) + ' on ' + ev.entity, 'statemap-panel-small', 10);
		line(ev.target === null ? 'no target' : 'target ' + ev.target,
		    'statemap-panel-small', 10);
		messageLines(ev, m);
	}

	/*
	 * A message event's id, time received and other members (only in
	 * events that have them): names and values are the trace's, shown as
	 * text.
	 */
	function messageLines(ev, m) {
		if (typeof ev.id === 'string')
			line('id ' + ev.id, 'statemap-panel-small', 10);
		if (typeof ev.end === 'number')
			line('received at ' + fmtAt(ev.end - m.json.begin) + ' (after ' +
			    fmt(ev.end - ev.time) + ')', 'statemap-panel-small', 10);
		if (ev.members !== null && typeof ev.members === 'object')
			Object.keys(ev.members).forEach(function (k) {
				line(k + ': ' + JSON.stringify(ev.members[k]), 'statemap-panel-small', 10);
			});
	}

	/*
	 * The selected entity's events (from it or to it) in view, nearest the
	 * time bar (or the middle of the view) first: each a control that
	 * selects the event, showing its arrow and details.  With many events
	 * on the map this is how one reaches them.
	 */
	function entityEventLines(row) {
		const recs = (eventsByRow.get(row) || []).filter(function (rec) {
			const x = xOf(rec.ev.time - rec.map.json.begin);
			return x >= X0 - 0.5 && x <= X0 + W + 0.5;
		});
		if (recs.length === 0)
			return;
		const at = row.map.json.begin + (bars.length > 0 ? bars[0] : view.t0 + view.w / 2);
		recs.sort(function (a, b) { return Math.abs(a.ev.time - at) - Math.abs(b.ev.time - at); });
		line('events of ' + row.name + ': ' + recs.length + ' in view' +
		    (recs.length > 6 ? ', the 6 nearest:' : ':'), 'statemap-panel-head');
		recs.slice(0, 6).sort(function (a, b) { return a.ev.time - b.ev.time; }).forEach(function (rec) {
			line([{ text: eventText(rec.ev, rec.map), cls: 'statemap-panel-eventlink' +
			    (rec === eventSel ? ' statemap-panel-eventlink-selected' : ''),
			    click: function () { selectEvent(rec); } }], 'statemap-panel-small', 10);
		});
	}

	/* The states a tag must be in to count: the selected ones. */
	function inStates(m, tag, names) {
		return names.indexOf(stateName(m, tag)) >= 0;
	}

	/*
	 * Time in each value of a tag field, over the rectangles under the time
	 * bar if there is one, else over the visible span (prorated), largest
	 * first; of the given rows (all of the group's if none).
	 */
	function tagTimes(group, field, names, rows) {
		const acc = new Map();
		function add(m, rect, frac) {
			for (const id in rect.tags) {
				const tag = m.json.tags[+id];
				if (!tag || !inStates(m, tag, names))
					continue;
				const value = tagValue(tag, field);
				const v = value === null ? '(none)' : value;
				acc.set(v, (acc.get(v) || 0) + rect.tags[id] * frac);
			}
		}
		function addRow(m, row) {
			const b = m.json.begin;
			if (bars.length > 0) {
				const i = rectAt(row, b + bars[0]);
				if (i >= 0)
					add(m, row.rects[i], 1);
				return;
			}
			const lo = b + view.t0, hi = lo + view.w;
			row.rects.forEach(function (r) {
				const ov = Math.min(hi, r.start + r.duration) - Math.max(lo, r.start);
				if (ov > 0)
					add(m, r, ov / r.duration);
			});
		}
		if (rows) {
			rows.forEach(function (row) { addRow(row.map, row); });
		} else {
			group.forEach(function (m) {
				m.rows.forEach(function (row) { addRow(m, row); });
			});
		}
		return Array.from(acc.entries()).sort(function (a, b) {
			return b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
		});
	}

	function whereText() {
		return bars.length > 0 ? 'at ' + fmtAt(bars[0]) :
		    'over ' + fmtAt(view.t0) + ' to ' + fmtAt(view.t0 + view.w);
	}

	/* Values with their times, each a control that highlights it. */
	function valueLines(times, field, names, cls) {
		times.slice(0, 25).forEach(function (vt) {
			const on = tagSel && tagSel.field === field && tagSel.value === vt[0] &&
			    sameNames(tagSel.states, names);
			const t = line([{ text: vt[0], cls: 'statemap-panel-tagval' +
			    (on ? ' statemap-panel-tagval-selected' : ''),
			    click: function () { selectTag(field, vt[0], names); } }, ': ' + fmt(vt[1])],
			    cls + (on ? ' statemap-panel-value-selected' : ''), 10);
			t.addEventListener('click', function (ev) {
				ev.stopPropagation();
				selectTag(field, vt[0], names);
			});
		});
		if (times.length > 25)
			line('(' + (times.length - 25) + ' more)', 'statemap-panel-small', 10);
		if (times.length === 0)
			line('(none)', 'statemap-panel-small', 10);
	}

	/* The selected entity's time by value of a field. */
	function entityBreakdown(field, names) {
		if (!selRow)
			return;
		section();
		line((selRow.map.json.entityKind || 'Entity') + ' ' + selRow.name + ' by ' + field + ' ' +
		    whereText() + ':', 'statemap-panel-head');
		valueLines(tagTimes(null, field, names, [selRow]), field, names,
		    'statemap-panel-entity-value');
	}

	function sameNames(a, b) {
		return a.length === b.length && a.every(function (x) { return b.indexOf(x) >= 0; });
	}

	function legendGroup(owner) {
		return maps.filter(function (m) { return m.legend === owner; });
	}

	/* Tag fields of the selected states, or one field's values with times. */
	function stateLines() {
		const group = legendGroup(stateSel.legend);
		const names = stateSel.names;
		line((names.length === 1 ? 'state ' + names[0] : names.length + ' states') + ' selected',
		    'statemap-panel-head');
		if (names.length > 1)
			line(names.join(', '), 'statemap-panel-small', 10);
		line('click again to clear; shift-click to add a state', 'statemap-panel-small', 10);
		const fields = [];
		group.forEach(function (m) {
			m.json.tags.forEach(function (tag) {
				if (!inStates(m, tag, names))
					return;
				if (fields.indexOf('tag') < 0)
					fields.push('tag');
				for (const k in tag.members) {
					if (fields.indexOf(k) < 0)
						fields.push(k);
				}
			});
		});
		if (fields.length === 0) {
			line('no tags in ' + (names.length === 1 ? 'this state' : 'these states'),
			    'statemap-panel-small', 10);
			return;
		}
		line('tag fields:', 'statemap-panel-small');
		fields.forEach(function (f) {
			const t = line((f === stateSel.field ? '▾ ' : '▸ ') + f,
			    'statemap-panel-field' + (f === stateSel.field ? ' statemap-panel-field-selected' : ''),
			    10);
			t.addEventListener('click', function (ev) {
				ev.stopPropagation();
				stateSel.field = stateSel.field === f ? null : f;
				drawPanel();
			});
		});
		if (!stateSel.field)
			return;
		section();
		line(stateSel.field + ' ' + whereText() + ':', 'statemap-panel-head');
		valueLines(tagTimes(group, stateSel.field, names), stateSel.field, names,
		    'statemap-panel-value');
		entityBreakdown(stateSel.field, names);
	}

	/* The highlighted tag value: where it is, and how to clear it. */
	function tagSelLines() {
		const st = tagSel.states.length === 1 ? tagSel.states[0] + ' ' : '';
		line('highlighted: ' + st + tagSel.field + ' ' + tagSel.value, 'statemap-panel-head');
		const s = tagSel.stats;
		line(s.rects + ' rectangle' + (s.rects === 1 ? '' : 's') + ' on ' + s.rows + ' entit' +
		    (s.rows === 1 ? 'y' : 'ies') + ', ' + fmt(s.time) + ' in all', 'statemap-panel-small', 10);
		line([{ text: '✕ clear the highlight', cls: 'statemap-panel-clear',
		    click: function () { selectTag(tagSel.field, tagSel.value, tagSel.states); } }],
		    'statemap-panel-small', 10);
		if (!(stateSel && stateSel.field === tagSel.field && sameNames(stateSel.names, tagSel.states)))
			entityBreakdown(tagSel.field, tagSel.states);
	}

	function drawPanel() {
		clear(panel);
		panelLines.length = 0;
		/* Shown while it is built, so that lines can be measured. */
		panel.setAttribute('display', 'inline');
		const m = selRow ? selRow.map : maps[0];
		if (selRow && maps.length > 1) {
			const sm = m.json;
			line((sm.title || 'untitled') + (sm.host ? ' on ' + sm.host : ''),
			    'statemap-panel-title');
		}
		if (bars.length > 0)
			timeLines('time', bars[0], m);
		if (bars.length > 1) {
			timeLines('second time', bars[1], m);
			line('delta = ' + fmt(bars[1] - bars[0]), 'statemap-panel-delta');
		}
		if (selRow) {
			section();
			entityLines(selRow);
			section();
			entityEventLines(selRow);
		}
		const ev = eventHover || eventSel;
		if (ev) {
			section();
			eventLines(ev.ev, ev.map);
		}
		if (tagSel) {
			section();
			tagSelLines();
		}
		if (stateSel) {
			section();
			stateLines();
		}
		newSection = false;
		if (panelLines.length === 0)
			line('click the map for details; keys: + - ← → ⇧←/→ ⇧↑/↓', 'statemap-panel-small');
		placePanel();
		drawCounts();
	}

	/* ---- legend: counts at the selected time, state selection ---- */

	const legends = new Map();	/* legend owner -> [{rect, count text}] */
	maps.forEach(function (m) {
		if (m.legend !== m.index)
			return;
		const items = [];
		m.json.states.forEach(function (st, s) {
			const r = doc.getElementById('statemap-legend-' + m.index + '-' + s);
			if (!r)
				return;
			const cx = +r.getAttribute('x') + +r.getAttribute('width') / 2;
			const bg = el('rect', { class: 'statemap-legend-countbg', rx: 2,
			    y: +r.getAttribute('y') + 2, height: 11, visibility: 'hidden' }, layer);
			const c = text(layer, cx, +r.getAttribute('y') + 11, '', 'statemap-legend-count');
			c.setAttribute('text-anchor', 'middle');
			items.push({ rect: r, count: c, bg: bg, name: st.name });
			const pick = function (ev) {
				ev.stopPropagation();
				selectState(m.index, s, ev.shiftKey);
			};
			/* No text selection on a shift-click. */
			const nosel = function (ev) {
				if (ev.shiftKey)
					ev.preventDefault();
			};
			r.addEventListener('click', pick);
			r.addEventListener('mousedown', nosel);
			const label = r.nextElementSibling;
			if (label && label.tagName === 'text') {
				label.addEventListener('click', pick);
				label.addEventListener('mousedown', nosel);
			}
		});
		legends.set(m.index, items);
	});

	function drawCounts() {
		legends.forEach(function (items, owner) {
			const group = legendGroup(owner);
			const counts = new Map();
			let total = 0;
			if (bars.length > 0) {
				group.forEach(function (m) {
					m.rows.forEach(function (row) {
						total++;
						const i = rectAt(row, m.json.begin + bars[0]);
						if (i < 0)
							return;
						const s = mainState(row.rects[i]);
						counts.set(s, (counts.get(s) || 0) + 1);
					});
				});
			}
			items.forEach(function (it) {
				if (bars.length === 0) {
					it.count.textContent = '';
					it.bg.setAttribute('visibility', 'hidden');
					return;
				}
				const n = counts.get(it.name) || 0;
				it.count.textContent = n + ' (' + (total > 0 ? (100 * n / total).toFixed(1) : '0.0') + '%)';
				/* A light pill behind the count keeps it readable on any colour. */
				const w = it.count.getComputedTextLength() + 6;
				it.bg.setAttribute('x', +it.count.getAttribute('x') - w / 2);
				it.bg.setAttribute('width', w);
				it.bg.setAttribute('visibility', 'visible');
			});
		});
	}

	let classified = false;

	/* Classes naming each rectangle's states, so a selection is one CSS rule. */
	function classifyRects() {
		classified = true;
		if (drawn.canvas)
			return;
		maps.forEach(function (m) {
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				if (!g)
					return;
				const rs = g.getElementsByTagName('rect');
				for (let i = 0; i < rs.length && i < row.rects.length; i++) {
					const cls = [];
					for (const s in row.rects[i].states)
						cls.push('sm-s' + m.stateIndex.get(s));
					rs[i].setAttribute('class', cls.join(' '));
				}
			});
		});
	}

	/*
	 * A click on a legend entry selects its state alone, or clears the
	 * selection if that was it; a shift-click adds the state to the
	 * selection or takes it out, so that several states stay bright.
	 */
	function selectState(owner, s, add) {
		const name = legendGroup(owner)[0].json.states[s].name;
		if (stateSel && stateSel.legend === owner && add) {
			const i = stateSel.states.indexOf(s);
			if (i >= 0) {
				stateSel.states.splice(i, 1);
				stateSel.names.splice(i, 1);
			} else {
				stateSel.states.push(s);
				stateSel.names.push(name);
			}
			if (stateSel.states.length === 0)
				stateSel = null;
		} else if (stateSel && stateSel.legend === owner && stateSel.states.length === 1 &&
		    stateSel.states[0] === s) {
			stateSel = null;
		} else {
			stateSel = { legend: owner, states: [s], names: [name], field: null };
		}
		legends.forEach(function (items, o) {
			items.forEach(function (it, k) {
				it.rect.classList.toggle('statemap-legend-selected',
				    stateSel !== null && stateSel.legend === o && stateSel.states.indexOf(k) >= 0);
			});
		});
		fade();
		drawPanel();
	}

	/*
	 * What fades: with a tag value highlighted, every rectangle without
	 * it; else, with states selected, every rectangle with none of them.
	 * The no-data hatch turns white meanwhile, so faded rectangles do not
	 * look like missing data.
	 */
	function fade() {
		let css = '';
		if (drawn.canvas) {
			/* Painted: paint() asks fadeOf of each rectangle. */
		} else if (tagSel) {
			maps.forEach(function (m) {
				css += '#statemap-' + m.index + ' g > rect:not(.sm-tag) { opacity: 0.12; }\n';
			});
		} else if (stateSel) {
			if (!classified)
				classifyRects();
			maps.forEach(function (m) {
				if (m.legend !== stateSel.legend)
					return;
				const not = stateSel.names.map(function (n) {
					return ':not(.sm-s' + m.stateIndex.get(n) + ')';
				}).join('');
				css += '#statemap-' + m.index + ' g > rect' + not + ' { opacity: 0.15; }\n';
			});
		}
		dynStyle.textContent = css;
		root.classList.toggle('statemap-fading', css !== '' || (drawn.canvas && (tagSel !== null ||
		    stateSel !== null)));
		if (drawn.canvas)
			paint();
	}

	/* How opaque a painted rectangle is under the selection, as fade() makes them. */
	function fadeOf(m, r) {
		if (tagSel) {
			const hit = tagSel.hit.get(m);
			if (hit && hit.size > 0) {
				for (const id in r.tags) {
					if (hit.has(id) && r.tags[id] > 0)
						return 1;
				}
			}
			return 0.12;
		}
		if (stateSel && m.legend === stateSel.legend) {
			for (const n of stateSel.names) {
				if (r.states && r.states[n] > 0)
					return 1;
			}
			return 0.15;
		}
		return 1;
	}

	/*
	 * Highlights every rectangle that has time with a tag whose `field` is
	 * `value`, in one of `states`, across entities and statemaps (merged
	 * rectangles count if any of their tags has it); the same again
	 * clears it.
	 */
	function selectTag(field, value, states) {
		if (tagSel && tagSel.field === field && tagSel.value === value &&
		    sameNames(tagSel.states, states)) {
			tagSel = null;
		} else {
			tagSel = { field: field, value: value, states: states.slice(),
			    stats: { rects: 0, rows: 0, time: 0 }, hit: new Map() };
		}
		markTags();
		fade();
		drawPanel();
	}

	/*
	 * The tags with the highlighted value (per statemap), and the
	 * rectangles with time in them: counted, and marked when the SVG
	 * draws them (after new data too).
	 */
	function markTags() {
		const stats = tagSel ? tagSel.stats : null;
		if (stats) {
			stats.rects = stats.rows = stats.time = 0;
			tagSel.hit.clear();
		}
		maps.forEach(function (m) {
			const hit = new Set();
			if (tagSel) {
				m.json.tags.forEach(function (tag, id) {
					if (inStates(m, tag, tagSel.states) && tagValue(tag, tagSel.field) === tagSel.value)
						hit.add(String(id));
				});
				tagSel.hit.set(m, hit);
			}
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				const rs = g && !drawn.canvas ? g.getElementsByTagName('rect') : [];
				let any = false;
				for (let i = 0; i < row.rects.length; i++) {
					let t = 0;
					if (hit.size > 0) {
						for (const id in row.rects[i].tags) {
							if (hit.has(id))
								t += row.rects[i].tags[id];
						}
					}
					if (t > 0) {
						any = true;
						stats.rects++;
						stats.time += t;
					}
					if (rs[i])
						rs[i].classList.toggle('sm-tag', t > 0);
				}
				if (any)
					stats.rows++;
			});
		});
	}

	/* ---- events: marks on their entity's strip, arrows to targets ---- */

	/*
	 * Each event is a diamond on its entity's strip, with an arrow to its
	 * target; hovering or clicking one shows it.  When more are in view
	 * than the map can show without being buried (DENSE), they become thin
	 * ticks that let clicks through to the rectangles, and only the
	 * selected entity's events (and the selected event) keep their
	 * diamonds and arrows; the panel lists the selected entity's events,
	 * so every one can still be reached, and zooming in brings the
	 * diamonds back.
	 */
	const eventMarks = [];
	const eventsByRow = new Map();
	const DENSE = Math.max(60, Math.round(allRows.length * 1.5));
	let eventsShown = true, eventsDense = false, eventsButton = null;

	/* What tells one event from another across documents. */
	function eventKey(rec) {
		const ev = rec.ev;
		return [rec.map.index, ev.time, ev.entity, ev.event, ev.target].join('\u0000');
	}

	/*
	 * The marks of the events in docs[i], the document of statemap i
	 * (the data block's, or an answer's), replacing any before; the
	 * selected event stays selected if it is among them.
	 */
	let eventDocs = null;	/* what buildEvents last drew, for a refold */

	function buildEvents(docs) {
		eventDocs = docs;
		const key = eventSel ? eventKey(eventSel) : null;
		let omitted = 0;
		eventMarks.length = 0;
		eventsByRow.clear();
		clear(eventLayer);
		eventHover = null;
		eventSel = null;
		maps.forEach(function (m) {
			const sm = docs[m.index] || {};
			const evs = Array.isArray(sm.events) ? sm.events : [];
			omitted += sm.events_omitted || 0;
			if (evs.length === 0)
				return;
			if (!doc.getElementById('statemap-clip-' + m.index)) {
				const clip = el('clipPath', { id: 'statemap-clip-' + m.index }, defs);
				el('rect', { x: X0, y: m.y, width: W, height: m.h }, clip);
			}
			const g = el('g', { 'clip-path': 'url(#statemap-clip-' + m.index + ')' }, eventLayer);
			evs.forEach(function (ev) {
				const k = m.byName.get(ev.entity);
				if (k === undefined || m.rows[k].slot < 0)
					return;
				const sk = m.rows[k].slot;
				const y = m.y + (sk + 0.5) * m.stripH;
				const mark = el('g', { class: 'statemap-event' }, g);
				let tk = ev.target === null ? undefined : m.byName.get(ev.target);
				if (tk !== undefined && m.rows[tk].slot < 0)
					tk = undefined;	/* folded away */
				const st = tk === undefined ? -1 : m.rows[tk].slot;
				/* A tick on the top of the strip: a comb, not a sliver of state. */
				el('line', { x1: 0, y1: m.y + sk * m.stripH, x2: 0,
				    y2: m.y + (sk + 0.45) * m.stripH, class: 'statemap-event-tick' }, mark);
				let message = null;
				if (tk !== undefined && tk !== k && typeof ev.end === 'number') {
					/* A message: from the sender when sent to the receiver
					 * when received (placeEvents sets its far end). */
					message = el('line', { x1: 0, y1: y, x2: 0, y2: m.y + (st + 0.5) * m.stripH,
					    class: 'statemap-event-arrow statemap-event-message',
					    'marker-end': 'url(#statemap-arrow)' }, mark);
				} else if (tk !== undefined && tk !== k) {
					const yt = m.y + (st + 0.5) * m.stripH;
					const dy = yt > y ? -3 : 3;
					el('line', { x1: 0, y1: y, x2: 0, y2: yt + dy,
					    class: 'statemap-event-arrow', 'marker-end': 'url(#statemap-arrow)' }, mark);
				}
				const r = Math.max(2, Math.min(4, m.stripH / 2.5));
				el('path', { d: 'M0,' + (y - r) + ' l' + r + ',' + r + ' l' + (-r) + ',' + r +
				    ' l' + (-r) + ',' + (-r) + ' z', class: 'statemap-event-marker' }, mark);
				el('title', {}, mark).textContent = eventText(ev, m);
				const rec = { ev: ev, map: m, mark: mark, rows: [m.rows[k]], message: message };
				if (tk !== undefined)
					rec.rows.push(m.rows[tk]);
				rec.rows.forEach(function (row) {
					if (!eventsByRow.has(row))
						eventsByRow.set(row, []);
					eventsByRow.get(row).push(rec);
				});
				mark.addEventListener('mouseenter', function () { eventHover = rec; drawPanel(); });
				mark.addEventListener('mouseleave', function () { eventHover = null; drawPanel(); });
				mark.addEventListener('mousedown', function (e) { e.stopPropagation(); });
				mark.addEventListener('click', function (e) {
					e.stopPropagation();
					selectEvent(rec);
				});
				if (key !== null && eventKey(rec) === key)
					eventSel = rec;
				eventMarks.push(rec);
			});
		});
		if (eventMarks.length > 0 && eventsButton === null) {
			const b = button(8, 46, 102, 'hide events', '', function () {
				eventsShown = !eventsShown;
				eventLayer.setAttribute('display', eventsShown ? 'inline' : 'none');
				b.querySelector('text').textContent = eventsShown ? 'hide events' : 'show events';
				placeEvents();
			});
			b.setAttribute('id', 'statemap-events-toggle');
			eventsButton = b;
		}
		if (eventsButton !== null)
			eventsButton.querySelector('title').textContent = 'show or hide the ' +
			    eventMarks.length + ' events' + (omitted > 0 ? ' (' + omitted + ' more not drawn)' : '');
		buildCrossMessages(docs);
		markRelatedEvents();
		placeEvents();
	}

	/* ---- messages between statemaps (stacked files) ---- */

	const crossMessages = [];

	function usableQualifier(s) {
		return typeof s === 'string' && s !== '' && s.indexOf('/') < 0 && s[0] !== '#';
	}

	/*
	 * Each statemap's qualifier, by statemap.merge's rule: its host if no
	 * other statemap has it; else its title if no other has that title
	 * and no host above took it; else "#N", N its place from 1.
	 */
	function qualifiers() {
		const host = maps.map(function (m) { return usableQualifier(m.json.host) ? m.json.host : null; });
		const title = maps.map(function (m) { return usableQualifier(m.json.title) ? m.json.title : null; });
		const times = function (list, s) { return list.filter(function (x) { return x === s; }).length; };
		const name = maps.map(function (m, i) {
			return host[i] !== null && times(host, host[i]) === 1 ? host[i] : null;
		});
		maps.forEach(function (m, i) {
			if (name[i] === null && title[i] !== null && times(title, title[i]) === 1 &&
			    name.indexOf(title[i]) < 0)
				name[i] = title[i];
		});
		const byName = new Map();
		maps.forEach(function (m, i) { byName.set(name[i] !== null ? name[i] : '#' + (m.index + 1), m); });
		return byName;
	}

	/*
	 * Arrows for messages whose ends are in different statemaps: an event
	 * with an "end" whose target is "Q/name", Q another statemap's
	 * qualifier, ends at that entity when received (in the sender's
	 * time); a send with an "id" ends at each receive of that id (an
	 * event with that id and no target) in the statemap its target names
	 * ("Q/name": that entity's receives, "Q": any of Q's), or in every
	 * other statemap if its target names none (a group).  Only message
	 * events draw them, so traces without any look as they always did.
	 */
	function buildCrossMessages(docs) {
		crossMessages.length = 0;
		if (maps.length < 2)
			return;
		const quals = qualifiers();
		const receives = new Map();
		maps.forEach(function (m) {
			const evs = (docs[m.index] || {}).events;
			(Array.isArray(evs) ? evs : []).forEach(function (ev) {
				const k = m.byName.get(ev.entity);
				if (k === undefined || typeof ev.id !== 'string' || ev.target !== null)
					return;
				if (!receives.has(ev.id))
					receives.set(ev.id, []);
				receives.get(ev.id).push({ map: m, k: k, time: ev.time });
			});
		});
		const target = function (t, own) {
			if (typeof t !== 'string')
				return null;
			const slash = t.indexOf('/');
			const m = quals.get(slash < 0 ? t : t.slice(0, slash));
			if (m === undefined || m === own)
				return null;
			if (slash < 0)
				return { map: m, k: undefined };
			const k = m.byName.get(t.slice(slash + 1));
			return k === undefined ? null : { map: m, k: k };
		};
		let layer = null;
		const add = function (m, k, t, m2, k2, t2) {
			if (layer === null) {
				if (!doc.getElementById('statemap-clip-all')) {
					const clip = el('clipPath', { id: 'statemap-clip-all' }, defs);
					el('rect', { x: X0, y: maps[0].y, width: W, height: mapsBottom - maps[0].y }, clip);
				}
				layer = el('g', { 'clip-path': 'url(#statemap-clip-all)' }, eventLayer);
			}
			if (m.rows[k].slot < 0 || m2.rows[k2].slot < 0)
				return;	/* an end folded away */
			const line = el('line', { y1: m.y + (m.rows[k].slot + 0.5) * m.stripH,
			    y2: m2.y + (m2.rows[k2].slot + 0.5) * m2.stripH,
			    class: 'statemap-event-arrow statemap-event-message statemap-event-cross',
			    'marker-end': 'url(#statemap-arrow)' }, layer);
			crossMessages.push({ line: line, x1: t - m.json.begin, x2: t2 - m2.json.begin });
		};
		maps.forEach(function (m) {
			const evs = (docs[m.index] || {}).events;
			(Array.isArray(evs) ? evs : []).forEach(function (ev) {
				const k = m.byName.get(ev.entity);
				if (k === undefined || ev.target === null || m.byName.has(ev.target))
					return;
				const to = target(ev.target, m);
				if (typeof ev.end === 'number') {
					if (to !== null && to.k !== undefined)
						add(m, k, ev.time, to.map, to.k, ev.end - m.json.begin + to.map.json.begin);
				} else if (typeof ev.id === 'string') {
					(receives.get(ev.id) || []).forEach(function (r) {
						if (to === null ? r.map !== m :
						    r.map === to.map && (to.k === undefined || r.k === to.k))
							add(m, k, ev.time, r.map, r.k, r.time);
					});
				}
			});
		});
	}

	function selectEvent(rec) {
		eventSel = eventSel === rec ? null : rec;
		markRelatedEvents();
		drawPanel();
	}

	/* The selected entity's events and the selected event stand out. */
	function markRelatedEvents() {
		for (const rec of eventMarks) {
			rec.mark.classList.toggle('statemap-event-related', rec === eventSel ||
			    (selRow !== null && rec.rows.indexOf(selRow) >= 0));
		}
	}

	function placeEvents() {
		if (!eventsShown)
			return;
		let visible = 0;
		for (const rec of eventMarks) {
			const x = xOf(rec.ev.time - rec.map.json.begin);
			rec.mark.setAttribute('transform', 'translate(' + x + ',0)');
			if (rec.message !== null)
				rec.message.setAttribute('x2', xOf(rec.ev.end - rec.map.json.begin) - x);
			if (x >= X0 - 0.5 && x <= X0 + W + 0.5)
				visible++;
		}
		for (const c of crossMessages) {
			c.line.setAttribute('x1', xOf(c.x1));
			c.line.setAttribute('x2', xOf(c.x2));
		}
		eventsDense = visible > DENSE;
		eventLayer.classList.toggle('statemap-events-dense', eventsDense);
	}

	buildEvents(data.statemaps);

	/*
	 * The rows of a statemap with groups where their slots are: strips
	 * (scaled from the SVG's strip height to the slot's), names and value
	 * ranges moved, folded ones hidden, and a header per group in the
	 * names column, over a band across the strips.
	 */
	function applyRows(m) {
		if (!m.slotted)
			return;
		const H = m.stripH, H0 = m.h0;
		const labels = doc.getElementById('statemap-labels-' + m.index);
		const texts = labels ? labels.getElementsByTagName('text') : [];
		const ranges = doc.getElementById('statemap-value-ranges-' + m.index);
		if (labels && m.font === undefined) {
			m.font = Math.max(5, Math.min(+labels.getAttribute('font-size') || 10, Math.floor(H * 0.9)));
			labels.setAttribute('font-size', m.font);
			if (ranges)
				ranges.setAttribute('font-size', Math.max(4, Math.floor(H * 0.8)));
		}
		const font = m.font || Math.max(5, Math.floor(H * 0.9));
		const move = function (t, row, k) {
			if (!t)
				return;
			t.setAttribute('display', row.slot >= 0 ? 'inline' : 'none');
			t.setAttribute('transform', 'translate(0,' + ((Math.max(row.slot, 0) + 0.5) * H -
			    (k + 0.5) * H0) + ')');
		};
		m.rows.forEach(function (row, k) {
			const g = m.groups[k];
			if (g) {
				g.setAttribute('display', row.slot >= 0 ? 'inline' : 'none');
				g.setAttribute('transform', 'translate(0,' + Math.max(row.slot, 0) * H + ') scale(1,' +
				    H / H0 + ') translate(0,' + (-k * H0) + ')');
			}
			move(texts[k], row, k);
			if (ranges)
				move(ranges.querySelector('text[data-entity="' + k + '"]'), row, k);
		});
		if (!m.headLayer)
			m.headLayer = el('g', { class: 'statemap-group-heads', id: 'statemap-group-heads-' + m.index }, layer);
		clear(m.headLayer);
		const x = texts[0] ? +texts[0].getAttribute('x') : X0 + W + 6;
		m.heads.forEach(function (h) {
			el('rect', { x: X0, y: m.y + h.slot * H, width: W, height: H, class: 'statemap-group-band' },
			    m.headLayer);
			/* Indented by depth: inner levels under their outer one;
			 * cut to about the room the names column has (the whole
			 * path is in the tooltip). */
			const room = Math.max(8, Math.floor((origWidth - x - h.depth * font - 4) / (font * 0.55)));
			const label = h.label.length > room ? h.label.slice(0, room - 1) + '…' : h.label;
			const t = text(m.headLayer, x + h.depth * font, m.y + (h.slot + 0.5) * H + font * 0.35,
			    (h.open ? '▾ ' : '▸ ') + label + (h.open ? '' : ' (' + h.n + ')'), 'statemap-group-head');
			t.style.fontSize = font + 'px';	/* over the class's size */
			el('title', {}, t).textContent = (h.open ? 'fold ' : 'unfold ') + h.group + ': ' + h.n +
			    (h.n === 1 ? ' entity' : ' entities');
			t.addEventListener('mousedown', function (ev) { ev.stopPropagation(); });
			t.addEventListener('click', function (ev) {
				ev.stopPropagation();
				toggleGroup(m, h.group);
			});
		});
		/* A nested entity's name: ▸ (or ▾ when expanded) before it expands it (or collapses). */
		m.rows.forEach(function (row, k) {
			const t = texts[k];
			if (!t || row.kind !== 'nested')
				return;
			if (!t.depthToggle) {
				t.depthToggle = el('tspan', { class: 'statemap-depth-name' });
				t.insertBefore(t.depthToggle, t.firstChild);
				t.depthToggle.addEventListener('mousedown', function (ev) { ev.stopPropagation(); });
				t.depthToggle.addEventListener('click', function (ev) {
					ev.stopPropagation();
					toggleDepths(row);
				});
			}
			t.depthToggle.textContent = !hasDepths(row) ? '' : expanded.has(row) ? '▾ ' : '▸ ';
		});
		drawDepthRows(m);
	}

	/*
	 * An expanded entity's depth rows, in the statemap's own coordinates
	 * (what its viewBox shows: the drawn range across the strips), from
	 * each depth's rectangles; time without a frame at a depth is empty.
	 */
	function drawDepthRows(m) {
		if (m.depthLayer)
			clear(m.depthLayer);
		if (m.bySlot.every(function (s) { return !s.depthOf; }))
			return;
		if (!m.depthLayer)
			m.depthLayer = el('g', { class: 'statemap-depth-rows' }, m.svg);
		m.svg.appendChild(m.depthLayer);	/* over a painted canvas */
		const range = drawn.range, sc = W / range.w, lo = m.json.begin + range.t0;
		const H = m.stripH;
		m.bySlot.forEach(function (s) {
			if (!s.depthOf)
				return;
			const row = s.depthOf, rs = row.depths[s.d] || [];
			const g = el('g', { class: 'statemap-depth-row', 'data-depth': s.d + 1,
			    'data-entity': row.name }, m.depthLayer);
			for (let i = firstFrom(rs, lo); i < rs.length && rs[i].start < lo + range.w; i++) {
				const r = rs[i];
				const x0 = Math.max(0, (r.start - lo) * sc);
				const x1 = Math.min(W, (r.start + r.duration - lo) * sc);
				if (x1 <= x0)
					continue;
				const c = rgbOf(m, r);
				el('rect', { x: x0, y: s.slot * H, width: x1 - x0, height: H,
				    fill: 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')' }, g);
			}
		});
	}

	/* Expands a nested entity into its depth rows, or collapses it: the rows below move. */
	function toggleDepths(row) {
		if (expanded.has(row))
			expanded.delete(row);
		else
			expanded.add(row);
		relayout(row.map);
	}

	function relayout(m) {
		layoutRows(m);
		applyRows(m);
		if (selRow && selRow.slot < 0)
			selRow = null;
		buildEvents(eventDocs);
		search();
		drawBars();
		if (drawn.canvas)
			paint();
		drawPanel();
	}

	/* Folds or unfolds a group: the rows below move, and all that sits on rows follows. */
	function toggleGroup(m, group) {
		if (m.folded.has(group))
			m.folded.delete(group);
		else
			m.folded.add(group);
		relayout(m);
	}
	maps.forEach(applyRows);

	/* ---- search: a substring or a regular expression over entity names ---- */

	const fo = el('foreignObject', { x: X0 + W + 4, y: 20, width: origWidth - X0 - W - 6,
	    height: 24 }, layer);
	const input = doc.createElementNS(XHTMLNS, 'input');
	input.setAttribute('type', 'text');
	input.setAttribute('id', 'statemap-search');
	input.setAttribute('placeholder', 'search entities');
	fo.appendChild(input);
	const searchCount = text(layer, X0 + W + 6, 56, '', 'statemap-search-count');

	function search() {
		const q = input.value;
		clear(searchHits);
		let re = null;
		try {
			re = new RegExp(q);
		} catch (e) {
			re = null;
		}
		const match = function (s) {
			return s !== null && s !== undefined && (re ? re.test(s) : s.indexOf(q) >= 0);
		};
		let n = 0;
		maps.forEach(function (m) {
			const labels = doc.getElementById('statemap-labels-' + m.index);
			const texts = labels ? labels.getElementsByTagName('text') : [];
			m.rows.forEach(function (row, k) {
				const hit = q !== '' && (match(row.name) || match(row.description));
				if (texts[k]) {
					texts[k].classList.toggle('statemap-match', hit);
					texts[k].classList.toggle('statemap-nomatch', q !== '' && !hit);
				}
				if (hit && row.slot >= 0) {
					n++;
					el('rect', { x: X0, y: m.y + row.slot * m.stripH, width: W, height: m.stripH,
					    class: 'statemap-search-hit' }, searchHits);
				}
			});
		});
		searchCount.textContent = q === '' ? '' : n + ' matching' + (re ? '' : ' (as text)');
	}
	input.addEventListener('input', search);

	/* ---- mouse: click, shift-click, drag to pan, wheel to zoom ---- */

	function userPoint(ev) {
		const pt = root.createSVGPoint();
		pt.x = ev.clientX;
		pt.y = ev.clientY;
		return pt.matrixTransform(root.getScreenCTM().inverse());
	}

	function rowAt(p) {
		for (const m of maps) {
			if (p.y >= m.y && p.y < m.y + m.h && m.stripH > 0) {
				const r = m.bySlot[Math.floor((p.y - m.y) / m.stripH)];
				if (r && r.depthOf)
					return r;	/* a depth row */
				return r && r.map ? r : null;	/* a group's header is no row */
			}
		}
		return null;
	}

	function inMap(p) {
		return p.x >= X0 && p.x <= X0 + W && p.y >= maps[0].y && p.y <= mapsBottom;
	}

	function click(p, second) {
		const off = Math.min(Math.max(offOf(p.x), 0), span);
		if (second && bars.length > 0) {
			bars[1] = off;
		} else {
			bars.length = 0;
			bars.push(off);
			const r = rowAt(p);
			selRow = r && r.depthOf ? r.depthOf : r;
			selDepth = r && r.depthOf ? { row: r.depthOf, d: r.d } : null;
		}
		drawBars();
		drawPanel();
	}

	let drag = null;
	root.addEventListener('mousedown', function (ev) {
		if (ev.button !== 0)
			return;
		const p = userPoint(ev);
		if (!inMap(p))
			return;
		drag = { x: ev.clientX, t0: view.t0, moved: false, p: p,
		    second: ev.shiftKey || ev.altKey };
		/* No text selection while dragging; keys go to the map again. */
		ev.preventDefault();
		input.blur();
	});
	window.addEventListener('mousemove', function (ev) {
		if (!drag)
			return;
		const dx = ev.clientX - drag.x;
		if (Math.abs(dx) > 3)
			drag.moved = true;
		if (drag.moved) {
			const scale = root.getScreenCTM().a || 1;
			view.t0 = drag.t0 - dx / scale / W * view.w;
			applyView();
		}
	});
	window.addEventListener('mouseup', function () {
		if (!drag)
			return;
		const d = drag;
		drag = null;
		if (!d.moved)
			click(d.p, d.second);
	});

	root.addEventListener('wheel', function (ev) {
		const p = userPoint(ev);
		if (!inMap(p))
			return;
		ev.preventDefault();
		const k = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1;
		if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
			pan(ev.deltaX * k / W);
		} else {
			zoomAt(offOf(p.x), Math.exp(ev.deltaY * k * 0.002));
		}
	}, { passive: false });

	/* ---- keyboard ---- */

	let buffer = '';

	function step(dir) {
		if (!selRow || bars.length === 0)
			return;
		const m = selRow.map, own = m.json.begin + bars[0];
		let best = null;
		for (const r of selRow.rects) {
			for (const t of [r.start, r.start + r.duration]) {
				if (dir > 0 ? t > own && (best === null || t < best) :
				    t < own && (best === null || t > best))
					best = t;
			}
		}
		if (best === null)
			return;
		bars[0] = best - m.json.begin;
		if (bars[0] < view.t0 || bars[0] > view.t0 + view.w)
			view.t0 = bars[0] - view.w / 2;
		applyView();
		drawPanel();
	}

	function moveSelection(dir) {
		/* The rows on screen, top to bottom (folded groups' are not). */
		const shown = [];
		maps.forEach(function (m) {
			m.bySlot.forEach(function (r) {
				if (r.map)
					shown.push(r);
			});
		});
		const i = selRow ? shown.indexOf(selRow) + dir : 0;
		if (i < 0 || i >= shown.length)
			return;
		selRow = shown[i];
		drawBars();
		drawPanel();
	}

	doc.addEventListener('keydown', function (ev) {
		if (ev.target === input) {
			if (ev.key === 'Escape')
				input.blur();
			return;
		}
		if (ev.ctrlKey || ev.metaKey)
			return;
		const k = ev.key;
		let handled = true;
		if (ev.shiftKey && k === 'ArrowLeft') {
			step(-1);
		} else if (ev.shiftKey && k === 'ArrowRight') {
			step(1);
		} else if (ev.shiftKey && k === 'ArrowUp') {
			moveSelection(-1);
		} else if (ev.shiftKey && k === 'ArrowDown') {
			moveSelection(1);
		} else if (k === 'ArrowLeft') {
			pan(-0.1);
		} else if (k === 'ArrowRight') {
			pan(0.1);
		} else if ((k === '+' || k === '=') && buffer === '') {
			zoomAt(bars.length > 0 ? bars[0] : view.t0 + view.w / 2, 0.5);
		} else if (k === '-' && buffer === '') {
			zoomAt(bars.length > 0 ? bars[0] : view.t0 + view.w / 2, 2);
		} else if (k === 'Enter' && buffer !== '') {
			const ns = parseDuration(buffer);
			buffer = '';
			if (ns > 0)
				zoomTo(ns);
		} else if (k === 'Escape') {
			buffer = '';
			bars.length = 0;
			selRow = null;
			eventSel = null;
			if (tagSel) {
				tagSel = null;
				fade();
			}
			drawBars();
			drawPanel();
		} else if (k === 'Backspace' && buffer !== '') {
			buffer = buffer.slice(0, -1);
		} else if (k.length === 1 && (/[0-9.]/.test(k) || (buffer !== '' && /[a-zμ]/.test(k)))) {
			buffer += k;
		} else if (k === '/') {
			input.focus();
		} else {
			handled = false;
		}
		typed.textContent = buffer === '' ? '' : 'zoom to ' + buffer + ' ⏎';
		if (handled)
			ev.preventDefault();
	});

	/*
	 * ---- where the data comes from ----
	 *
	 * Every source answers the viewer's one question, "the data for
	 * [t0, t1) at W pixels", with an answer: the range it covers (from,
	 * to, offsets in ns like the view's) and rows[statemap][entity], the
	 * -T json rectangles in the page's order, each with n, the
	 * transitions it stands for, where that is known.
	 *
	 * - Embedded: the data block (level 0, which the SVG draws itself),
	 *   and the windows of a file written with --detail: the finest that
	 *   holds the view, else level 0.  Settling on a view paints it
	 *   (DETAIL_DELAY after the last zoom or pan).
	 * - Live: the server, asked for each view the user settles on
	 *   (LIVE_DELAY after the last zoom or pan; a newer question cancels
	 *   the one still out), while the picture on screen stays until the
	 *   answer is painted.
	 */

	/* Each statemap's entities' depth rows (-T json's "depths"; none for most). */
	function depthsOf(statemaps) {
		return statemaps.map(function (sm) {
			return sm.entities.map(function (e) { return e.depths; });
		});
	}

	const level0 = {
		from: 0, to: span, level: 0,
		rows: data.statemaps.map(function (sm) {
			return sm.entities.map(function (e) { return e.rects; });
		}),
		/* Back from a window, nested entities get their own depth rows again. */
		depths: depthsOf(data.statemaps)
	};

	function windowAnswer(w) {
		return {
			from: w.from, to: w.to, level: w.level,
			rows: w.statemaps.map(function (sm) {
				return sm.entities.map(function (e) { return Array.isArray(e.rects) ? e.rects : []; });
			}),
			/* Nested entities' depth rows over the window, as a live answer's. */
			depths: depthsOf(w.statemaps)
		};
	}

	/* The finest embedded window holding [a, b), the most central of equals; or null. */
	function windowFor(a, b) {
		let best = null, off = 0;
		for (const w of windows) {
			if (w.from > a || w.to < b)
				continue;
			const o = Math.abs(w.from + w.to - a - b);
			if (best === null || w.level > best.level || (w.level === best.level && o < off)) {
				best = w;
				off = o;
			}
		}
		return best;
	}

	/*
	 * What the strips show: the answer whose rows the viewer uses, the
	 * range of the view it is drawn over (the SVG's own rectangles cover
	 * [0, span)), whether it is painted, and at how many pixels.
	 */
	const drawn = { answer: level0, range: { t0: 0, w: span }, canvas: false, px: 0, level: 0 };
	const timing = { fetch: 0, draw: 0, paint: 0, frame: 0, rects: 0, answers: 0 };
	let timer = null, inflight = null, asked = null, failure = null;
	const pageGeneration = live ? live.generation : null;
	let shownGeneration = pageGeneration;
	/* With events left out of the first document, each answer brings its own. */
	const eventsPartial = data.statemaps.some(function (sm) { return (sm.events_omitted || 0) > 0; });

	/* The strips' width in device pixels. */
	function pixelWidth() {
		return Math.max(1, Math.min(16384, Math.round(W * (page.scale || 1) *
		    (window.devicePixelRatio || 1))));
	}

	/* Where a walk over rectangles from time t begins (0 if none starts by t). */
	function firstFrom(rs, t) {
		return Math.max(0, lastStartingBy(rs, t));
	}

	/* ---- painting ---- */

	const probe = doc.createElementNS(XHTMLNS, 'canvas').getContext('2d');

	function parseColor(c) {
		let m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(c || '');
		if (m)
			return [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
		m = /^rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)/.exec(c || '');
		return m ? [+m[1], +m[2], +m[3]] : null;
	}

	/* Each state's colour as the SVG drew it: its legend swatch's fill. */
	function stateColors(m) {
		if (m.rgb)
			return m.rgb;
		m.rgb = m.json.states.map(function (st, s) {
			const sw = doc.getElementById('statemap-legend-' + m.legend + '-' + s);
			let c = sw ? parseColor(sw.style.fill) : null;
			if (c === null && probe) {
				probe.fillStyle = '#808080';
				probe.fillStyle = String(st.color);
				c = parseColor(probe.fillStyle);
			}
			return c || [128, 128, 128];
		});
		return m.rgb;
	}

	/*
	 * A rectangle's colour: its states' colours blended by time, as the
	 * SVG's (color_blend in src/base/color.c: from the state with the most
	 * time, each other mixed in by its share, in state order).
	 */
	function rgbOf(m, r) {
		if (r.rgb_)
			return r.rgb_;
		if (!r.states)
			return (r.rgb_ = valueRgb(r));
		const cols = stateColors(m), idx = [];
		const names = Object.keys(r.states);
		if (names.length === 1 && m.stateIndex.has(names[0]))
			return (r.rgb_ = cols[m.stateIndex.get(names[0])]);
		let total = 0;
		for (const name in r.states) {
			const s = m.stateIndex.get(name);
			if (s !== undefined && r.states[name] > 0) {
				idx.push(s);
				total += r.states[name];
			}
		}
		if (idx.length === 0)
			return (r.rgb_ = [128, 128, 128]);
		idx.sort(function (a, b) { return a - b; });
		const time = function (s) { return r.states[m.json.states[s].name]; };
		let max = 0;
		for (let i = 1; i < idx.length; i++) {
			if (time(idx[i]) > time(idx[max]))
				max = i;
		}
		const c = cols[idx[max]].slice();
		for (let i = 0; i < idx.length; i++) {
			if (i === max)
				continue;
			const ratio = time(idx[i]) / total, o = cols[idx[i]];
			for (let k = 0; k < 3; k++)
				c[k] = c[k] * (1 - ratio) + o[k] * ratio;
		}
		return (r.rgb_ = c.map(function (v) { return Math.min(255, Math.max(0, Math.floor(v + 0.5))); }));
	}

	/*
	 * A canvas under each statemap's rows, in the strips' coordinates
	 * (foreignObject), one pixel row per entity stretched to the strip's
	 * height.  The SVG's rectangles go (the canvas paints level 0 too),
	 * but each row keeps an invisible rectangle that brings up its
	 * tooltip.
	 */
	function ensureCanvas(m) {
		if (m.canvas)
			return;
		const fo = el('foreignObject', { x: 0, y: 0, width: W, height: m.h, class: 'statemap-strips' });
		const c = doc.createElementNS(XHTMLNS, 'canvas');
		c.setAttribute('class', 'statemap-strips-canvas');
		fo.appendChild(c);
		m.svg.insertBefore(fo, m.svg.firstChild);
		m.groups.forEach(function (g, k) {
			const keep = Array.prototype.filter.call(g.childNodes, function (c) {
				return c.nodeName !== 'rect';
			});
			keep.push(el('rect', { class: 'statemap-hit', x: 0, y: k * m.h0, width: W,
			    height: m.h0 }));
			g.replaceChildren.apply(g, keep);
		});
		m.svg.classList.add('statemap-canvas');
		m.canvas = c;
		m.ctx = c.getContext('2d');
	}

	/* Pixels as 32-bit words: which byte of one holds red. */
	const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

	function pixelWord(r, g, b, a) {
		return littleEndian ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 :
		    ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
	}

	/*
	 * Paints the rows' rectangles over drawn.range: each pixel column of
	 * a row is the blend of what covers it, weighted by how much of the
	 * column each covers (and by its opacity under a selection), as the
	 * PNG renderer does: no seams, and a column partly without data
	 * fades onto the no-data hatch beneath.  Rectangles come in time
	 * order, so a column is shared only by the ends of neighbours: those
	 * are summed, and the whole columns between are filled at once.
	 */
	function paint() {
		const started = performance.now();
		const range = drawn.range, cw = drawn.px, sc = cw / range.w;
		const lo = range.t0, hi = range.t0 + range.w;
		maps.forEach(function (m) {
			ensureCanvas(m);
			const nrows = Math.max(m.nslots, 1);
			if (m.canvas.width !== cw)
				m.canvas.width = cw;
			if (m.canvas.height !== nrows)
				m.canvas.height = nrows;
			if (!m.img || m.img.width !== cw || m.img.height !== nrows) {
				m.img = m.ctx.createImageData(cw, nrows);
				m.words = new Uint32Array(m.img.data.buffer);
			} else {
				m.words.fill(0);
			}
			const words = m.words, b = m.json.begin;
			m.rows.forEach(function (row, k) {
				if (row.slot < 0)
					return;
				const rs = row.rects, base = row.slot * cw;
				/* The column being summed: its index, colour and cover. */
				let at = -1, sr = 0, sg = 0, sb = 0, sw = 0;
				const flush = function () {
					if (at >= 0 && sw > 0)
						words[base + at] = pixelWord(Math.round(sr / sw), Math.round(sg / sw),
						    Math.round(sb / sw), Math.round(Math.min(sw, 1) * 255));
					at = -1;
					sr = sg = sb = sw = 0;
				};
				const add = function (p, c, w) {
					if (p !== at) {
						flush();
						at = p;
					}
					sr += c[0] * w;
					sg += c[1] * w;
					sb += c[2] * w;
					sw += w;
				};
				for (let i = firstFrom(rs, b + lo); i < rs.length; i++) {
					const r = rs[i], off = r.start - b;
					if (off >= hi)
						break;
					let x0 = (off - lo) * sc, x1 = (off + r.duration - lo) * sc;
					if (x0 < 0)
						x0 = 0;
					if (x1 > cw)
						x1 = cw;
					if (x1 <= x0)
						continue;
					const c = rgbOf(m, r), a = fadeOf(m, r);
					const p0 = Math.floor(x0), p1 = Math.floor(x1);
					if (p0 === p1 || (p1 === p0 + 1 && x1 === p1)) {
						add(p0, c, (x1 - x0) * a);
						continue;
					}
					add(p0, c, (p0 + 1 - x0) * a);
					flush();
					if (p1 > p0 + 1)
						words.fill(pixelWord(c[0], c[1], c[2], Math.round(a * 255)),
						    base + p0 + 1, base + p1);
					if (x1 > p1)
						add(p1, c, (x1 - p1) * a);
				}
				flush();
			});
			m.ctx.putImageData(m.img, 0, 0);
		});
		timing.paint = performance.now() - started;
	}

	/*
	 * Makes an answer what the strips show, painted over [a, b) of the
	 * view at px pixels for the view's width: the rows' data become the
	 * answer's, so clicks, the panel, legend counts and highlights follow.
	 */
	function show(ans, a, b, px) {
		const t = performance.now();
		drawn.answer = ans;
		drawn.range = { t0: a, w: Math.max(b - a, 1e-6) };
		drawn.px = Math.max(1, Math.min(16384, Math.round(px * (b - a) / view.w)));
		drawn.level = ans.level;
		drawn.canvas = true;
		let n = 0;
		maps.forEach(function (m) {
			const rows = ans.rows[m.index] || [];
			const depths = ans.depths ? ans.depths[m.index] || [] : null;
			m.rows.forEach(function (row, k) {
				row.rects = Array.isArray(rows[k]) ? rows[k] : [];
				n += row.rects.length;
				/* (None in a window before the entity's first datum.) */
				if (depths && row.kind === 'nested')
					row.depths = Array.isArray(depths[k]) ? depths[k] : [];
			});
		});
		/* Expanded entities' depth rows from this answer (their number may change). */
		maps.forEach(function (m) {
			const moved = m.rows.some(function (row) {
				return (expanded.has(row) && hasDepths(row) ? row.depths.length : 0) !== (row.shownDepths || 0);
			});
			if (moved) {
				layoutRows(m);
				applyRows(m);
				buildEvents(eventDocs);
				search();
			} else {
				applyRows(m);
			}
		});
		if (tagSel)
			markTags();
		dynStyle.textContent = '';
		fade();
		placeMaps();
		drawBars();
		drawPanel();
		indicator();
		timing.draw = performance.now() - t;
		timing.rects = n;
		timing.answers++;
		/* When the browser has put it on screen (the next frame is out). */
		window.requestAnimationFrame(function () {
			setTimeout(function () { timing.frame = performance.now() - t; }, 0);
		});
	}

	/* ---- asking ---- */

	/* After a zoom or pan: the data for the new view, once it settles. */
	function schedule(delay) {
		if (!live && windows.length === 0)
			return;
		if (delay === undefined && asked !== null && asked.t0 === view.t0 && asked.w === view.w &&
		    asked.px === pixelWidth())
			return;
		if (timer !== null)
			clearTimeout(timer);
		timer = setTimeout(refresh, delay !== undefined ? delay : live ? LIVE_DELAY : DETAIL_DELAY);
	}

	function refresh() {
		timer = null;
		const a = view.t0, b = view.t0 + view.w, px = pixelWidth();
		asked = { t0: view.t0, w: view.w, px: px };
		if (!live) {
			const w = windowFor(a, b);
			/*
			 * Level 0 is the SVG's own drawing until something else is
			 * shown, or the view is finer than that drawing's precision.
			 */
			if (w === null && !drawn.canvas && view.w >= span / MAX_ZOOM) {
				indicator();
				return;
			}
			const ans = w !== null ? windowAnswer(w) : level0;
			show(ans, Math.max(ans.from, a), Math.min(ans.to, b), px);
			return;
		}
		if (inflight !== null)
			inflight.abort();
		const ctl = new AbortController();
		inflight = ctl;
		failure = null;
		indicator();
		const t0 = performance.now();
		const begin = Math.max(0, Math.floor(live.begin + a));
		const end = Math.max(begin + 1, Math.ceil(live.begin + b));
		const url = live.api + '?token=' + encodeURIComponent(live.token) + '&begin=' + begin +
		    '&end=' + end + '&width=' + px;
		window.fetch(url, { signal: ctl.signal, cache: 'no-store' }).then(function (r) {
			if (!r.ok)
				throw new Error(r.status === 403 ? 'refused by the server (HTTP 403)' :
				    'no answer (HTTP ' + r.status + ')');
			return r.json();
		}).then(function (d) {
			if (ctl !== inflight)
				return;
			inflight = null;
			timing.fetch = performance.now() - t0;
			answered(d, begin, end, px);
		}).catch(function (e) {
			if (ctl !== inflight)
				return;
			inflight = null;
			failure = e && e.name === 'TypeError' ? 'no answer from the server' :
			    String(e && e.message ? e.message : e);
			indicator();
		});
	}

	/* Whether statemap documents have this page's statemaps, rows and states. */
	function sameShape(docs) {
		if (!Array.isArray(docs) || docs.length !== data.statemaps.length)
			return false;
		return maps.every(function (m) {
			const d = docs[m.index];
			if (!d || !Array.isArray(d.entities) || !Array.isArray(d.states) ||
			    d.entities.length !== m.rows.length || d.states.length !== m.json.states.length)
				return false;
			return m.rows.every(function (row, k) { return row.name === d.entities[k].name; }) &&
			    d.states.every(function (st, s) {
				return st.name === m.json.states[s].name && st.color === m.json.states[s].color;
			    });
		});
	}

	/* Reloads the page (what is served changed shape), at the same view. */
	function reloadKeepingView() {
		const b = Math.floor(live.begin + view.t0), e = Math.ceil(live.begin + view.t0 + view.w);
		try {
			window.history.replaceState(null, '', '#view=' + b + ',' + e);
		} catch (err) {
			/* The view is a nicety; the reload is what matters. */
		}
		window.location.reload();
	}

	function answered(d, begin, end, px) {
		const docs = d && d.statemaps;
		const generation = d && d.live ? d.live.generation : shownGeneration;
		if (!sameShape(docs)) {
			/* Only what is served now can differ from what the page was made of. */
			if (generation !== pageGeneration) {
				reloadKeepingView();
			} else {
				failure = 'the answer does not fit this page: reload it';
				indicator();
			}
			return;
		}
		maps.forEach(function (m) { m.json.tags = docs[m.index].tags || []; });
		if (generation !== shownGeneration || eventsPartial)
			buildEvents(docs);
		shownGeneration = generation;
		const ans = {
			from: begin - live.begin, to: end - live.begin, level: 0,
			rows: docs.map(function (sm) {
				return sm.entities.map(function (e) { return e.rects; });
			}),
			/* A nested entity's depth rows over the window (-T json's "depths"). */
			depths: depthsOf(docs)
		};
		show(ans, ans.from, ans.to, px);
	}

	if (live) {
		/* A reload for a new generation kept the view in the address. */
		const m = /^#view=(\d+),(\d+)$/.exec(window.location.hash || '');
		if (m && +m[2] > +m[1]) {
			view.t0 = +m[1] - live.begin;
			view.w = +m[2] - +m[1];
		}
		live.onchange = function () {
			asked = null;
			schedule(0);
		};
	}

	/* ---- the indicator: exact or merged, and where the detail ends ---- */

	const indicatorText = text(layer, X0 + W, maps[0].y - 3, '', 'statemap-indicator');
	indicatorText.setAttribute('text-anchor', 'end');
	indicatorText.setAttribute('id', 'statemap-indicator');

	/* What the rectangles in view stand for. */
	function onScreen() {
		const c = { rects: 0, n: 0, merged: 0, unknown: 0, blended: 0, longest: 0, longestBlend: 0 };
		maps.forEach(function (m) {
			const lo = m.json.begin + view.t0, hi = lo + view.w;
			m.rows.forEach(function (row) {
				const rs = row.rects;
				for (let i = firstFrom(rs, lo); i < rs.length && rs[i].start < hi; i++) {
					const r = rs[i];
					if (r.start + r.duration <= lo)
						continue;
					let k = 0;
					for (const s in r.states) {
						if (r.states[s] > 0)
							k++;
					}
					c.rects++;
					if (k > 1)
						c.blended++;
					if (typeof r.n !== 'number') {
						c.unknown++;
						continue;
					}
					c.n += r.n;
					if (r.n > 1) {
						c.merged++;
						c.longest = Math.max(c.longest, r.duration);
						if (k > 1)
							c.longestBlend = Math.max(c.longestBlend, r.duration);
					}
				}
			});
		});
		return c;
	}

	/* Whether no finer embedded window reaches into the view. */
	function detailEnds() {
		const a = view.t0, b = view.t0 + view.w;
		return !windows.some(function (w) { return w.level > drawn.level && w.from < b && w.to > a; });
	}

	function indicator() {
		let s, cls;
		if (live && (timer !== null || inflight !== null)) {
			s = 'loading…';
			cls = 'loading';
		} else if (failure !== null) {
			s = failure;
			cls = 'error';
		} else {
			const c = onScreen();
			if (c.rects === 0) {
				s = 'no data in view';
				cls = 'exact';
			} else if (c.unknown > 0) {
				/* A file without counts: only blends are known to be merged. */
				s = c.blended > 0 ? 'merged (' + c.blended + ' of ' + c.rects + ' rectangles blend states)' :
				    c.rects + ' rectangles (transitions not counted)';
				cls = c.blended > 0 ? 'merged' : 'unknown';
			} else if (c.merged === 0) {
				s = 'exact';
				cls = 'exact';
			} else {
				s = 'merged (' + c.n + ' transitions in ' + c.rects + ' rectangles)';
				cls = 'merged';
				if (!live && detailEnds()) {
					s += '; detail ends here: merged below ' + fmt(c.longestBlend || c.longest);
					cls = 'ends';
				}
			}
		}
		indicatorText.textContent = s;
		indicatorText.setAttribute('class', 'statemap-viewer-text statemap-indicator statemap-indicator-' + cls);
	}

	/*
	 * For tests and the curious: the view, in ns from the window's begin;
	 * the layout; whether events are drawn as ticks; where the data comes
	 * from, whether an answer is awaited, what is drawn (the answer's range,
	 * [from, to), the range painted, and the rectangles in view, per
	 * statemap and row) and how long the last answer took.
	 */
	window.statemapViewer = {
		view: function () { return { t0: view.t0, width: view.w, span: span }; },
		bars: function () { return bars.slice(); },
		layout: function () { return { wide: page.wide, scale: page.scale, folded: folded }; },
		eventsDense: function () { return eventsDense; },
		/* Each statemap's slots: an entity's name, "group/" for a header, "name #d" for depth d's row. */
		slots: function () {
			return maps.map(function (m) {
				return m.bySlot.map(function (r) {
					return r.map ? r.name : r.depthOf ? r.depthOf.name + ' #' + (r.d + 1) : r.group + '/';
				});
			});
		},
		slotHeights: function () { return maps.map(function (m) { return m.stripH; }); },
		source: function () { return live ? 'live' : windows.length > 0 ? 'detail' : 'embedded'; },
		generation: function () { return shownGeneration; },
		pending: function () { return timer !== null || inflight !== null; },
		indicator: function () { return indicatorText.textContent; },
		timing: function () { return Object.assign({}, timing); },
		drawn: function () {
			return {
				level: drawn.level, painted: drawn.canvas, pixels: drawn.px,
				from: drawn.answer.from, to: drawn.answer.to,
				range: { t0: drawn.range.t0, width: drawn.range.w },
				statemaps: maps.map(function (m) {
					const lo = m.json.begin + view.t0, hi = lo + view.w;
					return m.rows.map(function (row) {
						const out = [], rs = row.rects;
						for (let i = firstFrom(rs, lo); i < rs.length && rs[i].start < hi; i++) {
							const r = rs[i];
							if (r.start + r.duration > lo)
								out.push({ start: r.start, duration: r.duration, states: r.states, n: r.n });
						}
						return out;
					});
				})
			};
		}
	};

	layout();
	applyView();
	drawPanel();
	/* The live page asks at once: its first picture says nothing of n. */
	if (live)
		schedule(0);
})();
