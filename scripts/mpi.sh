# Sourced by .ci/run (after browser.sh): installs Open MPI (Debian's
# openmpi-bin, and libopenmpi-dev for the headers the cgo binding of
# package dist builds with under -tags mpi) when mpirun or mpi.h is
# missing. Without them the tests that start ranks skip with a message,
# unless WGT_REQUIRE_MPI=1 (CI's setting) makes them fail.

have_mpi() {
	command -v mpirun >/dev/null 2>&1 && pkg-config --exists ompi-c 2>/dev/null
}

if ! have_mpi; then
	echo "installing Open MPI (openmpi-bin, libopenmpi-dev)..." >&2
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openmpi-bin libopenmpi-dev pkg-config >&2
	have_mpi || { echo "Open MPI did not install" >&2; exit 1; }
fi
