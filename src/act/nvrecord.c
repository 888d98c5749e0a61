// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply keeps what NVML said of the NVLinks before the GPUs leave the nvidia
 * driver: afterwards nothing on the host can see them.  Written through the
 * one writer, whole or not at all; not journaled, since it changes nothing
 * on the host that rollback would have to restore.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "shared/log.h"
#include "shared/util.h"
#include "shared/write.h"
#include "core/nvlink.h"
#include "core/verify.h"
#include "act/nvrecord.h"

int gp_nv_remember(const struct gp_nv_view *v)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	json_object *doc;
	const char *text;
	int rc;

	if (v->source != GP_NV_NVML || !v->n)
		return 0; /* nothing seen now: an older record stays */
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	doc = gp_nv_to_json(v, when);
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY);
	rc = gp_write_file(GP_NV_RECORD, text, strlen(text), 0644);
	if (rc)
		gp_warn("cannot keep the NVLinks in %s: %s; topo will not see them once the "
			"GPUs are on vfio-pci",
			GP_NV_RECORD, gp_write_strerror(rc));
	json_object_put(doc);
	return rc;
}

int gp_verify_remember(const struct gp_vrecord *r)
{
	char buf[512], *text = gp_vrecord_to_json(r);
	const char *path = gp_state_file("verify.json", GP_VERIFY_RECORD, buf, sizeof(buf));
	int rc = gp_write_file(path, text, strlen(text), 0644);

	if (rc)
		gp_info("verify's result not kept in %s: %s; topo will not show it", path,
			gp_write_strerror(rc));
	free(text);
	return rc;
}
