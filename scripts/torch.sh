# Sourced by .ci/run (after env.sh): installs PyTorch (Debian's
# python3-torch, 1.13) when no Python on this machine imports it, for the
# tests that check wgtensor against PyTorch (checkpoint's round trip,
# loss's references). Without it those tests skip with a message, unless
# WGT_REQUIRE_TORCH=1 (CI's setting) makes them fail.

have_torch() {
	python3 -c 'import torch' >/dev/null 2>&1 || /usr/bin/python3 -c 'import torch' >/dev/null 2>&1
}

if ! have_torch; then
	echo "installing PyTorch (python3-torch)..." >&2
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-torch >&2
	have_torch || { echo "python3-torch did not install" >&2; exit 1; }
fi
