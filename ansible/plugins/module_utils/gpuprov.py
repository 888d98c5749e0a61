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
import time

# gpuprov(8) EXIT STATUS
EXIT_OK = 0
EXIT_WARN = 1  # check: warnings only; plan: changes pending
EXIT_FAIL = 2  # check: a failure; plan: blocked; apply: refused or failed
EXIT_HOST = 3  # the host state could not be read
EXIT_INPUT = 4  # bad input
EXIT_LOCKED = 5  # another run holds the lock
EXIT_UNDO_FAILED = 7  # apply/rollback: an undo failed, the host is left changed
EXIT_DECLINED = 8  # apply/rollback: answered no at the prompt (never with --yes)
# timeout(1): the command ran past its time and was sent TERM (124), then KILL (137)
EXIT_TIMEOUT = 124
EXIT_KILLED = 137


def base_args(module):
    """The binary and the options every command shares."""
    p = module.params
    args = [p['binary'], '--json']
    if p.get('root'):
        args += ['-r', p['root']]
    if p.get('profile'):
        args += ['-p', p['profile']]
    return args


def limited(module, args):
    """args under timeout(1) when the module's timeout is set: TERM when the
    time is up, KILL 10 seconds later if gpuprov is still there."""
    seconds = module.params.get('timeout')
    if not seconds:
        return args
    if seconds < 0:
        module.fail_json(msg='timeout: %d is not a number of seconds (0: none)' % seconds)
    # -k and a plain number of seconds: what coreutils' timeout and busybox's
    # (a minimal host, the lab's guest) both take; --kill-after= and "600s"
    # only coreutils does
    return [module.get_bin_path('timeout', required=True), '-k', '10', str(seconds)] + args


def run(module, args):
    """Runs gpuprov; returns (rc, document, stderr).  document is {} when
    stdout is not one JSON object (a crash, or a binary that is not gpuprov).
    A run stopped at the module's timeout returns EXIT_TIMEOUT with an error
    document saying so: timeout(1)'s TERM (124), or its KILL 10 s later,
    which run_command reports as a negative status (timeout(1) kills its
    whole process group, itself included)."""
    start = time.monotonic()
    rc, out, err = module.run_command(limited(module, args))
    seconds = module.params.get('timeout')
    # coreutils' timeout exits 124 (or 137); busybox's, the signal's 128+N
    stopped = rc in (EXIT_TIMEOUT, EXIT_KILLED) or rc < 0 or rc > EXIT_DECLINED
    if seconds and stopped and time.monotonic() - start >= seconds:
        why = "'%s' did not finish within %d s (the timeout option): stopped" % (
            ' '.join(args), seconds)
        return EXIT_TIMEOUT, {'error': why}, err
    try:
        doc = json.loads(out) if out.strip() else {}
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    return rc, doc, err


def is_document(doc, command, *lists):
    """Whether doc is gpuprov's document of command, each of lists a list:
    a run that exits 0, 1 or 2 without one (a crash, a binary that is not
    gpuprov) is not a host found in order."""
    return doc.get('command') == command and all(isinstance(doc.get(k), list) for k in lists)


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
