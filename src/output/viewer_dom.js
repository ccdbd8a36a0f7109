/*
 * viewer_dom.js: making SVG elements and text.  Every string from the
 * trace reaches the page through textContent or setAttribute, never
 * through markup, and these are how.
 *
 *   viewerDom(doc) -> { el, text, clear }
 */
function viewerDom(doc) {
	const SVGNS = 'http://www.w3.org/2000/svg';

	/* An SVG element with these attributes, appended to parent if given. */
	function el(name, attrs, parent) {
		const e = doc.createElementNS(SVGNS, name);
		for (const k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	/* A text element of the viewer's font, its class plus cls if given. */
	function text(parent, x, y, str, cls) {
		const t = el('text', { x: x, y: y }, parent);
		t.setAttribute('class', 'statemap-viewer-text' + (cls ? ' ' + cls : ''));
		t.textContent = str;
		return t;
	}

	function clear(node) {
		while (node.firstChild)
			node.removeChild(node.firstChild);
	}

	return { el: el, text: text, clear: clear };
}
