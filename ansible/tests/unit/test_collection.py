# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection as galaxy takes it: a changelog entry for its version, and
the gpuprov it needs stated as module_utils states it (MIN_VERSION)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re

import yaml

from ansible_collections.gpuprov.fleet.plugins.module_utils import gpuprov as gp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(name):
    with open(os.path.join(ROOT, name)) as f:
        return f.read()


def collection_version():
    """galaxy.yml's version; MANIFEST.json's in a built or installed collection."""
    if os.path.exists(os.path.join(ROOT, 'MANIFEST.json')):
        return json.loads(read('MANIFEST.json'))['collection_info']['version']
    return yaml.safe_load(read('galaxy.yml'))['version']


def test_changelog_has_this_version_first_with_the_gpuprov_it_needs():
    log = read('CHANGELOG.md')
    versions = re.findall(r'^## (\S+)$', log, re.M)
    assert versions and versions[0] == collection_version(), versions
    newest = log.split('\n## ')[1]
    assert 'Needs gpuprov %s or later.' % gp.MIN_VERSION in newest


def test_readme_states_the_compatibility():
    readme = read('README.md')
    assert '\n## Compatibility\n' in readme
    row = '| %s | %s or later |' % (collection_version(), gp.MIN_VERSION)
    assert row in readme, row
    assert '`MIN_VERSION`' in readme
