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
import os
import re
import time

# The oldest gpuprov these modules work with.  They read what its --json
# documents hold from 0.2 on: "version" in every document (and the one
# --version prints), plan's "files" with their diffs, rollback --list's run
# states.  Stated here only; each module checks the managed host's gpuprov
# against it before anything else runs (README.md, Compatibility, names it).
MIN_VERSION = '0.2'

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


def version_tuple(text):
    """(0, 2) of "0.2", "0.2-1" or "0.2~rc1" (what a Debian version may add
    is ignored); None when text does not start with a number."""
    m = re.match(r'\s*v?(\d+(?:\.\d+)*)', text if isinstance(text, str) else '')
    return tuple(int(n) for n in m.group(1).split('.')) if m else None


def find_binary(module):
    """The gpuprov program: the binary option when it is a path (which must
    be an executable file), else that name or "gpuprov" found by
    get_bin_path (PATH and the sbin directories).  A program that is not
    there fails the task saying so, not with the OS's errno."""
    name = module.params.get('binary') or 'gpuprov'
    if '/' in name:
        if not (os.path.isfile(name) and os.access(name, os.X_OK)):
            module.fail_json(msg='gpuprov not found: %s (the binary option) is not an '
                             'executable file on this host' % name, changed=False)
        return name
    return module.get_bin_path(name, required=True)


def version_of(module, binary):
    """What `gpuprov --json --version` says its version is ("version" of
    its document; a gpuprov without that document prints "gpuprov X"), or
    None when it says nothing of the kind."""
    rc, out, err, stopped = run_raw(module, [binary, '--json', '--version'])
    if stopped:
        module.fail_json(msg=stopped, exit_status=EXIT_TIMEOUT, changed=False)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    if rc == EXIT_OK and isinstance(doc, dict) and isinstance(doc.get('version'), str):
        return doc['version']
    m = re.match(r'\s*gpuprov\s+(\S+)', out or '')
    return m.group(1) if rc == EXIT_OK and m else None


def prepare(module):
    """Finds gpuprov and checks that it is at least MIN_VERSION: the binary
    option becomes the program found; returns the version.  Fails the task
    when there is no gpuprov, or one too old (or too broken) to say which
    version it is."""
    binary = find_binary(module)
    version = version_of(module, binary)
    need = 'this collection needs gpuprov %s or later' % MIN_VERSION
    if version is None or version_tuple(version) is None:
        module.fail_json(msg="%s does not say which gpuprov it is ('gpuprov --version' printed "
                         "no version): %s" % (binary, need), changed=False)
    if version_tuple(version) < version_tuple(MIN_VERSION):
        module.fail_json(msg='%s is gpuprov %s; %s: upgrade gpuprov on this host' % (
            binary, version, need), changed=False, gpuprov_version=version)
    module.params['binary'] = binary
    return version


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


def run_raw(module, args):
    """Runs gpuprov under the module's timeout; returns (rc, stdout, stderr,
    stopped): stopped is the message of a run stopped at the timeout, else
    None.  timeout(1)'s TERM exits 124, its KILL 10 s later shows as a
    negative status (timeout(1) kills its whole process group, itself
    included)."""
    start = time.monotonic()
    rc, out, err = module.run_command(limited(module, args))
    seconds = module.params.get('timeout')
    # coreutils' timeout exits 124 (or 137); busybox's, the signal's 128+N
    stopped = rc in (EXIT_TIMEOUT, EXIT_KILLED) or rc < 0 or rc > EXIT_DECLINED
    if seconds and stopped and time.monotonic() - start >= seconds:
        why = "'%s' did not finish within %d s (the timeout option): stopped" % (
            ' '.join(args), seconds)
        return EXIT_TIMEOUT, out, err, why
    return rc, out, err, None


def run(module, args):
    """Runs gpuprov; returns (rc, document, stderr).  document is {} when
    stdout is not one JSON object (a crash, or a binary that is not gpuprov).
    A run stopped at the module's timeout returns EXIT_TIMEOUT with an error
    document saying so."""
    rc, out, err, stopped = run_raw(module, args)
    if stopped:
        return EXIT_TIMEOUT, {'error': stopped}, err
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


def failed(findings, accepted=()):
    """Findings of severity fail, less those accepted (--accept) by id."""
    return [f for f in findings if f.get('severity') == 'fail' and f.get('id') not in accepted]


def named(findings):
    """The findings, for a message: "id subject: message; ..."."""
    return '; '.join('%s %s: %s' % (f.get('id'), f.get('subject'), f.get('message'))
                     for f in findings)


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
