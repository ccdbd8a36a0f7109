// bench/viewer.js SVG: times the viewer's interactions on SVG in headless
// Chromium, RUNS fresh pages, and prints the median of each (bench/viewer
// runs it on the largest default output).  Each interaction is an event
// dispatched in the page, as a user's would arrive: timed are its
// handlers, and the time until the next frame is out.
'use strict';
const path = require('path');
const { chromium } = require(path.join(__dirname, '..', 'tests', 'browser', 'node_modules',
    'playwright-core'));

const svg = path.resolve(process.argv[2]);
const RUNS = Math.max(1, Number(process.env.RUNS) || 5);

// In the page: runs act (which dispatches events) and resolves to [the
// handlers' time, the time until the frame after them is out], in ms.
function timed(act) {
	return new Promise((resolve) => {
		const t0 = performance.now();
		act();
		const t1 = performance.now();
		requestAnimationFrame(() => setTimeout(() => resolve([t1 - t0, performance.now() - t0]), 0));
	});
}

// The interactions, in order, each an event dispatched in the page (a
// function run there, with timed() and its argument).
const steps = [
	['zoom button (+)', () => timed(() =>
	    document.getElementById('statemap-zoomin').dispatchEvent(new MouseEvent('click', { bubbles: true })))],
	['pan button (▶)', () => timed(() =>
	    document.getElementById('statemap-panright').dispatchEvent(new MouseEvent('click', { bubbles: true })))],
	// A press and release in the middle of row 500, in the view's middle.
	['click on a strip (time bar, panel)', () => {
		const svg = document.getElementById('statemap-0'), root = document.documentElement;
		const rows = Array.from(svg.children).filter((c) => c.tagName === 'g').length;
		const pt = root.createSVGPoint();
		pt.x = +svg.getAttribute('x') + +svg.getAttribute('width') / 2;
		pt.y = +svg.getAttribute('y') + 500.5 * +svg.getAttribute('height') / rows;
		const q = pt.matrixTransform(root.getScreenCTM());
		const at = { button: 0, clientX: q.x, clientY: q.y, bubbles: true };
		return timed(() => {
			svg.dispatchEvent(new MouseEvent('mousedown', at));
			window.dispatchEvent(new MouseEvent('mouseup', at));
		});
	}],
	['state selected in the legend', () => timed(() =>
	    document.getElementById('statemap-legend-0-0').dispatchEvent(new MouseEvent('click', { bubbles: true })))],
	// "1ms" typed, then Enter (timed).
	['typed zoom to 1ms (Enter)', () => {
		const key = (k) => document.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
		['1', 'm', 's'].forEach(key);
		return timed(() => key('Enter'));
	}],
];

const median = (xs) => xs.slice().sort((a, b) => a - b)[(xs.length - 1) >> 1];

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu'],
	});
	const open = [], times = steps.map(() => []);
	let rects = 0, entities = 0;
	for (let run = 0; run < RUNS; run++) {
		const page = await browser.newPage({ viewport: { width: 1500, height: 700 } });
		const errors = [];
		page.on('pageerror', (e) => errors.push(e.message));
		const t = Date.now();
		await page.goto('file://' + svg);
		await page.waitForFunction(() => window.statemapViewer !== undefined, null, { timeout: 60000 });
		open.push(Date.now() - t);
		[rects, entities] = await page.evaluate(() => [document.querySelectorAll('.statemap-map g > rect').length,
		    window.statemapViewer.slots()[0].length]);
		for (let i = 0; i < steps.length; i++)
			times[i].push(await page.evaluate('(() => { const timed = ' + timed.toString() +
			    '; return (' + steps[i][1].toString() + ')(); })()'));
		if (errors.length > 0)
			throw new Error('the page failed: ' + errors[0]);
		await page.close();
	}
	await browser.close();
	const row = (name, a, b) => console.log(name.padEnd(40) + a.padStart(12) + b.padStart(12));
	console.log('The SVG viewer in Chromium: ' + entities + ' entities, ' + rects +
	    ' rectangles; median of ' + RUNS + ' pages (bench/viewer):');
	row('', 'handlers', 'on screen');
	row('open the page (to the viewer\'s start)', '', median(open).toFixed(1) + ' ms');
	steps.forEach((s, i) => row(s[0], median(times[i].map((x) => x[0])).toFixed(1) + ' ms',
	    median(times[i].map((x) => x[1])).toFixed(1) + ' ms'));
})().catch((e) => {
	console.error('bench/viewer: ' + e.message.split('\n')[0]);
	process.exit(1);
});
