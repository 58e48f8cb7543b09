#!/usr/bin/env python3
# A stream as a busy user sends it through appcore-serve, at several numbers of notes: adds,
# edits of notes on the first page, and one intent in ten a search (in turn for a word one note
# in ten holds, a word one note in a thousand holds, and clearing it; WORDS=every adds a word
# every note holds to the turn). Prints intents per second at each
# size and its ratio to the first size's pace (the bar: 0.7 at 10,000, 0.5 at 100,000),
# and what signing in took there (the password hash is the same at every size).
#   Tools/outside/mixpace.py .build/release/appcore-serve [STREAM] [SIZES...]
import json, os, sqlite3, subprocess, sys, tempfile, time
exe = sys.argv[1]
stream = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
sizes = [int(n) for n in sys.argv[3:]] or [1000, 10000, 100000]
folder = tempfile.mkdtemp()
signin = [{"typeUsername": {"username": "mix.user"}}, {"typePassword": {"password": "mixpace1"}}, {"signIn": {}}]

def prepared(notes):
    path = os.path.join(folder, f"mix{notes}.sqlite")
    lines = [{"signUp": {"username": "mix.user", "password": "mixpace1"}}] + signin
    lines += [{"addNote": {"text": f"note {i} plain" + (" tenth" if i % 10 == 0 else "") + (" thousandth" if i % 1000 == 0 else "")}} for i in range(notes)]
    subprocess.run([exe, "--db", path], input="".join(json.dumps(o) + "\n" for o in lines), capture_output=True, text=True, check=True)
    # Indexed for search, as a database in use for a while is: a process stays open until it is.
    # Indexing starts at a sign-in, a write or a search: the owner signs in and searches once.
    p = subprocess.Popen([exe, "--db", path], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    p.stdin.write("".join(json.dumps(o) + "\n" for o in signin + [{"searchNotes": {"query": "tenth"}}])); p.stdin.flush()
    query = "SELECT count(*) FROM notes WHERE change_sequence > coalesce((SELECT indexed_through FROM search_progress WHERE owner_id = notes.owner_id), 0)"
    for _ in range(1200):
        if sqlite3.connect(path).execute(query).fetchone()[0] == 0: break
        time.sleep(0.1)
    p.stdin.close(); p.wait()
    return path

def pace(path):
    shown = [row[0] for row in sqlite3.connect(path).execute("SELECT id FROM notes ORDER BY updated_at DESC, id DESC LIMIT 10")]
    searches = [{"searchNotes": {"query": "tenth"}}, {"searchNotes": {"query": "thousandth"}}, {"searchNotes": {"query": ""}}]
    if os.environ.get("WORDS") == "every": searches.insert(1, {"searchNotes": {"query": "plain"}})
    lines = []
    for i in range(stream):
        if i % 10 == 9: lines.append(searches[(i // 10) % 3])
        elif i % 10 == 4: lines.append({"editNote": {"id": shown[(i // 10) % len(shown)], "text": f"edited {i}"}})
        else: lines.append({"addNote": {"text": f"more {i} plain"}})
    p = subprocess.Popen([exe, "--db", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    for o in signin[:-1]:
        p.stdin.write(json.dumps(o) + "\n"); p.stdin.flush(); p.stdout.readline()
    signing, cpu = time.time(), cpu_seconds(p.pid)
    p.stdin.write(json.dumps(signin[-1]) + "\n"); p.stdin.flush(); p.stdout.readline()
    sign_in = (time.time() - signing, cpu_seconds(p.pid) - cpu)
    start = time.time()
    for o in lines:
        p.stdin.write(json.dumps(o) + "\n"); p.stdin.flush(); p.stdout.readline()
    elapsed = time.time() - start
    p.stdin.close(); p.wait()
    return stream / elapsed, sign_in

def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read()
    fields = fields[fields.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

paces = []
for n in sizes:
    rate, (wall, cpu) = pace(prepared(n))
    paces.append(rate)
    print(f"{n:>7} notes: {rate:8.0f} intents/s, {rate / paces[0]:.2f} of the {sizes[0]:,}-note pace; signing in {wall * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU)", flush=True)
