# gpuprov's text as one line per finding or step, for a grep: text output is
# wrapped at 80 columns, each further line indented by 5 spaces or more (a
# finding's message and hint, a plan step's target), and joined back here
# with one space.  The lab's tap.sh has the same as unwrap().
NR > 1 && /^     / { sub(/^ +/, " "); line = line $0; next }
NR > 1 { print line }
{ line = $0 }
END { if (NR) print line }
