#!/bin/sh
# gpuprov report in a real browser: tests/report/check.py renders the reports
# of a healthy two-GPU host, a 16-GPU host behind switches and a failing host
# with markup in its names in headless Chromium (no console message, a
# screenshot, a PDF, assertions on the DOM), validates the SVG with xmllint,
# and times the report of the 4,000-function bench host.
set -eu
exec python3 tests/report/check.py
