/*
 * viewer_layout.js: where things are.  The view ([t0, t0 + w) in ns from
 * the window's begin) and the geometry from time to x, zoom and pan; each
 * statemap's viewBox; the time axis, the span label and the time bars;
 * the UI layer the other parts draw in, and the page's width and height;
 * rows placed in their slots (groups folded, depth rows expanded).
 *
 *   viewerLayout(sv) -> { PANEL_WIDTH, page, layer, defs, dynStyle,
 *       searchHits, eventLayer, typed, xOf, offOf, zoomAt, zoomTo, zoomBy, pan,
 *       applyView, placeMaps, layout, setHeight, drawBars, applyRows,
 *       toggleDepths }
 *   from sv: doc, root, data, span, minWidth, maps, X0, W, mapsBottom,
 *       origWidth, view, bars, sel, drawn, expanded, hasDepths,
 *       layoutRows, firstFrom, el, text, clear, fmt, fmtAt, epoch,
 *       tickStep, tickLabel; calls placePanel, drawPanel, schedule,
 *       indicator, placeEvents, markRelatedEvents, rebuildEvents, search,
 *       rgbOf, paint
 */
function viewerLayout(sv) {
	const PANEL_WIDTH = 330;
	const MIN_FONT = 6;		/* names smaller than this are not read */
	const LINE_GAP = 1;		/* names' centres at least this many sizes apart */
	const doc = sv.doc, root = sv.root, data = sv.data, span = sv.span, minWidth = sv.minWidth;
	const maps = sv.maps, X0 = sv.X0, W = sv.W, mapsBottom = sv.mapsBottom;
	const origWidth = sv.origWidth;
	const view = sv.view, bars = sv.bars, sel = sv.sel, drawn = sv.drawn;
	const expanded = sv.expanded, hasDepths = sv.hasDepths, firstFrom = sv.firstFrom;
	const el = sv.el, text = sv.text, clear = sv.clear;
	const fmt = sv.fmt, fmtAt = sv.fmtAt, epoch = sv.epoch;
	const tickStep = sv.tickStep, tickLabel = sv.tickLabel;

	/* ---- the view: [t0, t0 + w) in ns from the window's begin ---- */

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

	/*
	 * The buttons', keys' and typed zooms: with a time selected, the view
	 * is centred on it (as the original viewer does); else around the
	 * middle.
	 */
	function zoomTo(width) {
		if (bars.length === 0) {
			zoomWidth(view.t0 + view.w / 2, width);
			return;
		}
		view.w = Math.min(Math.max(width, minWidth), span);
		view.t0 = bars[0] - view.w / 2;
		applyView();
	}

	function zoomBy(factor) {
		zoomTo(view.w * factor);
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
		sv.placeEvents();
		drawBars();
		spanLabel();
		/* What the panel says of the visible span, or of events in view. */
		if (sel.row || sel.tag || (sel.state && sel.state.field && bars.length === 0))
			sv.drawPanel();
		sv.schedule();
		sv.indicator();
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

	/*
	 * A click on the time label (the span label above the map, or a
	 * time bar's label under it) clears the selected time, as Escape
	 * does for everything and as the original viewer's time label did.
	 */
	function clearTime(ev) {
		ev.stopPropagation();
		if (bars.length === 0)
			return;
		bars.length = 0;
		drawBars();
		sv.drawPanel();
	}

	function clearsTime(t) {
		t.style.cursor = 'pointer';
		t.addEventListener('mousedown', function (ev) { ev.stopPropagation(); });
		t.addEventListener('click', clearTime);
	}

	if (spanText)
		clearsTime(spanText);

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

	/* The page's width (the drawing's, and the panel's when wide) and scale. */
	const page = { wide: true, scale: 1, width: origWidth + PANEL_WIDTH };

	/* The width the page has, without a vertical scroll bar. */
	function available() {
		return doc.documentElement.clientWidth || window.innerWidth || page.width;
	}

	function layout() {
		/*
		 * The first pass tries the window's whole width (the narrow
		 * page's panel under the maps may be what brought a scroll
		 * bar, which the wide page would not have); the next ones lay
		 * out with the width left, until a scroll bar stops coming or
		 * going.
		 */
		for (let pass = 0; pass < 3; pass++) {
			const avail = available();
			const room = pass === 0 ? Math.max(avail, window.innerWidth || 0) : avail;
			page.wide = room >= origWidth + PANEL_WIDTH;
			page.width = page.wide ? origWidth + PANEL_WIDTH : origWidth;
			page.scale = Math.min(1, avail / page.width);
			root.setAttribute('width', page.width * page.scale);
			sv.placePanel();
			/* A scroll bar that came or went changes the width. */
			if (pass > 0 && available() === avail)
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

	window.addEventListener('resize', function () {
		layout();
		sv.drawPanel();
		sv.schedule();
	});

	/* ---- time bars and the selected entity ---- */

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
			clearsTime(t);
		});
		if (sel.row && sel.row.slot >= 0) {
			selBox.setAttribute('y', sel.row.map.y + sel.row.slot * sel.row.map.stripH);
			selBox.setAttribute('height', sel.row.map.stripH);
			selBox.setAttribute('visibility', 'visible');
		} else {
			selBox.setAttribute('visibility', 'hidden');
		}
		sv.markRelatedEvents();
	}

	/* ---- rows in their slots: groups and depth rows ---- */

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
		if (labels && m.baseFont === undefined)
			m.baseFont = +labels.getAttribute('font-size') || 10;
		/*
		 * Names never overlap: the size is what a slot holds, but not
		 * under MIN_FONT (or the SVG's own size, if smaller); where
		 * slots are smaller than that, a name is drawn only if it
		 * clears the last one drawn above it (headers and rows alike,
		 * top down), and the others are in the tooltips and the panel.
		 */
		const base = m.baseFont || 10;
		const font = Math.min(base, Math.max(Math.min(base, MIN_FONT), Math.floor(H * 0.9)));
		if (labels && m.font !== font) {
			m.font = font;
			labels.setAttribute('font-size', font);
			if (ranges)
				ranges.setAttribute('font-size', Math.max(4, Math.floor(H * 0.8)));
		}
		/*
		 * By priority: headers (the folds' controls), then nested
		 * entities' names (the depth rows' controls), then the other
		 * names; each drawn only if no name drawn is nearer than the
		 * size (d slots).
		 */
		const shown = new Set(), taken = new Uint8Array(m.bySlot.length);
		const d = Math.max(1, Math.ceil(font * LINE_GAP / H - 1e-9));
		const rank = function (s) {
			return s.depthOf ? -1 : s.group !== undefined ? 0 : hasDepths(s) ? 1 : 2;
		};
		for (let r = 0; r <= 2; r++) {
			m.bySlot.forEach(function (s) {
				if (rank(s) !== r)
					return;
				const lo = Math.max(0, s.slot - d + 1), hi = Math.min(taken.length - 1, s.slot + d - 1);
				for (let i = lo; i <= hi; i++)
					if (taken[i])
						return;
				taken[s.slot] = 1;
				shown.add(s);
			});
		}
		const move = function (t, row, k) {
			if (!t)
				return;
			t.setAttribute('display', row.slot >= 0 && shown.has(row) ? 'inline' : 'none');
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
			if (!shown.has(h))
				return;
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
				const c = sv.rgbOf(m, r);
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
		sv.layoutRows(m);
		applyRows(m);
		if (sel.row && sel.row.slot < 0)
			sel.row = null;
		sv.rebuildEvents();
		sv.search();
		drawBars();
		if (drawn.canvas)
			sv.paint();
		sv.drawPanel();
	}

	/* Folds or unfolds a group: the rows below move, and all that sits on rows follows. */
	function toggleGroup(m, group) {
		if (m.folded.has(group))
			m.folded.delete(group);
		else
			m.folded.add(group);
		relayout(m);
	}

	return { PANEL_WIDTH: PANEL_WIDTH, page: page, layer: layer, defs: defs, dynStyle: dynStyle,
	    searchHits: searchHits, eventLayer: eventLayer, typed: typed,
	    xOf: xOf, offOf: offOf, zoomAt: zoomAt, zoomTo: zoomTo, zoomBy: zoomBy, pan: pan, applyView: applyView,
	    placeMaps: placeMaps, layout: layout, setHeight: setHeight, drawBars: drawBars,
	    applyRows: applyRows, toggleDepths: toggleDepths };
}
