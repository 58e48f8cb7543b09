#!/usr/bin/env python3
# Two appcore-serve processes on one database file at once, signed in to the same account, each
# fed COUNT intents (adds, and one in ten a search): every intent must be answered as completed,
# every note acknowledged must be stored once, SQLite's integrity check must pass, and closing
# must leave the write-ahead log empty (each process copies it into the file as it grows, with a
# connection of its own).
#   Tools/outside/twowriters.py .build/release/appcore-serve 4000
import json, os, sqlite3, subprocess, sys, tempfile, threading
exe = sys.argv[1]; count = int(sys.argv[2])
d = tempfile.mkdtemp(); db = os.path.join(d, "app.sqlite")
subprocess.run([exe, "--db", db], input='{"signUp":{"username":"two.writers","password":"benchmark"}}\n', capture_output=True, text=True, check=True)
results = {}
def run(tag):
    lines = ['{"typeUsername":{"username":"two.writers"}}', '{"typePassword":{"password":"benchmark"}}', '{"signIn":{}}']
    lines += ['{"searchNotes":{"query":"note"}}' if i % 10 == 9 else '{"addNote":{"text":"%s note %d"}}' % (tag, i) for i in range(count)]
    p = subprocess.run([exe, "--db", db], input="\n".join(lines) + "\n", capture_output=True, text=True)
    replies = [json.loads(line) for line in p.stdout.splitlines()]
    completed = sum(1 for r in replies if "completed" in r.get("status", {}))
    results[tag] = (len(lines), len(replies), completed, p.returncode)
threads = [threading.Thread(target=run, args=(tag,)) for tag in ("a", "b")]
for t in threads: t.start()
for t in threads: t.join()
c = sqlite3.connect(db)
adds = count - count // 10
ok = True
for tag, (sent, answered, completed, code) in sorted(results.items()):
    stored = c.execute("SELECT count(*) FROM notes WHERE text LIKE ?", (f"{tag} note %",)).fetchone()[0]
    print(f"process {tag}: {answered}/{sent} answered, {completed} completed, exit {code}, {stored}/{adds} notes stored")
    ok = ok and answered == sent == completed and code == 0 and stored == adds
integrity = c.execute("PRAGMA integrity_check").fetchone()[0]
wal = os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0
print(f"integrity {integrity}, write-ahead log left {wal} bytes")
sys.exit(0 if ok and integrity == "ok" and wal == 0 else 1)
