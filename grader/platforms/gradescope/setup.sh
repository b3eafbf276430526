#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (the zip is unpacked
# in /autograder/source): it installs what the kit needs and builds it.
# AUTOGRADER_ROOT replaces /autograder; TILELAB_SKIP_INSTALL=1 installs nothing (see install.sh).
set -euo pipefail
source_dir="${AUTOGRADER_ROOT:-/autograder}/source"
exec bash "$source_dir/tilelab/grader/platforms/install.sh" "$source_dir/tilelab"
