#!/usr/bin/python3
"""ansible-test, offline: the sanity tests' virtual environments see Debian's
packages (pylint, pycodestyle, yamllint, voluptuous, ...) instead of
installing ansible-test's pinned versions from PyPI, which this machine
cannot reach.  Everything else is ansible-test as Debian ships it: the same
tests, configurations and plugins.  The tools' versions differ from the
pinned ones (Debian 12: pylint 2.16, pycodestyle 2.10, yamllint 1.29,
voluptuous 0.12): a pass here is a pass with those versions.

Usage, from the collection's root (ansible_collections/NS/NAME):
    offline-ansible-test.py sanity --python 3.11 [--test NAME ...]
"""
import sys

from ansible_test._internal import venv  # noqa: E402  pylint: disable=import-error
from ansible_test._internal.commands import sanity  # noqa: E402  pylint: disable=import-error

_create = venv.create_virtual_environment


def _with_system_site_packages(args, python, path, system_site_packages=False, pip=False):
    return _create(args, python, path, True, pip)


def _no_pip(*args, **kwargs):
    return None


sanity.create_virtual_environment = _with_system_site_packages
sanity.run_pip = _no_pip

if __name__ == '__main__':
    from ansible_test._internal import main  # pylint: disable=import-error
    sys.exit(main())
