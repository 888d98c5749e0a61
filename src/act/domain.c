// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The domain.define actuator: define the VM through libvirt (sys/virt.c,
 * the only caller of libvirt), keep the previous definition for undo.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/actuator.h"
#include "sys/virt.h"
#include "shared/escape.h"

/* ---- the domain.define actuator ---- */

static int define_precheck(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	struct _virConnect *c;

	if (!ctx->vm) {
		gp_err("%s: no domain XML to define", gp_step_name(st->kind));
		return -EINVAL;
	}
	c = gp_virt_connect(ctx->vm->uri, true);
	if (!c)
		return -EIO;
	gp_virt_close(c);
	return 0;
}

static int define_done(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	char digest[24], why[8];
	int running;

	return gp_virt_digest(ctx->vm->uri, ctx->vm->name, digest, sizeof(digest), &running, why,
			      sizeof(why)) == 1 &&
	       !strcmp(digest, ctx->vm->digest);
}

static int define_record(const struct gp_apply_ctx *ctx, const struct gp_step *st,
			 json_object *undo)
{
	struct _virConnect *c = gp_virt_connect(ctx->vm->uri, true);
	char *xml;

	if (!c)
		return -EIO;
	json_object_object_add(undo, "uri", json_object_new_string(ctx->vm->uri));
	json_object_object_add(undo, "name", json_object_new_string(ctx->vm->name));
	xml = gp_virt_xml(c, ctx->vm->name, true);
	json_object_object_add(undo, "previous", xml ? json_object_new_string(xml) : NULL);
	free(xml);
	gp_virt_close(c);
	return 0;
}

static int define_run(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	return gp_virt_define(ctx->vm->uri, ctx->vm->xml);
}

static int define_verify(const struct gp_apply_ctx *ctx, const struct gp_step *st)
{
	if (define_done(ctx, st) > 0)
		return 0;
	gp_err("domain '%s' is not defined as written", ctx->vm->name);
	return -EIO;
}

/* Put back the previous definition, or undefine the one we added. */
static int define_undo(const struct gp_apply_ctx *ctx, const struct gp_step *st, json_object *undo)
{
	json_object *uri = json_object_object_get(undo, "uri");
	json_object *name = json_object_object_get(undo, "name");
	json_object *prev = json_object_object_get(undo, "previous");

	if (!uri || !name)
		return 0; /* nothing was recorded: nothing was defined */
	if (prev)
		return gp_virt_define(json_object_get_string(uri), json_object_get_string(prev));
	return gp_virt_undefine(json_object_get_string(uri), json_object_get_string(name));
}

/*
 * Undone while the domain runs, the run's other undos would take its devices
 * from under QEMU (unbinding a device QEMU holds waits on QEMU): rollback
 * refuses until it is shut down.  Unreachable libvirt is define_undo's to say.
 */
static int define_undo_ready(const struct gp_step *st, json_object *undo)
{
	const char *uri = json_object_get_string(json_object_object_get(undo, "uri"));
	const char *name = json_object_get_string(json_object_object_get(undo, "name"));
	char digest[24], why[8], u[300], n[300];
	int running;

	(void)st;
	if (!uri || !name ||
	    gp_virt_digest(uri, name, digest, sizeof(digest), &running, why, sizeof(why)) != 1 ||
	    running != 1)
		return 0;
	gp_err("domain '%s' is running at %s and holds its devices: shut it down first "
	       "(virsh -c %s shutdown %s), then run rollback again",
	       name, uri, gp_sh_word(uri, u, sizeof(u)), gp_sh_word(name, n, sizeof(n)));
	return -EBUSY;
}

static bool define_by_hand(const struct gp_step *st, char *how, size_t len)
{
	char word[300];

	snprintf(how, len, "virsh undefine %s (or define the previous XML)",
		 gp_sh_word(st->subject, word, sizeof(word)));
	return true;
}

const struct gp_actuator gp_act_domain_define = {
	.kind = GP_S_DOMAIN_DEFINE,
	.precheck = define_precheck,
	.done = define_done,
	.record = define_record,
	.run = define_run,
	.verify = define_verify,
	.undo = define_undo,
	.undo_ready = define_undo_ready,
	.by_hand = define_by_hand,
};
