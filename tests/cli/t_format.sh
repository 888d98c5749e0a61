#!/bin/sh
# The C sources are as .clang-format (kernel style, tabs) lays them out.
set -eu
. "$(dirname "$0")/lib.sh"
clang-format --dry-run -Werror src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h tests/fuzz/*.c \
	tests/fake/*.c
