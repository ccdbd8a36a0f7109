// modules.js: the viewer's modules (src/output/viewer_*.js) one at a
// time, for the tests that make one part of the viewer alone
// (modules.test.js in Chromium, modules-node.test.js in Node): the files
// and the order the Makefile joins them in, a module's code wrapped as
// the joined script runs it, and what a test stands a part on.
'use strict';
const fs = require('fs');
const path = require('path');

const TOP = path.join(__dirname, '..', '..');
const SRC = path.join(TOP, 'src', 'output');

// The Makefile's VIEWER_JS: the script's files, in the order joined.
function joined() {
	const mk = fs.readFileSync(path.join(TOP, 'Makefile'), 'utf8');
	const m = /^VIEWER_JS\s*=((?:.*\\\n)*.*)$/m.exec(mk);
	return m ? m[1].replace(/\\\n/g, ' ').trim().split(/\s+/) : [];
}

// A module's factory: viewer_format.js makes viewerFormat.
function factoryOf(file) {
	return path.basename(file, '.js').replace(/_(\w)/g, (m, c) => c.toUpperCase());
}

// Code that evaluates to a function of window: it runs the named
// modules (format for viewer_format.js) in strict mode, inside one
// function as the joined script does, and returns their factories by
// name.  `window` is whatever the caller gives (a stand-in in Node).
function wrap(names) {
	const files = names.map((n) => path.join(SRC, 'viewer_' + n + '.js'));
	return '(function (window) {\n\'use strict\';\n' +
	    files.map((f) => fs.readFileSync(f, 'utf8')).join('\n') +
	    '\nreturn { ' + files.map((f) => factoryOf(f) + ': ' + factoryOf(f)).join(', ') + ' };\n})';
}

// What every part stands on, made as main makes it: sv with the
// document's blocks (viewerData), the view, time bars and selection, the
// SVG helpers, the formats and the rows; and what the strips show.
// Runs where the parts were loaded (the page, or Node with a stand-in
// document); P is the factories.
function standOn(P, doc) {
	const sv = { doc: doc, root: doc.documentElement };
	Object.assign(sv, P.viewerData(doc));
	sv.view = { t0: 0, w: sv.span };
	sv.bars = [];
	sv.sel = { row: null, depth: null, event: null, hover: null, state: null, tag: null };
	Object.assign(sv, P.viewerDom(doc), P.viewerFormat(sv.view));
	Object.assign(sv, P.viewerRows(sv));
	sv.drawn = { answer: sv.level0, range: { t0: 0, w: sv.span }, canvas: false, px: 0, level: 0 };
	sv.timing = { fetch: 0, draw: 0, paint: 0, frame: 0, rects: 0, answers: 0 };
	return sv;
}

// Stand-ins for other parts' functions: each records [name, args...] in
// calls and returns results[name] (a function of the arguments, or a
// value).
function standIns(sv, names, calls, results) {
	results = results || {};
	names.forEach(function (n) {
		sv[n] = function () {
			const args = Array.prototype.slice.call(arguments);
			calls.push([n].concat(args));
			const r = results[n];
			return typeof r === 'function' ? r.apply(null, args) : r;
		};
	});
	return calls;
}

// The UI layer and the page as viewerLayout makes them, and its
// geometry, for the parts tested without it.
function layerStandIn(sv) {
	const el = sv.el;
	sv.PANEL_WIDTH = 330;
	sv.page = { wide: true, scale: 1, width: sv.origWidth + sv.PANEL_WIDTH };
	sv.root.setAttribute('width', sv.page.width);
	sv.root.setAttribute('viewBox', '0 0 ' + sv.page.width + ' ' + sv.origHeight);
	sv.layer = el('g', { id: 'statemap-viewer' }, sv.root);
	sv.defs = el('defs', {}, sv.layer);
	el('path', { d: 'M0,0 L6,3 L0,6 z' }, el('marker', { id: 'statemap-arrow' }, sv.defs));
	sv.dynStyle = el('style', { type: 'text/css' }, sv.defs);
	sv.searchHits = el('g', { id: 'statemap-search-hits' }, sv.layer);
	sv.eventLayer = el('g', { id: 'statemap-events' }, sv.layer);
	sv.typed = sv.text(sv.layer, sv.X0 + sv.W, 36, '', 'statemap-typed');
	sv.xOf = function (off) { return sv.X0 + (off - sv.view.t0) / sv.view.w * sv.W; };
	sv.offOf = function (x) { return sv.view.t0 + (x - sv.X0) / sv.W * sv.view.w; };
	return sv;
}

module.exports = { TOP, SRC, joined, factoryOf, wrap, standOn, standIns, layerStandIn };
