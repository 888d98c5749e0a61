#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpuprov contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: gpuprov_info
short_description: Read gpuprov's check, plan, scan and topo documents of a KVM host
version_added: "0.2.0"
description:
  - Runs the read-only gpuprov commands named in I(gather) (C(check), C(plan),
    C(scan), C(topo)), each with C(--json), and returns each command's document
    as gpuprov printed it, under the command's name.
  - Never changes the host and never reports C(changed); runs the same in check
    mode.  Findings and a blocked plan are reported, not failures; the task
    fails only when gpuprov could not run (not installed, older than this
    collection needs, the host unreadable, bad input, the timeout).
  - Where C(gpuprov.fleet.gpuprov) with C(state=checked) decides pass or fail
    (I(fail_on)), this module only reads; C(gpuprov.fleet.gpuprov_facts) makes
    C(scan) and C(topo) facts.
author:
  - gpuprov contributors (!UNKNOWN)
requirements:
  - gpuprov on the managed host, at least the version the collection's
    README.md names under Compatibility (checked before anything runs)
options:
  gather:
    description:
      - The gpuprov commands to run, each returned under its name.
      - C(check) and C(plan) need I(profile).
    type: list
    elements: str
    choices: [check, plan, scan, topo]
    default: [check]
  profile:
    description:
      - The server profile (gpuprov.ini(5)) on the managed host.
      - Required when I(gather) has C(check) or C(plan); with C(scan) and
        C(topo), its C([gpus] match) decides which devices are the GPUs.
    type: path
  root:
    description:
      - Read the host under this directory (a snapshot or fixture tree, C(-r)).
    type: path
  baseline:
    description:
      - For C(check), an unpacked snapshot taken when the host was verified;
        adds the C(drift.*) findings (C(check --baseline)).
    type: path
  only:
    description:
      - For C(plan), these groups of steps only (C(--only)).
    type: list
    elements: str
    choices: [vfio, bond, vm]
  accept:
    description:
      - For C(plan), failed findings by id that it goes ahead despite (C(--accept)).
    type: list
    elements: str
  force_mgmt:
    description:
      - For C(plan), allow bonding a port that carries the management path (C(--force-mgmt)).
    type: bool
    default: false
  binary:
    description:
      - The gpuprov program on the managed host, a path or a program name.
      - A name, or nothing, is looked up in C(PATH) and the C(sbin)
        directories (C(gpuprov) when unset); a path must be an executable file.
    type: path
  timeout:
    description:
      - Seconds each gpuprov command may run (C(timeout) of coreutils) before it
        is stopped and the task fails; C(0) for no limit.
    type: int
    default: 600
attributes:
  check_mode:
    support: full
    description: Reads only; runs the same in check mode.
  diff_mode:
    support: none
    description: Nothing changes, nothing to show.
'''

EXAMPLES = r'''
- name: What gpuprov finds and what it would do, nothing changed
  gpuprov.fleet.gpuprov_info:
    profile: /etc/gpuprov/host.ini
    gather: [check, plan]
  register: gp

- name: Say which findings fail
  ansible.builtin.debug:
    msg: "{{ item.id }} {{ item.subject }}: {{ item.message }}"
  loop: "{{ gp.failed_findings }}"

- name: Changes pending?
  ansible.builtin.debug:
    msg: "{{ gp.plan.steps | length }} steps, blocked: {{ gp.plan.blocked }}"
  when: gp.exit_statuses.plan != 0

- name: The host's devices as scan reads them
  gpuprov.fleet.gpuprov_info:
    gather: [scan]
  register: inventory
'''

RETURN = r'''
check:
  description:
    - C(gpuprov check --json) as printed (findings, summary, host, version).
  returned: when I(gather) has C(check)
  type: dict
plan:
  description:
    - C(gpuprov plan --json) as printed (steps, blocked, accepted, files).
  returned: when I(gather) has C(plan)
  type: dict
scan:
  description: C(gpuprov scan --json) as printed (devices, IOMMU groups, NUMA nodes, interfaces).
  returned: when I(gather) has C(scan)
  type: dict
topo:
  description: C(gpuprov topo --json) as printed (devices, the path matrix, links).
  returned: when I(gather) has C(topo)
  type: dict
exit_statuses:
  description:
    - Each command's exit status (gpuprov(8), EXIT STATUS), by name; for
      C(check), 1 warnings and 2 failed findings; for C(plan), 1 changes
      pending and 2 blocked.
  returned: always
  type: dict
  sample: {"check": 2, "plan": 2}
failed_findings:
  description: The findings of severity C(fail) in C(check).
  returned: when I(gather) has C(check)
  type: list
  elements: dict
  sample: [{"id": "gpu.in_use", "severity": "fail", "subject": "0000:41:00.0",
            "message": "held open by PID 2817 (nvidia-persiste) /dev/nvidia0"}]
gpuprov_version:
  description: The version of the gpuprov that ran (C(gpuprov --version)).
  returned: always
  type: str
  sample: "0.2"
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuprov.fleet.plugins.module_utils import gpuprov as gp

# the exit statuses of a command that read the host and printed its document
READ = {
    'check': (gp.EXIT_OK, gp.EXIT_WARN, gp.EXIT_FAIL),
    'plan': (gp.EXIT_OK, gp.EXIT_WARN, gp.EXIT_FAIL),
    'scan': (gp.EXIT_OK,),
    'topo': (gp.EXIT_OK,),
}
# the list each command's document has
LISTS = {'check': 'findings', 'plan': 'steps', 'scan': 'devices', 'topo': 'devices'}


def command_args(module, command):
    p = module.params
    args = gp.base_args(module)
    if command == 'check' and p['baseline']:
        args += ['--baseline', p['baseline']]
    if command == 'plan':
        if p['only']:
            args += ['--only', ','.join(p['only'])]
        if p['force_mgmt']:
            args += ['--force-mgmt']
        if p['accept']:
            args += ['--accept', ','.join(p['accept'])]
    return args + [command]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            gather=dict(type='list', elements='str', default=['check'],
                        choices=['check', 'plan', 'scan', 'topo']),
            profile=dict(type='path'),
            root=dict(type='path'),
            baseline=dict(type='path'),
            only=dict(type='list', elements='str', choices=['vfio', 'bond', 'vm']),
            accept=dict(type='list', elements='str'),
            force_mgmt=dict(type='bool', default=False),
            binary=dict(type='path'),
            timeout=dict(type='int', default=600),
        ),
        supports_check_mode=True,
    )
    gather = []
    for command in module.params['gather']:
        if command not in gather:
            gather.append(command)
    needs = [c for c in gather if c in ('check', 'plan')]
    if needs and not module.params['profile']:
        module.fail_json(msg='gather: %s needs profile' % ' and '.join(needs))
    result = dict(changed=False, exit_statuses={})
    result['gpuprov_version'] = gp.prepare(module)
    for command in gather:
        rc, doc, err = gp.run(module, command_args(module, command))
        result['exit_statuses'][command] = rc
        if rc not in READ[command]:
            module.fail_json(msg='gpuprov %s: %s' % (command, gp.why(doc, rc, err)), **result)
        if not gp.is_document(doc, command, LISTS[command]):
            module.fail_json(msg='gpuprov %s exited %d without its document: %s' % (
                command, rc, gp.why(doc, rc, err)), **result)
        result[command] = doc
        if command == 'check':
            result['failed_findings'] = gp.failed(doc['findings'])
    module.exit_json(**result)


if __name__ == '__main__':
    main()
