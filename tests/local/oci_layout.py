"""Assembles OCI image layouts from layer tarballs the pull tests make
(hostile entries, whiteouts, several platforms: what umoci would not
write). skopeo then pushes them like any layout.

  oci_layout.py image LAYOUT TAG [--arch ARCH] LAYER...
      an image (config for linux/ARCH, default amd64) whose layers are the
      given tar or tar.gz files, tagged TAG in LAYOUT (created if needed)
  oci_layout.py index LAYOUT TAG IMAGE_TAG...
      an image index of the images tagged IMAGE_TAG (platforms from their
      configs), tagged TAG
  oci_layout.py layers LAYOUT TAG
      the layer digests of the image tagged TAG, one a line
Prints the digest of what it tagged.
"""
import gzip
import hashlib
import json
import os
import sys

OCI = "application/vnd.oci.image."
REF = "org.opencontainers.image.ref.name"


def put(layout, data):
    d = hashlib.sha256(data).hexdigest()
    os.makedirs(layout + "/blobs/sha256", exist_ok=True)
    with open("%s/blobs/sha256/%s" % (layout, d), "wb") as f:
        f.write(data)
    return {"digest": "sha256:" + d, "size": len(data)}


def get(layout, digest):
    with open("%s/blobs/sha256/%s" % (layout, digest[7:]), "rb") as f:
        return f.read()


def load_index(layout):
    try:
        with open(layout + "/index.json") as f:
            return json.load(f)
    except OSError:
        os.makedirs(layout, exist_ok=True)
        with open(layout + "/oci-layout", "w") as f:
            f.write('{"imageLayoutVersion":"1.0.0"}')
        return {"schemaVersion": 2, "manifests": []}


def tag(layout, desc, name):
    idx = load_index(layout)
    idx["manifests"] = [m for m in idx["manifests"]
                        if m.get("annotations", {}).get(REF) != name]
    idx["manifests"].append(dict(desc, annotations={REF: name}))
    with open(layout + "/index.json", "w") as f:
        json.dump(idx, f)
    print(desc["digest"])


def tagged(layout, name):
    for m in load_index(layout)["manifests"]:
        if m.get("annotations", {}).get(REF) == name:
            return m
    sys.exit("no image tagged " + name)


def image(layout, name, arch, layers):
    descs, diffs = [], []
    for path in layers:
        with open(path, "rb") as f:
            data = f.read()
        gz = data[:2] == b"\x1f\x8b"
        diffs.append("sha256:" + hashlib.sha256(
            gzip.decompress(data) if gz else data).hexdigest())
        descs.append(dict(put(layout, data), mediaType=OCI + "layer.v1.tar"
                          + ("+gzip" if gz else "")))
    config = {"architecture": arch, "os": "linux", "config": {},
              "rootfs": {"type": "layers", "diff_ids": diffs}}
    cfg = dict(put(layout, json.dumps(config).encode()),
               mediaType=OCI + "config.v1+json")
    manifest = {"schemaVersion": 2, "mediaType": OCI + "manifest.v1+json",
                "config": cfg, "layers": descs}
    tag(layout, dict(put(layout, json.dumps(manifest).encode()),
                     mediaType=OCI + "manifest.v1+json"), name)


def index(layout, name, tags):
    entries = []
    for t in tags:
        m = tagged(layout, t)
        cfg = json.loads(get(layout, json.loads(get(layout, m["digest"]))
                             ["config"]["digest"]))
        entries.append({"mediaType": m["mediaType"], "digest": m["digest"],
                        "size": m["size"], "platform": {
                            "os": cfg["os"],
                            "architecture": cfg["architecture"]}})
    idx = {"schemaVersion": 2, "mediaType": OCI + "index.v1+json",
           "manifests": entries}
    tag(layout, dict(put(layout, json.dumps(idx).encode()),
                     mediaType=OCI + "index.v1+json"), name)


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "image":
        arch = "amd64"
        if len(a) > 4 and a[3] == "--arch":
            arch, a = a[4], a[:3] + a[5:]
        image(a[1], a[2], arch, a[3:])
    elif len(a) == 3 and a[0] == "layers":
        m = json.loads(get(a[1], tagged(a[1], a[2])["digest"]))
        print("\n".join(l["digest"] for l in m["layers"]))
    elif len(a) >= 4 and a[0] == "index":
        index(a[1], a[2], a[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
