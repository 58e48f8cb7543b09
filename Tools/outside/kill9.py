#!/usr/bin/env python3
# Kills a shell with SIGKILL at a random answer of a stream of increments, ten times, and
# restarts it on the same database: prints answered/restored for each run. An answer is durable
# when restored >= answered every time.
#   Tools/outside/kill9.py .build/release serve|repl [SEED] [pos]   (pos: a lone database argument)
import subprocess, os, random, json, re, sys, tempfile, signal
B = sys.argv[1]  # the folder with the built executables
shell = sys.argv[2]
random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
def start(db, home):
    positional = len(sys.argv) > 4 and sys.argv[4] == "pos"
    if shell == "serve": args = [B + "/appcore-serve", db] if positional else [B + "/appcore-serve", "--db", db]
    else: args = [B + "/appcore-repl", "--db", db]
    return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=home, XDG_DATA_HOME=home))
line = '{"increment":{}}\n' if shell == "serve" else "counter.increment\n"
def count_of(l):
    if shell == "serve":
        try: return json.loads(l)["screens"]["counter"]["count"]
        except Exception: return None
    m = re.match(rb"counter: (\d+)", l); return int(m.group(1)) if m else None
results = []
for run in range(10):
    home = tempfile.mkdtemp(); db = home + "/app.sqlite"
    p = start(db, home); p.stdin.write((line * 3000).encode()); p.stdin.flush()
    target = random.randint(50, 1500); answered = 0
    while answered < target:
        l = p.stdout.readline()
        c = count_of(l)
        if c is not None: answered = c
    p.send_signal(signal.SIGKILL); p.wait()
    q = start(db, home); q.stdin.write(line.encode()); q.stdin.flush()
    restored = None
    while restored is None:
        c = count_of(q.stdout.readline())
        if c is not None: restored = c - 1
    q.stdin.close(); q.wait()
    results.append((answered, restored))
lost = sum(1 for a, r in results if r < a)
print(shell, "runs", len(results), "answered>restored in", lost, "runs;", " ".join(f"{a}/{r}" for a, r in results))
