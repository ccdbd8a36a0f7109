// names.test.js: names that look like markup, and the path escape, in
// headless Chromium through playwright-core (test_names.sh makes the SVG
// and the server).
//
//   node names.test.js SVG URL ARTEFACTS
//
// names.out has g<b>&"x"/a\/b<i>&amp;"q" (described d<u>&lt;"/"), under
// the group g<b>&"x" with g<b>&"x"/c, and plain.  Clicking its row shows
// "Entity" and the whole name, escape and all, as text; its label reads
// the escape (a/b<i>&amp;"q"); its strip's tooltip has the whole name and
// description; no element named b, i or u appears anywhere.  Prints "PASS name" or "FAIL name: why".
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');
const truth = require('./truth.js');

const [svg, url, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('names');
const NAME = 'g<b>&"x"/a\\/b<i>&amp;"q"';

async function run(browser, what, where) {
	const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
	const errors = [];
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push(e.message));
	try {
		await page.goto(where);
		await page.waitForFunction(() => window.statemapViewer !== undefined, null, { timeout: 20000 });
		await truth.settled(page);
		const slot = await page.evaluate((n) => window.statemapViewer.slots()[0].indexOf(n), NAME);
		check(what + ': the row is there by its whole name', slot >= 0, String(slot));
		const p = await page.evaluate((s) => {
			const el = document.getElementById('statemap-0');
			const root = el.ownerSVGElement || document.documentElement;
			const pt = root.createSVGPoint();
			pt.x = +el.getAttribute('x') + 0.25 * +el.getAttribute('width');
			pt.y = +el.getAttribute('y') + (s + 0.5) * window.statemapViewer.slotHeights()[0];
			const q = pt.matrixTransform(root.getScreenCTM());
			return { x: q.x, y: q.y };
		}, slot);
		await page.mouse.click(p.x, p.y);
		const panel = await page.$$eval('#statemap-panel text', (ts) => ts.map((t) => t.textContent));
		check(what + ': the panel names it whole, as text', panel.includes('Entity ' + NAME),
		    JSON.stringify(panel));
		const label = await page.evaluate(() => {
			const t = Array.from(document.querySelectorAll('#statemap-labels-0 text')).find((x) =>
			    Array.from(x.childNodes).some((c) => c.nodeType === 3 && c.data.indexOf('a/b') >= 0));
			return t ? Array.from(t.childNodes).filter((c) => c.nodeType === 3).map((c) => c.data).join('') : null;
		});
		check(what + ': its label reads the escape', label !== null &&
		    label.endsWith('a/b<i>&amp;"q"'), JSON.stringify(label));
		const tips = await page.$$eval('#statemap-0 g[id^="statemap-0-entity-"] > title',
		    (ts) => ts.map((t) => t.textContent));
		check(what + ': its strip\'s tooltip has the whole name and description, as text',
		    tips.includes('Entity ' + NAME + ': d<u>&lt;"/"'), JSON.stringify(tips));
		eq(what + ': no markup from names anywhere',
		    await page.evaluate(() => document.querySelectorAll('b, i, u').length), 0);
		await page.screenshot({ path: path.join(artefacts, 'names-' + what + '.png') });
	} catch (e) {
		check(what, false, e.stack || String(e));
	}
	eq(what + ': no errors on the page', errors, []);
	await page.close();
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu'],
	});
	await run(browser, 'svg', 'file://' + svg);
	await run(browser, 'serve', url);
	await browser.close();
	process.exit(failures() > 0 ? 1 : 0);
})();
