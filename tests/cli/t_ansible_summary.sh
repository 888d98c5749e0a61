#!/bin/sh
# The role's summary.md takes what hosts report as text: a recorded state
# whose reason, counts, run and drift findings hold Markdown and HTML comes
# out with none of it live (tests/integration/playbooks/summary.yml).
. tests/ansible/lib.sh
ansible-playbook "$COLL/tests/integration/playbooks/summary.yml" -e "out=$D/summary" \
	>"$D/play.log" 2>&1 || { grep -B2 -A20 'FAILED\|ERROR' "$D/play.log" | head -60; exit 1; }
/usr/bin/python3 - "$D/summary/summary.md" <<'PY'
import re, sys
md = open(sys.argv[1]).read()
bad = []
def want(cond, what):
    if not cond:
        bad.append(what)
want('<' not in md and '>' not in md, 'raw < or >: live HTML')
want('&lt;img src=x onerror=alert\\(1\\)&gt;' in md or '&lt;img src=x onerror=alert(1)&gt;' in md,
     'the <img> is not shown as text')
want('&lt;script&gt;' in md and 'a&amp;b' in md, '& < > not entities')
want(not re.search(r'(?<!\\)\[', md), 'an unescaped [ (a link or an image)')
want(not re.search(r'(?<!\\)`', md), 'an unescaped ` (code)')
want(not re.search(r'(?<![\\])\*\*bold', md) and '\\_em\\_' in md, 'live emphasis')
want('\\~\\~gone\\~\\~' in md, 'live strikethrough')
lines = md.splitlines()
want(not any(l.startswith('# forged') or l.startswith('- forged') for l in lines),
     'a newline in a value started a line of its own')
rows = [l for l in lines if l.startswith('| hv')]
want(len(rows) == 1, 'not one table row: %r' % rows)
# six cells: seven pipes that are not escaped
want(all(len(re.findall(r'(?<!\\)\|', r)) == 7 for r in rows), 'a | in a value split a cell: %r' % rows)
want('\\\\\\|' in md, 'a backslash in a value is not escaped')
if bad:
    print('summary.md:', '; '.join(bad))
    print(md)
sys.exit(1 if bad else 0)
PY
