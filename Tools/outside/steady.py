#!/usr/bin/env python3
# appcore-serve on a database file under a steady stream that keeps the number of notes flat:
# each step adds a note, edits a random one and deletes the oldest (one search in 25 steps), over
# NOTES live notes, for SECONDS. Every PERIOD seconds it prints the pace, the process's resident
# memory and the file's and its write-ahead log's sizes: under a stream that changes nothing's
# size, none of them should grow.
#   Tools/outside/steady.py .build/release/appcore-serve 1000 120 [PERIOD]
import collections, json, os, random, subprocess, sys, tempfile, time

exe, notes, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
period = float(sys.argv[4]) if len(sys.argv) > 4 else 10
random.seed(1)
folder = tempfile.mkdtemp()
db = os.path.join(folder, "app.sqlite")
p = subprocess.Popen([exe, "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def ask(intent):
    p.stdin.write(json.dumps(intent) + "\n")
    p.stdin.flush()
    reply = json.loads(p.stdout.readline())
    if "completed" not in reply["status"]:
        sys.exit(f"{intent} ended {reply['status']}")
    return reply


def added_id(reply):
    # An added note is selected (its row may be out of sight: a search's results show).
    return reply["screens"]["notes"]["selectedID"]


def resident_kib():
    with open(f"/proc/{p.pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


def size(path):
    return os.path.getsize(path) if os.path.exists(path) else 0


for intent in [{"signUp": {"username": "steady.user", "password": "benchmark"}}, {"typeUsername": {"username": "steady.user"}},
               {"typePassword": {"password": "benchmark"}}, {"signIn": {}}]:
    ask(intent)
live = collections.deque(added_id(ask({"addNote": {"text": f"seed {i} oat milk" if i % 50 == 0 else f"seed {i}"}})) for i in range(notes))
print("seconds  intents/s  resident MiB  file MiB  log MiB  notes")
start = last = time.time()
steps = done = 0
while time.time() - start < seconds:
    step = steps
    steps += 1
    live.append(added_id(ask({"addNote": {"text": f"step {step} " + ("oat milk" if step % 50 == 0 else "bread")}})))
    ask({"editNote": {"id": random.choice(live), "text": f"edited at step {step}"}})
    ask({"deleteNote": {"id": live.popleft()}})
    done += 3
    if step % 25 == 0:
        ask({"searchNotes": {"query": "oat"}})
        done += 1
    now = time.time()
    if now - last >= period:
        print(f"{now - start:7.0f}  {done / (now - last):9.0f}  {resident_kib() / 1024:12.1f}  {size(db) / 2**20:8.1f}"
              f"  {size(db + '-wal') / 2**20:7.1f}  {len(live):5}", flush=True)
        last, done = now, 0
p.stdin.close()
p.wait()
print(f"exit {p.returncode}")
