#!/usr/bin/env python3
# Two appcore-serve processes on one database edit (and delete against edit) the same note at
# the same moment, 30 rounds each: prints how many rounds stored one change and refused the
# other, and how many acknowledged both (one of them then lost, unless the later had seen the
# earlier); then 20 rounds of an edit sent 300 ms after the other process's edit was answered,
# from the text its client was last sent (the second process hears of the first edit in the
# background meanwhile): each must be refused as a conflict.
#   Tools/outside/conflict.py .build/release/appcore-serve [pos]   (pos: a lone database argument)
import subprocess, json, os, sys, sqlite3, tempfile
S = sys.argv[1]; positional = len(sys.argv) > 2 and sys.argv[2] == "pos"
d = tempfile.mkdtemp(); db = d + "/a.sqlite"; env = dict(os.environ, HOME=d)
def start(): return subprocess.Popen([S, db] if positional else [S, "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)
def send(p, o): p.stdin.write(json.dumps(o) + "\n"); p.stdin.flush()
def reply(p): return json.loads(p.stdout.readline())
def signin(p, up):
    if up: send(p, {"signUp": {"username": "alice.liddell", "password": "wonderland"}}); reply(p)
    for o in [{"typeUsername": {"username": "alice.liddell"}}, {"typePassword": {"password": "wonderland"}}, {"signIn": {}}]:
        send(p, o); reply(p)
a = start(); signin(a, True); send(a, {"addNote": {"text": "base"}}); r = reply(a)
nid = r["screens"]["notes"]["rows"]["changes"]["upserted"][0]["row"]["id"]
b = start(); signin(b, False)
one, both, neither = 0, 0, 0
for rnd in range(1, 31):
    send(a, {"editNote": {"id": nid, "text": f"first {rnd}"}}); send(b, {"editNote": {"id": nid, "text": f"second {rnd}"}})
    ca = "completed" in reply(a)["status"]; cb = "completed" in reply(b)["status"]
    if ca and cb: both += 1
    elif ca or cb: one += 1
    else: neither += 1
# delete against edit
dboth = dref = 0
for rnd in range(1, 31):
    send(a, {"addNote": {"text": f"note {rnd}"}}); r = reply(a)
    nid2 = r["screens"]["notes"]["rows"]["changes"]["upserted"][0]["row"]["id"]
    send(b, {"reloadNotes": {}}); reply(b)
    send(a, {"deleteNote": {"id": nid2}}); send(b, {"editNote": {"id": nid2, "text": f"edited {rnd}"}})
    ca = "completed" in reply(a)["status"]; cb = "completed" in reply(b)["status"]
    if ca and cb: dboth += 1
    else: dref += 1
# an edit 300 ms late, from what its client was shown
import time
late_refused = late_overwrote = 0
send(a, {"addNote": {"text": "shared"}}); r = reply(a)
nid3 = r["screens"]["notes"]["rows"]["changes"]["upserted"][0]["row"]["id"]
send(b, {"reloadNotes": {}}); reply(b)
for rnd in range(1, 21):
    send(a, {"editNote": {"id": nid3, "text": f"theirs {rnd}"}}); reply(a)
    time.sleep(0.3)
    send(b, {"editNote": {"id": nid3, "text": f"mine {rnd}"}})
    if "completed" in reply(b)["status"]: late_overwrote += 1
    else: late_refused += 1
a.stdin.close(); b.stdin.close(); a.wait(); b.wait()
stored = sqlite3.connect(db).execute("SELECT text FROM notes WHERE id = ?", (nid3,)).fetchone()[0]
print(f"edit/edit: one acknowledged and one refused {one}, both acknowledged {both}, neither {neither}; delete/edit: one refused {dref}, both acknowledged {dboth}")
print(f"an edit 300 ms after another's answer: refused as a conflict {late_refused}, stored over it {late_overwrote}; stored text: {stored}")
