# -*- coding: utf-8 -*-
# Copyright: gpuprov contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running gpuprov with --json and reading its one document.

gpuprov prints exactly one JSON document on stdout under --json, failures
included ("error", "exit_status"); its exit status says what happened
(gpuprov(8), EXIT STATUS).  Everything here goes through that contract.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

# gpuprov(8) EXIT STATUS
EXIT_OK = 0
EXIT_WARN = 1  # check: warnings only; plan: changes pending
EXIT_FAIL = 2  # check: a failure; plan: blocked; apply: refused or failed
EXIT_HOST = 3  # the host state could not be read
EXIT_INPUT = 4  # bad input
EXIT_LOCKED = 5  # another run holds the lock
EXIT_UNDO_FAILED = 7  # apply/rollback: an undo failed, the host is left changed


def base_args(module):
    """The binary and the options every command shares."""
    p = module.params
    args = [p['binary'], '--json']
    if p.get('root'):
        args += ['-r', p['root']]
    if p.get('profile'):
        args += ['-p', p['profile']]
    return args


def run(module, args):
    """Runs gpuprov; returns (rc, document, stderr).  document is {} when
    stdout is not one JSON object (a crash, or a binary that is not gpuprov)."""
    rc, out, err = module.run_command(args)
    try:
        doc = json.loads(out) if out.strip() else {}
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    return rc, doc, err


def why(doc, rc, err):
    """gpuprov's own message for a failed run."""
    if doc.get('error'):
        return doc['error']
    lines = [ln for ln in (err or '').splitlines() if ln.strip()]
    if lines:
        return lines[-1]
    return 'gpuprov exited with status %d' % rc


def not_ok(findings):
    """Findings that are not ok."""
    return [f for f in findings if f.get('severity') != 'ok']


def drifted(findings):
    """drift.* findings that are not ok (check --baseline)."""
    return [f for f in not_ok(findings) if f.get('id', '').startswith('drift.')]


def plan_diff(doc):
    """Ansible's diff for a plan document: the files' unified diffs when the
    plan carries them ("files"[].diff), else the steps, current -> target."""
    files = doc.get('files') or []
    prepared = [f['diff'] for f in files if f.get('changed') and f.get('diff')]
    steps = doc.get('steps') or []
    before = ''.join('%s %s: %s\n' % (s.get('kind'), s.get('subject'), s.get('current'))
                     for s in steps)
    after = ''.join('%s %s: %s\n' % (s.get('kind'), s.get('subject'), s.get('target'))
                    for s in steps)
    diff = [{'before_header': 'host now', 'after_header': 'after apply',
             'before': before, 'after': after}]
    if prepared:
        diff.append({'prepared': ''.join(prepared)})
    return diff
