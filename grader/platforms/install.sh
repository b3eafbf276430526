#!/usr/bin/env bash
# Installs what the kit needs on an Ubuntu image (22.04 or 24.04: Gradescope's base images, or
# the PrairieLearn grading image's), then builds the kit once, so that grading builds nothing.
#   install.sh KIT_DIR
# Run as root. TILELAB_SKIP_INSTALL=1 installs nothing (the packages are there already, or the
# machine has no network): only the build runs.
set -euo pipefail

kit="$(cd "${1:?usage: install.sh KIT_DIR}" && pwd)"
# NVIDIA's network repository, as its CUDA installation guide for Linux gives it for Ubuntu:
# install the cuda-keyring package from .../repos/$distro/$arch/, then apt-get the packages.
CUDA_REPOS=https://developer.download.nvidia.com/compute/cuda/repos
CUDA_KEYRING=cuda-keyring_1.1-1_all.deb
# The compiler, the runtime's headers and library, and cuBLAS (the kit's build links its
# benchmark against it; students' programs never do). No driver: grading runs on the CPU backend.
CUDA_PACKAGES=(cuda-nvcc-13-0 cuda-crt-13-0 cuda-cudart-dev-13-0 libcublas-dev-13-0)
# The kit's CMakeLists.txt asks for this CMake; Ubuntu 22.04 has 3.22, so Kitware's repository
# (apt.kitware.com) gives a newer one there.
CMAKE_MIN=3.24
KITWARE_KEY=https://apt.kitware.com/keys/kitware-archive-latest.asc
KITWARE_KEYRING=/usr/share/keyrings/kitware-archive-keyring.gpg

say() { printf 'tilelab install: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# The candidate version of a package in apt's lists, or nothing.
candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }

install_packages() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends ca-certificates wget gnupg
  # shellcheck disable=SC1091
  . /etc/os-release
  local distro="${ID}${VERSION_ID//./}" arch
  case "$(uname -m)" in
    x86_64) arch=x86_64 ;;
    aarch64) arch=sbsa ;;
    *) die "no CUDA repository for $(uname -m)" ;;
  esac
  say "NVIDIA's CUDA repository for $distro/$arch"
  wget -q -O "/tmp/$CUDA_KEYRING" "$CUDA_REPOS/$distro/$arch/$CUDA_KEYRING"
  dpkg -i "/tmp/$CUDA_KEYRING"
  rm -f "/tmp/$CUDA_KEYRING"
  local cmake_version
  cmake_version="$(candidate cmake)"
  if [ -z "$cmake_version" ] || dpkg --compare-versions "$cmake_version" lt "$CMAKE_MIN"; then
    say "CMake ${cmake_version:-none} < $CMAKE_MIN here: Kitware's repository for ${VERSION_CODENAME:?}"
    wget -q -O - "$KITWARE_KEY" | gpg --dearmor --yes -o "$KITWARE_KEYRING"
    echo "deb [signed-by=$KITWARE_KEYRING] https://apt.kitware.com/ubuntu/ $VERSION_CODENAME main" \
      >/etc/apt/sources.list.d/kitware.list
  fi
  apt-get update
  apt-get install -y --no-install-recommends cmake make gcc g++ "${CUDA_PACKAGES[@]}"
}

if [ "${TILELAB_SKIP_INSTALL:-}" = 1 ]; then
  say "TILELAB_SKIP_INSTALL=1: installing nothing"
  export TILELAB_NO_INSTALL=1
else
  [ "$(id -u)" -eq 0 ] || die "run this as root (it installs packages)"
  install_packages
fi
# The front door installs the kit's other Debian packages (as root), configures and builds.
# Through `grade --help`: the front door installs the packages of the command it is given, and
# grading needs bubblewrap, which must be here before the grading container (no network) starts.
say "building the kit in $kit"
"$kit/tilelab" grade --help >/dev/null
say "done"
