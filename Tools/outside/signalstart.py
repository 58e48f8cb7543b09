#!/usr/bin/env python3
# Each of RUNS appcore-serve processes is sent SIGTERM as soon as it has answered its first line,
# while BUSY threads of busy loops load the machine: every one must end, within 10 s, with status
# 143 (128 + SIGTERM). A signal that arrives before the shell listens for it is lost, and the
# process goes on waiting for input (a second SIGTERM ends it, and is counted as a miss).
#   Tools/outside/signalstart.py .build/release/appcore-serve 150 3
import signal, subprocess, sys
exe = sys.argv[1]; runs = int(sys.argv[2]); busy = int(sys.argv[3]) if len(sys.argv) > 3 else 3
# Busy processes, not threads: Python's threads share one lock and load one core.
loads = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
missed = 0; statuses = {}
try:
    for _ in range(runs):
        p = subprocess.Popen([exe, "--in-memory"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p.stdin.write(b'{"increment":{}}\n'); p.stdin.flush()
        p.stdout.readline()
        p.send_signal(signal.SIGTERM)
        try:
            status = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            missed += 1
            p.send_signal(signal.SIGTERM)
            status = p.wait()
        statuses[status] = statuses.get(status, 0) + 1
        p.stdin.close(); p.stdout.close()
finally:
    for load in loads: load.kill()
print(f"{runs} runs, {missed} signals missed, exit statuses {statuses}")
sys.exit(0 if missed == 0 and set(statuses) == {143} else 1)
