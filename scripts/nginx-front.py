#!/usr/bin/env python3
"""Writes deploy/nginx/tileserver.conf as it is, but for the replicas, the listen port and the two paths, into a
folder of its own with an nginx.conf around it, for the tests that put nginx in front of replicas on 127.0.0.1
(scripts/scaleout-test.sh, Tests/e2e/test_object_storage_scaleout.py). Start it with
`nginx -c WORK/nginx.conf -p WORK`.

    scripts/nginx-front.py WORK PROXY_PORT REPLICA_PORT...
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write(work, proxy, replicas):
    work = Path(work)
    text = (ROOT / "deploy/nginx/tileserver.conf").read_text()
    servers = "".join(f"    server 127.0.0.1:{r} max_fails=1 fail_timeout=10s;\n" for r in replicas)
    text, n = re.subn(r"(# replicas: begin\n).*?(\s*# replicas: end)", lambda m: m.group(1) + servers + m.group(2).lstrip("\n"),
                      text, flags=re.S)
    assert n == 1, "replicas markers"
    for old, new in (("listen 8080;", f"listen 127.0.0.1:{proxy};"), ("/var/cache/nginx/tileserver", f"{work}/cache"),
                     ("/var/log/nginx/tileserver.log", f"{work}/access.log")):
        assert old in text, old
        text = text.replace(old, new)
    (work / "tileserver.conf").write_text(text)
    (work / "nginx.conf").write_text(f"""worker_processes 2;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  client_body_temp_path {work}/body; proxy_temp_path {work}/proxy; fastcgi_temp_path {work}/fcgi;
  uwsgi_temp_path {work}/uwsgi; scgi_temp_path {work}/scgi;
  include {work}/tileserver.conf;
}}
""")


if __name__ == "__main__":
    write(sys.argv[1], sys.argv[2], sys.argv[3:])
