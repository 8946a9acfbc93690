#!/bin/sh
# The Python module (lib/vbjournal/vbjournal.py, ctypes over the
# build's libvbjournal.so.1) on the fixture journal (lib-fixture.sql):
# test_vbjournal.py prints its own ok / not ok lines. Debian's python3
# (/usr/bin/python3) when there, else the python3 on PATH.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || py=

if [ -z "$py" ]; then
	t_begin "the Python module"
	t_skip "no python3"
	exit 0
fi
mkjournal "$T/j" <"$here/lib-fixture.sql"
# a copy to write to: register, ack, unregister
cp -r "$T/j" "$T/w"
PYTHONPATH=$here/../../lib/vbjournal VBJOURNAL_LIBRARY=$VBJ_LIB/libvbjournal.so.1 \
	"$py" "$here/test_vbjournal.py" "$T/j" "$T/w" 2>&1
