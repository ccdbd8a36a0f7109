
	viewerMain();
})();
