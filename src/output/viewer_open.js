/*
 * viewer_open.js: opens the one function that the viewer's files run in
 * (viewer_close.js closes it and runs main), so that what they declare
 * stays theirs: the only global the viewer makes is window.statemapViewer.
 * The files, and the order they are joined in, are the Makefile's
 * VIEWER_JS; src/output/viewer.js describes the viewer and its modules.
 */
(function () {
	'use strict';

