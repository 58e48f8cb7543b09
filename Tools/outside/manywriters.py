#!/usr/bin/env python3
# WRITERS appcore-serve processes on one new database file at once, one account each, each adding
# COUNT notes (every twentieth a long one, so the write-ahead log grows past a checkpoint): every
# add must be answered as completed, every acknowledged note must be stored, SQLite's integrity
# check must pass, and every process must exit 0. Repeated ROUNDS times on fresh files.
#   Tools/outside/manywriters.py .build/release/appcore-serve 50 200 5 [LONG_NOTE_BYTES]
import json, os, sqlite3, subprocess, sys, tempfile, threading
exe = sys.argv[1]; writers = int(sys.argv[2]); count = int(sys.argv[3]); rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 1
big = int(sys.argv[5]) if len(sys.argv) > 5 else 20000
failed = 0
for round in range(1, rounds + 1):
    d = tempfile.mkdtemp(); db = os.path.join(d, "app.sqlite")
    results = {}
    def run(w):
        user = "writer.%d" % w
        lines = ['{"signUp":{"username":"%s","password":"benchmark"}}' % user, '{"typeUsername":{"username":"%s"}}' % user,
                 '{"typePassword":{"password":"benchmark"}}', '{"signIn":{}}']
        lines += ['{"addNote":{"text":"%s note %d %s"}}' % (user, i, "x" * (big if i % 20 == 0 else 10)) for i in range(count)]
        p = subprocess.run([exe, "--db", db], input="\n".join(lines) + "\n", capture_output=True, text=True)
        replies = [json.loads(line) for line in p.stdout.splitlines()]
        acked = set(i for i, r in enumerate(replies[4:]) if "completed" in r.get("status", {}))
        results[w] = (acked, len(replies), p.returncode, p.stderr.strip()[:300])
    threads = [threading.Thread(target=run, args=(w,)) for w in range(writers)]
    for t in threads: t.start()
    for t in threads: t.join()
    c = sqlite3.connect(db)
    integrity = c.execute("PRAGMA integrity_check").fetchone()[0]
    lost = acknowledged = refused = 0; codes = {}
    for w, (acked, answered, code, err) in sorted(results.items()):
        stored = set(int(t.split()[2]) for (t,) in c.execute("SELECT text FROM notes WHERE text LIKE ?", ("writer.%d note %%" % w,)))
        lost += len(acked - stored); acknowledged += len(acked); refused += count - len(acked)
        codes[code] = codes.get(code, 0) + 1
        if code != 0 or len(acked) != count: print("  writer %d: exit %d, %d/%d acknowledged: %s" % (w, code, len(acked), count, err))
    ok = integrity == "ok" and lost == 0 and refused == 0 and codes == {0: writers}
    failed += not ok
    print("round %d: integrity %s, %d acknowledged, %d lost, %d not acknowledged, exits %s" % (round, integrity, acknowledged, lost, refused, codes))
sys.exit(1 if failed else 0)
