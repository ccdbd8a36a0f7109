// arrows.test.js: message arrows of a merged, clock-aligned trace in
// headless Chromium through playwright-core (test_arrows.sh makes the
// files and the server).
//
//   node arrows.test.js DIR URL ARTEFACTS
//
// DIR/render.svg (render{interactive = true}), DIR/classic.svg (the
// command's SVG of the merged trace) and URL (--serve of it) each draw
// two message arrows: n1/a to n2/b and back (rows under their nodes'
// headers), each 1ms
// long on the aligned clock, at any zoom.  Prints "PASS name" or
// "FAIL name: why".
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');
const truth = require('./truth.js');

const [dir, url, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('arrows');

// Each message arrow: its length in µs, and the rows of its two ends.
const arrows = (page) => page.$$eval('.statemap-event-message', (ls) => {
	const svg = document.getElementById('statemap-0');
	const v = window.statemapViewer.view();
	const W = +svg.getAttribute('width'), y = +svg.getAttribute('y');
	const h = window.statemapViewer.slotHeights()[0], slots = window.statemapViewer.slots()[0];
	const row = (at) => slots[Math.floor((at - y) / h)];
	return ls.map((l) => [Math.round((+l.getAttribute('x2') - +l.getAttribute('x1')) / W * v.width / 1e3),
	    row(+l.getAttribute('y1')), row(+l.getAttribute('y2'))]);
}).then((a) => a.sort());

async function run(browser, name, where) {
	const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
	const errors = [];
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push(e.message));
	try {
		await page.goto(where);
		await page.waitForFunction(() => window.statemapViewer !== undefined, null, { timeout: 20000 });
		await truth.settled(page);
		eq(name + ': two arrows, 1ms each, a to b and b to a', await arrows(page),
		    [[1000, 'n1/a', 'n2/b'], [1000, 'n2/b', 'n1/a']]);
		await page.keyboard.press('+');
		await truth.settled(page);
		eq(name + ': zoomed in, still 1ms each', (await arrows(page)).map((a) => a[0]), [1000, 1000]);
		eq(name + ': no vertical arrow of its own for a matched send',
		    (await page.$$('.statemap-event-arrow')).length, 2);
		await page.screenshot({ path: path.join(artefacts, 'arrows-' + name + '.png') });
	} catch (e) {
		check(name, false, e.stack || String(e));
	}
	eq(name + ': no errors on the page', errors, []);
	await page.close();
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu'],
	});
	await run(browser, 'render', 'file://' + path.join(dir, 'render.svg'));
	await run(browser, 'classic', 'file://' + path.join(dir, 'classic.svg'));
	await run(browser, 'serve', url);
	await browser.close();
	process.exit(failures() > 0 ? 1 : 0);
})();
