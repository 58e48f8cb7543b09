#!/usr/bin/env python3
# Five wrong-password sign-ins for an account that exists and five for a username that does not,
# through appcore-serve: prints each attempt's seconds and outcome. Both should be throttled alike, and
# every attempt answered at once (a throttled one says how long to wait).
#   Tools/outside/throttle.py .build/release/appcore-serve [pos]   (pos: a lone database argument)
import subprocess, json, os, sys, time, tempfile
S=sys.argv[1]; pos=len(sys.argv)>2
d=tempfile.mkdtemp(); db=d+"/t.db"
p=subprocess.Popen([S, db] if pos else [S,"--db",db],stdin=subprocess.PIPE,stdout=subprocess.PIPE,stderr=subprocess.DEVNULL,text=True,bufsize=1,env=dict(os.environ,HOME=d))
def do(o):
    t=time.monotonic(); p.stdin.write(json.dumps(o)+"\n"); p.stdin.flush(); r=json.loads(p.stdout.readline()); return time.monotonic()-t, r
do({"signUp":{"username":"alice.liddell","password":"wonderland"}})
for user in ["alice.liddell","nobody.here"]:
    times=[]
    for i in range(5):
        do({"typeUsername":{"username":user}}); do({"typePassword":{"password":"wrong-one"}})
        t,r=do({"signIn":{}}); times.append((round(t,2), list(r["status"].keys())[0]))
        do({"dismissError":{}})
    print(user, "attempt seconds:", times)
p.stdin.close(); p.wait()
