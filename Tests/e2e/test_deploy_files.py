"""The deployment files agree with the server and pass their linters: the Kubernetes manifests validate strictly
and use the Dockerfile's port and image and the server's real flags, variables and health route; hadolint is
clean on the Dockerfile."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, binary

K8S = sorted((ROOT / "deploy/kubernetes").glob("*.yaml"))
BIN = Path(sys.executable).parent


def manifests():
    return {doc["kind"]: doc for path in K8S for doc in yaml.safe_load_all(path.read_text()) if doc}


def serve_help():
    return subprocess.run([binary(), "serve", "--help"], capture_output=True, text=True, check=True).stdout


def test_kubernetes_files_validate_strictly():
    assert len(K8S) >= 3
    result = subprocess.run([str(BIN / "kubernetes-validate"), "--strict", *map(str, K8S)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_is_clean():
    result = subprocess.run([str(BIN / "hadolint"), str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_manifests_match_the_dockerfile_and_the_server():
    docker = (ROOT / "Dockerfile").read_text()
    k = manifests()
    assert {"Deployment", "Service", "HorizontalPodAutoscaler"} <= set(k)
    pod = k["Deployment"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    exposed = int(re.search(r"^EXPOSE (\d+)", docker, re.M).group(1))
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": exposed}
    assert container["image"].split("/")[-1].split(":")[0] == "tileserver"
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == "/healthz" and container[probe]["httpGet"]["port"] in ("http", exposed)
    assert k["Service"]["spec"]["ports"][0]["targetPort"] in ("http", exposed)
    assert k["Service"]["spec"]["selector"] == k["Deployment"]["spec"]["selector"]["matchLabels"]
    assert k["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]["name"] == k["Deployment"]["metadata"]["name"]

    # every flag and variable named exists; the image's volumes are mounted
    text = serve_help()
    args = container["args"]
    assert args[0] == "serve" and re.search(r'^CMD \["serve", "/images"\]', docker, re.M)
    flags = [a for a in args if a.startswith("--")]
    assert flags and all(f"  {f} (TILESERVER_" in text for f in flags), flags
    variables = [e["name"] for e in container.get("env", [])] + re.findall(r"(TILESERVER_[A-Z_]+)=", docker)
    assert variables and all(f"({v})" in text for v in variables), variables
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert mounts["/images"]["readOnly"] is True and "/cache" in mounts
    assert 'VOLUME ["/images", "/cache"]' in docker

    # memory matched to the tile cache; grace longer than the drain; locked down
    cache_mb = int(args[args.index("--cache-mb") + 1])
    def mib(q):
        return int(q[:-2]) * (1024 if q.endswith("Gi") else 1)
    assert mib(container["resources"]["requests"]["memory"]) >= cache_mb + 60
    assert mib(container["resources"]["limits"]["memory"]) >= mib(container["resources"]["requests"]["memory"])
    assert pod["terminationGracePeriodSeconds"] > 10
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    uid = int(re.search(r"^USER (\d+)", docker, re.M).group(1))
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == uid != 0


def test_the_object_storage_variant_has_no_image_volume_its_keys_from_a_secret_and_a_shared_store():
    folder = ROOT / "deploy/kubernetes/object-storage"
    files = sorted(folder.glob("*.yaml"))
    result = subprocess.run([str(BIN / "kubernetes-validate"), "--strict", *map(str, files)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    docs = {doc["kind"]: doc for path in files for doc in yaml.safe_load_all(path.read_text()) if doc}
    base = manifests()
    deployment, secret = docs["Deployment"], docs["Secret"]
    # The Service and the autoscaler of the folder above select and scale it.
    assert deployment["metadata"]["name"] == base["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]["name"]
    assert deployment["spec"]["selector"]["matchLabels"] == base["Service"]["spec"]["selector"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    args = container["args"]
    assert args[0] == "serve" and args[1].startswith("s3://")
    assert args[args.index("--store-dir") + 1].startswith("s3://")
    text = serve_help()
    flags = [a for a in args if a.startswith("--")]
    assert all(f"  {f} (TILESERVER_" in text for f in flags), flags
    assert "/images" not in {m["mountPath"] for m in container["volumeMounts"]}
    assert not any("persistentVolumeClaim" in v for v in pod["volumes"])
    env = {e["name"]: e for e in container["env"]}
    for name, key in (("AWS_ACCESS_KEY_ID", "access-key-id"), ("AWS_SECRET_ACCESS_KEY", "secret-access-key")):
        ref = env[name]["valueFrom"]["secretKeyRef"]
        assert ref["name"] == secret["metadata"]["name"] and key in secret["stringData"], name
    assert {"AWS_ENDPOINT_URL", "AWS_REGION"} <= set(env)
    for variable in (e for e in env if e.startswith("TILESERVER_")):
        assert f"({variable})" in text
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_nginx_front_names_what_the_issue_asks():
    conf = (ROOT / "deploy/nginx/tileserver.conf").read_text()
    for directive in ("proxy_cache_path", "max_size=", "proxy_cache_lock on", "proxy_next_upstream ", "keepalive ",
                      "hash $tileserver_image consistent", "proxy_http_version 1.1"):
        assert directive in conf, directive


def check_system_libraries(root, *binary):
    return subprocess.run([sys.executable, str(ROOT / "scripts/check-system-libraries.py"), *binary, "--root", str(root)],
                          capture_output=True, text=True)


def copy_of_the_lists(tmp_path):
    for name in ("Package.swift", "Dockerfile", "scripts/system-libraries.txt", "scripts/install-deps.sh"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_system_library_lists_agree_with_each_other_and_the_binary():
    result = check_system_libraries(ROOT, binary())
    assert result.returncode == 0, result.stderr
    assert "agree across Package.swift, the Dockerfile's two stages, install-deps.sh and the binary" in result.stdout


@pytest.mark.parametrize("path, old, new, named", [
    # a runtime library dropped from the image: the build passes, the served WebP tile would not
    ("Dockerfile", " libwebp7 ", " ", "libwebp7 (CWebP): missing from the Dockerfile's runtime stage"),
    ("Dockerfile", " libtiff-dev ", " ", "libtiff-dev (CTIFF): missing from the Dockerfile's build stage"),
    ("Dockerfile", " libopenjp2-7 ", " libopenjp2-7 libavif15 ", "libavif15: installed by the Dockerfile's runtime stage"),
    ("Package.swift", '"libopenjp2-7-dev"', '"libopenjpeg-dev"', "Package.swift's apt provider is ['libopenjpeg-dev']"),
    ("Package.swift", 'pkgConfig: "lcms2"', 'pkgConfig: "lcms"', "Package.swift's pkgConfig is 'lcms'"),
    ("scripts/system-libraries.txt", "CPNG ", "CPNGX ", "Package.swift has no systemLibrary 'CPNGX'"),
])
def test_a_library_missing_from_one_list_fails_naming_it(tmp_path, path, old, new, named):
    root = copy_of_the_lists(tmp_path)
    text = (root / path).read_text()
    assert old in text
    (root / path).write_text(text.replace(old, new, 1))
    result = check_system_libraries(root)
    assert result.returncode == 1
    assert named in result.stderr, result.stderr


def test_a_shared_library_the_binary_needs_must_have_its_runtime_package(tmp_path):
    root = copy_of_the_lists(tmp_path)
    table = root / "scripts/system-libraries.txt"
    table.write_text(table.read_text().replace("libwebp7,libwebpmux3", "libwebp7"))
    for name in ("Package.swift", "Dockerfile"):  # the image itself agrees with the shortened list
        (root / name).write_text((root / name).read_text().replace(" libwebpmux3", ""))
    result = check_system_libraries(root, binary())
    assert result.returncode == 1
    assert result.stderr.strip() == ("system libraries: libwebpmux3 (libwebpmux.so.3): the binary needs it but no "
                                     "runtime package in scripts/system-libraries.txt is it"), result.stderr
