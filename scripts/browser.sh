# Sourced by .ci/run (after torch.sh): installs Chromium (Debian's
# chromium) when none is on PATH, for the tests that open the memory
# viewer's pages in a headless browser (memview). Without it those tests
# skip with a message, unless WGT_REQUIRE_BROWSER=1 (CI's setting) makes
# them fail.

have_browser() {
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
		command -v google-chrome >/dev/null 2>&1 || command -v google-chrome-stable >/dev/null 2>&1
}

if ! have_browser; then
	echo "installing Chromium (chromium)..." >&2
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
	have_browser || { echo "chromium did not install" >&2; exit 1; }
fi
