# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The gpuprov and gpuprov_facts modules, run in-process against the real
gpuprov binary on fixture host trees (GPUPROV_BIN, GPUPROV_FIXTURES and
GPUPROV_PROFILE, set by the repository's tests/cli/t_ansible.sh)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes
from ansible_collections.gpuprov.fleet.plugins.modules import gpuprov, gpuprov_facts


class Exited(Exception):
    pass


class Failed(Exception):
    pass


def env(name):
    value = os.environ.get(name)
    assert value, '%s is not set: run these through tests/cli/t_ansible.sh' % name
    return value


@pytest.fixture
def run(monkeypatch):
    """Runs a module's main() with args; returns (failed, result)."""
    def exit_json(self, **kwargs):
        raise Exited(kwargs)

    def fail_json(self, **kwargs):
        raise Failed(kwargs)

    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', fail_json)

    def call(module, args):
        args = dict(args)
        args.setdefault('binary', env('GPUPROV_BIN'))
        monkeypatch.setattr(basic, '_ANSIBLE_ARGS',
                            to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': args})))
        try:
            module.main()
        except Exited as e:
            return False, e.args[0]
        except Failed as e:
            return True, e.args[0]
        raise AssertionError('the module neither exited nor failed')
    return call


def host(name):
    return os.path.join(env('GPUPROV_FIXTURES'), name)


def test_checked_never_changes(run):
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE')})
    assert not failed and not r['changed']
    assert r['exit_status'] == 0 and r['msg'] == 'every finding ok'


def test_check_mode_reports_pending_changes_from_plan(run):
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                              'state': 'applied', '_ansible_check_mode': True})
    assert not failed and r['changed'] and r['exit_status'] == 1
    assert 'run_id' not in r


def test_nothing_to_do_is_no_change_and_no_apply(run):
    failed, r = run(gpuprov, {'root': host('vfio-applied'), 'profile': env('GPUPROV_PROFILE'),
                              'state': 'applied', 'only': ['vfio']})
    assert not failed and not r['changed'] and r['msg'] == 'nothing to do'


def test_blocked_plan_fails_with_findings(run):
    failed, r = run(gpuprov, {'root': host('in-use'), 'profile': env('GPUPROV_PROFILE'),
                              'state': 'applied', '_ansible_check_mode': True})
    assert failed and not r['changed'] and r['exit_status'] == 2
    assert any(f['id'] == 'gpu.in_use' and f['severity'] == 'fail' for f in r['findings'])


@pytest.mark.parametrize('fail_on,failed_want', [('fail', False), ('warn', True), ('never', False)])
def test_fail_on(run, fail_on, failed_want):
    # the drift-added host has warnings only (drift.added)
    failed, r = run(gpuprov, {'root': host('drift-added'), 'profile': env('GPUPROV_PROFILE'),
                              'baseline': host('r5350-ready'), 'fail_on': fail_on})
    assert failed == failed_want and r['exit_status'] == 1
    assert [f['id'] for f in r['drift']] == ['drift.added', 'drift.added']


def test_profile_required(run):
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'state': 'applied'})
    assert failed and 'profile' in r['msg']


def test_only_choices(run):
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                              'state': 'applied', 'only': ['gpu']})
    assert failed and 'only' in r['msg']


def test_facts(run):
    failed, r = run(gpuprov_facts, {'root': host('r5350-ready')})
    facts = r['ansible_facts']['gpuprov']
    assert not failed and not r['changed']
    assert [g['bdf'] for g in facts['gpus']] == ['0000:41:00.0', '0000:42:00.0']
    assert facts['gpus'][0]['subsystem'] == '10de:1533'
    assert facts['topo']['command'] == 'topo'


def test_facts_unreadable_root(run):
    failed, r = run(gpuprov_facts, {'root': host('nonexistent')})
    assert failed and r['exit_status'] == 3 and 'nonexistent' in r['msg']
