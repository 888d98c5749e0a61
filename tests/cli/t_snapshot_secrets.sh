#!/bin/sh
# A snapshot keeps of the network configurations what gpuprov reads (the
# interfaces each owner names) and none of their secrets, in every owner's
# format; the archive is created 0600, also over an existing 0644 file.
set -eu
. "$(dirname "$0")/lib.sh"
t=$d/tree
cp -a build/hosts/r5350-ready "$t"
mkdir -p "$t/etc/NetworkManager/system-connections" "$t/etc/netplan" \
	"$t/etc/systemd/network" "$t/etc/network/interfaces.d"
cat >>"$t/etc/network/interfaces" <<'X'
iface wlan0 inet dhcp
	wpa-ssid corp
	wpa-psk hunter2-ifupdown
	wpa-password hunter2-8021x
X
printf 'iface ens1f1np1 inet manual\n\twireless-key hunter2-wep\n' >"$t/etc/network/interfaces.d/ports"
cat >"$t/etc/NetworkManager/system-connections/wifi.nmconnection" <<'X'
[connection]
interface-name=wlp1s0
[wifi-security]
psk=hunter2-nm
[802-1x]
password=hunter2-nm-eap
private-key-password=hunter2-nm-key
X
cat >"$t/etc/netplan/01-wifi.yaml" <<'X'
network:
  wifis:
    wlp1s0:
      access-points:
        "corp":
          password: "hunter2-netplan"
          auth:
            key-management: eap
            password: hunter2-netplan-eap
X
printf '[NetDev]\nName=wg0\n[WireGuard]\nPrivateKey=hunter2-wg\n[WireGuardPeer]\nPresharedKey=hunter2-wg-psk\n' \
	>"$t/etc/systemd/network/wg0.netdev"
printf '[MACsecTransmitAssociation]\nKey=hunter2-macsec\n[Match]\nName=ens1f0np0\n' \
	>"$t/etc/systemd/network/ms.network"
# what a line scanner could misread: continuations, YAML's other spellings
printf '[NetDev]\nName=wg1\nKind=wireguard\n[WireGuard]\nPrivateKey=\\\nyAnzhunter2contBmk=\n' \
	>"$t/etc/systemd/network/wg1.netdev"
printf 'iface wlan1 inet dhcp\n\twpa-psk \\\n\thunter2value\n' >"$t/etc/network/interfaces.d/wlan1"
printf 'network: {wifis: {wlan0: {access-points: {home: {password: hunter2flow}}}}}\n' \
	>"$t/etc/netplan/02-flow.yaml"
cat >"$t/etc/netplan/03-forms.yaml" <<'X'
network:
  bonds:
    bond0:
      interfaces: [ens1f0np0, ens1f1np1]
  wifis:
    wlan2:
      access-points:
        home: {password: hunter2brace}
        "pa\x73sword": hunter2escape
        ? password
        : hunter2complex
        a: &pw hunter2anchor
X
: >"$d/s.tar.gz"
chmod 644 "$d/s.tar.gz"
(umask 022 && $G -q -r "$t" -o "$d/s.tar.gz" snapshot)
mkdir "$d/x" && tar xzf "$d/s.tar.gz" -C "$d/x"
if grep -r hunter2 "$d/x"; then echo "a secret is in the snapshot"; exit 1; fi
[ "$(stat -c %a "$d/s.tar.gz")" = 600 ] || { echo "archive mode $(stat -c %a "$d/s.tar.gz")"; exit 1; }
# what gpuprov reads of them is there
grep -q '^iface wlan0' "$d/x/etc/network/interfaces"
grep -q '^iface ens1f1np1' "$d/x/etc/network/interfaces.d/ports"
grep -q '^interface-name=wlp1s0' "$d/x/etc/NetworkManager/system-connections/wifi.nmconnection"
grep -q 'wlp1s0:' "$d/x/etc/netplan/01-wifi.yaml"
grep -q '^Name=ens1f0np0' "$d/x/etc/systemd/network/ms.network"
grep -q '^Name=wg1' "$d/x/etc/systemd/network/wg1.netdev"
grep -q '^iface wlan1' "$d/x/etc/network/interfaces.d/wlan1"
grep -q 'interfaces: \[ens1f0np0, ens1f1np1\]' "$d/x/etc/netplan/03-forms.yaml"
# and nothing gpuprov does not read
[ ! -e "$d/x/etc/NetworkManager/system-connections/other" ]
exit 0
