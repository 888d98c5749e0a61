#!/bin/sh
# ansible-test sanity on the collection as ansible-galaxy installs it, offline:
# the tests' virtual environments use Debian's tools instead of PyPI's pinned
# versions (tests/ansible/offline-ansible-test.py says which).  Fails on any
# failed test; prints which were skipped (nothing of their kind to test) --
# a skip is not counted as a pass.
. tests/ansible/lib.sh
cd "$COLL"
/usr/bin/python3 "$OLDPWD/tests/ansible/offline-ansible-test.py" sanity --python 3.11 \
	--python-interpreter /usr/bin/python3.11 --color no --junit >"$D/sanity.log" 2>&1 || {
	grep -v 'locale' "$D/sanity.log" | tail -30; exit 1; }
/usr/bin/python3 - tests/output/junit <<'PY'
import glob, sys, xml.etree.ElementTree as ET
res = {}
for f in glob.glob(sys.argv[1] + '/*.xml'):
    for tc in ET.parse(f).getroot().iter('testcase'):
        res[tc.get('name')] = ('skipped' if tc.find('skipped') is not None else
                               'failed' if tc.find('failure') is not None or tc.find('error') is not None
                               else 'passed')
by = {s: sorted(n for n, v in res.items() if v == s) for s in ('passed', 'skipped', 'failed')}
print('ansible-test sanity: %d passed, %d skipped (%s), %d failed' % (
    len(by['passed']), len(by['skipped']), ' '.join(by['skipped']), len(by['failed'])))
# validate-modules, ansible-doc, pylint, pep8, yamllint, import, compile must have run
need = {'validate-modules', 'ansible-doc', 'pylint', 'pep8', 'yamllint', 'import-python-3.11',
        'compile-python-3.11'}
sys.exit(1 if by['failed'] or not need <= set(by['passed']) else 0)
PY
