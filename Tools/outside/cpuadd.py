#!/usr/bin/env python3
# CPU time (user + sys) appcore-serve spends on durable addNote intents at a number of notes: one
# process writes NOTES notes, a second signs in and adds ADDS more; run it with ADDS 0 too and
# subtract, to leave out the sign-in (a password hash and the list).
#   Tools/outside/cpuadd.py .build/release/appcore-serve 10000 3000
import json, subprocess, sys, os, tempfile, resource
exe = sys.argv[1]; notes = int(sys.argv[2]); adds = int(sys.argv[3])
d = tempfile.mkdtemp(); db = os.path.join(d, "app.sqlite")
signin = [{"signUp": {"username": "bench.user", "password": "benchmark"}}, {"typeUsername": {"username": "bench.user"}}, {"typePassword": {"password": "benchmark"}}, {"signIn": {}}]
lines = signin + [{"addNote": {"text": f"note {i}"}} for i in range(notes)]
subprocess.run([exe, "--db", db], input="\n".join(json.dumps(o) for o in lines) + "\n", capture_output=True, text=True)
lines = signin[1:] + [{"addNote": {"text": f"more {i}"}} for i in range(adds)]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
subprocess.run([exe, "--db", db], input="\n".join(json.dumps(o) for o in lines) + "\n", capture_output=True, text=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{cpu:.2f} s CPU for sign-in + {adds} adds at {notes} notes: {cpu / max(adds, 1) * 1e6:.0f} µs per add (sign-in included)")
