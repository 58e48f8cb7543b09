#!/usr/bin/env python3
# What each kind of intent costs appcore-serve at SMALL and at LARGE notes (default 1,000 and
# 10,000): CPU and wall time per intent, the longest reply, and the CPU ratio. An intent whose
# work does not grow with the notes should cost about the same at both; a ratio near
# LARGE / SMALL says its cost grows with them. One note in a hundred holds "oats", the others
# "plain", so a search for "oats" finds 1% of the notes and one for "plain" 99%.
#   Tools/outside/flatness.py .build/release/appcore-serve [KINDS] [SMALL LARGE] [--check MAX]
# With --check, it exits 1 when a kind's CPU ratio passes MAX (CI runs it at small sizes: a cost
# that grows with the notes shows as a ratio near LARGE / SMALL).
# KINDS, comma separated: add, edit, delete, select, more, search, clear, reload, increment.
# CPU is read in the kernel's 10 ms ticks, so a kind whose run takes less than a few tenths of
# a second of CPU reads coarsely: compare wall times there. Past the last page, a page more is
# refused (cheaply); "more" reads four pages more, then goes back to the first.
import json, os, random, shutil, sqlite3, subprocess, sys, tempfile, time

args = sys.argv[1:]
check = None
if "--check" in args:
    at = args.index("--check")
    check = float(args[at + 1])
    del args[at:at + 2]
exe = args[0]
kinds = args[1].split(",") if len(args) > 1 else ["add", "edit", "delete", "select", "more", "search", "clear", "reload", "increment"]
sizes = [int(n) for n in args[2:4]] if len(args) > 3 else [1000, 10000]
counts = {"add": 300, "edit": 300, "delete": 300, "select": 300, "more": 200, "search": 100, "clear": 60, "reload": 100, "increment": 300}
signin = [{"typeUsername": {"username": "flat.user"}}, {"typePassword": {"password": "flatness"}}, {"signIn": {}}]
folder = tempfile.mkdtemp()


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read()
    fields = fields[fields.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def prepared(notes):
    """A database of `notes` notes, every one of them indexed for search."""
    path = os.path.join(folder, f"base{notes}.sqlite")
    lines = [{"signUp": {"username": "flat.user", "password": "flatness"}}] + signin
    lines += [{"addNote": {"text": f"note {i} with oats" if i % 100 == 0 else f"note {i} plain text"}} for i in range(notes)]
    subprocess.run([exe, "--db", path], input="".join(json.dumps(o) + "\n" for o in lines), capture_output=True, text=True, check=True)
    # Indexing starts at a sign-in, a write or a search: a process signs in and searches once,
    # and stays open until the index has caught up (a process that only opened never started it).
    p = subprocess.Popen([exe, "--db", path], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    p.stdin.write("".join(json.dumps(o) + "\n" for o in signin + [{"searchNotes": {"query": "oats"}}]))
    p.stdin.flush()
    query = "SELECT count(*) FROM notes WHERE change_sequence > coalesce((SELECT indexed_through FROM search_progress WHERE owner_id = notes.owner_id), 0)"
    for _ in range(600):
        if sqlite3.connect(path).execute(query).fetchone()[0] == 0:
            break
        time.sleep(0.1)
    else:
        sys.exit(f"the search index of {path} did not catch up within a minute")
    p.stdin.close()
    p.wait()
    return path


def lines(kind, ids, count):
    r = random.Random(1)
    if kind == "add": return [{"addNote": {"text": f"flat {i}"}} for i in range(count)]
    if kind == "edit": return [{"editNote": {"id": r.choice(ids), "text": f"edited {i}"}} for i in range(count)]
    if kind == "delete": return [{"deleteNote": {"id": ids[i]}} for i in range(count)]
    if kind == "select": return [{"selectNote": {"id": r.choice(ids)}} for i in range(count)]
    # Four pages more, then back to the first (clearing the search does): a reader paging on,
    # as many rows held at either size.
    if kind == "more": return [{"showMoreNotes": {}} if i % 5 < 4 else {"searchNotes": {"query": ""}} for i in range(count)]
    if kind == "search": return [{"searchNotes": {"query": "oats" if i % 2 == 0 else "plain"}} for i in range(count)]
    if kind == "clear": return [{"searchNotes": {"query": q}} for _ in range(count) for q in ("oats", "")]
    if kind == "reload": return [{"reloadNotes": {}}] * count
    if kind == "increment": return [{"increment": {}}] * count
    sys.exit(f"unknown kind {kind}")


def measure(base, kind):
    path = os.path.join(folder, "run.sqlite")
    for suffix in ["", "-wal", "-shm"]:
        if os.path.exists(path + suffix): os.remove(path + suffix)
    shutil.copy(base, path)
    # A front end edits, deletes and opens the notes it was shown: the first page's (deletes
    # take the first note again and again, the next one moving into the page).
    shown = [row[0] for row in sqlite3.connect(path).execute("SELECT id FROM notes ORDER BY updated_at DESC, id DESC LIMIT 50")]
    ids = [row[0] for row in sqlite3.connect(path).execute("SELECT id FROM notes ORDER BY updated_at DESC, id DESC LIMIT 400")] if kind == "delete" else shown
    p = subprocess.Popen([exe, "--db", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    for intent in signin:
        p.stdin.write(json.dumps(intent) + "\n")
        p.stdin.flush()
        p.stdout.readline()
    stream = lines(kind, ids, counts[kind])
    cpu, start, longest = cpu_seconds(p.pid), time.time(), 0
    for intent in stream:
        p.stdin.write(json.dumps(intent) + "\n")
        p.stdin.flush()
        longest = max(longest, len(p.stdout.readline()))
    cpu, wall = cpu_seconds(p.pid) - cpu, time.time() - start
    p.stdin.close()
    p.wait()
    return cpu / len(stream) * 1e6, wall / len(stream) * 1e3, longest


bases = {n: prepared(n) for n in sizes}
print(f"{'intent':10s}" + "".join(f" | {n:>6} notes: CPU µs  wall ms  reply B" for n in sizes) + " | ratio (CPU, or wall where CPU is coarse)")
grown = []
for kind in kinds:
    results = [measure(bases[n], kind) for n in sizes]
    row = "".join(f" | {c:19.0f} {w:8.2f} {b:8d}" for c, w, b in results)
    # CPU comes in 10 ms ticks: where a run took less than a few tenths of a second of it, the
    # wall times are compared instead.
    coarse = min(c * counts[kind] for c, _, _ in results) < 200_000
    ratio = results[1][1] / max(results[0][1], 1e-3) if coarse else results[1][0] / max(results[0][0], 1)
    print(f"{kind:10s}{row} | {ratio:9.2f}")
    if check is not None and ratio > check: grown.append(f"{kind} ({ratio:.2f})")
shutil.rmtree(folder)
if grown:
    sys.exit(f"flatness: a cost grows with the notes, CPU ratio over {check}: {', '.join(grown)}")
