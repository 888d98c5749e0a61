// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The version, from one place: the Makefile reads it from the first line of
 * debian/changelog, so the binary, its JSON documents and the package agree.
 */
#include "shared/util.h"

#ifndef GP_VERSION
#error "GP_VERSION comes from debian/changelog through the Makefile"
#endif

const char gp_version[] = GP_VERSION;
