# Sourced by the scripts beside it: installs lavapipe (Mesa's software
# Vulkan driver) when no Vulkan driver is present, and quiets EGL.

# No pipeline into a reader that stops early (grep -q): under
# `set -o pipefail`, the writer's SIGPIPE would fail the check at random.
have_lavapipe() {
	ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || return 1
	case "$(ldconfig -p 2>/dev/null)" in
	*'libvulkan.so.1 '*) return 0 ;;
	esac
	return 1
}

if ! have_lavapipe; then
	echo "installing lavapipe (mesa-vulkan-drivers, libvulkan1)..." >&2
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >&2
	have_lavapipe || { echo "lavapipe did not install" >&2; exit 1; }
fi

# wgpu's GL backend goes through EGL, which complains on every instance when
# XDG_RUNTIME_DIR is missing (as in containers and CI).
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
	export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/wgtensor-runtime-$(id -u)"
	mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
fi
