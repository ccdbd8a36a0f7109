/*
 * viewer.js: the interactive statemap viewer's main, which makes its
 * parts and wires them.  The viewer is embedded at the end of the SVG
 * that statemap-lua writes (src/output/svg.c) and run when the document
 * has been parsed; the static picture is complete without it.  It adds
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
 * (statemap-lua --serve, src/serve/page.c) runs the same script, and asks
 * its server for every view it settles on.  Either way the answer is
 * painted into a canvas per statemap, and the rows' data (clicks, panel,
 * legend counts, highlights) are the answer's.  An indicator above the
 * strips says whether what is on screen is exact.
 *
 * The script is the Makefile's VIEWER_JS joined in order inside one
 * function (viewer_open.js, viewer_close.js), plain browser JavaScript
 * with no build step but that.  Each part is one function, viewerX(sv),
 * which makes its part from what the parts before it put in sv, the
 * object they share, and returns what it adds to it; a part calls
 * another's functions through sv (sv.drawPanel()), so that each can be
 * made, and tested, with stand-ins for the others (tests/browser/):
 *
 *   viewer_data.js     the document's blocks: data, live link, --detail
 *                      windows; answers made of them
 *   viewer_dom.js      SVG elements and text
 *   viewer_format.js   times and durations as text; axis ticks
 *   viewer_rows.js     the statemaps and their rows: tree, slots, lookups
 *   viewer_layout.js   the view, zoom and pan, axis, time bars, the page,
 *                      rows placed in slots
 *   viewer_panel.js    the details panel
 *   viewer_input.js    buttons, search, mouse and keyboard
 *   viewer_legend.js   legend counts, state and tag selection, fading
 *   viewer_events.js   event marks and message arrows
 *   viewer_paint.js    colours, and the canvases the strips are painted in
 *   viewer_source.js   asking (embedded windows, the server), showing an
 *                      answer, the exact/merged indicator
 */
function viewerMain() {
	const doc = document;
	const sv = { doc: doc, root: doc.documentElement };
	Object.assign(sv, viewerData(doc));
	/* What the parts share besides their functions. */
	sv.view = { t0: 0, w: sv.span };	/* [t0, t0 + w) in ns from the window's begin */
	sv.bars = [];		/* the time bars, offsets in ns: [selected, second] */
	sv.sel = {
		row: null,	/* the selected entity's row */
		depth: null,	/* { row, d }: the depth row clicked */
		event: null,	/* the selected event's mark */
		hover: null,	/* the hovered event's mark */
		/* Legend selection: { legend, states: [index], names: [name], field } */
		state: null,
		/* Tag selection: { field, value, states: [name], stats, hit } */
		tag: null
	};
	Object.assign(sv, viewerDom(doc), viewerFormat(sv.view));
	const rows = viewerRows(sv);
	if (rows === null)
		return;
	Object.assign(sv, rows);
	/*
	 * What the strips show: the answer whose rows the viewer uses, the
	 * range of the view it is drawn over (the SVG's own rectangles cover
	 * [0, span)), whether it is painted, and at how many pixels.
	 */
	sv.drawn = { answer: sv.level0, range: { t0: 0, w: sv.span }, canvas: false, px: 0, level: 0 };
	sv.timing = { fetch: 0, draw: 0, paint: 0, frame: 0, rects: 0, answers: 0 };

	/* The parts, in this order: what they draw stacks in it. */
	Object.assign(sv, viewerLayout(sv));
	Object.assign(sv, viewerPanel(sv));
	Object.assign(sv, viewerInput(sv));
	Object.assign(sv, viewerLegend(sv));
	Object.assign(sv, viewerEvents(sv));
	sv.buildEvents(sv.data.statemaps);
	sv.maps.forEach(function (m) { sv.applyRows(m); });
	sv.addSearch();
	sv.listen();
	Object.assign(sv, viewerPaint(sv));
	Object.assign(sv, viewerSource(sv));

	const view = sv.view, span = sv.span, maps = sv.maps, drawn = sv.drawn;
	/*
	 * For tests and the curious: the view, in ns from the window's begin;
	 * the layout; whether events are drawn as ticks; where the data comes
	 * from, whether an answer is awaited, what is drawn (the answer's range,
	 * [from, to), the range painted, and the rectangles in view, per
	 * statemap and row) and how long the last answer took.
	 */
	window.statemapViewer = {
		view: function () { return { t0: view.t0, width: view.w, span: span }; },
		bars: function () { return sv.bars.slice(); },
		layout: function () { return { wide: sv.page.wide, scale: sv.page.scale, folded: sv.folded() }; },
		eventsDense: function () { return sv.eventsDense(); },
		/* Each statemap's slots: an entity's name, "group/" for a header, "name #d" for depth d's row. */
		slots: function () {
			return maps.map(function (m) {
				return m.bySlot.map(function (r) {
					return r.map ? r.name : r.depthOf ? r.depthOf.name + ' #' + (r.d + 1) : r.group + '/';
				});
			});
		},
		slotHeights: function () { return maps.map(function (m) { return m.stripH; }); },
		source: function () { return sv.live ? 'live' : sv.windows.length > 0 ? 'detail' : 'embedded'; },
		generation: function () { return sv.generation(); },
		pending: function () { return sv.pending(); },
		indicator: function () { return sv.indicatorText(); },
		timing: function () { return Object.assign({}, sv.timing); },
		drawn: function () {
			return {
				level: drawn.level, painted: drawn.canvas, pixels: drawn.px,
				from: drawn.answer.from, to: drawn.answer.to,
				range: { t0: drawn.range.t0, width: drawn.range.w },
				statemaps: maps.map(function (m) {
					const lo = m.json.begin + view.t0, hi = lo + view.w;
					return m.rows.map(function (row) {
						const out = [], rs = row.rects;
						for (let i = sv.firstFrom(rs, lo); i < rs.length && rs[i].start < hi; i++) {
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

	sv.layout();
	sv.applyView();
	sv.drawPanel();
	/* The live page asks at once: its first picture says nothing of n. */
	if (sv.live)
		sv.schedule(0);
}
