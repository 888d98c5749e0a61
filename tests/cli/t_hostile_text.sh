#!/bin/sh
# Control characters from sysfs or a profile never reach the terminal raw,
# and --json / domxml give valid documents (or exit 4), whatever the bytes.
set -eu
. "$(dirname "$0")/lib.sh"
ESC=$(printf '\033')
BEL=$(printf '\007')
raw() { LC_ALL=C grep -q "[$ESC$BEL]" "$1"; }
# "! cmd" never stops "set -e": a function's status does
clean() { ! raw "$1"; }
lacks() { ! grep -q "$1" "$2"; }

# a snapshot tree whose BIOS version, slot name and NIC name carry escapes
cp -a build/hosts/r5350-ready "$d/tree"
printf '5.32\033]0;owned\007\033[2J\n' >"$d/tree/sys/class/dmi/id/bios_version"
mv "$d/tree/sys/bus/pci/slots/1" "$d/tree/sys/bus/pci/slots/1$ESC[8m"
n=$(readlink "$d/tree/sys/class/net/eno1")
bad="e$(printf '\351')$ESC[31m"
mv "$d/tree/sys/${n#../../}" "$d/tree/sys/$(dirname "${n#../../}")/$bad"
rm "$d/tree/sys/class/net/eno1"
ln -s "$(dirname "$n")/$bad" "$d/tree/sys/class/net/$bad"
for cmd in scan topo; do
	$G -r "$d/tree" $cmd >"$d/out" 2>"$d/err" || true
	clean "$d/out" && clean "$d/err"
	grep -q 'x1b' "$d/out"
	$G -r "$d/tree" --json $cmd >"$d/out.json" 2>/dev/null || true
	python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read())' "$d/out.json"
done
$G -r "$d/tree" scan >"$d/out"
grep -qF 'BIOS 5.32\x1b]0;owned\x07\x1b[2J' "$d/out"
grep -qF 'e\xe9\x1b[31m' "$d/out"

# a profile value with a control character: file:line, exit 4, escaped
printf '[server]\nmodel = A\033[2Jb\n[gpus]\nmatch = 10de:20b5\ncount = 2\n' >"$d/m.ini"
set +e
$G -r build/hosts/r5350-ready -p "$d/m.ini" check >"$d/out" 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] && clean "$d/err" && grep -q "m.ini:2: bad value for model: 'A\\\\x1b\[2Jb'" "$d/err"

# a profile path that is not UTF-8: domxml exits 4 and writes no XML; the
# JSON documents stay JSON
p="$d/caf$(printf '\351')$ESC.ini"
cp tests/cli/profiles/vm-lab.ini "$p"
set +e
$G -r build/hosts/r5350-ready -p "$p" domxml >"$d/out" 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] && [ ! -s "$d/out" ] && grep -q 'would not be well-formed' "$d/err" && clean "$d/err"
$G -r build/hosts/r5350-ready -p "$p" --json check >"$d/out.json" 2>/dev/null || true
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read()); assert "\ufffd" in d["profile"]' \
	"$d/out.json"

# a newline in a slot's name cannot forge a line of scan's table: the
# renderer's own newlines are the only ones
cp -a build/hosts/r5350-ready "$d/nl"
mv "$d/nl/sys/bus/pci/slots/3" "$d/nl/sys/bus/pci/slots/$(printf '3\nFAKE-LINE all clear')"
$G -r "$d/nl" scan >"$d/out"
lacks '^FAKE-LINE' "$d/out"
grep -qF '3\x0aFAKE-LINE all clear' "$d/out"

# DEL and the C1 controls (U+0080..U+009F) are valid UTF-8 that json-c writes
# raw; the terminal filter would make them the text \xNN inside a JSON string
# (no JSON escape). The JSON printers write \u007f..\u009f, so the document
# parses and holds the character. A local user's process name is enough on a
# live host (review2 F3).
C1=$(printf '\302\233')
json_has() { # FILE STRING: parses, holds STRING, and shows it as \u escapes
	python3 -c 'import json,sys
t=open(sys.argv[1],"rb").read().decode()
assert "\\x" not in t.replace("\\\\","")
assert sys.argv[2] in json.dumps(json.loads(t), ensure_ascii=False), sys.argv[2]' "$1" "$2"
	jq . "$1" >/dev/null
	grep -qF '\u009b' "$1"
}
cp -a build/hosts/in-use "$d/iu"
printf 'py\302\2332Jthon3\n' >"$d/iu/proc/40211/comm"
$G -r "$d/iu" -p profiles/h3c-r5350-g6.ini --json check >"$d/iu.json" 2>/dev/null || true
json_has "$d/iu.json" "py${C1}2Jthon3"

# scan --json: a C1 and DEL in the DMI product (json-c's document head) and a
# C1 in a driver name (the direct device writer)
cp -a build/hosts/r5350-ready "$d/c1"
printf 'prod\302\2332Juct\177x\n' >"$d/c1/sys/class/dmi/id/product_name"
mkdir "$d/c1/sys/bus/pci/drivers/nv${C1}drv"
ln -sfn "../../../../bus/pci/drivers/nv${C1}drv" "$d/c1/sys/bus/pci/devices/0000:41:00.0/driver"
$G -r "$d/c1" --json scan >"$d/c1.json"
json_has "$d/c1.json" "prod${C1}2Juct$(printf '\177')x"
json_has "$d/c1.json" "nv${C1}drv"
grep -qF '"driver": "nv\u009bdrv"' "$d/c1.json"
grep -qF 'prod\u009b2Juct\u007fx' "$d/c1.json"

# ... and the domain XML writes them as character references (CDATA split
# around one; in a comment, the text the terminal shows): what domxml prints
# is what it writes, from a profile path and a template that hold them
mkdir "$d/x"
sed "s|^\[vm\]|[vm]\ntemplate = t.xml|" tests/cli/profiles/vm-lab.ini >"$d/x/p${C1}.ini"
sed "s|\(<domain [^>]*>\)|\1<!-- a${C1}b --><description>d${C1}e$(printf '\177')f</description><title><![CDATA[g${C1}h<]]></title>|" \
	templates/domain-q35-ovmf.xml >"$d/x/t.xml"
grep -q "<description>d${C1}" "$d/x/t.xml"
$G -r build/hosts/lab-messy -p "$d/x/p${C1}.ini" domxml >"$d/x/out.xml" 2>/dev/null
$G -r build/hosts/lab-messy -p "$d/x/p${C1}.ini" domxml -o "$d/x/file.xml" 2>/dev/null
cmp "$d/x/out.xml" "$d/x/file.xml"
grep -qF 'p&#x9b;.ini"' "$d/x/out.xml"
grep -qF '<description>d&#x9b;e&#x7f;f</description>' "$d/x/out.xml"
grep -qF '<title><![CDATA[g]]>&#x9b;<![CDATA[h<]]></title>' "$d/x/out.xml"
grep -qF '<!-- a\xc2\x9bb -->' "$d/x/out.xml"
python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.find("description").text == "d\x9be\x7ff"
assert r.find("title").text == "g\x9bh<"
assert any(e.get("profile", "").endswith("p\x9b.ini") for e in r.iter())' "$d/x/out.xml"

# a newline in what a message quotes (an -r tree's entry name, a profile's
# path) cannot forge a "gpuprov: ..." line on stderr, nor a second line in
# --json's "error": every message is escaped where it is formatted
forged() { # FILE: a line of its own that the name made
	grep -q '^gpuprov: all clear' "$1"
}
one_line_error() { # FILE: --json's "error" holds neither a newline nor a tab
	python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; sys.exit("\n" in e or "\t" in e)' "$1"
}
cp -a build/hosts/r5350-ready "$d/fs"
s="$d/fs/sys/bus/pci/slots/$(printf '3\ngpuprov: all clear')"
mv "$d/fs/sys/bus/pci/slots/3" "$s"
chown 65534 "$s" # as root, a slot libpci opens must be root's: refused, naming it
rc=0
$G -r "$d/fs" scan >/dev/null 2>"$d/err" || rc=$?
$G -r "$d/fs" --json scan >"$d/out.json" 2>"$d/err2" || true
[ $rc -eq 3 ] || fail "a slot not root's: exit $rc, want 3"
grep -qF 'slots/3\x0agpuprov: all clear' "$d/err" || fail "the slot's name is not escaped"
if forged "$d/err" || forged "$d/err2"; then fail "a slot's name forged a line"; fi
one_line_error "$d/out.json" || fail "a slot's name made --json's error two lines"
p="$d/$(printf 'p\ngpuprov: all clear\t.ini')"
rc=0
$G -r build/hosts/r5350-ready -p "$p" check >/dev/null 2>"$d/err" || rc=$?
$G -r build/hosts/r5350-ready -p "$p" --json check >"$d/out.json" 2>"$d/err2" || true
[ $rc -eq 4 ] || fail "a profile that is not there: exit $rc, want 4"
grep -qF 'p\x0agpuprov: all clear\x09.ini' "$d/err" || fail "the profile's path is not escaped"
if forged "$d/err" || forged "$d/err2"; then fail "a profile's path forged a line"; fi
one_line_error "$d/out.json" || fail "a profile's path made --json's error two lines"
