// Where the viewer draws things, for the tests that click on strips by
// entity name (the slots the viewer reports: rows, group headers and
// depth rows), what its panel and depth rows show, and a page to test in.
'use strict';
const truth = require('./truth.js');

// Headless Chromium with one page, its console errors collected.
async function newPage(chromium) {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu']
	});
	const page = await browser.newPage({ viewport: { width: 1500, height: 700 } });
	const errors = [];
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push(e.message));
	return { browser, page, errors };
}

const texts = (page, sel) => page.$$eval(sel, (ts) => ts.map((t) => t.textContent));
const panel = (page) => texts(page, '#statemap-panel text');

// Page coordinates of own time `off` (ns) on the slot `name` of statemap 0.
function pointOn(page, name, off) {
	return page.evaluate(([n, o]) => {
		const svg = document.getElementById('statemap-0');
		const slots = window.statemapViewer.slots()[0];
		const v = window.statemapViewer.view();
		let root = svg;
		while (root.ownerSVGElement)
			root = root.ownerSVGElement;
		const pt = root.createSVGPoint();
		pt.x = +svg.getAttribute('x') + (o - v.t0) / v.width * +svg.getAttribute('width');
		pt.y = +svg.getAttribute('y') + (slots.indexOf(n) + 0.5) * window.statemapViewer.slotHeights()[0];
		const q = pt.matrixTransform(root.getScreenCTM());
		return { x: q.x, y: q.y };
	}, [name, off]);
}

async function clickOn(page, name, off) {
	const p = await pointOn(page, name, off);
	await page.mouse.click(p.x, p.y);
}

// The depth rows on screen: per depth, its rectangles' [x, width, fill].
const depthRows = (page) => page.$$eval('.statemap-depth-row', (gs) => gs.map((g) =>
    Array.from(g.getElementsByTagName('rect')).map((r) => [+r.getAttribute('x'),
	+r.getAttribute('width'), r.getAttribute('fill')])));

// Zooms to `span` (typed) around own time `off` clicked on slot `name`,
// and waits for the answer drawn after it.
async function zoomTo(page, name, off, span) {
	const n = (await page.evaluate(() => window.statemapViewer.timing())).answers;
	await clickOn(page, name, off);
	await page.keyboard.type(span);
	await page.keyboard.press('Enter');
	await page.waitForTimeout(0);
	await truth.settled(page, n);
}

module.exports = { newPage, texts, panel, pointOn, clickOn, depthRows, zoomTo };
