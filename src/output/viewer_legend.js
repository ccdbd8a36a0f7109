/*
 * viewer_legend.js: the legend and what it selects.  Each legend entry
 * gets a count of the entities in its state at the time bar; a click on
 * one selects its state (shift adds one), a tag value can be highlighted
 * across entities and statemaps, and whatever is not selected fades; the
 * time in each tag value, over the view or at the time bar, for the
 * panel.
 *
 *   viewerLegend(sv) -> { drawCounts, selectState, fade, fadeOf,
 *       selectTag, markTags, tagValue, stateName, inStates, tagTimes,
 *       sameNames, legendGroup }
 *   from sv: doc, root, maps, view, bars, sel, drawn, layer, dynStyle,
 *       el, text, rectAt, mainState; calls drawPanel, paint
 */
function viewerLegend(sv) {
	const doc = sv.doc, root = sv.root, maps = sv.maps;
	const view = sv.view, bars = sv.bars, sel = sv.sel, drawn = sv.drawn;
	const layer = sv.layer, dynStyle = sv.dynStyle, el = sv.el, text = sv.text;
	const rectAt = sv.rectAt, mainState = sv.mainState;

	/* ---- counts at the selected time, state selection ---- */

	const legends = new Map();	/* legend owner -> [{rect, count text}] */
	maps.forEach(function (m) {
		if (m.legend !== m.index)
			return;
		const items = [];
		m.json.states.forEach(function (st, s) {
			const r = doc.getElementById('statemap-legend-' + m.index + '-' + s);
			if (!r)
				return;
			const cx = +r.getAttribute('x') + +r.getAttribute('width') / 2;
			const bg = el('rect', { class: 'statemap-legend-countbg', rx: 2,
			    y: +r.getAttribute('y') + 2, height: 11, visibility: 'hidden' }, layer);
			const c = text(layer, cx, +r.getAttribute('y') + 11, '', 'statemap-legend-count');
			c.setAttribute('text-anchor', 'middle');
			items.push({ rect: r, count: c, bg: bg, name: st.name });
			const pick = function (ev) {
				ev.stopPropagation();
				selectState(m.index, s, ev.shiftKey);
			};
			/* No text selection on a shift-click. */
			const nosel = function (ev) {
				if (ev.shiftKey)
					ev.preventDefault();
			};
			r.addEventListener('click', pick);
			r.addEventListener('mousedown', nosel);
			const label = r.nextElementSibling;
			if (label && label.tagName === 'text') {
				label.addEventListener('click', pick);
				label.addEventListener('mousedown', nosel);
			}
		});
		legends.set(m.index, items);
	});

	function drawCounts() {
		legends.forEach(function (items, owner) {
			const group = legendGroup(owner);
			const counts = new Map();
			let total = 0;
			if (bars.length > 0) {
				group.forEach(function (m) {
					m.rows.forEach(function (row) {
						total++;
						const i = rectAt(row, m.json.begin + bars[0]);
						if (i < 0)
							return;
						const s = mainState(row.rects[i]);
						counts.set(s, (counts.get(s) || 0) + 1);
					});
				});
			}
			items.forEach(function (it) {
				if (bars.length === 0) {
					it.count.textContent = '';
					it.bg.setAttribute('visibility', 'hidden');
					return;
				}
				const n = counts.get(it.name) || 0;
				it.count.textContent = n + ' (' + (total > 0 ? (100 * n / total).toFixed(1) : '0.0') + '%)';
				/* A light pill behind the count keeps it readable on any colour. */
				const w = it.count.getComputedTextLength() + 6;
				it.bg.setAttribute('x', +it.count.getAttribute('x') - w / 2);
				it.bg.setAttribute('width', w);
				it.bg.setAttribute('visibility', 'visible');
			});
		});
	}

	let classified = false;

	/* Classes naming each rectangle's states, so a selection is one CSS rule. */
	function classifyRects() {
		classified = true;
		if (drawn.canvas)
			return;
		maps.forEach(function (m) {
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				if (!g)
					return;
				const rs = g.getElementsByTagName('rect');
				for (let i = 0; i < rs.length && i < row.rects.length; i++) {
					const cls = [];
					for (const s in row.rects[i].states)
						cls.push('sm-s' + m.stateIndex.get(s));
					rs[i].setAttribute('class', cls.join(' '));
				}
			});
		});
	}

	/*
	 * A click on a legend entry selects its state alone, or clears the
	 * selection if that was it; a shift-click adds the state to the
	 * selection or takes it out, so that several states stay bright.
	 */
	function selectState(owner, s, add) {
		const name = legendGroup(owner)[0].json.states[s].name;
		if (sel.state && sel.state.legend === owner && add) {
			const i = sel.state.states.indexOf(s);
			if (i >= 0) {
				sel.state.states.splice(i, 1);
				sel.state.names.splice(i, 1);
			} else {
				sel.state.states.push(s);
				sel.state.names.push(name);
			}
			if (sel.state.states.length === 0)
				sel.state = null;
		} else if (sel.state && sel.state.legend === owner && sel.state.states.length === 1 &&
		    sel.state.states[0] === s) {
			sel.state = null;
		} else {
			sel.state = { legend: owner, states: [s], names: [name], field: null };
		}
		legends.forEach(function (items, o) {
			items.forEach(function (it, k) {
				it.rect.classList.toggle('statemap-legend-selected',
				    sel.state !== null && sel.state.legend === o && sel.state.states.indexOf(k) >= 0);
			});
		});
		fade();
		sv.drawPanel();
	}

	/*
	 * What fades: with a tag value highlighted, every rectangle without
	 * it; else, with states selected, every rectangle with none of them.
	 * The no-data hatch turns white meanwhile, so faded rectangles do not
	 * look like missing data.
	 */
	function fade() {
		let css = '';
		if (drawn.canvas) {
			/* Painted: sv.paint() asks fadeOf of each rectangle. */
		} else if (sel.tag) {
			maps.forEach(function (m) {
				css += '#statemap-' + m.index + ' g > rect:not(.sm-tag) { opacity: 0.12; }\n';
			});
		} else if (sel.state) {
			if (!classified)
				classifyRects();
			maps.forEach(function (m) {
				if (m.legend !== sel.state.legend)
					return;
				const not = sel.state.names.map(function (n) {
					return ':not(.sm-s' + m.stateIndex.get(n) + ')';
				}).join('');
				css += '#statemap-' + m.index + ' g > rect' + not + ' { opacity: 0.15; }\n';
			});
		}
		dynStyle.textContent = css;
		root.classList.toggle('statemap-fading', css !== '' || (drawn.canvas && (sel.tag !== null ||
		    sel.state !== null)));
		if (drawn.canvas)
			sv.paint();
	}

	/* How opaque a painted rectangle is under the selection, as fade() makes them. */
	function fadeOf(m, r) {
		if (sel.tag) {
			const hit = sel.tag.hit.get(m);
			if (hit && hit.size > 0) {
				for (const id in r.tags) {
					if (hit.has(id) && r.tags[id] > 0)
						return 1;
				}
			}
			return 0.12;
		}
		if (sel.state && m.legend === sel.state.legend) {
			for (const n of sel.state.names) {
				if (r.states && r.states[n] > 0)
					return 1;
			}
			return 0.15;
		}
		return 1;
	}

	/*
	 * Highlights every rectangle that has time with a tag whose `field` is
	 * `value`, in one of `states`, across entities and statemaps (merged
	 * rectangles count if any of their tags has it); the same again
	 * clears it.
	 */
	function selectTag(field, value, states) {
		if (sel.tag && sel.tag.field === field && sel.tag.value === value &&
		    sameNames(sel.tag.states, states)) {
			sel.tag = null;
		} else {
			sel.tag = { field: field, value: value, states: states.slice(),
			    stats: { rects: 0, rows: 0, time: 0 }, hit: new Map() };
		}
		markTags();
		fade();
		sv.drawPanel();
	}

	/*
	 * The tags with the highlighted value (per statemap), and the
	 * rectangles with time in them: counted, and marked when the SVG
	 * draws them (after new data too).
	 */
	function markTags() {
		const stats = sel.tag ? sel.tag.stats : null;
		if (stats) {
			stats.rects = stats.rows = stats.time = 0;
			sel.tag.hit.clear();
		}
		maps.forEach(function (m) {
			const hit = new Set();
			if (sel.tag) {
				m.json.tags.forEach(function (tag, id) {
					if (inStates(m, tag, sel.tag.states) && tagValue(tag, sel.tag.field) === sel.tag.value)
						hit.add(String(id));
				});
				sel.tag.hit.set(m, hit);
			}
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				const rs = g && !drawn.canvas ? g.getElementsByTagName('rect') : [];
				let any = false;
				for (let i = 0; i < row.rects.length; i++) {
					let t = 0;
					if (hit.size > 0) {
						for (const id in row.rects[i].tags) {
							if (hit.has(id))
								t += row.rects[i].tags[id];
						}
					}
					if (t > 0) {
						any = true;
						stats.rects++;
						stats.time += t;
					}
					if (rs[i])
						rs[i].classList.toggle('sm-tag', t > 0);
				}
				if (any)
					stats.rows++;
			});
		});
	}

	/* ---- tag values ---- */

	/*
	 * A tag's value for a field as text, or null if it has none: the tag
	 * itself ("tag"), or a member of its definition.
	 */
	function tagValue(tag, field) {
		if (field === 'tag')
			return tag.tag;
		if (!(field in tag.members))
			return null;
		const v = tag.members[field];
		return typeof v === 'string' ? v : JSON.stringify(v);
	}

	function stateName(m, tag) {
		return m.json.states[tag.state] ? m.json.states[tag.state].name : String(tag.state);
	}

	/* The states a tag must be in to count: the selected ones. */
	function inStates(m, tag, names) {
		return names.indexOf(stateName(m, tag)) >= 0;
	}

	/*
	 * Time in each value of a tag field, over the rectangles under the time
	 * bar if there is one, else over the visible span (prorated), largest
	 * first; of the given rows (all of the group's if none).
	 */
	function tagTimes(group, field, names, rows) {
		const acc = new Map();
		function add(m, rect, frac) {
			for (const id in rect.tags) {
				const tag = m.json.tags[+id];
				if (!tag || !inStates(m, tag, names))
					continue;
				const value = tagValue(tag, field);
				const v = value === null ? '(none)' : value;
				acc.set(v, (acc.get(v) || 0) + rect.tags[id] * frac);
			}
		}
		function addRow(m, row) {
			const b = m.json.begin;
			if (bars.length > 0) {
				const i = rectAt(row, b + bars[0]);
				if (i >= 0)
					add(m, row.rects[i], 1);
				return;
			}
			const lo = b + view.t0, hi = lo + view.w;
			row.rects.forEach(function (r) {
				const ov = Math.min(hi, r.start + r.duration) - Math.max(lo, r.start);
				if (ov > 0)
					add(m, r, ov / r.duration);
			});
		}
		if (rows) {
			rows.forEach(function (row) { addRow(row.map, row); });
		} else {
			group.forEach(function (m) {
				m.rows.forEach(function (row) { addRow(m, row); });
			});
		}
		return Array.from(acc.entries()).sort(function (a, b) {
			return b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
		});
	}

	function sameNames(a, b) {
		return a.length === b.length && a.every(function (x) { return b.indexOf(x) >= 0; });
	}

	function legendGroup(owner) {
		return maps.filter(function (m) { return m.legend === owner; });
	}

	return { drawCounts: drawCounts, selectState: selectState, fade: fade, fadeOf: fadeOf,
	    selectTag: selectTag, markTags: markTags, tagValue: tagValue, stateName: stateName,
	    inStates: inStates, tagTimes: tagTimes, sameNames: sameNames, legendGroup: legendGroup };
}
