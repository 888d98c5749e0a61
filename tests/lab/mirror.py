#!/usr/bin/env python3
"""Prints the Debian archive this machine's apt uses, for the lab's own
downloads (debootstrap, Debian 11's OVMF): the tree names no mirror.

    python3 tests/lab/mirror.py        e.g. http://ftp.example.org/debian

GP_LAB_MIRROR, when set, is printed as it is.  Otherwise the first enabled
"deb" source of APT_ETC (default /etc/apt: sources.list, sources.list.d/
*.list in the one-line format, sources.list.d/*.sources in deb822) whose
components include main and which serves this machine's release
(VERSION_CODENAME of os-release: bookworm) -- so that a third party's
repository (a "nodistro main" line) is never taken for Debian's.  Exit 1, with a message, when there
is none."""
import glob
import os
import sys


def one_line(path):
    """(types, uris, suites, components) of each line of a .list file"""
    for line in open(path, encoding='utf-8', errors='replace'):
        words = line.split('#', 1)[0].split()
        if not words:
            continue
        kind, rest = words[0], words[1:]
        if rest and rest[0].startswith('['):  # [ options ], maybe spread over words
            while rest and not rest[0].endswith(']'):
                rest = rest[1:]
            rest = rest[1:]
        if len(rest) >= 2:
            yield [kind], [rest[0]], [rest[1]], rest[2:]


def deb822(path):
    """the same, for each stanza of a .sources file"""
    text = open(path, encoding='utf-8', errors='replace').read()
    for stanza in text.split('\n\n'):
        f, key = {}, None
        for line in stanza.splitlines():
            if line.startswith('#'):
                continue
            if line[:1] in (' ', '\t') and key:
                f[key] += ' ' + line.strip()
            elif ':' in line:
                key, val = line.split(':', 1)
                key = key.strip().lower()
                f[key] = val.strip()
        if f.get('enabled', 'yes').lower() == 'no':
            continue
        yield (f.get('types', '').split(), f.get('uris', '').split(),
               f.get('suites', '').split(), f.get('components', '').split())


def sources(etc):
    main = os.path.join(etc, 'sources.list')
    if os.path.isfile(main):
        yield from one_line(main)
    for p in sorted(glob.glob(os.path.join(etc, 'sources.list.d', '*'))):
        if p.endswith('.list'):
            yield from one_line(p)
        elif p.endswith('.sources'):
            yield from deb822(p)


def codename():
    path = os.environ.get('OS_RELEASE', '/etc/os-release')
    try:
        for line in open(path, encoding='utf-8', errors='replace'):
            if line.startswith('VERSION_CODENAME='):
                return line.split('=', 1)[1].strip().strip('"')
    except OSError:
        pass
    return 'bookworm'


def main():
    if os.environ.get('GP_LAB_MIRROR'):
        print(os.environ['GP_LAB_MIRROR'])
        return 0
    etc = os.environ.get('APT_ETC', '/etc/apt')
    release = codename()
    for types, uris, suites, comps in sources(etc):
        if 'deb' not in types or 'main' not in comps or release not in suites:
            continue
        for u in uris:
            if u.startswith(('http://', 'https://', 'file:/')):
                print(u.rstrip('/'))
                return 0
    print('mirror.py: no source of %s main in %s (sources.list, '
          'sources.list.d/); set GP_LAB_MIRROR' % (release, etc), file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main())
