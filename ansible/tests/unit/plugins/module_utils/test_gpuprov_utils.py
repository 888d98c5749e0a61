# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure helpers of module_utils/gpuprov.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuprov.fleet.plugins.module_utils import gpuprov as gp

STEPS = [
    {'kind': 'device.bind', 'subject': '0000:41:00.0', 'current': 'nvidia', 'target': 'vfio-pci'},
    {'kind': 'persist.vfio', 'subject': 'host', 'current': 'absent', 'target': 'overrides'},
]


def test_plan_diff_steps_current_to_target():
    diff = gp.plan_diff({'steps': STEPS})
    assert len(diff) == 1
    assert diff[0]['before'] == 'device.bind 0000:41:00.0: nvidia\npersist.vfio host: absent\n'
    assert diff[0]['after'] == 'device.bind 0000:41:00.0: vfio-pci\npersist.vfio host: overrides\n'


def test_plan_diff_files_prepared_only_changed():
    doc = {'steps': STEPS, 'files': [
        {'path': '/etc/a', 'changed': True, 'diff': '--- a\n+++ a\n+x\n'},
        {'path': '/etc/b', 'changed': False, 'diff': None},
        {'path': '/etc/c', 'changed': True, 'secret': True, 'diff': None},
    ]}
    diff = gp.plan_diff(doc)
    assert diff[1] == {'prepared': '--- a\n+++ a\n+x\n'}


def test_plan_diff_nothing_to_do():
    assert gp.plan_diff({'steps': []})[0]['before'] == ''


def test_why_prefers_the_document():
    assert gp.why({'error': 'no profile'}, 4, 'gpuprov: error: other') == 'no profile'
    assert gp.why({}, 3, 'line one\ngpuprov: error: cannot read\n\n') == 'gpuprov: error: cannot read'
    assert gp.why({}, 9, '') == 'gpuprov exited with status 9'


def test_drifted_and_not_ok():
    findings = [
        {'id': 'gpu.link', 'severity': 'fail'},
        {'id': 'drift.moved', 'severity': 'fail'},
        {'id': 'drift.bios', 'severity': 'ok'},
        {'id': 'drift.added', 'severity': 'warn'},
    ]
    assert [f['id'] for f in gp.not_ok(findings)] == ['gpu.link', 'drift.moved', 'drift.added']
    assert [f['id'] for f in gp.drifted(findings)] == ['drift.moved', 'drift.added']
