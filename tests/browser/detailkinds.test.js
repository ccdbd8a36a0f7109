// detailkinds.test.js: the offline SVG's finer windows (--detail) for a
// value entity and a nested one (test_detailkinds.sh draws the trace it
// describes) in headless Chromium through playwright-core.
//
//   node detailkinds.test.js SVG ARTEFACTS
//
// Rows: cpu, gauge (value 2i+1 over [i us, i+1 us)), worker (nested:
// idle; a pushed at every 5us, b from +1.5us to +3us, a popped at +4us).
// Level 0 (-c 600) merges values, states and depth rows; the windows
// are exact at 30us.
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');
const truth = require('./truth.js');

const [file, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('detailkinds');

const { newPage, panel, clickOn, depthRows, zoomTo } = require('./strips.js');
const viewer = (page, what) => page.evaluate((w) => window.statemapViewer[w](), what);

(async () => {
	const { browser, page, errors } = await newPage(chromium);
	try {
		await page.goto('file://' + file);
		await page.waitForFunction(() => window.statemapViewer !== undefined, null, { timeout: 20000 });
		await truth.settled(page);
		eq('the file\'s windows are a source', await viewer(page, 'source'), 'detail');
		const kinds = await page.evaluate(() => {
			const d = JSON.parse(document.getElementById('statemap-detail').textContent);
			const ents = d.windows.map((w) => w.statemaps[0].entities);
			return {
				windows: d.windows.length,
				values: ents.every((es) => es[1].kind === 'values' && es[1].rects.every((r) => r.n >= 1)),
				nested: ents.every((es) => es[2].kind === 'nested' && Array.isArray(es[2].depths)),
				plain: ents.every((es) => es[0].kind === undefined && es[0].depths === undefined)
			};
		});
		check('windows carry value rectangles (with n) and depth rows', kinds.windows > 0 && kinds.values &&
		    kinds.nested && kinds.plain, JSON.stringify(kinds));
		await clickOn(page, 'gauge', 2000500);
		let p = await panel(page);
		check('the whole trace: a merged value', p.includes('merged values:') &&
		    p.some((l) => /^min \d+, max \d+, mean [0-9.]+$/.test(l)), JSON.stringify(p));
		await clickOn(page, 'worker', 2000500);
		await page.click('.statemap-depth-toggle');
		const whole = await depthRows(page);
		eq('three depth rows', whole.length, 3);
		// 30us around 2ms: drawn from a window, each value exact.
		await zoomTo(page, 'cpu', 2000000, '30us');
		const d = await viewer(page, 'drawn');
		check('zoomed in: a window is painted', d.painted && d.level > 0, JSON.stringify([d.level, d.painted]));
		eq('exactly', await viewer(page, 'indicator'), 'exact');
		for (const i of [1990, 2000, 2011]) {
			await clickOn(page, 'gauge', i * 1000 + 500);
			eq('a clicked value at ' + i + 'us', (await panel(page)).filter((l) => /^value: /.test(l)),
			    ['value: ' + (2 * i + 1)]);
		}
		await clickOn(page, 'worker', 2002000);
		p = await panel(page);
		check('the stack at 2002us', p.includes('state: b') && p.includes('stack: idle › a › b'),
		    JSON.stringify(p));
		const rows = await depthRows(page);
		eq('three depth rows in the window', rows.length, 3);
		// From the window (level 0's depth rows are merged): 6 cycles in
		// 30us, each its own rectangle of a (4us) and b (1.5us).
		eq('depth 1: one rectangle', rows[0].length, 1);
		check('depth 2: one rectangle per cycle', rows[1].length >= 6 && rows[1].length <= 7,
		    rows[1].length);
		check('depth 3: one rectangle per cycle', rows[2].length >= 6 && rows[2].length <= 7,
		    rows[2].length);
		const inner = (rs) => rs.slice(1, -1).map((r) => r[1]);
		const w2 = inner(rows[1]), w3 = inner(rows[2]);
		const rel = (a, b) => Math.abs(a / b - 1) < 0.02;
		check('a lasts 4us, b 1.5us, in every cycle', w2.length > 2 && w3.length > 2 &&
		    w2.every((w) => rel(w / w3[0], 4 / 1.5)) && w3.every((w) => rel(w, w3[0])),
		    JSON.stringify([w2, w3]));
		const fills = rows.map((rs) => Array.from(new Set(rs.map((r) => r[2]))));
		eq('in their states\' colours', fills, [['rgb(224,224,224)'], ['rgb(46,125,50)'], ['rgb(198,40,40)']]);
		await clickOn(page, 'worker #3', 2002000);
		p = await panel(page);
		check('a click on depth 3 says its state', p.includes('Entity worker') && p.includes('depth 3: b'),
		    JSON.stringify(p));
		await page.screenshot({ path: path.join(artefacts, 'detailkinds.png') }).catch(() => {});
		// Back out to the whole trace: level 0's depth rows again.
		await page.keyboard.press('Escape');
		await zoomTo(page, 'cpu', 2000000, '4ms');
		const back = await depthRows(page);
		const level0 = await page.evaluate(() => JSON.parse(document.getElementById('statemap-data')
		    .textContent).statemaps[0].entities[2].depths.map((rs) => rs.length));
		eq('zoomed out: level 0\'s depth rows', back.map((rs) => rs.length), level0);
	} catch (e) {
		check('runs', false, e.message.split('\n')[0]);
	}
	eq('no console errors', errors, []);
	await browser.close();
	process.exit(failures() === 0 ? 0 : 1);
})();
