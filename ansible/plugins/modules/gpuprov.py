#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpuprov contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: gpuprov
short_description: Check, apply or roll back a gpuprov profile on a KVM host
version_added: "0.1.0"
description:
  - Runs C(gpuprov) on the managed host, always with C(--json), and returns its
    findings, plan and journal.
  - C(state=checked) runs C(gpuprov check) (with I(baseline), the drift against a
    verified snapshot too); it never changes anything.
  - C(state=applied) runs C(gpuprov plan) first. When the plan has nothing to do
    (exit status 0) the result is C(changed=false) and nothing else runs. When
    changes are pending, check mode stops there and reports C(changed=true);
    otherwise C(gpuprov apply --yes) carries the plan out and the result holds
    its run ID.
  - C(state=rolled_back) undoes the run I(run_id), or the one C(gpuprov rollback)
    would take next, when it has steps left to undo. A run whose journal gpuprov
    refuses (status C(invalid)), or in a state this module does not know, fails
    the task, since the host may still be changed.
  - A failure (a blocked plan, failed findings, a step that failed and was
    rolled back) fails the task and carries gpuprov's findings; its C(msg)
    names the findings that failed it (id, subject, message) and nothing else,
    and C(failed_findings) lists the findings of severity C(fail).
  - Before anything else the module finds gpuprov (I(binary)) and checks that
    it is at least the version this collection needs (C(gpuprov --version));
    a gpuprov that is missing or older fails the task, saying so.
  - Each gpuprov command runs under I(timeout); one that runs past it is
    stopped and fails the task.
  - With C(--diff), the plan's steps (current and target state) and, where the
    installed gpuprov provides them, the unified diffs of the files it would write.
author:
  - gpuprov contributors (!UNKNOWN)
requirements:
  - gpuprov on the managed host (see the C(gpuprov.fleet.gpuprov) role), at
    least the version the collection's README.md names under Compatibility
notes:
  - C(apply) and C(rollback) need root and refuse I(root); run them with C(become).
  - Exit statuses follow gpuprov(8), EXIT STATUS.
options:
  state:
    description:
      - C(checked) reports findings, C(applied) makes the host as the profile
        wants, C(rolled_back) undoes a journaled run.
    type: str
    choices: [checked, applied, rolled_back]
    default: checked
  profile:
    description:
      - The server profile (gpuprov.ini(5)) on the managed host.
      - Required with C(state=checked) and C(state=applied).
    type: path
  root:
    description:
      - Read the host under this directory (a snapshot or fixture tree, C(-r)).
      - C(apply) and C(rollback) refuse it.
    type: path
  only:
    description:
      - Limit C(plan) and C(apply) to these groups of steps (C(--only)).
    type: list
    elements: str
    choices: [vfio, bond, vm]
  accept:
    description:
      - Failed findings, by id, that C(plan) and C(apply) go ahead despite
        (C(--accept)); every other failed finding blocks the steps of its area.
      - The accepted ids are recorded in the run's journal.
    type: list
    elements: str
  force_mgmt:
    description:
      - Allow bonding a port that carries the management path (C(--force-mgmt)).
    type: bool
    default: false
  baseline:
    description:
      - With C(state=checked), an unpacked snapshot taken when the host was
        verified; adds the C(drift.*) findings (C(check --baseline)).
    type: path
  run_id:
    description:
      - With C(state=rolled_back), the run to undo; default the one
        C(gpuprov rollback) takes next.
    type: str
  fail_on:
    description:
      - With C(state=checked), the worst finding that still passes the task.
      - C(fail) fails on a failed finding, C(warn) on a warning too, C(never)
        only when gpuprov could not run.
    type: str
    choices: [fail, warn, never]
    default: fail
  binary:
    description:
      - The gpuprov program on the managed host, a path or a program name.
      - A name, or nothing, is looked up in C(PATH) and the C(sbin)
        directories (C(gpuprov) when unset); a path must be an executable file.
    type: path
  timeout:
    description:
      - Seconds each gpuprov command may run (C(timeout) of coreutils) before it
        is stopped (SIGTERM, then SIGKILL 10 seconds later) and the task fails;
        C(0) for no limit.
      - An C(apply) or C(rollback) stopped this way leaves an interrupted run
        (C(changed=true)); C(state=rolled_back) undoes it.
    type: int
    default: 600
attributes:
  check_mode:
    support: full
    description: Runs C(plan) (or C(rollback --list)) and reports what would change.
  diff_mode:
    support: full
    description: Shows the plan's steps and file diffs.
'''

EXAMPLES = r'''
- name: Preflight against the host's profile
  gpuprov.fleet.gpuprov:
    profile: /etc/gpuprov/host.ini
    state: checked
    fail_on: never
  register: preflight

- name: Still as verified? (drift against the snapshot taken then)
  gpuprov.fleet.gpuprov:
    profile: /etc/gpuprov/host.ini
    baseline: /var/lib/gpuprov/baseline
    state: checked

- name: Bind the GPUs to vfio-pci and define the VM
  become: true
  gpuprov.fleet.gpuprov:
    profile: /etc/gpuprov/host.ini
    state: applied
    only: [vfio, vm]
  register: applied

- name: Undo that run
  become: true
  gpuprov.fleet.gpuprov:
    state: rolled_back
    run_id: "{{ applied.run_id }}"
'''

RETURN = r'''
exit_status:
  description:
    - The exit status of the last gpuprov command run (gpuprov(8), EXIT STATUS).
    - Not C(rc), which Ansible would take for a failure whenever it is not 0.
  returned: when gpuprov was found and ran
  type: int
  sample: 1
gpuprov_version:
  description: The version of the gpuprov that ran (C(gpuprov --version)).
  returned: when gpuprov was found and ran
  type: str
  sample: "0.2"
failed_findings:
  description:
    - The findings of severity C(fail) (less those accepted with I(accept)),
      each as in I(findings); what a failure's C(msg) names.
  returned: with I(findings)
  type: list
  elements: dict
  sample: [{"id": "gpu.in_use", "severity": "fail", "subject": "0000:41:00.0",
            "message": "held open by PID 2817 (nvidia-persiste) /dev/nvidia0"}]
findings:
  description:
    - gpuprov's findings, with C(state=checked), and on every failure.
  returned: when gpuprov ran C(check)
  type: list
  elements: dict
  sample: [{"id": "gpu.link", "severity": "fail", "subject": "0000:41:00.0",
            "message": "link trained at x8", "hint": "reseat the card"}]
summary:
  description: Counts of ok, warn and fail findings.
  returned: when gpuprov ran C(check)
  type: dict
  sample: {"ok": 30, "warn": 1, "fail": 0}
drift:
  description: The C(drift.*) findings that are not ok (with I(baseline)).
  returned: with state=checked
  type: list
  elements: dict
steps:
  description: The plan's steps (kind, subject, current, target, reversible).
  returned: with state=applied
  type: list
  elements: dict
blocked:
  description: Why the plan refuses steps, one message each.
  returned: with state=applied
  type: list
  elements: str
run_id:
  description: The journaled run that apply made or rollback undid.
  returned: when a run was made or undone
  type: str
  sample: "20261130T211502-4711"
journal:
  description: The run's journal as C(apply --json) or C(rollback --json) printed it.
  returned: when a run was made or undone
  type: dict
msg:
  description: What happened, or gpuprov's error.
  returned: always
  type: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuprov.fleet.plugins.module_utils import gpuprov as gp


def findings_of(module, result):
    """check --json, for a failure's result: what gpuprov found (findings,
    summary, failed_findings: those of severity fail not accepted); returns
    failed_findings."""
    rc, doc, dummy = gp.run(module, gp.base_args(module) + ['check'])
    findings, summary = [], {}
    if rc in (gp.EXIT_OK, gp.EXIT_WARN, gp.EXIT_FAIL) and gp.is_document(doc, 'check', 'findings'):
        findings, summary = doc['findings'], doc.get('summary', {})
    result.update(findings=findings, summary=summary,
                  failed_findings=gp.failed(findings, module.params['accept'] or ()))
    return result['failed_findings']


def do_checked(module, result):
    p = module.params
    args = gp.base_args(module)
    if p['baseline']:
        args += ['--baseline', p['baseline']]
    rc, doc, err = gp.run(module, args + ['check'])
    result['exit_status'] = rc
    if rc not in (gp.EXIT_OK, gp.EXIT_WARN, gp.EXIT_FAIL):
        module.fail_json(msg=gp.why(doc, rc, err), **result)
    if not gp.is_document(doc, 'check', 'findings') or not isinstance(doc.get('summary'), dict):
        module.fail_json(msg='gpuprov check exited %d without its document: %s' % (
            rc, gp.why(doc, rc, err)), **result)
    findings = doc['findings']
    result.update(findings=findings, summary=doc.get('summary', {}),
                  drift=gp.drifted(findings), failed_findings=gp.failed(findings))
    worst = {'fail': gp.EXIT_FAIL, 'warn': gp.EXIT_WARN, 'never': None}[p['fail_on']]
    if worst is not None and rc >= worst:
        # the findings that failed the task, and only those
        failing = result['failed_findings']
        if p['fail_on'] == 'warn':
            failing = [f for f in findings if f.get('severity') in ('warn', 'fail')]
        what = 'failed findings' if p['fail_on'] == 'fail' else 'findings at warn or worse (fail_on=warn)'
        module.fail_json(msg='gpuprov check: %d %s: %s' % (
            len(failing), what, gp.named(failing) or 'exit status %d' % rc), **result)
    bad = gp.not_ok(findings)
    result['msg'] = gp.named(bad) if bad else 'every finding ok'
    module.exit_json(**result)


def plan(module, result):
    p = module.params
    args = gp.base_args(module)
    if p['only']:
        args += ['--only', ','.join(p['only'])]
    if p['force_mgmt']:
        args += ['--force-mgmt']
    if p['accept']:
        args += ['--accept', ','.join(p['accept'])]
    if module._diff:
        rc, doc, err = gp.run(module, args + ['--diff', 'plan'])
        if rc != gp.EXIT_INPUT or 'diff' not in gp.why(doc, rc, err):
            return args, rc, doc, err
    rc, doc, err = gp.run(module, args + ['plan'])
    return args, rc, doc, err


def do_applied(module, result):
    args, rc, doc, err = plan(module, result)
    result['exit_status'] = rc
    if rc in (gp.EXIT_OK, gp.EXIT_WARN, gp.EXIT_FAIL) and not gp.is_document(doc, 'plan', 'steps'):
        module.fail_json(msg='gpuprov plan exited %d without its document: %s' % (
            rc, gp.why(doc, rc, err)), **result)
    result.update(steps=doc.get('steps', []), blocked=doc.get('blocked', []))
    if rc == gp.EXIT_FAIL:
        failing = findings_of(module, result)
        if failing:
            module.fail_json(msg='plan blocked by %d failed findings: %s' % (
                len(failing), gp.named(failing)), **result)
        module.fail_json(msg='plan blocked: ' + '; '.join(result['blocked'] or
                                                          [gp.why(doc, rc, err)]), **result)
    if rc not in (gp.EXIT_OK, gp.EXIT_WARN):
        module.fail_json(msg=gp.why(doc, rc, err), **result)
    if module._diff:
        result['diff'] = gp.plan_diff(doc)
    if rc == gp.EXIT_OK:
        module.exit_json(msg='nothing to do', **result)
    result['changed'] = True
    if module.check_mode:
        module.exit_json(msg='%d changes pending' % len(result['steps']), **result)
    rc, doc, err = gp.run(module, args + ['--yes', 'apply'])
    result['exit_status'] = rc
    result['run_id'] = doc.get('run_id')
    result['journal'] = doc
    if rc != gp.EXIT_OK:
        # every status but "an undo failed, the host is left changed" means
        # the host is as before (refused, or rolled back) -- gpuprov(8); an
        # apply stopped at the timeout may have changed it
        result['changed'] = rc in (gp.EXIT_UNDO_FAILED, gp.EXIT_TIMEOUT) or rc < 0
        failing = findings_of(module, result)
        msg = gp.why(doc, rc, err)
        if failing:
            msg += ' (%d failed findings: %s)' % (len(failing), gp.named(failing))
        module.fail_json(msg=msg, **result)
    if not gp.is_document(doc, 'apply'):
        module.fail_json(msg='gpuprov apply exited 0 without its document: the host may '
                         'be changed', **result)
    module.exit_json(msg='applied: run %s' % result['run_id'], **result)


def pending_run(module, runs):
    """The run rollback would undo: run_id, or the one marked next."""
    want = module.params['run_id']
    for r in runs:
        if (r.get('run_id') == want) if want else r.get('next'):
            return r
    return None


# A journal's status as rollback --list gives it (gpuprov(8), rollback --list)
RUN_STATES = ('running', 'done', 'rolling_back', 'rolled_back', 'rollback_failed')


def left_to_undo(module, run, result):
    """Whether the run has steps left to undo.  A journal gpuprov refuses, or
    anything else this module does not understand, fails the task: "nothing
    to roll back" is said only of a run known to be undone or empty."""
    status, to_undo, interrupted = run.get('status'), run.get('to_undo'), run.get('interrupted')
    if status == 'invalid' or 'error' in run:
        module.fail_json(msg='gpuprov refuses the journal of run %s: %s' % (
            run.get('run_id'), run.get('error') or 'invalid'), **result)
    if (status not in RUN_STATES or not isinstance(interrupted, bool) or
            not isinstance(to_undo, int) or isinstance(to_undo, bool) or to_undo < 0):
        module.fail_json(msg='run %s: rollback --list says status %r, to_undo %r, '
                         'interrupted %r, which this module does not understand' % (
                             run.get('run_id'), status, to_undo, interrupted), **result)
    return interrupted or (to_undo > 0 and status != 'rolled_back')


def do_rolled_back(module, result):
    args = [module.params['binary'], '--json']
    rc, doc, err = gp.run(module, args + ['--list', 'rollback'])
    result['exit_status'] = rc
    if rc != gp.EXIT_OK:
        module.fail_json(msg=gp.why(doc, rc, err), **result)
    runs = doc.get('runs')
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        module.fail_json(msg='rollback --list printed no list of runs', **result)
    run = pending_run(module, runs)
    if module.params['run_id'] and run is None:
        module.fail_json(msg='no journaled run %s' % module.params['run_id'], **result)
    if run is None or not left_to_undo(module, run, result):
        module.exit_json(msg='nothing to roll back', **result)
    result.update(changed=True, run_id=run['run_id'])
    if module.check_mode:
        module.exit_json(msg='would roll back run %s' % run['run_id'], **result)
    rc, doc, err = gp.run(module, args + ['--yes', 'rollback', run['run_id']])
    result.update(exit_status=rc, journal=doc)
    if rc != gp.EXIT_OK:
        module.fail_json(msg=gp.why(doc, rc, err), **result)
    module.exit_json(msg='rolled back run %s' % run['run_id'], **result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type='str', default='checked',
                       choices=['checked', 'applied', 'rolled_back']),
            profile=dict(type='path'),
            root=dict(type='path'),
            only=dict(type='list', elements='str', choices=['vfio', 'bond', 'vm']),
            accept=dict(type='list', elements='str'),
            force_mgmt=dict(type='bool', default=False),
            baseline=dict(type='path'),
            run_id=dict(type='str'),
            fail_on=dict(type='str', default='fail', choices=['fail', 'warn', 'never']),
            binary=dict(type='path'),
            timeout=dict(type='int', default=600),
        ),
        required_if=[
            ('state', 'checked', ('profile',)),
            ('state', 'applied', ('profile',)),
        ],
        supports_check_mode=True,
    )
    result = dict(changed=False)
    result['gpuprov_version'] = gp.prepare(module)
    result['exit_status'] = 0
    state = module.params['state']
    if state == 'checked':
        do_checked(module, result)
    elif state == 'applied':
        do_applied(module, result)
    else:
        do_rolled_back(module, result)


if __name__ == '__main__':
    main()
