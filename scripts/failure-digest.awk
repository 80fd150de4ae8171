# failure-digest.awk: from `go test -v` output, the short messages of each
# failed test (t.Errorf, t.Fatalf and t.Logf lines, up to two continuation
# lines each), leaving out the orch commands the tests log with their
# whole output. CI shows the tail of a run; this puts the why of a failure
# there instead of the last test's command output.
/^panic: / { pan = 12 }
pan > 0 { panics = panics "\n" $0; pan-- }
/^=== (RUN|CONT|PAUSE|NAME) / { split($3, p, "/"); cur = p[1]; keep = 0; next }
/^ *--- FAIL: / { failed[$3] = 1; keep = 0; next }
/^ *--- (PASS|SKIP): / { keep = 0; next }
/^    +[A-Za-z0-9_]+_test\.go:[0-9]+: / {
	keep = 0
	if ($0 ~ / -> exit [0-9]+ in /) next
	msg[cur] = msg[cur] "\n" $0; keep = 2; next
}
/^        / && keep > 0 { msg[cur] = msg[cur] "\n" $0; keep--; next }
{ keep = 0 }
END {
	if (panics != "") printf "== a panic:%s\n", panics
	for (t in failed) {
		if (t ~ /\//) continue
		printf "== why %s failed (its messages, commands left out):%s\n", t, msg[t]
	}
}
