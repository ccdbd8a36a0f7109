// modules-node.test.js: the viewer's modules that need no DOM, each made
// alone in Node (the others stood in for): the joined script's files and
// order; viewer_format (times as text, axis ticks); viewer_data (the
// document's blocks, the windows, the deepest zoom); viewer_rows (the
// statemaps' rows, their tree of groups, slots and depth rows, lookups);
// viewer_source (asking the embedded windows and a stand-in server,
// showing answers, the indicator); viewer_paint's colours (held against
// the colours statemap-lua drew in the SVG).
//
//   node modules-node.test.js DIR
//
// DIR holds the SVGs test_modules_node.sh drew; each is read here as a
// stand-in document (its attributes, blocks, statemaps and swatches).
// Prints "PASS name" or "FAIL name: why" lines.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { SRC, joined, factoryOf, wrap, standOn, standIns } = require('./modules.js');

const [dir] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('modules-node');

// ---- a stand-in document, read from an SVG statemap-lua drew ----

function attrsOf(tag) {
	const a = {};
	tag.replace(/([\w:-]+)="([^"]*)"/g, (m, k, v) => { a[k] = v.replace(/&quot;/g, '"').replace(/&lt;/g, '<')
	    .replace(/&gt;/g, '>').replace(/&amp;/g, '&'); });
	return a;
}

function element(attrs) {
	const classes = new Set();
	return {
		attrs: Object.assign({}, attrs), children: [], style: {}, textContent: '',
		getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; },
		setAttribute(k, v) { this.attrs[k] = String(v); },
		appendChild(c) { this.children.push(c); return c; },
		classList: { contains: (c) => classes.has(c), add: (c) => classes.add(c),
		    toggle: (c, on) => (on === undefined ? !classes.has(c) : on) ? classes.add(c) : classes.delete(c) },
	};
}

// What the parts read of the document: elements by id (the statemaps'
// <svg>s with their rows' <g>s, the legend's swatches, the JSON blocks),
// the root's attributes and viewBox, and elements made (a canvas made
// here has no context).  fills: each statemap's rows' rectangle fills.
function docOf(file, live) {
	const text = fs.readFileSync(path.join(dir, file), 'utf8');
	const byId = new Map();
	const root = element(attrsOf(/<svg xmlns[^>]*>/.exec(text)[0]));
	const vb = root.attrs.viewBox.split(' ').map(Number);
	root.viewBox = { baseVal: { width: vb[2], height: vb[3] } };
	const re = /<script type="application\/json" id="([\w-]+)"><!\[CDATA\[\n([\s\S]*?)\]\]><\/script>/g;
	for (let m; (m = re.exec(text)) !== null;)
		byId.set(m[1], Object.assign(element({ id: m[1] }), { textContent: m[2] }));
	if (live) {
		const b = element({ id: 'statemap-live' });
		b.textContent = JSON.stringify(live);
		byId.set('statemap-live', b);
	}
	const fills = [];
	const sre = /<svg x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" id="statemap-(\d+)"(?: data-strip-height="\d+")?>([\s\S]*?)<\/svg>/g;
	for (let m; (m = sre.exec(text)) !== null;) {
		const svg = element(attrsOf(m[0].slice(0, m[0].indexOf('>'))));
		const groups = m[2].split('<g ').slice(1);
		svg.children = groups.map(() => Object.assign(element({}), { tagName: 'g' }));
		fills[+m[1]] = groups.map((g) => (g.match(/fill="#[0-9a-f]{6}"/g) || []).map((f) => f.slice(6, -1)));
		byId.set(svg.attrs.id, svg);
	}
	const lre = /<rect [^>]*id="(statemap-legend-\d+-\d+)"[^>]*style="fill:([^"]*)"/g;
	for (let m; (m = lre.exec(text)) !== null;)
		byId.set(m[1], Object.assign(element({ id: m[1] }), { style: { fill: m[2] } }));
	return {
		documentElement: root, fills: fills,
		getElementById: (id) => byId.get(id) || null,
		createElementNS: () => Object.assign(element({}), { getContext: () => null }),
	};
}

// The modules, loaded alone, with window as given.
function load(names, window) {
	return vm.runInThisContext(wrap(names))(window || {});
}

const hex = (c) => '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the joined script ----

function script() {
	const files = joined();
	const all = fs.readdirSync(SRC).filter((f) => /^viewer.*\.js$/.test(f)).map((f) => 'src/output/' + f);
	eq('script: the Makefile joins every src/output/viewer*.js once', files.slice().sort(), all.sort());
	eq('script: opened first, main and the close last', [files[0], files[files.length - 2], files[files.length - 1]],
	    ['src/output/viewer_open.js', 'src/output/viewer.js', 'src/output/viewer_close.js']);
	// Each module alone defines its factory and nothing else.
	const mods = files.slice(1, -2);
	const alone = mods.map((f) => {
		const ctx = vm.createContext({});
		vm.runInContext(fs.readFileSync(path.join(SRC, '..', '..', f), 'utf8'), ctx);
		return Object.keys(ctx).join(' ') === factoryOf(f) && typeof ctx[factoryOf(f)] === 'function';
	});
	check('script: each module defines its factory alone', alone.every((x) => x),
	    JSON.stringify(mods.filter((f, i) => !alone[i])));
	const text = files.map((f) => fs.readFileSync(path.join(SRC, '..', '..', f), 'utf8')).join('');
	let ok = true;
	try {
		new vm.Script(text);
	} catch (e) {
		ok = e.message;
	}
	eq('script: joined, the files are one script', ok, true);
	check('script: under 600 lines a module', mods.every((f) =>
	    fs.readFileSync(path.join(SRC, '..', '..', f), 'utf8').split('\n').length <= 600), 'too long');
}

// ---- viewer_format ----

function format() {
	const view = { t0: 0, w: 2e6 };
	const F = load(['format']).viewerFormat(view);
	eq('format: fmt in the largest unit, 3 decimals', [0, 999, 1500, -2.5e9, 12345678].map(F.fmt),
	    ['0ns', '999ns', '1.500μs', '-2.500s', '12.346ms']);
	eq('format: fmt rounds into the next unit', F.fmt(999999.9996), '1.000ms');
	eq('format: fmtAt resolves a thousandth of the view', F.fmtAt(1.075016e9), '1.075016s');
	view.w = 1e10;
	eq('format: fmtAt, 3 decimals at least', F.fmtAt(1.075016e9), '1.075s');
	eq('format: epoch', [F.epoch([1700000000, 500000000], 2.5e6), F.epoch([1, 999999999], 2)],
	    ['1700000000.502500000', '2.000000001']);
	eq('format: typed durations', ['2ms', ' 1.5 us ', '.5s', '300', '3μs', '1sec', '5x', ''].map(F.parseDuration),
	    [2e6, 1500, 5e8, 300, 3000, 1e9, NaN, NaN]);
	eq('format: ticks, at most 10', [1, 15, 2.5e6, 1e7].map(F.tickStep), [1, 2, 5e5, 1e6]);
	eq('format: tick labels in their own unit', [F.tickLabel(1.1e9, 1e8), F.tickLabel(9e8, 1e8),
	    F.tickLabel(2500, 500), F.tickLabel(0, 1e8)], ['1.1s', '900ms', '2.5μs', '0ns']);
}

// ---- viewer_data ----

function data_() {
	const P = load(['data'], {});
	const plain = P.viewerData(docOf('plain.svg'));
	eq('data: the data block and span', [plain.data.statemaps.length, plain.span, plain.live, plain.detail],
	    [1, 10e6, null, null]);
	eq('data: no windows: the deepest zoom is 1/10000 of the span', [plain.windows.length, plain.minWidth],
	    [0, 1000]);
	eq('data: level 0 is the data block', [plain.level0.from, plain.level0.to, plain.level0.rows[0].length,
	    plain.level0.rows[0][0] === plain.data.statemaps[0].entities[0].rects], [0, 10e6, 3, true]);
	const d = P.viewerData(docOf('detail.svg'));
	const finest = Math.min.apply(null, d.windows.map((w) => w.to - w.from));
	check('data: --detail windows', d.windows.length > 1 && d.windows.every((w) => w.to > w.from), d.windows.length);
	eq('data: then the deepest is 1/10000 of the finest window', d.minWidth, Math.max(1, finest / 1e4));
	const top = d.windows.reduce((a, x) => Math.max(a, x.level), 0);
	const at = d.windows.filter((x) => x.level === top)[0];
	const w = d.windowFor(at.from + 10, at.from + 20);
	check('data: the finest window holding a view', w !== null && w.from <= at.from + 10 && w.to >= at.from + 20 &&
	    d.windows.every((x) => x.from > at.from + 10 || x.to < at.from + 20 || x.level <= w.level),
	    JSON.stringify(w && [w.level, w.from, w.to]));
	eq('data: none holding the whole', d.windowFor(0, d.span), null);
	const ans = d.windowAnswer(w);
	eq('data: a window\'s answer', [ans.from, ans.to, ans.level, ans.rows[0].length, ans.depths[0].length],
	    [w.from, w.to, w.level, 3, 3]);
	// A window of another shape is not used.
	const doc = docOf('detail.svg');
	const block = doc.getElementById('statemap-detail');
	const det = JSON.parse(block.textContent);
	det.windows[0].statemaps[0].entities.pop();
	block.textContent = JSON.stringify(det);
	eq('data: a window of another shape is left out', P.viewerData(doc).windows.length, d.windows.length - 1);
	const live = { api: '/api/statemap', token: 't', begin: 5, generation: 1 };
	const lv = load(['data'], {}).viewerData(docOf('plain.svg', live));
	eq('data: the live block, and 100ns the deepest', [lv.live, lv.minWidth], [live, 100]);
	const mine = { api: '/x' };
	eq('data: the live page\'s own link first', load(['data'], { statemapLive: mine })
	    .viewerData(docOf('plain.svg', live)).live, mine);
}

// ---- viewer_rows ----

function rows() {
	const P = load(['data', 'dom', 'format', 'rows'], {});
	const sv = standOn(P, docOf('plain.svg'));
	const m = sv.maps[0];
	eq('rows: a statemap where its <svg> is', [sv.maps.length, m.x, m.y, m.w, m.h, sv.X0, sv.W],
	    [1, 138, 70, 862, 30, 138, 862]);
	eq('rows: one row per entity, in order', m.rows.map((r) => r.name), ['t1', 't2', 't3']);
	eq('rows: exact (data-detail): every rectangle one transition', m.rows[0].rects.map((r) => r.n), [1, 1, 1]);
	eq('rows: ungrouped, a slot each', [m.grouped, m.slotted, m.nslots, m.rows.map((r) => r.slot)],
	    [false, false, 3, [0, 1, 2]]);
	eq('rows: its <svg> stretches', [m.svg.attrs.preserveAspectRatio, m.svg.classList.contains('statemap-map')],
	    ['none', true]);
	const rs = m.rows[0].rects;	// t1: run [0,1ms) wait [1,4ms) run [4,10ms)
	eq('rows: the rectangle at a time', [0, 999999, 1e6, 9999999, 1e7, -1].map((t) => sv.rectAt(m.rows[0], t)),
	    [0, 0, 1, 2, -1, -1]);
	eq('rows: the last starting by a time', [-1, 0, 1e6, 5e6].map((t) => sv.lastStartingBy(rs, t)), [-1, 0, 1, 2]);
	eq('rows: where a walk from a time begins', [-1, 5e6].map((t) => sv.firstFrom(rs, t)), [0, 2]);
	eq('rows: the main state', sv.mainState({ states: { a: 2, b: 5, c: 5 } }), 'b');

	const nc = standOn(load(['data', 'dom', 'format', 'rows'], {}), docOf('nocount.svg'));
	eq('rows: no counts (--detail 0), no n', nc.maps[0].rows[0].rects.map((r) => r.n), [undefined, undefined]);
	const det = standOn(load(['data', 'dom', 'format', 'rows'], {}), docOf('detail.svg'));
	check('rows: level 0\'s counts', det.maps[0].rows[1].rects.every((r) => r.n >= 1) &&
	    det.maps[0].rows[1].rects.some((r) => r.n > 1), JSON.stringify(det.maps[0].rows[1].rects.slice(0, 3)));

	// Two statemaps, one legend: the second shares the first's.
	const st = standOn(load(['data', 'dom', 'format', 'rows'], {}), docOf('stacked.svg'));
	eq('rows: stacked, one legend', st.maps.map((x) => [x.index, x.legend]), [[0, 0], [1, 0]]);
	eq('rows: the statemaps\' bottom', st.mapsBottom, st.maps[1].y + st.maps[1].h);

	// Groups: kinds.svg's names are paths (proc/12/thread/3, proc/12/mem ...).
	const k = standOn(load(['data', 'dom', 'format', 'rows'], {}), docOf('kinds.svg'));
	const km = k.maps[0];
	const slots = (x) => x.bySlot.map((r) => r.map ? r.name : r.depthOf ? r.depthOf.name + ' #' + (r.d + 1) :
	    r.group + '/');
	eq('rows: paths make groups, one header for a level of one level', slots(km),
	    ['cpu0', 'proc/12/', 'proc/12/mem', 'proc/12/name', 'proc/12/thread/', 'proc/12/thread/3', 'proc/12/thread/4']);
	eq('rows: headers indented by depth', km.heads.map((h) => [h.label, h.depth, h.n]),
	    [['proc/12', 0, 4], ['thread', 1, 2]]);
	km.folded.add('proc/12/thread');
	k.layoutRows(km);
	eq('rows: a folded group hides its rows', [slots(km), km.rows.map((r) => r.slot)],
	    [['cpu0', 'proc/12/', 'proc/12/mem', 'proc/12/name', 'proc/12/thread/'], [0, 2, 3, -1, -1]]);
	check('rows: and the strips keep their height', km.stripH === km.h / 7, km.stripH);
	km.folded.clear();
	const nested = km.rows.find((r) => r.kind === 'nested');
	check('rows: a nested entity has depth rows', k.hasDepths(nested), JSON.stringify(nested.depths));
	k.expanded.add(nested);
	k.layoutRows(km);
	const depths = nested.depths.map((x, i) => 'proc/12/thread/3 #' + (i + 1));
	eq('rows: expanded, they follow its strip', slots(km).slice(4),
	    ['proc/12/thread/', 'proc/12/thread/3'].concat(depths, ['proc/12/thread/4']));
	eq('rows: and the strips share the height', km.stripH, km.h / (7 + depths.length));

	// A tree made of names alone: deep paths, single levels merged.
	const t = { rows: ['a/x/1', 'b', 'a/x/2', 'a/y', 'p/q/r/s'].map((n, i) => ({ name: n, k: i })) };
	k.buildTree(t);
	const show = (items) => items.map((it) => it.path === undefined ? it.name :
	    [it.label, show(it.items)]);
	eq('rows: a tree of names', [t.nheads, show(t.tree)],
	    [3, [['a', [['x', ['a/x/1', 'a/x/2']], 'a/y']], 'b', ['p/q/r', ['p/q/r/s']]]]);
	// Escaped '/' (statemap-lua-format(5)): part of a component, never a level.
	const te = { rows: ['kworker\\/0:1/19', 'kworker\\/0:1/20', 'cpuhp\\/0', 'Files/a\\/b/bytes',
	    'w\\\\/x'].map((n, i) => ({ name: n, k: i })) };
	k.buildTree(te);
	eq('rows: an escaped / groups nothing', [te.nheads, show(te.tree)],
	    [3, [['kworker/0:1', ['kworker\\/0:1/19', 'kworker\\/0:1/20']], 'cpuhp\\/0',
	    ['Files/a/b', ['Files/a\\/b/bytes']], ['w\\', ['w\\\\/x']]]]);
	eq('rows: separators and names shown', [k.separators('a\\/b/c\\\\/d'), k.shownName('a\\/b\\\\c\\x')],
	    [[4, 8], 'a/b\\c\\x']);
	eq('rows: nothing drawn, no rows', load(['data', 'dom', 'format', 'rows'], {}).viewerRows(
	    Object.assign(standOnData(docOf('plain.svg')), { doc: { getElementById: () => null } })), null);
}

function standOnData(doc) {
	const sv = { doc: doc, root: doc.documentElement };
	return Object.assign(sv, load(['data'], {}).viewerData(doc));
}

// ---- viewer_source ----

// A stand-in window: fetch answers from `server` (a function of the URL:
// { status, body }, or a promise of it), and what the page did.
function windowFor(server) {
	const w = {
		devicePixelRatio: 1, asked: [], reloads: 0, replaced: null,
		location: { hash: '', reload: () => { w.reloads++; } },
		history: { replaceState: (a, b, url) => { w.replaced = url; } },
		requestAnimationFrame: (f) => setTimeout(f, 0),
		fetch: (url, opts) => {
			w.asked.push({ url: url, signal: opts.signal });
			return Promise.resolve(server(url)).then((r) => ({
				ok: r.status === 200, status: r.status, json: () => Promise.resolve(r.body) }));
		},
	};
	return w;
}

// The source alone on a document: the parts below it real, the others
// stood in for (their calls in calls).
function sourceOn(file, window, live) {
	const P = load(['data', 'dom', 'format', 'rows', 'source'], window);
	const sv = standOn(P, docOf(file, live));
	sv.page = { wide: true, scale: 1, width: sv.origWidth + 330 };
	sv.layer = sv.el('g', {});
	sv.dynStyle = { textContent: 'x' };
	const calls = standIns(sv, ['applyRows', 'buildEvents', 'rebuildEvents', 'search', 'markTags', 'fade',
	    'placeMaps', 'drawBars', 'drawPanel'], []);
	Object.assign(sv, P.viewerSource(sv));
	return { sv, calls };
}

async function until(f) {
	for (let i = 0; i < 400 && !f(); i++)
		await sleep(5);
	return f();
}

async function source() {
	// Embedded, no windows: nothing to ask.
	let { sv, calls } = sourceOn('nocount.svg', windowFor(() => null));
	sv.schedule();
	eq('source: no windows, nothing asked', [sv.pending(), calls.length], [false, 0]);
	sv.indicator();
	check('source: a file without counts: blends are merged', /^merged \(\d+ of \d+ rectangles blend states\)$/
	    .test(sv.indicatorText()), sv.indicatorText());

	// --detail: the finest window holding the view is painted.
	({ sv, calls } = sourceOn('detail.svg', windowFor(() => null)));
	const top = sv.windows.reduce((a, y) => Math.max(a, y.level), 0);
	const some = sv.windows.filter((x) => x.level === top)[0];
	sv.view.t0 = some.from + 1000;
	sv.view.w = 20000;
	const w = sv.windowFor(sv.view.t0, sv.view.t0 + sv.view.w);
	sv.schedule();
	check('source: a zoom asks, once the view settles', sv.pending(), 'not pending');
	await until(() => !sv.pending());
	const d = sv.drawn;
	eq('source: the finest window painted over the view', [d.canvas, d.level, d.answer.from, d.range.t0, d.range.w,
	    d.px], [true, top, w.from, some.from + 1000, 20000, 862]);
	check('source: its rows are the rows\' data', sv.maps[0].rows[1].rects === w.statemaps[0].entities[1].rects,
	    'other rectangles');
	eq('source: and the rest follows', calls.map((c) => c[0]),
	    ['applyRows', 'fade', 'placeMaps', 'drawBars', 'drawPanel']);
	eq('source: the indicator', sv.indicatorText(), 'exact');
	eq('source: answers counted', sv.timing.answers, 1);
	calls.length = 0;
	sv.schedule();
	eq('source: the same view is not asked again', [sv.pending(), calls.length], [false, 0]);
	// The whole: level 0 again, merged, and no finer window reaches all of it.
	sv.view.t0 = 0;
	sv.view.w = sv.span;
	sv.schedule(0);
	await until(() => !sv.pending());
	eq('source: back to level 0', [sv.drawn.level, sv.drawn.answer === sv.level0], [0, true]);
	check('source: merged, and where the detail ends', /^merged \(\d+ transitions in \d+ rectangles\)$/
	    .test(sv.indicatorText()), sv.indicatorText());

	// Live: each settled view asked of the server.
	const live = { api: '/api/statemap', token: 'a b', begin: 1000, generation: 1 };
	/* The server's documents: the data block's, each rectangle one transition. */
	const docs = JSON.parse(docOf('plain.svg').getElementById('statemap-data').textContent);
	docs.statemaps.forEach((sm) => sm.entities.forEach((e) => e.rects.forEach((r) => { r.n = 1; })));
	let status = 200, body = { statemaps: docs.statemaps, live: { generation: 1 } };
	let gate = Promise.resolve(), open;
	const win = windowFor(() => gate.then(() => ({ status: status, body: body })));
	({ sv, calls } = sourceOn('plain.svg', win, live));
	eq('source: live: the page\'s link, told of new generations', [sv.live.token, typeof sv.live.onchange],
	    ['a b', 'function']);
	sv.view.t0 = 2e6;
	sv.view.w = 4e6;
	gate = new Promise((r) => { open = r; });
	sv.schedule(0);
	await until(() => win.asked.length > 0);
	eq('source: loading meanwhile', [sv.pending(), sv.indicatorText()], [true, 'loading…']);
	open();
	await until(() => !sv.pending());
	eq('source: the question', win.asked[0].url, '/api/statemap?token=a%20b&begin=2001000&end=6001000&width=862');
	eq('source: the answer painted', [sv.drawn.answer.from, sv.drawn.answer.to, sv.drawn.canvas],
	    [2e6, 6e6, true]);
	eq('source: exactly', sv.indicatorText(), 'exact');
	// A newer question cancels the one still out.
	let release;
	const slow = new Promise((r) => { release = r; });
	const win2 = windowFor(() => slow.then(() => ({ status: 200, body: body })));
	({ sv, calls } = sourceOn('plain.svg', win2, Object.assign({}, live)));
	sv.schedule(0);
	await until(() => win2.asked.length === 1);
	sv.view.w = 5e6;
	sv.schedule(0);
	await until(() => win2.asked.length === 2);
	check('source: a newer question aborts the one out', win2.asked[0].signal.aborted &&
	    !win2.asked[1].signal.aborted, 'not aborted');
	release();
	await until(() => !sv.pending());
	eq('source: and only its answer is shown', [sv.timing.answers, sv.drawn.answer.to], [1, 5e6]);
	// Refused; an answer of another shape; a new generation.
	({ sv, calls } = sourceOn('plain.svg', win, Object.assign({}, live)));
	status = 403;
	sv.schedule(0);
	await until(() => !sv.pending());
	eq('source: refused', sv.indicatorText(), 'refused by the server (HTTP 403)');
	status = 200;
	body = { statemaps: [], live: { generation: 1 } };
	sv.view.w = 3e6;
	sv.schedule(0);
	await until(() => !sv.pending());
	eq('source: an answer that does not fit', sv.indicatorText(), 'the answer does not fit this page: reload it');
	body = { statemaps: [], live: { generation: 2 } };
	sv.view.t0 = 1e6;
	sv.schedule(0);
	await until(() => !sv.pending() && win.reloads > 0);
	eq('source: what is served changed: reloaded at the view', [win.reloads, win.replaced],
	    [1, '#view=1001000,4001000']);
	body = { statemaps: docs.statemaps, live: { generation: 2 } };
	const n = win.asked.length;
	sv.live.onchange(2);
	await until(() => !sv.pending() && win.asked.length > n);
	eq('source: a new generation of the same shape: asked again, events rebuilt',
	    [win.asked.length - n, calls.filter((c) => c[0] === 'buildEvents').length], [1, 1]);
	// A reload kept the view in the address.
	const win3 = windowFor(() => ({ status: 200, body: body }));
	win3.location.hash = '#view=3001000,3501000';
	({ sv } = sourceOn('plain.svg', win3, Object.assign({}, live)));
	eq('source: the view from the address', [sv.view.t0, sv.view.w], [3e6, 5e5]);
}

// ---- viewer_paint's colours ----

function paint() {
	// Against the SVG's own fills: merged rectangles blended (blend.svg),
	// value strings hashed (kinds.svg).
	for (const file of ['blend.svg', 'kinds.svg']) {
		const doc = docOf(file);
		const P = load(['data', 'dom', 'format', 'rows', 'paint'], {});
		const sv = standOn(P, doc);
		sv.fadeOf = () => 1;
		Object.assign(sv, P.viewerPaint(sv));
		const bad = [];
		let n = 0;
		sv.maps.forEach((m) => m.rows.forEach((row, k) => {
			if (row.kind === 'values' && row.rects.some((r) => typeof r.min === 'number'))
				return;	/* numbers are bars of one colour */
			row.rects.forEach((r, i) => {
				if (row.kind === 'values' && Object.keys(r.strings || {}).length === 0)
					return;	/* null: a bar of no height */
				n++;
				const want = doc.fills[m.index][k][i], got = hex(sv.rgbOf(m, r));
				if (got !== want)
					bad.push(row.name + ' ' + i + ': ' + got + ' for ' + want);
			});
		}));
		check('paint: each rectangle\'s colour is the SVG\'s (' + file + ')', bad.length === 0 && n >= 5,
		    n + ' rectangles; ' + bad.slice(0, 3).join('; '));
	}
	const P = load(['paint'], {});
	const sv = { doc: docOf('plain.svg'), maps: [], W: 862, drawn: {}, timing: {}, el: null, firstFrom: null };
	const C = P.viewerPaint(sv);
	eq('paint: colours as CSS writes them', ['#0a0B0c', 'rgb(1, 2, 3)', 'rgba(4,5,6,0.5)', 'red', ''].map(C.parseColor),
	    [[10, 11, 12], [1, 2, 3], [4, 5, 6], null, null]);
	eq('paint: a pixel\'s bytes are r, g, b, a', Array.from(new Uint8Array(new Uint32Array([C.pixelWord(1, 2, 3, 4)]).buffer)),
	    [1, 2, 3, 4]);
	eq('paint: values: one number, a range, nothing', [C.valueRgb({ min: 3, max: 3 }), C.valueRgb({ min: 1, max: 2 }),
	    C.valueRgb({ strings: {} })], [[0x3b, 0x6f, 0xb6], [0x86, 0xa9, 0xda], [235, 235, 235]]);
	eq('paint: strings: the one with the most time', C.valueRgb({ strings: { init: 1, other: 5 } }),
	    C.stringRgb('other'));
}

(async () => {
	for (const t of [script, format, data_, rows, source, paint]) {
		try {
			await t();
		} catch (e) {
			check(t.name.replace(/_$/, '') + ': runs', false, e.stack.split('\n').slice(0, 3).join(' '));
		}
	}
	process.exit(failures() === 0 ? 0 : 1);
})();
