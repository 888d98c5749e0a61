# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The gpuprov, gpuprov_info and gpuprov_facts modules, run in-process against the real
gpuprov binary on fixture host trees (GPUPROV_BIN, GPUPROV_FIXTURES and
GPUPROV_PROFILE, set by the repository's tests/cli/t_ansible.sh)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import time

import pytest

from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes
from ansible_collections.gpuprov.fleet.plugins.module_utils import gpuprov as gp
from ansible_collections.gpuprov.fleet.plugins.modules import gpuprov, gpuprov_facts, gpuprov_info


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
    # the failing findings only, named in msg; the full document stays
    assert [(f['id'], f['subject']) for f in r['failed_findings']] == [
        ('gpu.in_use', '0000:41:00.0'), ('gpu.in_use', '0000:42:00.0')]
    assert r['msg'].startswith('plan blocked by 2 failed findings: gpu.in_use 0000:41:00.0: ')
    assert 'gpu.in_use 0000:42:00.0: ' in r['msg']
    assert len(r['findings']) > 2 and r['steps']


def test_failed_check_names_the_failed_findings_only(run):
    # drift-moved against the ready host: five failed findings and a warning
    failed, r = run(gpuprov, {'root': host('drift-moved'), 'profile': env('GPUPROV_PROFILE'),
                              'baseline': host('r5350-ready')})
    assert failed and r['exit_status'] == 2
    want = [f for f in r['findings'] if f['severity'] == 'fail']
    assert len(want) == 5 and r['failed_findings'] == want
    assert r['msg'].startswith('gpuprov check: 5 failed findings: ')
    for f in want:
        assert '%s %s: ' % (f['id'], f['subject']) in r['msg']
    # the warning (drift.added) and the ok findings are not named
    assert 'drift.added' not in r['msg'] and len(r['findings']) > 5
    assert [f['id'] for f in r['drift']] == ['drift.added', 'drift.moved']


def test_failed_check_without_a_failed_finding_says_its_exit_status(run, tmp_path):
    script = 'echo \'{"command": "check", "summary": {}, "findings": []}\'; exit 2\n'
    failed, r = run(gpuprov, {'profile': env('GPUPROV_PROFILE'), 'binary': stub(tmp_path, script)})
    assert failed and r['msg'] == 'gpuprov check: 0 failed findings: exit status 2', r


def test_failed_apply_names_the_failed_findings(run, tmp_path):
    # apply refuses: the result has check's findings, msg the failed ones only
    check = ('{"command": "check", "summary": {"ok": 1, "warn": 1, "fail": 1}, "findings": ['
             '{"id": "bar.unassigned", "severity": "fail", "subject": "0000:41:00.0", '
             '"message": "BAR 1 unassigned"}, '
             '{"id": "bar.below_4g", "severity": "warn", "subject": "0000:42:00.0", "message": "w"}, '
             '{"id": "gpu.link", "severity": "ok", "subject": "0000:41:00.0", "message": "x16"}]}')
    script = ('case "$*" in\n'
              '*apply*) echo \'{"command": "apply", "error": "refused: failed findings"}\'; exit 2 ;;\n'
              '*plan*) echo \'{"command": "plan", "steps": [{"kind": "module.load"}]}\'; exit 1 ;;\n'
              '*check*) echo \'%s\'; exit 2 ;;\n'
              'esac\n') % check
    failed, r = run(gpuprov, {'profile': env('GPUPROV_PROFILE'), 'state': 'applied',
                              'binary': stub(tmp_path, script)})
    assert failed and not r['changed'] and r['exit_status'] == 2, r
    assert r['msg'] == ('refused: failed findings (1 failed findings: '
                        'bar.unassigned 0000:41:00.0: BAR 1 unassigned)')
    assert [f['id'] for f in r['failed_findings']] == ['bar.unassigned']
    assert len(r['findings']) == 3


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


VERSION_DOC = '{"schema_version": 1, "version": "%s", "command": "version"}'


def stub(tmp_path, script, version=gp.MIN_VERSION):
    """A program in gpuprov's place: a shell script, which answers --version
    as gpuprov VERSION does (version None: script answers it too)."""
    path = tmp_path / 'gpuprov'
    head = '#!/bin/sh\n'
    if version is not None:
        head += ('case "$*" in *--version*) echo \'%s\'; exit 0 ;; esac\n' %
                 (VERSION_DOC % version))
    path.write_text(head + script)
    path.chmod(0o755)
    return str(path)


# ---- finding gpuprov: a missing one is a clear failure ----

def test_binary_path_that_is_not_there(run):
    for module in (gpuprov, gpuprov_facts, gpuprov_info):
        failed, r = run(module, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                                 'binary': '/nonexistent/gpuprov', 'timeout': 0})
        assert failed and not r['changed'], r
        assert r['msg'] == ('gpuprov not found: /nonexistent/gpuprov (the binary option) '
                            'is not an executable file on this host'), r['msg']


def test_binary_not_on_path(run, tmp_path, monkeypatch):
    # no binary option: get_bin_path looks in PATH and the sbin directories
    if any(os.path.exists(d + '/gpuprov') for d in ('/sbin', '/usr/sbin', '/usr/local/sbin')):
        pytest.skip('gpuprov is installed on this host')
    monkeypatch.setenv('PATH', str(tmp_path))
    for module in (gpuprov, gpuprov_facts, gpuprov_info):
        failed, r = run(module, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                                 'binary': None, 'timeout': 0})
        assert failed and 'Errno' not in r['msg'], r
        assert 'Failed to find required executable "gpuprov"' in r['msg'], r['msg']


def test_binary_found_on_path(run, tmp_path, monkeypatch):
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    os.symlink(env('GPUPROV_BIN'), str(bindir / 'gpuprov'))
    monkeypatch.setenv('PATH', '%s:%s' % (bindir, os.environ['PATH']))
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                              'binary': None})
    assert not failed and r['exit_status'] == 0 and r['gpuprov_version'] == gp.MIN_VERSION, r


# ---- the oldest gpuprov the collection works with ----

def test_version_tuple():
    assert gp.version_tuple('0.2') == (0, 2)
    assert gp.version_tuple('0.10-1') == (0, 10) > gp.version_tuple('0.9')
    assert gp.version_tuple('1.0~rc1') == (1, 0)
    assert gp.version_tuple('unknown') is None and gp.version_tuple(None) is None


def test_the_binary_is_at_least_the_minimum(run):
    # the gpuprov built from this tree is one the collection works with
    failed, r = run(gpuprov_info, {'gather': ['scan']})
    assert not failed, r
    assert gp.version_tuple(r['gpuprov_version']) >= gp.version_tuple(gp.MIN_VERSION)
    assert r['gpuprov_version'] == r['scan']['version']


@pytest.mark.parametrize('module', [gpuprov, gpuprov_facts, gpuprov_info])
def test_older_gpuprov_fails_clearly(run, tmp_path, module):
    # everything but --version would pass: nothing runs after the version
    older = '0.1'
    assert gp.version_tuple(older) < gp.version_tuple(gp.MIN_VERSION)
    failed, r = run(module, {'profile': env('GPUPROV_PROFILE'),
                             'binary': stub(tmp_path, 'exit 0\n', version=older)})
    assert failed and not r['changed'], r
    assert r['msg'] == '%s is gpuprov 0.1; this collection needs gpuprov %s or later: ' \
        'upgrade gpuprov on this host' % (tmp_path / 'gpuprov', gp.MIN_VERSION), r['msg']


@pytest.mark.parametrize('answer', [
    'echo "gpuprov: error: unknown option --version" >&2; exit 4',  # before --version
    'echo "something else 1.0"',
    'echo \'{"command": "version"}\'',
])
def test_gpuprov_that_says_no_version_fails_clearly(run, tmp_path, answer):
    failed, r = run(gpuprov, {'profile': env('GPUPROV_PROFILE'),
                              'binary': stub(tmp_path, answer + '\n', version=None)})
    assert failed and 'does not say which gpuprov it is' in r['msg'], r
    assert 'needs gpuprov %s or later' % gp.MIN_VERSION in r['msg']


def test_plain_version_line_is_read(run, tmp_path):
    # a gpuprov whose --version prints only its text line
    script = ('case "$*" in *--version*) echo "gpuprov 9.1"; exit 0 ;; esac\n'
              'echo \'{"command": "scan", "devices": []}\'\n')
    failed, r = run(gpuprov_info, {'gather': ['scan'], 'binary': stub(tmp_path, script, version=None)})
    assert not failed and r['gpuprov_version'] == '9.1', r


# ---- gpuprov_info: read-only documents ----

def test_info_returns_the_documents_as_asked(run):
    failed, r = run(gpuprov_info, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                                   'gather': ['check', 'plan', 'scan']})
    assert not failed and not r['changed'], r
    assert r['exit_statuses'] == {'check': 0, 'plan': 1, 'scan': 0}
    assert [r[c]['command'] for c in ('check', 'plan', 'scan')] == ['check', 'plan', 'scan']
    assert r['check']['summary']['fail'] == 0 and r['failed_findings'] == []
    assert any(s['kind'] == 'device.bind' for s in r['plan']['steps'])
    assert 'topo' not in r


def test_info_default_is_check_and_runs_in_check_mode(run):
    failed, r = run(gpuprov_info, {'root': host('in-use'), 'profile': env('GPUPROV_PROFILE'),
                                   '_ansible_check_mode': True})
    # failed findings and a blocked plan are reported, not a failure
    assert not failed and not r['changed'] and list(r['exit_statuses']) == ['check'], r
    assert r['exit_statuses']['check'] == 2
    assert [f['id'] for f in r['failed_findings']] == ['gpu.in_use', 'gpu.in_use']
    failed, r = run(gpuprov_info, {'root': host('in-use'), 'profile': env('GPUPROV_PROFILE'),
                                   'gather': ['plan', 'topo'], '_ansible_check_mode': True})
    assert not failed and r['exit_statuses'] == {'plan': 2, 'topo': 0}, r
    assert r['plan']['blocked'] and 'failed_findings' not in r


def test_info_scan_needs_no_profile_but_check_does(run):
    failed, r = run(gpuprov_info, {'root': host('r5350-ready'), 'gather': ['scan', 'topo']})
    assert not failed and r['topo']['command'] == 'topo', r
    failed, r = run(gpuprov_info, {'root': host('r5350-ready'), 'gather': ['scan', 'plan']})
    assert failed and r['msg'] == 'gather: plan needs profile', r


def test_info_fails_only_when_gpuprov_could_not_run(run, tmp_path):
    failed, r = run(gpuprov_info, {'root': host('nonexistent'), 'gather': ['scan']})
    assert failed and r['exit_statuses'] == {'scan': 3} and 'nonexistent' in r['msg'], r
    failed, r = run(gpuprov_info, {'gather': ['scan'], 'binary': stub(tmp_path, 'exit 0\n')})
    assert failed and 'scan exited 0 without its document' in r['msg'], r


def parent_loop(tmp_path):
    """The ready host, its bus links making a bridge and the GPU below it each
    other's parent (as tests/cli/t_drift.sh builds it)."""
    tree = str(tmp_path / 'loop')
    shutil.copytree(host('r5350-ready'), tree, symlinks=True)
    bridge, gpu = '0000:40:01.1', '0000:41:00.0'
    os.symlink('../../' + bridge,
               os.path.join(tree, 'sys/devices/pci0000:40', bridge, gpu, bridge))
    link = os.path.join(tree, 'sys/bus/pci/devices', bridge)
    os.unlink(link)
    os.symlink('../../../devices/pci0000:40/%s/%s/%s' % (bridge, gpu, bridge), link)
    return tree


def test_baseline_whose_parents_loop_fails(run, tmp_path):
    # check --baseline used to walk round the loop forever, and the task with it
    start = time.monotonic()
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                              'baseline': parent_loop(tmp_path), 'timeout': 60})
    assert failed and r['exit_status'] == 4 and 'cannot read the baseline' in r['msg']
    assert time.monotonic() - start < 60


def test_timeout_stops_a_gpuprov_that_hangs(run, tmp_path):
    start = time.monotonic()
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                              'binary': stub(tmp_path, 'exec sleep 60\n'), 'timeout': 1})
    assert failed and r['exit_status'] == gp.EXIT_TIMEOUT
    assert 'did not finish within 1 s' in r['msg']
    assert time.monotonic() - start < 30


def test_timeout_with_busybox(run, tmp_path, monkeypatch):
    # a minimal host (the lab's guest) has busybox's timeout: -k, plain seconds
    if not os.path.exists('/bin/busybox'):
        pytest.skip('no busybox')
    bindir = tmp_path / 'bb'
    bindir.mkdir()
    os.symlink('/bin/busybox', str(bindir / 'timeout'))
    monkeypatch.setenv('PATH', '%s:%s' % (bindir, os.environ['PATH']))
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                              'binary': stub(tmp_path, 'exec sleep 60\n'), 'timeout': 1})
    assert failed and r['exit_status'] == gp.EXIT_TIMEOUT, r
    failed, r = run(gpuprov, {'root': host('r5350-ready'), 'profile': env('GPUPROV_PROFILE'),
                              'timeout': 60})
    assert not failed and r['exit_status'] == 0, r


def test_facts_timeout(run, tmp_path):
    failed, r = run(gpuprov_facts, {'root': host('r5350-ready'),
                                    'binary': stub(tmp_path, 'exec sleep 60\n'), 'timeout': 1})
    assert failed and r['exit_status'] == gp.EXIT_TIMEOUT


@pytest.mark.parametrize('hang', [
    'exec sleep 60',  # stopped by TERM at the timeout
    'trap "" TERM; sleep 60',  # ignores TERM (a kernel wait): KILLed 10 s later
])
def test_apply_stopped_at_the_timeout_may_have_changed_the_host(run, tmp_path, hang):
    # the plan has a step; apply hangs: stopped, it leaves an interrupted run
    script = ('case "$*" in\n'
              '*apply*) %s ;;\n'
              '*plan*) echo \'{"command": "plan", "steps": [{"kind": "module.load"}]}\';'
              ' exit 1 ;;\n'
              '*) echo \'{"findings": []}\' ;;\n'
              'esac\n') % hang
    failed, r = run(gpuprov, {'profile': env('GPUPROV_PROFILE'), 'state': 'applied',
                              'binary': stub(tmp_path, script), 'timeout': 1})
    assert failed and r['changed'] and r['exit_status'] == gp.EXIT_TIMEOUT, r
    assert 'apply' in r['msg'] and 'did not finish within 1 s' in r['msg']


@pytest.mark.parametrize('state,out', [
    ('checked', 'echo \'Segmentation fault? {"findings": [\''),
    ('checked', 'echo \'{"command": "check"}\''),
    ('checked', 'echo \'{"command": "plan", "findings": [], "summary": {}}\''),
    ('checked', ':'),
    ('applied', ':'),
    ('applied', 'echo \'{"steps": []}\''),
])
def test_exit_0_without_gpuprovs_document_fails(run, tmp_path, state, out):
    failed, r = run(gpuprov, {'profile': env('GPUPROV_PROFILE'), 'state': state,
                              'binary': stub(tmp_path, out + '\nexit 0\n')})
    assert failed and not r['changed'] and 'without its document' in r['msg'], r


@pytest.fixture
def journals(tmp_path, monkeypatch):
    """A journal directory and a lock of the test's own (gpuprov(8), ENVIRONMENT)."""
    if os.geteuid() != 0:
        pytest.skip('rollback --list needs root')
    d = tmp_path / 'journal'
    d.mkdir(mode=0o700)
    monkeypatch.setenv('GPUPROV_STATE_DIR', str(d))
    monkeypatch.setenv('GPUPROV_RUN_DIR', str(tmp_path / 'run'))
    return d


def test_rollback_of_a_refused_journal_fails(run, journals):
    # a journal others can read: gpuprov refuses it (status invalid); the run
    # it records may still have changed the host
    j = journals / '20990101T000000Z-1.json'
    j.write_text('{"schema_version": 1, "run_id": "20990101T000000Z-1", "status": "done", '
                 '"steps": [{"kind": "module.load", "subject": "vfio_pci", "state": "done"}]}\n')
    j.chmod(0o644)
    failed, r = run(gpuprov, {'state': 'rolled_back'})
    assert failed and not r['changed']
    assert 'refuses the journal of run 20990101T000000Z-1' in r['msg']
    failed, r = run(gpuprov, {'state': 'rolled_back', 'run_id': '20990101T000000Z-1'})
    assert failed and 'refuses the journal' in r['msg']


def test_rollback_nothing_left(run, journals):
    j = journals / '20990101T000000Z-1.json'
    j.write_text('{"schema_version": 1, "run_id": "20990101T000000Z-1", "seq": 1, '
                 '"status": "rolled_back", "steps": [{"kind": "module.load", '
                 '"subject": "vfio_pci", "state": "undone", "undo": {}}]}\n')
    j.chmod(0o600)
    failed, r = run(gpuprov, {'state': 'rolled_back'})
    assert not failed and not r['changed'] and r['msg'] == 'nothing to roll back'


@pytest.mark.parametrize('runs', [
    '[{"run_id": "r1", "status": "paused", "to_undo": 0, "interrupted": false, "next": true}]',
    '[{"run_id": "r1", "status": "done", "interrupted": false, "next": true}]',
    '[{"run_id": "r1", "status": "done", "to_undo": "2", "interrupted": false, "next": true}]',
    '{"r1": {}}',
])
def test_rollback_of_a_state_not_understood_fails(run, tmp_path, runs):
    doc = '{"schema_version": 1, "command": "rollback", "runs": %s}' % runs
    failed, r = run(gpuprov, {'state': 'rolled_back',
                              'binary': stub(tmp_path, "printf '%%s\\n' '%s'\n" % doc)})
    assert failed and not r['changed'], r['msg']
