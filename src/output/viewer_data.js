/*
 * viewer_data.js: what the document holds, and the answers made of it.
 *
 * The data block is the -T json document, which the SVG draws itself
 * (level 0); a file written with --detail adds finer windows of the same
 * trace (the statemap-detail block) and level 0's counts; the live page
 * (statemap-lua --serve) has a block linking it to its server instead.
 *
 * Every source answers the viewer's one question, "the data for [t0, t1)
 * at W pixels", with an answer: the range it covers (from, to, offsets in
 * ns like the view's), rows[statemap][entity], the -T json rectangles in
 * the page's order, each with n, the transitions it stands for, where
 * that is known, and depths[statemap][entity], nested entities' depth
 * rows.  Here: level 0 and the embedded windows (viewer_source.js asks
 * the server).  No DOM but the blocks' text.
 *
 *   viewerData(doc) -> { data, span, live, detail, allExact, windows,
 *       maxZoom, minWidth, level0, windowAnswer, windowFor, depthsOf }
 */
function viewerData(doc) {
	const MAX_ZOOM = 1e4;	/* float precision of the drawing, see fixRects */
	const LIVE_MIN = 100;	/* the narrowest view with a source, ns */

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

	return { data: data, span: span, live: live, detail: detail, allExact: allExact,
	    windows: windows, maxZoom: MAX_ZOOM, minWidth: minWidth, level0: level0,
	    windowAnswer: windowAnswer, windowFor: windowFor, depthsOf: depthsOf };
}
