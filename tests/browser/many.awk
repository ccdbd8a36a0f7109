# many.awk: a trace like a real Chrome one, for the layout tests: 42 states
# with long names and no colours (so all generated), 8 threads described
# by their names, 4000 transitions.  Output is the same every time.
BEGIN {
	n = split("AtExit crypto sourceFetcher::requestResource sourceFetcher::fetchResourceFromNetwork v8.compile v8.run v8.gc.MinorMarkCompact v8.gc.Scavenge Layout Paint CompositeLayers UpdateLayerTree ParseHTML EvaluateScript FunctionCall TimerFire RequestAnimationFrame XHRReadyStateChange ResourceSendRequest ResourceReceiveResponse ResourceFinish ThreadControllerImpl::RunTask SequenceManager::DoWork MessageLoop::RunTask ipc.Mojo.Dispatch navigation.NavigationRequest::BeginNavigation cc.ProxyMain::BeginMainFrame viz.Display::DrawAndSwap gpu.CommandBufferStub::OnAsyncFlush net.URLRequest::Start blink.ResourceLoader::DidReceiveData idle waiting loading toplevel.flow disabled-by-default-devtools.timeline.frame_is_a_really_long_state_name_indeed renderer.scheduler.TaskQueueManager::ProcessTaskFromWorkQueue AudioOutputDevice::RequestDeviceAuthorization media.PipelineImpl::RendererWrapper::OnBufferingStateChange benchmark.MeasureFrameTime fonts.FontCache::GetFontPlatformData x", names, " ")
	printf "{\"start\": [1700000000, 0], \"title\": \"Chrome trace with %d states\", \"host\": \"laptop\", \"entityKind\": \"Thread\", \"states\": {", n
	for (i = 1; i <= n; i++)
		printf "%s\"%s\": {\"value\": %d}", (i > 1 ? ", " : ""), names[i], i - 1
	print "}}"
	split("CrBrowserMain CrRendererMain Compositor ThreadPoolForegroundWorker ThreadPoolBackgroundWorker Chrome_IOThread VizCompositorThread AudioOutputDevice", tn, " ")
	for (e = 1; e <= 8; e++)
		printf "{\"entity\": \"%d\", \"description\": \"%s\"}\n", 1000 + e * 37, tn[e]
	for (i = 0; i < 4000; i++)
		printf "{\"time\": \"%d\", \"entity\": \"%d\", \"state\": %d}\n", i * 5000, 1000 + (i % 8 + 1) * 37, (i * 7 + int(i / 8)) % n
}
