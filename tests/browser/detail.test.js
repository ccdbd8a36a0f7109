// detail.test.js: the offline SVG's finer windows (--detail) in headless
// Chromium through playwright-core.
//
//   node detail.test.js SM DIR ARTEFACTS
//
// Writes into DIR a trace whose every transition it knows (four threads,
// 4000 transitions over 100 ms) and draws it with SM -c 300 three ways:
// with the default detail, with --detail 40K (which runs out), and with
// --detail 0; and plain.out (whose level 0 is exact).  From file://, it
// checks the indicator at the whole trace, that zooming in draws finer
// rectangles than level 0 (exactly the trace's, deep enough), that the
// indicator says where the detail runs out, and that a file without
// detail still says what it can.  Prints "PASS name" or "FAIL name: why".
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { chromium } = require('playwright-core');
const truth = require('./truth.js');

const [sm, dir, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('detail');

function writeTrace(file) {
	let x = 5;
	const next = () => (x = (x * 16807) % 2147483647);
	const lines = ['{"start": [1700000000, 0], "title": "detail", "states": {"run": {"value": 0, ' +
	    '"color": "#2ca02c"}, "wait": {"value": 1, "color": "#d62728"}, "idle": {"value": 2, ' +
	    '"color": "#4060c0"}}}'];
	const at = [0, 0, 0, 0];
	for (let i = 0; i < 4000; i++) {
		const e = next() % 4;
		at[e] += 1 + next() % 200000;
		lines.push({ t: at[e], e: e, s: next() % 3 });
	}
	const data = lines.slice(1).sort((a, b) => a.t - b.t || a.e - b.e);
	fs.writeFileSync(file, [lines[0]].concat(data.map((d) => '{"time": "' + d.t + '", "entity": "d' +
	    d.e + '", "state": ' + d.s + '}')).join('\n') + '\n');
}

const viewer = (page, what) => page.evaluate((w) => window.statemapViewer[w](), what);

async function open(browser, file) {
	const page = await browser.newPage({ viewport: { width: 1500, height: 700 } });
	page.errors = [];
	page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
	page.on('pageerror', (e) => page.errors.push(e.message));
	await page.goto('file://' + file);
	await page.waitForFunction(() => window.statemapViewer !== undefined, null, { timeout: 10000 });
	await truth.settled(page);
	return page;
}

// A click at offset `off` on row 0: the time bar, and the panel.
async function clickAt(page, off) {
	const p = await page.evaluate((o) => {
		const svg = document.getElementById('statemap-0'), v = window.statemapViewer.view();
		const root = document.documentElement, pt = root.createSVGPoint();
		pt.x = +svg.getAttribute('x') + (o - v.t0) / v.width * +svg.getAttribute('width');
		pt.y = +svg.getAttribute('y') + 5;
		const q = pt.matrixTransform(root.getScreenCTM());
		return { x: q.x, y: q.y };
	}, off);
	await page.mouse.click(p.x, p.y);
}

// Zooms to `span` (typed) around offset `off`, and waits for what follows.
async function zoomTo(page, off, span) {
	const n = (await viewer(page, 'timing')).answers;
	await clickAt(page, off);
	await page.keyboard.type(span);
	await page.keyboard.press('Enter');
	/* Only painting counts as an answer: a view level 0 serves may not. */
	await page.waitForTimeout(0);
	await truth.settled(page);
	return n;
}

// Level 0's rectangles of row k in the view (the data block's).
const level0 = (page, k) => page.evaluate((k) => {
	const v = window.statemapViewer.view();
	const sm = JSON.parse(document.getElementById('statemap-data').textContent).statemaps[0];
	return sm.entities[k].rects.filter((r) => r.start < sm.begin + v.t0 + v.width &&
	    r.start + r.duration > sm.begin + v.t0).length;
}, k);

(async () => {
	const trace = path.join(dir, 'detail.out');
	writeTrace(trace);
	const t = truth.parse(fs.readFileSync(trace, 'utf8'));
	const svg = (name, args) => {
		const out = path.join(dir, name + '.svg');
		execFileSync(sm, ['-c', '300'].concat(args, ['-o', out, trace]), { stdio: 'ignore' });
		return out;
	};
	const full = svg('full', []), small = svg('small', ['--detail', '40K']), zero = svg('zero', ['--detail', '0']);
	const plain = path.join(dir, 'plain.svg');
	execFileSync(sm, ['-o', plain, path.join(__dirname, 'plain.out')], { stdio: 'ignore' });
	const rows = ['d0', 'd1', 'd2', 'd3'];
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu']
	});
	const pages = [];
	try {
		// The default detail: finer windows, down to every transition.
		const page = await open(browser, full);
		pages.push(page);
		eq('with --detail: the file\'s windows are a source', await viewer(page, 'source'), 'detail');
		const all = truth.count(t, 0, t.end);
		const m0 = await page.evaluate(() => JSON.parse(document.getElementById('statemap-data')
		    .textContent).statemaps[0].entities.reduce((a, e) => a + e.rects.length, 0));
		eq('the whole trace: merged, every transition counted (level 0\'s counts)',
		    await viewer(page, 'indicator'), 'merged (' + all + ' transitions in ' + m0 + ' rectangles)');
		eq('drawn by the SVG itself', (await viewer(page, 'drawn')).painted, false);
		await zoomTo(page, t.end / 2, '200us');
		const d = await viewer(page, 'drawn');
		check('200 us in: a window is painted', d.painted && d.level > 0, JSON.stringify([d.level, d.painted]));
		const finer = d.statemaps[0].reduce((a, r) => a + r.length, 0);
		let coarse = 0;
		for (let k = 0; k < 4; k++)
			coarse += await level0(page, k);
		check('finer than level 0', finer > coarse, finer + ' rectangles against level 0\'s ' + coarse);
		eq('exactly the trace\'s transitions', truth.compare(t, d, rows, 0, await viewer(page, 'view')), []);
		eq('and the indicator says exact', await viewer(page, 'indicator'), 'exact');
		const px = await truth.pixels(page, 0, await truth.legendColors(page));
		eq('painted in the states\' colours', px.bad, []);
		check('(sampled)', px.sampled > 0, px.sampled);
		// A click reads the window's data.
		const r = d.statemaps[0][0][0];
		const off = Math.max(r.start, (await viewer(page, 'view')).t0) + 1;
		await page.keyboard.press('Escape');
		await clickAt(page, off);
		const p = await page.$$eval('#statemap-panel text', (ts) => ts.map((x) => x.textContent));
		check('a click shows the window\'s rectangle', p.includes('state: ' + Object.keys(r.states)[0]),
		    JSON.stringify(p));
		await page.screenshot({ path: path.join(artefacts, 'detail-deep.png') });

		// --detail 40K runs out: where no window reaches, the indicator says so.
		const sp = await open(browser, small);
		pages.push(sp);
		const where = await sp.evaluate(() => {
			const d = JSON.parse(document.getElementById('statemap-detail').textContent);
			const span = window.statemapViewer.view().span, w = span / 64;
			const outside = [];
			for (let k = 0; k < 64; k++) {
				const a = k * w, b = a + w;
				if (!d.windows.some((x) => x.from < b && x.to > a))
					outside.push(a + w / 2);
			}
			return { outside: outside, windows: d.windows.length, span: span };
		});
		check('40K: some windows, not everywhere', where.windows > 0 && where.outside.length > 0,
		    JSON.stringify([where.windows, where.outside.length]));
		const dur = (ns) => Math.round(ns / 1000) + 'us';
		await zoomTo(sp, where.outside[0], dur(where.span / 64));
		const ind = await viewer(sp, 'indicator');
		check('40K, away from the windows: "detail ends here"',
		    /^merged \(\d+ transitions in \d+ rectangles\); detail ends here: merged below [0-9.]+(ns|μs|ms|s)$/
		    .test(ind), ind);
		await sp.screenshot({ path: path.join(artefacts, 'detail-ends.png') });
		await sp.keyboard.press('Escape');
		await sp.keyboard.type(dur(where.span * 2));	/* back to the whole */
		await sp.keyboard.press('Enter');
		await truth.settled(sp);
		const win = await sp.evaluate(() => JSON.parse(document.getElementById('statemap-detail')
		    .textContent).windows.map((w) => [w.from, w.to])[0]);
		await zoomTo(sp, (win[0] + win[1]) / 2, dur((win[1] - win[0]) / 4));
		const ds = await viewer(sp, 'drawn');
		check('40K, inside a window: it is painted', ds.painted && ds.level > 0, JSON.stringify([ds.level]));

		// --detail 0: no counts; the indicator says what it knows.
		const zp = await open(browser, zero);
		pages.push(zp);
		eq('--detail 0: the data block only', await viewer(zp, 'source'), 'embedded');
		check('--detail 0: merged rectangles are those that blend states',
		    /^merged \(\d+ of \d+ rectangles blend states\)$/.test(await viewer(zp, 'indicator')),
		    await viewer(zp, 'indicator'));
		await zoomTo(zp, t.end / 2, '1ms');
		eq('--detail 0: zooming draws with the SVG\'s own rectangles', (await viewer(zp, 'drawn')).painted, false);

		// An exact level 0 (plain.out): data-detail="exact".
		const pp = await open(browser, plain);
		pages.push(pp);
		eq('an exact file says so', await viewer(pp, 'indicator'), 'exact');
	} catch (e) {
		check('runs', false, e.message.split('\n')[0]);
	}
	for (const p of pages)
		eq('no console errors (' + pages.indexOf(p) + ')', p.errors, []);
	await browser.close();
	process.exit(failures() === 0 ? 0 : 1);
})();
