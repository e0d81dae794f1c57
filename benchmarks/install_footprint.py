"""Install time and size of ``pip install -e '.[EXTRAS]'`` in a fresh venv.

For each source (a directory holding a pyproject.toml, e.g. ``git archive`` of two commits
unpacked), one cold install (an empty pip cache of its own: everything downloaded) and one
warm install (a second fresh venv reusing that cache), interleaved; prints wall seconds,
the venv's size (MiB, ``du`` of site-packages) and how many distributions it holds, with
the machine's load from ``uptime``. Figures only: nothing here is asserted in tests.

    python benchmarks/install_footprint.py --extras sandbox /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _size_mib(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def _install(source: Path, extras: str, cache: Path, work: Path) -> dict[str, float]:
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    subprocess.run([*pip, "install", "-q", "--upgrade", "pip"], check=True)
    started = time.monotonic()
    subprocess.run(
        [*pip, "install", "-q", "--cache-dir", str(cache), "-e", f"{source}[{extras}]"],
        check=True,
    )
    seconds = time.monotonic() - started
    listed = subprocess.run([*pip, "list", "--format=freeze"], capture_output=True, text=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    return {"seconds": seconds, "mib": _size_mib(site), "dists": len(listed.stdout.split())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--extras", default="sandbox")
    args = parser.parse_args()
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as tmp:
        caches = {src: Path(tmp) / f"cache{i}" for i, src in enumerate(args.sources)}
        for phase in ("cold", "warm"):
            for i, src in enumerate(args.sources):
                work = Path(tmp) / f"{phase}{i}"
                work.mkdir()
                got = _install(src.resolve(), args.extras, caches[src], work)
                print(
                    f"{src} {phase}: {got['seconds']:.1f} s, site-packages {got['mib']:.0f} MiB, "
                    f"{got['dists']:.0f} distributions",
                    flush=True,
                )
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
