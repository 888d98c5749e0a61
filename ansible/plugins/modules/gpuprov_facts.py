#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: gpuprov contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: gpuprov_facts
short_description: The host's GPUs, NICs, NUMA nodes, IOMMU groups and GPU paths as facts
version_added: "0.1.0"
description:
  - Runs C(gpuprov scan --json) and C(gpuprov topo --json) on the managed host and
    returns them as the fact C(gpuprov), so that inventories and templates can use
    them (for instance to write the host's profile).
  - Reads only; never changes the host.
  - Each GPU and NIC carries the identity tuple a cluster mapping needs (node,
    address, vendor and device, subsystem, IOMMU group).
author:
  - gpuprov contributors (!UNKNOWN)
requirements:
  - gpuprov on the managed host, at least the version the collection's
    README.md names under Compatibility (checked before anything runs)
options:
  profile:
    description:
      - A server profile; its C([gpus] match) decides which devices are the GPUs.
      - Without one, the GPUs are the display and 3D controllers.
    type: path
  root:
    description:
      - Read the host under this directory (a snapshot or fixture tree, C(-r)).
    type: path
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
    description: Nothing to show.
  facts:
    support: full
    description: Returns the C(gpuprov) fact.
'''

EXAMPLES = r'''
- name: Read the GPU topology
  gpuprov.fleet.gpuprov_facts:

- name: Show each GPU with its NUMA node and IOMMU group
  ansible.builtin.debug:
    msg: "{{ item.bdf }} node {{ item.numa_node }} group {{ item.iommu_group }}"
  loop: "{{ ansible_facts.gpuprov.gpus }}"
'''

RETURN = r'''
ansible_facts:
  description: The C(gpuprov) fact.
  returned: always
  type: complex
  contains:
    gpuprov:
      description: What gpuprov read of the host.
      type: complex
      contains:
        gpus:
          description: The GPUs (scan's devices with role gpu), each with the identity
            tuple (node, bdf, vendor, device, subsystem, iommu_group) beside scan's keys.
          type: list
          elements: dict
        nics:
          description: The network controllers, as C(gpus).
          type: list
          elements: dict
        numa_nodes:
          description: NUMA nodes with their CPUs and memory.
          type: list
          elements: dict
        iommu_groups:
          description: IOMMU groups with their devices.
          type: list
          elements: dict
        interfaces:
          description: Network interfaces.
          type: list
          elements: dict
        topo:
          description: C(topo --json) (devices, the path matrix, links, NVLink counts).
          type: dict
        scan:
          description: C(scan --json) as printed.
          type: dict
'''

import socket

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuprov.fleet.plugins.module_utils import gpuprov as gp


def identity(dev, node):
    """scan's device, with the tuple a cluster mapping identifies it by."""
    out = dict(dev)
    out['node'] = node
    if dev.get('subsystem_vendor') and dev.get('subsystem_device'):
        out['subsystem'] = '%s:%s' % (dev['subsystem_vendor'], dev['subsystem_device'])
    return out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            profile=dict(type='path'),
            root=dict(type='path'),
            binary=dict(type='path'),
            timeout=dict(type='int', default=600),
        ),
        supports_check_mode=True,
    )
    gp.prepare(module)
    args = gp.base_args(module)
    facts = {}
    for command in ('scan', 'topo'):
        rc, doc, err = gp.run(module, args + [command])
        if rc != gp.EXIT_OK:
            module.fail_json(msg='gpuprov %s: %s' % (command, gp.why(doc, rc, err)),
                             exit_status=rc)
        facts[command] = doc
    node = module.params['root'] or socket.gethostname()
    devices = facts['scan'].get('devices', [])
    facts.update(
        gpus=[identity(d, node) for d in devices if d.get('role') == 'gpu'],
        nics=[identity(d, node) for d in devices if d.get('role') == 'nic'],
        numa_nodes=facts['scan'].get('numa_nodes', []),
        iommu_groups=facts['scan'].get('iommu_groups', []),
        interfaces=facts['scan'].get('interfaces', []),
    )
    module.exit_json(changed=False, ansible_facts={'gpuprov': facts})


if __name__ == '__main__':
    main()
