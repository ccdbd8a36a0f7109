/*
 * viewer_source.js: where the data comes from, and what the strips show.
 *
 * - Embedded: the data block (level 0, which the SVG draws itself), and
 *   the windows of a file written with --detail: the finest that holds
 *   the view, else level 0.  Settling on a view paints it (DETAIL_DELAY
 *   after the last zoom or pan).
 * - Live: the server, asked for each view the user settles on
 *   (LIVE_DELAY after the last zoom or pan; a newer question cancels the
 *   one still out), while the picture on screen stays until the answer is
 *   painted.  When what is served changes (a new generation), the page
 *   asks again, or reloads at the same view if the rows changed.
 *
 * Either way the answer is painted into a canvas per statemap (show), and
 * the rows' data (clicks, panel, legend counts, highlights) are the
 * answer's.  The indicator above the strips says whether what is on
 * screen is exact.
 *
 *   viewerSource(sv) -> { schedule, show, indicator, pending, generation,
 *       indicatorText }
 *   Made last: it makes the indicator (the UI layer's last element).
 *   from sv: data, span, live, windows, maxZoom, level0, windowFor,
 *       windowAnswer, depthsOf, maps, X0, W, view, sel, page, drawn, timing,
 *       expanded, hasDepths, layoutRows, firstFrom, layer, dynStyle, text,
 *       fmt; calls applyRows, buildEvents, rebuildEvents, search,
 *       markTags, fade, placeMaps, drawBars, drawPanel
 */
function viewerSource(sv) {
	const LIVE_DELAY = 150;	/* ms after the last zoom or pan: ask the server */
	const DETAIL_DELAY = 60;	/* ms: paint an embedded window */
	const data = sv.data, span = sv.span, live = sv.live, windows = sv.windows;
	const MAX_ZOOM = sv.maxZoom, level0 = sv.level0, windowFor = sv.windowFor;
	const windowAnswer = sv.windowAnswer, depthsOf = sv.depthsOf;
	const maps = sv.maps, X0 = sv.X0, W = sv.W, view = sv.view, sel = sv.sel, page = sv.page;
	const drawn = sv.drawn, timing = sv.timing, expanded = sv.expanded, hasDepths = sv.hasDepths;
	const layoutRows = sv.layoutRows, firstFrom = sv.firstFrom;
	const layer = sv.layer, dynStyle = sv.dynStyle, text = sv.text, fmt = sv.fmt;

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
				sv.applyRows(m);
				sv.rebuildEvents();
				sv.search();
			} else {
				sv.applyRows(m);
			}
		});
		if (sel.tag)
			sv.markTags();
		dynStyle.textContent = '';
		sv.fade();
		sv.placeMaps();
		sv.drawBars();
		sv.drawPanel();
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
			sv.buildEvents(docs);
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

	return { schedule: schedule, show: show, indicator: indicator,
	    pending: function () { return timer !== null || inflight !== null; },
	    generation: function () { return shownGeneration; },
	    indicatorText: function () { return indicatorText.textContent; } };
}
