-- SPDX-License-Identifier: LGPL-2.1-or-later
-- The journal libvbjournal's tests read (t-lib.sh, t-python.sh, and
-- make deb-check), made by vbj-mkjournal: journal id 00000000000000aa,
-- epochs 1-3 closed and 4 open, no daemon. Its handles are too short
-- to open, so every path is the stored one; /srv/vbj-fixture needs
-- not exist.
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/srv/vbj-fixture');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 1), (4, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(2, 1, x'01', '/srv/vbj-fixture/a'),
	(3, 1, x'02', '/srv/vbj-fixture/b'),
	-- "/srv/vbj-fixture/n" and a byte that is not UTF-8
	(3, 1, x'03', CAST(x'2f7372762f76626a2d666978747572652f6eff' AS TEXT)),
	-- the open epoch: in no answer
	(4, 1, x'05', '/srv/vbj-fixture/open');
INSERT INTO moves(epoch, fs, handle, path) VALUES
	(3, 1, x'04', '/srv/vbj-fixture/m');
INSERT INTO objects(epoch, fs, handle, ino, generation) VALUES
	(3, 1, CAST('ino:77:1' AS BLOB), 77, 1);
INSERT INTO gaps(epoch, fs, scope, reason, path) VALUES
	(3, 1, 'fs', 'overflow', '/srv/vbj-fixture');
INSERT INTO consumers(name, epoch) VALUES('backup', 1);
