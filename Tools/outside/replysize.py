#!/usr/bin/env python3
# appcore-serve on a database file with NOTES notes written by one process; a second process signs
# in, searches and clears the search: prints the size of each reply and how long it took.
#   Tools/outside/replysize.py .build/release/appcore-serve 10000
import json, subprocess, sys, time, os, tempfile
exe = sys.argv[1]; notes = int(sys.argv[2])
d = tempfile.mkdtemp(); db = os.path.join(d, "app.sqlite")
def start(): return subprocess.Popen([exe, "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def ask(p, obj):
    p.stdin.write(json.dumps(obj) + "\n"); p.stdin.flush()
    return p.stdout.readline()
a = start()
for o in [{"signUp": {"username": "bench.user", "password": "benchmark"}}, {"typeUsername": {"username": "bench.user"}}, {"typePassword": {"password": "benchmark"}}, {"signIn": {}}]: ask(a, o)
for i in range(notes): ask(a, {"addNote": {"text": f"note {i}: remember the " + ("oat milk" if i % 100 == 0 else "bread")}})
a.stdin.close(); a.wait()
b = start()
ask(b, {"typeUsername": {"username": "bench.user"}}); ask(b, {"typePassword": {"password": "benchmark"}})
t = time.time(); r = ask(b, {"signIn": {}}); el = time.time() - t
out = [f"signIn {len(r)} B in {el*1000:.0f} ms"]
for name, o in [("search milk", {"searchNotes": {"query": "milk"}}), ("clear search", {"searchNotes": {"query": ""}}), ("reload", {"reloadNotes": {}})]:
    t = time.time(); r = ask(b, o); out.append(f"{name} {len(r)} B in {(time.time()-t)*1000:.0f} ms")
b.stdin.close(); b.wait()
print("; ".join(out))
