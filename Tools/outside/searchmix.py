#!/usr/bin/env python3
# appcore-serve on a database file, signed in to NOTES notes, fed STREAM intents of which one in
# ten is a search (searchNotes) for a word one note in a hundred holds, and the rest adds: prints
# intents per second and the slowest reply (a search that waited out the typing debounce took
# over 300 ms).
#   Tools/outside/searchmix.py .build/release/appcore-serve 1000 200
import json, subprocess, sys, time, os, tempfile
exe = sys.argv[1]; notes = int(sys.argv[2]); stream = int(sys.argv[3])
d = tempfile.mkdtemp(); db = os.path.join(d, "app.sqlite")
p = subprocess.Popen([exe, "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def ask(obj):
    p.stdin.write(json.dumps(obj) + "\n"); p.stdin.flush()
    return json.loads(p.stdout.readline())
for o in [{"signUp": {"username": "bench.user", "password": "benchmark"}}, {"typeUsername": {"username": "bench.user"}},
          {"typePassword": {"password": "benchmark"}}, {"signIn": {}}]:
    ask(o)
# One note in a hundred holds the word searched for, so a search's answer stays small.
for i in range(notes): ask({"addNote": {"text": f"note {i} " + ("oat milk" if i % 100 == 0 else "bread")}})
start = time.time(); slowest = 0
for i in range(stream):
    t = time.time()
    r = ask({"searchNotes": {"query": "milk" if i % 20 == 0 else "oat"}} if i % 10 == 0 else {"addNote": {"text": f"more {i}"}})
    slowest = max(slowest, time.time() - t)
el = time.time() - start
p.stdin.close(); p.wait()
print(f"{stream/el:.1f} intents/s, slowest {slowest*1000:.0f} ms")
